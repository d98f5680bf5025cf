package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Limits of the appearance images.
const (
	maxImageBytes = 2_000_000 // each of logo and background
	maxImageLabel = "2 MB"    // maxImageBytes as the editor says it
	// maxAppearanceForm caps an editor form: two images and the fields.
	maxAppearanceForm = 2*maxImageBytes + maxFormBody
)

// appearanceScope is what an editor edits: the account's default
// appearance, or one file's own.
type appearanceScope struct {
	file    *fileframe.File      // nil for the account's default
	own     fileframe.Appearance // what the scope stores (zero when nothing)
	account fileframe.Appearance // the account's default
}

// start is the appearance the editor's form starts from: the scope's own,
// else (for a file) the account's default.
func (sc appearanceScope) start() fileframe.Appearance {
	if sc.own.IsZero() {
		return sc.account
	}
	return sc.own
}

// path is the address of the scope's editor.
func (sc appearanceScope) path() string {
	if sc.file == nil {
		return "/appearance"
	}
	return "/files/" + url.PathEscape(string(sc.file.ID)) + "/appearance"
}

// loadScope reads the scope named by a request: the account's default, or
// the file {id} (path) or file (query), which must be the account's. A
// missing or foreign file is ENOTFOUND.
func (s *Server) loadScope(ctx context.Context, acct fileframe.Account, id fileframe.FileID) (appearanceScope, error) {
	var sc appearanceScope
	var err error
	if sc.account, err = s.store.AccountAppearance(ctx, acct.ID); err != nil {
		return sc, err
	}
	if id == "" {
		sc.own = sc.account
		return sc, nil
	}
	f, err := s.store.FileByID(ctx, id)
	if err == nil && f.AccountID != acct.ID {
		err = fileframe.Errorf(fileframe.ENOTFOUND, "File not found.")
	}
	if err != nil {
		return sc, err
	}
	sc.file = &f
	sc.own, err = s.store.FileAppearance(ctx, f.ID)
	return sc, err
}

// appearancePage is the data of app_appearance.html (the account's
// branding) and app_file_appearance.html (one file's).
type appearancePage struct {
	appPage
	// Pro says whether the plan has template appearances.
	Pro bool
	// Stored says the scope has an appearance of its own to remove.
	Stored    bool
	Action    string // the form's address
	File      *fileframe.File
	FileSize  string
	State     appearanceState
	Templates []builtinTemplate
	// LogoURL and BackURL show the images the form starts from; empty
	// when there is none.
	LogoURL, BackURL string
	// Images are the image fields, filled by renderAppearance.
	Images     []imageField
	PreviewURL string
	MaxImage   string
}

// imageField is the data of one image field of the editor.
type imageField struct {
	Kind, Label, Noun string
	URL               string // the current image; empty when none
	Remove            bool   // "remove" is ticked
	Error             string
	Max               string
}

// appearanceState says what a file's visitors see, for the file page and
// the file's editor.
type appearanceState struct {
	Kind  string // "account", "custom" or "default"
	Label string // e.g. "Account default (Minimal)"
	// CustomPage says a published custom page is shown instead.
	CustomPage bool
}

// stateOf describes the appearance a file shows on plan p.
func stateOf(p fileframe.Plan, sc appearanceScope, customPage bool) appearanceState {
	st := appearanceState{Kind: "default", Label: "Neutral default", CustomPage: customPage}
	if !p.Templates() {
		return st
	}
	if l, ok := resolveTemplate(sc.own); ok {
		st.Kind, st.Label = "custom", "Custom for this file ("+l.tmpl.Label+")"
	} else if l, ok := resolveTemplate(sc.account); ok && sc.own.IsZero() {
		st.Kind, st.Label = "account", "Account default ("+l.tmpl.Label+")"
	}
	return st
}

// appearance serves GET and POST /appearance and /files/{id}/appearance.
func (s *Server) appearance(w http.ResponseWriter, r *http.Request, user *signedIn) {
	post := r.Method == http.MethodPost
	sc, err := s.loadScope(r.Context(), user.account, fileframe.FileID(r.PathValue("id")))
	if s.failed(w, r, user, err, fileGone) {
		return
	}
	p, err := s.appearancePageFor(r.Context(), user, sc)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	if !post {
		if r.URL.Query().Get("saved") == "1" {
			p.Notice = "Saved. Your download pages show it now."
			if sc.file != nil {
				p.Notice = "Saved. This file's link shows it now."
			}
		}
		s.renderAppearance(w, r, http.StatusOK, sc, p)
		return
	}
	switch r.PostFormValue("action") {
	case "reset":
		s.saveAppearance(w, r, user, sc, fileframe.Appearance{})
		return
	case "preview":
		p.fill(r.PostForm)
		p.PreviewURL = previewAddress(sc, r.PostForm)
		s.renderAppearance(w, r, http.StatusOK, sc, p)
		return
	}
	a, errs := parseAppearance(r.PostForm)
	for kind := range imageKinds {
		key, size, msg, err := s.formImage(r, kind, sc.start())
		if err != nil {
			s.appError(w, r, user, err)
			return
		}
		if msg != "" {
			errs[kind] = msg
		}
		setImage(&a, kind, key, size)
	}
	if len(errs) > 0 {
		// Images stored by this form are not kept with it.
		var uploaded []string
		for _, keyOf := range imageKinds {
			if k := keyOf(a); k != keyOf(sc.start()) {
				uploaded = append(uploaded, k)
			}
		}
		s.dropUnusedImages(r, uploaded...)
		p.fill(r.PostForm)
		p.Errors = errs
		p.Errors[""] = "The appearance was not saved. Correct the fields marked below."
		p.PreviewURL = previewAddress(sc, r.PostForm)
		s.renderAppearance(w, r, http.StatusUnprocessableEntity, sc, p)
		return
	}
	s.saveAppearance(w, r, user, sc, a)
}

// saveAppearance stores a as the scope's appearance, removes the images
// it no longer uses, and sends the browser back to the editor.
func (s *Server) saveAppearance(w http.ResponseWriter, r *http.Request, user *signedIn, sc appearanceScope, a fileframe.Appearance) {
	ctx := r.Context()
	var err error
	if sc.file == nil {
		err = s.svc.SetAccountAppearance(ctx, user.account, a)
	} else {
		err = s.svc.SetFileAppearance(ctx, user.account, *sc.file, a)
	}
	if err != nil {
		// The images this form stored are not kept with it.
		var uploaded []string
		for _, keyOf := range imageKinds {
			if k := keyOf(a); k != keyOf(sc.own) && k != keyOf(sc.account) {
				uploaded = append(uploaded, k)
			}
		}
		s.dropUnusedImages(r, uploaded...)
		if fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
			s.appError(w, r, user, err)
			return
		}
		// Over the storage quota: the editor again, as filled, saying so.
		p, perr := s.appearancePageFor(ctx, user, sc)
		if perr != nil {
			s.appError(w, r, user, perr)
			return
		}
		p.fill(r.PostForm)
		p.Errors = map[string]string{"": fileframe.ErrorMessage(err)}
		p.PreviewURL = previewAddress(sc, r.PostForm)
		s.renderAppearance(w, r, http.StatusRequestEntityTooLarge, sc, p)
		return
	}
	var replaced []string
	for _, keyOf := range imageKinds {
		if old := keyOf(sc.own); old != a.LogoKey && old != a.Background {
			replaced = append(replaced, old)
		}
	}
	s.dropUnusedImages(r, replaced...)
	appRedirect(w, r, sc.path()+"?saved=1")
}

// dropUnusedImages removes the image blobs keys that nothing refers to.
// Images are content-addressed blobs, shared with any file or appearance
// of the same bytes, and one stored within fileframe.BlobGrace may be about
// to be used by another request: fileframe.RemoveBlobIfUnused leaves those
// to the orphan collector. A failure leaves an orphan too, so it is logged,
// not shown.
func (s *Server) dropUnusedImages(r *http.Request, keys ...string) {
	for _, key := range keys {
		if key == "" {
			continue
		}
		if _, err := fileframe.RemoveBlobIfUnused(r.Context(), s.store, s.blobs, key, s.now()); err != nil {
			s.logFor(r).Warn("app: removing an unused appearance image", "key", key, "err", err)
		}
	}
}

// setImage sets a's image of kind to the blob key, of size bytes.
func setImage(a *fileframe.Appearance, kind, key string, size int64) {
	if kind == "logo" {
		a.LogoKey, a.LogoBytes = key, size
	} else {
		a.Background, a.BackgroundBytes = key, size
	}
}

// imageOf returns a's image of kind: its blob key and size.
func imageOf(a fileframe.Appearance, kind string) (string, int64) {
	if kind == "logo" {
		return a.LogoKey, a.LogoBytes
	}
	return a.Background, a.BackgroundBytes
}

// parseAppearance reads the editor's fields into an appearance (without
// images) and the messages of the fields that are wrong, by name.
func parseAppearance(form url.Values) (fileframe.Appearance, map[string]string) {
	errs := map[string]string{}
	a := fileframe.Appearance{
		Template: form.Get("template"),
		Headline: strings.TrimSpace(form.Get("headline")),
		Message:  strings.TrimSpace(strings.ReplaceAll(form.Get("message"), "\r\n", "\n")),
	}
	if _, ok := templateByName(a.Template); !ok {
		errs["template"] = "Choose one of the templates."
	}
	if msg := checkText(a.Headline, maxHeadlineChars, false); msg != "" {
		errs["headline"] = "The headline " + msg
	}
	if msg := checkText(a.Message, maxMessageChars, true); msg != "" {
		errs["message"] = "The message " + msg
	}
	if accent := strings.TrimSpace(form.Get("accent")); accent != "" {
		c, ok := parseAccent(accent)
		if !ok {
			errs["accent"] = "Enter the accent colour as # and six hexadecimal digits, for example #1d4ed8."
		}
		a.Accent = c
	}
	return a, errs
}

// checkText returns what is wrong with a branding text ("" when nothing),
// to follow its name: at most max characters, no control characters but
// line breaks where lines are allowed.
func checkText(s string, max int, lines bool) string {
	if !utf8.ValidString(s) {
		return "must be valid text."
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Sprintf("can be at most %d characters long (it has %d).", max, n)
	}
	for _, r := range s {
		switch {
		case !unicode.IsControl(r), lines && r == '\n':
		case lines:
			return "cannot contain control characters such as tabs."
		default:
			return "cannot contain line breaks or other control characters."
		}
	}
	return ""
}

// formImage returns the form's image of kind, its blob key and size: a new
// upload (stored as a blob), none when "remove" is ticked, else current's.
// msg says what is wrong with an upload that is refused.
func (s *Server) formImage(r *http.Request, kind string, current fileframe.Appearance) (key string, size int64, msg string, err error) {
	var fh *multipart.FileHeader
	if r.MultipartForm != nil && len(r.MultipartForm.File[kind]) > 0 {
		fh = r.MultipartForm.File[kind][0]
	}
	if fh == nil || (fh.Size == 0 && fh.Filename == "") {
		if r.PostFormValue(kind+"_remove") != "" {
			return "", 0, "", nil
		}
		key, size := imageOf(current, kind)
		return key, size, "", nil
	}
	label := map[string]string{"logo": "The logo", "background": "The background image"}[kind]
	if fh.Size > maxImageBytes {
		return "", 0, fmt.Sprintf("%s is %s; images can be at most %s.", label, humanSize(fh.Size), maxImageLabel), nil
	}
	f, err := fh.Open()
	if err != nil {
		return "", 0, "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxImageBytes+1))
	if err != nil {
		return "", 0, "", err
	}
	if msg := checkImage(label, fh.Filename, b); msg != "" {
		return "", 0, msg, nil
	}
	info, err := s.blobs.Put(r.Context(), bytes.NewReader(b))
	if err != nil {
		return "", 0, "", err
	}
	return info.Key, info.Size, "", nil
}

// checkImage returns why image b (named name) is refused, or "". Its type
// is sniffed from its bytes; the name and the browser's type are not
// trusted, but an SVG is named as such.
func checkImage(label, name string, b []byte) string {
	if len(b) == 0 {
		return label + " is an empty file."
	}
	if len(b) > maxImageBytes {
		return fmt.Sprintf("%s is larger than %s.", label, maxImageLabel)
	}
	if imageTypes[http.DetectContentType(b)] {
		return ""
	}
	head := bytes.ToLower(b[:min(len(b), 1024)])
	if strings.EqualFold(path.Ext(name), ".svg") || bytes.Contains(head, []byte("<svg")) {
		return label + " is an SVG image. SVG files can contain scripts, so they are not accepted: export it as PNG or WebP instead."
	}
	return label + " is not a PNG, JPEG, WebP or GIF image."
}

// fill puts the submitted fields back into the form.
func (p *appearancePage) fill(form url.Values) {
	for _, name := range []string{"template", "headline", "message", "accent", "logo_remove", "background_remove"} {
		p.Form[name] = form.Get(name)
	}
}

// appearancePageFor builds the editor of scope sc, its form filled with
// what the scope shows now.
func (s *Server) appearancePageFor(ctx context.Context, user *signedIn, sc appearanceScope) (appearancePage, error) {
	title := "Appearance"
	if sc.file != nil {
		title = "Appearance of " + sc.file.Name
	}
	p := appearancePage{
		appPage:   s.newAppPage(title, user),
		Pro:       user.account.Plan.Templates(),
		Stored:    !sc.own.IsZero(),
		Action:    sc.path(),
		File:      sc.file,
		Templates: builtinTemplates,
		MaxImage:  maxImageLabel,
	}
	p.Styles = append(p.Styles, appAssetURL("app_appearance.css"))
	p.Scripts = append(p.Scripts, appAssetURL("app_appearance.js"))
	start := sc.start()
	if sc.file != nil {
		p.FileSize = humanSize(sc.file.Size)
		custom, err := s.publishedCustomPage(ctx, user.account, *sc.file)
		if err != nil {
			return p, err
		}
		p.State = stateOf(user.account.Plan, sc, custom)
	}
	if start.Template == "" {
		start.Template = builtinTemplates[0].Name
	}
	p.Form["template"], p.Form["headline"], p.Form["message"], p.Form["accent"] =
		start.Template, start.Headline, start.Message, start.Accent
	if p.Form["accent"] == "" {
		if t, ok := templateByName(start.Template); ok {
			p.Form["accent"] = t.Accent
		}
	}
	img := ownerImageURLs(sc, start)
	p.LogoURL, p.BackURL = img.logo, img.background
	p.PreviewURL = previewAddress(sc, url.Values{
		"template": {p.Form["template"]}, "headline": {start.Headline},
		"message": {start.Message}, "accent": {p.Form["accent"]},
	})
	return p, nil
}

// publishedCustomPage reports whether f's visitors see a published custom
// page (which then hides any appearance).
func (s *Server) publishedCustomPage(ctx context.Context, acct fileframe.Account, f fileframe.File) (bool, error) {
	if !acct.Plan.CustomPages() {
		return false, nil
	}
	pg, err := s.store.PageByFile(ctx, f.ID)
	if fileframe.IsNotFound(err) {
		return false, nil
	}
	return err == nil && pg.Published(), err
}

func (s *Server) renderAppearance(w http.ResponseWriter, r *http.Request, status int, sc appearanceScope, p appearancePage) {
	name := "app_appearance.html"
	if sc.file != nil {
		name = "app_file_appearance.html"
	}
	p.Images = []imageField{
		{Kind: "logo", Label: "Logo", Noun: "logo", URL: p.LogoURL},
		{Kind: "background", Label: "Background image", Noun: "background image", URL: p.BackURL},
	}
	for i := range p.Images {
		f := &p.Images[i]
		f.Remove, f.Error, f.Max = p.Form[f.Kind+"_remove"] != "", p.Errors[f.Kind], p.MaxImage
	}
	s.renderApp(w, r, status, name, p)
}

// previewFields are the editor's fields that the live preview takes as
// query parameters, the same names as the form's.
var previewFields = []string{"template", "headline", "message", "accent", "logo_remove", "background_remove"}

// previewAddress is the live preview of scope sc with the form's values.
func previewAddress(sc appearanceScope, form url.Values) string {
	q := url.Values{}
	if sc.file != nil {
		q.Set("file", string(sc.file.ID))
	}
	for _, name := range previewFields {
		if v := form.Get(name); v != "" {
			q.Set(name, v)
		}
	}
	return "/appearance/preview?" + q.Encode()
}

// ownerImageURLs are the editor's addresses of a's images in scope sc.
func ownerImageURLs(sc appearanceScope, a fileframe.Appearance) imageURLs {
	q := ""
	if sc.file != nil {
		q = "file=" + url.QueryEscape(string(sc.file.ID)) + "&"
	}
	var u imageURLs
	if a.LogoKey != "" {
		u.logo = "/appearance/image/logo?" + q + "v=" + imageVersion(a.LogoKey)
	}
	if a.Background != "" {
		u.background = "/appearance/image/background?" + q + "v=" + imageVersion(a.Background)
	}
	return u
}

// previewFile is the file the account's preview shows.
var previewFile = fileView{Name: "Annual report 2026.pdf", Size: "2.4 MB", DownloadURL: "#"}

// appearancePreview serves GET /appearance/preview: the template page that
// the editor's values make, for the signed-in owner only, framed by the
// editor (frame-ancestors 'self', the one page of the app origin that may
// be framed). Images are the scope's saved ones, unless removed.
func (s *Server) appearancePreview(w http.ResponseWriter, r *http.Request, user *signedIn) {
	q := r.URL.Query()
	sc, err := s.loadScope(r.Context(), user.account, fileframe.FileID(q.Get("file")))
	if s.failed(w, r, user, err, fileGone) {
		return
	}
	if r.Header.Get("Sec-Fetch-Dest") == "document" {
		// Opened on its own, not framed by the editor: the address could
		// have come from anyone, with any text in it, so show the editor
		// rather than an app-origin page saying what the link says.
		appRedirect(w, r, sc.path())
		return
	}
	a, errs := parseAppearance(q)
	if errs["template"] != "" {
		a.Template = builtinTemplates[0].Name
	}
	if errs["headline"] != "" || errs["message"] != "" {
		a.Headline, a.Message = truncateRunes(a.Headline, maxHeadlineChars), truncateRunes(a.Message, maxMessageChars)
	}
	start := sc.start()
	for kind := range imageKinds {
		if q.Get(kind+"_remove") == "" {
			key, size := imageOf(start, kind)
			setImage(&a, kind, key, size)
		}
	}
	l, _ := resolveTemplate(a)
	fv := previewFile
	if sc.file != nil {
		fv = newFileView(*sc.file)
	}
	body, csp, err := s.renderTemplatePage(l, fv, ownerImageURLs(sc, a), true, "'self'")
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	h := w.Header()
	s.setPreviewFrameHeaders(h, csp)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// truncateRunes cuts s to at most n characters.
func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// appearanceImage serves GET /appearance/image/{kind}: the image of kind
// that the signed-in account's editor (with ?file=, the file's editor)
// starts from. Nobody else gets it here; visitors get the images of the
// appearance a page shows at /f/{slug}/logo and /f/{slug}/background.
func (s *Server) appearanceImage(w http.ResponseWriter, r *http.Request, user *signedIn) {
	keyOf, ok := imageKinds[r.PathValue("kind")]
	if !ok {
		s.publicNotFound(w, r)
		return
	}
	sc, err := s.loadScope(r.Context(), user.account, fileframe.FileID(r.URL.Query().Get("file")))
	if fileframe.IsNotFound(err) {
		s.publicNotFound(w, r)
		return
	}
	if err != nil {
		s.publicError(w, r, err)
		return
	}
	key := keyOf(sc.start())
	if key == "" {
		s.publicNotFound(w, r)
		return
	}
	s.serveImage(w, r, key, "private, no-cache")
}

// appearanceSection is the data of the "file_appearance" template
// (templates/app_appearance.html): the appearance part of a file's page.
type appearanceSection struct {
	FileID fileframe.FileID
	CSRF   string
	Pro    bool
	State  appearanceState
	// Editor is the address of the file's appearance editor.
	Editor string
}

// fileAppearanceSection returns the appearance part of the page of file f,
// owned by the signed-in account acct; csrf is the session's form token.
func (s *Server) fileAppearanceSection(ctx context.Context, acct fileframe.Account, f fileframe.File, csrf string) (appearanceSection, error) {
	sc, err := s.loadScope(ctx, acct, f.ID)
	if err != nil {
		return appearanceSection{}, err
	}
	custom, err := s.publishedCustomPage(ctx, acct, f)
	if err != nil {
		return appearanceSection{}, err
	}
	return appearanceSection{
		FileID: f.ID, CSRF: csrf, Pro: acct.Plan.Templates(),
		State: stateOf(acct.Plan, sc, custom), Editor: sc.path(),
	}, nil
}

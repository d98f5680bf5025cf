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
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
	"github.com/fileframe/fileframe/internal/service"
)

// filesPage is the data of app_files.html.
type filesPage struct {
	appPage
	Upload uploadPanel
	Files  []fileRow
}

// fileRow is a file as the list and the file page show it.
type fileRow struct {
	ID          fileframe.FileID
	Name        string
	Size        string
	Link        string // the public link, absolute
	DownloadURL string
	Downloads   int64
	Created     string // date and time
	Date        string // date only, for the list
	Datetime    string
	// Look is what visitors of the link see, e.g. "Custom page · published
	// r3"; LookClass styles it.
	Look      string
	LookClass string
	// LinkState is the link's controls and state.
	LinkState linkView
	// Collection: the row is a collection of files (app_collections.go).
	Collection bool
	// Collectable: the file may go into a collection: a file (not a
	// collection) that is shared (a received file must be shared first).
	Collectable bool
}

// fileTime and fileDatetime are how the file pages show a time, and its
// machine-readable form for <time datetime>.
func fileTime(t time.Time) string     { return t.UTC().Format("2 Jan 2006, 15:04 UTC") }
func fileDatetime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (s *Server) newFileRow(f fileframe.File) fileRow {
	return fileRow{
		ID: f.ID, Name: f.Name, Size: humanSize(f.Size), Link: s.publicURL(f.URL()),
		DownloadURL: newFileView(f).DownloadURL, Downloads: f.Downloads,
		Created: fileTime(f.CreatedAt), Date: f.CreatedAt.UTC().Format("2 Jan 2006"), Datetime: fileDatetime(f.CreatedAt),
		LinkState: newLinkView(f, s.now()), Collection: f.IsCollection(), Collectable: !f.IsCollection() && f.Shared,
	}
}

// linkShows says what visitors of a file's link see, in the order of DESIGN.md:
// a published custom page, else a template appearance (the file's own,
// else the account's), else the default page. accountAppearance is the
// account's appearance; the file's own comes with the listing.
func linkShows(acct fileframe.Account, f fileframe.FileListing, accountAppearance fileframe.Appearance) (text, class string) {
	if f.LatestRevision > 0 {
		switch {
		case !acct.Plan.CustomPages():
			return "Custom page · not shown (needs Agency)", "look-off"
		case f.LiveRevision > 0:
			return "Custom page · published r" + strconv.Itoa(f.LiveRevision), "look-live"
		}
		// A draft is not shown: the template or default page is, below.
		text = "Draft r" + strconv.Itoa(f.LatestRevision) + " · "
	}
	if !acct.Plan.Templates() {
		return text + "Default page", "look-default"
	}
	own := f.Appearance
	// As the public page decides (stateOf): the file's own template, else,
	// when the file has no appearance of its own, the account's; a file set
	// to the neutral default, or an unknown template, shows the default.
	if l, ok := resolveTemplate(own); ok {
		return text + "Template: " + l.tmpl.Label, "look-template"
	}
	if l, ok := resolveTemplate(accountAppearance); ok && own.IsZero() {
		return text + "Template: " + l.tmpl.Label + " (account)", "look-template"
	}
	return text + "Default page", "look-default"
}

// files serves GET /files: the signed-in account's files, newest first.
func (s *Server) files(w http.ResponseWriter, r *http.Request, user *signedIn) {
	ctx := r.Context()
	list, err := s.store.FilesByAccount(ctx, user.account.ID)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	accountAppearance, err := s.store.AccountAppearance(ctx, user.account.ID)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	p := filesPage{appPage: s.newAppPage("Files", user), Upload: s.uploadPanelFor(user.account.Plan)}
	p.Styles = append(append(p.Styles, appAssetURL("app_files.css")), p.Upload.Styles...)
	p.Scripts = append(append(p.Scripts, appAssetURL("app_files.js")), p.Upload.Scripts...)
	if r.URL.Query().Get("done") == "deleted" {
		p.Notice = "The file was deleted. Its link no longer works."
	}
	for _, f := range list {
		row := s.newFileRow(f.File)
		row.Look, row.LookClass = linkShows(user.account, f, accountAppearance)
		p.Files = append(p.Files, row)
	}
	s.renderApp(w, r, http.StatusOK, "app_files.html", p)
}

// fileDetail is the data of app_file.html.
type fileDetail struct {
	appPage
	File       fileRow
	Appearance appearanceSection
	// Agency says whether the account may change custom pages and make
	// page-bound keys; Page is the file's custom page, nil when it has none.
	Agency bool
	Page   *customPage
	// HTML is the editor's text: what was sent when it was refused, or a
	// revision loaded with ?edit=N. Findings are htmlcheck's errors for it.
	HTML     string
	EditRev  int
	Findings []htmlcheck.Finding
	// NewKey is a page-bound key just made, shown this once; Curl is a
	// request that uses it. ActiveKeys counts the file's usable page keys.
	NewKey     string
	Curl       string
	ActiveKeys int
	MaxHTML    string
	// Collection is the panel of a collection's files; nil for a file.
	Collection *collectionPanel
	// LinkFormSent: the link form shows Form's link_* values (a refused
	// change) rather than the link's.
	LinkFormSent bool
}

// customPage is the custom page panel's view of a file's page.
type customPage struct {
	Published bool
	Latest    int
	Live      int
	Updated   string
	Datetime  string
	// Frame is the content-origin address of the latest revision with a
	// preview token, as the visitors' sandbox loads it; PreviewURL opens
	// the same through /f/<slug>. Empty for a downgraded account, whose
	// pages the content origin does not serve.
	Frame      string
	PreviewURL string
	PreviewFor string // how long preview links work, e.g. "24 hours"
	// Warnings are htmlcheck's non-fatal findings for the latest revision.
	Warnings  []htmlcheck.Finding
	Revisions []revisionRow
	// Assets are the latest revision's remote images, fonts and media and
	// what Fileframe keeps of them; Missing counts those it could not
	// fetch (the page offers to fetch them again).
	Assets  []assetRow
	Missing int
}

// assetRow is a remote resource of a revision on the file page.
type assetRow struct {
	Kind, URL, Type, Size, Problem string
	Kept                           bool
}

// revisionRow is one revision of the history.
type revisionRow struct {
	Number     int
	Size       string
	Created    string
	Datetime   string
	Published  string // when it was first published; "" if never
	Live       bool
	Latest     bool
	PreviewURL string
}

// fileNotices are the sentences shown on the file page after an action, by
// the outcome named in the "done" query parameter; %d is a revision number
// read from the store (never from the query).
var fileNotices = map[string]string{
	"renamed":            "The file was renamed. Visitors now download it under its new name.",
	"link":               "The link's settings are saved. Visitors get them from their next request.",
	"saved":              "Revision %d was saved as a draft. Visitors do not see it until you publish it.",
	"published":          "Revision %d is published: visitors of the link see it now.",
	"unpublished":        "The custom page was unpublished. Visitors see your template or the default page again.",
	"restored":           "Revision %d is now the published page: visitors of the link see it.",
	"collection":         "The collection is made. Share its link: visitors download each file, or all of them as one ZIP.",
	"collection-added":   "The files were added. The link stays the same.",
	"collection-removed": "The file was taken out of the collection; it is still in your files. The link stays the same.",
	"refetched":          "The images, fonts and media of revision %d were fetched again; the list below says which Fileframe now keeps.",
}

// ownFile returns the signed-in account's file named by the path. Another
// account's file and a missing one get the same 404 page, so that IDs of
// other accounts' files cannot be told from unknown ones.
func (s *Server) ownFile(w http.ResponseWriter, r *http.Request, user *signedIn) (fileframe.File, bool) {
	f, err := s.svc.OwnFile(r.Context(), user.account, fileframe.FileID(r.PathValue("id")))
	return f, !s.failed(w, r, user, err, fileGone)
}

// notFound is the 404 page of something a file page's form names.
var (
	fileGone = failure(fileframe.ENOTFOUND, "File not found",
		"There is no such file in your account. It may have been deleted.")
	revisionGone = failure(fileframe.ENOTFOUND, "Revision not found",
		"This file has no such revision of its custom page. Drafts are removed once 50 newer revisions exist, unless they were ever published.")
	pageGone = failure(fileframe.ENOTFOUND, "No custom page",
		"This file has no custom page to publish yet. Save one first.")
)

// fileURL is the address of f's page with a query (and fragment).
func fileURL(f fileframe.File, query string) string {
	return "/files/" + url.PathEscape(string(f.ID)) + query
}

// fileForm starts every form of a file's page, behind its route's guard
// (signed in, a valid CSRF token, and for the custom page panel the
// Agency plan): the account's file that the path names. When it returns
// false it has answered.
func (s *Server) fileForm(w http.ResponseWriter, r *http.Request, user *signedIn) (fileframe.File, bool) {
	return s.ownFile(w, r, user)
}

// fileDetailFor loads everything the file page shows about f.
func (s *Server) fileDetailFor(r *http.Request, user *signedIn, f fileframe.File) (fileDetail, error) {
	ctx := r.Context()
	p := fileDetail{
		appPage: s.newAppPage(f.Name, user), File: s.newFileRow(f),
		Agency: user.account.Plan.CustomPages(), MaxHTML: maxHTMLText,
	}
	p.Styles = append(p.Styles, appAssetURL("app_files.css"))
	p.Scripts = append(p.Scripts, appAssetURL("app_files.js"))
	var err error
	if p.Appearance, err = s.fileAppearanceSection(ctx, user.account, f, user.csrf); err != nil {
		return p, err
	}
	if p.Page, err = s.customPageFor(ctx, user.account, f); err != nil {
		return p, err
	}
	if f.IsCollection() {
		if p.Collection, err = s.collectionPanelFor(r, user, f); err != nil {
			return p, err
		}
	}
	keys, err := s.store.KeysByAccount(ctx, user.account.ID)
	if err != nil {
		return p, err
	}
	now := s.now()
	for _, k := range keys {
		if k.Kind == fileframe.KeyPage && k.FileID == f.ID && k.Usable(now) {
			p.ActiveKeys++
		}
	}
	return p, nil
}

// customPageFor returns the panel's view of f's custom page, nil when it
// has none.
func (s *Server) customPageFor(ctx context.Context, acct fileframe.Account, f fileframe.File) (*customPage, error) {
	page, err := s.store.PageByFile(ctx, f.ID)
	if fileframe.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	revs, err := s.store.Revisions(ctx, f.ID)
	if err != nil {
		return nil, err
	}
	c := &customPage{
		Published: page.Published(), Latest: page.LatestRevision, Live: page.LiveRevision,
		Updated: fileTime(page.UpdatedAt), Datetime: fileDatetime(page.UpdatedAt),
	}
	shown := acct.Plan.CustomPages()
	expires := s.now().Add(s.cfg.PreviewTTL)
	for _, rev := range revs {
		row := revisionRow{
			Number: rev.Number, Size: humanSize(int64(rev.Size)),
			Created: fileTime(rev.CreatedAt), Datetime: fileDatetime(rev.CreatedAt),
			Live: rev.Number == page.LiveRevision, Latest: rev.Number == page.LatestRevision,
		}
		if !rev.PublishedAt.IsZero() {
			row.Published = fileTime(rev.PublishedAt)
		}
		if shown {
			row.PreviewURL = s.previewURL(f, rev.Number, expires)
		}
		c.Revisions = append(c.Revisions, row)
	}
	if !shown {
		return c, nil
	}
	token := s.previewToken(f.Slug, page.LatestRevision, expires)
	c.Frame = s.contentPageURL(f.Slug, page.LatestRevision, token)
	c.PreviewURL = f.URL() + "?preview=" + url.QueryEscape(token)
	c.PreviewFor = previewFor(s.cfg.PreviewTTL)
	latest, err := s.store.Revision(ctx, f.ID, page.LatestRevision)
	if err != nil {
		return nil, err
	}
	res, err := s.svc.CheckPage(ctx, latest.HTML)
	if err != nil && fileframe.ErrorCode(err) != fileframe.CodeHTMLInvalid && fileframe.ErrorCode(err) != fileframe.CodeHTMLTooLarge {
		return nil, err
	}
	c.Warnings = res.Warnings
	assets, err := s.store.RevisionAssets(ctx, f.ID, page.LatestRevision)
	if err != nil && !fileframe.IsNotFound(err) {
		return nil, err
	}
	for _, a := range assets {
		c.Assets = append(c.Assets, assetRow{Kind: a.Kind, URL: a.URL, Type: a.Type, Size: humanSize(a.Size), Problem: a.Problem, Kept: a.Kept()})
		if !a.Kept() {
			c.Missing++
		}
	}
	return c, nil
}

// previewURL is the address of /f/<slug> showing revision rev as visitors
// would see it, until expires.
func (s *Server) previewURL(f fileframe.File, rev int, expires time.Time) string {
	return f.URL() + "?preview=" + url.QueryEscape(s.previewToken(f.Slug, rev, expires))
}

// previewFor says how long a preview link works: "24 hours", "7 days",
// "90 minutes".
func previewFor(ttl time.Duration) string {
	switch {
	case ttl >= 48*time.Hour && ttl%(24*time.Hour) == 0:
		return strconv.Itoa(int(ttl/(24*time.Hour))) + " days"
	case ttl >= 2*time.Hour:
		return strconv.Itoa(int(ttl/time.Hour)) + " hours"
	}
	if ttl < 2*time.Minute {
		return "1 minute"
	}
	return strconv.Itoa(int(ttl/time.Minute)) + " minutes"
}

// file serves GET /files/{id}: the file page. ?done= names the notice of
// the action just taken; ?edit=N loads revision N into the page editor.
func (s *Server) file(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.ownFile(w, r, user)
	if !ok {
		return
	}
	p, err := s.fileDetailFor(r, user, f)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	q := r.URL.Query()
	if msg, ok := fileNotices[q.Get("done")]; ok {
		rev := 0
		if p.Page != nil {
			rev = p.Page.Latest
			if q.Get("done") != "saved" && q.Get("done") != "refetched" {
				rev = p.Page.Live
			}
		}
		p.Notice = msg
		if strings.Contains(msg, "%d") {
			p.Notice = fmt.Sprintf(msg, rev)
		}
	}
	if n, err := strconv.Atoi(q.Get("edit")); err == nil && p.Agency && p.Page != nil {
		rev, err := s.store.Revision(r.Context(), f.ID, n)
		if err != nil && !fileframe.IsNotFound(err) {
			s.appError(w, r, user, err)
			return
		}
		if err == nil {
			p.HTML, p.EditRev = string(rev.HTML), n
		}
	}
	s.renderApp(w, r, http.StatusOK, "app_file.html", p)
}

// renderFileError renders the file page with the errors set in p.Errors.
func (s *Server) renderFileError(w http.ResponseWriter, r *http.Request, user *signedIn, f fileframe.File, status int, edit func(*fileDetail)) {
	p, err := s.fileDetailFor(r, user, f)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	edit(&p)
	s.renderApp(w, r, status, "app_file.html", p)
}

// renameFile serves POST /files/{id}/rename.
func (s *Server) renameFile(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	typed := r.PostFormValue("name")
	err := s.svc.RenameFile(r.Context(), user.account, f.ID, typed)
	switch {
	case fileframe.ErrorCode(err) == fileframe.CodeInvalidField:
		s.renderFileError(w, r, user, f, http.StatusUnprocessableEntity, func(p *fileDetail) {
			p.Form["name"], p.Errors["name"] = typed, fileframe.ErrorMessage(err)
		})
	case !s.failed(w, r, user, err, fileGone):
		appRedirect(w, r, fileURL(f, "?done=renamed"))
	}
}

// deleteFile serves POST /files/{id}/delete. The form's "confirm" box must
// be ticked, so that deleting takes two steps without JavaScript. The blob
// is removed unless another file has the same content or it was stored
// within fileframe.BlobGrace (then the orphan collector removes it).
func (s *Server) deleteFile(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		s.renderFileError(w, r, user, f, http.StatusUnprocessableEntity, func(p *fileDetail) {
			p.Errors["confirm"] = "Tick the box to confirm that the link should stop working, then delete again."
		})
		return
	}
	_, blobErr, err := s.svc.DeleteFile(r.Context(), user.account, f.ID)
	if s.failed(w, r, user, err, fileGone) {
		return
	}
	s.logFor(r).Info("app: file deleted", "file_id", f.ID, "account_id", user.account.ID)
	// The file is gone whatever happens to its bytes: a blob left behind
	// is an orphan that the hourly collector removes, so a failure is
	// logged, not shown.
	if blobErr != nil {
		s.logFor(r).Log(r.Context(), faultLevel(blobErr), "app: removing a deleted file's blob", "file_id", f.ID, "err", blobErr)
	}
	appRedirect(w, r, "/files?done=deleted")
}

// maxPageForm caps the body of the page form: the pasted HTML or the
// uploaded file (each at most htmlcheck.MaxSize, and a textarea's line
// breaks grow to CRLF) with room for the form's other fields.
const maxPageForm = 3*htmlcheck.MaxSize + 64<<10

// maxHTMLText is the limit on a page as people read it; MB would round
// 1,048,577 bytes down to the limit itself.
var maxHTMLText = fmt.Sprintf("1 MiB (%d bytes)", htmlcheck.MaxSize)

// tooLargeText says that a page or file of n bytes is over the limit.
func tooLargeText(what string, n int64) string {
	return fmt.Sprintf("The %s is %d bytes; the limit is %s. Make the page smaller (shrink inlined images, drop unused CSS) and try again.",
		what, n, maxHTMLText)
}

// pageHTML returns the HTML the page form sent: the chosen .html file if
// there is one, else the pasted text (its CRLF line breaks, which browsers
// send for a textarea, made LF again). msg and field say what is wrong.
func pageHTML(r *http.Request) (doc []byte, field, msg string) {
	if r.MultipartForm != nil {
		if fhs := r.MultipartForm.File["file"]; len(fhs) > 0 && fhs[0].Size > 0 {
			doc, msg := readPageFile(fhs[0])
			return doc, "file", msg
		}
	}
	doc = []byte(strings.ReplaceAll(r.PostFormValue("html"), "\r\n", "\n"))
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, "html", "Paste the HTML of the page, or choose an .html file."
	}
	if len(doc) > htmlcheck.MaxSize {
		return doc, "html", tooLargeText("page", int64(len(doc)))
	}
	return doc, "html", ""
}

func readPageFile(fh *multipart.FileHeader) ([]byte, string) {
	if ext := strings.ToLower(path.Ext(fh.Filename)); ext != ".html" && ext != ".htm" {
		return nil, "Choose an .html file (a complete HTML document)."
	}
	if fh.Size > htmlcheck.MaxSize {
		return nil, tooLargeText("file", fh.Size)
	}
	f, err := fh.Open()
	if err != nil {
		return nil, "The file could not be read. Choose it again."
	}
	defer f.Close()
	doc, err := io.ReadAll(f)
	if err != nil {
		return nil, "The file could not be read. Choose it again."
	}
	if !utf8.Valid(doc) {
		return doc, "The file is not UTF-8 text. Save it as UTF-8 and try again."
	}
	return doc, ""
}

// savePage serves POST /files/{id}/page: the pasted or uploaded HTML
// becomes the page's next revision, as a draft or published (the
// "publish" button), after the same rules as the API. When they refuse it,
// the page shows why and keeps the text.
func (s *Server) savePage(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	publish := r.PostFormValue("action") == "publish"
	doc, field, msg := pageHTML(r)
	var res htmlcheck.Result
	var page fileframe.Page
	if msg == "" {
		var err error
		page, res, err = s.svc.SavePage(r.Context(), user.account, f, doc, service.PageMode{Publish: publish})
		if _, rejected := service.IsPageRejected(err); rejected {
			msg = "The page was not saved: fix the problem listed below and save again."
			if n := len(res.Errors); n > 1 {
				msg = fmt.Sprintf("The page was not saved: fix the %d problems listed below and save again.", n)
			}
			field = "page"
		} else if s.failed(w, r, user, err, fileGone) {
			return
		}
	}
	if msg != "" {
		s.renderFileError(w, r, user, f, http.StatusUnprocessableEntity, func(p *fileDetail) {
			p.Errors[field], p.Findings = msg, res.Errors
			if utf8.Valid(doc) {
				p.HTML = string(doc)
			}
		})
		return
	}
	s.logFor(r).Info("app: custom page stored", "file_id", f.ID, "revision", page.LatestRevision,
		"published", page.Published(), "bytes", len(doc))
	done := "saved"
	if publish {
		done = "published"
	}
	appRedirect(w, r, fileURL(f, "?done="+done+"#page"))
}

// setLive makes revision rev of f's page live (0 unpublishes) and
// redirects to the file page with the notice done.
func (s *Server) setLive(w http.ResponseWriter, r *http.Request, user *signedIn, f fileframe.File, rev int, done string) {
	_, err := s.svc.PublishRevision(r.Context(), user.account, f, rev)
	if s.failed(w, r, user, err, revisionGone) {
		return
	}
	appRedirect(w, r, fileURL(f, "?done="+done+"#page"))
}

// publishPage serves POST /files/{id}/publish: the latest revision goes live.
func (s *Server) publishPage(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	_, err := s.svc.PublishLatest(r.Context(), user.account, f)
	if s.failed(w, r, user, err, pageGone) {
		return
	}
	appRedirect(w, r, fileURL(f, "?done=published#page"))
}

// unpublishPage serves POST /files/{id}/unpublish: the page becomes a
// draft; visitors see the template or default page.
func (s *Server) unpublishPage(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	s.setLive(w, r, user, f, 0, "unpublished")
}

// restoreRevision serves POST /files/{id}/revisions/{rev}/restore: that
// revision becomes the live page at once, without a new revision, so that
// rolling back is one step and the history stays as it was. (To change an
// old revision instead, the page loads it into the editor: ?edit=N.)
func (s *Server) restoreRevision(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	rev, err := strconv.Atoi(r.PathValue("rev"))
	if err != nil || rev < 1 {
		s.appError(w, r, user, revisionGone)
		return
	}
	s.setLive(w, r, user, f, rev, "restored")
}

// refetchAssets serves POST /files/{id}/revisions/{rev}/refetch: the
// remote resources of the revision that could not be fetched when it was
// stored are fetched again (service.RefetchAssets).
func (s *Server) refetchAssets(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	rev, err := strconv.Atoi(r.PathValue("rev"))
	if err != nil || rev < 1 || strconv.Itoa(rev) != r.PathValue("rev") {
		s.appError(w, r, user, revisionGone)
		return
	}
	_, _, err = s.svc.RefetchAssets(r.Context(), user.account, f, rev)
	if s.failed(w, r, user, err, revisionGone) {
		return
	}
	appRedirect(w, r, fileURL(f, "?done=refetched#page-assets"))
}

// createPageKey serves POST /files/{id}/keys: a key bound to this file's
// page, shown once on the page that answers the form (never in a URL,
// never cached), as the keys page does for general keys.
func (s *Server) createPageKey(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	secret, _, err := s.svc.CreateKey(r.Context(), service.NewKey{Account: user.account, File: f.ID})
	if s.failed(w, r, user, err, fileGone) {
		return
	}
	p, err := s.fileDetailFor(r, user, f)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	p.NewKey, p.Curl = secret, s.customHTMLCurl(secret, "")
	s.renderApp(w, r, http.StatusOK, "app_file.html", p)
}

package web

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
)

// Passwords on links (the shared design of issue 12, "Passwords"; docs/api.md,
// "Passwords"). A link whose file has a password (fileframe.Link.PasswordHash)
// shows nothing of its file, custom page or template text until the visitor
// proves the password:
//
//   - GET /f/<slug> without the link's cookie is the password page, a page of
//     the service on the app origin, dressed in the owner's appearance
//     (accent, logo, headline; never the custom page), which posts to
//     POST /f/<slug>/unlock (the anonymous CSRF token, like sign-in).
//   - A right password sets the link's cookie: Path=/f/<slug>, HttpOnly,
//     SameSite=Lax, Secure over https, 12 hours; its value is signed (HMAC)
//     over the slug, a fingerprint of the password's hash and the expiry, so
//     no other link can use it and a new password ends it.
//   - With the cookie, the outer page frames the content origin with a
//     short-lived access token in the frame's address (the content origin
//     never sees cookies), bound to the slug, the revision and the same
//     fingerprint; the content origin refuses a protected page without one.
//   - The download and the appearance images need the cookie or the
//     password in the Fileframe-Password header (scripts, curl).
//
// Every guess, by form or header, takes a token from the link's buckets in
// the shared rate limiter before it is hashed, and hashing runs under the
// memory budget (Service.CheckLinkPassword). Every answer about a protected
// link is Cache-Control: private, no-store, and the public cache's page of
// a protected link is never written to a visitor (protectedFile).

const (
	// linkCookieName is the name of every link's cookie. It cannot be a
	// __Host- name, which requires Path=/; each link's cookie has its own
	// path, and its value names its slug.
	linkCookieName = "ff_link"
	// linkCookieTTL is how long a visitor who typed the password stays in.
	linkCookieTTL = 12 * time.Hour
	// linkAccessTTL is how long a frame's access token works: the frame
	// loads as the outer page does, so minutes are plenty.
	linkAccessTTL = 10 * time.Minute
	// passwordHeader carries a link's password for scripts.
	passwordHeader = "Fileframe-Password"
	// maxPasswordLogo is the largest logo the password page inlines (its
	// image route needs the password); a larger one is left out.
	maxPasswordLogo = 256 << 10
)

// privateNoStore is the Cache-Control of every answer about a protected link.
var privateNoStore = []string{"private, no-store"}

// protected reports whether f's link asks for a password.
func protected(f fileframe.File) bool { return f.Link.PasswordHash != "" }

// linkKey is the key of link cookies and access tokens, derived from the
// preview secret (shared by every instance) as csrfKey is, with its own
// label.
func (s *Server) linkKey() []byte {
	m := hmac.New(sha256.New, s.cfg.PreviewSecret)
	m.Write([]byte("fileframe link v1"))
	return m.Sum(nil)
}

// linkFingerprint names f's current password without revealing its hash:
// a new password (or none) changes it, which ends every cookie and token.
func (s *Server) linkFingerprint(f fileframe.File) string {
	m := hmac.New(sha256.New, s.linkKey())
	m.Write([]byte("fingerprint\x00" + f.Link.PasswordHash))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:12])
}

// linkMAC signs payload as kind ("cookie" or "access"), so that neither
// can stand for the other.
func (s *Server) linkMAC(kind, payload string) []byte {
	m := hmac.New(sha256.New, s.linkKey())
	m.Write([]byte(kind + "\x00" + payload))
	return m.Sum(nil)
}

// signLink returns a token of kind over fields (none may hold a newline):
// base64url(fields joined by newlines) "." base64url(HMAC).
func (s *Server) signLink(kind string, fields ...string) string {
	payload := strings.Join(fields, "\n")
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
		base64.RawURLEncoding.EncodeToString(s.linkMAC(kind, payload))
}

// verifyLink returns the fields of a valid token of kind whose last field,
// a Unix time, is still ahead of the clock.
func (s *Server) verifyLink(kind, token string) ([]string, bool) {
	p, m, found := strings.Cut(token, ".")
	if !found || len(token) > 512 {
		return nil, false
	}
	payload, err1 := base64.RawURLEncoding.Strict().DecodeString(p)
	mac, err2 := base64.RawURLEncoding.Strict().DecodeString(m)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.linkMAC(kind, string(payload))) {
		return nil, false
	}
	fields := strings.Split(string(payload), "\n")
	exp, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
	if err != nil || !s.now().Before(time.Unix(exp, 0)) {
		return nil, false
	}
	return fields, true
}

// linkCookie returns the value of f's cookie, valid until linkCookieTTL
// from now.
func (s *Server) linkCookie(f fileframe.File) string {
	exp := strconv.FormatInt(s.now().Add(linkCookieTTL).Unix(), 10)
	return s.signLink("cookie", f.Slug, s.linkFingerprint(f), exp)
}

// setLinkCookie sets the cookie of f's link: its path alone, HttpOnly,
// SameSite=Lax, Secure over https, for linkCookieTTL.
func (s *Server) setLinkCookie(w http.ResponseWriter, f fileframe.File) {
	http.SetCookie(w, &http.Cookie{
		Name: linkCookieName, Value: s.linkCookie(f), Path: "/f/" + f.Slug,
		MaxAge: int(linkCookieTTL.Seconds()), HttpOnly: true, Secure: s.secureCookies(), SameSite: http.SameSiteLaxMode,
	})
}

// linkUnlocked reports whether r carries a valid cookie of f's link (its
// slug, its current password, not expired). Browsers send every cookie
// whose path covers the address, so each one named linkCookieName is
// tried.
func (s *Server) linkUnlocked(r *http.Request, f fileframe.File) bool {
	for _, c := range r.CookiesNamed(linkCookieName) {
		fields, ok := s.verifyLink("cookie", c.Value)
		if ok && len(fields) == 3 && fields[0] == f.Slug && fields[1] == s.linkFingerprint(f) {
			return true
		}
	}
	return false
}

// accessToken returns the token that lets the content origin serve
// revision rev of f's page in a frame, for linkAccessTTL.
func (s *Server) accessToken(f fileframe.File, rev int) string {
	exp := strconv.FormatInt(s.now().Add(linkAccessTTL).Unix(), 10)
	return s.signLink("access", f.Slug, strconv.Itoa(rev), s.linkFingerprint(f), exp)
}

// verifyAccess reports whether token lets the content origin serve
// revision rev of f's page.
func (s *Server) verifyAccess(f fileframe.File, rev int, token string) bool {
	fields, ok := s.verifyLink("access", token)
	return ok && len(fields) == 4 && fields[0] == f.Slug && fields[1] == strconv.Itoa(rev) &&
		fields[2] == s.linkFingerprint(f)
}

// withAccess adds an access token to a content-origin address.
func withAccess(frameURL, token string) string {
	sep := "?"
	if strings.Contains(frameURL, "?") {
		sep = "&"
	}
	return frameURL + sep + "access=" + url.QueryEscape(token)
}

// guessResult is what checking a guessed link password gave.
type guessResult int

const (
	guessRight guessResult = iota
	guessWrong
	guessLimited // a bucket was empty: not checked
	guessBusy    // the hashing budget stayed full: not checked
	guessFailed  // the limiter failed (guard): not checked
)

// linkGuessBuckets are the buckets a guess at f's password takes a token
// from, in order: the link at the client's address (tight: what stops one
// guesser), then the link from every address (loose, so that one address
// can never empty it). They reuse the sign-in's limits for an address at an
// account and for an account (LoginLimits).
func (s *Server) linkGuessBuckets(r *http.Request, f fileframe.File) []limitedBucket {
	return []limitedBucket{
		{"linkpw:" + f.Slug + ":" + clientBucket(r.RemoteAddr), s.cfg.Login.AddressAccount},
		{"linkpw:" + f.Slug, s.cfg.Login.Account},
	}
}

// guessLinkPassword checks pw against f's password: first a token from
// each bucket (before hashing, so that guesses sent together cannot all
// pass before one counts), then the hash under the memory budget. For
// guessLimited it returns how long until a token is there.
func (s *Server) guessLinkPassword(r *http.Request, f fileframe.File, pw string) (guessResult, time.Duration, error) {
	for _, b := range s.linkGuessBuckets(r, f) {
		if d, failed := s.guard(r, b); failed {
			return guessFailed, 0, nil
		} else if !d.Allowed {
			return guessLimited, d.RetryAfter, nil
		}
	}
	ok, err := s.svc.CheckLinkPassword(r.Context(), f, pw)
	switch {
	case errors.Is(err, password.ErrBusy) || err != nil && r.Context().Err() != nil:
		s.logFor(r).Warn("public: password hashing is saturated", "err", err)
		return guessBusy, 0, nil
	case err != nil:
		// A malformed stored hash, or one costlier than the budget: the
		// operator must act; to the visitor it is a wrong password.
		s.logFor(r).Error("public: checking a link's password", "slug", f.Slug, "err", err)
		return guessWrong, 0, nil
	case ok:
		return guessRight, 0, nil
	}
	return guessWrong, 0, nil
}

// protectedFile serves GET /f/{slug} of a protected link: the password
// page without the link's cookie; with it, the page the link shows
// (publicFile's), rendered for this visitor: the frame's address carries
// an access token. Nothing of it may be kept by a shared cache.
func (s *Server) protectedFile(w http.ResponseWriter, r *http.Request, e *publicEntry) {
	if !s.linkUnlocked(r, e.file) {
		s.passwordPage(w, r, e, http.StatusOK, "")
		return
	}
	h := w.Header()
	var frame string
	rev, preview := 0, false
	variant, test, shownRev := s.shown(r, e)
	if u, ok := s.previewFrame(r, e); ok {
		frame, preview = u, true
		rev, _ = s.verifyPreview(e.file.Slug, r.URL.Query().Get("preview"))
	} else if e.hasPage && e.page.Published() {
		rev = shownRev
		frame = s.contentPageURL(e.file.Slug, rev, "")
	}
	if !preview {
		s.stats.view(r, s.stats.visit(r, e.file.ID, variant, test))
	}
	if frame == "" {
		// A template or the default page: no frame, rendered for this
		// visitor, since a preview's addresses carry access tokens.
		p, err := s.renderPublicPage(r.Context(), e, 0)
		if err != nil {
			s.publicError(w, r, err)
			return
		}
		s.setPageHeaders(h, p.csp)
		h["Cache-Control"] = privateNoStore
		h["Content-Type"] = s.hdr.html
		h["Content-Length"] = p.contentLength
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			w.Write(p.body)
		}
		return
	}
	s.setPageHeaders(h, s.hdr.cspContent)
	h["Cache-Control"] = privateNoStore
	data := filePage{Assets: s.pages.assets, File: newFileView(e.file), FrameURL: withAccess(frame, s.accessToken(e.file, rev)), Preview: preview}
	if err := s.pages.render(w, r, http.StatusOK, "outer.html", data); err != nil {
		s.publicError(w, r, err)
	}
}

// passwordPageData is the data of password.html.
type passwordPageData struct {
	Assets assetURLs
	pageDress
	PasswordCSS string // static/password.css with its hash
	// Reveal: the owner lets the page show the file's name and size.
	Reveal bool
	// Social is the link preview tags, which reveal what Reveal does
	// (socialFor): a messenger's crawler gets this page.
	Social *socialMeta
	File   fileView
	Action string // the form's address: /f/<slug>/unlock, with the preview
	CSRF   string
	Error  string
}

// passwordPage writes the password page of e's link with status and, when
// msg is not empty, an error above the field. The page is rendered for
// each request (it carries the visitor's CSRF token) from e's appearance.
func (s *Server) passwordPage(w http.ResponseWriter, r *http.Request, e *publicEntry, status int, msg string) {
	data := passwordPageData{
		Assets:      s.pages.assets,
		PasswordCSS: passwordCSSURL(),
		Reveal:      e.file.Link.Reveal == fileframe.RevealName,
		Action:      "/f/" + url.PathEscape(e.file.Slug) + "/unlock",
		CSRF:        s.anonCSRF(w, r),
		Error:       msg,
	}
	if data.Reveal {
		data.File = newFileView(e.file)
	}
	if social, err := s.socialFor(r.Context(), e); err != nil {
		s.logFor(r).Warn("link preview tags of a password page", "slug", e.file.Slug, "err", err)
	} else {
		data.Social = social
	}
	if p := r.URL.Query().Get("preview"); p != "" && len(p) <= 512 {
		// A draft preview link still needs the password; after it the
		// visitor lands on the preview again.
		data.Action += "?preview=" + url.QueryEscape(p)
	}
	styleSource := ""
	if e.hasTemplate {
		styleSource = s.dress(r, e.template, &data.pageDress)
	}
	h := w.Header()
	s.setPageHeaders(h, []string{passwordCSP(styleSource)})
	h["Cache-Control"] = privateNoStore
	if err := s.pages.render(w, r, status, "password.html", data); err != nil {
		s.publicError(w, r, err)
	}
}

// pageDress is what dresses a page of the service (the password page, a
// file request's page) in the owner's template: templates.css and the
// accent's custom properties, the template's name, the headline and the
// logo; all empty without a template.
type pageDress struct {
	TemplateCSS string
	Style       template.CSS
	Template    string
	Headline    string
	// Logo is the owner's logo as a data: URL (the logo's own address
	// needs the password); empty when there is none or it is too large.
	Logo template.URL
}

// dress fills d from the owner's template l and returns the CSP
// style-src source (with its leading space) that allows its style.
func (s *Server) dress(r *http.Request, l resolvedTemplate, d *pageDress) string {
	accent := l.tmpl.Accent
	if a, ok := parseAccent(l.appearance.Accent); ok {
		accent = a
	}
	css, source := accentStyle(accent)
	d.TemplateCSS, d.Style = templatesCSSURL(), template.CSS(css)
	d.Template, d.Headline = l.tmpl.Name, l.appearance.Headline
	d.Logo = s.inlineLogo(r, l.appearance.LogoKey)
	return " " + source
}

// passwordCSSURL is the address of static/password.css with its hash.
var passwordCSSURL = sync.OnceValue(func() string { return appAssetURL("password.css") })

// passwordCSP is the public pages' CSP (pageCSP, templateCSP) with one
// difference: the page's form may post to the app origin.
func passwordCSP(styleSource string) string {
	return "default-src 'none'; frame-src 'none'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; " +
		"script-src 'self'; style-src 'self'" + styleSource + "; img-src 'self' data:"
}

// inlineLogo returns the image blob key as a data: URL for the password
// page, or "" when there is none, it is larger than maxPasswordLogo, it is
// not an image type served (imageTypes) or cannot be read (logged).
func (s *Server) inlineLogo(r *http.Request, key string) template.URL {
	if key == "" {
		return ""
	}
	var body []byte
	if c, ok := s.blobCache.get(key); ok {
		body = c.body
	} else {
		blob, err := s.blobs.Open(r.Context(), key)
		if err != nil {
			s.logFor(r).Log(r.Context(), faultLevel(err), "public: reading a logo for the password page", "err", err)
			return ""
		}
		defer blob.Body.Close()
		if blob.Size > maxPasswordLogo {
			return ""
		}
		body, err = io.ReadAll(io.LimitReader(blob.Body, maxPasswordLogo+1))
		if err != nil || len(body) > maxPasswordLogo {
			return ""
		}
		if len(body) <= blobCacheMaxBlob {
			s.blobCache.put(key, body)
		}
	}
	ctype := http.DetectContentType(body)
	if !imageTypes[ctype] {
		return ""
	}
	// The type is one of imageTypes and the rest is base64: a safe URL.
	return template.URL("data:" + ctype + ";base64," + base64.StdEncoding.EncodeToString(body))
}

// unlockLink serves POST /f/{slug}/unlock, the password page's form: the
// anonymous CSRF token (behind crossOrigin, in routes.go), the guess
// limits, the password under the hashing budget; a right one sets the
// link's cookie and goes back to the link (303).
func (s *Server) unlockLink(w http.ResponseWriter, r *http.Request) {
	if !s.readForm(w, r, nil, smallForm) {
		return
	}
	if !s.checkAnonCSRF(r) {
		s.appError(w, r, nil, errFormExpired)
		return
	}
	e, ok := s.publicLookupEntry(w, r)
	if !ok {
		return
	}
	back := "/f/" + url.PathEscape(e.file.Slug)
	if p := r.URL.Query().Get("preview"); p != "" && len(p) <= 512 {
		back += "?preview=" + url.QueryEscape(p)
	}
	if !protected(e.file) {
		appRedirect(w, r, back)
		return
	}
	pw := r.PostFormValue("password")
	if pw == "" {
		s.passwordPage(w, r, e, http.StatusUnprocessableEntity, "Enter the password.")
		return
	}
	g, retry, _ := s.guessLinkPassword(r, e.file, pw)
	switch g {
	case guessLimited:
		secs := retryAfterSeconds(retry)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		s.passwordPage(w, r, e, http.StatusTooManyRequests, "Too many attempts. Please wait "+strconv.FormatInt(secs, 10)+" seconds and try again.")
	case guessBusy:
		w.Header().Set("Retry-After", strconv.FormatInt(retryAfterSeconds(s.passwords.Budget().MaxWait), 10))
		s.passwordPage(w, r, e, http.StatusServiceUnavailable, "Too many passwords are being checked right now. Please try again in a few seconds.")
	case guessFailed:
		w.Header().Set("Retry-After", busyRetryAfter)
		s.passwordPage(w, r, e, http.StatusServiceUnavailable, fileframe.ErrorMessage(errGuardFailed))
	case guessWrong:
		s.passwordPage(w, r, e, http.StatusUnauthorized, "That password is not right.")
	case guessRight:
		s.setLinkCookie(w, e.file)
		appRedirect(w, r, back)
	}
}

// linkAccess reports whether r may have the bytes behind protected link f
// (its download, its appearance images): the link's cookie, or the right
// password in the Fileframe-Password header, checked with the password
// page's limits. Otherwise it answers: a browser (Accept: text/html) goes
// to the password page, anything else gets 401 in plain text saying how to
// send the password (429 or 503 when a guess could not be checked).
func (s *Server) linkAccess(w http.ResponseWriter, r *http.Request, f fileframe.File) bool {
	if s.linkUnlocked(r, f) {
		return true
	}
	h := w.Header()
	if pw := r.Header.Values(passwordHeader); len(pw) > 0 {
		g, retry, _ := s.guessLinkPassword(r, f, pw[0])
		switch g {
		case guessRight:
			// A script that keeps cookies (curl -c/-b) need not send
			// the password, and take a guess token, every time.
			s.setLinkCookie(w, f)
			return true
		case guessLimited:
			h.Set("Retry-After", strconv.FormatInt(retryAfterSeconds(retry), 10))
			s.linkRefusal(w, r, fileframe.Errorf(fileframe.CodeRateLimited,
				"Too many password attempts for this link. Wait %d seconds and try again.", retryAfterSeconds(retry)))
		case guessBusy:
			h.Set("Retry-After", strconv.FormatInt(retryAfterSeconds(s.passwords.Budget().MaxWait), 10))
			s.linkRefusal(w, r, fileframe.Errorf(fileframe.CodeBusy,
				"Too many passwords are being checked right now. Try again in a few seconds."))
		case guessFailed:
			h.Set("Retry-After", busyRetryAfter)
			s.linkRefusal(w, r, errGuardFailed)
		default:
			s.linkRefusal(w, r, fileframe.Errorf(fileframe.CodePasswordRequired,
				"The password in the %s header is not this link's password.", passwordHeader))
		}
		return false
	}
	if strings.Contains(r.Header.Get("Accept"), "text/html") {
		h["Cache-Control"] = privateNoStore
		s.setDownloadHeaders(h) // the redirect's small HTML body runs nothing
		http.Redirect(w, r, "/f/"+url.PathEscape(f.Slug), http.StatusSeeOther)
		return false
	}
	s.linkRefusal(w, r, fileframe.Errorf(fileframe.CodePasswordRequired,
		"This link is protected by a password. Open %s in a browser, or send the password in the %s header, e.g.\n"+
			"curl -OJ -H '%s: …' %s",
		s.publicURL("/f/"+f.Slug), passwordHeader, passwordHeader, s.publicURL("/f/"+f.Slug+"/download")))
	return false
}

// linkRefusal writes err in plain text with its status (errorKinds),
// private and never stored, with a download's security headers.
func (s *Server) linkRefusal(w http.ResponseWriter, r *http.Request, err error) {
	_, k := kindOf(err)
	h := w.Header()
	h["Cache-Control"] = privateNoStore
	h.Set("Content-Type", "text/plain; charset=utf-8")
	s.setDownloadHeaders(h)
	h.Del("Content-Length")
	h.Del("Etag")
	w.WriteHeader(k.status)
	if r.Method != http.MethodHead {
		io.WriteString(w, fileframe.ErrorMessage(err)+"\n")
	}
}

// contentLinkAccess decides the content origin's request for revision rev
// of the page at slug when its link is protected: the frame's address must
// carry a valid access token (withAccess). It reports whether the link is
// protected, and ok false when it answered (403, its own small page). A
// slug it cannot read is left to contentRevision.
func (s *Server) contentLinkAccess(w http.ResponseWriter, r *http.Request, slug string, rev int) (locked, ok bool) {
	e, err := s.publicRecord(r.Context(), slug)
	if err != nil || !protected(e.file) {
		return false, true
	}
	if token := r.URL.Query().Get("access"); token != "" && s.verifyAccess(e.file, rev, token) {
		return true, true
	}
	var b bytes.Buffer
	if err := lockedContentPage.Execute(&b, s.publicURL("/f/"+slug)); err != nil {
		s.textError(w, r, err)
		return true, false
	}
	h := w.Header()
	h["Cache-Control"] = privateNoStore
	h["Content-Type"] = htmlContentType
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusForbidden)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
	return true, false
}

// lockedContentPage is the content origin's answer to a protected page
// without a valid access token: no byte of the custom page, a link to the
// password page. Like every answer of the origin it carries the sandbox's
// headers (sandboxHeaders).
var lockedContentPage = template.Must(template.New("locked").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Password required</title></head>
<body>
<p>This page is protected by a password.</p>
<p><a href="{{.}}" target="_top">Open the download page</a></p>
</body>
</html>
`))

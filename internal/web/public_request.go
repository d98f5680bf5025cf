package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
	"github.com/fileframe/fileframe/internal/service"
	tusd "github.com/tus/tusd/v2/pkg/handler"
)

// File requests (issue 13; docs/requests.md): /r/<slug> is a page of the
// service on the app origin, dressed in the owner's appearance, through
// which anyone with the link sends files into the owner's account.
//
//   - A visit is a random ID in the request's cookie (requestCookieName):
//     Path=/r/<slug>, HttpOnly, SameSite=Lax, Secure over https, signed
//     like a link's cookie over the slug, the visit and a fingerprint of
//     the request's password, so that a new password ends it. The page
//     lists only the files whose visit is the cookie's. A request with a
//     password sets the cookie only once the password is right (the same
//     guess limits as a link's).
//   - Uploads are tus under /r/<slug>/tus/ (the cookie reaches them by its
//     path) or the plain multipart form POST /r/<slug>/upload, each
//     state change carrying the visit's own token (visitToken) besides the
//     cross-origin protection; an upload is bound to its visit (its tus
//     metadata), so no other visit can resume, finish or remove it.
//   - Each new upload takes a token from the request's bucket at the
//     client's address (Config.RequestUploads, on the shared limiter), and
//     the request's limits hold in the store's atomic steps (Reserve,
//     CreateRequestFile), whatever runs at once on any instance.
//   - Nothing a sender sends is served from here: names are escaped text,
//     received files are unshared (their link answers 404) until the owner
//     shares them, and the owner downloads them as attachments.

const (
	// requestCookieName is the name of every request's visit cookie.
	requestCookieName = "ff_visit"
	// requestVisitTTL is how long a visit lasts.
	requestVisitTTL = 12 * time.Hour
	// visitIDLen is the length of a visit's random ID.
	visitIDLen = 22
	// requestTusPath is where a request's tus endpoint is, below /r/<slug>.
	requestTusPath = "/tus/"
	// maxSenderFields is the most a sender's name and email fields of the
	// plain form may hold, each.
	maxSenderFields = 1024
)

// requestFingerprint names req's current password (and the request
// itself) without revealing its hash.
func (s *Server) requestFingerprint(req fileframe.Request) string {
	m := hmac.New(sha256.New, s.linkKey())
	m.Write([]byte("request\x00" + string(req.ID) + "\x00" + req.PasswordHash))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:12])
}

// setVisitCookie starts (or renews) visit of req.
func (s *Server) setVisitCookie(w http.ResponseWriter, req fileframe.Request, visit string) {
	exp := strconv.FormatInt(s.now().Add(requestVisitTTL).Unix(), 10)
	http.SetCookie(w, &http.Cookie{
		Name: requestCookieName, Value: s.signLink("visit", req.Slug, visit, s.requestFingerprint(req), exp),
		Path: req.URL(), MaxAge: int(requestVisitTTL.Seconds()), HttpOnly: true, Secure: s.secureCookies(),
		SameSite: http.SameSiteLaxMode,
	})
}

// requestVisit returns the visit of r's cookie for req, if it has a valid
// one (this request, its current password, not expired).
func (s *Server) requestVisit(r *http.Request, req fileframe.Request) (string, bool) {
	for _, c := range r.CookiesNamed(requestCookieName) {
		fields, ok := s.verifyLink("visit", c.Value)
		if ok && len(fields) == 4 && fields[0] == req.Slug && fileframe.IsBase62(fields[1], visitIDLen) &&
			fields[2] == s.requestFingerprint(req) {
			return fields[1], true
		}
	}
	return "", false
}

// visitToken is the token that the request page's forms and script send
// with each state change of visit (the "csrf" field, the X-CSRF-Token
// header): a page of another site cannot read it.
func (s *Server) visitToken(req fileframe.Request, visit string) string {
	return base64.RawURLEncoding.EncodeToString(s.linkMAC("visit-token", req.Slug+"\n"+visit))
}

// checkVisitToken reports whether token is visit's.
func (s *Server) checkVisitToken(req fileframe.Request, visit, token string) bool {
	got, err := base64.RawURLEncoding.Strict().DecodeString(token)
	return err == nil && hmac.Equal(got, s.linkMAC("visit-token", req.Slug+"\n"+visit))
}

// requestPageData is the data of request.html.
type requestPageData struct {
	Assets assetURLs
	pageDress
	PasswordCSS string
	UploadCSS   string
	Scripts     []string
	Title       string
	Message     string
	// Locked: the page asks for the request's password first (Action,
	// CSRF: the anonymous token).
	Locked bool
	Action string
	CSRF   string
	// Form and Tus are where the upload form posts and the tus endpoint;
	// Token the visit's token (visitToken).
	Form, Tus, Token, TokenHeader string
	Limits                        string
	Sent                          []sentFile
	Notice                        string
	Error                         string
}

// sentFile is a file of this visit, as its sender sees it.
type sentFile struct {
	Name, Size string
	At         time.Time
}

// openRequest finds the request of the path's slug for a sender; when it
// cannot be used (missing, a disabled owner: 404; closed or expired: 410)
// it writes the page and returns ok false.
func (s *Server) openRequest(w http.ResponseWriter, r *http.Request, write func(error)) (fileframe.Request, fileframe.Account, bool) {
	req, owner, err := s.svc.OpenRequest(r.Context(), r.PathValue("slug"))
	if fileframe.IsNotFound(err) {
		write(failure(fileframe.ENOTFOUND, "Request not found", "There is no file request at this address. Check the link you were given."))
		return req, owner, false
	} else if err != nil {
		write(err)
		return req, owner, false
	}
	if req.State(s.now()) != fileframe.RequestOpen {
		write(failure(fileframe.CodeRequestClosed, "This request is closed",
			"This file request no longer takes files: it was closed or it expired. Ask the person who sent you the link for a new one."))
		return req, owner, false
	}
	return req, owner, true
}

// publicRequest serves GET /r/{slug}: the request's page, or its password
// page; a visitor without a visit gets one.
func (s *Server) publicRequest(w http.ResponseWriter, r *http.Request) {
	req, owner, ok := s.openRequest(w, r, func(err error) { s.publicError(w, r, err) })
	if !ok {
		return
	}
	visit, ok := s.requestVisit(r, req)
	if !ok && req.PasswordHash == "" {
		visit = fileframe.RandomBase62(visitIDLen)
		s.setVisitCookie(w, req, visit)
	}
	notice := ""
	if n, err := strconv.Atoi(r.URL.Query().Get("sent")); err == nil && n > 0 && n <= maxFilesPerRequest {
		notice = fmt.Sprintf("%d %s sent. Thank you!", n, plural(n, "file", "files"))
	}
	s.requestPage(w, r, req, owner, visit, http.StatusOK, notice, "")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// requestPage writes the page of req for visit ("" with a password: the
// password form) with status, a notice and an error.
func (s *Server) requestPage(w http.ResponseWriter, r *http.Request, req fileframe.Request, owner fileframe.Account, visit string, status int, notice, msg string) {
	data := requestPageData{
		Assets: s.pages.assets, PasswordCSS: passwordCSSURL(), UploadCSS: requestCSSURL(),
		Title: req.Title, Message: req.Message, Notice: notice, Error: msg,
	}
	base := "/r/" + url.PathEscape(req.Slug)
	if visit == "" {
		data.Locked, data.Action, data.CSRF = true, base+"/unlock", s.anonCSRF(w, r)
	} else {
		data.Form, data.Token, data.TokenHeader = base+"/upload", s.visitToken(req, visit), csrfHeader
		data.Scripts = []string{appAssetURL("upload.js")}
		if s.tus != nil {
			data.Tus = base + requestTusPath
			data.Scripts = []string{appAssetURL("tus.min.js"), appAssetURL("upload.js")}
		}
		left := max(req.MaxFiles-req.Received, 0)
		data.Limits = fmt.Sprintf("Up to %d more %s, %s in all.", left, plural(int(left), "file", "files"), humanSize(req.MaxBytes))
		if !req.ExpiresAt.IsZero() {
			data.Limits += " Open until " + req.ExpiresAt.UTC().Format("2 January 2006, 15:04 UTC") + "."
		}
		files, err := s.svc.VisitFiles(r.Context(), req, visit)
		if err != nil {
			s.publicError(w, r, err)
			return
		}
		for _, f := range files {
			data.Sent = append(data.Sent, sentFile{Name: f.File.Name, Size: humanSize(f.File.Size), At: f.CreatedAt})
		}
	}
	styleSource := ""
	if owner.Plan.Templates() {
		a, err := s.store.AccountAppearance(r.Context(), owner.ID)
		if err != nil {
			s.publicError(w, r, err)
			return
		}
		if l, ok := resolveTemplate(a); ok {
			styleSource = s.dress(r, l, &data.pageDress)
		}
	}
	h := w.Header()
	s.setPageHeaders(h, []string{requestCSP(styleSource)})
	h["Cache-Control"] = privateNoStore
	if err := s.pages.render(w, r, status, "request.html", data); err != nil {
		s.publicError(w, r, err)
	}
}

// requestCSSURL is the address of static/request.css with its hash.
var requestCSSURL = sync.OnceValue(func() string { return appAssetURL("request.css") })

// requestCSP is the password page's CSP (passwordCSP) with what the upload
// needs besides: its scripts, from 'self', and their tus requests.
func requestCSP(styleSource string) string {
	return "default-src 'none'; frame-src 'none'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; " +
		"script-src 'self'; connect-src 'self'; style-src 'self'" + styleSource + "; img-src 'self' data:"
}

// requestGuessBuckets are the buckets a guess at req's password takes a
// token from: linkGuessBuckets' limits, for the request.
func (s *Server) requestGuessBuckets(r *http.Request, req fileframe.Request) []limitedBucket {
	return []limitedBucket{
		{"reqpw:" + req.Slug + ":" + clientBucket(r.RemoteAddr), s.cfg.Login.AddressAccount},
		{"reqpw:" + req.Slug, s.cfg.Login.Account},
	}
}

// unlockRequest serves POST /r/{slug}/unlock, the request's password form:
// the anonymous CSRF token, the guess limits, the password under the
// hashing budget; a right one starts a visit and goes back to the page.
func (s *Server) unlockRequest(w http.ResponseWriter, r *http.Request) {
	if !s.readForm(w, r, nil, smallForm) {
		return
	}
	if !s.checkAnonCSRF(r) {
		s.appError(w, r, nil, errFormExpired)
		return
	}
	req, owner, ok := s.openRequest(w, r, func(err error) { s.publicError(w, r, err) })
	if !ok {
		return
	}
	back := "/r/" + url.PathEscape(req.Slug)
	if req.PasswordHash == "" {
		appRedirect(w, r, back)
		return
	}
	pw := r.PostFormValue("password")
	if pw == "" {
		s.requestPage(w, r, req, owner, "", http.StatusUnprocessableEntity, "", "Enter the password.")
		return
	}
	for _, b := range s.requestGuessBuckets(r, req) {
		d, failed := s.guard(r, b)
		if failed {
			w.Header().Set("Retry-After", busyRetryAfter)
			s.requestPage(w, r, req, owner, "", http.StatusServiceUnavailable, "", fileframe.ErrorMessage(errGuardFailed))
			return
		}
		if !d.Allowed {
			secs := retryAfterSeconds(d.RetryAfter)
			w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
			s.requestPage(w, r, req, owner, "", http.StatusTooManyRequests, "", "Too many attempts. Please wait "+strconv.FormatInt(secs, 10)+" seconds and try again.")
			return
		}
	}
	right, err := s.svc.CheckRequestPassword(r.Context(), req, pw)
	switch {
	case errors.Is(err, password.ErrBusy) || err != nil && r.Context().Err() != nil:
		w.Header().Set("Retry-After", strconv.FormatInt(retryAfterSeconds(s.passwords.Budget().MaxWait), 10))
		s.requestPage(w, r, req, owner, "", http.StatusServiceUnavailable, "", "Too many passwords are being checked right now. Please try again in a few seconds.")
	case err != nil:
		s.logFor(r).Error("public: checking a request's password", "slug", req.Slug, "err", err)
		s.requestPage(w, r, req, owner, "", http.StatusUnauthorized, "", "That password is not right.")
	case !right:
		s.requestPage(w, r, req, owner, "", http.StatusUnauthorized, "", "That password is not right.")
	default:
		s.setVisitCookie(w, req, fileframe.RandomBase62(visitIDLen))
		appRedirect(w, r, back)
	}
}

// requestUploadAllowed takes a token from req's bucket at r's client
// address (Config.RequestUploads); when it is empty it returns the
// seconds to wait and the rate_limited error.
func (s *Server) requestUploadAllowed(r *http.Request, req fileframe.Request) (int64, error) {
	l := s.cfg.RequestUploads
	d := s.allow(r, "requpload:"+string(req.ID)+":"+clientBucket(r.RemoteAddr), l.PerSecond, l.Burst)
	if d.Allowed {
		return 0, nil
	}
	secs := retryAfterSeconds(d.RetryAfter)
	return secs, fileframe.Errorf(fileframe.CodeRateLimited,
		"Too many files sent from your address to this request. Wait %d seconds and try again.", secs)
}

// requestUploadForm serves POST /r/{slug}/upload, the request page's form
// for a browser without JavaScript (or without tus): multipart/form-data
// whose first part is the visit's token ("csrf"), then the optional
// "name" and "email", then the "file" parts, streamed into the owner's
// account one at a time.
func (s *Server) requestUploadForm(w http.ResponseWriter, r *http.Request) {
	req, owner, ok := s.openRequest(w, r, func(err error) { s.publicError(w, r, err) })
	if !ok {
		return
	}
	visit, ok := s.requestVisit(r, req)
	if !ok {
		s.publicError(w, r, failure(fileframe.CodeFormExpired, "This page expired", "Open the request's link again and send your files from there."))
		return
	}
	// The body remembers how reading it failed: a sender who stops
	// sending gets 408, one whose body is cut 400, whatever part of the
	// form they stopped in.
	body := &clientBodyReader{ReadCloser: r.Body}
	fail := func(status int, err error) {
		if berr := body.failed(); berr != nil {
			if stalled(berr) {
				status, err = http.StatusRequestTimeout, fileframe.Errorf(fileframe.CodeRequestTimeout,
					"Nothing of your files arrived for too long, so the server stopped waiting. Send them again.")
			} else if code, _ := kindOf(err); code == fileframe.EINTERNAL {
				status, err = http.StatusBadRequest, fileframe.Errorf(fileframe.CodeUploadIncomplete,
					"The upload ended before all of its bytes arrived. Send your files again.")
			}
			// The server ends the request's context when the body fails;
			// the answer still goes to a sender who is there to read it.
			r = r.WithContext(context.WithoutCancel(r.Context()))
		}
		if code, _ := kindOf(err); code == fileframe.EINTERNAL {
			s.publicError(w, r, err)
			return
		}
		code, k := kindOf(err)
		if status == 0 {
			status = k.status
		}
		s.noteOutage(r.Context(), r.URL.Path, code, err)
		if retryLater(code) {
			setBusyRetry(w.Header())
		}
		fresh, _, ferr := s.svc.OpenRequest(r.Context(), req.Slug)
		if ferr == nil {
			req = fresh
		}
		s.requestPage(w, r, req, owner, visit, status, "", fileframe.ErrorMessage(err))
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		// No multipart body, no token to check: the form's own answer.
		fail(http.StatusForbidden, errFormExpired)
		return
	}
	mr := multipart.NewReader(s.uploadBody(w, body), params["boundary"])
	first, err := mr.NextPart()
	if err != nil || first.FormName() != "csrf" {
		fail(http.StatusForbidden, errFormExpired)
		return
	}
	token, _ := io.ReadAll(io.LimitReader(first, 256))
	if !s.checkVisitToken(req, visit, string(token)) {
		fail(http.StatusForbidden, errFormExpired)
		return
	}
	fields := map[string]string{}
	from := (*service.Sender)(nil)
	n := 0
	err = eachPart(mr, func(part *multipart.Part) error {
		if part.FileName() == "" {
			if name := part.FormName(); name == "name" || name == "email" {
				v, err := io.ReadAll(io.LimitReader(part, maxSenderFields))
				if err != nil {
					return fileframe.Errorf(fileframe.CodeInvalidField, "The form could not be read. Send it again.")
				}
				fields[name] = string(v)
			}
			return nil
		}
		if part.FormName() != "file" {
			return nil
		}
		if n >= maxFilesPerRequest {
			return tooManyFiles
		}
		if from == nil {
			name, email, err := service.CheckSender(fields["name"], fields["email"])
			if err != nil {
				return err
			}
			from = &service.Sender{Request: req, Visit: visit, Name: name, Email: email}
		}
		if _, err := s.requestUploadAllowed(r, req); err != nil {
			return err
		}
		if _, err := s.svc.AddFile(r.Context(), service.NewFile{Account: owner, Name: part.FileName(), Size: -1, AtMost: r.ContentLength, Body: part, From: from}); err != nil {
			return err
		}
		n++
		return nil
	})
	switch {
	case err != nil:
		if n > 0 {
			err = fileframe.Errorf(fileframe.ErrorCode(err), "%s %d %s before it arrived.", fileframe.ErrorMessage(err), n, plural(n, "file", "files"))
		}
		fail(0, err)
	case n == 0:
		fail(http.StatusBadRequest, fileframe.Errorf(fileframe.CodeInvalidField, "Choose one or more files, then press Send."))
	default:
		appRedirect(w, r, "/r/"+url.PathEscape(req.Slug)+"?sent="+strconv.Itoa(n))
	}
}

// senderKey is the context key of a tus request's sender (a
// service.Sender), set for the request tus endpoint only.
type senderKey struct{}

// requestSender returns the sender of a tus request made through a file
// request's page.
func requestSender(ctx context.Context) (service.Sender, bool) {
	from, ok := ctx.Value(senderKey{}).(service.Sender)
	return from, ok
}

// requestTusRoute is a route of a request's tus endpoint
// (/r/{slug}/tus/…): the cross-origin protection, then requestTusSession,
// around tusd's handler h.
func (s *Server) requestTusRoute(h http.HandlerFunc) http.Handler {
	return s.crossOrigin(s.requestTusSession(s.tus.h.Middleware(h)))
}

// requestTusSession lets a tus request through for a sender: an open
// request, a visit cookie of it, the visit's token in X-CSRF-Token on a
// state change, an upload ID of the request's owner (the upload's own
// visit is checked where it is read, detachedStore.GetUpload), and a
// token of the rate limit for each new upload. tusd then sees the path
// as the app's tus endpoint would give it, and its Location header is
// turned back into the request's.
func (s *Server) requestTusSession(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		refuse := func(err error) { s.textError(w, r, err) }
		req, owner, ok := s.openRequest(w, r, refuse)
		if !ok {
			return
		}
		visit, ok := s.requestVisit(r, req)
		if !ok {
			refuse(fileframe.Errorf(fileframe.CodeFormExpired, "Open the request's link again and send your files from there."))
			return
		}
		if r.Method != http.MethodHead && !s.checkVisitToken(req, visit, r.Header.Get(csrfHeader)) {
			refuse(fileframe.Errorf(fileframe.CodeFormExpired, "This page expired. Reload it and send your files again."))
			return
		}
		base := "/r/" + req.Slug + requestTusPath
		id := r.PathValue("id")
		if id != "" {
			acct, ok := tusUploadAccount(id)
			if !ok || acct != owner.ID || r.URL.Path != base+id {
				refuse(fileframe.Errorf(fileframe.ENOTFOUND, "There is no such upload."))
				return
			}
		}
		if r.Method == http.MethodPost {
			if secs, err := s.requestUploadAllowed(r, req); err != nil {
				w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
				refuse(err)
				return
			}
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path, r2.URL.RawPath = "/"+id, ""
		ctx := context.WithValue(r.Context(), uploaderKey{}, owner)
		ctx = context.WithValue(ctx, senderKey{}, service.Sender{Request: req, Visit: visit})
		lw := &locationWriter{ResponseWriter: w, from: s.publicURL(tusBasePath), to: s.publicURL(base)}
		s.tusServe(lw, r2, withoutMetadata(h), ctx, refuse)
	})
}

// locationWriter rewrites a Location header that starts with from to
// start with to: tusd names new uploads under its base path.
type locationWriter struct {
	http.ResponseWriter
	from, to string
}

func (w *locationWriter) WriteHeader(code int) {
	if l := w.Header().Get("Location"); strings.HasPrefix(l, w.from) {
		w.Header().Set("Location", w.to+strings.TrimPrefix(l, w.from))
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *locationWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Metadata keys under which a request upload's sender is kept for
// tusFinish and GetUpload.
const (
	tusKeptRequest     = "fileframe.request"
	tusKeptVisit       = "fileframe.visit"
	tusKeptSenderName  = "fileframe.senderName"
	tusKeptSenderEmail = "fileframe.senderEmail"
)

// requestTusCreate checks and reserves a new tus upload sent through a
// file request into owner's account, and returns the metadata to keep:
// the file name and the sender (name and email from the client's
// "senderName" and "senderEmail").
func (s *Server) requestTusCreate(ctx context.Context, owner fileframe.Account, from service.Sender, id string, u tusd.FileInfo) (tusd.MetaData, error) {
	name, email, err := service.CheckSender(u.MetaData["senderName"], u.MetaData["senderEmail"])
	if err != nil {
		return nil, err
	}
	if err := s.svc.ReserveRequestUpload(ctx, owner, from, id, tusName(u.MetaData), u.Size); err != nil {
		return nil, err
	}
	return tusd.MetaData{
		"filename": tusName(u.MetaData), tusKeptRequest: string(from.Request.ID), tusKeptVisit: from.Visit,
		tusKeptSenderName: name, tusKeptSenderEmail: email,
	}, nil
}

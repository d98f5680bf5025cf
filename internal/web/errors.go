package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
)

// errorKind is what a code means to HTTP: its status, and the title of its
// problem (the API's problem+json "title", and the heading of an error page
// whose error has no Title of its own).
type errorKind struct {
	status int
	title  string
}

// errorKinds is the one mapping of error codes to answers, for every
// surface: the API (apiError), the application's pages (appError), the
// public pages (publicError), plain text (textError: the content origin,
// the operations endpoints) and tus (tusError). A code not listed is a
// server fault: 500, its cause logged and never shown. The stores'
// ECONFLICT and EINVALID are not listed: a handler that expects one
// answers it in its own words (a taken email is "already exists"), and one
// it did not expect is a fault.
var errorKinds = map[string]errorKind{
	fileframe.CodeUnauthorized:         {http.StatusUnauthorized, "Missing or invalid API key"},
	fileframe.CodePlanRequired:         {http.StatusForbidden, "Agency plan required"},
	fileframe.CodeRateLimited:          {http.StatusTooManyRequests, "Too many requests"},
	fileframe.CodeUnsupportedMediaType: {http.StatusUnsupportedMediaType, "Content-Type must be application/json"},
	fileframe.CodeUnsupportedEncoding:  {http.StatusUnsupportedMediaType, "Content-Encoding not supported"},
	fileframe.CodeBodyTooLarge:         {http.StatusRequestEntityTooLarge, "Request body too large"},
	fileframe.CodeInvalidJSON:          {http.StatusBadRequest, "Malformed JSON"},
	fileframe.CodeInvalidField:         {http.StatusBadRequest, "Field of the wrong type"},
	fileframe.CodeFileIDRequired:       {http.StatusBadRequest, "fileId required"},
	fileframe.CodeFileIDNotAllowed:     {http.StatusBadRequest, "fileId not allowed with this key"},
	fileframe.CodeFileNotFound:         {http.StatusNotFound, "File not found"},
	fileframe.CodeHTMLRequired:         {http.StatusBadRequest, "html required"},
	fileframe.CodeHTMLTooLarge:         {http.StatusRequestEntityTooLarge, "html too large"},
	fileframe.CodeHTMLInvalid:          {http.StatusUnprocessableEntity, "HTML breaks the page rules"},
	fileframe.CodeMethodNotAllowed:     {http.StatusMethodNotAllowed, "Method not allowed"},
	fileframe.CodeFileTooLarge:         {http.StatusRequestEntityTooLarge, "File larger than the plan allows"},
	fileframe.CodeQuotaExceeded:        {http.StatusRequestEntityTooLarge, "Storage quota exceeded"},
	fileframe.CodeFileCountExceeded:    {http.StatusRequestEntityTooLarge, "File count limit reached"},
	fileframe.CodeTooManyFiles:         {http.StatusRequestEntityTooLarge, "Too many files in one request"},
	fileframe.CodeUploadIncomplete:     {http.StatusBadRequest, "Upload incomplete"},
	fileframe.CodeRequestTimeout:       {http.StatusRequestTimeout, "Request body stalled"},
	fileframe.CodeBusy:                 {http.StatusServiceUnavailable, "Busy, try again shortly"},
	fileframe.CodeUnavailable:          {http.StatusServiceUnavailable, "Service unavailable, try again shortly"},
	fileframe.CodeStorageFull:          {http.StatusInsufficientStorage, "Storage full"},
	fileframe.CodeFormExpired:          {http.StatusForbidden, "This form expired"},
	fileframe.CodeForbidden:            {http.StatusForbidden, "Forbidden"},
	fileframe.CodeMisdirected:          {http.StatusMisdirectedRequest, "Misdirected request"},
	fileframe.ENOTFOUND:                {http.StatusNotFound, "Not found"},
	// Passwords on links (public_password.go): a download without the
	// link's cookie or password.
	fileframe.CodePasswordRequired: {http.StatusUnauthorized, "Password required"},
	// The REST API's (api_files.go, api_pages.go, api_idempotency.go).
	fileframe.CodeKeyScope:                 {http.StatusForbidden, "Key cannot do this"},
	fileframe.CodeRevisionNotFound:         {http.StatusNotFound, "Revision not found"},
	fileframe.CodeIdempotencyKeyInvalid:    {http.StatusBadRequest, "Malformed Idempotency-Key"},
	fileframe.CodeIdempotencyKeyReused:     {http.StatusUnprocessableEntity, "Idempotency-Key reused for another request"},
	fileframe.CodeIdempotencyKeyInProgress: {http.StatusConflict, "Request with this Idempotency-Key still running"},
	// Link controls (public_gone.go, public_limit.go): an ended link is
	// gone; a limited link whose last download is running is busy
	// (Retry-After).
	fileframe.CodeLinkExpired: {http.StatusGone, "Link expired"},
	fileframe.CodeLinkUsedUp:  {http.StatusGone, "Link used up"},
	fileframe.CodeLinkBusy:    {http.StatusServiceUnavailable, "Link busy, try again shortly"},
	// Collections (api_collections.go, service/collection.go).
	fileframe.CodeCollectionNotFound: {http.StatusNotFound, "Collection not found"},
	fileframe.CodeNotCollectable:     {http.StatusUnprocessableEntity, "File cannot go in a collection"},
	fileframe.CodeCollectionFull:     {http.StatusConflict, "Collection full"},
	// File requests (public_request.go, api_requests.go): closed or
	// expired, every place taken, a file over what is left, not the
	// account's.
	fileframe.CodeRequestClosed:   {http.StatusGone, "Request closed"},
	fileframe.CodeRequestFull:     {http.StatusConflict, "Request full"},
	fileframe.CodeRequestTooLarge: {http.StatusRequestEntityTooLarge, "File too large for the request"},
	fileframe.CodeRequestNotFound: {http.StatusNotFound, "Request not found"},
	// Webhooks (api_webhooks.go, app_webhooks.go, service/webhook.go).
	fileframe.CodeWebhookNotFound:   {http.StatusNotFound, "Webhook not found"},
	fileframe.CodeDeliveryNotFound:  {http.StatusNotFound, "Delivery not found"},
	fileframe.CodeWebhookURLRefused: {http.StatusUnprocessableEntity, "Webhook URL refused"},
	fileframe.CodeDeliveryBusy:      {http.StatusConflict, "Delivery being sent"},
	fileframe.CodeWebhookLimit:      {http.StatusConflict, "Too many webhooks"},
	fileframe.CodeTestNotFound:      {http.StatusNotFound, "Test not found"},
	fileframe.CodeTestRunning:       {http.StatusConflict, "A test is running"},
	fileframe.CodeTestNeedsLivePage: {http.StatusConflict, "Page not published"},
	fileframe.CodeTestEnded:         {http.StatusConflict, "Test ended"},
}

// internalKind is the answer to every error without a listed code.
var internalKind = errorKind{http.StatusInternalServerError, "Internal error"}

// kindOf returns err's code and what it means; a server fault is
// EINTERNAL and internalKind.
func kindOf(err error) (string, errorKind) {
	code := fileframe.ErrorCode(err)
	if k, ok := errorKinds[code]; ok {
		return code, k
	}
	return fileframe.EINTERNAL, internalKind
}

// fault marks err as the server's fault whatever its code says (a blob
// that a file's row names but the blob store lacks is not a 404): it is
// answered 500, and logged with its cause.
// A busy error (no file descriptor free, the blob store overloaded) or an
// unavailable one (the database or S3 out of reach) is never a fault: it
// stays 503 with Retry-After. Nor is the end of a context: when it is the
// request's, the client went away (clientGone answers it); any other is a
// 500 all the same, having no code.
func fault(err error) error {
	if retryLater(fileframe.ErrorCode(err)) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return faultError{err}
}

// retryLater reports whether code is answered 503 with Retry-After: the
// server too busy (CodeBusy), or its database or S3 server out of reach
// (CodeUnavailable).
func retryLater(code string) bool {
	return code == fileframe.CodeBusy || code == fileframe.CodeUnavailable
}

// faultLevel is the level to log err at when work beside a request's
// answer fails (a clean-up, a download's count, a blob read mid-stream): a
// warning when the database or the blob store is out of reach or busy,
// which the operator must hear of but which is no fault of the code; an
// error otherwise.
func faultLevel(err error) slog.Level {
	if retryLater(fileframe.ErrorCode(err)) {
		return slog.LevelWarn
	}
	return slog.LevelError
}

// noteOutage logs a request refused because the disk is full (507) or the
// database or the S3 server is out of reach (503): not a fault of the
// code, but the operator must hear of it.
func (s *Server) noteOutage(ctx context.Context, path, code string, err error) {
	switch code {
	case fileframe.CodeStorageFull:
		s.logCtx(ctx).Warn("disk full: a write was refused with 507", "path", path, "err", err)
	case fileframe.CodeUnavailable:
		s.logCtx(ctx).Warn("database or file storage out of reach: a request was answered 503", "path", path, "err", err)
	}
}

// busyRetryAfter is the Retry-After, in seconds, of a busy answer whose
// handler did not set its own.
const busyRetryAfter = "2"

// setBusyRetry sets Retry-After on a busy answer unless its handler did.
func setBusyRetry(h http.Header) {
	if h.Get("Retry-After") == "" {
		h.Set("Retry-After", busyRetryAfter)
	}
}

// faultError hides the code of the error it holds (it has no Unwrap).
type faultError struct{ err error }

func (f faultError) Error() string { return f.err.Error() }

// failure is an error of code with a page heading and a message, both
// shown to the user.
func failure(code, title, msg string) error {
	return fileframe.Errorf(code, "%s", msg).WithTitle(title)
}

// errFormExpired is what a form without its CSRF token gets.
var errFormExpired = failure(fileframe.CodeFormExpired, "This form expired", "This form expired. Reload the page and try again.")

// errPageNotFound is the public 404.
var errPageNotFound = failure(fileframe.ENOTFOUND, "Not found",
	"There is no file at this address. The link may be mistyped, or the file is no longer shared.")

// appError answers an application page's request with the application's
// error page for err: its status, heading and message from err's code
// (errorKinds), its Title and its message. A server fault is logged with
// its cause and shown as a generic 500 page.
func (s *Server) appError(w http.ResponseWriter, r *http.Request, user *signedIn, err error) {
	if s.clientGone(w, r, err) {
		return
	}
	code, k := kindOf(err)
	title, msg := fileframe.ErrorTitle(err), fileframe.ErrorMessage(err)
	s.noteOutage(r.Context(), r.URL.Path, code, err)
	switch code {
	case fileframe.EINTERNAL:
		s.logFor(r).Error("app: request failed", "path", r.URL.Path, "err", err)
		title, msg = "Something went wrong", "Your request could not be completed. Please try again in a moment."
	case fileframe.CodeBusy:
		w.Header().Set("Retry-After", strconv.FormatInt(retryAfterSeconds(s.passwords.Budget().MaxWait), 10))
	case fileframe.CodeUnavailable:
		setBusyRetry(w.Header())
	}
	if title == "" {
		title = k.title
	}
	p := s.newAppPage(title, user)
	p.Status, p.Message = k.status, msg
	s.renderApp(w, r, k.status, "app_error.html", p)
}

// clientGone answers, and reports true, when err is only the end of the
// request's context: the client went away (closed the connection, or cut
// its body) while the server worked for it. That is the client's doing:
// 400 in the access log, an info line, no error page (nobody reads it).
// Once the shutdown cuts off the requests still running (CuttingOff), the
// end is the server's: 503 and a warning.
func (s *Server) clientGone(w http.ResponseWriter, r *http.Request, err error) bool {
	if r.Context().Err() == nil || !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	select {
	case <-s.cuttingOff:
		s.logFor(r).Warn("request cut off by the shutdown", "path", r.URL.Path, "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
	default:
		s.logFor(r).Info("request ended by the client", "path", r.URL.Path, "err", err)
		w.WriteHeader(http.StatusBadRequest)
	}
	return true
}

// failed answers a store or use case error with appError, a missing thing
// (ENOTFOUND) as gone says, and reports whether there was one.
func (s *Server) failed(w http.ResponseWriter, r *http.Request, user *signedIn, err, gone error) bool {
	switch {
	case err == nil:
		return false
	case fileframe.IsNotFound(err):
		s.appError(w, r, user, gone)
	default:
		s.appError(w, r, user, err)
	}
	return true
}

// hashBusy answers 503 with Retry-After, on the application's error page,
// when err says that a password could not be hashed or checked because the
// hashing budget stayed full (password.ErrBusy) or the request ended while
// it waited; it reports whether it answered.
func (s *Server) hashBusy(w http.ResponseWriter, r *http.Request, user *signedIn, err error) bool {
	if err == nil || !errors.Is(err, password.ErrBusy) && r.Context().Err() == nil {
		return false
	}
	s.logFor(r).Warn("app: password hashing is saturated", "err", err)
	s.appError(w, r, user, failure(fileframe.CodeBusy, "Busy",
		"Too many sign-ins are being checked right now. Please try again in a few seconds."))
	return true
}

// publicError answers a public page's request (a download link, its page
// or image, an unknown address) with the public error page for err; a
// server fault is logged and shown as a generic 500 page.
func (s *Server) publicError(w http.ResponseWriter, r *http.Request, err error) {
	if s.clientGone(w, r, err) {
		return
	}
	code, k := kindOf(err)
	title, msg := fileframe.ErrorTitle(err), fileframe.ErrorMessage(err)
	s.noteOutage(r.Context(), r.URL.Path, code, err)
	switch {
	case code == fileframe.EINTERNAL:
		s.logFor(r).Error("public page failed", "path", r.URL.Path, "err", err)
		title, msg = "Something went wrong", "The file could not be shown right now. Please try again in a moment."
	case retryLater(code):
		setBusyRetry(w.Header())
	}
	if title == "" {
		title = k.title
	}
	h := w.Header()
	s.setPageHeaders(h, s.hdr.cspNone)
	h.Set("Cache-Control", "no-cache")
	if rerr := s.pages.render(w, r, k.status, "error.html", errorPage{
		Assets: s.pages.assets, Status: k.status, Title: title, Message: msg,
	}); rerr != nil {
		s.logFor(r).Error("rendering error page", "err", rerr)
		http.Error(w, http.StatusText(k.status), k.status)
	}
}

// publicNotFound answers the app origin's unknown paths, unknown slugs and
// files that cannot be shown with the 404 page; methods other than GET and
// HEAD get 405.
func (s *Server) publicNotFound(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.publicError(w, r, failure(fileframe.CodeMethodNotAllowed, "Method not allowed", "This address can only be read."))
		return
	}
	s.publicError(w, r, errPageNotFound)
}

// textError answers with err in plain text, never cached: the content
// origin (whose headers are already set), the tus endpoint's refusals and
// the operations endpoints. A server fault is logged and says nothing of
// its cause.
func (s *Server) textError(w http.ResponseWriter, r *http.Request, err error) {
	if s.clientGone(w, r, err) {
		return
	}
	code, k := kindOf(err)
	msg := fileframe.ErrorMessage(err)
	s.noteOutage(r.Context(), r.URL.Path, code, err)
	switch {
	case code == fileframe.EINTERNAL:
		s.logFor(r).Error("request failed", "path", r.URL.Path, "err", err)
		msg = "Internal error."
	case retryLater(code):
		setBusyRetry(w.Header())
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, msg, k.status)
}

// contentNotFound answers every other request to the content origin: 404 in
// plain text, or 405 for a method other than GET and HEAD (the origin serves
// nothing else).
func (s *Server) contentNotFound(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.textError(w, r, fileframe.Errorf(fileframe.CodeMethodNotAllowed, "Method not allowed."))
		return
	}
	s.textError(w, r, fileframe.Errorf(fileframe.ENOTFOUND, "Not found."))
}

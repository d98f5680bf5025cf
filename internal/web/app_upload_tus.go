package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fileframe/fileframe/internal/diskspace"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
	"github.com/tus/tusd/v2/pkg/filestore"
	tusd "github.com/tus/tusd/v2/pkg/handler"
	"github.com/tus/tusd/v2/pkg/memorylocker"
	xslog "golang.org/x/exp/slog"
)

// tusBasePath is where the tus endpoint is mounted on the app origin: POST
// creates an upload, HEAD, PATCH and DELETE act on tusBasePath<id>.
const tusBasePath = "/uploads/tus/"

// csrfHeader carries the session's CSRF token on the tus requests that
// change state (POST, PATCH, DELETE): the browser's script reads it from
// the upload panel.
const csrfHeader = "X-CSRF-Token"

// Response headers of the PATCH (or POST) that completes a tus upload: the
// new file's ID, its public link and its page in the application.
const (
	headerFileID   = "Fileframe-File-Id"
	headerFileURL  = "Fileframe-File-Url"
	headerFilePage = "Fileframe-File-Page"
)

// TusStore keeps the bytes of unfinished resumable uploads: a tusd
// filestore.FileStore or s3store.S3Store. It must provide termination
// (both do), which removes an upload once its file is stored.
type TusStore interface {
	UseIn(*tusd.StoreComposer)
}

// tusUploads is the tus endpoint.
type tusUploads struct {
	h        *tusd.UnroutedHandler
	composer *tusd.StoreComposer
	// locker is the uploads' locker itself, without interruptingLocker:
	// settleTus waits for no body, and lets no request interrupt it.
	locker tusd.Locker
}

// newTusUploads builds the tus endpoint of cfg; nil when cfg keeps no
// unfinished uploads (neither TusStore nor UploadDir).
func (s *Server) newTusUploads() (*tusUploads, error) {
	store := s.cfg.TusStore
	if store == nil {
		if s.cfg.UploadDir == "" {
			return nil, nil
		}
		if err := os.MkdirAll(s.cfg.UploadDir, 0o750); err != nil {
			return nil, err
		}
		store = filestore.New(s.cfg.UploadDir)
	}
	given := tusd.NewStoreComposer()
	store.UseIn(given)
	if !given.UsesTerminater {
		return nil, errors.New("web: the tus store cannot terminate uploads")
	}
	// Only creation and termination, each call detached (see detach):
	// without a length deferrer tusd refuses Upload-Defer-Length (501), so
	// tusCreate always has a size to check the quota against; concatenation
	// is not offered.
	composer := tusd.NewStoreComposer()
	detached := detachedStore{core: given.Core, term: given.Terminater, quota: s.svc, s: s}
	composer.UseCore(detached)
	composer.UseTerminater(detached)
	locker := s.cfg.TusLocker
	if locker == nil {
		locker = memorylocker.New()
	}
	composer.UseLocker(interruptingLocker{locker})
	t := &tusUploads{composer: composer, locker: locker}
	h, err := tusd.NewUnroutedHandler(tusd.Config{
		StoreComposer: composer,
		// Absolute, so that Location names the public origin even behind
		// a proxy that rewrites Host.
		BasePath:        s.publicURL(tusBasePath),
		DisableDownload: true,
		// A PATCH whose body sends nothing this long ends (408).
		NetworkTimeout:            s.cfg.UploadIdleTimeout,
		Cors:                      &tusd.CorsConfig{Disable: true}, // same origin only
		Logger:                    xslog.New(tusLog{s.log.Handler()}),
		PreUploadCreateCallback:   s.tusCreate,
		PreFinishResponseCallback: func(ev tusd.HookEvent) (tusd.HTTPResponse, error) { return s.tusFinish(t, ev) },
	})
	if err != nil {
		return nil, err
	}
	t.h = h
	return t, nil
}

// tusRoute is a route of the tus endpoint (routes.go): a session of the
// upload's own account with the session's CSRF token on a state change, or
// a general API key of it (tusSession), and the cross-origin protection,
// around tusd's handler h.
func (s *Server) tusRoute(h http.HandlerFunc) http.Handler {
	return s.crossOrigin(s.tusSession(http.StripPrefix(strings.TrimSuffix(tusBasePath, "/"), s.tus.h.Middleware(h))))
}

// interruptingLocker is tusd's locker with one addition: when another
// request (on this instance or another) asks for an upload's lock, the
// request holding it also stops reading its body at once, by moving the
// connection's read deadline to now.
//
// tusd alone cancels the holder's context, and a goroutine it started with
// the request closes the body if the request is already reading it. A
// release asked for between taking the lock and starting to read is lost
// (tusd v2.8.0 reads the body field without synchronisation): the holder
// then keeps waiting on a stalled client, and the asking request times out
// after tusd's AcquireLockTimeout (20 s). The read deadline is on the
// connection, so it holds whenever the read starts.
type interruptingLocker struct{ tusd.Locker }

func (l interruptingLocker) NewLock(id string) (tusd.Lock, error) {
	lock, err := l.Locker.NewLock(id)
	if err != nil {
		return nil, err
	}
	return interruptingLock{inner: lock}, nil
}

type interruptingLock struct{ inner tusd.Lock }

// lostLock is a lock that can tell why its holder was asked to let go:
// postgres.TusLocker's, whose locks go with its database connection.
type lostLock interface {
	LostWithConnection() bool
}

// Lock takes the lock; ctx carries the request's values (tusSession's
// response controller), as tusd's contexts pass them through.
func (l interruptingLock) Lock(ctx context.Context, requestRelease func()) error {
	rc, _ := ctx.Value(responseKey{}).(*http.ResponseController)
	fw, _ := ctx.Value(interruptedKey{}).(*clientFaultWriter)
	body, _ := ctx.Value(clientBodyKey{}).(*clientBodyReader)
	return l.inner.Lock(ctx, func() {
		ll, ok := l.inner.(lostLock)
		lost := ok && ll.LostWithConnection()
		if body != nil {
			// The read that stops now stops for the client's own newer
			// request, or for the database, not for the client's fault:
			// tusLog keeps it out of the errors (the locker warns of
			// the database).
			if lost {
				body.fail(errLockLost)
			} else {
				body.fail(errInterrupted)
			}
		}
		if fw != nil && lost {
			fw.lockLost.Store(true)
		}
		requestRelease()
		if rc != nil {
			if fw != nil {
				fw.interrupted.Store(true)
			}
			// A writer that cannot set deadlines (httptest's recorder)
			// has no connection to interrupt.
			_ = rc.SetReadDeadline(time.Now())
		}
	})
}

// Unlock releases the lock.
func (l interruptingLock) Unlock() error { return l.inner.Unlock() }

// errInterrupted is how the body of a request ends whose upload another
// request took (interruptingLock).
var errInterrupted = errors.New("another request for this upload took its lock")

// errLockLost is how the body of a request ends whose upload's lock went
// with the locker's database connection (lostLock).
var errLockLost = errors.New("the upload's lock was lost with the database connection")

// errTusLockLost answers a request whose upload's lock was lost with the
// database connection: what arrived before is kept (its offset says how
// much), and the client resumes from there once the database is back.
var errTusLockLost = func() tusd.Error {
	e := tusd.NewError("ERR_UNAVAILABLE", "The upload was paused: the database is out of reach. The bytes received so far are kept; resume in a moment.", http.StatusServiceUnavailable)
	e.HTTPResponse.Header = tusd.HTTPHeader{"Retry-After": busyRetryAfter}
	return e
}()

// tusSettle answers HEAD and PATCH of an upload (h is tusd's handler of
// either) once it has settled an upload that is complete but has no file:
// a crash, or a failure of the server's own, cut its finish after the last
// byte arrived, and tusd never runs the finish hook again for a complete
// upload (its PATCH would answer 204 and make no file). Under the upload's
// lock it finishes the upload now (finishTus) and answers as for a
// finished one. An upload that already became a file is answered as
// complete, with the file's headers, as its last PATCH was: a client that
// lost that answer and asks again where it stands then learns it is done
// and which file it made, instead of starting again and storing the file
// twice. Other uploads, and a PATCH that carries bytes (of an unfinished
// upload, or tusd's 409 for an offset it does not hold), are tusd's.
func (s *Server) tusSettle(t *tusUploads, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch && r.ContentLength != 0 {
			h(w, r)
			return
		}
		// StripPrefix left the upload's ID as the path.
		id := strings.TrimPrefix(r.URL.Path, "/")
		f, done, err := s.settleTus(r.Context(), t, id)
		if err != nil {
			writeTusError(w, r, tusErr(s, id, err))
			return
		}
		size := strconv.FormatInt(f.Size, 10)
		if !done || (r.Method == http.MethodPatch && r.Header.Get("Upload-Offset") != size) {
			h(w, r)
			return
		}
		hd := w.Header()
		hd.Set("Tus-Resumable", "1.0.0")
		hd.Set("Upload-Offset", size)
		if _, sender := requestSender(r.Context()); !sender {
			// A sender learns nothing of the owner's file (tusFinish).
			for k, v := range s.finishedHeaders(f) {
				hd.Set(k, v)
			}
		}
		if r.Method == http.MethodPatch {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		hd.Set("Upload-Length", size)
		w.WriteHeader(http.StatusOK)
	}
}

// settleTus returns the file that upload id became (done), finishing it
// first if it is complete but has no file; done is false for an upload
// that is not complete, or not there. It holds the upload's lock
// throughout, so that no request, on this instance or another, finishes
// the upload at the same time or writes to it, and it removes what is
// left of an upload that became a file (a crash between the file's commit
// and the upload's removal). Once it holds the lock it finishes its work
// even if its client goes away, and a request that asks for the lock
// meanwhile (the client again, another instance) waits for it, then finds
// the file: a finish interrupted halfway would only be done again.
func (s *Server) settleTus(ctx context.Context, t *tusUploads, id string) (f fileframe.File, done bool, err error) {
	lock, err := t.locker.NewLock(id)
	if err != nil {
		return fileframe.File{}, false, err
	}
	lockCtx, stop := context.WithTimeout(ctx, tusLockTimeout)
	err = lock.Lock(lockCtx, func() {})
	stop()
	ctx = context.WithoutCancel(ctx)
	if err != nil {
		return fileframe.File{}, false, fileframe.Errorf(fileframe.CodeBusy, "Another request is using this upload. Please try again in a moment.")
	}
	defer lock.Unlock()

	// The upload as tusd's store has it, if it still does (s3store finds
	// that out only in GetInfo).
	var info tusd.FileInfo
	upload, err := t.composer.Core.GetUpload(ctx, id)
	if err == nil {
		info, err = upload.GetInfo(ctx)
	}
	if errors.Is(err, tusd.ErrNotFound) {
		upload, err = nil, nil
	} else if err != nil {
		return fileframe.File{}, false, err
	}
	if fid, rerr := s.store.UploadFile(ctx, id); rerr == nil {
		if f, err = s.store.FileByID(ctx, fid); err != nil {
			return fileframe.File{}, false, nil
		}
		if upload != nil {
			s.terminateTus(ctx, t, upload, id)
		}
		return f, true, nil
	} else if !fileframe.IsNotFound(rerr) {
		return fileframe.File{}, false, rerr
	}
	if upload == nil || info.SizeIsDeferred || info.Offset != info.Size {
		return fileframe.File{}, false, nil
	}
	s.log.Info("upload: finishing a complete tus upload that has no file (its finish was cut)", "upload", id)
	f, err = s.finishTus(ctx, t, upload, info, true)
	return f, err == nil, err
}

// tusLockTimeout is how long settleTus waits for an upload's lock, as
// tusd waits (its AcquireLockTimeout).
const tusLockTimeout = 20 * time.Second

// writeTusError answers a tus request with err as tusd answers its own
// errors.
func writeTusError(w http.ResponseWriter, r *http.Request, err error) {
	var te tusd.Error
	if !errors.As(err, &te) {
		te = tusd.NewError("ERR_INTERNAL", "The upload could not be stored. Please try again in a moment.", http.StatusInternalServerError)
	}
	for k, v := range te.HTTPResponse.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Tus-Resumable", "1.0.0")
	if r.Method == http.MethodHead {
		w.WriteHeader(te.HTTPResponse.StatusCode)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(te.HTTPResponse.Body)))
	w.WriteHeader(te.HTTPResponse.StatusCode)
	io.WriteString(w, te.HTTPResponse.Body)
}

// withoutMetadata drops tusd's Upload-Metadata from h's answers: it holds
// what tusCreate kept, a link password's hash among it, which no client
// needs back. It wraps tusd's Middleware, which keeps the writer it was
// given for the handlers inside.
func withoutMetadata(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(noMetadata{w}, r)
	})
}

type noMetadata struct{ http.ResponseWriter }

func (w noMetadata) WriteHeader(code int) {
	w.Header().Del("Upload-Metadata")
	w.ResponseWriter.WriteHeader(code)
}

func (w noMetadata) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// uploaderKey is the context key of the account a tus request uploads
// for (a fileframe.Account), which tusd's hooks read from their event's
// context.
type uploaderKey struct{}

// tusSession lets a tus request through for one of two callers: a request
// with an Authorization header is an API client's (tusKey: a general key
// of an Agency account, as POST /api/files takes; no CSRF token, no
// cookies read); any other needs a signed-in session (401 otherwise), with
// the session's CSRF token in csrfHeader on a state change (403
// otherwise). Either way the upload must be the caller's account's (404
// otherwise: an upload ID names its account, tusUploadAccount). Refusals
// of a key are problem+json (apiError), of a session plain text.
func (s *Server) tusSession(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		var account fileframe.Account
		refuse := func(err error) { s.textError(w, r, err) }
		if r.Header.Get("Authorization") != "" {
			// The key only, even beside a session cookie: a request
			// must not be both, and a key needs no CSRF token because a
			// browser never sends one on its own.
			refuse = func(err error) { s.apiError(w, r, err) }
			caller, err := s.tusKey(w, r)
			if err != nil {
				refuse(err)
				return
			}
			account = caller.account
		} else {
			user, err := s.currentSession(w, r)
			if err != nil {
				refuse(err)
				return
			}
			if user == nil {
				refuse(errTusSignIn)
				return
			}
			if r.Method != http.MethodHead && !verifyCSRF(s.csrfKey(), "session:"+user.session.Hash, r.Header.Get(csrfHeader)) {
				refuse(fileframe.Errorf(fileframe.CodeFormExpired, "This page expired. Reload it and upload again."))
				return
			}
			account = user.account
		}
		// The ID as the route decoded it, and as tusd will read it (the
		// path StripPrefix leaves): both must be one upload ID of this
		// account, whole, so that no encoding can make them differ.
		if id := r.PathValue("id"); id != "" {
			owner, ok := tusUploadAccount(id)
			if !ok || owner != account.ID || r.URL.Path != tusBasePath+id {
				refuse(fileframe.Errorf(fileframe.ENOTFOUND, "There is no such upload."))
				return
			}
		}
		s.tusServe(w, r, h, context.WithValue(r.Context(), uploaderKey{}, account), refuse)
	})
}

// tusServe passes a tus request whose caller is checked to h, with ctx (the
// request's context and what the caller put in it) as its context; refuse
// answers a refusal in the caller's format.
func (s *Server) tusServe(w http.ResponseWriter, r *http.Request, h http.Handler, ctx context.Context, refuse func(error)) {
	// A length told later would leave nothing to reserve the quota
	// for; tusd answers it 501, which is for the server's failings.
	if r.Header.Get("Upload-Defer-Length") != "" {
		refuse(fileframe.Errorf(fileframe.CodeInvalidField, "Send the upload's length in Upload-Length when it starts: its space is reserved then (Upload-Defer-Length is not supported)."))
		return
	}
	// A full disk refuses new uploads and their bytes with 507 before any
	// byte is written, leaving its reserve for the small writes that let
	// the owner make room.
	if r.Method == http.MethodPost || r.Method == http.MethodPatch {
		if err := s.svc.CheckSpace(r.Context()); err != nil {
			refuse(err)
			return
		}
	}
	// A body that the client cuts short or stops sending is its
	// fault: tusd answers those 500, which clientFaultWriter makes 400
	// or 408, and logs them as errors, which tusLog lowers.
	body := &clientBodyReader{ReadCloser: r.Body}
	r.Body = body
	fw := &clientFaultWriter{ResponseWriter: w, body: body}
	w = fw
	body.rc = http.NewResponseController(w)
	ctx = context.WithValue(ctx, responseKey{}, body.rc)
	ctx = context.WithValue(ctx, interruptedKey{}, fw)
	ctx = context.WithValue(ctx, clientBodyKey{}, body)
	ctx = context.WithValue(ctx, requestContextKey{}, ctx)
	h.ServeHTTP(w, r.WithContext(ctx))
}

// tusKey checks the API key of a tus request with the API's own checks
// (admit), in DESIGN.md's order: the key (401), the plan (403
// plan_required), the key's kind (403 key_scope: a page-bound key cannot
// upload), the rate limits (429). Every request of an upload (POST, HEAD,
// PATCH, DELETE) counts against them.
func (s *Server) tusKey(w http.ResponseWriter, r *http.Request) (apiCaller, error) {
	return s.admit(w, r, true, "Uploading files")
}

// clientBodyKey is the context key of a tus request's clientBodyReader.
type clientBodyKey struct{}

// clientBodyReader is a request's body that remembers how reading it
// failed: a client's fault (a cut connection, a stalled client, or this
// instance or another taking the upload's lock for a newer request of the
// client's, which interrupts the read).
type clientBodyReader struct {
	io.ReadCloser
	read atomic.Int64 // bytes read
	mu   sync.Mutex
	err  error
	// rc, when set, is the request's: once the body is all in (or the
	// request has none), its read deadline is lifted (allIn).
	rc    *http.ResponseController
	ended atomic.Bool // the body was read to its end
}

func (b *clientBodyReader) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read.Add(int64(n))
	if err == io.EOF {
		b.ended.Store(true)
	} else if err != nil {
		b.fail(err)
	}
	return n, err
}

// allIn lifts the connection's read deadline when the request's body has
// arrived whole (the store saw its end, after tusd moved the deadline on
// for the last time) or it has none. net/http then reads the connection in
// the background (to see the client leave) under the deadline last set
// (tusd's middleware sets one of its NetworkTimeout on every request, and
// its body reader after every read): storing what arrived may take longer
// (S3 through its tries), and that read's timeout would end the request's
// context as if the client had gone. The answer gets its own write
// deadline (statusWriter); the next request, net/http's.
//
// Only then: tusd's reader reports a body that failed (a stalled client)
// as an end too, and net/http reads what is left of an unread body before
// it answers, which must stay bounded.
func (b *clientBodyReader) allIn() {
	if b.rc != nil && (b.ended.Load() || b.ReadCloser == http.NoBody) {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
}

// atEnd calls end when its reader ends (io.EOF).
type atEnd struct {
	r   io.Reader
	end func()
}

func (a atEnd) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if err == io.EOF {
		a.end()
	}
	return n, err
}

// bodiless lifts the read deadline of a request without a body (allIn):
// called by the store's first call, after tusd's middleware set it.
func bodiless(ctx context.Context) {
	if b, ok := ctx.Value(clientBodyKey{}).(*clientBodyReader); ok && b.ReadCloser == http.NoBody {
		b.allIn()
	}
}

// fail records err as how reading the body failed, unless it already had.
func (b *clientBodyReader) fail(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
}

// failed returns the error that reading the body ended with, if any.
func (b *clientBodyReader) failed() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// clientFaultWriter turns tusd's 500 for a body that failed to arrive into
// the client's fault: 408 after a stalled read, else 400; and its 501 for
// an extension it does not offer (and does not list in Tus-Extension)
// into 400, since asking for one is the client's mistake.
type clientFaultWriter struct {
	http.ResponseWriter
	body *clientBodyReader
	// interrupted is set when another request took the upload's lock
	// and moved this connection's read deadline to now
	// (interruptingLock): the connection is then closed after the answer.
	interrupted atomic.Bool
	// lockLost is set, before interrupted, when the interruption came
	// from the lock going with the locker's database connection
	// (lostLock): a failure is then answered errTusLockLost.
	lockLost atomic.Bool
	// replaced is set when WriteHeader answered in tusd's place: tusd's
	// own body is then dropped.
	replaced bool
}

// interruptedKey is the context key of a tus request's
// clientFaultWriter.
type interruptedKey struct{}

func (w *clientFaultWriter) WriteHeader(code int) {
	if w.interrupted.Load() {
		// A read deadline in the past stays on the connection: net/http's
		// next read on it fails and cancels the context of every later
		// request of a kept-alive connection, which would all fail at
		// once. The client opens a new one.
		w.Header().Set("Connection", "close")
		var te tusd.Error
		switch {
		case w.lockLost.Load() && code >= 400:
			// Whatever tusd made of the interrupted read (its 400
			// ERR_UPLOAD_INTERRUPTED, a 408 or a 500): the server's
			// failure, for a while.
			te = errTusLockLost
		case code == http.StatusRequestTimeout || code >= 500:
			// The read ended at the deadline moved to now, or on the
			// body tusd closed, for the newer request: not a stall and
			// not the server's fault, whichever tusd saw first. Answered
			// as tusd answers an interrupted upload.
			te = tusd.ErrUploadInterrupted
		}
		if te.HTTPResponse.StatusCode != 0 {
			// tusd's own body is dropped.
			w.replaced = true
			for k, v := range te.HTTPResponse.Header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(te.HTTPResponse.Body)))
			w.ResponseWriter.WriteHeader(te.HTTPResponse.StatusCode)
			io.WriteString(w.ResponseWriter, te.HTTPResponse.Body)
			return
		}
	}
	if code == http.StatusNotImplemented {
		code = http.StatusBadRequest
	}
	if err := w.body.failed(); code >= 500 && err != nil {
		code = http.StatusBadRequest
		if stalled(err) {
			code = http.StatusRequestTimeout
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *clientFaultWriter) Write(p []byte) (int, error) {
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *clientFaultWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// errTusSignIn is the tus endpoint's answer to a request without a
// session.
var errTusSignIn = fileframe.Errorf(fileframe.CodeUnauthorized, "Sign in to upload files.")

// responseKey is the context key of a tus request's ResponseController,
// with which tusFinish keeps the connection's deadlines away while it
// stores a large file.
type responseKey struct{}

// requestContextKey is the context key of a tus request's own context (as
// tusSession made it) in that same context; see detach.
type requestContextKey struct{}

// detach returns the context that tusd hands to the store and the hooks
// (its *httpContext), minus its Value method. httpContext.Value has a value
// receiver, so every call copies the struct while the handler writes its
// fields: a data race as soon as another goroutine asks for a value, as
// the S3 SDK's HTTP client does when it ends a request
// (tusd v2.8.0, pkg/handler/context.go). Values come from the request's
// own context instead (the same ones: httpContext.Value reads them there);
// cancellation and the deadline stay tusd's. Call it on the request's
// goroutine.
func detach(ctx context.Context) context.Context {
	values, ok := ctx.Value(requestContextKey{}).(context.Context)
	if !ok {
		return ctx
	}
	return tusContext{Context: ctx, values: values}
}

type tusContext struct {
	context.Context
	values context.Context
}

func (c tusContext) Value(key any) any { return c.values.Value(key) }

// detachedStore is a tusd store whose calls and uploads get detach's
// context.
type detachedStore struct {
	core tusd.DataStore
	term tusd.TerminaterDataStore
	// quota keeps each upload's reservation: renewed while bytes arrive,
	// released when the upload is created in vain or terminated.
	quota uploadQuota
	s     *Server // for storeError
}

// storeError is what tusd answers for err, an error of the store's for
// upload id: tusd's own errors (not found, its size checks), the end of
// the request's context, and whatever ends a request whose body failed to
// arrive (tusd and clientFaultWriter answer it as the client's) as they
// are; any other as tusErr says, after Config.TusStoreError gave it its
// code: a full disk 507, an S3 server out of reach 503 ERR_UNAVAILABLE with
// Retry-After, anything else a 500 that says nothing of its cause, which is
// logged. tusd itself would send the store's text to the client, with the
// upload's paths, the S3 server's address and its object names.
func (d detachedStore) storeError(ctx context.Context, id string, err error) error {
	var te tusd.Error
	switch body, _ := ctx.Value(clientBodyKey{}).(*clientBodyReader); {
	case err == nil, errors.As(err, &te), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case body != nil && body.failed() != nil:
		return err
	case diskspace.IsNoSpace(err):
		// The disk filled while the bytes arrived (other uploads were
		// streaming too): 507 with the code of a full disk, not tusd's
		// 500. The bytes written stay; the upload resumes from them once
		// there is room.
		err = fmt.Errorf("%w: %w", diskspace.ErrFull, err)
	default:
		if classify := d.s.cfg.TusStoreError; classify != nil {
			err = classify(err)
		}
	}
	if code, _ := kindOf(err); code == fileframe.EINTERNAL {
		// tusd's s3store keeps only the text of some errors (NewUpload's,
		// "unable to create multipart upload"), in which TusStoreError
		// finds the S3 store's mark of a server out of reach
		// (s3.Store.Client); for any other unexplained error, whether the
		// server is out of reach is asked of the blob store, which shares
		// it (the SDK tries three times, which takes about 2 s when it is
		// down).
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		perr := d.s.blobs.Ping(pctx)
		cancel()
		if fileframe.ErrorCode(perr) == fileframe.CodeUnavailable {
			err = fmt.Errorf("%w (the blob store's ping: %w)", err, perr)
		}
	}
	return tusErr(d.s, id, err)
}

// uploadQuota is what the tus store needs of the uploads' reservations
// (service.Service).
type uploadQuota interface {
	RenewUpload(ctx context.Context, a fileframe.Account, id string, size int64) error
	ReleaseUpload(ctx context.Context, id string) error
}

// NewUpload and GetUpload refuse an ID of any shape but an upload ID's
// (tusUploadAccount), whatever a route let through: the stores make file
// paths and object names of it.
func (d detachedStore) NewUpload(ctx context.Context, info tusd.FileInfo) (tusd.Upload, error) {
	if _, ok := tusUploadAccount(info.ID); !ok {
		return nil, errors.New("upload: refusing to create an upload without an ID of ours")
	}
	dctx := detach(ctx)
	bodiless(dctx)
	u, err := d.core.NewUpload(dctx, info)
	if err != nil {
		if rerr := d.quota.ReleaseUpload(context.WithoutCancel(ctx), reservationID(info.ID)); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, d.storeError(ctx, info.ID, err)
	}
	return detachedUpload{u, d, info.ID}, nil
}

// GetUpload: an S3 upload's ID is its object's and its multipart upload's,
// joined by "+", and is taken only when the upload's own info, stored at
// creation, has that very ID, so that a client cannot pair its own object
// with another upload's multipart ID and have this server write to, or
// abort, that multipart upload on an S3 server that does not bind upload
// IDs to their objects.
func (d detachedStore) GetUpload(ctx context.Context, id string) (tusd.Upload, error) {
	if _, ok := tusUploadAccount(id); !ok {
		return nil, tusd.ErrNotFound
	}
	ctx = detach(ctx)
	bodiless(ctx)
	u, err := d.core.GetUpload(ctx, id)
	if err != nil {
		return nil, d.storeError(ctx, id, err)
	}
	from, sender := requestSender(ctx)
	if strings.Contains(id, "+") || sender {
		info, err := u.GetInfo(ctx)
		if err != nil {
			return nil, d.storeError(ctx, id, err)
		}
		if info.ID != id {
			return nil, tusd.ErrNotFound
		}
		// A sender reaches only the uploads of their own visit to the
		// request (public_request.go).
		if sender && (info.MetaData[tusKeptRequest] != string(from.Request.ID) || info.MetaData[tusKeptVisit] != from.Visit) {
			return nil, tusd.ErrNotFound
		}
	}
	return detachedUpload{u, d, id}, nil
}

func (d detachedStore) AsTerminatableUpload(u tusd.Upload) tusd.TerminatableUpload {
	du := u.(detachedUpload)
	return detachedTermination{d.term.AsTerminatableUpload(du.Upload), du}
}

type detachedUpload struct {
	tusd.Upload
	store detachedStore
	id    string
}

// WriteChunk renews the upload's reservation first: an upload in use keeps
// its room however long it takes. A failed renewal is logged by the
// caller's error only if writing fails too; the reservation then still
// lasts until it expires. The request's body reaches the store through
// lastByteGuard. The upload's info is read once for both (on S3 it is a
// request of its own).
func (u detachedUpload) WriteChunk(ctx context.Context, offset int64, src io.Reader) (int64, error) {
	ctx = detach(ctx)
	body, hasBody := ctx.Value(clientBodyKey{}).(*clientBodyReader)
	if info, err := u.Upload.GetInfo(ctx); err == nil {
		if a, ok := uploader(ctx); ok {
			_ = u.store.quota.RenewUpload(ctx, a, reservationID(info.ID), info.Size)
		}
		if hasBody && !info.SizeIsDeferred {
			src = newLastByteGuard(src, info.Size-offset, body)
		}
	}
	if hasBody {
		src = atEnd{src, body.allIn}
	}
	n, err := u.Upload.WriteChunk(ctx, offset, src)
	return n, u.store.storeError(ctx, u.id, err)
}

// lastByteGuard hands the store a PATCH's bytes, holding back the last
// byte that the upload lacks until the body is known to end there. tusd
// reads a body of unknown length (chunked) up to what the upload lacks and
// finishes the upload "even if an error occurred" (v2.8.0's writeChunk):
// a body longer than that was answered 413 and yet stored, cut, as a file.
// tusd's own reader reports the longer body as an end (io.EOF), so the
// guard tells the two apart by the bytes the client sent (body.read), and
// ends the longer one a byte short of the upload: tusd answers it 413, the
// upload is not a file, and the client may send the rest again.
type lastByteGuard struct {
	src   io.Reader
	left  int64 // bytes the upload still lacks
	total int64 // what it lacked when the PATCH began
	body  *clientBodyReader
	start int64 // body.read when the PATCH began
	err   error
}

func newLastByteGuard(src io.Reader, lacks int64, body *clientBodyReader) *lastByteGuard {
	return &lastByteGuard{src: src, left: lacks, total: lacks, body: body, start: body.read.Load()}
}

// errTooLong marks a body found longer than the upload lacks.
var errTooLong = errors.New("the body is longer than the upload lacks")

func (g *lastByteGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if g.left > 1 {
		if int64(len(p)) > g.left-1 {
			p = p[:g.left-1]
		}
		n, err := g.src.Read(p)
		g.left -= int64(n)
		return n, err
	}
	// The last byte the upload lacks (or none): read it, then on to the
	// end of the body, before handing it over.
	var last [1]byte
	var n int
	var err error
	for g.left == 1 && n == 0 && err == nil {
		n, err = g.src.Read(last[:])
	}
	for err == nil {
		var more [1]byte
		var m int
		if m, err = g.src.Read(more[:]); m > 0 {
			err = errTooLong
		}
	}
	if err == io.EOF && g.body.read.Load()-g.start > g.total {
		err = errTooLong // tusd's reader ended the longer body
	}
	if err == errTooLong {
		// The store sees the body end here, as tusd's own reader shows
		// it: a store given an error instead may drop what it had not
		// yet made durable (s3store's part of under 5 MiB, bytes that
		// earlier PATCHes had been answered for). tusd answers the
		// longer body 413 from its reader's error; body.fail keeps
		// that out of the errors.
		g.body.fail(err)
		g.err = io.EOF
		return 0, io.EOF
	}
	g.err = err
	g.left -= int64(n)
	copy(p, last[:n])
	return n, err
}

func (u detachedUpload) GetInfo(ctx context.Context) (tusd.FileInfo, error) {
	ctx = detach(ctx)
	info, err := u.Upload.GetInfo(ctx)
	return info, u.store.storeError(ctx, u.id, err)
}

func (u detachedUpload) GetReader(ctx context.Context) (io.ReadCloser, error) {
	ctx = detach(ctx)
	r, err := u.Upload.GetReader(ctx)
	return r, u.store.storeError(ctx, u.id, err)
}

func (u detachedUpload) FinishUpload(ctx context.Context) error {
	ctx = detach(ctx)
	return u.store.storeError(ctx, u.id, u.Upload.FinishUpload(ctx))
}

type detachedTermination struct {
	tusd.TerminatableUpload
	upload detachedUpload
}

// Terminate removes the upload and gives back its room.
func (t detachedTermination) Terminate(ctx context.Context) error {
	ctx = detach(ctx)
	info, err := t.upload.Upload.GetInfo(ctx)
	if err != nil {
		return t.upload.store.storeError(ctx, t.upload.id, err)
	}
	if err := t.TerminatableUpload.Terminate(ctx); err != nil {
		return t.upload.store.storeError(ctx, t.upload.id, err)
	}
	return t.upload.store.quota.ReleaseUpload(context.WithoutCancel(ctx), reservationID(info.ID))
}

// uploader returns the account of a tus hook's request.
func uploader(ctx context.Context) (fileframe.Account, bool) {
	a, ok := ctx.Value(uploaderKey{}).(fileframe.Account)
	return a, ok
}

// tusName returns the file name in a tus upload's metadata (tus-js-client
// and Uppy send "filename"; some clients "name").
func tusName(meta tusd.MetaData) string {
	if n := meta["filename"]; n != "" {
		return n
	}
	return meta["name"]
}

// tusRandomLen is the length of the random part of an upload ID.
const tusRandomLen = 24

// newTusUploadID returns a fresh upload ID of account a: its account ID, a
// dot and tusRandomLen base62 characters.
func newTusUploadID(a fileframe.AccountID) string {
	return string(a) + "." + fileframe.RandomBase62(tusRandomLen)
}

// tusUploadAccount returns the account of an upload ID, if id has exactly
// the shape that newTusUploadID gives, followed on S3 by what tusd's
// s3store adds: "+" and the multipart upload's ID (a UUID on versitygw;
// letters, digits and "._~=-" on the servers we know). Nothing else is an
// upload ID: no slash, backslash, percent sign, space or NUL can get
// through to a store that makes paths or object names of it.
func tusUploadAccount(id string) (fileframe.AccountID, bool) {
	acct, rest, ok := strings.Cut(id, ".")
	if !ok || !fileframe.AccountID(acct).Valid() {
		return "", false
	}
	random, multipart, hasMultipart := strings.Cut(rest, "+")
	if !fileframe.IsBase62(random, tusRandomLen) {
		return "", false
	}
	if hasMultipart && !validMultipartID(multipart) {
		return "", false
	}
	return fileframe.AccountID(acct), true
}

// reservationID is the name of an upload's reservation: the ID tusCreate
// chose (newTusUploadID), without what s3store adds to it ("+" and the
// multipart upload's ID), which the reservation was made before.
func reservationID(uploadID string) string {
	id, _, _ := strings.Cut(uploadID, "+")
	return id
}

// validMultipartID reports whether s can be the multipart upload ID that
// s3store puts after "+" in an upload ID: never with "..", which no store
// should meet in an ID, even where it is no path.
func validMultipartID(s string) bool {
	if s == "" || len(s) > 1024 || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || strings.IndexByte("._~=-", c) >= 0) {
			return false
		}
	}
	return true
}

// tusCreate checks a new tus upload and reserves its room: a valid file
// name, and its length against the plan's largest file and the account's
// storage (tusd refuses a deferred length, 501, the store having no length
// deferrer); it names the upload newTusUploadID. The reservation lasts
// until the upload becomes a file, is cancelled, or is left unused long
// enough to be removed (service.UploadReservationTTL).
func (s *Server) tusCreate(ev tusd.HookEvent) (tusd.HTTPResponse, tusd.FileInfoChanges, error) {
	var none tusd.FileInfoChanges
	ctx := detach(ev.Context)
	a, ok := uploader(ctx)
	if !ok {
		return tusd.HTTPResponse{}, none, tusError(s, ev, errTusSignIn)
	}
	name := tusName(ev.Upload.MetaData)
	if from, ok := requestSender(ctx); ok {
		id := newTusUploadID(a.ID)
		meta, err := s.requestTusCreate(ctx, a, from, id, ev.Upload)
		if err != nil {
			return tusd.HTTPResponse{}, none, tusError(s, ev, err)
		}
		return tusd.HTTPResponse{}, tusd.FileInfoChanges{ID: id, MetaData: meta}, nil
	}
	// The link's settings are checked (and a password hashed) now, not
	// after the last byte: a refused setting costs no upload.
	link, err := tusLink(ev.Upload.MetaData)
	if err == nil {
		link, err = s.svc.PrepareLink(ctx, a, link)
	}
	if err != nil {
		return tusd.HTTPResponse{}, none, tusError(s, ev, err)
	}
	id := newTusUploadID(a.ID)
	if err := s.svc.ReserveUpload(ctx, a, id, name, ev.Upload.Size); err != nil {
		return tusd.HTTPResponse{}, none, tusError(s, ev, err)
	}
	// Only the name and the link's checked settings are kept (the
	// password as its hash): the type is the server's guess from the
	// name and the bytes (service.AddFile), never the client's word.
	meta := tusd.MetaData{"filename": name}
	keepTusLink(meta, link)
	return tusd.HTTPResponse{}, tusd.FileInfoChanges{ID: id, MetaData: meta}, nil
}

// tusLink reads the link settings of a tus upload's metadata, named as
// POST /api/files's query parameters (expiresIn, expiresAt, maxDownloads,
// removeWhenEnded, reveal) and password, each base64 as tus metadata is.
func tusLink(meta tusd.MetaData) (service.LinkChange, error) {
	q := url.Values{}
	for _, k := range []string{"expiresIn", "expiresAt", "maxDownloads", "removeWhenEnded", "reveal"} {
		if v, ok := meta[k]; ok {
			q.Set(k, v)
		}
	}
	var passwords []string
	if pw, ok := meta["password"]; ok {
		passwords = []string{pw}
	}
	return parseLinkValues(q, passwords, "The password in Upload-Metadata")
}

// Metadata keys under which tusCreate keeps a checked link for tusFinish;
// a client's own metadata never gets through under them.
const (
	tusKeptExpiresIn    = "fileframe.expiresIn"
	tusKeptExpiresAt    = "fileframe.expiresAt"
	tusKeptMaxDownloads = "fileframe.maxDownloads"
	tusKeptRemove       = "fileframe.removeWhenEnded"
	tusKeptReveal       = "fileframe.reveal"
	tusKeptPassword     = "fileframe.passwordHash"
)

// keepTusLink writes the checked link c into meta (PrepareLink's output:
// a hash, never a password).
func keepTusLink(meta tusd.MetaData, c service.LinkChange) {
	if c.ExpiresIn != nil {
		meta[tusKeptExpiresIn] = c.ExpiresIn.String()
	}
	if c.ExpiresAt != nil {
		meta[tusKeptExpiresAt] = c.ExpiresAt.UTC().Format(time.RFC3339Nano)
	}
	if c.MaxDownloads != nil {
		meta[tusKeptMaxDownloads] = strconv.FormatInt(*c.MaxDownloads, 10)
	}
	if c.RemoveWhenEnded != nil {
		meta[tusKeptRemove] = strconv.FormatBool(*c.RemoveWhenEnded)
	}
	if c.Reveal != nil {
		meta[tusKeptReveal] = *c.Reveal
	}
	if c.PasswordHash != nil {
		meta[tusKeptPassword] = *c.PasswordHash
	}
}

// keptTusLink reads back what keepTusLink wrote.
func keptTusLink(meta tusd.MetaData) service.LinkChange {
	var c service.LinkChange
	if v, ok := meta[tusKeptExpiresIn]; ok {
		if d, err := time.ParseDuration(v); err == nil {
			c.ExpiresIn = &d
		}
	}
	if v, ok := meta[tusKeptExpiresAt]; ok {
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			c.ExpiresAt = &t
		}
	}
	if v, ok := meta[tusKeptMaxDownloads]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			c.MaxDownloads = &n
		}
	}
	if v, ok := meta[tusKeptRemove]; ok {
		b := v == "true"
		c.RemoveWhenEnded = &b
	}
	if v, ok := meta[tusKeptReveal]; ok {
		c.Reveal = &v
	}
	if v, ok := meta[tusKeptPassword]; ok {
		c.PasswordHash = &v
	}
	return c
}

// tusFinish runs when the last byte of a tus upload has arrived, while the
// request still holds the upload's lock: it makes the upload its file
// (finishTus) and answers with the file in response headers.
func (s *Server) tusFinish(t *tusUploads, ev tusd.HookEvent) (tusd.HTTPResponse, error) {
	ctx := detach(ev.Context)
	upload, err := t.composer.Core.GetUpload(ctx, ev.Upload.ID)
	if err != nil {
		return tusd.HTTPResponse{}, tusError(s, ev, err)
	}
	f, err := s.finishTus(ctx, t, upload, ev.Upload, false)
	if err != nil {
		return tusd.HTTPResponse{}, tusError(s, ev, err)
	}
	if _, sender := requestSender(ctx); sender {
		// A sender learns nothing of the owner's file: it has no public
		// link, and its page is the owner's.
		return tusd.HTTPResponse{}, nil
	}
	return tusd.HTTPResponse{Header: s.finishedHeaders(f)}, nil
}

// finishedHeaders are the response headers that name the file a tus upload
// became.
func (s *Server) finishedHeaders(f fileframe.File) tusd.HTTPHeader {
	return tusd.HTTPHeader{
		headerFileID:   string(f.ID),
		headerFileURL:  s.publicURL(f.URL()),
		headerFilePage: filePagePath(f.ID),
	}
}

// finishTus makes the complete tus upload (info, upload) its file: it puts
// the bytes in the blob store (a link of the upload's data where the blob
// store can adopt it, else a copy), then stores the file in place of the
// upload's reservation (checking the quota again) together with the
// upload's record, in one step of the store (service.NewFile.Upload), and
// only then removes the upload. Its caller holds the upload's lock.
//
// A crash at any point leaves a state that the next HEAD or PATCH settles
// exactly once (settleTus): before the commit, a complete upload without
// a record, whose data is still whole (a blob already put is put again at
// the cost of a read: it is content-addressed); after it, a record, and
// what is left of the upload is removed then. An upload refused for good
// (a 4xx: the quota, the name) is removed and its reservation released: the
// client must start again. A failure of the server's own (a 5xx: the store,
// the disk, a request that took the lock) keeps it whole, for the next
// HEAD or PATCH to finish. recovering is set when the upload's finish is
// being done again: on S3 the multipart upload may not be completed yet.
func (s *Server) finishTus(ctx context.Context, t *tusUploads, upload tusd.Upload, info tusd.FileInfo, recovering bool) (fileframe.File, error) {
	a, ok := uploader(ctx)
	if !ok {
		return fileframe.File{}, errTusSignIn
	}
	nf := service.NewFile{Account: a, Name: tusName(info.MetaData), Size: info.Size, Reservation: reservationID(info.ID),
		Link: keptTusLink(info.MetaData), Upload: info.ID}
	// An upload sent through a file request is finished only by its
	// sender's visit (GetUpload checked it), and becomes the request's.
	from, sender := requestSender(ctx)
	if sender != (info.MetaData[tusKeptRequest] != "") {
		return fileframe.File{}, fileframe.Errorf(fileframe.ENOTFOUND, "There is no such upload.")
	}
	if sender {
		nf.Link = service.LinkChange{}
		nf.From = &service.Sender{Request: from.Request, Visit: from.Visit,
			Name: info.MetaData[tusKeptSenderName], Email: info.MetaData[tusKeptSenderEmail]}
	}
	var f fileframe.File
	var err error
	if path, ok := s.adoptable(info); ok {
		// The upload's bytes are a file on the blob store's own disk:
		// linked into the store, not written a second time. Terminate
		// then removes the upload's own name of them.
		f, err = s.svc.AdoptFile(ctx, nf, path)
	} else {
		var body io.ReadCloser
		body, err = upload.GetReader(ctx)
		if err != nil && recovering {
			// s3store reads a complete upload only once its multipart
			// upload is completed, which a crash may have cut.
			if ferr := upload.FinishUpload(ctx); ferr == nil {
				body, err = upload.GetReader(ctx)
			}
		}
		if err != nil {
			return fileframe.File{}, err
		}
		defer body.Close()
		// Storing takes a while for a large file (on S3, a copy through
		// this process): each read pushes the deadlines that tusd set after
		// the last byte arrived, so that the answer can still be written.
		var content io.Reader = body
		if rc, ok := ctx.Value(responseKey{}).(*http.ResponseController); ok {
			content = readDeadlineReader{r: body, rc: rc, idle: s.cfg.UploadIdleTimeout}
		}
		nf.Body = content
		f, err = s.svc.AddFile(ctx, nf)
	}
	if err == nil || refusedForGood(ctx, err) {
		// Terminate also releases the reservation (detachedTermination),
		// which the file replaced if it was stored.
		s.terminateTus(ctx, t, upload, info.ID)
	}
	return f, err
}

// refusedForGood reports whether finishing a tus upload failed with a
// refusal that another try would meet again (a 4xx: the quota, the name,
// the link's settings), not with a failure of the server's own or an
// interruption. Reading a stored upload's bytes that fails is the store's
// failure, though AddFile, which reads a client's bytes elsewhere, calls
// it an incomplete upload or a timeout.
func refusedForGood(ctx context.Context, err error) bool {
	code, k := kindOf(err)
	return ctx.Err() == nil && k.status < 500 &&
		code != fileframe.CodeUploadIncomplete && code != fileframe.CodeRequestTimeout
}

// terminateTus removes a tus upload that became its file or was refused,
// and releases its reservation; a failure is logged (what is left is
// removed after a day unused, or by the next HEAD or PATCH of a finished
// upload).
func (s *Server) terminateTus(ctx context.Context, t *tusUploads, upload tusd.Upload, id string) {
	if err := t.composer.Terminater.AsTerminatableUpload(upload).Terminate(context.WithoutCancel(ctx)); err != nil {
		s.log.Warn("upload: removing a finished tus upload", "upload", id, "err", err)
	}
}

// adoptable returns the path of a finished upload's bytes when the blob
// store can adopt that file: the upload is in tusd's filestore (in
// Config.UploadDir, beside the blobs in the data directory) and the blob
// store is on disk.
func (s *Server) adoptable(info tusd.FileInfo) (string, bool) {
	path := info.Storage["Path"]
	if !s.svc.CanAdopt() || info.Storage["Type"] != "filestore" || path == "" {
		return "", false
	}
	return path, true
}

// filePagePath is the file's page in the application.
func filePagePath(id fileframe.FileID) string { return "/files/" + string(id) }

// tusError turns err into a tus error response: an upload error's message
// with its status, or a 500 that says nothing of the cause, which is logged.
func tusError(s *Server, ev tusd.HookEvent, err error) error { return tusErr(s, ev.Upload.ID, err) }

// tusErr is tusError for the upload id.
func tusErr(s *Server, id string, err error) error {
	var te tusd.Error
	if errors.As(err, &te) {
		return te // tusd's own (its lock, its store)
	}
	code, k := kindOf(err)
	status := k.status
	if code == fileframe.EINTERNAL {
		s.log.Error("upload: tus upload failed", "upload", id, "err", err)
		return tusd.NewError("ERR_INTERNAL", "The upload could not be stored. Please try again in a moment.", status)
	}
	s.noteOutage(context.Background(), "tus upload "+id, code, err)
	answer := tusd.NewError("ERR_"+strings.ToUpper(code), fileframe.ErrorMessage(err), status)
	if retryLater(code) {
		answer.HTTPResponse.Header = tusd.HTTPHeader{"Retry-After": busyRetryAfter}
	}
	return answer
}

// tusLog passes tusd's warnings and errors to the server's log. tusd logs
// through golang.org/x/exp/slog, whose types differ from log/slog's; its
// Info records (one per request) are dropped, the access log covers them.
type tusLog struct{ h slog.Handler }

func (t tusLog) Enabled(ctx context.Context, l xslog.Level) bool {
	return l >= xslog.LevelWarn && t.h.Enabled(ctx, slog.Level(l))
}

func (t tusLog) Handle(ctx context.Context, r xslog.Record) error {
	level := slog.Level(r.Level)
	if b, ok := ctx.Value(clientBodyKey{}).(*clientBodyReader); ok && b.failed() != nil && level > slog.LevelInfo {
		// The client's fault (clientBodyReader): not the server's error.
		level = slog.LevelInfo
		if !t.h.Enabled(ctx, level) {
			return nil
		}
	}
	rec := slog.NewRecord(r.Time, level, "tusd: "+r.Message, r.PC)
	r.Attrs(func(a xslog.Attr) bool {
		rec.AddAttrs(slog.Any(a.Key, a.Value.Any()))
		return true
	})
	return t.h.Handle(ctx, rec)
}

func (t tusLog) WithAttrs(as []xslog.Attr) xslog.Handler {
	attrs := make([]slog.Attr, len(as))
	for i, a := range as {
		attrs[i] = slog.Any(a.Key, a.Value.Any())
	}
	return tusLog{t.h.WithAttrs(attrs)}
}

func (t tusLog) WithGroup(name string) xslog.Handler { return tusLog{t.h.WithGroup(name)} }

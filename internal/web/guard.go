package web

import (
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// appFunc is a handler of the web application. It runs with the request's
// session, which its route's guard has checked: non-nil on every route that
// needs one, and on the others nil for a visitor who is signed out.
type appFunc func(w http.ResponseWriter, r *http.Request, user *signedIn)

// guard is what a route of the application requires before its handler
// runs. routes.go names one for every route and guard.wrap enforces it, so
// that no handler checks a session, a CSRF token, a plan or the admin flag
// by itself, and none can forget to. In the order they are checked:
//
//  1. while no account exists, every application page leads to /setup;
//  2. the session (a cookie; cheap): signed out goes to /login, or gets
//     the ordinary 404 where a redirect makes no sense (an image, a frame);
//  3. the body of a form, read within its cap (body), after step 4;
//  4. the administrator flag (others get the ordinary 404, so that the
//     admin pages cannot be told from missing ones);
//  5. for a state change, the cross-origin protection (Sec-Fetch-Site,
//     Origin) and the form's CSRF token: 403 "This form expired";
//  6. the plan (403): Agency for custom pages and keys, Pro (or Agency)
//     for appearances.
type guard struct {
	// name is how routes.go and TestRouteGuards call it.
	name string
	// session says whether a signed-in session is needed, and how a
	// signed-out visitor is answered.
	session sessionNeed
	// form: a state change, which needs the cross-origin protection and
	// the form's CSRF token (bound to the session, or the anonymous
	// double-submit token when there is none).
	form bool
	// admin: an administrator's account.
	admin bool
	// agency: an account on the Agency plan (custom pages and keys);
	// pro: on the Pro or the Agency plan (appearances).
	agency, pro bool
	// body is how the request's form is read.
	body bodyKind
	// setup: the one-time setup screen, the one page that works while no
	// account exists, and only then (404 once one does).
	setup bool
}

// sessionNeed is a guard's need of a session.
type sessionNeed int

const (
	// anyone: signed in or not; the handler gets nil when not.
	anyone sessionNeed = iota
	// loginFirst: signed out goes to /login.
	loginFirst
	// hidden: signed out gets the ordinary 404 (images and frames of the
	// editors, which must not redirect).
	hidden
)

// bodyKind is how a guard reads a request's form before its CSRF token.
type bodyKind int

const (
	// smallForm: an urlencoded form of at most maxFormBody.
	smallForm bodyKind = iota
	// pageBody: the custom page form, multipart with an .html file or
	// pasted HTML, within maxPageForm (a body over it gets 413).
	pageBody
	// imageBody: an appearance form, multipart with images, within
	// maxAppearanceForm (a body over it gets 413).
	imageBody
	// streamed: a multipart body whose first part must be the CSRF token
	// ("csrf"); the guard reads that part alone and leaves the others to
	// the handler to stream (streamedForm), with the upload's deadlines
	// (the upload form without JavaScript).
	streamed
)

// The guards of routes.go's groups.
var (
	// visitor: an application page for anyone (sign-in, sign-up).
	visitor = guard{name: "visitor", session: anyone}
	// visitorForm: a form for anyone (sign-in, sign-up), with the
	// anonymous CSRF token.
	visitorForm = guard{name: "visitor form", session: anyone, form: true}
	// ownerPage: a page of a signed-in account.
	ownerPage = guard{name: "session", session: loginFirst}
	// ownerHidden: an image or frame of a signed-in account's editor.
	ownerHidden = guard{name: "session (404 when signed out)", session: hidden}
	// ownerForm: a state change of a signed-in account.
	ownerForm = guard{name: "session + CSRF", session: loginFirst, form: true}
	// ownerUpload: an upload of a signed-in account, whose CSRF token is
	// the first part of its streamed body.
	ownerUpload = guard{name: "session + CSRF in the body", session: loginFirst, form: true, body: streamed}
	// agencyForm: a state change of custom pages and keys.
	agencyForm = guard{name: "agency", session: loginFirst, form: true, agency: true}
	// setupScreen: the one-time setup screen, page and form.
	setupScreen = guard{name: "setup", session: anyone, form: true, setup: true}
	// proForm and proHidden: the appearance editors' forms, and their
	// live preview.
	proForm   = guard{name: "pro", session: loginFirst, form: true, pro: true, body: imageBody}
	proHidden = guard{name: "pro (404 when signed out)", session: hidden, pro: true}
	// adminOnly and adminOnlyForm: the administrators' pages and forms.
	adminOnly     = guard{name: "admin", session: loginFirst, admin: true}
	adminOnlyForm = guard{name: "admin + CSRF", session: loginFirst, admin: true, form: true}
)

// with returns g reading its form as body.
func (g guard) with(body bodyKind) guard {
	g.body = body
	return g
}

// wrap returns h behind g: a handler that answers itself when a check
// fails, and otherwise calls h with the session.
func (s *Server) wrap(g guard, h appFunc) http.Handler {
	var inner http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := s.store.CountAccounts(r.Context())
		switch {
		case err != nil:
			s.appError(w, r, nil, err)
			return
		case g.setup && n > 0:
			s.appError(w, r, nil, failure(fileframe.ENOTFOUND, "Not found", "Fileframe is already set up. Sign in instead."))
			return
		case !g.setup && n == 0:
			appRedirect(w, r, "/setup")
			return
		}
		var user *signedIn
		if !g.setup {
			if user, err = s.currentSession(w, r); err != nil {
				s.appError(w, r, nil, err)
				return
			}
		}
		if user != nil && g.session == anyone && !g.setup {
			// A visitor's page or form (sign-in, sign-up) only sends a
			// signed-in browser on to its files: nothing to check.
			h(w, r, user)
			return
		}
		if user == nil {
			switch g.session {
			case loginFirst:
				appRedirect(w, r, "/login")
				return
			case hidden:
				s.publicError(w, r, errPageNotFound)
				return
			}
		}
		if g.admin && !user.account.Admin {
			s.publicError(w, r, errPageNotFound)
			return
		}
		if g.form && r.Method != http.MethodGet && r.Method != http.MethodHead {
			if g.body == streamed {
				var ok bool
				if r, ok = s.streamedCSRF(w, r, user); !ok {
					s.appError(w, r, user, errFormExpired)
					return
				}
			} else {
				if !s.readForm(w, r, user, g.body) {
					return
				}
				if !s.checkCSRF(r, user) {
					s.appError(w, r, user, errFormExpired)
					return
				}
			}
		}
		if g.pro && !user.account.Plan.Templates() {
			s.appError(w, r, user, failure(fileframe.CodePlanRequired, "Appearances need the Pro plan",
				"Your account is on the Free plan, so its download pages use the neutral default page. The person who runs this Fileframe sets plans."))
			return
		}
		if g.agency && !user.account.Plan.CustomPages() {
			s.appError(w, r, user, failure(fileframe.CodePlanRequired, "Custom pages need the Agency plan",
				"Your account is not on the Agency plan, so it cannot change custom pages or create API keys. The person who runs this Fileframe sets plans."))
			return
		}
		h(w, r, user)
	})
	if g.form {
		inner = s.crossOrigin(inner)
	}
	return inner
}

// checkCSRF checks a form's CSRF token: bound to the session, or the
// anonymous double-submit token for a signed-out visitor.
func (s *Server) checkCSRF(r *http.Request, user *signedIn) bool {
	if user == nil {
		return s.checkAnonCSRF(r)
	}
	return s.checkSessionCSRF(r, user)
}

// readForm reads the form of r as body says, within its cap; when that
// fails it answers (400, or 413 for a body over the cap) and returns false.
func (s *Server) readForm(w http.ResponseWriter, r *http.Request, user *signedIn, body bodyKind) bool {
	var err error
	switch body {
	case streamed:
		return true
	case pageBody, imageBody:
		max := int64(maxPageForm)
		if body == imageBody {
			max = maxAppearanceForm
		}
		r.Body = http.MaxBytesReader(w, s.idleBody(w, r.Body), max)
		err = r.ParseMultipartForm(max)
		if errors.Is(err, http.ErrNotMultipart) {
			err = r.ParseForm()
		} else if err == nil {
			context.AfterFunc(r.Context(), func() { r.MultipartForm.RemoveAll() })
		}
	default:
		r.Body = http.MaxBytesReader(w, s.idleBody(w, r.Body), maxFormBody)
		err = r.ParseForm()
	}
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return true
	case errors.As(err, &tooBig) && body == pageBody:
		s.appError(w, r, user, failure(fileframe.CodeBodyTooLarge, "The page is too large",
			"A custom page can be at most "+maxHTMLText+". Make it smaller (shrink inlined images, drop unused CSS) and try again."))
	case errors.As(err, &tooBig) && body == imageBody:
		s.appError(w, r, user, failure(fileframe.CodeBodyTooLarge, "The form could not be read",
			"The form could not be read. Images can be at most "+maxImageLabel+" each; go back, choose smaller ones and try again."))
	case stalled(err):
		s.appError(w, r, user, failure(fileframe.CodeRequestTimeout, "The form stopped arriving",
			"No part of the form arrived for too long, so the server stopped waiting. Reload the page and try again."))
	case errors.As(err, &tooBig):
		s.appError(w, r, user, failure(fileframe.CodeBodyTooLarge, "The form is too large",
			"The form is larger than any of its fields can be. Reload the page and try again."))
	default:
		s.appError(w, r, user, failure(fileframe.CodeInvalidField, "The form could not be read",
			"The form could not be read. Reload the page and try again."))
	}
	return false
}

// streamedFormKey is the context key of a streamed form's parts after its
// CSRF token (streamedForm).
type streamedFormKey struct{}

// streamedCSRF reads the first part of a streamed multipart form, which
// must be the session's CSRF token, and returns r with the reader of the
// parts after it; false when the token is missing, not first or wrong.
func (s *Server) streamedCSRF(w http.ResponseWriter, r *http.Request, user *signedIn) (*http.Request, bool) {
	mr, err := multipartReader(r, s.uploadBody(w, r.Body))
	if err != nil {
		return r, false
	}
	part, err := mr.NextPart()
	if err != nil || part.FormName() != "csrf" {
		return r, false
	}
	token, _ := io.ReadAll(io.LimitReader(part, 128))
	if !verifyCSRF(s.csrfKey(), "session:"+user.session.Hash, string(token)) {
		return r, false
	}
	return r.WithContext(context.WithValue(r.Context(), streamedFormKey{}, mr)), true
}

// streamedForm returns the parts of a streamed form after its CSRF token.
func streamedForm(r *http.Request) *multipart.Reader {
	return r.Context().Value(streamedFormKey{}).(*multipart.Reader)
}

// appHostOnly answers only requests whose Host is the app origin's (the
// base URL's host, in any case, with or without a final dot or the
// scheme's default port). A page that a DNS-rebinding attack points at
// this server under another name would otherwise be same-origin with it,
// past every CSRF defence: it could, on a fresh instance, complete the
// setup screen and make itself the administrator. A GET or HEAD under
// another name is redirected to the app origin, so that a person who typed
// another name for the machine lands on the right one and a script reads
// nothing; anything else gets 421 Misdirected Request. The operations
// endpoints answer under any name: load balancers and probes address an
// instance by its own address.
func (s *Server) appHostOnly(next http.Handler) http.Handler {
	want := canonicalHost(s.cfg.BaseURL.Scheme, s.cfg.BaseURL.Host)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sameHost(s.cfg.BaseURL.Scheme, r.Host, want) ||
			r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || r.URL.Path == "/metrics" {
			next.ServeHTTP(w, r)
			return
		}
		// In a method of its own, so that its frame is not on the stack
		// of every request (publicFile says why that matters).
		s.misdirected(w, r)
	})
}

// misdirected answers a request for another host than the app origin's: a
// GET or HEAD is sent to the same path there, anything else refused.
func (s *Server) misdirected(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, s.publicURL(r.URL.EscapedPath())+queryOf(r), http.StatusPermanentRedirect)
		return
	}
	s.textError(w, r, fileframe.Errorf(fileframe.CodeMisdirected,
		"This server answers as %s only. Send the request there.", s.AppOrigin()))
}

// queryOf returns "?" and r's query, or "".
func queryOf(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return "?" + r.URL.RawQuery
}

// sameHost reports whether host is want, a canonicalHost of scheme, as
// browsers compare hosts. A Host header spelt as want, as nearly every
// one is, is not made again (net.JoinHostPort allocates).
func sameHost(scheme, host, want string) bool {
	return host == want || canonicalHost(scheme, host) == want
}

// canonicalHost returns host (a URL's or a Host header's host[:port]) as
// browsers compare it: lower-case, without a final dot, without the
// scheme's default port.
func canonicalHost(scheme, host string) string {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		// No port: an IPv6 address keeps its brackets ("[::1]"), which
		// are added back below.
		h, port = host, ""
		if len(h) > 1 && h[0] == '[' && h[len(h)-1] == ']' {
			h = h[1 : len(h)-1]
		}
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port == "" {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return net.JoinHostPort(h, port)
}

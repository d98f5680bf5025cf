package web

import (
	"net/http"
	"sync"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// appCSSURL is the address of static/app.css with its content hash.
var appCSSURL = sync.OnceValue(func() string {
	u, err := assetURL("app.css")
	if err != nil {
		panic(err) // the file is embedded; a test renders every page
	}
	return u
})

// appAssetURL returns the address of an embedded static file with its
// content hash; it panics for a file that is not embedded (a test renders
// every page).
func appAssetURL(name string) string {
	u, err := assetURL(name)
	if err != nil {
		panic(err)
	}
	return u
}

// appPage is the data of every app_*.html page.
type appPage struct {
	CSS string
	// Styles and Scripts are further stylesheets and (deferred) scripts of
	// the page, as appAssetURL addresses.
	Styles  []string
	Scripts []string
	Title   string
	// Email is the signed-in account's; empty when signed out.
	Email string
	CSRF  string
	// Form is what the person typed (never a password), Errors the
	// messages by field ("" for the form as a whole).
	Form   map[string]string
	Errors map[string]string
	Notice string
	Signup bool // open sign-up: the login page links to /signup
	// Account page.
	Plan     string
	Features []string
	Admin    bool
	// Error page.
	Status  int
	Message string
}

func (s *Server) newAppPage(title string, user *signedIn) appPage {
	p := appPage{CSS: appCSSURL(), Title: title, Signup: s.cfg.Signup, Form: map[string]string{}, Errors: map[string]string{}}
	if user != nil {
		p.Email, p.CSRF = user.account.Email, user.csrf
		p.Admin = user.account.Admin // the header links to /admin
	}
	return p
}

// renderApp writes an application page with its security headers; data is
// an appPage or a struct that embeds one. No application page may be stored
// by a cache: they carry CSRF tokens.
func (s *Server) renderApp(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	h := w.Header()
	s.setPageHeaders(h, s.hdr.appCSP)
	h.Set("Cache-Control", "no-store")
	if err := s.pages.render(w, r, status, name, data); err != nil {
		s.logFor(r).Error("app: rendering", "page", name, "err", err)
		http.Error(w, "Something went wrong.", http.StatusInternalServerError)
	}
}

// appRedirect answers with 303 See Other to a path of the app origin.
func appRedirect(w http.ResponseWriter, r *http.Request, path string) {
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// crossOrigin rejects cross-origin state-changing requests (Sec-Fetch-Site,
// else Origin against Host) before they reach the CSRF token check.
func (s *Server) crossOrigin(h http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	// A reverse proxy may rewrite Host; the public app origin is always
	// same-origin. AppOrigin is scheme://host[:port], which cannot fail.
	_ = cop.AddTrustedOrigin(s.AppOrigin())
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.appError(w, r, nil, errFormExpired)
	}))
	return cop.Handler(h)
}

// appHome serves GET /: the file list when signed in, else sign-in.
func (s *Server) appHome(w http.ResponseWriter, r *http.Request, user *signedIn) {
	// An agent that asks for the home page learns where the API is
	// described without following the redirect (RFC 8288); the pages
	// have the same link in their head and footer (app_layout.html).
	w.Header().Set("Link", `</llms.txt>; rel="help"; type="text/markdown"`)
	if user != nil {
		appRedirect(w, r, "/files")
		return
	}
	appRedirect(w, r, "/login")
}

// setup serves /setup: the one-time screen that creates the first account,
// an admin on Agency. Once an account exists it is not found (its guard,
// setupScreen, says so).
func (s *Server) setup(w http.ResponseWriter, r *http.Request, _ *signedIn) {
	ctx := r.Context()
	p := s.newAppPage("Set up Fileframe", nil)
	if r.Method != http.MethodPost {
		p.CSRF = s.anonCSRF(w, r)
		s.renderApp(w, r, http.StatusOK, "app_setup.html", p)
		return
	}
	p.CSRF = s.anonCSRF(w, r)
	p.Form["email"] = r.PostFormValue("email")
	if s.rateLimited(w, r, "app_setup.html", p, s.addressBucket(r, "app-setup")) {
		return
	}
	email, pw, ok := s.newCredentials(r, &p)
	if !ok {
		s.renderApp(w, r, http.StatusUnprocessableEntity, "app_setup.html", p)
		return
	}
	// Another setup form may have won since the count above, here or on
	// another instance: CreateFirstAccount decides atomically.
	acct, err := s.svc.CreateAccount(r.Context(), service.NewAccount{Email: email, Password: pw, Plan: fileframe.PlanAgency, Admin: true, First: true})
	if fileframe.ErrorCode(err) == fileframe.ECONFLICT {
		s.appError(w, r, nil, failure(fileframe.ENOTFOUND, "Not found",
			"Fileframe is already set up. Sign in instead."))
		return
	}
	if s.hashBusy(w, r, nil, err) {
		return
	}
	if err != nil {
		s.appError(w, r, nil, err)
		return
	}
	if err := s.startSession(ctx, w, acct); err != nil {
		s.appError(w, r, nil, err)
		return
	}
	appRedirect(w, r, "/files")
}

// newCredentials reads and checks the email and new password of the setup
// and sign-up forms, recording what was typed and the errors in p.
func (s *Server) newCredentials(r *http.Request, p *appPage) (email, pw string, ok bool) {
	email, msg := parseEmail(r.PostFormValue("email"))
	p.Form["email"] = r.PostFormValue("email")
	if msg != "" {
		p.Errors["email"] = msg
	}
	pw = r.PostFormValue("password")
	if err := service.CheckPassword(pw); err != nil {
		p.Errors["password"] = fileframe.ErrorMessage(err)
	}
	return email, pw, len(p.Errors) == 0
}

// signup serves /signup: open sign-up of Free accounts, when the operator
// allows it.
func (s *Server) signup(w http.ResponseWriter, r *http.Request, user *signedIn) {
	if user != nil {
		appRedirect(w, r, "/files")
		return
	}
	p := s.newAppPage("Create your account", nil)
	if !s.cfg.Signup {
		status := http.StatusOK
		if r.Method == http.MethodPost {
			status = http.StatusForbidden
		}
		s.renderApp(w, r, status, "app_signup_closed.html", p)
		return
	}
	if r.Method != http.MethodPost {
		p.CSRF = s.anonCSRF(w, r)
		s.renderApp(w, r, http.StatusOK, "app_signup.html", p)
		return
	}
	p.CSRF = s.anonCSRF(w, r)
	p.Form["email"] = r.PostFormValue("email")
	if s.rateLimited(w, r, "app_signup.html", p, s.addressBucket(r, "app-signup")) {
		return
	}
	email, pw, ok := s.newCredentials(r, &p)
	if !ok {
		s.renderApp(w, r, http.StatusUnprocessableEntity, "app_signup.html", p)
		return
	}
	acct, err := s.svc.CreateAccount(r.Context(), service.NewAccount{Email: email, Password: pw, Plan: fileframe.PlanFree})
	if fileframe.ErrorCode(err) == fileframe.ECONFLICT {
		p.Errors["email"] = "An account with this email already exists. Sign in instead."
		s.renderApp(w, r, http.StatusConflict, "app_signup.html", p)
		return
	}
	if s.hashBusy(w, r, nil, err) {
		return
	}
	if err != nil {
		s.appError(w, r, nil, err)
		return
	}
	if err := s.startSession(r.Context(), w, acct); err != nil {
		s.appError(w, r, nil, err)
		return
	}
	appRedirect(w, r, "/files")
}

// errBadLogin is the one answer to a wrong email or password, so that the
// form never tells which was wrong.
const errBadLogin = "That email and password do not match an account."

// login serves /login.
func (s *Server) login(w http.ResponseWriter, r *http.Request, user *signedIn) {
	if user != nil {
		appRedirect(w, r, "/files")
		return
	}
	p := s.newAppPage("Sign in", nil)
	if r.Method != http.MethodPost {
		p.CSRF = s.anonCSRF(w, r)
		s.renderApp(w, r, http.StatusOK, "app_login.html", p)
		return
	}
	p.CSRF = s.anonCSRF(w, r)
	p.Form["email"] = r.PostFormValue("email")
	email, msg := parseEmail(r.PostFormValue("email"))
	if s.rateLimited(w, r, "app_login.html", p, s.loginBuckets(r, email)...) {
		return
	}
	pw := r.PostFormValue("password")
	if msg != "" || pw == "" || len(pw) > service.MaxPasswordBytes {
		if msg != "" {
			p.Errors["email"] = msg
		}
		if pw == "" {
			p.Errors["password"] = "Enter your password."
		} else if len(pw) > service.MaxPasswordBytes {
			p.Errors[""] = errBadLogin
		}
		s.renderApp(w, r, http.StatusUnprocessableEntity, "app_login.html", p)
		return
	}
	acct, err := s.store.AccountByEmail(r.Context(), email)
	if err != nil && !fileframe.IsNotFound(err) {
		s.appError(w, r, nil, err)
		return
	}
	hash := acct.PasswordHash
	if err != nil || hash == "" {
		hash = s.decoy
	}
	match, verr := s.passwords.Verify(r.Context(), pw, hash)
	if s.hashBusy(w, r, nil, verr) {
		return
	}
	if verr != nil {
		// A malformed stored hash, or one costlier than the whole budget
		// (password.ErrTooCostly): the operator must act; to the person
		// it is a wrong password.
		s.logFor(r).Error("app: verifying a password", "err", verr)
	}
	if err != nil || acct.PasswordHash == "" || !match {
		p.Errors[""] = errBadLogin
		s.renderApp(w, r, http.StatusUnauthorized, "app_login.html", p)
		return
	}
	if acct.Disabled {
		p.Errors[""] = "This account is disabled. Contact the person who runs this Fileframe."
		s.renderApp(w, r, http.StatusForbidden, "app_login.html", p)
		return
	}
	if err := s.startSession(r.Context(), w, acct); err != nil {
		s.appError(w, r, nil, err)
		return
	}
	appRedirect(w, r, "/files")
}

// logout serves POST /logout.
func (s *Server) logout(w http.ResponseWriter, r *http.Request, user *signedIn) {
	if err := s.store.DeleteSession(r.Context(), user.session.Hash); err != nil {
		s.appError(w, r, user, err)
		return
	}
	s.setCookie(w, s.sessionCookieName(), "", -1)
	appRedirect(w, r, "/login")
}

// planFeatures says what a plan gives.
func planFeatures(p fileframe.Plan) []string {
	f := []string{"Upload files and share them with a link"}
	if p.Templates() {
		f = append(f, "Template appearances and your own branding on download pages")
	}
	if p.CustomPages() {
		f = append(f, "Custom pages for your files", "API keys")
	}
	return f
}

var planNames = map[fileframe.Plan]string{
	fileframe.PlanFree: "Free", fileframe.PlanPro: "Pro", fileframe.PlanAgency: "Agency",
}

// account serves GET /account.
func (s *Server) account(w http.ResponseWriter, r *http.Request, user *signedIn) {
	p := s.accountPage(user)
	if r.URL.Query().Get("password") == "changed" {
		p.Notice = "Your password was changed. Every other session of this account was signed out."
	}
	s.renderApp(w, r, http.StatusOK, "app_account.html", p)
}

func (s *Server) accountPage(user *signedIn) appPage {
	p := s.newAppPage("Your account", user)
	p.Plan = planNames[user.account.Plan]
	if p.Plan == "" {
		p.Plan = string(user.account.Plan)
	}
	p.Features = planFeatures(user.account.Plan)
	p.Admin = user.account.Admin
	return p
}

// changePassword serves POST /account/password: the current password and a
// new one. It ends the account's other sessions and keeps this one.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, user *signedIn) {
	p := s.accountPage(user)
	// Before the current password is hashed: a token per attempt.
	if s.rateLimited(w, r, "app_account.html", p, s.passwordChangeBuckets(r, user)...) {
		return
	}
	fields, err := s.svc.ChangePassword(r.Context(), user.account, r.PostFormValue("current"), r.PostFormValue("new"), user.session.Hash)
	if s.hashBusy(w, r, user, err) {
		return
	}
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	if len(fields) > 0 {
		p.Errors = fields
		s.renderApp(w, r, http.StatusUnprocessableEntity, "app_account.html", p)
		return
	}
	appRedirect(w, r, "/account?password=changed")
}

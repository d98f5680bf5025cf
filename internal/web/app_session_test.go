package web

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// appBrowser is a client of the application that keeps its cookies by hand
// (so that Secure cookies work over the test's plain http) and never
// follows redirects.
type appBrowser struct {
	e       *testEnv
	cookies map[string]string
	// rt sends the requests; nil means http.DefaultTransport.
	rt http.RoundTripper
}

func newAppBrowser(e *testEnv) *appBrowser { return &appBrowser{e: e, cookies: map[string]string{}} }

func (b *appBrowser) send(req *http.Request) (*http.Response, string) {
	b.e.t.Helper()
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	rt := b.rt
	if rt == nil {
		rt = http.DefaultTransport
	}
	resp, body := b.e.doVia(rt, req)
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	return resp, string(body)
}

func (b *appBrowser) get(path string) (*http.Response, string) {
	b.e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.e.app.URL+path, nil)
	if err != nil {
		b.e.t.Fatal(err)
	}
	return b.send(req)
}

// post sends a form; header adds name, value pairs.
func (b *appBrowser) post(path string, form url.Values, header ...string) (*http.Response, string) {
	b.e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.e.app.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return b.send(req)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// token loads the page at path and returns the CSRF token of its form.
func (b *appBrowser) token(path string) string {
	b.e.t.Helper()
	resp, body := b.get(path)
	m := csrfField.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		b.e.t.Fatalf("GET %s: status %d, no CSRF field:\n%s", path, resp.StatusCode, body)
	}
	return m[1]
}

// login signs in and fails the test unless it works.
func (b *appBrowser) login(email, pw string) {
	b.e.t.Helper()
	resp, body := b.post("/login", url.Values{"csrf": {b.token("/login")}, "email": {email}, "password": {pw}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/files" {
		b.e.t.Fatalf("login: got %d %q, want 303 to /files:\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
}

// signedIn reports whether GET /account shows the account page.
func (b *appBrowser) signedIn() bool {
	b.e.t.Helper()
	resp, _ := b.get("/account")
	return resp.StatusCode == http.StatusOK
}

const testPassword = "correct horse battery"

// hash hashes pw with the server's hasher, as the application would.
func (e *testEnv) hash(pw string) string {
	e.t.Helper()
	hash, err := e.srv.passwords.Hash(context.Background(), pw)
	if err != nil {
		e.t.Fatal(err)
	}
	return hash
}

// member creates an account with testPassword.
func (e *testEnv) member(email string, plan fileframe.Plan) fileframe.Account {
	e.t.Helper()
	hash := e.hash(testPassword)
	a, err := e.store.CreateAccount(context.Background(), fileframe.Account{Email: email, PasswordHash: hash, Plan: plan})
	if err != nil {
		e.t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

func TestAppSetupOnce(t *testing.T) {
	e := newTestEnv(t)
	b := newAppBrowser(e)
	for _, path := range []string{"/", "/login", "/account", "/signup"} {
		resp, _ := b.get(path)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/setup" {
			t.Errorf("GET %s before setup: got %d %q, want 303 to /setup", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	tok := b.token("/setup")
	resp, body := b.post("/setup", url.Values{"csrf": {tok}, "email": {"admin@example.com"}, "password": {"short"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Passwords must be at least 10 characters.") {
		t.Fatalf("short password: got %d:\n%s", resp.StatusCode, body)
	}
	if !strings.Contains(body, `value="admin@example.com"`) {
		t.Errorf("the form lost the email")
	}
	resp, body = b.post("/setup", url.Values{"csrf": {tok}, "email": {"Admin@Example.com"}, "password": {testPassword}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/files" {
		t.Fatalf("setup: got %d %q:\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	a, err := e.store.AccountByEmail(context.Background(), "admin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if !a.Admin || a.Plan != fileframe.PlanAgency {
		t.Errorf("admin account: got admin %v plan %s, want admin on agency", a.Admin, a.Plan)
	}
	resp, body = b.get("/account")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "admin@example.com") || !strings.Contains(body, "Agency") || !strings.Contains(body, "API keys") {
		t.Errorf("account page after setup: got %d:\n%s", resp.StatusCode, body)
	}
	assertAppHeaders(t, resp)
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		req, _ := http.NewRequest(method, e.app.URL+"/setup", strings.NewReader(url.Values{"csrf": {tok}, "email": {"x@example.com"}, "password": {testPassword}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, _ := newAppBrowser(e).send(req)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s /setup after setup: got %d, want 404", method, resp.StatusCode)
		}
	}
	if n, _ := e.store.CountAccounts(context.Background()); n != 1 {
		t.Errorf("accounts: got %d, want 1", n)
	}
}

func assertAppHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	// The policy itself is appCSP's; what matters here is that no page
	// lets inline code run, posts elsewhere or can be framed.
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self';", "style-src 'self';", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("Content-Security-Policy %q allows something unsafe", csp)
	}
	for k, want := range map[string]string{
		"X-Frame-Options":        "DENY",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"Cache-Control":          "no-store",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: got %q, want %q", k, got, want)
		}
	}
}

func TestAppSignup(t *testing.T) {
	for _, tt := range []struct {
		name string
		open bool
	}{{"open", true}, {"closed", false}} {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, func(c *Config) { c.Signup = tt.open })
			e.member("admin@example.com", fileframe.PlanAgency)
			b := newAppBrowser(e)
			_, login := b.get("/login")
			if got := strings.Contains(login, `href="/signup"`); got != tt.open {
				t.Errorf("login page links to sign-up: got %v, want %v", got, tt.open)
			}
			resp, body := b.get("/signup")
			if !tt.open {
				if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Sign-up is closed") {
					t.Errorf("GET /signup closed: got %d:\n%s", resp.StatusCode, body)
				}
				tok := b.token("/login")
				resp, _ := b.post("/signup", url.Values{"csrf": {tok}, "email": {"new@example.com"}, "password": {testPassword}})
				if resp.StatusCode != http.StatusForbidden {
					t.Errorf("POST /signup closed: got %d, want 403", resp.StatusCode)
				}
				if _, err := e.store.AccountByEmail(context.Background(), "new@example.com"); !fileframe.IsNotFound(err) {
					t.Errorf("closed sign-up made an account: %v", err)
				}
				return
			}
			tok := b.token("/signup")
			resp, body = b.post("/signup", url.Values{"csrf": {tok}, "email": {"admin@example.com"}, "password": {testPassword}})
			if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "already exists") {
				t.Errorf("taken email: got %d:\n%s", resp.StatusCode, body)
			}
			resp, body = b.post("/signup", url.Values{"csrf": {tok}, "email": {"not an email"}, "password": {testPassword}})
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Enter an email address like") {
				t.Errorf("bad email: got %d:\n%s", resp.StatusCode, body)
			}
			resp, body = b.post("/signup", url.Values{"csrf": {tok}, "email": {"new@example.com"}, "password": {testPassword}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("sign-up: got %d:\n%s", resp.StatusCode, body)
			}
			a, err := e.store.AccountByEmail(context.Background(), "new@example.com")
			if err != nil || a.Plan != fileframe.PlanFree || a.Admin {
				t.Errorf("new account: got %+v, %v; want a Free non-admin", a, err)
			}
			if !b.signedIn() {
				t.Errorf("sign-up did not sign in")
			}
		})
	}
}

func TestAppLoginCookie(t *testing.T) {
	for _, tt := range []struct {
		name, base, cookie string
		secure             bool
	}{
		{"http", "", "ff_session", false},
		{"https", "https://files.example.com", "__Host-ff_session", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, func(c *Config) {
				if tt.base != "" {
					c.BaseURL, _ = url.Parse(tt.base)
				}
			})
			e.member("a@example.com", fileframe.PlanFree)
			b := newAppBrowser(e)
			tok := b.token("/login")
			resp, body := b.post("/login", url.Values{"csrf": {tok}, "email": {"A@example.com"}, "password": {testPassword}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("login: got %d:\n%s", resp.StatusCode, body)
			}
			var c *http.Cookie
			for _, x := range resp.Cookies() {
				if x.Name == tt.cookie {
					c = x
				}
			}
			if c == nil {
				t.Fatalf("no %s cookie in %q", tt.cookie, resp.Header.Values("Set-Cookie"))
			}
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure != tt.secure || len(c.Value) < 43 {
				t.Errorf("cookie: got %+v, want HttpOnly, SameSite=Lax, Path=/, Secure %v, a 43-character token", c, tt.secure)
			}
			if _, err := e.store.SessionByHash(context.Background(), c.Value); err == nil {
				t.Errorf("the store holds the token itself, not its hash")
			}
			if _, err := e.store.SessionByHash(context.Background(), fileframe.HashKey(c.Value)); err != nil {
				t.Errorf("SessionByHash(hash of the cookie): %v", err)
			}
			if !b.signedIn() {
				t.Errorf("not signed in after login")
			}
		})
	}
}

func TestAppLoginErrors(t *testing.T) {
	e := newTestEnv(t)
	e.member("a@example.com", fileframe.PlanFree)
	disabled := e.member("off@example.com", fileframe.PlanFree)
	if err := e.store.SetAccountDisabled(context.Background(), disabled.ID, true); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, email, pw string
		status          int
		want            string
	}{
		{"wrong password", "a@example.com", "wrong password!", http.StatusUnauthorized, errBadLogin},
		{"unknown email", "nobody@example.com", testPassword, http.StatusUnauthorized, errBadLogin},
		{"no password", "a@example.com", "", http.StatusUnprocessableEntity, "Enter your password."},
		{"disabled", "off@example.com", testPassword, http.StatusForbidden, "This account is disabled."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := newAppBrowser(e)
			resp, body := b.post("/login", url.Values{"csrf": {b.token("/login")}, "email": {tt.email}, "password": {tt.pw}})
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("got %d, want %d with %q:\n%s", resp.StatusCode, tt.status, tt.want, body)
			}
			if !strings.Contains(body, `value="`+tt.email+`"`) {
				t.Errorf("the form lost the email")
			}
			if b.signedIn() {
				t.Errorf("signed in")
			}
		})
	}
}

func TestAppDisabledSignedOut(t *testing.T) {
	e := newTestEnv(t)
	a := e.member("a@example.com", fileframe.PlanFree)
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	if err := e.store.SetAccountDisabled(context.Background(), a.ID, true); err != nil {
		t.Fatal(err)
	}
	resp, _ := b.get("/account")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("disabled account's /account: got %d %q, want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestAppLogout(t *testing.T) {
	e := newTestEnv(t)
	e.member("a@example.com", fileframe.PlanFree)
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	old := cloneCookies(b.cookies)
	tok := b.token("/account")
	resp, _ := b.post("/logout", url.Values{"csrf": {tok}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Fatalf("logout: got %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if b.signedIn() {
		t.Errorf("still signed in after logout")
	}
	replay := &appBrowser{e: e, cookies: old}
	if replay.signedIn() {
		t.Errorf("the old cookie still works after logout")
	}
}

func cloneCookies(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func TestAppChangePassword(t *testing.T) {
	e := newTestEnv(t)
	e.member("a@example.com", fileframe.PlanPro)
	b, other := newAppBrowser(e), newAppBrowser(e)
	b.login("a@example.com", testPassword)
	other.login("a@example.com", testPassword)
	tok := b.token("/account")

	const next = "a brand new passphrase"
	for _, tt := range []struct {
		name, current, next, want string
	}{
		{"wrong current", "not my password", next, "Your current password is not right."},
		{"short new", testPassword, "short", "Passwords must be at least 10 characters."},
		{"long new", testPassword, strings.Repeat("x", 1025), "at most 1024 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := b.post("/account/password", url.Values{"csrf": {tok}, "current": {tt.current}, "new": {tt.next}})
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tt.want) {
				t.Errorf("got %d, want 422 with %q:\n%s", resp.StatusCode, tt.want, body)
			}
		})
	}
	resp, body := b.post("/account/password", url.Values{"csrf": {tok}, "current": {testPassword}, "new": {next}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("change: got %d:\n%s", resp.StatusCode, body)
	}
	_, body = b.get(resp.Header.Get("Location"))
	if !strings.Contains(body, "Your password was changed.") {
		t.Errorf("no notice after the change:\n%s", body)
	}
	if !b.signedIn() {
		t.Errorf("this session ended")
	}
	if other.signedIn() {
		t.Errorf("the other session survived the change")
	}
	fresh := newAppBrowser(e)
	resp, _ = fresh.post("/login", url.Values{"csrf": {fresh.token("/login")}, "email": {"a@example.com"}, "password": {testPassword}})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("old password: got %d, want 401", resp.StatusCode)
	}
	fresh.login("a@example.com", next)
}

func TestAppCSRF(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.Signup = true })
	e.member("a@example.com", fileframe.PlanFree)
	signed := newAppBrowser(e)
	signed.login("a@example.com", testPassword)
	good := signed.token("/account")
	for _, path := range []string{"/login", "/signup", "/logout", "/account/password"} {
		for _, tt := range []struct {
			name  string
			token string
		}{{"missing", ""}, {"wrong", strings.Repeat("A", 43)}, {"garbage", "x"}} {
			t.Run(path+"/"+tt.name, func(t *testing.T) {
				b := &appBrowser{e: e, cookies: cloneCookies(signed.cookies)}
				if path == "/login" || path == "/signup" {
					b = newAppBrowser(e)
					b.token(path)
				}
				form := url.Values{"email": {"b@example.com"}, "password": {testPassword}, "current": {testPassword}, "new": {"another password"}}
				if tt.token != "" {
					form.Set("csrf", tt.token)
				}
				resp, body := b.post(path, form)
				if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "This form expired. Reload the page and try again.") {
					t.Errorf("got %d, want 403 with the expired-form message:\n%s", resp.StatusCode, body)
				}
			})
		}
	}
	// An anonymous token does not pass a signed-in form, nor another
	// session's token.
	anon := newAppBrowser(e).token("/login")
	resp, _ := signed.post("/logout", url.Values{"csrf": {anon}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("anonymous token on /logout: got %d, want 403", resp.StatusCode)
	}
	if !signed.signedIn() {
		t.Errorf("a rejected logout signed out")
	}
	// Setup, on a fresh instance.
	fresh := newTestEnv(t)
	b := newAppBrowser(fresh)
	b.token("/setup")
	resp, _ = b.post("/setup", url.Values{"email": {"x@example.com"}, "password": {testPassword}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("setup without a token: got %d, want 403", resp.StatusCode)
	}
	if good == "" {
		t.Fatal("no token")
	}
}

func TestAppCrossOrigin(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.Signup = true })
	e.member("a@example.com", fileframe.PlanFree)
	signed := newAppBrowser(e)
	signed.login("a@example.com", testPassword)
	tok := signed.token("/account")
	for _, hdr := range [][]string{{"Origin", "http://evil.test"}, {"Sec-Fetch-Site", "cross-site"}} {
		for _, path := range []string{"/login", "/signup", "/logout", "/account/password"} {
			t.Run(hdr[0]+path, func(t *testing.T) {
				b := &appBrowser{e: e, cookies: cloneCookies(signed.cookies)}
				form := url.Values{"csrf": {tok}, "current": {testPassword}, "new": {"another password"}}
				if path == "/login" || path == "/signup" {
					b = newAppBrowser(e)
					form = url.Values{"csrf": {b.token(path)}, "email": {"a@example.com"}, "password": {testPassword}}
				}
				resp, _ := b.post(path, form, hdr...)
				if resp.StatusCode != http.StatusForbidden {
					t.Errorf("got %d, want 403", resp.StatusCode)
				}
			})
		}
	}
	if !signed.signedIn() {
		t.Errorf("a cross-origin logout signed out")
	}
}

func TestAppRateLimit(t *testing.T) {
	for _, tt := range []struct {
		path   string
		status int // of an attempt within the burst
	}{
		{"/login", http.StatusUnauthorized},
		{"/signup", http.StatusUnprocessableEntity},
	} {
		t.Run(tt.path, func(t *testing.T) {
			e := newTestEnv(t, func(c *Config) { c.Login.Address, c.Signup = RateLimit{PerSecond: 1.0 / 60, Burst: 3}, true })
			e.member("a@example.com", fileframe.PlanFree)
			b := newAppBrowser(e)
			tok := b.token(tt.path)
			for i := range 3 {
				resp, _ := b.post(tt.path, url.Values{"csrf": {tok}, "email": {"a@example.com"}, "password": {"wrong"}})
				if resp.StatusCode != tt.status {
					t.Fatalf("attempt %d: got %d, want %d", i+1, resp.StatusCode, tt.status)
				}
			}
			resp, body := b.post(tt.path, url.Values{"csrf": {tok}, "email": {"a@example.com"}, "password": {testPassword}})
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("after the burst: got %d Retry-After %q, want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			if !strings.Contains(body, "Too many attempts") || !strings.Contains(body, `value="a@example.com"`) {
				t.Errorf("429 page: want the message and the typed email:\n%s", body)
			}
		})
	}
}

// emailLimiter refuses the per-email sign-in bucket of one email and lets
// everything else pass, so a test sees that bucket is asked for.
type emailLimiter struct{ refuse string }

func (l emailLimiter) Allow(_ context.Context, bucket string, _ float64, _ int, _ time.Time) (fileframe.RateDecision, error) {
	if bucket == l.refuse {
		return fileframe.RateDecision{RetryAfter: 30 * time.Second}, nil
	}
	return fileframe.RateDecision{Allowed: true}, nil
}

func TestAppRateLimitPerEmail(t *testing.T) {
	e := newTestEnv(t, func(c *Config) {
		c.RateLimiter = emailLimiter{refuse: "app-login-email:" + fileframe.HashKey("a@example.com")}
	})
	e.member("a@example.com", fileframe.PlanFree)
	e.member("b@example.com", fileframe.PlanFree)
	b := newAppBrowser(e)
	resp, _ := b.post("/login", url.Values{"csrf": {b.token("/login")}, "email": {"A@Example.com"}, "password": {testPassword}})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "30" {
		t.Errorf("limited email: got %d Retry-After %q, want 429 after 30", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	newAppBrowser(e).login("b@example.com", testPassword)
}

func TestAppSessionExpiry(t *testing.T) {
	clock := newFakeClock()
	e := newTestEnv(t, func(c *Config) { c.Now, c.SessionTTL = clock.Now, time.Hour })
	e.member("a@example.com", fileframe.PlanFree)
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	hash := fileframe.HashKey(b.cookies["ff_session"])
	// Activity slides the expiry: 50 minutes, then 50 more, stays in.
	for range 2 {
		clock.Advance(50 * time.Minute)
		if !b.signedIn() {
			t.Fatalf("signed out while active")
		}
	}
	s, err := e.store.SessionByHash(context.Background(), hash)
	if err != nil {
		t.Fatal(err)
	}
	if want := clock.Now().Add(time.Hour); !s.ExpiresAt.Equal(want) {
		t.Errorf("expires: got %v, want %v", s.ExpiresAt, want)
	}
	clock.Advance(time.Hour + time.Second)
	if b.signedIn() {
		t.Errorf("signed in after the session expired")
	}
}

func TestAppTouchAtMostOncePerMinute(t *testing.T) {
	clock := newFakeClock()
	e := newTestEnv(t, func(c *Config) { c.Now = clock.Now })
	e.member("a@example.com", fileframe.PlanFree)
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	hash := fileframe.HashKey(b.cookies["ff_session"])
	seen := func() time.Time {
		s, err := e.store.SessionByHash(context.Background(), hash)
		if err != nil {
			t.Fatal(err)
		}
		return s.LastSeenAt
	}
	b.signedIn() // the first request after login touches
	first := seen()
	for range 5 {
		clock.Advance(10 * time.Second)
		b.signedIn()
	}
	if got := seen(); !got.Equal(first) {
		t.Errorf("touched within the minute: last seen %v, then %v", first, got)
	}
	clock.Advance(20 * time.Second)
	b.signedIn()
	if got := seen(); !got.Equal(clock.Now()) {
		t.Errorf("not touched after a minute: got %v, want %v", got, clock.Now())
	}
}

func TestAppPagesRender(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.Signup = true })
	e.member("a@example.com", fileframe.PlanFree)
	b := newAppBrowser(e)
	for _, path := range []string{"/login", "/signup"} {
		resp, body := b.get(path)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "/static/app.css?v=") {
			t.Errorf("GET %s: got %d:\n%s", path, resp.StatusCode, body)
		}
		assertAppHeaders(t, resp)
	}
	resp, _ := b.get(appCSSURL())
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Errorf("app.css: got %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	b.login("a@example.com", testPassword)
	resp, _ = b.get("/")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/files" {
		t.Errorf("GET / signed in: got %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := b.get("/account")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /account signed in: got %d", resp.StatusCode)
	}
	for _, want := range []string{"Free", "Upload files", "Sign out", "Change password"} {
		if !strings.Contains(body, want) {
			t.Errorf("account page lacks %q", want)
		}
	}
	// The plan's feature list, not the header (whose "API keys" link every
	// signed-in account sees, to learn what Agency gives).
	start := strings.Index(body, `<ul class="features">`)
	if start < 0 {
		t.Fatalf("account page has no feature list")
	}
	features, _, _ := strings.Cut(body[start:], "</ul>")
	if strings.Contains(features, "API keys") {
		t.Errorf("a Free account's plan lists API keys: %s", features)
	}
	if !bytes.Contains([]byte(body), []byte("a@example.com")) {
		t.Errorf("header lacks the email")
	}
}

func FuzzVerifyCSRF(f *testing.F) {
	key := bytes.Repeat([]byte("k"), 32)
	good := signCSRF(key, "session:abc")
	f.Add("session:abc", good)
	f.Add("session:abc", "")
	f.Add("anon:x", strings.Repeat("A", 43))
	f.Add("", good)
	f.Fuzz(func(t *testing.T, binding, token string) {
		ok := verifyCSRF(key, binding, token)
		if ok && (binding == "" || token != signCSRF(key, binding)) {
			t.Errorf("verifyCSRF(%q, %q) accepted a token that is not the binding's", binding, token)
		}
		if binding != "" && !verifyCSRF(key, binding, signCSRF(key, binding)) {
			t.Errorf("verifyCSRF rejected the binding's own token")
		}
	})
}

// sessionsDownStore is the real store, except that reading a session fails
// as a database out of reach does while down is set.
type sessionsDownStore struct {
	fileframe.Store
	down *atomic.Bool
}

func (s sessionsDownStore) SessionByHash(ctx context.Context, hash string) (fileframe.Session, error) {
	if s.down.Load() {
		return fileframe.Session{}, fileframe.Errorf(fileframe.CodeUnavailable, "The database is out of reach just now.")
	}
	return s.Store.SessionByHash(ctx, hash)
}

// TestSessionStoreOutOfReach: a signed-in browser whose session cannot be
// read (the database out of reach) gets 503 with Retry-After on the
// application's pages and its tus uploads, not the sign-in page or a 401
// that tells an uploader to sign in; the session survives, and works again
// when the database does.
func TestSessionStoreOutOfReach(t *testing.T) {
	var down atomic.Bool
	e := newTestEnv(t, withUploads(t.TempDir()), func(c *Config) { c.Store = sessionsDownStore{Store: c.Store, down: &down} })
	e.member("a@example.com", fileframe.PlanAgency)
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)

	down.Store(true)
	resp, body := b.get("/files")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("GET /files with the sessions out of reach: %d, Retry-After %q:\n%s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	req, _ := http.NewRequest(http.MethodPost, e.app.URL+tusBasePath, nil)
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("Upload-Length", "10")
	resp, body = b.send(req)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("tus POST with the sessions out of reach: %d, Retry-After %q:\n%s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}

	down.Store(false)
	if !b.signedIn() {
		t.Errorf("signed out after the database came back")
	}
}

package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// csrfField finds the CSRF token of a rendered form.
var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// webClient is a browser-like client: it keeps cookies and does not follow
// redirects, so that a test sees where each answer sends it.
func webClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// webGet fetches a page of the application with the client's cookies.
func webGet(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// webPost submits a form of the page at page (which gives the CSRF token)
// to action, both on the instance app.
func webPost(t *testing.T, c *http.Client, app, page, action string, form url.Values) *http.Response {
	t.Helper()
	_, body := webGet(t, c, app+page)
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("GET %s%s: no CSRF token in the form:\n%s", app, page, body)
	}
	form.Set("csrf", m[1])
	resp, err := c.PostForm(app+action, form)
	if err != nil {
		t.Fatalf("POST %s%s: %v", app, action, err)
	}
	resp.Body.Close()
	return resp
}

// TestScaleOutSessions proves that web application sessions live in the
// shared database: signed in through instance A, a person is signed in on
// instance B too, and signing out on B ends the session on A at once.
func TestScaleOutSessions(t *testing.T) {
	t.Parallel()
	db := newTestDatabase(t)
	env := []string{"FILEFRAME_DATABASE_URL=" + db}
	cliJSONEnv(t, env, "account", "create", "--email", "owner@example.com", "--password", "correct horse battery", "--plan", "pro", "--data", t.TempDir())

	a := startServeEnv(t, env, t.TempDir())
	b := startServeEnv(t, env, t.TempDir())
	c := webClient(t)

	resp := webPost(t, c, a.app, "/login", "/login", url.Values{"email": {"owner@example.com"}, "password": {"correct horse battery"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in through A: %d, want 303", resp.StatusCode)
	}
	// The browser's cookie goes to B as a load balancer would send it.
	for _, p := range []*serveProc{b, a} {
		resp, body := webGet(t, c, p.app+"/account")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "owner@example.com") {
			t.Fatalf("GET /account on %s after signing in on A: %d, want 200 showing the account", p.app, resp.StatusCode)
		}
	}

	appURL, _ := url.Parse(a.app)
	signedIn := c.Jar.Cookies(appURL)
	if resp := webPost(t, c, b.app, "/account", "/logout", url.Values{}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out through B: %d, want 303", resp.StatusCode)
	}
	// The browser dropped its cookie; one that kept it (or a copy of it) is
	// refused on A all the same, because the session itself has ended.
	replay := webClient(t)
	replay.Jar.SetCookies(appURL, signedIn)
	resp, _ = webGet(t, replay, a.app+"/account")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("GET /account on A after signing out on B: %d to %q, want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}

	for _, p := range []*serveProc{a, b} {
		p.stop()
		p.checkJSONLogs()
	}
}

package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// linkPassword is the password the tests give links.
const linkPassword = "open sesame"

// cheapHashes makes the server hash with testHashParams, two at once.
func cheapHashes(t *testing.T) func(*Config) {
	return func(c *Config) { c.Passwords = boundedHasher(t, time.Second) }
}

// protect sets (or, with "", removes) the password of f's link, through
// the use case every surface calls, and what the link reveals.
func (e *testEnv) protect(a fileframe.Account, f fileframe.File, pw, reveal string) fileframe.File {
	e.t.Helper()
	f, err := e.srv.svc.SetLink(context.Background(), a, f.ID, service.LinkChange{Password: &pw, Reveal: &reveal})
	if err != nil {
		e.t.Fatalf("SetLink: %v", err)
	}
	return f
}

// unlock posts pw to the link's password form and returns the answer.
func (b *appBrowser) unlock(f fileframe.File, pw string) (*http.Response, string) {
	b.e.t.Helper()
	return b.post("/f/"+f.Slug+"/unlock", url.Values{"csrf": {b.token("/f/" + f.Slug)}, "password": {pw}})
}

var frameSrc = regexp.MustCompile(`<iframe class="ff-frame" src="([^"]+)"`)

// frameURL returns the address the outer page in body frames.
func frameURL(t *testing.T, body string) string {
	t.Helper()
	m := frameSrc.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no frame in the page:\n%s", body)
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// isPasswordPage reports whether body is a link's password page.
func isPasswordPage(body string) bool {
	return strings.Contains(body, `class="ff-lock-form"`)
}

// TestLinkPasswordPage: a protected link shows the service's password page,
// in the owner's appearance and never the custom page, whatever the public
// cache held; nothing behind it (download, images, the content origin)
// answers without the password.
func TestLinkPasswordPage(t *testing.T) {
	e := newTestEnv(t, cheapHashes(t))
	a, f := e.agencyFile("quarterly report.pdf", []byte("the secret bytes"))
	page := e.savePage(f, customHTML("CUSTOM-MARKER"), true)
	logo := pngImage(t)
	e.setAccountLook(a, fileframe.Appearance{Template: "card", Headline: "Northwind Studio", Accent: "#123456",
		LogoKey: e.putBlob(logo), Background: e.putBlob(pngImage(t))})
	// The public cache holds the unprotected page first.
	if resp, body := e.appGet("/f/" + f.Slug); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "ff-frame") {
		t.Fatalf("before the password: %d\n%s", resp.StatusCode, body)
	}
	f = e.protect(a, f, linkPassword, fileframe.RevealNothing)

	for _, method := range []string{http.MethodGet, http.MethodHead} {
		resp, raw := e.do(publicRequest(t, method, e.app.URL+"/f/"+f.Slug))
		body := string(raw)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "private, no-store" {
			t.Fatalf("%s: got %d, Cache-Control %q", method, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		if method == http.MethodHead {
			continue
		}
		if !isPasswordPage(body) {
			t.Fatalf("not the password page:\n%s", body)
		}
		for _, leak := range []string{"CUSTOM-MARKER", "ff-frame", "quarterly report", "16 B", "/download", e.content.URL} {
			if strings.Contains(body, leak) {
				t.Errorf("the password page shows %q:\n%s", leak, body)
			}
		}
		for _, want := range []string{"Northwind Studio", `src="data:image/png;base64,`, `data-template="card"`, "--tpl-accent:#123456",
			`name="csrf" value="`, `action="/f/` + f.Slug + `/unlock"`, `type="password"`} {
			if !strings.Contains(body, want) {
				t.Errorf("the password page lacks %q:\n%s", want, body)
			}
		}
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"form-action 'self'", "frame-src 'none'", "frame-ancestors 'none'", "script-src 'self'", "'sha256-"} {
			if !strings.Contains(csp, want) {
				t.Errorf("CSP %q lacks %q", csp, want)
			}
		}
		if resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("headers: %v", resp.Header)
		}
	}

	// What the link shows once the owner lets it reveal the file's name.
	f = e.protect(a, f, linkPassword, fileframe.RevealName)
	_, raw := e.appGet("/f/" + f.Slug)
	if body := string(raw); !isPasswordPage(body) || !strings.Contains(body, "quarterly report.pdf") || !strings.Contains(body, "16 B") ||
		strings.Contains(body, "CUSTOM-MARKER") {
		t.Errorf("the password page revealing the name:\n%s", body)
	}

	// Nothing behind the page, without the password.
	for _, path := range []string{"/download", "/logo", "/background"} {
		resp, body := e.appGet("/f/"+f.Slug+path, "Accept", "text/html,application/xhtml+xml")
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/f/"+f.Slug ||
			resp.Header.Get("Cache-Control") != "private, no-store" {
			t.Errorf("%s from a browser: got %d to %q (%q), want 303 to the password page", path, resp.StatusCode,
				resp.Header.Get("Location"), resp.Header.Get("Cache-Control"))
		}
		if strings.Contains(string(body), "secret") {
			t.Errorf("%s leaked the bytes", path)
		}
		resp, body = e.appGet("/f/"+f.Slug+path, "Accept", "*/*")
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") ||
			!strings.Contains(string(body), "Fileframe-Password") || resp.Header.Get("Cache-Control") != "private, no-store" {
			t.Errorf("%s from a script: got %d %q %q\n%s", path, resp.StatusCode, resp.Header.Get("Content-Type"),
				resp.Header.Get("Cache-Control"), body)
		}
	}
	resp, body := e.contentGet("/p/"+f.Slug+"/1", "Sec-Fetch-Dest", "iframe")
	if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "CUSTOM-MARKER") ||
		!strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "sandbox allow-scripts;") ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Set-Cookie") != "" {
		t.Errorf("the content origin without a token: %d %v\n%s", resp.StatusCode, resp.Header, body)
	}
	if page.LiveRevision != 1 {
		t.Fatalf("live revision %d", page.LiveRevision)
	}
}

// TestLinkPasswordUnlock: a wrong password shows the page again (401); the
// right one sets a cookie of this link alone (Path, HttpOnly, SameSite,
// 12 hours), with which the outer page frames the content origin through a
// short-lived token; forged, foreign or expired tokens and cookies are
// refused, and a new password ends them all.
func TestLinkPasswordUnlock(t *testing.T) {
	clock := newPageClock()
	e := newTestEnv(t, cheapHashes(t), func(c *Config) { c.Now = clock.Now })
	a, f := e.agencyFile("plans.pdf", []byte("the secret bytes"))
	e.savePage(f, customHTML("CUSTOM-MARKER"), true)
	f = e.protect(a, f, linkPassword, fileframe.RevealNothing)
	other := e.protect(a, e.file(a, "other.pdf", []byte("other")), "another one", fileframe.RevealNothing)

	b := newAppBrowser(e)
	resp, body := b.unlock(f, "not it")
	if resp.StatusCode != http.StatusUnauthorized || !isPasswordPage(body) || !strings.Contains(body, "That password is not right.") ||
		resp.Header.Get("Set-Cookie") != "" && strings.Contains(resp.Header.Get("Set-Cookie"), linkCookieName) {
		t.Fatalf("a wrong password: got %d\n%s", resp.StatusCode, body)
	}
	// Without the form's token.
	resp, _ = b.post("/f/"+f.Slug+"/unlock", url.Values{"password": {linkPassword}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("without the CSRF token: got %d, want 403", resp.StatusCode)
	}

	resp, _ = b.unlock(f, linkPassword)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/f/"+f.Slug {
		t.Fatalf("the right password: got %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == linkCookieName {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatalf("no %s cookie: %v", linkCookieName, resp.Header["Set-Cookie"])
	}
	if cookie.Path != "/f/"+f.Slug || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Secure ||
		cookie.MaxAge != int((12*time.Hour).Seconds()) || cookie.Domain != "" {
		t.Errorf("the cookie: %+v, want Path=/f/%s, HttpOnly, SameSite=Lax, 12 h, not Secure over http", cookie, f.Slug)
	}
	if strings.Contains(cookie.Value, linkPassword) || strings.Contains(cookie.Value, f.Link.PasswordHash) {
		t.Errorf("the cookie carries the password or its hash: %q", cookie.Value)
	}

	// With the cookie: the outer page, its frame through a token.
	withCookie := func(path string, c *http.Cookie, header ...string) (*http.Response, string) {
		t.Helper()
		req := publicRequest(t, http.MethodGet, e.app.URL+path)
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, body := e.do(req)
		return resp, string(body)
	}
	resp, body = withCookie("/f/"+f.Slug, cookie)
	if resp.StatusCode != http.StatusOK || isPasswordPage(body) || resp.Header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("with the cookie: got %d %q\n%s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
	frame := frameURL(t, body)
	if !strings.HasPrefix(frame, e.content.URL+"/p/"+f.Slug+"/1?access=") {
		t.Fatalf("the frame's address: %s", frame)
	}
	frameGet := func(u string) (*http.Response, string) {
		t.Helper()
		resp, body := e.get(u, "Sec-Fetch-Dest", "iframe")
		return resp, string(body)
	}
	resp, body = frameGet(frame)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "CUSTOM-MARKER") || resp.Header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("the frame with its token: got %d %q\n%s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
	token := frame[strings.Index(frame, "access=")+len("access="):]
	raw, _ := url.QueryUnescape(token)
	refused := func(what, u string) {
		t.Helper()
		resp, body := frameGet(u)
		if resp.StatusCode != http.StatusForbidden || strings.Contains(body, "CUSTOM-MARKER") {
			t.Errorf("the frame %s: got %d\n%s", what, resp.StatusCode, body)
		}
	}
	refused("without a token", e.content.URL+"/p/"+f.Slug+"/1")
	refused("with a forged token", e.content.URL+"/p/"+f.Slug+"/1?access="+url.QueryEscape(raw[:len(raw)-2]+"AA"))
	refused("with the cookie's value as a token", e.content.URL+"/p/"+f.Slug+"/1?access="+url.QueryEscape(cookie.Value))
	// A token of another link, made by the server itself.
	refused("with another link's token", e.content.URL+"/p/"+f.Slug+"/1?access="+url.QueryEscape(e.srv.accessToken(other, 1)))

	// The download, with the cookie.
	resp, body = withCookie("/f/"+f.Slug+"/download", cookie)
	if resp.StatusCode != http.StatusOK || body != "the secret bytes" || resp.Header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("the download with the cookie: got %d %q %q", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}

	// Another link's cookie opens nothing here, whatever its name or path.
	b2 := newAppBrowser(e)
	resp, _ = b2.unlock(other, "another one")
	var otherCookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == linkCookieName {
			otherCookie = c
		}
	}
	if otherCookie == nil {
		t.Fatalf("unlocking the other link set no cookie (%d)", resp.StatusCode)
	}
	if _, body := withCookie("/f/"+f.Slug, otherCookie); !isPasswordPage(body) {
		t.Errorf("another link's cookie opened this one")
	}
	if resp, _ := withCookie("/f/"+f.Slug+"/download", otherCookie); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("another link's cookie downloaded: %d", resp.StatusCode)
	}

	// The frame's token expires in minutes; the cookie in 12 hours.
	clock.Advance(linkAccessTTL + time.Second)
	refused("with an expired token", frame)
	if _, body := withCookie("/f/"+f.Slug, cookie); isPasswordPage(body) {
		t.Errorf("the cookie ended with the frame's token")
	}
	clock.Advance(linkCookieTTL)
	if _, body := withCookie("/f/"+f.Slug, cookie); !isPasswordPage(body) {
		t.Errorf("the cookie still works after 12 hours")
	}

	// A new password ends the cookie and the frame's token at once.
	resp, _ = b.unlock(f, linkPassword)
	for _, c := range resp.Cookies() {
		if c.Name == linkCookieName {
			cookie = c
		}
	}
	_, body = withCookie("/f/"+f.Slug, cookie)
	frame = frameURL(t, body)
	f = e.protect(a, f, "a new password", fileframe.RevealNothing)
	if _, body := withCookie("/f/"+f.Slug, cookie); !isPasswordPage(body) {
		t.Errorf("the cookie outlived a new password")
	}
	if resp, _ := withCookie("/f/"+f.Slug+"/download", cookie); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the cookie downloaded after a new password: %d", resp.StatusCode)
	}
	refused("after a new password", frame)

	// Without a password, the link is public again.
	f = e.protect(a, f, "", fileframe.RevealNothing)
	if resp, body := e.appGet("/f/" + f.Slug); resp.StatusCode != http.StatusOK || isPasswordPage(string(body)) ||
		resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("without a password: got %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
}

// TestLinkPasswordDraftPreview: a draft's preview link still asks for the
// password, and after it shows the draft, its frame carrying both tokens.
func TestLinkPasswordDraftPreview(t *testing.T) {
	e := newTestEnv(t, cheapHashes(t))
	a, f := e.agencyFile("draft.pdf", []byte("bytes"))
	e.savePage(f, customHTML("LIVE"), true)
	e.savePage(f, customHTML("DRAFT-MARKER"), false)
	f = e.protect(a, f, linkPassword, fileframe.RevealNothing)
	preview := "/f/" + f.Slug + "?preview=" + url.QueryEscape(e.srv.previewToken(f.Slug, 2, time.Now().Add(time.Hour)))

	b := newAppBrowser(e)
	resp, body := b.get(preview)
	if !isPasswordPage(body) || strings.Contains(body, "DRAFT-MARKER") {
		t.Fatalf("the preview link without the password: %d\n%s", resp.StatusCode, body)
	}
	m := regexp.MustCompile(`action="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no form action")
	}
	action := strings.ReplaceAll(m[1], "&amp;", "&")
	resp, _ = b.post(action, url.Values{"csrf": {b.token(preview)}, "password": {linkPassword}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != preview {
		t.Fatalf("unlocking from the preview: got %d to %q, want 303 to %q", resp.StatusCode, resp.Header.Get("Location"), preview)
	}
	_, body = b.get(preview)
	frame := frameURL(t, body)
	if !strings.Contains(frame, "/p/"+f.Slug+"/2?preview=") || !strings.Contains(frame, "&access=") {
		t.Fatalf("the preview's frame: %s", frame)
	}
	if resp, body := e.get(frame, "Sec-Fetch-Dest", "iframe"); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "DRAFT-MARKER") {
		t.Errorf("the draft in its frame: %d\n%s", resp.StatusCode, body)
	}
	noAccess := frame[:strings.Index(frame, "&access=")]
	if resp, _ := e.get(noAccess, "Sec-Fetch-Dest", "iframe"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the draft with its preview token but no access token: %d, want 403", resp.StatusCode)
	}
}

// TestLinkPasswordHeader: scripts download with the password in
// Fileframe-Password, as `curl -OJ -H 'Fileframe-Password: …'` does.
func TestLinkPasswordHeader(t *testing.T) {
	e := newTestEnv(t, cheapHashes(t))
	a, f := e.agencyFile("data.csv", []byte("a,b\n1,2\n"))
	f = e.protect(a, f, linkPassword, fileframe.RevealNothing)

	resp, body := e.download(http.MethodGet, f, "Fileframe-Password", linkPassword, "Accept", "*/*", "User-Agent", "curl/8.5.0")
	if resp.StatusCode != http.StatusOK || string(body) != "a,b\n1,2\n" ||
		!strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") || resp.Header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("with the password: got %d %v\n%s", resp.StatusCode, resp.Header, body)
	}
	// The answer carries the link's cookie, for a script that keeps them.
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == linkCookieName && c.Path == "/f/"+f.Slug && c.HttpOnly {
			cookie = c
		}
	}
	if cookie == nil {
		t.Errorf("a download with the right password set no link cookie: %v", resp.Header["Set-Cookie"])
	} else {
		req := publicRequest(t, http.MethodGet, e.app.URL+"/f/"+f.Slug+"/download")
		req.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
		if resp, body := e.do(req); resp.StatusCode != http.StatusOK || string(body) != "a,b\n1,2\n" {
			t.Errorf("the download with the cookie a header download set: %d", resp.StatusCode)
		}
	}
	resp, body = e.download(http.MethodGet, f, "Fileframe-Password", "wrong", "Accept", "text/html")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "not this link's password") ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("with a wrong password: got %d %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	resp, body = e.download(http.MethodGet, f)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "curl -OJ -H 'Fileframe-Password: …' "+e.srv.publicURL("/f/"+f.Slug+"/download")) {
		t.Errorf("without a password: got %d\n%s", resp.StatusCode, body)
	}
	// Refusals and the browser's redirect to the password page carry a
	// download's security headers, as its other answers do.
	for _, header := range [][]string{nil, {"Fileframe-Password", "wrong"}, {"Accept", "text/html"}} {
		resp, _ := e.download(http.MethodGet, f, header...)
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusSeeOther {
			t.Errorf("%v: got %d", header, resp.StatusCode)
		}
		for name, want := range map[string]string{
			"Content-Security-Policy": imageCSP, "X-Content-Type-Options": "nosniff",
			"Referrer-Policy": "no-referrer", "Cache-Control": "private, no-store",
		} {
			if got := resp.Header.Get(name); got != want {
				t.Errorf("%v: %d with %s %q, want %q", header, resp.StatusCode, name, got, want)
			}
		}
	}
}

// TestLinkPasswordGuessLimits: guesses sent together, by form or header,
// each take a token before hashing: one address gets exactly its bucket's
// worth checked, and all addresses together the link's.
func TestLinkPasswordGuessLimits(t *testing.T) {
	h := boundedHasher(t, 10*time.Second)
	e := newTestEnv(t, func(c *Config) {
		c.Passwords = h
		c.Login.AddressAccount = RateLimit{PerSecond: 1.0 / 3600, Burst: 5}
		c.Login.Account = RateLimit{PerSecond: 1.0 / 3600, Burst: 8}
	})
	a, f := e.agencyFile("x.pdf", []byte("x"))
	f = e.protect(a, f, linkPassword, fileframe.RevealNothing)
	g := e.protect(a, e.file(a, "y.pdf", []byte("y")), linkPassword, fileframe.RevealNothing)

	first := browserFrom(e, "127.0.0.2")
	token := first.token("/f/" + f.Slug)
	var posts []formPost
	for range 30 {
		posts = append(posts, formPost{first, "/f/" + f.Slug + "/unlock", url.Values{"csrf": {token}, "password": {"guess"}}})
	}
	answers := postAll(posts)
	got := countStatuses(t, answers)
	if got[http.StatusUnauthorized] != 5 || got[http.StatusTooManyRequests] != 25 {
		t.Errorf("30 guesses at once from one address: %v, want 5 × 401 and 25 × 429", got)
	}
	for _, a := range answers {
		if a.status == http.StatusTooManyRequests && (a.retryAfter == "" || !strings.Contains(a.body, "Too many attempts")) {
			t.Errorf("a 429 without Retry-After or its message: %q\n%s", a.retryAfter, a.body)
			break
		}
	}
	// Another address: the 3 tokens left in the link's bucket, by header.
	second := fromAddress(t, "127.0.0.3")
	statuses := map[int]int{}
	for range 5 {
		req := publicRequest(t, http.MethodGet, e.app.URL+"/f/"+f.Slug+"/download")
		req.Header.Set("Fileframe-Password", "guess")
		resp, _ := e.doVia(second, req)
		statuses[resp.StatusCode]++
		if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
			t.Errorf("a header guess got 429 without Retry-After")
		}
	}
	if statuses[http.StatusUnauthorized] != 3 || statuses[http.StatusTooManyRequests] != 2 {
		t.Errorf("header guesses from a second address: %v, want 3 × 401 then 429", statuses)
	}
	// The link's bucket is empty for everyone now; another link's is not.
	if resp, _ := browserFrom(e, "127.0.0.4").unlock(f, linkPassword); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the right password from a third address, the link's bucket empty: %d, want 429", resp.StatusCode)
	}
	if resp, _ := browserFrom(e, "127.0.0.2").unlock(g, linkPassword); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("another link from the first address: %d, want 303", resp.StatusCode)
	}
	checkBound(t, h)
}

// TestLinkPasswordHashBound: link passwords hash under the memory budget:
// many at once never run more hashes than it holds, and when it stays full
// the form and the header get 503 with Retry-After.
func TestLinkPasswordHashBound(t *testing.T) {
	const wait = 100 * time.Millisecond
	h := boundedHasher(t, 10*time.Second)
	e := newTestEnv(t, func(c *Config) {
		c.Passwords = h
		c.Login.AddressAccount = RateLimit{PerSecond: 100, Burst: 100}
		c.Login.Account = RateLimit{PerSecond: 100, Burst: 100}
	})
	a, f := e.agencyFile("x.pdf", []byte("x"))
	f = e.protect(a, f, linkPassword, fileframe.RevealNothing)
	b := newAppBrowser(e)
	token := b.token("/f/" + f.Slug)
	var posts []formPost
	for i := range 24 {
		pw := "wrong guess"
		if i%2 == 0 {
			pw = linkPassword
		}
		posts = append(posts, formPost{b, "/f/" + f.Slug + "/unlock", url.Values{"csrf": {token}, "password": {pw}}})
	}
	got := countStatuses(t, postAll(posts))
	if got[http.StatusSeeOther] != 12 || got[http.StatusUnauthorized] != 12 {
		t.Errorf("24 passwords at once: %v, want 12 × 303 and 12 × 401", got)
	}
	checkBound(t, h)

	busy := boundedHasher(t, wait)
	e = newTestEnv(t, func(c *Config) { c.Passwords = busy })
	a, f = e.agencyFile("x.pdf", []byte("x"))
	f = e.protect(a, f, linkPassword, fileframe.RevealNothing)
	release, err := busy.Reserve(context.Background(), busy.Budget().Memory)
	if err != nil {
		t.Fatal(err)
	}
	b = newAppBrowser(e)
	resp, body := b.unlock(f, linkPassword)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || !isPasswordPage(body) ||
		!strings.Contains(body, "Too many passwords are being checked") {
		t.Errorf("the form on a full budget: got %d, Retry-After %q\n%s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	resp, _ = e.download(http.MethodGet, f, "Fileframe-Password", linkPassword)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("the header on a full budget: got %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	release()
	if resp, _ := b.unlock(f, linkPassword); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("after the budget freed: %d, want 303", resp.StatusCode)
	}
	checkBound(t, busy)
}

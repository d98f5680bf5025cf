package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// wantSandboxCSP is the content origin's CSP for an app and a content
// origin: images, fonts and media from data: URLs and the content origin's
// asset path alone.
func wantSandboxCSP(appOrigin, contentOrigin string) string {
	assets := contentOrigin + "/a/"
	return "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
		"img-src data: " + assets + "; font-src data: " + assets + "; media-src data: " + assets + "; connect-src 'none'; " +
		"form-action 'none'; base-uri 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; " +
		"object-src 'none'; manifest-src 'none'; frame-ancestors " + appOrigin
}

// assertSandboxHeaders checks the headers every content-origin response has.
func assertSandboxHeaders(t *testing.T, e *testEnv, resp *http.Response) {
	t.Helper()
	for name, want := range map[string]string{
		"Content-Security-Policy": wantSandboxCSP(e.srv.AppOrigin(), e.srv.ContentOrigin()),
		"Connection-Allowlist":    `("` + e.srv.ContentOrigin() + `/a/*");webrtc=block`,
		"X-Dns-Prefetch-Control":  "off",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"Vary":                    "Sec-Fetch-Dest",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	assertPermissionsPolicy(t, resp.Header.Get("Permissions-Policy"))
	for _, name := range []string{"Set-Cookie", "X-Frame-Options"} {
		if got := resp.Header.Values(name); len(got) != 0 {
			t.Errorf("%s: got %q, want none", name, got)
		}
	}
}

// pageClock is a settable clock for Config.Now.
type pageClock struct{ t atomic.Int64 }

func newPageClock() *pageClock {
	c := &pageClock{}
	c.t.Store(time.Now().UnixNano())
	return c
}

func (c *pageClock) Now() time.Time          { return time.Unix(0, c.t.Load()) }
func (c *pageClock) Advance(d time.Duration) { c.t.Add(int64(d)) }

func TestContentPageRevisions(t *testing.T) {
	clock := newPageClock()
	e := newTestEnv(t, func(c *Config) { c.Now = clock.Now })
	ctx := context.Background()
	_, f := e.agencyFile("a.txt", []byte("hello"))
	_, other := e.agencyFile("b.txt", []byte("hello"))
	e.savePage(other, customHTML("other"), true)
	iframe := []string{"Sec-Fetch-Dest", "iframe"}
	path := func(rev string) string { return "/p/" + f.Slug + "/" + rev }

	expect := func(t *testing.T, url string, wantStatus int, wantBody string) *http.Response {
		t.Helper()
		resp, body := e.contentGet(url, iframe...)
		if resp.StatusCode != wantStatus {
			t.Fatalf("GET %s: got %d, want %d", url, resp.StatusCode, wantStatus)
		}
		// The page as stored, after the content origin's prelude.
		if wantBody != "" && string(body) != string(e.served(f, wantBody)) {
			t.Errorf("GET %s: got body %q, want %q with the prelude", url, body, wantBody)
		}
		assertSandboxHeaders(t, e, resp)
		return resp
	}

	// Revision 1, published.
	e.savePage(f, customHTML("one"), true)
	resp := expect(t, path("1"), 200, customHTML("one"))
	if got := resp.Header.Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("Content-Type: got %q", got)
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("Cache-Control: got %q, want no-cache", got)
	}
	etag := resp.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) {
		t.Errorf("ETag: got %q, want a strong ETag", etag)
	}
	if resp, _ := e.contentGet(path("1"), "Sec-Fetch-Dest", "iframe", "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: got %d, want 304", resp.StatusCode)
	}
	for _, bad := range []string{"2", "0", "01", "-1", "x", "1.0"} {
		expect(t, path(bad), 404, "")
	}

	// Revision 2, a draft: the page is no longer live, so revision 1's URL
	// stops working, and revision 2 needs a preview token.
	e.savePage(f, customHTML("two"), false)
	expect(t, path("1"), 404, "")
	expect(t, path("2"), 404, "")
	token := e.srv.previewToken(f.Slug, 2, clock.Now().Add(time.Hour))
	resp = expect(t, path("2")+"?preview="+token, 200, customHTML("two"))
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("preview Cache-Control: got %q, want no-store", got)
	}
	refused := map[string]string{
		"token for revision 1":   path("2") + "?preview=" + e.srv.previewToken(f.Slug, 1, clock.Now().Add(time.Hour)),
		"token used on rev 1":    path("1") + "?preview=" + token,
		"token for another slug": path("2") + "?preview=" + e.srv.previewToken(other.Slug, 2, clock.Now().Add(time.Hour)),
		"token on another slug":  "/p/" + other.Slug + "/2?preview=" + token,
		"tampered payload":       path("2") + "?preview=" + "x" + token[1:],
		"tampered mac":           path("2") + "?preview=" + token[:len(token)-3] + "abc",
		"no mac":                 path("2") + "?preview=" + strings.Split(token, ".")[0],
		"empty token":            path("2") + "?preview=",
	}
	for name, u := range refused {
		t.Run(name, func(t *testing.T) { expect(t, u, 404, "") })
	}

	// The token expires.
	clock.Advance(time.Hour + time.Second)
	expect(t, path("2")+"?preview="+token, 404, "")

	// Revision 3, published: only it is served without a token.
	e.savePage(f, customHTML("three"), true)
	expect(t, path("3"), 200, customHTML("three"))
	expect(t, path("2"), 404, "")
	expect(t, path("1"), 404, "")
	fresh := e.srv.previewToken(f.Slug, 1, clock.Now().Add(time.Hour))
	expect(t, path("1")+"?preview="+fresh, 200, customHTML("one"))

	// A downgraded account's pages stop being served, previews included.
	acct, err := e.store.AccountByID(ctx, f.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetAccountPlan(ctx, acct.ID, fileframe.PlanPro); err != nil {
		t.Fatal(err)
	}
	expect(t, path("3"), 404, "")
	expect(t, path("1")+"?preview="+fresh, 404, "")
	if err := e.store.SetAccountPlan(ctx, acct.ID, fileframe.PlanAgency); err != nil {
		t.Fatal(err)
	}
	expect(t, path("3"), 200, customHTML("three"))

	// HEAD answers the same headers without the body.
	req := publicRequest(t, http.MethodHead, e.content.URL+path("3"))
	req.Header.Set("Sec-Fetch-Dest", "iframe")
	head, body := e.do(req)
	if head.StatusCode != 200 || len(body) != 0 {
		t.Errorf("HEAD: got %d with %d bytes", head.StatusCode, len(body))
	}
	assertSandboxHeaders(t, e, head)
}

func TestContentPageDisabledAccount(t *testing.T) {
	e := newTestEnv(t)
	a, err := e.store.CreateAccount(context.Background(), fileframe.Account{
		Email: "off@example.com", Plan: fileframe.PlanAgency, Disabled: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	f := e.file(a, "a.txt", []byte("x"))
	e.savePage(f, customHTML("live"), true)
	resp, _ := e.contentGet("/p/"+f.Slug+"/1", "Sec-Fetch-Dest", "iframe")
	if resp.StatusCode != 404 {
		t.Errorf("got %d, want 404", resp.StatusCode)
	}
	token := e.srv.previewToken(f.Slug, 1, time.Now().Add(time.Hour))
	if resp, _ := e.contentGet("/p/"+f.Slug+"/1?preview="+token, "Sec-Fetch-Dest", "iframe"); resp.StatusCode != 404 {
		t.Errorf("with preview: got %d, want 404", resp.StatusCode)
	}
}

func TestContentPageFetchDest(t *testing.T) {
	e := newTestEnv(t)
	_, f := e.agencyFile("a.txt", []byte("hello"))
	e.savePage(f, customHTML("live"), true)
	e.savePage(f, customHTML("draft"), false)
	e.savePage(f, customHTML("live again"), true) // revision 3 live, 2 a stored draft
	token := e.srv.previewToken(f.Slug, 2, time.Now().Add(time.Hour))

	tests := []struct {
		name, path, dest string
		wantStatus       int
		wantLocation     string
	}{
		{"top-level visit", "/p/" + f.Slug + "/3", "document", 302, e.app.URL + "/f/" + f.Slug},
		{"top-level visit with preview", "/p/" + f.Slug + "/2?preview=" + token, "document", 302,
			e.app.URL + "/f/" + f.Slug + "?preview=" + token},
		{"top-level visit with a bad token", "/p/" + f.Slug + "/2?preview=bad", "document", 302, e.app.URL + "/f/" + f.Slug},
		{"iframe", "/p/" + f.Slug + "/3", "iframe", 200, ""},
		{"frame", "/p/" + f.Slug + "/3", "frame", 200, ""},
		{"no header", "/p/" + f.Slug + "/3", "", 403, ""},
		{"image", "/p/" + f.Slug + "/3", "image", 403, ""},
		{"script", "/p/" + f.Slug + "/3", "script", 403, ""},
		{"fetch", "/p/" + f.Slug + "/3", "empty", 403, ""},
		{"object", "/p/" + f.Slug + "/3", "object", 403, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var header []string
			if tt.dest != "" {
				header = []string{"Sec-Fetch-Dest", tt.dest}
			}
			resp, body := e.contentGet(tt.path, header...)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status: got %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if got := resp.Header.Get("Location"); got != tt.wantLocation {
				t.Errorf("Location: got %q, want %q", got, tt.wantLocation)
			}
			if tt.wantStatus != 200 && bytes.Contains(body, []byte("live")) {
				t.Errorf("a refused request got the page: %q", body)
			}
			assertSandboxHeaders(t, e, resp)
		})
	}
}

// A custom page is never shown without the service's control, whatever the
// browser. A request that sends no fetch metadata (a browser from before
// Sec-Fetch-Dest, a plain client) cannot show that it is the outer page's
// frame: it gets a short page of the service's own, with the sandbox
// headers, that links to the outer page (with the preview token for a
// draft), and no byte of the custom page.
func TestContentPageWithoutFetchMetadata(t *testing.T) {
	e := newTestEnv(t)
	_, f := e.agencyFile("a.txt", []byte("hello"))
	marker := "CUSTOM-" + fileframe.RandomBase62(12)
	e.savePage(f, customHTML(marker+" live"), true)
	e.savePage(f, customHTML(marker+" draft"), false)
	e.savePage(f, customHTML(marker+" live again"), true) // revision 3 live, 2 a stored draft
	token := e.srv.previewToken(f.Slug, 2, time.Now().Add(time.Hour))
	outer := e.app.URL + "/f/" + f.Slug

	for _, tt := range []struct{ name, path, wantLink string }{
		{"live", "/p/" + f.Slug + "/3", outer},
		{"preview", "/p/" + f.Slug + "/2?preview=" + token, outer + "?preview=" + token},
		{"bad token", "/p/" + f.Slug + "/2?preview=bad", outer},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				resp, body := e.do(publicRequest(t, method, e.content.URL+tt.path))
				if resp.StatusCode != http.StatusForbidden {
					t.Fatalf("%s: status %d, want 403", method, resp.StatusCode)
				}
				assertSandboxHeaders(t, e, resp)
				if bytes.Contains(body, []byte(marker)) {
					t.Fatalf("%s: the answer holds the custom page:\n%s", method, body)
				}
				if got := resp.Header.Get("Cache-Control"); got != "no-store" {
					t.Errorf("%s: Cache-Control %q, want no-store", method, got)
				}
				if method == http.MethodHead {
					if len(body) != 0 {
						t.Errorf("HEAD: %d bytes of body", len(body))
					}
					continue
				}
				link := findTag(parsePage(t, body), "a")
				if href, _ := htmlAttr(link, "href"); href != tt.wantLink {
					t.Errorf("the page links to %q, want the outer page %q", href, tt.wantLink)
				}
				if target, _ := htmlAttr(link, "target"); target != "_top" {
					t.Errorf("the link's target is %q, want _top", target)
				}
			}
		})
	}
}

// failingPageStore is the real store with one method failing, to reach the
// handlers' 500 paths.
type failingPageStore struct {
	fileframe.Store
	fail atomic.Bool
}

var errPageStoreDown = errors.New("sqlite: database is locked (secret internal detail)")

func (s *failingPageStore) Revision(ctx context.Context, id fileframe.FileID, n int) (fileframe.Revision, error) {
	if s.fail.Load() {
		return fileframe.Revision{}, errPageStoreDown
	}
	return s.Store.Revision(ctx, id, n)
}

func (s *failingPageStore) PageByFile(ctx context.Context, id fileframe.FileID) (fileframe.Page, error) {
	if s.fail.Load() {
		return fileframe.Page{}, errPageStoreDown
	}
	return s.Store.PageByFile(ctx, id)
}

func (s *failingPageStore) Ping(ctx context.Context) error {
	if s.fail.Load() {
		return errPageStoreDown
	}
	return s.Store.Ping(ctx)
}

func TestContentHeadersOnEveryResponse(t *testing.T) {
	fs := &failingPageStore{}
	e := newTestEnv(t, func(c *Config) { fs.Store = c.Store; c.Store = fs })
	_, f := e.agencyFile("a.txt", []byte("hello"))
	e.savePage(f, customHTML("live"), true)
	live := "/p/" + f.Slug + "/1"

	tests := []struct {
		name       string
		method     string
		path       string
		header     []string
		fail       bool
		wantStatus int
	}{
		{"200", "GET", live, []string{"Sec-Fetch-Dest", "iframe"}, false, 200},
		{"200 HEAD", "HEAD", live, []string{"Sec-Fetch-Dest", "iframe"}, false, 200},
		{"302", "GET", live, []string{"Sec-Fetch-Dest", "document"}, false, 302},
		{"304", "GET", live, []string{"Sec-Fetch-Dest", "iframe", "If-None-Match", `"` + e.servedETag(f, customHTML("live")) + `"`}, false, 304},
		{"403", "GET", live, []string{"Sec-Fetch-Dest", "image"}, false, 403},
		{"403 without fetch metadata", "GET", live, nil, false, 403},
		{"404 unknown slug", "GET", "/p/nope/1", []string{"Sec-Fetch-Dest", "iframe"}, false, 404},
		{"404 unknown path", "GET", "/favicon.ico", nil, false, 404},
		{"404 root", "GET", "/", nil, false, 404},
		{"405 POST", "POST", live, nil, false, 405},
		{"405 PUT elsewhere", "PUT", "/x", nil, false, 405},
		{"405 OPTIONS", "OPTIONS", live, nil, false, 405},
		{"416", "GET", live, []string{"Sec-Fetch-Dest", "iframe", "Range", "bytes=9999-"}, false, 416},
		{"500", "GET", live, []string{"Sec-Fetch-Dest", "iframe"}, true, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs.fail.Store(tt.fail)
			defer fs.fail.Store(false)
			req := publicRequest(t, tt.method, e.content.URL+tt.path)
			for i := 0; i+1 < len(tt.header); i += 2 {
				req.Header.Set(tt.header[i], tt.header[i+1])
			}
			resp, body := e.do(req)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status: got %d, want %d (%s)", resp.StatusCode, tt.wantStatus, body)
			}
			assertSandboxHeaders(t, e, resp)
			if bytes.Contains(body, []byte("secret internal detail")) {
				t.Errorf("the response shows the internal error: %q", body)
			}
			if tt.wantStatus == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow: got %q, want GET, HEAD", resp.Header.Get("Allow"))
			}
		})
	}
	if !strings.Contains(e.logs.String(), "secret internal detail") {
		t.Errorf("the 500's cause was not logged")
	}
}

func TestContentOriginNeverServesAppPaths(t *testing.T) {
	e := newTestEnv(t)
	_, f := e.agencyFile("a.txt", []byte("hello"))
	for _, path := range []string{"/f/" + f.Slug, "/f/" + f.Slug + "/download", "/healthz", "/metrics", "/static/fileframe.css"} {
		resp, _ := e.contentGet(path)
		if resp.StatusCode != 404 {
			t.Errorf("content origin %s: got %d, want 404", path, resp.StatusCode)
		}
	}
	// And the app origin never serves page bytes.
	marker := "MARKER-" + fileframe.RandomBase62(12)
	e.savePage(f, customHTML(marker), true)
	for _, path := range []string{"/p/" + f.Slug + "/1", "/f/" + f.Slug, "/f/" + f.Slug + "/download"} {
		_, body := e.appGet(path)
		if bytes.Contains(body, []byte(marker)) {
			t.Errorf("app origin %s served the custom HTML", path)
		}
	}
}

func hexSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// served returns html as the content origin serves it as the page of file
// f: with the prelude of f's facts.
func (e *testEnv) served(f fileframe.File, html string) []byte {
	return withPrelude([]byte(html), preludeFor(e.srv.factsOf(f)))
}

// servedETag returns the ETag key (unquoted) of html served as f's page.
func (e *testEnv) servedETag(f fileframe.File, html string) string {
	return contentETagKey(hexSHA256(html), preludeFor(e.srv.factsOf(f)))
}

// TestWithPrelude: the prelude goes where it runs before anything of the
// page, and nothing of the page changes: after a byte order mark, comments,
// white space and a doctype, before anything else.
func TestWithPrelude(t *testing.T) {
	for _, tt := range []struct{ doc, before string }{
		{"<!doctype html><html><body>x</body></html>", "<!doctype html>"},
		{"<!DOCTYPE html>\n<html lang=en>", "<!DOCTYPE html>"},
		{"\xef\xbb\xbf<!doctype html><p>x", "\xef\xbb\xbf<!doctype html>"},
		{"<!-- made by an agent -->\n  <!doctype html><p>x", "<!-- made by an agent -->\n  <!doctype html>"},
		{"<html><script>alert(1)</script>", ""},
		{"  <!-- c --><head><script>x()</script>", "  <!-- c -->"},
		{"<script>first()</script><!doctype html>", ""},
		{"", ""},
		{"text first <!doctype html>", ""},
	} {
		prelude := preludeFor(pageFacts{Name: "a.pdf"})
		got := string(withPrelude([]byte(tt.doc), prelude))
		if want := tt.before + string(prelude) + tt.doc[len(tt.before):]; got != want {
			t.Errorf("withPrelude(%q):\ngot  %q\nwant %q", tt.doc, got, want)
		}
	}
}

// FuzzWithPrelude: whatever the page, the prelude is inserted once, and
// taking it out gives the page back byte for byte.
func FuzzWithPrelude(f *testing.F) {
	for _, s := range []string{"<!doctype html><p>x", "\xef\xbb\xbf<!-- c --><!DOCTYPE html>", "<script>x</script>", "<!doctype", "<!-- unterminated"} {
		f.Add([]byte(s))
	}
	prelude := preludeFor(pageFacts{Name: "a.pdf", Size: 1, SizeText: "1 B", Type: "application/pdf", URL: "https://files.example.com/f/x"})
	f.Fuzz(func(t *testing.T, doc []byte) {
		out := withPrelude(doc, prelude)
		at := bytes.Index(out, prelude)
		if at < 0 || len(out) != len(doc)+len(prelude) {
			t.Fatalf("withPrelude(%q) = %q", doc, out)
		}
		if back := append(append([]byte{}, out[:at]...), out[at+len(prelude):]...); !bytes.Equal(back, doc) {
			t.Fatalf("withPrelude(%q) changed the page: %q", doc, out)
		}
	})
}

// preludeFacts returns the facts in the prelude at the head of a page the
// content origin served, and fails unless the prelude is one whole script
// element: the first element of the document, whose text is the script as
// preludeFor writes it with the facts in it, whatever the file's name.
func preludeFacts(t *testing.T, body []byte) pageFacts {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			t.Fatalf("no script in %q", body)
		}
		if tt != html.StartTagToken {
			continue
		}
		if name, _ := z.TagName(); string(name) != "script" {
			t.Fatalf("first element <%s>, want the prelude's <script>, in %q", name, body)
		}
		break
	}
	if z.Next() != html.TextToken {
		t.Fatalf("the prelude's script has no text: %q", body)
	}
	script := string(z.Text())
	if z.Next() != html.EndTagToken {
		t.Fatalf("the prelude's script does not end where it should: %q", body)
	}
	start, end := strings.TrimPrefix(preludeStart, "<script>"), strings.TrimSuffix(preludeEnd, "</script>")
	if !strings.HasPrefix(script, start) || !strings.HasSuffix(script, end) {
		t.Fatalf("the prelude's script is not preludeFor's: %q", script)
	}
	var facts pageFacts
	if err := json.Unmarshal([]byte(script[len(start):len(script)-len(end)]), &facts); err != nil {
		t.Fatalf("the facts in the prelude are not one JSON object: %v\n%s", err, script)
	}
	return facts
}

// TestContentPageFacts: the prelude tells the page its file's name, size,
// size as the control shows it, type and public link, as data that no file
// name can turn into markup or code: a name that closes the script element
// and opens another, or holds JavaScript's line terminators, is still the
// one string it was.
func TestContentPageFacts(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanAgency)
	for _, name := range []string{
		"report.pdf",
		"</script><script>alert(1)</script>.pdf",
		"<!--<script>x.pdf",
		"a\u2028b\u2029c \"q\" \\ & <b>.pdf",
		"Résumé — 2026.pdf",
	} {
		t.Run(name, func(t *testing.T) {
			f := e.file(a, name, []byte("%PDF-1.7 twelve bytes"))
			e.savePage(f, customHTML("facts"), true)
			resp, body := e.contentGet("/p/"+f.Slug+"/1", "Sec-Fetch-Dest", "iframe")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("got %d, want 200", resp.StatusCode)
			}
			got := preludeFacts(t, body)
			want := pageFacts{
				Name: name, Size: 21, SizeText: "21 B", Type: "application/octet-stream",
				URL: e.srv.publicURL("/f/" + f.Slug),
			}
			if got != want {
				t.Errorf("facts: got %+v, want %+v", got, want)
			}
			for _, raw := range []string{"</script><script>alert", "<!--<script>", "\u2028", "\u2029", "<b>"} {
				if bytes.Contains(body, []byte(raw)) {
					t.Errorf("the page has %q unescaped: %q", raw, body)
				}
			}
			if !bytes.HasSuffix(body, []byte(customHTML("facts")[len("<!doctype html>"):])) {
				t.Errorf("the page after the prelude is not as stored: %q", body)
			}
		})
	}
}

// TestContentPageFactsAfterRename: a renamed file's page, asked for again
// with the ETag it had, is answered anew with the new name (not 304), from
// a new ETag, while its stored HTML stays the same revision.
func TestContentPageFactsAfterRename(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	a, f := e.agencyFile("old name.pdf", []byte("hello"))
	e.savePage(f, customHTML("rename"), true)
	path := "/p/" + f.Slug + "/1"
	resp, body := e.contentGet(path, "Sec-Fetch-Dest", "iframe")
	if got := preludeFacts(t, body).Name; got != "old name.pdf" {
		t.Fatalf("before the rename: name %q", got)
	}
	old := resp.Header.Get("ETag")
	// Served again (from memory), it is unchanged.
	if resp, _ := e.contentGet(path, "Sec-Fetch-Dest", "iframe", "If-None-Match", old); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("before the rename, If-None-Match: got %d, want 304", resp.StatusCode)
	}

	if err := e.srv.svc.RenameFile(ctx, a, f.ID, "new name.pdf"); err != nil {
		t.Fatalf("RenameFile: %v", err)
	}
	resp, body = e.contentGet(path, "Sec-Fetch-Dest", "iframe", "If-None-Match", old)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("after the rename, If-None-Match of the old ETag: got %d, want 200", resp.StatusCode)
	}
	if got := preludeFacts(t, body).Name; got != "new name.pdf" {
		t.Errorf("after the rename: name %q, want %q", got, "new name.pdf")
	}
	if etag := resp.Header.Get("ETag"); etag == old || etag != `"`+e.servedETag(fileframe.File{Name: "new name.pdf", Size: f.Size, ContentType: f.ContentType, Slug: f.Slug}, customHTML("rename"))+`"` {
		t.Errorf("after the rename: ETag %s (before %s), want a new one for the new facts", etag, old)
	}
	if p, err := e.store.PageByFile(ctx, f.ID); err != nil || p.LatestRevision != 1 {
		t.Errorf("after the rename: page %+v, %v; want revision 1 still", p, err)
	}
}

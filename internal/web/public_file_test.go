package web

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"golang.org/x/net/html"
)

// savePage stores html as the next revision of f's page, published or not.
func (e *testEnv) savePage(f fileframe.File, doc string, publish bool) fileframe.Page {
	e.t.Helper()
	p, err := e.store.SavePage(context.Background(), fileframe.PageWrite{
		FileID: f.ID, HTML: []byte(doc), Publish: publish, At: time.Now(),
	})
	if err != nil {
		e.t.Fatalf("SavePage: %v", err)
	}
	return p
}

// agencyFile makes an Agency account with one file.
func (e *testEnv) agencyFile(name string, content []byte) (fileframe.Account, fileframe.File) {
	e.t.Helper()
	a := e.account(fileframe.PlanAgency)
	return a, e.file(a, name, content)
}

// customHTML returns a complete page that contains marker.
func customHTML(marker string) string {
	return "<!doctype html><html><head><title>t</title></head><body><h1>" + marker + "</h1></body></html>"
}

// appGet fetches a path of the app origin.
func (e *testEnv) appGet(path string, header ...string) (*http.Response, []byte) {
	e.t.Helper()
	return e.get(e.app.URL+path, header...)
}

// opsGet fetches a path of the operations listener.
func (e *testEnv) opsGet(path string, header ...string) (*http.Response, []byte) {
	e.t.Helper()
	return e.get(e.ops.URL+path, header...)
}

// contentGet fetches a path of the content origin.
func (e *testEnv) contentGet(path string, header ...string) (*http.Response, []byte) {
	e.t.Helper()
	return e.get(e.content.URL+path, header...)
}

// pageKind tells which public page a body is: "outer", "default",
// "template:<name>" or "error".
func pageKind(t *testing.T, body []byte) string {
	t.Helper()
	doc := parsePage(t, body)
	if name, ok := htmlAttr(findTag(doc, "body"), "data-template"); ok {
		return "template:" + name
	}
	switch {
	case findTag(doc, "iframe") != nil:
		return "outer"
	case htmlHasClass(findTag(doc, "main"), "ff-card") && findTag(doc, "a") != nil:
		return "default"
	default:
		return "error"
	}
}

func parsePage(t *testing.T, body []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing HTML: %v", err)
	}
	return doc
}

// findElement returns the first element named tag, depth first.
func findTag(n *html.Node, tag string) *html.Node {
	if n == nil {
		return nil
	}
	if n.Type == html.ElementNode && n.Data == tag {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if found := findTag(c, tag); found != nil {
			return found
		}
	}
	return nil
}

// firstElementChild returns n's first child element.
func firstElementChild(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

func htmlAttr(n *html.Node, name string) (string, bool) {
	if n == nil {
		return "", false
	}
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func htmlHasClass(n *html.Node, class string) bool {
	v, _ := htmlAttr(n, "class")
	for _, c := range strings.Fields(v) {
		if c == class {
			return true
		}
	}
	return false
}

func htmlText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// assertPageHeaders checks the security headers of the app origin's pages.
func assertPageHeaders(t *testing.T, resp *http.Response, frameSrc string) {
	t.Helper()
	assertSecurityHeaders(t, resp, "default-src 'none'; frame-src "+frameSrc+"; frame-ancestors 'none'; form-action 'none'; "+
		"base-uri 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:", "DENY")
	if got := resp.Header.Values("Set-Cookie"); len(got) != 0 {
		t.Errorf("Set-Cookie: got %q, want none", got)
	}
}

// assertSecurityHeaders checks the headers every HTML page of the app
// origin has, with the given CSP and X-Frame-Options.
func assertSecurityHeaders(t *testing.T, resp *http.Response, csp, frameOptions string) {
	t.Helper()
	for name, want := range map[string]string{
		"Content-Security-Policy":    csp,
		"X-Frame-Options":            frameOptions,
		"Cross-Origin-Opener-Policy": "same-origin",
		"Referrer-Policy":            "no-referrer",
		"X-Content-Type-Options":     "nosniff",
		"Content-Type":               "text/html; charset=utf-8",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	assertPermissionsPolicy(t, resp.Header.Get("Permissions-Policy"))
}

// assertPermissionsPolicy checks that every powerful feature is turned off.
func assertPermissionsPolicy(t *testing.T, got string) {
	t.Helper()
	for _, f := range []string{"accelerometer", "camera", "geolocation", "microphone", "payment", "usb",
		"fullscreen", "picture-in-picture", "display-capture", "clipboard-read", "clipboard-write",
		"gyroscope", "magnetometer", "midi", "serial", "hid", "bluetooth", "autoplay", "screen-wake-lock"} {
		if !strings.Contains(", "+got+",", ", "+f+"=(),") {
			t.Errorf("Permissions-Policy %q: %s=() missing", got, f)
		}
	}
	if strings.Contains(got, "*") || strings.Contains(got, "self") {
		t.Errorf("Permissions-Policy %q allows a feature", got)
	}
}

func TestOuterPage(t *testing.T) {
	e := newTestEnv(t)
	marker := "MARKER-" + fileframe.RandomBase62(20)
	_, f := e.agencyFile("Quarterly report.pdf", bytes.Repeat([]byte("x"), 12_400_000))
	e.savePage(f, customHTML(marker), true)

	resp, body := e.appGet("/f/" + f.Slug)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status: got %d, want 200", resp.StatusCode)
	}
	if bytes.Contains(body, []byte(marker)) {
		t.Fatalf("the outer page contains the custom HTML (marker %s)", marker)
	}
	assertPageHeaders(t, resp, e.srv.ContentOrigin())
	if got := resp.Header.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("Cache-Control: got %q, want no-cache", got)
	}

	doc := parsePage(t, body)
	bodyEl := findTag(doc, "body")
	control := firstElementChild(bodyEl)
	if !htmlHasClass(control, "ff-control") {
		t.Fatalf("first element in body: got %v, want the download control", control)
	}
	link := findTag(control, "a")
	if href, _ := htmlAttr(link, "href"); href != "/f/"+f.Slug+"/download" {
		t.Errorf("control link: got %q, want /f/%s/download", href, f.Slug)
	}
	if got, want := htmlText(link), "Download Quarterly report.pdf 12.4 MB"; got != want {
		t.Errorf("control text: got %q, want %q", got, want)
	}
	if v, ok := htmlAttr(link, "tabindex"); ok && v == "-1" {
		t.Errorf("control link is not keyboard reachable (tabindex=-1)")
	}
	if bytes.Contains(body, []byte("Preview — not live")) {
		t.Errorf("a published page is marked as a preview")
	}

	frame := findTag(doc, "iframe")
	if frame == nil {
		t.Fatal("no iframe")
	}
	want := map[string]string{
		"src":            e.srv.ContentOrigin() + "/p/" + f.Slug + "/1",
		"sandbox":        "allow-scripts",
		"referrerpolicy": "no-referrer",
		"allow": "fullscreen 'none'; picture-in-picture 'none'; clipboard-read 'none'; clipboard-write 'none'; " +
			"payment 'none'; camera 'none'; microphone 'none'; geolocation 'none'; display-capture 'none'",
	}
	for k, v := range want {
		if got, _ := htmlAttr(frame, k); got != v {
			t.Errorf("iframe %s: got %q, want %q", k, got, v)
		}
	}
	if _, ok := htmlAttr(frame, "name"); ok {
		t.Errorf("iframe has a name attribute")
	}
	if title, _ := htmlAttr(frame, "title"); title == "" {
		t.Errorf("iframe has no title")
	}
	for _, a := range frame.Attr {
		if _, ok := want[a.Key]; !ok && a.Key != "title" && a.Key != "class" {
			t.Errorf("iframe has unexpected attribute %s=%q", a.Key, a.Val)
		}
	}
	// The page loads only its own stylesheet and script; nothing inline.
	if bytes.Contains(body, []byte("style=")) || bytes.Contains(body, []byte("<style")) {
		t.Errorf("outer page has inline style, which its CSP blocks")
	}
	if s := findTag(doc, "script"); s == nil {
		t.Errorf("outer page loads no script for the downloaded state")
	} else if src, _ := htmlAttr(s, "src"); !strings.HasPrefix(src, "/static/") {
		t.Errorf("script src: got %q, want /static/…", src)
	}

	head, headBody := e.do(publicRequest(t, http.MethodHead, e.app.URL+"/f/"+f.Slug))
	if head.StatusCode != http.StatusOK || len(headBody) != 0 {
		t.Errorf("HEAD: got %d with %d bytes, want 200 and no body", head.StatusCode, len(headBody))
	}
	if head.Header.Get("Content-Security-Policy") != resp.Header.Get("Content-Security-Policy") {
		t.Errorf("HEAD: CSP differs from GET")
	}
}

func publicRequest(t *testing.T, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestDefaultPage(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	f := e.file(a, `<b>"notes" & co</b>.txt`, bytes.Repeat([]byte("y"), 1500))

	resp, body := e.appGet("/f/" + f.Slug)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status: got %d, want 200", resp.StatusCode)
	}
	assertPageHeaders(t, resp, "'none'")
	if got := resp.Header.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("Cache-Control: got %q, want no-cache", got)
	}
	if bytes.Contains(body, []byte(`<b>"notes"`)) {
		t.Errorf("file name is not escaped:\n%s", body)
	}
	doc := parsePage(t, body)
	control := firstElementChild(findTag(doc, "body"))
	if !htmlHasClass(control, "ff-control") {
		t.Fatalf("first element in body: want the download control")
	}
	link := findTag(control, "a")
	if href, _ := htmlAttr(link, "href"); href != "/f/"+f.Slug+"/download" {
		t.Errorf("control link: got %q", href)
	}
	if got, want := htmlText(link), `Download <b>"notes" & co</b>.txt 1.5 kB`; got != want {
		t.Errorf("control text: got %q, want %q", got, want)
	}
	if got, want := htmlText(findTag(doc, "h1")), `<b>"notes" & co</b>.txt`; got != want {
		t.Errorf("h1: got %q, want %q", got, want)
	}
	if findTag(doc, "iframe") != nil {
		t.Errorf("default page has an iframe")
	}
}

func TestPublicFilePrecedence(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	content := []byte("hello")
	tests := []struct {
		name       string
		setup      func() fileframe.File
		wantStatus int
		wantKind   string
	}{
		{"no page", func() fileframe.File {
			_, f := e.agencyFile("a.txt", content)
			return f
		}, 200, "default"},
		{"draft only", func() fileframe.File {
			_, f := e.agencyFile("a.txt", content)
			e.savePage(f, customHTML("draft"), false)
			return f
		}, 200, "default"},
		{"published", func() fileframe.File {
			_, f := e.agencyFile("a.txt", content)
			e.savePage(f, customHTML("live"), true)
			return f
		}, 200, "outer"},
		{"published then back to draft", func() fileframe.File {
			_, f := e.agencyFile("a.txt", content)
			e.savePage(f, customHTML("live"), true)
			e.savePage(f, customHTML("draft"), false)
			return f
		}, 200, "default"},
		{"published, account downgraded to pro", func() fileframe.File {
			a, f := e.agencyFile("a.txt", content)
			e.savePage(f, customHTML("live"), true)
			if err := e.store.SetAccountPlan(ctx, a.ID, fileframe.PlanPro); err != nil {
				t.Fatal(err)
			}
			return f
		}, 200, "default"},
		{"published, account downgraded to free", func() fileframe.File {
			a, f := e.agencyFile("a.txt", content)
			e.savePage(f, customHTML("live"), true)
			if err := e.store.SetAccountPlan(ctx, a.ID, fileframe.PlanFree); err != nil {
				t.Fatal(err)
			}
			return f
		}, 200, "default"},
		{"disabled account", func() fileframe.File {
			a, err := e.store.CreateAccount(ctx, fileframe.Account{
				Email: fileframe.RandomBase62(8) + "@example.com", Plan: fileframe.PlanAgency, Disabled: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			f := e.file(a, "a.txt", content)
			e.savePage(f, customHTML("live"), true)
			return f
		}, 404, "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.setup()
			resp, body := e.appGet("/f/" + f.Slug)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status: got %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if got := pageKind(t, body); got != tt.wantKind {
				t.Errorf("page: got %s, want %s", got, tt.wantKind)
			}
			frameSrc := "'none'"
			if tt.wantKind == "outer" {
				frameSrc = e.srv.ContentOrigin()
			}
			assertPageHeaders(t, resp, frameSrc)
		})
	}
}

func TestPublicFilePreview(t *testing.T) {
	e := newTestEnv(t)
	_, f := e.agencyFile("a.txt", []byte("hello"))
	_, other := e.agencyFile("b.txt", []byte("other"))
	e.savePage(f, customHTML("one"), true)
	e.savePage(f, customHTML("two"), false) // revision 2, a draft
	e.savePage(other, customHTML("other"), false)
	valid := e.srv.previewToken(f.Slug, 2, time.Now().Add(time.Hour))

	t.Run("valid token frames the draft", func(t *testing.T) {
		resp, body := e.appGet("/f/" + f.Slug + "?preview=" + valid)
		if resp.StatusCode != 200 {
			t.Fatalf("status: got %d", resp.StatusCode)
		}
		if got := resp.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("Cache-Control: got %q, want no-store", got)
		}
		assertPageHeaders(t, resp, e.srv.ContentOrigin())
		doc := parsePage(t, body)
		src, _ := htmlAttr(findTag(doc, "iframe"), "src")
		if want := e.srv.ContentOrigin() + "/p/" + f.Slug + "/2?preview=" + valid; src != want {
			t.Errorf("iframe src: got %q, want %q", src, want)
		}
		if !strings.Contains(htmlText(doc), "Preview — not live") {
			t.Errorf("no preview marker")
		}
		if !htmlHasClass(firstElementChild(findTag(doc, "body")), "ff-control") {
			t.Errorf("the control is not first in body")
		}
		if bytes.Contains(body, []byte("two")) && bytes.Contains(body, []byte("<h1>two")) {
			t.Errorf("the outer page contains the custom HTML")
		}
	})

	invalid := map[string]string{
		"garbage":          "not-a-token",
		"other slug":       e.srv.previewToken(other.Slug, 1, time.Now().Add(time.Hour)),
		"expired":          e.srv.previewToken(f.Slug, 2, time.Now().Add(-time.Minute)),
		"tampered":         valid[:len(valid)-2] + "AA",
		"unknown revision": e.srv.previewToken(f.Slug, 9, time.Now().Add(time.Hour)),
	}
	for name, token := range invalid {
		t.Run(name+" shows the public state", func(t *testing.T) {
			resp, body := e.appGet("/f/" + f.Slug + "?preview=" + token)
			if resp.StatusCode != 200 {
				t.Fatalf("status: got %d, want 200", resp.StatusCode)
			}
			if got := pageKind(t, body); got != "default" {
				t.Errorf("page: got %s, want default (the page is a draft)", got)
			}
			if bytes.Contains(body, []byte("Preview")) {
				t.Errorf("an invalid token shows the preview marker")
			}
		})
	}
}

func TestPublicNotFound(t *testing.T) {
	e := newTestEnv(t)
	for _, path := range []string{"/f/nosuchslug", "/f/nosuchslug/download", "/nope", "/f/", "/static/nope.css", "/p/x/1"} {
		t.Run(path, func(t *testing.T) {
			resp, body := e.appGet(path)
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("status: got %d, want 404", resp.StatusCode)
			}
			assertPageHeaders(t, resp, "'none'")
			if !bytes.Contains(body, []byte("Not found")) || !bytes.Contains(body, []byte("/static/fileframe.css")) {
				t.Errorf("not the styled 404 page:\n%s", body)
			}
			if bytes.Contains(body, []byte("goroutine")) || bytes.Contains(body, []byte("sql")) {
				t.Errorf("404 page shows internals")
			}
		})
	}
	resp, _ := e.do(publicRequest(t, http.MethodPost, e.app.URL+"/f/nosuchslug"))
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /f/x: got %d Allow %q, want 405 GET, HEAD", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestStaticFiles(t *testing.T) {
	e := newTestEnv(t)
	for _, u := range []string{e.srv.pages.assets.CSS, e.srv.pages.assets.JS} {
		resp, body := e.appGet(u)
		if resp.StatusCode != 200 || len(body) == 0 {
			t.Fatalf("%s: got %d with %d bytes", u, resp.StatusCode, len(body))
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", u)
		}
		if !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: versioned asset not cacheable: %q", u, resp.Header.Get("Cache-Control"))
		}
		etag := resp.Header.Get("ETag")
		again, _ := e.appGet(u, "If-None-Match", etag)
		if again.StatusCode != http.StatusNotModified {
			t.Errorf("%s If-None-Match: got %d, want 304", u, again.StatusCode)
		}
	}
	resp, _ := e.appGet("/static/fileframe.css")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
		t.Errorf("CSS Content-Type: got %q", ct)
	}
	resp, _ = e.appGet("/static/fileframe.js")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("JS Content-Type: got %q", ct)
	}
}

func TestHumanSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {999, "999 B"}, {1000, "1.0 kB"}, {1500, "1.5 kB"}, {99_949, "99.9 kB"},
		{99_950, "100 kB"}, {999_499, "999 kB"}, {999_500, "1.0 MB"}, {12_400_000, "12.4 MB"},
		{1 << 30, "1.1 GB"}, {5_000_000_000_000, "5.0 TB"}, {1<<63 - 1, "9.2 EB"},
	}
	for _, tt := range tests {
		if got := humanSize(tt.n); got != tt.want {
			t.Errorf("humanSize(%d): got %q, want %q", tt.n, got, tt.want)
		}
	}
}

package web

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"golang.org/x/net/html"
)

// crawlers are the User-Agents of the link preview fetchers of the
// messengers (iMessage fetches as facebookexternalhit and Twitterbot).
var crawlers = map[string]string{
	"slack":    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
	"facebook": "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
	"twitter":  "Twitterbot/1.0",
	"whatsapp": "WhatsApp/2.23.20.0",
	"linkedin": "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
	"discord":  "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
	"imessage": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
}

// crawl fetches path on the app origin as a messenger's crawler: its
// User-Agent, no cookies.
func (e *testEnv) crawl(path, ua string) (*http.Response, []byte) {
	e.t.Helper()
	return e.appGet(path, "User-Agent", ua, "Accept", "text/html,*/*")
}

// metaTags returns the content of every <meta property|name> in body's
// head, by property or name; a tag seen twice fails the test.
func metaTags(t *testing.T, body []byte) map[string]string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	head := findTag(doc, "head")
	if head == nil {
		t.Fatal("no <head>")
	}
	tags := map[string]string{}
	for n := range head.Descendants() {
		if n.Type != html.ElementNode || n.Data != "meta" {
			continue
		}
		var key, content string
		for _, a := range n.Attr {
			switch a.Key {
			case "property", "name":
				key = a.Val
			case "content":
				content = a.Val
			}
		}
		if !strings.HasPrefix(key, "og:") && !strings.HasPrefix(key, "twitter:") {
			continue
		}
		if _, dup := tags[key]; dup {
			t.Errorf("meta %s twice", key)
		}
		tags[key] = content
	}
	return tags
}

// wantTags checks that tags has every key of want with its value.
func wantTags(t *testing.T, tags, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got, ok := tags[k]; !ok || got != v {
			t.Errorf("%s: got %q (present %v), want %q", k, got, ok, v)
		}
	}
}

// TestLinkPreviewMeta fetches each kind of public page as each messenger's
// crawler does and checks the Open Graph and Twitter tags, escaped.
func TestLinkPreviewMeta(t *testing.T) {
	e := newTestEnv(t)
	name := `Q3 <script>alert(1)</script> "plan" & budget's.pdf`
	content := bytes.Repeat([]byte("x"), 2_400_000)

	free := e.file(e.account(fileframe.PlanFree), name, content)
	pro := e.account(fileframe.PlanPro)
	tmpl := e.file(pro, name, content)
	e.setFileLook(tmpl, fileframe.Appearance{Template: "bold", Headline: `Northwind <b>Studio</b>`, Accent: "#0f766e"})
	_, outer := e.agencyFile(name, content)
	e.savePage(outer, customHTML("page"), true)

	base := e.srv.cfg.BaseURL.String()
	for page, f := range map[string]fileframe.File{"default": free, "template": tmpl, "outer": outer} {
		wantDesc := "2.4 MB"
		if page == "template" {
			wantDesc = "2.4 MB · Northwind <b>Studio</b>"
		}
		wantTitle := name
		if page == "outer" {
			// The custom page's <title> ("t") is its own title.
			wantTitle = "t"
		}
		for crawler, ua := range crawlers {
			t.Run(page+"/"+crawler, func(t *testing.T) {
				resp, body := e.crawl("/f/"+f.Slug, ua)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("status: got %d, want 200", resp.StatusCode)
				}
				if bytes.Contains(body, []byte("<script>alert")) {
					t.Error("the name is not escaped")
				}
				tags := metaTags(t, body)
				wantTags(t, tags, map[string]string{
					"og:type":             "website",
					"og:site_name":        "Fileframe",
					"og:title":            wantTitle,
					"og:description":      wantDesc,
					"og:url":              base + "/f/" + f.Slug,
					"og:image":            base + "/f/" + f.Slug + "/card.png",
					"og:image:width":      "1200",
					"og:image:height":     "630",
					"og:image:type":       "image/png",
					"og:image:alt":        name + ", 2.4 MB",
					"twitter:card":        "summary_large_image",
					"twitter:title":       wantTitle,
					"twitter:description": wantDesc,
					"twitter:image":       base + "/f/" + f.Slug + "/card.png",
				})
			})
		}
	}
}

// TestLinkPreviewCustomPageTags checks that a published custom page's own
// og: tags (or <title> and description) win, that only an https image is
// taken, and that a draft's tags are not used.
func TestLinkPreviewCustomPageTags(t *testing.T) {
	e := newTestEnv(t)
	_, f := e.agencyFile("assets.zip", []byte("zip"))
	base := e.srv.cfg.BaseURL.String()
	card := base + "/f/" + f.Slug + "/card.png"

	e.savePage(f, `<!doctype html><html><head><title>Plain title</title>
<meta name="description" content="Plain description">
<meta property="og:title" content="Spring &amp; &quot;summer&quot; <campaign>">
<meta property="og:description" content="Everything for the launch.">
<meta property="og:image" content="https://cdn.example.com/hero.png">
</head><body><p>Hi</p></body></html>`, true)
	tags := metaTags(t, e.crawlGet(f))
	wantTags(t, tags, map[string]string{
		"og:title":       `Spring & "summer" <campaign>`,
		"og:description": "Everything for the launch.",
		"og:image":       "https://cdn.example.com/hero.png",
		"twitter:image":  "https://cdn.example.com/hero.png",
	})
	if _, ok := tags["og:image:width"]; ok {
		t.Error("og:image:width given for the page's own image, whose size is unknown")
	}

	// A draft changes nothing that visitors (or crawlers) see.
	e.savePage(f, `<!doctype html><html><head><meta property="og:title" content="Draft"></head><body>x</body></html>`, false)
	if got := metaTags(t, e.crawlGet(f))["og:title"]; got == "Draft" {
		t.Error("a draft's og:title is shown")
	}

	// Without og: tags: <title> and the description; an http image is
	// ignored for the card.
	e.savePage(f, `<!doctype html><html><head><title> Plain
  title </title><meta name="description" content="Plain description">
<meta property="og:image" content="http://insecure.example.com/a.png"></head><body>x</body></html>`, true)
	wantTags(t, metaTags(t, e.crawlGet(f)), map[string]string{
		"og:title":       "Plain title",
		"og:description": "Plain description",
		"og:image":       card,
	})
}

// TestLinkPreviewLongHead checks that tags after a large inline style
// are still read: the head is read in a first slice (pageHeadFirst) and
// again, longer, only when it goes on past it; tags past pageHeadMax
// are not read.
func TestLinkPreviewLongHead(t *testing.T) {
	e := newTestEnv(t)
	style := "<style>" + strings.Repeat(".a{color:red}\n", pageHeadFirst/14+100) + "</style>"
	for _, c := range []struct {
		name, head, want string
	}{
		{"a short head", `<title>Short</title>`, "Short"},
		{"tags after a style longer than the first read", style + `<meta property="og:title" content="After the style">`, "After the style"},
		{"a title cut by the first read", strings.Repeat(" ", pageHeadFirst-10) + `<title>Straddling</title>`, "Straddling"},
		{"tags past the bound", "<style>" + strings.Repeat("x", pageHeadMax) + `</style><meta property="og:title" content="Too far">`, ""},
	} {
		_, f := e.agencyFile("assets.zip", []byte("zip"))
		e.savePage(f, `<!doctype html><html><head>`+c.head+`</head><body><p>Hi</p></body></html>`, true)
		got := metaTags(t, e.crawlGet(f))["og:title"]
		if c.want != "" && got != c.want || c.want == "" && got == "Too far" {
			t.Errorf("%s: og:title %q, want %q", c.name, got, c.want)
		}
	}
}

// crawlGet is f's public page as Slack's crawler fetches it.
func (e *testEnv) crawlGet(f fileframe.File) []byte {
	e.t.Helper()
	resp, body := e.crawl("/f/"+f.Slug, crawlers["slack"])
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("GET /f/%s: status %d", f.Slug, resp.StatusCode)
	}
	return body
}

func TestReadPageMeta(t *testing.T) {
	tests := []struct {
		name, doc string
		want      pageMeta
	}{
		{"nothing", `<!doctype html><p>x`, pageMeta{}},
		{"title only", `<title>A &amp; B</title>`, pageMeta{Title: "A & B"}},
		{"og wins", `<head><title>T</title><meta name=description content=D><meta property=og:title content=OT><meta property=og:description content=OD></head>`,
			pageMeta{Title: "OT", Description: "OD"}},
		{"name= og", `<meta name="og:title" content="N">`, pageMeta{Title: "N"}},
		{"first wins", `<meta property=og:title content=1><meta property=og:title content=2>`, pageMeta{Title: "1"}},
		{"https image", `<meta property=og:image content=" https://x.example/a.png ">`, pageMeta{Image: "https://x.example/a.png"}},
		{"http image", `<meta property=og:image content=http://x.example/a.png>`, pageMeta{}},
		{"relative image", `<meta property=og:image content=/a.png>`, pageMeta{}},
		{"data image", `<meta property=og:image content="data:image/png;base64,AA">`, pageMeta{}},
		{"credentials", `<meta property=og:image content="https://u:p@x.example/a.png">`, pageMeta{}},
		{"body tags ignored", `<head></head><body><meta property=og:title content=Late><title>Late</title>`, pageMeta{}},
		{"stops at body content", `<title>T</title><div><meta property=og:title content=Late>`, pageMeta{Title: "T"}},
		{"script text is not a tag", `<script>"<meta property=og:title content=X>"</script><title>T</title>`, pageMeta{Title: "T"}},
		{"white space", "<title>\n  a\t\tb  </title>", pageMeta{Title: "a b"}},
		{"long", `<title>` + strings.Repeat("x", 500) + `</title>`, pageMeta{Title: strings.Repeat("x", maxMetaTitle-1) + "…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := readPageMeta([]byte(tt.doc)); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// getCard fetches f's card.
func (e *testEnv) getCard(f fileframe.File, header ...string) (*http.Response, []byte) {
	e.t.Helper()
	return e.appGet("/f/"+f.Slug+"/card.png", header...)
}

// decodeCard checks that b is a 1200×630 PNG.
func decodeCard(t *testing.T, b []byte) image.Image {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decoding the card: %v", err)
	}
	if format != "png" || cfg.Width != 1200 || cfg.Height != 630 {
		t.Fatalf("card: got %s %d×%d, want png 1200×630", format, cfg.Width, cfg.Height)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestLinkPreviewCard fetches the card as a crawler: its type, size,
// caching headers, ETag and 304, HEAD, and that neither the card nor the
// page counts as a download.
func TestLinkPreviewCard(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanPro)
	f := e.file(a, "Campaign assets, final.zip", bytes.Repeat([]byte("x"), 5000))
	e.setAccountLook(a, fileframe.Appearance{Template: "minimal", Headline: "Northwind", Accent: "#e4572e", LogoKey: e.putBlob(pngImage(t))})

	for _, ua := range crawlers {
		resp, body := e.getCard(f, "User-Agent", ua)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status: got %d, want 200: %s", resp.StatusCode, body)
		}
		decodeCard(t, body)
		for k, want := range map[string]string{
			"Content-Type":           "image/png",
			"Cache-Control":          "public, max-age=300",
			"X-Content-Type-Options": "nosniff",
		} {
			if got := resp.Header.Get(k); got != want {
				t.Errorf("%s: got %q, want %q", k, got, want)
			}
		}
		if resp.Header.Get("Set-Cookie") != "" {
			t.Error("the card sets a cookie")
		}
	}
	resp, body := e.getCard(f)
	etag := resp.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) {
		t.Fatalf("ETag: got %q", etag)
	}
	if resp.Header.Get("Content-Length") != fmt.Sprint(len(body)) {
		t.Errorf("Content-Length %q for %d bytes", resp.Header.Get("Content-Length"), len(body))
	}

	resp, body = e.getCard(f, "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Errorf("If-None-Match: got %d with %d bytes, want 304 and none", resp.StatusCode, len(body))
	}
	resp, body = e.do(publicRequest(t, http.MethodHead, e.app.URL+"/f/"+f.Slug+"/card.png"))
	if resp.StatusCode != http.StatusOK || len(body) != 0 || resp.Header.Get("Content-Type") != "image/png" {
		t.Errorf("HEAD: got %d, %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}

	// A new appearance is a new card.
	e.setAccountLook(a, fileframe.Appearance{Template: "minimal", Headline: "Southwind"})
	if resp, _ := e.getCard(f); resp.Header.Get("ETag") == etag {
		t.Error("the ETag did not change with the headline")
	}

	e.crawl("/f/"+f.Slug, crawlers["facebook"])
	if err := e.srv.counts.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.downloads(f); got != 0 {
		t.Errorf("downloads: got %d after the card and the page, want 0", got)
	}

	if resp, _ := e.appGet("/f/nosuchslug/card.png"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown slug: got %d, want 404", resp.StatusCode)
	}
}

// TestLinkPreviewCardBounded asks for many different cards at once, with
// two drawing slots: every request is answered, never more than two cards
// are drawn at a time, and the cache stays within its bytes.
func TestLinkPreviewCardBounded(t *testing.T) {
	e := newTestEnv(t)
	e.srv.cards.slots = make(chan struct{}, 2)
	e.srv.cards.max = 200 << 10 // a few cards, so that some are evicted
	// 72 requests for 24 cards drawn two at a time wait longer than
	// cardWait under the race detector on a busy machine (CI, 28
	// November: three 503s after 12 s); this test is about the bound.
	e.srv.cards.wait = 5 * time.Minute
	a := e.account(fileframe.PlanFree)
	var files []fileframe.File
	for i := range 24 {
		files = append(files, e.file(a, fmt.Sprintf("report number %d with a long enough name.pdf", i), []byte{byte(i)}))
	}
	var wg sync.WaitGroup
	codes := make(chan int, 3*len(files))
	for range 3 {
		for _, f := range files {
			wg.Go(func() {
				req := publicRequest(t, http.MethodGet, e.app.URL+"/f/"+f.Slug+"/card.png")
				resp, err := http.DefaultTransport.RoundTrip(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				codes <- resp.StatusCode
			})
		}
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("status %d, want 200", c)
		}
	}
	if p := e.srv.cards.peak.Load(); p < 1 || p > 2 {
		t.Errorf("cards drawn at once: at most %d, want 1 or 2", p)
	}
	c := e.srv.cards
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.size > c.max || c.lru.Len() == 0 || c.lru.Len() >= len(files) {
		t.Errorf("cache: %d cards, %d bytes (max %d); want some evicted, within max", c.lru.Len(), c.size, c.max)
	}
}

// bombPNG is a small PNG whose header declares 50,000 × 50,000 pixels.
func bombPNG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	p := b.Bytes()
	for _, at := range []int{16, 20} {
		p[at], p[at+1], p[at+2], p[at+3] = 0, 0, 0xc3, 0x50 // 50,000
	}
	sum := crc32.ChecksumIEEE(p[12:29])
	p[29], p[30], p[31], p[32] = byte(sum>>24), byte(sum>>16), byte(sum>>8), byte(sum)
	return p
}

// TestLinkPreviewCardLogoBomb gives an appearance a logo that would take
// 10 GB decoded: the card is drawn without it.
func TestLinkPreviewCardLogoBomb(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanPro)
	f := e.file(a, "report.pdf", []byte("x"))
	e.setAccountLook(a, fileframe.Appearance{Template: "card", Headline: "Bombs away", LogoKey: e.putBlob(bombPNG(t))})
	resp, body := e.getCard(f)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status: got %d, want 200: %s", resp.StatusCode, body)
	}
	decodeCard(t, body)
	if !strings.Contains(e.logs.String(), "drawn without its logo") {
		t.Error("the refused logo was not logged")
	}
}

// TestLinkPreviewProtected checks that a password-protected link reveals
// nothing, or only the name and size, in its tags and its card.
func TestLinkPreviewProtected(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanPro)
	e.setAccountLook(a, fileframe.Appearance{Template: "minimal", Headline: "Secret headline", Accent: "#6d28d9"})
	protect := func(name, reveal string) fileframe.File {
		f := e.file(a, name, bytes.Repeat([]byte("x"), 3000))
		f, err := e.store.SetLink(context.Background(), f.ID, fileframe.Link{PasswordHash: "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA", Reveal: reveal})
		if err != nil {
			t.Fatalf("SetLink: %v", err)
		}
		return f
	}

	hidden := protect("secret-merger-plan.pdf", fileframe.RevealNothing)
	tags := metaTags(t, e.crawlGet(hidden))
	wantTags(t, tags, map[string]string{"og:title": "A file shared with you", "og:site_name": "Fileframe", "og:image:alt": "A file shared with you"})
	for k, v := range tags {
		if strings.Contains(v, "secret-merger") || strings.Contains(v, "3.0 kB") || strings.Contains(v, "Secret headline") {
			t.Errorf("%s reveals %q", k, v)
		}
	}
	// The card of another hidden file is the same card: nothing of the
	// file is drawn.
	other := protect("another name entirely.zip", fileframe.RevealNothing)
	r1, c1 := e.getCard(hidden)
	_, c2 := e.getCard(other)
	decodeCard(t, c1)
	// Revalidated every time: the owner's choice of what it reveals can
	// change, and a shared cache must not keep the old one.
	if got := r1.Header.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("a protected link's card: Cache-Control %q, want no-cache", got)
	}
	if !bytes.Equal(c1, c2) {
		t.Error("the cards of two protected links that reveal nothing differ")
	}

	named := protect("named.pdf", fileframe.RevealName)
	tags = metaTags(t, e.crawlGet(named))
	wantTags(t, tags, map[string]string{"og:title": "named.pdf", "og:description": "3.0 kB"})
	for k, v := range tags {
		if strings.Contains(v, "Secret headline") {
			t.Errorf("%s reveals the headline: %q", k, v)
		}
	}
	_, c3 := e.getCard(named)
	decodeCard(t, c3)
	if bytes.Equal(c1, c3) {
		t.Error("a link that reveals its name has the generic card")
	}

	// A protected custom page's own tags stay behind the password.
	ag := e.account(fileframe.PlanAgency)
	page := e.file(ag, "page.zip", []byte("x"))
	e.savePage(page, `<!doctype html><html><head><title>Inside</title><meta property="og:image" content="https://x.example/i.png"></head><body>x</body></html>`, true)
	if _, err := e.store.SetLink(context.Background(), page.ID, fileframe.Link{PasswordHash: "x"}); err != nil {
		t.Fatal(err)
	}
	tags = metaTags(t, e.crawlGet(page))
	if tags["og:title"] != genericTitle || strings.Contains(tags["og:image"], "x.example") {
		t.Errorf("a protected custom page reveals its tags: %v", tags)
	}
}

// TestLinkPreviewEnded checks that an ended link has no card.
func TestLinkPreviewEnded(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	expired := e.file(a, "old.pdf", []byte("x"))
	if _, err := e.store.SetLink(context.Background(), expired.ID, fileframe.Link{ExpiresAt: time.Now().Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	resp, body := e.getCard(expired)
	if resp.StatusCode != http.StatusGone || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("expired: got %d %q, want 410 text/plain: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// TestLinkPreviewCardBusy: a request that cannot get a drawing slot
// within the wait is answered 503 with Retry-After, not held; once a
// slot is free the card is drawn.
func TestLinkPreviewCardBusy(t *testing.T) {
	e := newTestEnv(t)
	e.srv.cards.slots = make(chan struct{}, 1)
	e.srv.cards.wait = 100 * time.Millisecond
	a := e.account(fileframe.PlanFree)
	f := e.file(a, "report.pdf", []byte("x"))
	e.srv.cards.slots <- struct{}{} // every slot taken
	get := func() *http.Response {
		resp, err := http.DefaultTransport.RoundTrip(publicRequest(t, http.MethodGet, e.app.URL+"/f/"+f.Slug+"/card.png"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := get(); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("with every slot taken: status %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	<-e.srv.cards.slots
	if resp := get(); resp.StatusCode != http.StatusOK {
		t.Fatalf("with a slot free: status %d, want 200", resp.StatusCode)
	}
}

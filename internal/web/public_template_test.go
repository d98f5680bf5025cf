package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/sqlite"
	"golang.org/x/net/html"
)

// pngImage returns a small PNG image.
func pngImage(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 2))
	img.Set(1, 1, color.RGBA{200, 30, 30, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// putBlob stores b and returns its key.
func (e *testEnv) putBlob(b []byte) string {
	e.t.Helper()
	info, err := e.blobs.Put(context.Background(), bytes.NewReader(b))
	if err != nil {
		e.t.Fatalf("Blobs.Put: %v", err)
	}
	return info.Key
}

func (e *testEnv) setFileLook(f fileframe.File, a fileframe.Appearance) {
	e.t.Helper()
	if err := e.store.SetFileAppearance(context.Background(), f.ID, a, 0, time.Now()); err != nil {
		e.t.Fatalf("SetFileAppearance: %v", err)
	}
}

func (e *testEnv) setAccountLook(a fileframe.Account, look fileframe.Appearance) {
	e.t.Helper()
	if err := e.store.SetAccountAppearance(context.Background(), a.ID, look, 0, time.Now()); err != nil {
		e.t.Fatalf("SetAccountAppearance: %v", err)
	}
}

// assertTemplateHeaders checks a template page's security headers: those
// of every public page, with a CSP that allows the page's one <style>
// element by its hash and nothing else inline; frameAncestors is 'none',
// or 'self' for the editor's preview.
func assertTemplateHeaders(t *testing.T, resp *http.Response, doc *html.Node, frameAncestors string) {
	t.Helper()
	style := findTag(doc, "style")
	if style == nil {
		t.Fatal("no <style> element")
	}
	sum := sha256.Sum256([]byte(htmlText(style)))
	wantCSP := "default-src 'none'; frame-src 'none'; frame-ancestors " + frameAncestors + "; form-action 'none'; " +
		"base-uri 'none'; script-src 'self'; style-src 'self' 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'self' data:"
	xfo := "DENY"
	if frameAncestors == "'self'" {
		xfo = "SAMEORIGIN"
	}
	assertSecurityHeaders(t, resp, wantCSP, xfo)
	var walk func(*html.Node)
	styles := 0
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "style" {
				styles++
			}
			if _, ok := htmlAttr(n, "style"); ok {
				t.Errorf("<%s> has a style attribute, which the CSP blocks", n.Data)
			}
			if n.Data == "script" {
				if src, _ := htmlAttr(n, "src"); !strings.HasPrefix(src, "/static/") {
					t.Errorf("script src %q is not a static file", src)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if styles != 1 {
		t.Errorf("%d <style> elements, want 1", styles)
	}
}

// assertControl checks that the first element of the body is the default
// page's download control for f, of the given size.
func assertControl(t *testing.T, doc *html.Node, f fileframe.File, size string) {
	t.Helper()
	control := firstElementChild(findTag(doc, "body"))
	if !htmlHasClass(control, "ff-control") {
		t.Fatalf("first element in body: want the download control")
	}
	link := findTag(control, "a")
	if href, _ := htmlAttr(link, "href"); href != "/f/"+f.Slug+"/download" {
		t.Errorf("control link: got %q, want /f/%s/download", href, f.Slug)
	}
	if got, want := htmlText(link), "Download "+f.Name+" "+size; got != want {
		t.Errorf("control text: got %q, want %q", got, want)
	}
}

// TestTemplatePages: every template, with branding and without, shows the
// file's name and size, the default page's download control, the branding,
// and the public pages' headers with a hash-allowed accent style.
func TestTemplatePages(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanPro)
	logo, back := e.putBlob(pngImage(t)), e.putBlob(append(pngImage(t), 0))
	for _, tmpl := range builtinTemplates {
		for _, branded := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s branded=%v", tmpl.Name, branded), func(t *testing.T) {
				f := e.file(a, `<i>Plan</i> & "budget".pdf`, bytes.Repeat([]byte("x"), 2_400_000))
				look := fileframe.Appearance{Template: tmpl.Name}
				if branded {
					look = fileframe.Appearance{Template: tmpl.Name, Headline: "Hello <there>",
						Message: "Line one\nLine two", Accent: "#ffd400", LogoKey: logo, Background: back}
				}
				e.setFileLook(f, look)
				resp, body := e.appGet("/f/" + f.Slug)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("status: got %d, want 200", resp.StatusCode)
				}
				if got := pageKind(t, body); got != "template:"+tmpl.Name {
					t.Fatalf("page: got %s, want template:%s", got, tmpl.Name)
				}
				doc := parsePage(t, body)
				assertTemplateHeaders(t, resp, doc, "'none'")
				assertControl(t, doc, f, "2.4 MB")
				text := htmlText(findTag(doc, "main"))
				wantH1 := f.Name
				if branded {
					wantH1 = "Hello <there>"
					for _, want := range []string{"Line one Line two", f.Name, "2.4 MB"} {
						if !strings.Contains(text, want) {
							t.Errorf("main text %q lacks %q", text, want)
						}
					}
				} else if !strings.Contains(text, "2.4 MB") {
					t.Errorf("main text %q lacks the size", text)
				}
				if got := htmlText(findTag(doc, "h1")); got != wantH1 {
					t.Errorf("h1: got %q, want %q", got, wantH1)
				}
				style := htmlText(findTag(doc, "style"))
				accent := tmpl.Accent
				if branded {
					// Yellow takes black text.
					accent = "#ffd400"
					if !strings.Contains(style, "--tpl-on-accent:#000000") {
						t.Errorf("style %q: want black text on yellow", style)
					}
				}
				if !strings.Contains(style, "--tpl-accent:"+accent+";") {
					t.Errorf("style %q: want accent %s", style, accent)
				}
				imgs := map[string]bool{}
				var walk func(*html.Node)
				walk = func(n *html.Node) {
					if n.Type == html.ElementNode && n.Data == "img" {
						src, _ := htmlAttr(n, "src")
						imgs[src] = true
						if _, ok := htmlAttr(n, "alt"); !ok {
							t.Errorf("img %s has no alt", src)
						}
					}
					for c := n.FirstChild; c != nil; c = c.NextSibling {
						walk(c)
					}
				}
				walk(doc)
				wantImgs := map[string]bool{}
				if branded {
					wantImgs["/f/"+f.Slug+"/logo?v="+logo[:16]] = true
					wantImgs["/f/"+f.Slug+"/background?v="+back[:16]] = true
				}
				if fmt.Sprint(imgs) != fmt.Sprint(wantImgs) {
					t.Errorf("images: got %v, want %v", imgs, wantImgs)
				}
			})
		}
	}
}

// TestPublicAppearancePrecedence: a published custom page (Agency) wins
// over the file's appearance, which wins over the account's default, which
// wins over the neutral default page; a plan without templates shows the
// default page whatever is stored.
func TestPublicAppearancePrecedence(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	fileLook := fileframe.Appearance{Template: "bold", Headline: "File"}
	acctLook := fileframe.Appearance{Template: "card", Headline: "Account"}
	tests := []struct {
		name    string
		plan    fileframe.Plan
		publish bool // a published custom page
		draft   bool // a draft custom page
		file    *fileframe.Appearance
		account *fileframe.Appearance
		after   fileframe.Plan // a later plan change, if any
		want    string
	}{
		{"agency, published page over both appearances", fileframe.PlanAgency, true, false, &fileLook, &acctLook, "", "outer"},
		{"agency, draft page: the file's appearance", fileframe.PlanAgency, false, true, &fileLook, &acctLook, "", "template:bold"},
		{"pro: file over account", fileframe.PlanPro, false, false, &fileLook, &acctLook, "", "template:bold"},
		{"pro: account default", fileframe.PlanPro, false, false, nil, &acctLook, "", "template:card"},
		{"pro: file only", fileframe.PlanPro, false, false, &fileLook, nil, "", "template:bold"},
		{"pro: nothing set", fileframe.PlanPro, false, false, nil, nil, "", "default"},
		{"free: appearances stored, default shown", fileframe.PlanFree, false, false, &fileLook, &acctLook, "", "default"},
		{"pro downgraded to free", fileframe.PlanPro, false, false, &fileLook, &acctLook, fileframe.PlanFree, "default"},
		{"agency with a published page downgraded to pro", fileframe.PlanAgency, true, false, nil, &acctLook, fileframe.PlanPro, "template:card"},
		{"free upgraded to pro", fileframe.PlanFree, false, false, nil, &acctLook, fileframe.PlanPro, "template:card"},
		{"unknown template", fileframe.PlanPro, false, false, &fileframe.Appearance{Template: "gone"}, &acctLook, "", "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := e.account(tt.plan)
			f := e.file(a, "a.txt", []byte("hello"))
			if tt.publish || tt.draft {
				e.savePage(f, customHTML("page"), tt.publish)
			}
			if tt.file != nil {
				e.setFileLook(f, *tt.file)
			}
			if tt.account != nil {
				e.setAccountLook(a, *tt.account)
			}
			// Seen once before the plan change, so that a stale cache shows.
			e.appGet("/f/" + f.Slug)
			if tt.after != "" {
				if err := e.store.SetAccountPlan(ctx, a.ID, tt.after); err != nil {
					t.Fatal(err)
				}
			}
			resp, body := e.appGet("/f/" + f.Slug)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status: got %d, want 200", resp.StatusCode)
			}
			if got := pageKind(t, body); got != tt.want {
				t.Errorf("page: got %s, want %s", got, tt.want)
			}
		})
	}
	t.Run("disabled account", func(t *testing.T) {
		a := e.account(fileframe.PlanPro)
		f := e.file(a, "a.txt", []byte("hello"))
		e.setFileLook(f, fileLook)
		if err := e.store.SetAccountDisabled(ctx, a.ID, true); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/f/" + f.Slug, "/f/" + f.Slug + "/logo"} {
			if resp, _ := e.appGet(path); resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s: got %d, want 404", path, resp.StatusCode)
			}
		}
	})
}

// TestTemplateCacheNeverStale: a template page is served from the public
// cache and follows every appearance change at once: through this server's
// store, through a second Store on the same file (the admin CLI), and
// through a second Server on the same file (another instance).
func TestTemplateCacheNeverStale(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	cli, err := sqlite.Open(ctx, filepath.Join(e.dir, "fileframe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	other := startTestEnv(t, e.dir)
	a := e.account(fileframe.PlanPro)
	f := e.file(a, "a.txt", []byte("hello"))

	headline := func() string {
		t.Helper()
		resp, body := e.appGet("/f/" + f.Slug)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		doc := parsePage(t, body)
		return pageKind(t, body) + " " + htmlText(findTag(doc, "h1"))
	}
	look := func(tmpl, h string) fileframe.Appearance {
		return fileframe.Appearance{Template: tmpl, Headline: h}
	}
	steps := []struct {
		name   string
		change func() error
		want   string
	}{
		{"nothing set", func() error { return nil }, "default a.txt"},
		{"account default through the server's store", func() error {
			return e.srv.store.SetAccountAppearance(ctx, a.ID, look("minimal", "One"), 0, time.Now())
		}, "template:minimal One"},
		{"file override through the server's store", func() error {
			return e.srv.store.SetFileAppearance(ctx, f.ID, look("bold", "Two"), 0, time.Now())
		}, "template:bold Two"},
		{"file override through a second Store", func() error {
			return cli.SetFileAppearance(ctx, f.ID, look("photo", "Three"), 0, time.Now())
		}, "template:photo Three"},
		{"file override through a second Server", func() error {
			return other.srv.store.SetFileAppearance(ctx, f.ID, look("card", "Four"), 0, time.Now())
		}, "template:card Four"},
		{"file override cleared through a second Server", func() error {
			return other.srv.store.SetFileAppearance(ctx, f.ID, fileframe.Appearance{}, 0, time.Now())
		}, "template:minimal One"},
		{"account default changed through a second Store", func() error {
			return cli.SetAccountAppearance(ctx, a.ID, look("minimal", "Five"), 0, time.Now())
		}, "template:minimal Five"},
		{"plan free through a second Server", func() error {
			return other.srv.store.SetAccountPlan(ctx, a.ID, fileframe.PlanFree)
		}, "default a.txt"},
		{"plan pro through a second Store", func() error {
			return cli.SetAccountPlan(ctx, a.ID, fileframe.PlanPro)
		}, "template:minimal Five"},
		{"account default cleared", func() error {
			return e.srv.store.SetAccountAppearance(ctx, a.ID, fileframe.Appearance{}, 0, time.Now())
		}, "default a.txt"},
	}
	for _, step := range steps {
		if err := step.change(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		for i := range 2 {
			if got := headline(); got != step.want {
				t.Errorf("after %s (request %d): got %q, want %q", step.name, i+1, got, step.want)
			}
		}
	}
	// The template page is the cached one: a hit renders nothing.
	e.srv.store.SetAccountAppearance(ctx, a.ID, look("card", "Cached"), 0, time.Now())
	headline()
	gen, _ := e.srv.generation(ctx)
	entry := e.srv.cache.get(f.Slug, gen)
	if entry == nil || entry.rendered.Load() == nil || !entry.hasTemplate {
		t.Fatalf("the template page is not in the cache")
	}
	_, body := e.appGet("/f/" + f.Slug)
	if !bytes.Equal(body, entry.rendered.Load().body) {
		t.Errorf("the page served is not the cached one")
	}
}

func TestParseAccent(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"#1d4ed8", "#1d4ed8", true},
		{"#ABCDEF", "#abcdef", true},
		{"#000000", "#000000", true},
		{"1d4ed8", "", false},
		{"#1d4ed", "", false},
		{"#1d4ed80", "", false},
		{"#1g4ed8", "", false},
		{"red", "", false},
		{"#fff", "", false},
		{"", "", false},
		{"#12345;", "", false},
		{"#1d4ed8}", "", false},
	}
	for _, tt := range tests {
		got, ok := parseAccent(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseAccent(%q): got %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestDeriveAccent: over a dense sample of the colour cube, text on the
// accent and the accent as text on white meet WCAG AA (4.5:1).
func TestDeriveAccent(t *testing.T) {
	for _, tt := range []struct{ accent, on string }{
		{"#ffffff", "#000000"}, {"#000000", "#ffffff"}, {"#1d4ed8", "#ffffff"}, {"#ffd400", "#000000"},
	} {
		if got := deriveAccent(tt.accent).OnAccent; got != tt.on {
			t.Errorf("text on %s: got %s, want %s", tt.accent, got, tt.on)
		}
	}
	for r := 0; r < 256; r += 15 {
		for g := 0; g < 256; g += 15 {
			for b := 0; b < 256; b += 15 {
				a := rgb{float64(r), float64(g), float64(b)}.hex()
				c := deriveAccent(a)
				if got := contrast(hexRGB(c.Accent), hexRGB(c.OnAccent)); got < 4.5 {
					t.Fatalf("%s: text %s on it contrasts %.2f, want ≥ 4.5", a, c.OnAccent, got)
				}
				if got := contrast(hexRGB(c.Ink), white); got < 4.5 {
					t.Fatalf("%s: ink %s on white contrasts %.2f, want ≥ 4.5", a, c.Ink, got)
				}
			}
		}
	}
}

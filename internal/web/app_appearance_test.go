package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"html/template"
	"image"
	"image/gif"
	"image/jpeg"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// editorFile is an image sent with an editor form.
type editorFile struct {
	field, name string
	body        []byte
}

// postEditor sends an appearance editor's form as the browser does
// (multipart, with the page's CSRF token unless fields has one).
func (b *appBrowser) postEditor(path string, fields url.Values, files ...editorFile) (*http.Response, string) {
	b.e.t.Helper()
	if _, ok := fields["csrf"]; !ok {
		fields.Set("csrf", b.token(path))
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range fields {
		for _, v := range vs {
			mw.WriteField(k, v)
		}
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(f.field, f.name)
		if err != nil {
			b.e.t.Fatal(err)
		}
		w.Write(f.body)
	}
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, b.e.app.URL+path, &body)
	if err != nil {
		b.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return b.send(req)
}

// signedInAs creates an account on plan and a browser signed in to it.
func signedInAs(e *testEnv, email string, plan fileframe.Plan) (*appBrowser, fileframe.Account) {
	e.t.Helper()
	a := e.member(email, plan)
	b := newAppBrowser(e)
	b.login(email, testPassword)
	return b, a
}

func wantSaved(t *testing.T, resp *http.Response, body, path string) {
	t.Helper()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != path+"?saved=1" {
		t.Fatalf("POST %s: got %d %q, want 303 to %s?saved=1:\n%s", path, resp.StatusCode, resp.Header.Get("Location"), path, body)
	}
}

// TestAppearanceAccountEditor: a Pro account saves its default branding,
// which its files' links show at once; wrong fields are reported on the
// page with what was typed.
func TestAppearanceAccountEditor(t *testing.T) {
	e := newTestEnv(t)
	b, a := signedInAs(e, "pro@example.com", fileframe.PlanPro)
	f := e.file(a, "report.pdf", []byte("%PDF"))

	resp, body := b.get("/appearance")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /appearance: %d", resp.StatusCode)
	}
	for _, want := range []string{`<legend>Template</legend>`, `type="radio" name="template" value="minimal"`,
		`value="card"`, `for="ap-accent"`, `name="logo" type="file"`, `enctype="multipart/form-data"`,
		`<iframe class="ap-frame" src="/appearance/preview?`, `aria-current="page"`} {
		if !strings.Contains(body, want) {
			t.Errorf("editor lacks %s", want)
		}
	}
	if strings.Contains(body, `value="reset"`) {
		t.Errorf("nothing is stored, yet the editor offers to turn it off")
	}
	if got := resp.Header.Get("Content-Security-Policy"); !strings.Contains(got, "frame-ancestors 'none'") || !strings.Contains(got, "frame-src 'self'") {
		t.Errorf("editor CSP %q: want frame-ancestors 'none' and frame-src 'self'", got)
	}

	resp, body = b.postEditor("/appearance", url.Values{"template": {"bold"}, "headline": {"  Hi there  "},
		"message": {"One\r\nTwo"}, "accent": {"#FFD400"}})
	wantSaved(t, resp, body, "/appearance")
	got, err := e.store.AccountAppearance(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := fileframe.Appearance{Template: "bold", Headline: "Hi there", Message: "One\nTwo", Accent: "#ffd400"}
	if got != want {
		t.Errorf("stored: got %+v, want %+v", got, want)
	}
	if _, page := e.appGet("/f/" + f.Slug); pageKind(t, page) != "template:bold" || !bytes.Contains(page, []byte("Hi there")) {
		t.Errorf("the file's link does not show the saved appearance:\n%s", page)
	}
	_, body = b.get("/appearance?saved=1")
	if !strings.Contains(body, "Saved.") || !strings.Contains(body, `value="Hi there"`) || !strings.Contains(body, `value="bold" data-accent="#e4572e" checked`) {
		t.Errorf("the editor does not show the saved appearance:\n%s", body)
	}

	for _, tt := range []struct {
		name   string
		fields url.Values
		field  string
		msg    string
	}{
		{"accent without #", url.Values{"template": {"card"}, "accent": {"ffd400"}}, "accent", "six hexadecimal digits"},
		{"accent as a name", url.Values{"template": {"card"}, "accent": {"red"}}, "accent", "six hexadecimal digits"},
		{"accent with CSS", url.Values{"template": {"card"}, "accent": {"#fff;}x"}}, "accent", "six hexadecimal digits"},
		{"unknown template", url.Values{"template": {"neon"}}, "template", "Choose one of the templates."},
		{"no template", url.Values{}, "template", "Choose one of the templates."},
		{"headline too long", url.Values{"template": {"card"}, "headline": {strings.Repeat("é", 121)}}, "headline", "at most 120 characters"},
		{"headline with a line break", url.Values{"template": {"card"}, "headline": {"a\nb"}}, "headline", "line breaks"},
		{"message too long", url.Values{"template": {"card"}, "message": {strings.Repeat("x", 1001)}}, "message", "at most 1000 characters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := b.postEditor("/appearance", tt.fields)
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("got %d, want 422", resp.StatusCode)
			}
			if !strings.Contains(body, tt.msg) || !strings.Contains(body, `role="alert"`) {
				t.Errorf("the page does not say %q:\n%s", tt.msg, body)
			}
			// Radios have no invalid state; the other fields are marked.
			if tt.field != "template" && !strings.Contains(body, `id="ap-`+tt.field+`-error"`) {
				t.Errorf("the %s field is not marked", tt.field)
			}
			if v := tt.fields.Get("accent"); v != "" && !strings.Contains(body, `value="`+template.HTMLEscapeString(v)+`"`) {
				t.Errorf("the form lost the accent typed")
			}
			if got, _ := e.store.AccountAppearance(context.Background(), a.ID); got != want {
				t.Errorf("a refused form changed the appearance to %+v", got)
			}
		})
	}

	// Turning it off: the neutral default page again.
	if _, body := b.get("/appearance"); !strings.Contains(body, `value="reset"`) {
		t.Errorf("the editor of a stored appearance has no way to turn it off")
	}
	resp, body = b.postEditor("/appearance", url.Values{"action": {"reset"}})
	wantSaved(t, resp, body, "/appearance")
	if _, page := e.appGet("/f/" + f.Slug); pageKind(t, page) != "default" {
		t.Errorf("after reset: got %s, want the default page", pageKind(t, page))
	}
}

// TestAppearanceImages: logo and background uploads are sniffed, capped
// and refused as SVG; saved ones are served on the public page; removing
// one deletes its blob when nothing else uses it. The clock runs past
// fileframe.BlobGrace, so that unused blobs go at once
// (TestAppearanceFreshImageKept: before).
func TestAppearanceImages(t *testing.T) {
	e := newTestEnv(t, func(c *Config) {
		c.Now = func() time.Time { return time.Now().Add(2 * fileframe.BlobGrace) }
	})
	ctx := context.Background()
	b, a := signedInAs(e, "pro@example.com", fileframe.PlanPro)
	f := e.file(a, "report.pdf", []byte("%PDF"))
	img := pngImage(t)
	fields := func() url.Values { return url.Values{"template": {"photo"}} }

	for _, tt := range []struct {
		name string
		file editorFile
		msg  string
	}{
		{"svg by content", editorFile{"logo", "logo.png", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)}, "SVG"},
		{"svg by name", editorFile{"background", "bg.svg", []byte("just text")}, "SVG"},
		{"text", editorFile{"logo", "logo.png", []byte("hello, this is no image")}, "is not a PNG, JPEG, WebP or GIF image"},
		{"html", editorFile{"logo", "logo.gif", []byte("<html><body>x</body></html>")}, "is not a PNG, JPEG, WebP or GIF image"},
		{"too large", editorFile{"background", "big.png", append(img, make([]byte, maxImageBytes)...)}, "images can be at most 2 MB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := b.postEditor("/appearance", fields(), tt.file)
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tt.msg) {
				t.Fatalf("got %d, want 422 saying %q:\n%s", resp.StatusCode, tt.msg, body)
			}
			if got, _ := e.store.AccountAppearance(ctx, a.ID); !got.IsZero() {
				t.Errorf("a refused upload saved %+v", got)
			}
		})
	}
	// A good image in a refused form is not kept.
	lonely := append(pngImage(t), []byte("lonely")...)
	sum := sha256.Sum256(lonely)
	if resp, _ := b.postEditor("/appearance", url.Values{"template": {"photo"}, "accent": {"nope"}},
		editorFile{"logo", "l.png", lonely}); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a bad accent with a good logo: got %d, want 422", resp.StatusCode)
	}
	if _, err := e.blobs.Stat(ctx, hex.EncodeToString(sum[:])); !fileframe.IsNotFound(err) {
		t.Errorf("the logo of a refused form: %v, want ENOTFOUND", err)
	}
	// A form larger than two images fits is refused before it is read.
	huge := editorFile{"logo", "a.png", append(img, make([]byte, maxAppearanceForm)...)}
	if resp, _ := b.postEditor("/appearance", fields(), huge); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("an oversized form: got %d, want 413", resp.StatusCode)
	}

	back := append(pngImage(t), 1, 2, 3)
	resp, body := b.postEditor("/appearance", fields(), editorFile{"logo", "logo.png", img}, editorFile{"background", "b.png", back})
	wantSaved(t, resp, body, "/appearance")
	look, err := e.store.AccountAppearance(ctx, a.ID)
	if err != nil || look.LogoKey == "" || look.Background == "" {
		t.Fatalf("stored: %+v, %v", look, err)
	}
	for path, want := range map[string][]byte{"/f/" + f.Slug + "/logo": img, "/f/" + f.Slug + "/background": back} {
		resp, got := e.appGet(path)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) || resp.Header.Get("Content-Type") != "image/png" {
			t.Errorf("GET %s: %d %q with %d bytes", path, resp.StatusCode, resp.Header.Get("Content-Type"), len(got))
		}
	}
	_, page := e.appGet("/f/" + f.Slug)
	if !bytes.Contains(page, []byte(`/f/`+f.Slug+`/logo?v=`)) {
		t.Errorf("the page does not show the logo")
	}
	// The editor shows the current images through the owner's route.
	_, body = b.get("/appearance")
	if !strings.Contains(body, `src="/appearance/image/logo?v=`) || !strings.Contains(body, `name="background_remove"`) {
		t.Errorf("the editor does not show the current images")
	}
	if resp, got := b.get("/appearance/image/logo"); resp.StatusCode != http.StatusOK || !bytes.Equal([]byte(got), img) {
		t.Errorf("owner image: %d", resp.StatusCode)
	}
	if resp, _ := newAppBrowser(e).get("/appearance/image/logo"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("owner image signed out: got %d, want 404", resp.StatusCode)
	}

	// Saving without a new upload keeps the images; "remove" drops one,
	// and its blob with it.
	resp, body = b.postEditor("/appearance", url.Values{"template": {"card"}, "logo_remove": {"1"}})
	wantSaved(t, resp, body, "/appearance")
	after, _ := e.store.AccountAppearance(ctx, a.ID)
	if after.LogoKey != "" || after.Background != look.Background {
		t.Errorf("after removing the logo: %+v", after)
	}
	if _, err := e.blobs.Stat(ctx, look.LogoKey); !fileframe.IsNotFound(err) {
		t.Errorf("the removed logo's blob: %v, want ENOTFOUND", err)
	}
	if resp, _ := e.appGet("/f/" + f.Slug + "/logo"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("removed logo: got %d, want 404", resp.StatusCode)
	}
}

// TestAppearanceFreshImageKept: an image replaced within
// fileframe.BlobGrace of its upload stays for the orphan collector, as
// another request may be about to use the same bytes.
func TestAppearanceFreshImageKept(t *testing.T) {
	e := newTestEnv(t)
	b, a := signedInAs(e, "pro@example.com", fileframe.PlanPro)
	resp, body := b.postEditor("/appearance", url.Values{"template": {"card"}}, editorFile{"logo", "l.png", pngImage(t)})
	wantSaved(t, resp, body, "/appearance")
	look, _ := e.store.AccountAppearance(context.Background(), a.ID)
	resp, body = b.postEditor("/appearance", url.Values{"template": {"card"}, "logo_remove": {"1"}})
	wantSaved(t, resp, body, "/appearance")
	if _, err := e.blobs.Stat(context.Background(), look.LogoKey); err != nil {
		t.Errorf("a logo removed within the grace period: %v, want it kept", err)
	}
}

// TestFileAppearanceEditor: a file gets its own appearance on its editor,
// the file page says which one shows, "Use account default" removes it,
// and another account's file is not found on every route.
func TestFileAppearanceEditor(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	b, a := signedInAs(e, "pro@example.com", fileframe.PlanPro)
	f := e.file(a, "report.pdf", []byte("%PDF"))
	editor := "/files/" + string(f.ID) + "/appearance"
	e.setAccountLook(a, fileframe.Appearance{Template: "minimal", Headline: "Account"})

	section := func() appearanceSection {
		t.Helper()
		acct, _ := e.store.AccountByID(ctx, a.ID)
		s, err := e.srv.fileAppearanceSection(ctx, acct, f, "tok")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := section().State.Label; got != "Account default (Minimal)" {
		t.Errorf("state: got %q, want Account default (Minimal)", got)
	}
	resp, body := b.get(editor)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Account default (Minimal)") || !strings.Contains(body, `value="Account"`) {
		t.Fatalf("GET %s: %d, want the editor started from the account's appearance:\n%s", editor, resp.StatusCode, body)
	}

	resp, body = b.postEditor(editor, url.Values{"template": {"card"}, "headline": {"Just this file"}})
	wantSaved(t, resp, body, editor)
	if _, page := e.appGet("/f/" + f.Slug); pageKind(t, page) != "template:card" {
		t.Errorf("after saving the file's own: got %s", pageKind(t, page))
	}
	if _, body := b.get(editor + "?saved=1"); !strings.Contains(body, "This file&#39;s link shows it now.") {
		t.Errorf("the file's editor does not confirm the save")
	}
	if got := section().State.Label; got != "Custom for this file (Card)" {
		t.Errorf("state: got %q", got)
	}
	_, body = b.get("/files/" + string(f.ID))
	if !strings.Contains(body, "Custom for this file (Card)") || !strings.Contains(body, `href="`+editor+`"`) {
		t.Errorf("the file page does not show its appearance:\n%s", body)
	}

	resp, body = b.postEditor(editor, url.Values{"action": {"reset"}})
	wantSaved(t, resp, body, editor)
	if _, page := e.appGet("/f/" + f.Slug); pageKind(t, page) != "template:minimal" {
		t.Errorf("after Use account default: got %s", pageKind(t, page))
	}

	// Another account's file.
	other, _ := signedInAs(e, "other@example.com", fileframe.PlanPro)
	csrf := other.token("/appearance")
	for _, path := range []string{editor, "/appearance/preview?file=" + string(f.ID), "/appearance/image/logo?file=" + string(f.ID)} {
		if resp, _ := other.get(path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s by another account: got %d, want 404", path, resp.StatusCode)
		}
	}
	resp, _ = other.postEditor(editor, url.Values{"csrf": {csrf}, "template": {"bold"}})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST %s by another account: got %d, want 404", editor, resp.StatusCode)
	}
	if own, _ := e.store.FileAppearance(ctx, f.ID); !own.IsZero() {
		t.Errorf("another account changed the file's appearance to %+v", own)
	}
}

// TestAppearanceFree: a Free account sees what Pro gives instead of the
// forms, and every write and preview is refused.
func TestAppearanceFree(t *testing.T) {
	e := newTestEnv(t)
	b, a := signedInAs(e, "free@example.com", fileframe.PlanFree)
	f := e.file(a, "report.pdf", []byte("%PDF"))
	editor := "/files/" + string(f.ID) + "/appearance"
	for _, path := range []string{"/appearance", editor} {
		resp, body := b.get(path)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Appearances come with the Pro plan") || strings.Contains(body, `name="template"`) {
			t.Errorf("GET %s: %d, want the Pro explanation without a form:\n%s", path, resp.StatusCode, body)
		}
	}
	csrf := b.token("/account")
	for _, path := range []string{"/appearance", editor} {
		resp, _ := b.postEditor(path, url.Values{"csrf": {csrf}, "template": {"bold"}})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s: got %d, want 403", path, resp.StatusCode)
		}
	}
	if resp, _ := b.get("/appearance/preview?template=bold"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("preview: got %d, want 403", resp.StatusCode)
	}
	if got, _ := e.store.AccountAppearance(context.Background(), a.ID); !got.IsZero() {
		t.Errorf("a Free account stored %+v", got)
	}
	s, err := e.srv.fileAppearanceSection(context.Background(), a, f, "tok")
	if err != nil || s.Pro || s.State.Label != "Neutral default" {
		t.Errorf("file section: %+v, %v", s, err)
	}
}

// TestAppearanceCSRF: a form without the session's token, or sent from
// another origin, changes nothing.
func TestAppearanceCSRF(t *testing.T) {
	e := newTestEnv(t)
	b, a := signedInAs(e, "pro@example.com", fileframe.PlanPro)
	f := e.file(a, "report.pdf", []byte("%PDF"))
	for _, path := range []string{"/appearance", "/files/" + string(f.ID) + "/appearance"} {
		resp, _ := b.postEditor(path, url.Values{"csrf": {"wrong"}, "template": {"bold"}})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s with a wrong token: got %d, want 403", path, resp.StatusCode)
		}
		resp, _ = b.post(path, url.Values{"csrf": {b.token("/appearance")}, "template": {"bold"}}, "Sec-Fetch-Site", "cross-site")
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s cross-site: got %d, want 403", path, resp.StatusCode)
		}
	}
	if got, _ := e.store.AccountAppearance(context.Background(), a.ID); !got.IsZero() {
		t.Errorf("stored %+v", got)
	}
	if got, _ := e.store.FileAppearance(context.Background(), f.ID); !got.IsZero() {
		t.Errorf("stored %+v", got)
	}
}

// TestAppearancePreview: the live preview renders the form's values
// without saving them, may be framed by the app origin only, and is for
// the signed-in owner only; the Preview button works without script.
func TestAppearancePreview(t *testing.T) {
	e := newTestEnv(t)
	b, a := signedInAs(e, "pro@example.com", fileframe.PlanPro)
	f := e.file(a, "report.pdf", bytes.Repeat([]byte("x"), 1500))

	q := url.Values{"file": {string(f.ID)}, "template": {"bold"}, "headline": {"Draft headline"}, "accent": {"#123456"}}
	resp, body := b.get("/appearance/preview?" + q.Encode())
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("preview: %d\n%s", resp.StatusCode, body)
	}
	doc := parsePage(t, []byte(body))
	assertTemplateHeaders(t, resp, doc, "'self'")
	assertControl(t, doc, f, "1.5 kB")
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control: got %q, want no-store", got)
	}
	if pageKind(t, []byte(body)) != "template:bold" || !strings.Contains(body, "Draft headline") ||
		!strings.Contains(body, "--tpl-accent:#123456") || !strings.Contains(body, "Preview — not live") {
		t.Errorf("preview does not show the values:\n%s", body)
	}
	if got, _ := e.store.FileAppearance(context.Background(), f.ID); !got.IsZero() {
		t.Errorf("a preview saved %+v", got)
	}
	// The account's preview shows a sample file; bad values fall back.
	resp, body = b.get("/appearance/preview?template=nope&accent=javascript:x")
	if resp.StatusCode != http.StatusOK || pageKind(t, []byte(body)) != "template:minimal" || strings.Contains(body, "javascript") {
		t.Errorf("preview with bad values: %d %s", resp.StatusCode, pageKind(t, []byte(body)))
	}
	// Opened as a page of its own, the preview is the editor.
	req, _ := http.NewRequest(http.MethodGet, e.app.URL+"/appearance/preview?"+q.Encode(), nil)
	req.Header.Set("Sec-Fetch-Dest", "document")
	if resp, _ := b.send(req); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/files/"+string(f.ID)+"/appearance" {
		t.Errorf("preview as a document: got %d %q, want 303 to the file's editor", resp.StatusCode, resp.Header.Get("Location"))
	}
	req, _ = http.NewRequest(http.MethodGet, e.app.URL+"/appearance/preview?"+q.Encode(), nil)
	req.Header.Set("Sec-Fetch-Dest", "iframe")
	if resp, _ := b.send(req); resp.StatusCode != http.StatusOK {
		t.Errorf("preview in a frame: got %d, want 200", resp.StatusCode)
	}
	if resp, _ := newAppBrowser(e).get("/appearance/preview?template=bold"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("preview signed out: got %d, want 404", resp.StatusCode)
	}

	// Without script: the Preview button re-renders the editor with the
	// frame on the typed values, saving nothing.
	resp, body = b.postEditor("/appearance", url.Values{"action": {"preview"}, "template": {"photo"}, "headline": {"Typed"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `src="/appearance/preview?headline=Typed&amp;template=photo"`) ||
		!strings.Contains(body, `value="Typed"`) {
		t.Errorf("Preview button: %d\n%s", resp.StatusCode, body)
	}
	if got, _ := e.store.AccountAppearance(context.Background(), a.ID); !got.IsZero() {
		t.Errorf("the Preview button saved %+v", got)
	}
	// Every other page keeps frame-ancestors 'none'.
	for _, path := range []string{"/appearance", "/f/" + f.Slug} {
		resp, _ := b.get(path)
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: CSP %q, X-Frame-Options %q", path, csp, resp.Header.Get("X-Frame-Options"))
		}
	}
}

// TestAppearanceSavedOnAnotherInstance: an appearance saved through the
// editor of one Server shows at once on another Server on the same SQLite
// file, which had the old page cached.
func TestAppearanceSavedOnAnotherInstance(t *testing.T) {
	e := newTestEnv(t)
	other := startTestEnv(t, e.dir)
	b := newAppBrowser(other)
	a := other.member("pro@example.com", fileframe.PlanPro)
	b.login("pro@example.com", testPassword)
	f := e.file(a, "report.pdf", []byte("%PDF"))
	for range 2 {
		if _, page := e.appGet("/f/" + f.Slug); pageKind(t, page) != "default" {
			t.Fatalf("before: got %s", pageKind(t, page))
		}
	}
	resp, body := b.postEditor("/appearance", url.Values{"template": {"card"}},
		editorFile{"logo", "l.png", pngImage(t)})
	wantSaved(t, resp, body, "/appearance")
	_, page := e.appGet("/f/" + f.Slug)
	if pageKind(t, page) != "template:card" {
		t.Fatalf("after: got %s", pageKind(t, page))
	}
	if resp, _ := e.appGet("/f/" + f.Slug + "/logo"); resp.StatusCode != http.StatusOK {
		t.Errorf("the logo saved on the other instance: got %d", resp.StatusCode)
	}
}

// TestCheckImage: the four image types pass by their bytes whatever their
// name; anything else, SVG above all, is refused with a reason.
func TestCheckImage(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	var jpg, gf bytes.Buffer
	if err := jpeg.Encode(&jpg, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&gf, img, nil); err != nil {
		t.Fatal(err)
	}
	webp := append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), make([]byte, 24)...)
	for _, tt := range []struct {
		name string
		file string
		b    []byte
		want string // "" when accepted, else part of the reason
	}{
		{"png", "a.png", pngImage(t), ""},
		{"jpeg named .png", "a.png", jpg.Bytes(), ""},
		{"gif", "a.gif", gf.Bytes(), ""},
		{"webp", "a.webp", webp, ""},
		{"svg", "a.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "SVG"},
		{"svg named .png", "a.png", []byte("\n  <SVG viewBox='0 0 1 1'></SVG>"), "SVG"},
		{"gif bytes named .svg", "logo.SVG", gf.Bytes(), ""},
		{"text named .svg", "logo.svg", []byte("plain words"), "SVG"},
		{"html", "a.png", []byte("<!doctype html><p>hi"), "not a PNG, JPEG, WebP or GIF"},
		{"pdf", "a.png", []byte("%PDF-1.7"), "not a PNG, JPEG, WebP or GIF"},
		{"empty", "a.png", nil, "empty"},
		{"too large", "a.png", append(pngImage(t), make([]byte, maxImageBytes)...), "larger than 2 MB"},
	} {
		got := checkImage("The logo", tt.file, tt.b)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// FuzzParseAppearance: whatever the form, an appearance without errors has
// a known template, a #rrggbb accent or none, and branding text within its
// limits, with no control characters but the message's line breaks.
func FuzzParseAppearance(f *testing.F) {
	f.Add("card", "Hello", "One\r\nTwo", "#1D4ED8")
	f.Add("bold", "", "", "")
	f.Add("minimal", "a\u0000b", "x", "#12345g")
	f.Add("photo", strings.Repeat("é", 121), "", "#fff;}")
	f.Fuzz(func(t *testing.T, tmpl, headline, message, accent string) {
		a, errs := parseAppearance(url.Values{"template": {tmpl}, "headline": {headline}, "message": {message}, "accent": {accent}})
		if errs["accent"] == "" && a.Accent != "" {
			if c, ok := parseAccent(a.Accent); !ok || c != a.Accent {
				t.Errorf("accent %q accepted for %q", a.Accent, accent)
			}
		}
		if errs["template"] == "" {
			if _, ok := templateByName(a.Template); !ok {
				t.Errorf("template %q accepted", a.Template)
			}
		}
		for name, v := range map[string]string{"headline": a.Headline, "message": a.Message} {
			if errs[name] != "" {
				continue
			}
			if !utf8.ValidString(v) || utf8.RuneCountInString(v) > maxMessageChars {
				t.Errorf("%s %q accepted", name, v)
			}
			for _, r := range v {
				if unicode.IsControl(r) && (name == "headline" || r != '\n') {
					t.Errorf("%s %q with control character %U accepted", name, v, r)
				}
			}
		}
		if errs["headline"] == "" && utf8.RuneCountInString(a.Headline) > maxHeadlineChars {
			t.Errorf("headline of %d characters accepted", utf8.RuneCountInString(a.Headline))
		}
	})
}

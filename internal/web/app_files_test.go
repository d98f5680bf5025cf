package web

import (
	"bytes"
	"context"
	"html"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// badPage breaks the download.button rule on line 3.
const badPage = `<!doctype html>
<html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Offer</title></head>
<body><a href="https://example.com/offer.zip" download>Download now</a></body></html>
`

// filesFixture is an account with one file, signed in.
type filesFixture struct {
	e    *testEnv
	acct fileframe.Account
	file fileframe.File
	b    *appBrowser
}

func newFilesFixture(t *testing.T, plan fileframe.Plan, opts ...func(*Config)) *filesFixture {
	t.Helper()
	e := newTestEnv(t, opts...)
	a := e.member("a@example.com", plan)
	f := e.file(a, "spring-brochure.pdf", []byte("%PDF-1.4 spring"))
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	return &filesFixture{e: e, acct: a, file: f, b: b}
}

func filePath(f fileframe.File) string { return "/files/" + string(f.ID) }

// post sends a form of the file page with a fresh CSRF token.
func (fx *filesFixture) post(path string, form url.Values) (*http.Response, string) {
	fx.e.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", fx.b.token("/files"))
	return fx.b.post(path, form)
}

// savePage sends the page form as the browser does (multipart); name and
// file, when name is not empty, are an uploaded .html file.
func (fx *filesFixture) savePage(f fileframe.File, action, text, name string, file []byte) (*http.Response, string) {
	fx.e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf", fx.b.token("/files"))
	mw.WriteField("html", text)
	mw.WriteField("action", action)
	if name != "" {
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write(file)
	}
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, fx.e.app.URL+filePath(f)+"/page", &buf)
	if err != nil {
		fx.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return fx.b.send(req)
}

// framed returns the revision /f/<slug> frames, 0 when it shows no custom page.
func (e *testEnv) framed(f fileframe.File) int {
	e.t.Helper()
	resp, body := e.get(e.app.URL + f.URL())
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("GET %s: got %d", f.URL(), resp.StatusCode)
	}
	m := regexp.MustCompile(`class="ff-frame" src="[^"]*/p/` + regexp.QuoteMeta(f.Slug) + `/(\d+)"`).FindSubmatch(body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// wantPage fails unless f's page has revisions up to latest, live
// revision live (0: a draft), and /f/<slug> frames exactly that.
func (e *testEnv) wantPage(what string, f fileframe.File, latest, live int) {
	e.t.Helper()
	if p := e.page(f); p.LatestRevision != latest || p.LiveRevision != live {
		e.t.Errorf("%s: page %+v, want latest r%d, live r%d", what, p, latest, live)
	}
	if n := e.framed(f); n != live {
		e.t.Errorf("%s: /f/<slug> frames r%d, want r%d", what, n, live)
	}
}

func (e *testEnv) page(f fileframe.File) fileframe.Page {
	e.t.Helper()
	p, err := e.store.PageByFile(context.Background(), f.ID)
	if err != nil {
		e.t.Fatalf("PageByFile: %v", err)
	}
	return p
}

func TestAppFilesList(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	e := fx.e
	ctx := context.Background()
	draft := e.file(fx.acct, "draft.zip", []byte("draft"))
	live := e.file(fx.acct, "live.zip", []byte("live"))
	themed := e.file(fx.acct, "themed.zip", []byte("themed"))
	other := e.file(e.member("b@example.com", fileframe.PlanAgency), "someone-else.pdf", []byte("other"))
	for _, w := range []fileframe.PageWrite{
		{FileID: draft.ID, HTML: []byte(validPage)},
		{FileID: draft.ID, HTML: []byte(validPage + " "), Publish: false},
		{FileID: live.ID, HTML: []byte(validPage), Publish: true},
	} {
		if _, err := e.store.SavePage(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.store.SetFileAppearance(ctx, themed.ID, fileframe.Appearance{Template: "bold"}, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	// A template this build does not have shows the default page, and the
	// list says so.
	unknown := e.file(fx.acct, "unknown-template.pdf", []byte("%PDF-1.4 unknown"))
	if err := e.store.SetFileAppearance(ctx, unknown.ID, fileframe.Appearance{Template: "aurora"}, 0, time.Now()); err != nil {
		t.Fatal(err)
	}

	resp, body := fx.b.get("/files")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /files: got %d:\n%s", resp.StatusCode, body)
	}
	assertAppHeaders(t, resp)
	for _, want := range []string{
		`<a href="/files/` + string(fx.file.ID) + `">spring-brochure.pdf</a>`,
		`value="` + e.app.URL + fx.file.URL() + `"`,
		`aria-current="page">Files</a>`,
		`id="upload-title"`,
		"Draft r2 · Default page",
		"Custom page · published r1",
		"Template: Bold",
		"/static/app_files.js?v=",
		"/static/app_files.css?v=",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	if strings.Contains(body, "aurora") {
		t.Errorf("the list names the unknown template aurora; visitors see the default page")
	}
	if strings.Contains(body, "someone-else.pdf") || strings.Contains(body, string(other.ID)) {
		t.Errorf("the list shows another account's file")
	}
	if strings.Contains(body, "No files yet") {
		t.Errorf("the list shows the empty state")
	}

	// The home page is the list.
	resp, _ = fx.b.get("/")
	wantRedirect(t, "GET /", resp, "", "/files")
	// Signed out: to sign-in.
	resp, _ = newAppBrowser(e).get("/files")
	wantRedirect(t, "GET /files signed out", resp, "", "/login")
}

func TestAppFilesEmpty(t *testing.T) {
	e := newTestEnv(t)
	e.member("a@example.com", fileframe.PlanFree)
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	resp, body := b.get("/files")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "No files yet") || !strings.Contains(body, `id="upload-title"`) {
		t.Fatalf("GET /files: got %d, want the empty state and the upload panel:\n%s", resp.StatusCode, body)
	}
	if strings.Contains(body, "<table") {
		t.Errorf("the empty list has a table")
	}
}

// fileActions are the file page's forms, each with what it needs to pass
// every check after the file lookup.
func fileActions(f fileframe.File) []struct{ name, path string } {
	p := filePath(f)
	return []struct{ name, path string }{
		{"rename", p + "/rename"},
		{"link", p + "/link"},
		{"delete", p + "/delete"},
		{"publish", p + "/publish"},
		{"unpublish", p + "/unpublish"},
		{"restore", p + "/revisions/1/restore"},
		{"save page", p + "/page"},
		{"create key", p + "/keys"},
	}
}

func TestAppFileOtherAccount(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	e := fx.e
	other := e.file(e.member("b@example.com", fileframe.PlanAgency), "theirs.pdf", []byte("theirs"))
	if _, err := e.store.SavePage(context.Background(), fileframe.PageWrite{FileID: other.ID, HTML: []byte(validPage), Publish: true}); err != nil {
		t.Fatal(err)
	}
	_, missing := fx.b.get("/files/f_doesnotexist")
	for _, path := range []string{filePath(other), "/files/f_doesnotexist"} {
		resp, body := fx.b.get(path)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "There is no such file in your account.") {
			t.Errorf("GET %s: got %d, want 404:\n%s", path, resp.StatusCode, body)
		}
		if strings.Contains(body, "theirs.pdf") || body != missing {
			t.Errorf("GET %s: the 404 differs from an unknown file's", path)
		}
	}
	form := url.Values{"name": {"mine.pdf"}, "confirm": {"yes"}, "html": {validPage}, "action": {"publish"}}
	for _, a := range fileActions(other) {
		resp, body := fx.post(a.path, form)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s of another account's file: got %d, want 404:\n%s", a.name, resp.StatusCode, body)
		}
	}
	got, err := e.store.FileByID(context.Background(), other.ID)
	if err != nil || got.Name != "theirs.pdf" {
		t.Fatalf("the other file after the refused forms: %+v, %v", got, err)
	}
	if p := e.page(other); p.LatestRevision != 1 || p.LiveRevision != 1 {
		t.Errorf("the other page changed: %+v", p)
	}
	if keys, _ := e.store.KeysByAccount(context.Background(), fx.acct.ID); len(keys) != 0 {
		t.Errorf("a refused form made %d keys", len(keys))
	}
}

func TestAppFileCSRF(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	e := fx.e
	form := url.Values{"name": {"renamed.pdf"}, "confirm": {"yes"}, "html": {validPage}, "action": {"publish"}}
	for _, a := range fileActions(fx.file) {
		resp, body := fx.b.post(a.path, form)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "This form expired.") {
			t.Errorf("%s without CSRF: got %d, want 403", a.name, resp.StatusCode)
		}
		form.Set("csrf", fx.b.token("/files"))
		resp, _ = fx.b.post(a.path, form, "Sec-Fetch-Site", "cross-site")
		form.Del("csrf")
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s cross-site: got %d, want 403", a.name, resp.StatusCode)
		}
	}
	got, err := e.store.FileByID(context.Background(), fx.file.ID)
	if err != nil || got.Name != "spring-brochure.pdf" {
		t.Fatalf("the file after the rejected forms: %+v, %v", got, err)
	}
	if _, err := e.store.PageByFile(context.Background(), fx.file.ID); !fileframe.IsNotFound(err) {
		t.Errorf("a rejected form stored a page: %v", err)
	}
	if keys, _ := e.store.KeysByAccount(context.Background(), fx.acct.ID); len(keys) != 0 {
		t.Errorf("a rejected form made %d keys", len(keys))
	}
	// Signed out, a form goes to sign-in and changes nothing.
	resp, _ := newAppBrowser(e).post(filePath(fx.file)+"/rename", form)
	wantRedirect(t, "rename signed out", resp, "", "/login")
}

func TestAppFileRename(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanFree)
	e := fx.e
	path := filePath(fx.file)
	for _, tt := range []struct{ name, value, want string }{
		{"empty", "   ", "A file name cannot be empty."},
		{"control", "a\tb.pdf", "control characters"},
		{"too long", strings.Repeat("n", 256), "at most 255 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := fx.post(path+"/rename", url.Values{"name": {tt.value}})
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tt.want) {
				t.Fatalf("got %d, want 422 with %q:\n%s", resp.StatusCode, tt.want, body)
			}
			if !strings.Contains(body, `id="file-name-error"`) || !strings.Contains(body, `aria-invalid="true" autofocus`) {
				t.Errorf("the error is not on the name field")
			}
			if !strings.Contains(body, `value="`+html.EscapeString(tt.value)+`"`) {
				t.Errorf("the form lost what was typed")
			}
		})
	}
	resp, body := fx.post(path+"/rename", url.Values{"name": {"  Spring offer 2026.pdf "}})
	wantRedirect(t, "rename", resp, body, path+"?done=renamed")
	got, err := e.store.FileByID(context.Background(), fx.file.ID)
	if err != nil || got.Name != "Spring offer 2026.pdf" {
		t.Fatalf("after rename: %q, %v", got.Name, err)
	}
	_, body = fx.b.get(resp.Header.Get("Location"))
	if !strings.Contains(body, "The file was renamed.") || !strings.Contains(body, "<h1 class=\"page-title file-title\">Spring offer 2026.pdf</h1>") {
		t.Errorf("the page after rename lacks the notice or the new name:\n%s", body)
	}
	dl, _ := e.get(e.app.URL + fx.file.URL() + "/download")
	if cd := dl.Header.Get("Content-Disposition"); !strings.Contains(cd, "Spring offer 2026.pdf") {
		t.Errorf("download after rename: Content-Disposition %q", cd)
	}
}

func TestAppFileDelete(t *testing.T) {
	// The server's clock is past BlobGrace after the files were stored, so
	// that unused blobs go at once (TestAppFileDeleteFreshUpload: before).
	fx := newFilesFixture(t, fileframe.PlanAgency, func(c *Config) {
		c.Now = func() time.Time { return time.Now().Add(2 * fileframe.BlobGrace) }
	})
	e := fx.e
	ctx := context.Background()
	path := filePath(fx.file)
	e.key(fx.acct, fx.file.ID)

	resp, body := fx.post(path+"/delete", nil)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Tick the box") || !strings.Contains(body, `id="delete-confirm-error"`) {
		t.Fatalf("delete without confirm: got %d, want 422 with the checkbox error:\n%s", resp.StatusCode, body)
	}
	if _, err := e.store.FileByID(ctx, fx.file.ID); err != nil {
		t.Fatalf("the file is gone after an unconfirmed delete: %v", err)
	}

	resp, body = fx.post(path+"/delete", url.Values{"confirm": {"yes"}})
	wantRedirect(t, "delete", resp, body, "/files?done=deleted")
	if _, err := e.store.FileByID(ctx, fx.file.ID); !fileframe.IsNotFound(err) {
		t.Errorf("FileByID after delete: %v, want not found", err)
	}
	if resp, _ := e.get(e.app.URL + fx.file.URL()); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the public link after delete: got %d, want 404", resp.StatusCode)
	}
	if _, err := e.blobs.Stat(ctx, fx.file.BlobKey); !fileframe.IsNotFound(err) {
		t.Errorf("the blob after delete: %v, want not found", err)
	}
	if keys, _ := e.store.KeysByAccount(ctx, fx.acct.ID); len(keys) != 0 {
		t.Errorf("page-bound keys after delete: %d, want 0", len(keys))
	}
	_, body = fx.b.get(resp.Header.Get("Location"))
	if !strings.Contains(body, "The file was deleted.") || strings.Contains(body, "spring-brochure.pdf") {
		t.Errorf("the list after delete lacks the notice or still shows the file:\n%s", body)
	}
	if resp, _ := fx.b.get(path); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the file page after delete: got %d, want 404", resp.StatusCode)
	}

	// A blob that another file shares stays.
	one := e.file(fx.acct, "one.txt", []byte("same bytes"))
	two := e.file(fx.acct, "two.txt", []byte("same bytes"))
	resp, body = fx.post(filePath(one)+"/delete", url.Values{"confirm": {"yes"}})
	wantRedirect(t, "delete of a shared blob", resp, body, "/files?done=deleted")
	if _, err := e.blobs.Stat(ctx, two.BlobKey); err != nil {
		t.Errorf("the shared blob after deleting one of its files: %v", err)
	}
	if dl, _ := e.get(e.app.URL + two.URL() + "/download"); dl.StatusCode != http.StatusOK {
		t.Errorf("download of the file sharing the blob: got %d", dl.StatusCode)
	}
}

// TestAppFileDeleteFreshUpload deletes a file whose blob was stored within
// fileframe.BlobGrace: the link stops working at once, and the bytes stay
// for the orphan collector, because a new file with the same content may be
// about to use them.
func TestAppFileDeleteFreshUpload(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	resp, body := fx.post(filePath(fx.file)+"/delete", url.Values{"confirm": {"yes"}})
	wantRedirect(t, "delete", resp, body, "/files?done=deleted")
	if resp, _ := fx.e.get(fx.e.app.URL + fx.file.URL()); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the public link after delete: got %d, want 404", resp.StatusCode)
	}
	if _, err := fx.e.blobs.Stat(context.Background(), fx.file.BlobKey); err != nil {
		t.Errorf("the fresh blob after delete: %v, want it kept for the collector", err)
	}
	n, err := fileframe.CollectOrphanBlobs(context.Background(), fx.e.store, fx.e.blobs, time.Now().Add(2*fileframe.BlobGrace))
	if n != 1 || err != nil {
		t.Errorf("the collector after the grace period: removed %d, %v; want 1, nil", n, err)
	}
}

func TestAppFilePageFindings(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	for _, action := range []string{"draft", "publish"} {
		resp, body := fx.savePage(fx.file, action, badPage, "", nil)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s of a bad page: got %d, want 422:\n%s", action, resp.StatusCode, body)
		}
		for _, want := range []string{
			"The page was not saved: fix the 3 problems listed below",
			"<code>download.button</code>",
			"line 3",
			html.EscapeString(badPage),
		} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the page lacks %q:\n%s", action, want, body)
			}
		}
	}
	for _, tt := range []struct{ name, text, file, want string }{
		{"empty", "  \n", "", "Paste the HTML of the page"},
		{"too large", strings.Repeat("a", 1<<20+1), "", "The page is 1048577 bytes; the limit is 1 MiB (1048576 bytes)."},
		{"not html", "", "page.txt", "Choose an .html file"},
		{"not utf-8", "", "page.html", "not UTF-8"},
		{"file too large", "", "big.html", "The file is 1048577 bytes; the limit is 1 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var file []byte
			switch tt.file {
			case "big.html":
				file = bytes.Repeat([]byte("a"), 1<<20+1)
			case "":
			default:
				file = []byte("<!doctype html><html><body>\xff</body></html>")
			}
			resp, body := fx.savePage(fx.file, "publish", tt.text, tt.file, file)
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tt.want) {
				t.Errorf("got %d, want 422 with %q", resp.StatusCode, tt.want)
			}
		})
	}
	// A body over the form's cap is refused before it is read to the end.
	resp, body := fx.savePage(fx.file, "publish", strings.Repeat("a", 2<<20), "big.html", bytes.Repeat([]byte("a"), 2<<20))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "A custom page can be at most 1 MiB (1048576 bytes).") {
		t.Errorf("an oversized form: got %d, want 413:\n%s", resp.StatusCode, body)
	}
	if _, err := fx.e.store.PageByFile(context.Background(), fx.file.ID); !fileframe.IsNotFound(err) {
		t.Errorf("a refused page was stored: %v", err)
	}
	if n := fx.e.framed(fx.file); n != 0 {
		t.Errorf("/f/<slug> frames r%d after refused pages", n)
	}
}

func TestAppFilePagePublishCycle(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	e := fx.e
	path := filePath(fx.file)

	// Save and publish: the public link frames it at once.
	resp, body := fx.savePage(fx.file, "publish", validPage, "", nil)
	wantRedirect(t, "save and publish", resp, body, path+"?done=published#page")
	e.wantPage("after save and publish", fx.file, 1, 1)
	_, body = fx.b.get(path + "?done=published")
	for _, want := range []string{"Revision 1 is published", "Published r1", `sandbox="allow-scripts"`, "Unpublish"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page after publishing lacks %q", want)
		}
	}

	// A draft from an uploaded file takes the live page offline, as the API does.
	draft := strings.Replace(validPage, "Spring launch</h1>", "Summer launch</h1>", 1)
	resp, body = fx.savePage(fx.file, "draft", "", "summer.html", []byte(draft))
	wantRedirect(t, "save draft", resp, body, path+"?done=saved#page")
	e.wantPage("after the draft", fx.file, 2, 0)
	_, body = fx.b.get(path + "?done=saved")
	if !strings.Contains(body, "Revision 2 was saved as a draft.") || !strings.Contains(body, "Publish r2") {
		t.Errorf("the page after the draft lacks the notice or the publish button")
	}
	// The preview frame loads the draft from the content origin.
	m := regexp.MustCompile(`<iframe src="([^"]+)" sandbox="allow-scripts" referrerpolicy="no-referrer" allow="fullscreen 'none'; picture-in-picture 'none'`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the file page has no preview frame with the visitors' sandbox:\n%s", body)
	}
	frame := html.UnescapeString(m[1])
	if !strings.HasPrefix(frame, e.content.URL+"/p/"+fx.file.Slug+"/2?preview=") {
		t.Errorf("preview frame: %q, want r2 on the content origin with a token", frame)
	}
	fr, fb := e.get(frame, "Sec-Fetch-Dest", "iframe")
	if fr.StatusCode != http.StatusOK || !strings.Contains(string(fb), "Summer launch") {
		t.Errorf("the preview frame's page: got %d, want the draft", fr.StatusCode)
	}
	m = regexp.MustCompile(`href="(/f/[^"]+\?preview=[^"]+)" target="_blank"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no full preview link")
	}
	if _, ob := e.get(e.app.URL + html.UnescapeString(m[1])); !strings.Contains(string(ob), "/p/"+fx.file.Slug+"/2?preview=") {
		t.Errorf("the full preview link does not frame the draft")
	}

	// Publish the draft, then unpublish.
	resp, body = fx.post(path+"/publish", nil)
	wantRedirect(t, "publish", resp, body, path+"?done=published#page")
	e.wantPage("after publish", fx.file, 2, 2)
	resp, body = fx.post(path+"/unpublish", nil)
	wantRedirect(t, "unpublish", resp, body, path+"?done=unpublished#page")
	e.wantPage("after unpublish", fx.file, 2, 0)
	_, body = fx.b.get(path + "?done=unpublished")
	if !strings.Contains(body, "The custom page was unpublished.") || strings.Contains(body, ">Unpublish</button>") {
		t.Errorf("the page after unpublish lacks the notice or still offers Unpublish")
	}

	// Restore r1: live again, no new revision.
	resp, body = fx.post(path+"/revisions/1/restore", nil)
	wantRedirect(t, "restore", resp, body, path+"?done=restored#page")
	e.wantPage("after restore", fx.file, 2, 1)
	_, body = fx.b.get(path + "?done=restored")
	for _, want := range []string{"Revision 1 is now the published page", "(newer than the published r1)", "Publish r2", "/revisions/2/restore"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page after restore lacks %q", want)
		}
	}
	if strings.Contains(body, "/revisions/1/restore") {
		t.Errorf("the live revision offers Restore")
	}
	for _, rev := range []string{"0", "7", "x"} {
		if resp, _ := fx.post(path+"/revisions/"+rev+"/restore", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("restore of r%s: got %d, want 404", rev, resp.StatusCode)
		}
	}

	// Edit a copy loads the old HTML into the editor.
	_, body = fx.b.get(path + "?edit=2")
	if !strings.Contains(body, "Edit a copy of r2") || !strings.Contains(body, "Summer launch&lt;/h1&gt;") {
		t.Errorf("?edit=2 does not load r2 into the editor")
	}
}

var newPageKeyField = regexp.MustCompile(`id="new-key" type="text" readonly value="(ffp_[0-9A-Za-z]+)"`)

func TestAppFilePageKey(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	e := fx.e
	other := e.file(fx.acct, "other.pdf", []byte("other"))
	resp, body := fx.post(filePath(fx.file)+"/keys", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create key: got %d:\n%s", resp.StatusCode, body)
	}
	assertAppHeaders(t, resp)
	m := newPageKeyField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no page-bound key on the page:\n%s", body)
	}
	secret := m[1]
	curl := html.UnescapeString(body)
	for _, want := range []string{
		"it won't be shown again",
		"curl -sS " + e.app.URL + "/api/campaign/custom-html",
		"Authorization: Bearer " + secret,
		`-d '{"publish": true, "html"`,
		"This file has 1 active page-bound key;",
	} {
		if !strings.Contains(curl, want) {
			t.Errorf("the page after create lacks %q", want)
		}
	}
	keys, err := e.store.KeysByAccount(context.Background(), fx.acct.ID)
	if err != nil || len(keys) != 1 || keys[0].Kind != fileframe.KeyPage || keys[0].FileID != fx.file.ID || keys[0].Name != "Page of spring-brochure.pdf" {
		t.Fatalf("stored keys: %+v, %v; want one page key of the file", keys, err)
	}

	// It works for this file only, without fileId.
	for _, tt := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"no fileId", map[string]any{"publish": true, "html": validPage}, http.StatusOK},
		{"its own fileId", map[string]any{"fileId": fx.file.ID, "html": validPage}, http.StatusOK},
		{"another file", map[string]any{"fileId": other.ID, "html": validPage}, http.StatusBadRequest},
	} {
		req, _ := http.NewRequest(http.MethodPost, e.app.URL+"/api/campaign/custom-html", strings.NewReader(jsonBody(t, tt.body)))
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Content-Type", "application/json")
		if resp, body := e.do(req); resp.StatusCode != tt.want {
			t.Errorf("API with the page key, %s: got %d, want %d:\n%s", tt.name, resp.StatusCode, tt.want, body)
		}
	}
	if _, err := e.store.PageByFile(context.Background(), other.ID); !fileframe.IsNotFound(err) {
		t.Errorf("the other file got a page: %v", err)
	}

	// Shown once.
	_, body = fx.b.get(filePath(fx.file))
	if strings.Contains(body, secret) || strings.Contains(body, "won't be shown again") {
		t.Errorf("the file page shows the key again")
	}
	// The keys page links the bound file to its page.
	_, body = fx.b.get("/keys")
	if !strings.Contains(body, `<a href="/files/`+string(fx.file.ID)+`">spring-brochure.pdf</a>`) {
		t.Errorf("the keys page does not link the bound file:\n%s", body)
	}
}

func TestAppFilePageNotAgency(t *testing.T) {
	for _, plan := range []fileframe.Plan{fileframe.PlanFree, fileframe.PlanPro} {
		t.Run(string(plan), func(t *testing.T) {
			fx := newFilesFixture(t, plan)
			path := filePath(fx.file)
			resp, body := fx.b.get(path)
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Custom pages come with the Agency plan") {
				t.Fatalf("GET %s: got %d, want the Agency explanation:\n%s", path, resp.StatusCode, body)
			}
			for _, form := range []string{"/page", "/publish", "/keys", "/revisions/1/restore"} {
				if strings.Contains(body, `action="`+path+form) {
					t.Errorf("a %s account is offered the %s form", plan, form)
				}
			}
			form := url.Values{"html": {validPage}, "action": {"publish"}}
			for _, a := range fileActions(fx.file)[3:] {
				resp, body := fx.post(a.path, form)
				if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "not on the Agency plan") {
					t.Errorf("%s: got %d, want 403 with the plan message", a.name, resp.StatusCode)
				}
			}
			if _, err := fx.e.store.PageByFile(context.Background(), fx.file.ID); !fileframe.IsNotFound(err) {
				t.Errorf("a %s account stored a page: %v", plan, err)
			}
			if keys, _ := fx.e.store.KeysByAccount(context.Background(), fx.acct.ID); len(keys) != 0 {
				t.Errorf("a %s account made %d keys", plan, len(keys))
			}
		})
	}
}

func TestAppFilePageDowngraded(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	e := fx.e
	ctx := context.Background()
	if _, err := e.store.SavePage(ctx, fileframe.PageWrite{FileID: fx.file.ID, HTML: []byte(validPage), Publish: true}); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.store.SetAccountPlan(ctx, fx.acct.ID, fileframe.PlanPro); err != nil {
		t.Fatal(err)
	}
	resp, body := fx.b.get(filePath(fx.file))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: got %d", resp.StatusCode)
	}
	for _, want := range []string{"no longer on the Agency plan", "Published r1 (not shown)", `id="history-title"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the downgraded page lacks %q", want)
		}
	}
	for _, not := range []string{"<iframe", "/restore\"", "/unpublish\"", "Save and publish", "?preview="} {
		if strings.Contains(body, not) {
			t.Errorf("the downgraded page offers %q", not)
		}
	}
	_, body = fx.b.get("/files")
	if !strings.Contains(body, "Custom page · not shown (needs Agency)") {
		t.Errorf("the list does not say the page is not shown")
	}
	if resp, _ := fx.post(filePath(fx.file)+"/unpublish", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("unpublish when downgraded: got %d, want 403", resp.StatusCode)
	}
}

// TestAppFileStates renders the file page in every state of the custom
// page panel (and the list), so that each template branch runs; the
// screenshot tool can drive the same states.
func TestAppFileStates(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	e := fx.e
	ctx := context.Background()
	save := func(name string, writes ...fileframe.PageWrite) fileframe.File {
		f := e.file(fx.acct, name, []byte(name))
		for _, w := range writes {
			w.FileID = f.ID
			if _, err := e.store.SavePage(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		return f
	}
	warned := strings.Replace(validPage, "<title>Spring launch</title>", "", 1)
	none := fx.file
	draft := save("draft.zip", fileframe.PageWrite{HTML: []byte(warned)})
	live := save("live.zip", fileframe.PageWrite{HTML: []byte(validPage), Publish: true})
	behind := save("behind.zip", fileframe.PageWrite{HTML: []byte(validPage), Publish: true})
	if _, err := e.store.SavePage(ctx, fileframe.PageWrite{FileID: behind.ID, HTML: []byte(warned)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.SetLiveRevision(ctx, behind.ID, 1, e.srv.now()); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		file fileframe.File
		want []string
	}{
		{"no page", none, []string{"This file has no custom page.", "Add a custom page", "Create page-bound key"}},
		{"draft with warnings", draft, []string{">Draft</span>", "Publish r1", "Notes on r1", "<code>"}},
		{"published", live, []string{"Published r1", "Unpublish", ">live</span>", ">current</span>", "<strong>Saving a draft takes the published page offline</strong>"}},
		{"live behind latest", behind, []string{"Published r1", "(newer than the published r1)", "Publish r2", "/revisions/2/restore"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := fx.b.get(filePath(tt.file))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("got %d:\n%s", resp.StatusCode, body)
			}
			assertAppHeaders(t, resp)
			for _, want := range append(tt.want, `id="appearance-title"`, `data-copy="link-`+string(tt.file.ID)+`"`, "Delete file") {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			if strings.Contains(body, "style=") || strings.Contains(body, "<script>") {
				t.Errorf("the page has inline style or script")
			}
		})
	}
	resp, body := fx.b.get("/files")
	if resp.StatusCode != http.StatusOK || strings.Contains(body, "style=") {
		t.Fatalf("GET /files: got %d or inline style", resp.StatusCode)
	}
	for _, want := range []string{"Draft r1 · Default page", "Custom page · published r1"} {
		if !strings.Contains(body, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	// The static files the pages link exist.
	for _, name := range []string{"app_files.css", "app_files.js"} {
		if resp, _ := e.get(e.app.URL + appAssetURL(name)); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: got %d", name, resp.StatusCode)
		}
	}
}

func TestPreviewFor(t *testing.T) {
	for _, tt := range []struct {
		ttl  time.Duration
		want string
	}{
		{24 * time.Hour, "24 hours"},
		{7 * 24 * time.Hour, "7 days"},
		{36 * time.Hour, "36 hours"},
		{90 * time.Minute, "90 minutes"},
		{time.Second, "1 minute"},
	} {
		if got := previewFor(tt.ttl); got != tt.want {
			t.Errorf("previewFor(%v): got %q, want %q", tt.ttl, got, tt.want)
		}
	}
}

// TestBrowserFilePagePreview opens the file page in Chromium: its preview
// frame shows the draft from the content origin, inside the app page's CSP
// and the visitors' sandbox, and the Copy button of the link works.
func TestBrowserFilePagePreview(t *testing.T) {
	b := newBrowserEnv(t, preview)
	ctx := context.Background()
	draft := strings.Replace(validPage, `document.body.dataset.ready = "1";`, `document.documentElement.dataset.ready = "1";`, 1)
	if _, err := b.store.SavePage(ctx, fileframe.PageWrite{FileID: b.file.ID, HTML: []byte(draft)}); err != nil {
		t.Fatal(err)
	}
	token, now := fileframe.RandomBase62(43), time.Now()
	if err := b.store.CreateSession(ctx, fileframe.Session{
		Hash: fileframe.HashKey(token), AccountID: b.account.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour),
	}); err != nil {
		t.Fatal(err)
	}
	b.callBrowser(t, func(ctx context.Context) error {
		_, err := chromedp.Run(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{
				Name: b.srv.sessionCookieName(), Value: token, URL: b.appOrigin(), Path: "/", HTTPOnly: new(true),
			})
			return err
		}))
		return err
	})
	b.navigate(t, b.appOrigin()+filePath(b.file))
	if got := eval[string](t, b.tab, `document.querySelector("h1").textContent`); got != b.file.Name {
		t.Fatalf("the file page's heading: got %q, want %q (not signed in?)", got, b.file.Name)
	}
	// The frame loads lazily, once scrolled to.
	eval[string](t, b.tab, `document.querySelector(".page-preview iframe").scrollIntoView(), "scrolled"`)
	b.waitFrame(t, "ready")
	frame := b.frame(t)
	if got := eval[string](t, frame, `location.href`); !strings.HasPrefix(got, b.contentOrigin()+"/p/"+b.file.Slug+"/1?preview=") {
		t.Errorf("the preview frame shows %q, want r1 on the content origin", got)
	}
	if got := eval[string](t, frame, `origin`); got != "null" {
		t.Errorf("the preview frame's origin: got %q, want null (sandboxed, as for visitors)", got)
	}

	status := eval[string](t, b.tab, `(async () => {
		const button = document.querySelector("button[data-copy]");
		if (button.hidden) return "hidden";
		button.click();
		await new Promise(r => setTimeout(r, 200));
		return button.parentNode.querySelector(".copy-status").textContent;
	})()`)
	if status != "Copied" && status != "Press Ctrl+C (⌘C) to copy" {
		t.Errorf("after Copy the status says %q", status)
	}
	got := eval[string](t, b.tab, `(() => {
		const el = document.activeElement;
		return el.id + " " + el.value.slice(el.selectionStart, el.selectionEnd);
	})()`)
	if want := "link-" + string(b.file.ID) + " " + b.appOrigin() + b.file.URL(); got != want {
		t.Errorf("after Copy the focus and selection: got %q, want %q", got, want)
	}
}

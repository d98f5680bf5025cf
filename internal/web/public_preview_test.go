package web

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/thumb"
)

// typedFile stores content as a file with the type its name says, as an
// upload does (service.AddFile takes the extension's type first).
func (e *testEnv) typedFile(a fileframe.Account, name string, content []byte) fileframe.File {
	e.t.Helper()
	ctx := context.Background()
	info, err := e.blobs.Put(ctx, bytes.NewReader(content))
	if err != nil {
		e.t.Fatal(err)
	}
	ct := mime.TypeByExtension(filepath.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	f, err := e.store.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: name, Size: info.Size, BlobKey: info.Key, ContentType: ct})
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

// Test files of each kind.
var (
	testMP4  = append([]byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"), bytes.Repeat([]byte{7}, 200_000)...)
	testPDF  = append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("% filler\n"), 20_000)...)
	testMP3  = append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), bytes.Repeat([]byte{0xff, 0xfb, 0x90, 0x00}, 1000)...)
	svgImage = []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>document.title="pwned"</script></svg>`)
	htmlPage = []byte(`<!doctype html><html><head><title>x</title></head><body><script>document.title="pwned"</script></body></html>`)
)

// testPNG draws a w×h opaque PNG.
func testPNG(t testing.TB, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gifJSPolyglot is a valid GIF whose bytes also parse as JavaScript that
// changes the document's title (GIF89a=…;document.title="pwned"//).
func gifJSPolyglot(t testing.TB) []byte {
	var b bytes.Buffer
	img := image.NewPaletted(image.Rect(0, 0, 8, 8), color.Palette{color.Black, color.White})
	if err := gif.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	g := b.Bytes()
	// The logical screen width's bytes become "/*"; a comment after the
	// image closes it and sets the title.
	g[6], g[7] = '/', '*'
	js := []byte("*/=1;document.title='pwned';/*")
	ext := append([]byte{0x21, 0xfe, byte(len(js))}, js...)
	ext = append(ext, 0)
	return append(append(g[:len(g)-1:len(g)-1], ext...), 0x3b)
}

// pngBomb is a 1×1 PNG whose header declares w×h pixels.
func pngBomb(w, h uint32) []byte {
	b := testPNG(nil, 1, 1)
	// IHDR's width and height are at bytes 16 to 24; its CRC follows and
	// is not checked before DecodeConfig reads the size.
	out := append([]byte(nil), b...)
	binary.BigEndian.PutUint32(out[16:], w)
	binary.BigEndian.PutUint32(out[20:], h)
	binary.BigEndian.PutUint32(out[29:], crc32.ChecksumIEEE(out[12:29]))
	return out
}

var (
	previewAttr = regexp.MustCompile(`data-preview="([a-z]+)"`)
	srcAttr     = regexp.MustCompile(`class="ff-pv-[a-z]+" src="([^"]+)"`)
)

// previewOn returns the kind of preview on f's public page and the
// address it loads ("" for text).
func (e *testEnv) previewOn(f fileframe.File, header ...string) (kind, src string, body string) {
	e.t.Helper()
	resp, b := e.appGet("/f/"+f.Slug, header...)
	if resp.StatusCode != 200 {
		e.t.Fatalf("GET /f/%s: %d", f.Slug, resp.StatusCode)
	}
	body = string(b)
	if m := previewAttr.FindStringSubmatch(body); m != nil {
		kind = m[1]
	}
	if m := srcAttr.FindStringSubmatch(body); m != nil {
		src = strings.ReplaceAll(m[1], "&amp;", "&")
	}
	return kind, src, body
}

func TestPreviewKinds(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	for _, c := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"photo.png", testPNG(t, 1200, 900), previewImage},
		{"clip.mp4", testMP4, previewVideo},
		{"song.mp3", testMP3, previewAudio},
		{"report.pdf", testPDF, previewPDF},
		{"notes.txt", []byte("first line\n<script>document.title='pwned'</script>\nthird"), previewText},
		{"data.json", []byte(`{"a": 1}`), previewText},
		// Hostile or unknown: no preview.
		{"logo.svg", svgImage, ""},
		{"page.png", htmlPage, ""}, // HTML named .png sniffs as text/html
		{"page.txt", htmlPage, ""}, // HTML named .txt: not plain text
		{"page.html", htmlPage, ""},
		{"video.mp4", htmlPage, ""},
		{"data.bin", testPNG(t, 10, 10), ""}, // a PNG its type does not name
		{"archive.zip", []byte("PK\x03\x04rest"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := e.typedFile(a, c.name, c.content)
			kind, src, body := e.previewOn(f)
			if kind != c.want {
				t.Fatalf("preview %q, want %q", kind, c.want)
			}
			switch kind {
			case previewImage:
				if !strings.Contains(body, `width="720" height="540"`) {
					t.Errorf("the thumbnail's size is not on the page:\n%s", body)
				}
				resp, thumbBytes := e.appGet(src)
				ct := resp.Header.Get("Content-Type")
				if resp.StatusCode != 200 || (ct != "image/jpeg" && ct != "image/png") || bytes.Equal(thumbBytes, c.content) {
					t.Errorf("thumbnail: %d %s, %d bytes", resp.StatusCode, ct, len(thumbBytes))
				}
				if cfg, _, err := image.DecodeConfig(bytes.NewReader(thumbBytes)); err != nil || cfg.Width != 720 {
					t.Errorf("thumbnail decodes as %+v, %v", cfg, err)
				}
				if resp.Header.Get("Content-Security-Policy") != imageCSP || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("thumbnail headers: %v", resp.Header)
				}
			case previewVideo, previewAudio:
				if !strings.HasPrefix(src, e.srv.ContentOrigin()+"/v/") {
					t.Fatalf("media from %s, want the content origin's /v/", src)
				}
				resp, got := e.get(src, "Range", "bytes=0-99", "Sec-Fetch-Dest", kind)
				if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, c.content[:100]) {
					t.Errorf("range: %d, %d bytes", resp.StatusCode, len(got))
				}
				h := resp.Header
				if h.Get("Content-Security-Policy") != "sandbox; default-src 'none'" || h.Get("X-Content-Type-Options") != "nosniff" ||
					!strings.HasPrefix(h.Get("Content-Type"), kind+"/") {
					t.Errorf("media headers: %v", h)
				}
				if csp := pageCSPOf(t, e, f); !strings.Contains(csp, "media-src "+e.srv.ContentOrigin()+"/v/") {
					t.Errorf("page CSP %q does not allow the media", csp)
				}
				if resp, _ := e.get(src, "Sec-Fetch-Dest", "document"); resp.StatusCode != http.StatusForbidden {
					t.Errorf("opened as a document: %d, want 403", resp.StatusCode)
				}
			case previewPDF:
				m := regexp.MustCompile(`class="ff-pv-pdf" src="([^"]+)"`).FindStringSubmatch(body)
				if m == nil || !strings.HasPrefix(m[1], e.srv.ContentOrigin()+"/v/") || !strings.Contains(body, `sandbox="allow-scripts"`) {
					t.Fatalf("no sandboxed frame of the content origin:\n%s", body)
				}
				resp, frame := e.get(m[1], "Sec-Fetch-Dest", "iframe")
				csp := resp.Header.Get("Content-Security-Policy")
				if resp.StatusCode != 200 || !strings.HasPrefix(csp, "sandbox allow-scripts;") || !strings.Contains(csp, "worker-src 'none'") ||
					!strings.Contains(csp, "frame-ancestors "+e.srv.AppOrigin()) || !strings.Contains(string(frame), `data-src="`+e.srv.ContentOrigin()+"/v/") {
					t.Errorf("PDF frame: %d, CSP %q\n%s", resp.StatusCode, csp, frame)
				}
				if pc := pageCSPOf(t, e, f); !strings.Contains(pc, "frame-src "+e.srv.ContentOrigin()+"/v/") {
					t.Errorf("page CSP %q does not allow the frame", pc)
				}
				for _, name := range []string{"pdf.min.mjs", "pdf.worker.min.mjs", "viewer.mjs"} {
					resp, _ := e.contentGet(pdfjsPath+name, "Sec-Fetch-Dest", "script")
					if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
						t.Errorf("%s: %d %v", name, resp.StatusCode, resp.Header)
					}
				}
			case previewText:
				if strings.Contains(body, "<script>document.title") || (c.name == "notes.txt" && !strings.Contains(body, "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;")) {
					t.Errorf("the lines are not escaped:\n%s", body)
				}
			}
		})
	}
	// Nothing was counted as a download.
	time.Sleep(1500 * time.Millisecond)
	files, err := e.store.FilesByAccount(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Downloads != 0 {
			t.Errorf("%s: %d downloads counted by its preview", f.Name, f.Downloads)
		}
	}
}

// pageCSPOf returns the CSP of f's public page.
func pageCSPOf(t *testing.T, e *testEnv, f fileframe.File) string {
	t.Helper()
	resp, _ := e.appGet("/f/" + f.Slug)
	return resp.Header.Get("Content-Security-Policy")
}

// TestPreviewTemplatePage: a template page previews its file too.
func TestPreviewTemplatePage(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanPro)
	e.setAccountLook(a, fileframe.Appearance{Template: "card", Headline: "Hello"})
	f := e.typedFile(a, "clip.mp4", testMP4)
	kind, _, body := e.previewOn(f)
	if kind != previewVideo || !strings.Contains(body, `data-template="card"`) {
		t.Fatalf("preview %q on:\n%s", kind, body)
	}
	csp := pageCSPOf(t, e, f)
	if !strings.Contains(csp, "media-src "+e.srv.ContentOrigin()+"/v/") || !strings.Contains(csp, "'sha256-") {
		t.Errorf("template page CSP %q", csp)
	}
}

// TestPreviewGates: a preview is there only when the download would be.
func TestPreviewGates(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	video := e.typedFile(a, "clip.mp4", testMP4)
	img := e.typedFile(a, "photo.png", testPNG(t, 50, 40))
	_, videoSrc, _ := e.previewOn(video)
	_, imgSrc, _ := e.previewOn(img)

	t.Run("a link with a download limit plays nothing but shows its thumbnail", func(t *testing.T) {
		lv := e.setLink(e.typedFile(a, "limited.mp4", testMP4), fileframe.Link{MaxDownloads: 3})
		if kind, _, _ := e.previewOn(lv); kind != "" {
			t.Errorf("preview %q on a limited video", kind)
		}
		if resp, _ := e.contentGet("/v/"+lv.Slug+"/"+string(lv.ID), "Sec-Fetch-Dest", "video"); resp.StatusCode != 404 {
			t.Errorf("limited video's bytes: %d, want 404", resp.StatusCode)
		}
		li := e.setLink(e.typedFile(a, "limited.png", testPNG(t, 30, 30)), fileframe.Link{MaxDownloads: 3})
		if kind, _, _ := e.previewOn(li); kind != previewImage {
			t.Errorf("preview %q on a limited image, want its thumbnail", kind)
		}
	})

	t.Run("another file's ID is not previewed through a link", func(t *testing.T) {
		if resp, _ := e.contentGet("/v/"+video.Slug+"/"+string(img.ID), "Sec-Fetch-Dest", "video"); resp.StatusCode != 404 {
			t.Errorf("%d, want 404", resp.StatusCode)
		}
		if resp, _ := e.appGet("/f/" + video.Slug + "/thumb/" + string(img.ID)); resp.StatusCode != 404 {
			t.Errorf("thumb: %d, want 404", resp.StatusCode)
		}
	})

	t.Run("a password link's preview needs the cookie, and a token on the content origin", func(t *testing.T) {
		pv := e.protect(a, e.typedFile(a, "secret.mp4", testMP4), "open sesame", "")
		if _, _, body := e.previewOn(pv); strings.Contains(body, "data-preview") {
			t.Fatal("the password page shows a preview")
		}
		bare := e.srv.ContentOrigin() + "/v/" + pv.Slug + "/" + string(pv.ID)
		if resp, _ := e.get(bare, "Sec-Fetch-Dest", "video"); resp.StatusCode != 404 {
			t.Errorf("bytes without a token: %d, want 404", resp.StatusCode)
		}
		cookie := linkCookieName + "=" + e.srv.linkCookie(pv)
		kind, src, _ := e.previewOn(pv, "Cookie", cookie)
		if kind != previewVideo || !strings.Contains(src, "access=") {
			t.Fatalf("with the cookie: %q %q", kind, src)
		}
		resp, _ := e.get(src, "Sec-Fetch-Dest", "video", "Range", "bytes=0-9")
		if resp.StatusCode != 206 || resp.Header.Get("Cache-Control") != "private, no-store" {
			t.Errorf("bytes with the token: %d %v", resp.StatusCode, resp.Header)
		}
		// Another file's token does not open this one.
		if resp, _ := e.get(videoSrc+"?access="+strings.SplitN(src, "access=", 2)[1], "Sec-Fetch-Dest", "video"); resp.StatusCode != 200 {
			t.Errorf("an unprotected link ignores tokens: %d", resp.StatusCode)
		}
		// A new password ends the token.
		e.protect(a, pv, "another one", "")
		if resp, _ := e.get(src, "Sec-Fetch-Dest", "video"); resp.StatusCode != 404 {
			t.Errorf("bytes after the password changed: %d, want 404", resp.StatusCode)
		}
		pi := e.protect(a, e.typedFile(a, "secret.png", testPNG(t, 20, 20)), "password", "")
		if resp, _ := e.appGet("/f/" + pi.Slug + "/thumb/" + string(pi.ID)); resp.StatusCode != 401 {
			t.Errorf("thumbnail without the cookie: %d, want 401", resp.StatusCode)
		}
		if resp, _ := e.appGet("/f/"+pi.Slug+"/thumb/"+string(pi.ID), "Cookie", linkCookieName+"="+e.srv.linkCookie(pi)); resp.StatusCode != 200 {
			t.Errorf("thumbnail with the cookie: %d, want 200", resp.StatusCode)
		}
	})

	t.Run("an expired link previews nothing", func(t *testing.T) {
		e.setLink(video, fileframe.Link{ExpiresAt: time.Now().Add(-time.Minute)})
		e.setLink(img, fileframe.Link{ExpiresAt: time.Now().Add(-time.Minute)})
		if resp, _ := e.get(videoSrc, "Sec-Fetch-Dest", "video"); resp.StatusCode != http.StatusGone {
			t.Errorf("expired video's bytes: %d, want 410", resp.StatusCode)
		}
		if resp, _ := e.appGet(imgSrc); resp.StatusCode != http.StatusGone {
			t.Errorf("expired image's thumbnail: %d, want 410", resp.StatusCode)
		}
		e.setLink(video, fileframe.Link{})
		e.setLink(img, fileframe.Link{})
	})

	t.Run("a disabled owner's previews are gone", func(t *testing.T) {
		if err := e.store.SetAccountDisabled(context.Background(), a.ID, true); err != nil {
			t.Fatal(err)
		}
		if resp, _ := e.get(videoSrc, "Sec-Fetch-Dest", "video"); resp.StatusCode != 404 {
			t.Errorf("video's bytes: %d, want 404", resp.StatusCode)
		}
		if resp, _ := e.appGet(imgSrc); resp.StatusCode != 404 {
			t.Errorf("thumbnail: %d, want 404", resp.StatusCode)
		}
	})
}

// countingBlobs counts the bytes read from every blob opened.
type countingBlobs struct {
	fileframe.Blobs
	read atomic.Int64
}

func (c *countingBlobs) Open(ctx context.Context, key string) (fileframe.BlobReader, error) {
	b, err := c.Blobs.Open(ctx, key)
	if err == nil {
		b.Body = &countingBody{ReadSeekCloser: b.Body, n: &c.read}
	}
	return b, err
}

type countingBody struct {
	io.ReadSeekCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadSeekCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// TestPreviewReadsRanges: rendering a page reads the file's head (and a
// text's first 16 KiB), never the whole file; a range of the media reads
// that range.
func TestPreviewReadsRanges(t *testing.T) {
	cb := &countingBlobs{}
	e := newTestEnv(t, func(c *Config) { cb.Blobs = c.Blobs; c.Blobs = cb })
	a := e.account(fileframe.PlanFree)
	big := bytes.Repeat([]byte("a line of text\n"), 200_000) // 3 MB
	for _, c := range []struct {
		name    string
		content []byte
		max     int64
	}{
		{"big.txt", big, sniffLen + textPreviewBytes + 1},
		{"big.mp4", append(testMP4, make([]byte, 3<<20)...), sniffLen},
		{"big.pdf", append(testPDF, make([]byte, 3<<20)...), sniffLen},
	} {
		f := e.typedFile(a, c.name, c.content)
		cb.read.Store(0)
		if kind, _, _ := e.previewOn(f); kind == "" {
			t.Fatalf("%s: no preview", c.name)
		}
		if got := cb.read.Load(); got > c.max {
			t.Errorf("%s: the page read %d bytes of the file, want at most %d", c.name, got, c.max)
		}
		if c.name == "big.mp4" {
			cb.read.Store(0)
			resp, got := e.contentGet("/v/"+f.Slug+"/"+string(f.ID), "Sec-Fetch-Dest", "video", "Range", "bytes=1000000-1000999")
			if resp.StatusCode != 206 || len(got) != 1000 || cb.read.Load() > 64<<10 {
				t.Errorf("a 1000-byte range: %d, %d bytes served, %d read", resp.StatusCode, len(got), cb.read.Load())
			}
		}
	}
}

// TestPreviewThumbnailOnce: a thumbnail is made once, whoever asks and
// however many at once, kept across a restart; an image bomb is refused
// from its header, within the budget, and not tried again.
func TestPreviewThumbnailOnce(t *testing.T) {
	maker, err := thumb.New(thumb.MaxPixels, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t, func(c *Config) { c.Thumbnails = maker })
	a := e.account(fileframe.PlanFree)
	f := e.typedFile(a, "photo.png", testPNG(t, 2000, 1500))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if resp, _ := e.appGet("/f/" + f.Slug + "/thumb/" + string(f.ID)); resp.StatusCode != 200 {
				t.Errorf("thumbnail: %d", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	e.previewOn(f)
	if s := maker.Stats(); s.Decoded != 1 {
		t.Errorf("decoded %d times, want once", s.Decoded)
	}
	p, err := e.store.Preview(context.Background(), f.BlobKey)
	if err != nil || p.Width != 720 || p.Height != 540 {
		t.Fatalf("stored preview %+v, %v", p, err)
	}

	// Another instance (a restart with a new maker) finds it.
	again, _ := thumb.New(0, 0)
	e = e.restart(func(c *Config) { c.Thumbnails = again })
	if kind, _, body := e.previewOn(f); kind != previewImage || !strings.Contains(body, `width="720"`) {
		t.Errorf("after a restart: %q", kind)
	}
	if resp, _ := e.appGet("/f/" + f.Slug + "/thumb/" + string(f.ID)); resp.StatusCode != 200 {
		t.Errorf("thumbnail after a restart: %d", resp.StatusCode)
	}
	if s := again.Stats(); s.Decoded != 0 {
		t.Errorf("decoded %d times after the restart, want none", s.Decoded)
	}

	// The bomb: refused by its declared size, nothing decoded, not
	// tried again.
	bomb := e.typedFile(a, "bomb.png", pngBomb(100_000, 100_000))
	for range 3 {
		if kind, _, _ := e.previewOn(bomb); kind != "" {
			t.Errorf("the bomb has preview %q", kind)
		}
		e.srv.cache = newPublicCache(publicCacheSize) // render the page again
	}
	if resp, _ := e.appGet("/f/" + bomb.Slug + "/thumb/" + string(bomb.ID)); resp.StatusCode != 404 {
		t.Errorf("the bomb's thumbnail: %d, want 404", resp.StatusCode)
	}
	if s := again.Stats(); s.Refused != 1 || s.Decoded != 0 || s.PeakPixels != 0 {
		t.Errorf("after the bomb: %+v, want one refusal and nothing decoded", s)
	}

	// The GIF/JS polyglot is re-encoded: what is served is not it.
	poly := e.typedFile(a, "poly.gif", gifJSPolyglot(t))
	if kind, src, _ := e.previewOn(poly); kind == previewImage {
		_, got := e.appGet(src)
		if bytes.Contains(got, []byte("pwned")) {
			t.Error("the polyglot's script is in its thumbnail")
		}
	}

	// Deleting the file removes the preview and then the thumbnail.
	if _, _, err := e.srv.svc.DeleteFile(context.Background(), a, f.ID); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(2 * fileframe.BlobGrace)
	if _, err := fileframe.CollectOrphanBlobs(context.Background(), e.store, e.blobs, now); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Preview(context.Background(), f.BlobKey); !fileframe.IsNotFound(err) {
		t.Errorf("preview after the file's deletion: %v", err)
	}
	if _, err := e.blobs.Stat(context.Background(), p.ThumbKey); !fileframe.IsNotFound(err) {
		t.Errorf("thumbnail blob after the file's deletion: %v", err)
	}
}

// TestPreviewCollectionItems: a collection's page previews its files (the
// first maxItemPreviews), each through the collection's own address, with
// one policy that allows what any of them needs; a preview address of a
// file that is not an item, or of the collection itself, is 404; a file
// taken out of the collection loses its preview address at once.
func TestPreviewCollectionItems(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	photo := e.typedFile(a, "photo.png", testPNG(t, 800, 600))
	clip := e.typedFile(a, "clip.mp4", testMP4)
	notes := e.typedFile(a, "notes.txt", []byte("first line\n<script>document.title='pwned'</script>\n"))
	outside := e.typedFile(a, "other.png", testPNG(t, 40, 40))
	c := e.collection(a, "Set", photo, clip, notes)

	resp, b := e.appGet("/f/" + c.Slug)
	body := string(b)
	if resp.StatusCode != 200 {
		t.Fatalf("GET the collection's page: %d", resp.StatusCode)
	}
	kinds := previewAttr.FindAllStringSubmatch(body, -1)
	if len(kinds) != 3 || kinds[0][1] != previewImage || kinds[1][1] != previewVideo || kinds[2][1] != previewText {
		t.Errorf("previews on the collection's page: %v, want image, video, text in the collection's order", kinds)
	}
	if !strings.Contains(body, "&lt;script&gt;document.title") {
		t.Errorf("the text file's first lines are not escaped text on the page")
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "media-src "+e.content.URL+"/v/") || strings.Count(csp, "media-src") != 1 {
		t.Errorf("CSP %q: want one media-src of the content origin's /v/ for the clip", csp)
	}
	thumb := "/f/" + c.Slug + "/thumb/"
	if resp, _ := e.appGet(thumb + string(photo.ID)); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Errorf("an item's thumbnail: %d %s, want 200 image/jpeg", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, id := range []fileframe.FileID{outside.ID, c.ID, "f_Nope", "..%2F" + photo.ID} {
		if resp, _ := e.appGet(thumb + string(id)); resp.StatusCode != 404 {
			t.Errorf("thumbnail of %s through the collection: %d, want 404", id, resp.StatusCode)
		}
	}
	media := e.content.URL + "/v/" + c.Slug + "/" + string(clip.ID)
	if resp, _ := e.get(media, "Sec-Fetch-Dest", "video"); resp.StatusCode != 200 {
		t.Errorf("the clip's media through the collection: %d, want 200", resp.StatusCode)
	}
	if _, err := e.srv.svc.RemoveFromCollection(context.Background(), a, c.ID, clip.ID); err != nil {
		t.Fatal(err)
	}
	if resp, _ := e.get(media, "Sec-Fetch-Dest", "video"); resp.StatusCode != 404 {
		t.Errorf("the clip's media after it left the collection: %d, want 404", resp.StatusCode)
	}
}

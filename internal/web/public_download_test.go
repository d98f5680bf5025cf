package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// deterministicBytes returns n bytes of a fixed pseudo-random sequence.
func deterministicBytes(n int) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{1}).Read(b)
	return b
}

// download fetches /f/{slug}/download with the given method and headers.
func (e *testEnv) download(method string, f fileframe.File, header ...string) (*http.Response, []byte) {
	e.t.Helper()
	req := publicRequest(e.t, method, e.app.URL+"/f/"+f.Slug+"/download")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return e.do(req)
}

// downloads returns the file's download counter in the store.
func (e *testEnv) downloads(f fileframe.File) int64 {
	e.t.Helper()
	got, err := e.store.FileByID(context.Background(), f.ID)
	if err != nil {
		e.t.Fatalf("FileByID: %v", err)
	}
	return got.Downloads
}

func TestDownload(t *testing.T) {
	e := newTestEnv(t)
	content := deterministicBytes(100_000)
	a := e.account(fileframe.PlanFree)
	f := e.file(a, "data.bin", content)

	resp, body := e.download("GET", f)
	if resp.StatusCode != 200 {
		t.Fatalf("status: got %d, want 200", resp.StatusCode)
	}
	if !bytes.Equal(body, content) {
		t.Fatalf("body differs from the stored file (%d bytes, want %d)", len(body), len(content))
	}
	wantETag := `"` + f.BlobKey + `"`
	for name, want := range map[string]string{
		"Content-Type":           "application/octet-stream",
		"Content-Disposition":    `attachment; filename=data.bin`,
		"X-Content-Type-Options": "nosniff",
		"ETag":                   wantETag,
		"Accept-Ranges":          "bytes",
		"Content-Length":         "100000",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	if sum := sha256.Sum256(body); `"`+hex.EncodeToString(sum[:])+`"` != wantETag {
		t.Errorf("ETag is not the content hash")
	}
	again, _ := e.download("GET", f)
	if got := again.Header.Get("ETag"); got != wantETag {
		t.Errorf("ETag not stable: got %q then %q", wantETag, got)
	}

	// A stored content type is served as is.
	typed, err := e.store.CreateFile(context.Background(), fileframe.File{
		AccountID: a.ID, Name: "photo.png", Size: f.Size, BlobKey: f.BlobKey, ContentType: "image/png",
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp, _ := e.download("GET", typed); resp.Header.Get("Content-Type") != "image/png" {
		t.Errorf("Content-Type: got %q, want image/png", resp.Header.Get("Content-Type"))
	}
}

func TestDownloadContentDisposition(t *testing.T) {
	names := []struct {
		name    string
		encoded bool // sent as filename*=utf-8''…
	}{
		{"report.pdf", false},
		{"my report (final) v2.pdf", false},
		{`say "hi".txt`, false},
		{`back\slash.txt`, false},
		{"semi;colon=x.txt", false},
		{"résumé.pdf", true},
		{"日本語のファイル.txt", true},
		{"emoji 📦.zip", true},
		{"evil\"\r\nX-Injected: 1\r\n.txt", true},
		{"nul\x00byte.txt", true},
		{"tab\there.txt", false},
		{"100% off.txt", false},
	}
	// The header value, parsed back, must give the same name, and contain no
	// line break whatever the name.
	for _, tt := range names {
		got := contentDisposition(tt.name)
		if strings.ContainsAny(got, "\r\n\x00") {
			t.Errorf("%q: header %q contains a control character", tt.name, got)
		}
		disp, params, err := mime.ParseMediaType(got)
		if err != nil || disp != "attachment" || params["filename"] != tt.name {
			t.Errorf("%q: %q parses as %q %q (%v)", tt.name, got, disp, params["filename"], err)
		}
		if enc := strings.Contains(got, "filename*=utf-8''"); enc != tt.encoded {
			t.Errorf("%q: %q: filename* is %v, want %v", tt.name, got, enc, tt.encoded)
		}
	}
	if got := contentDisposition(""); got != "attachment; filename=download" {
		t.Errorf("empty name: got %q", got)
	}

	// The same through the server, for the names that are hardest.
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	for _, name := range []string{`say "hi".txt`, "résumé final.pdf", "evil\"\r\nX-Injected: 1\r\n.txt"} {
		f := e.file(a, name, []byte("x"))
		resp, _ := e.download("GET", f)
		if resp.StatusCode != 200 {
			t.Fatalf("%q: status %d", name, resp.StatusCode)
		}
		if v := resp.Header.Get("X-Injected"); v != "" {
			t.Errorf("%q: header injected: X-Injected %q", name, v)
		}
		_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
		if err != nil || params["filename"] != name {
			t.Errorf("%q: Content-Disposition %q gives %q (%v)", name, resp.Header.Get("Content-Disposition"), params["filename"], err)
		}
	}
}

func TestDownloadRanges(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.CountFlushInterval = time.Hour })
	content := deterministicBytes(1000)
	f := e.file(e.account(fileframe.PlanFree), "data.bin", content)
	etag := `"` + f.BlobKey + `"`

	tests := []struct {
		name         string
		method       string
		header       []string
		wantStatus   int
		wantBody     []byte // nil: not checked
		wantRange    string
		wantCounted  bool
		wantNoBody   bool
		wantMultiple bool
	}{
		{name: "whole", method: "GET", wantStatus: 200, wantBody: content, wantCounted: true},
		{name: "first ten bytes", method: "GET", header: []string{"Range", "bytes=0-9"}, wantStatus: 206,
			wantBody: content[:10], wantRange: "bytes 0-9/1000", wantCounted: true},
		{name: "from byte 5", method: "GET", header: []string{"Range", "bytes=5-"}, wantStatus: 206,
			wantBody: content[5:], wantRange: "bytes 5-999/1000"},
		{name: "suffix", method: "GET", header: []string{"Range", "bytes=-10"}, wantStatus: 206,
			wantBody: content[990:], wantRange: "bytes 990-999/1000"},
		{name: "multi-range", method: "GET", header: []string{"Range", "bytes=0-1,5-6"}, wantStatus: 206,
			wantMultiple: true},
		{name: "unsatisfiable", method: "GET", header: []string{"Range", "bytes=2000-"}, wantStatus: 416,
			wantRange: "bytes */1000"},
		{name: "If-Range matching", method: "GET", header: []string{"Range", "bytes=0-9", "If-Range", etag},
			wantStatus: 206, wantBody: content[:10], wantRange: "bytes 0-9/1000", wantCounted: true},
		{name: "If-Range matching from 5", method: "GET", header: []string{"Range", "bytes=5-9", "If-Range", etag},
			wantStatus: 206, wantBody: content[5:10], wantRange: "bytes 5-9/1000"},
		{name: "If-Range stale", method: "GET", header: []string{"Range", "bytes=5-9", "If-Range", `"stale"`},
			wantStatus: 200, wantBody: content, wantCounted: true},
		{name: "If-None-Match", method: "GET", header: []string{"If-None-Match", etag}, wantStatus: 304,
			wantNoBody: true},
		{name: "If-None-Match other", method: "GET", header: []string{"If-None-Match", `"other"`}, wantStatus: 200,
			wantBody: content, wantCounted: true},
		{name: "HEAD", method: "HEAD", wantStatus: 200, wantNoBody: true},
		{name: "HEAD range from 0", method: "HEAD", header: []string{"Range", "bytes=0-9"}, wantStatus: 206,
			wantNoBody: true, wantRange: "bytes 0-9/1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.srv.counts.pendingTotal()
			resp, body := e.download(tt.method, f, tt.header...)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status: got %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if tt.wantBody != nil && !bytes.Equal(body, tt.wantBody) {
				t.Errorf("body: got %d bytes, want %d", len(body), len(tt.wantBody))
			}
			if tt.wantNoBody && len(body) != 0 {
				t.Errorf("body: got %d bytes, want none", len(body))
			}
			if got := resp.Header.Get("Content-Range"); got != tt.wantRange {
				t.Errorf("Content-Range: got %q, want %q", got, tt.wantRange)
			}
			if tt.method == "HEAD" && tt.wantStatus == 200 {
				if resp.Header.Get("Content-Length") != "1000" || resp.Header.Get("ETag") != etag ||
					resp.Header.Get("Content-Disposition") == "" {
					t.Errorf("HEAD headers incomplete: %v", resp.Header)
				}
			}
			if tt.wantMultiple {
				assertMultipart(t, resp, body, [][]byte{content[0:2], content[5:7]})
			}
			if tt.wantStatus < 300 && resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("no nosniff")
			}
			counted := e.srv.counts.pendingTotal() - before
			if want := map[bool]int64{true: 1, false: 0}[tt.wantCounted]; counted != want {
				t.Errorf("counted %d downloads, want %d", counted, want)
			}
		})
	}
	// Five counted responses above; they reach the store on a flush.
	if err := e.srv.counts.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.downloads(f); got != 5 {
		t.Errorf("store downloads: got %d, want 5", got)
	}
}

func assertMultipart(t *testing.T, resp *http.Response, body []byte, want [][]byte) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/byteranges" {
		t.Fatalf("Content-Type: got %q, want multipart/byteranges", resp.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for i, w := range want {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		got, _ := io.ReadAll(p)
		if !bytes.Equal(got, w) {
			t.Errorf("part %d: got %q, want %q", i, got, w)
		}
	}
}

func TestDownloadCountsReachTheStore(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.CountFlushInterval = 20 * time.Millisecond })
	f := e.file(e.account(fileframe.PlanFree), "a.txt", []byte("hello"))
	for range 3 {
		if resp, _ := e.download("GET", f); resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.downloads(f) != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("store downloads: got %d, want 3 after the periodic flush", e.downloads(f))
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, metrics := e.opsGet("/metrics")
	if !bytes.Contains(metrics, []byte("fileframe_downloads_total 3")) {
		t.Errorf("fileframe_downloads_total is not 3")
	}
}

func TestDownloadNotFound(t *testing.T) {
	e := newTestEnv(t)
	a, err := e.store.CreateAccount(context.Background(), fileframe.Account{
		Email: "off@example.com", Plan: fileframe.PlanPro, Disabled: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	disabled := e.file(a, "a.txt", []byte("secret bytes"))
	unknown := fileframe.File{Slug: "nosuchslug"}
	for name, f := range map[string]fileframe.File{"disabled account": disabled, "unknown slug": unknown} {
		t.Run(name, func(t *testing.T) {
			resp, body := e.download("GET", f)
			if resp.StatusCode != 404 {
				t.Fatalf("status: got %d, want 404", resp.StatusCode)
			}
			if resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || bytes.Contains(body, []byte("secret bytes")) {
				t.Errorf("not the 404 page: %q", body)
			}
			if resp.Header.Get("Content-Disposition") != "" || resp.Header.Get("ETag") != "" {
				t.Errorf("404 carries download headers: %v", resp.Header)
			}
		})
	}
	if got := e.srv.counts.pendingTotal(); got != 0 {
		t.Errorf("a 404 was counted")
	}
}

// TestDownloadConstantMemory downloads a 200 MiB file over a real loopback
// connection and checks that the heap does not grow with it.
func TestDownloadConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("200 MiB download")
	}
	e := newTestEnv(t)
	const size = 200 << 20
	ctx := context.Background()
	info, err := e.blobs.Put(ctx, io.LimitReader(rand.NewChaCha8([32]byte{7}), size))
	if err != nil {
		t.Fatal(err)
	}
	f, err := e.store.CreateFile(ctx, fileframe.File{
		AccountID: e.account(fileframe.PlanFree).ID, Name: "big.bin", Size: info.Size, BlobKey: info.Key,
		ContentType: "application/octet-stream",
	})
	if err != nil {
		t.Fatal(err)
	}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				mu.Lock()
				peak = max(peak, m.HeapInuse)
				mu.Unlock()
			}
		}
	}()

	resp, err := http.Get(e.app.URL + "/f/" + f.Slug + "/download")
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(h, io.Discard), resp.Body)
	resp.Body.Close()
	close(done)
	<-sampled
	if err != nil || n != size {
		t.Fatalf("read %d bytes (%v), want %d", n, err, size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != info.Key {
		t.Errorf("downloaded bytes differ from the blob")
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	peak = max(peak, after.HeapInuse)
	growth := int64(peak) - int64(before.HeapInuse)
	t.Logf("HeapInuse: before %d MiB, peak %d MiB", before.HeapInuse>>20, peak>>20)
	if growth > 32<<20 {
		t.Errorf("heap grew by %s while downloading 200 MiB, want < 32 MiB", fmt.Sprint(growth>>20, " MiB"))
	}
}

// TestDownloadExtendsWriteDeadline serves a download from a server whose
// WriteTimeout is far shorter than the transfer: the download's own deadline
// (one minute plus size at 32 KiB/s) lets it finish.
func TestDownloadExtendsWriteDeadline(t *testing.T) {
	e := newTestEnv(t)
	const size = 32 << 20
	content := deterministicBytes(size)
	f := e.file(e.account(fileframe.PlanFree), "big.bin", content)
	srv := httptest.NewUnstartedServer(e.srv.AppHandler())
	srv.Config.WriteTimeout = 100 * time.Millisecond
	srv.Start()
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/f/" + f.Slug + "/download")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(300 * time.Millisecond) // a slow client: the server's writes block meanwhile
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != size {
		t.Errorf("read %d of %d bytes (%v): the server's WriteTimeout cut the download", n, size, err)
	}
}

// TestDownloadTypes: a download keeps its type when that type runs nothing
// (images, media, PDF, text, archives); scripts, style sheets, HTML, SVG
// and XML are served as application/octet-stream, so that with nosniff no
// browser runs or applies them, e.g. from <script src> on another site or
// from an injection on the app origin (whose CSP allows its own scripts).
// Every download also carries a CSP under which it runs nothing.
func TestDownloadTypes(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	for _, tt := range []struct{ name, stored, want string }{
		{"payload.js", "text/javascript; charset=utf-8", "application/octet-stream"},
		{"x.mjs", "application/javascript", "application/octet-stream"},
		{"page.html", "text/html; charset=utf-8", "application/octet-stream"},
		{"page.xhtml", "application/xhtml+xml", "application/octet-stream"},
		{"logo.svg", "image/svg+xml", "application/octet-stream"},
		{"logo.svgz", "image/svg+xml-compressed", "application/octet-stream"},
		{"movie.swf", "application/vnd.adobe.flash.movie", "application/octet-stream"},
		{"style.css", "text/css; charset=utf-8", "application/octet-stream"},
		{"feed.xml", "text/xml; charset=utf-8", "application/octet-stream"},
		{"m.wasm", "application/wasm", "application/octet-stream"},
		{"odd", "nonsense", "application/octet-stream"},
		{"empty", "", "application/octet-stream"},
		{"photo.png", "image/png", "image/png"},
		{"clip.mp4", "video/mp4", "video/mp4"},
		{"report.pdf", "application/pdf", "application/pdf"},
		{"notes.txt", "text/plain; charset=utf-8", "text/plain; charset=utf-8"},
		{"data.json", "application/json", "application/json"},
		{"deck.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	} {
		base := e.file(a, tt.name, []byte("document.title='x'"))
		f, err := e.store.CreateFile(context.Background(), fileframe.File{
			AccountID: a.ID, Name: tt.name, Size: base.Size, BlobKey: base.BlobKey, ContentType: tt.stored,
		})
		if err != nil {
			t.Fatal(err)
		}
		resp, _ := e.download(http.MethodGet, f)
		if got := resp.Header.Get("Content-Type"); got != tt.want {
			t.Errorf("%s (%s): Content-Type %q, want %q", tt.name, tt.stored, got, tt.want)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Content-Security-Policy") != "default-src 'none'; sandbox" {
			t.Errorf("%s: nosniff %q, CSP %q", tt.name, resp.Header.Get("X-Content-Type-Options"), resp.Header.Get("Content-Security-Policy"))
		}
	}
}

// A client that goes away before its download starts (it closed its
// side of the connection right after the request, and net/http ended
// the request's context) is not a server fault: 400 and an info line,
// never a 500 logged as an error. Opening the blob of a file too large
// for the blob cache failed with the context's error, which fault hid.
func TestDownloadOfAClientGoneIsNotAFault(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	f := e.file(a, "large.bin", deterministicBytes(blobCacheMaxBlob+1))
	h := e.srv.AppHandler()
	path := e.app.URL + "/f/" + f.Slug + "/download"
	warm := httptest.NewRecorder()
	h.ServeHTTP(warm, httptest.NewRequest(http.MethodGet, path, nil))
	if warm.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", path, warm.Code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil).WithContext(ctx))
	if rec.Code >= 500 {
		t.Errorf("GET %s after the client went away: %d, want a 4xx", path, rec.Code)
	}
	if logs := e.logs.String(); strings.Contains(logs, `"level":"ERROR"`) {
		t.Errorf("a client gone was logged as a server error:\n%s", logs)
	}
}

// cutBlobs is Blobs whose readers fail with the store out of reach after
// at most after bytes, as an S3 server that stops answering mid-download.
type cutBlobs struct {
	fileframe.Blobs
	after int64
}

func (b cutBlobs) Open(ctx context.Context, key string) (fileframe.BlobReader, error) {
	br, err := b.Blobs.Open(ctx, key)
	if err != nil {
		return br, err
	}
	br.Body = &cutBody{ReadSeekCloser: br.Body, left: b.after}
	return br, nil
}

type cutBody struct {
	io.ReadSeekCloser
	left int64
}

func (c *cutBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("s3: read: %w", fileframe.Errorf(fileframe.CodeUnavailable, "The file storage is out of reach just now."))
	}
	n, err := c.ReadSeekCloser.Read(p[:min(int64(len(p)), c.left)])
	c.left -= int64(n)
	return n, err
}

// TestDownloadCutByOutageIsWarned: a download that the blob store stops
// feeding mid-way is cut short (the client sees fewer bytes than
// Content-Length) and logged as a warning of the outage; it left only an
// access line with status 200 before (the twentieth attack).
func TestDownloadCutByOutageIsWarned(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.Blobs = cutBlobs{Blobs: c.Blobs, after: 300 << 10} })
	f := e.file(e.account(fileframe.PlanFree), "big.bin", bytes.Repeat([]byte("z"), 1<<20))
	resp, err := http.Get(e.app.URL + "/f/" + f.Slug + "/download")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || len(got) >= 1<<20 {
		t.Errorf("download cut mid-way: %d bytes, %v; want fewer than 1 MiB and an error", len(got), err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(e.logs.String(), `"level":"WARN","msg":"download: reading the file failed; the answer was cut short"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no warning for the download the outage cut:\n%s", e.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

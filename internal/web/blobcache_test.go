package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func TestBlobCache(t *testing.T) {
	c := newBlobCache(100)
	c.put("a", make([]byte, 40))
	c.put("b", make([]byte, 40))
	if _, ok := c.get("a"); !ok {
		t.Fatal("a not kept")
	}
	c.put("too big", make([]byte, 101))
	if _, ok := c.get("too big"); ok {
		t.Error("a blob larger than the cache was kept")
	}
	for i := range 50 {
		c.put(fmt.Sprint(i), make([]byte, 10+i%30))
		total := 0
		for _, b := range c.blobs {
			total += len(b.body)
		}
		if total != c.size || c.size > c.max {
			t.Fatalf("after %d puts: %d bytes held, size says %d, max %d", i+1, total, c.size, c.max)
		}
		if _, ok := c.get(fmt.Sprint(i)); !ok {
			t.Fatalf("the blob just put is not kept")
		}
	}
	c.put("49", []byte("other"))
	if b, _ := c.get("49"); len(b.body) == len("other") {
		t.Error("a second put of a key replaced its bytes")
	}
	if b, _ := c.get("49"); b.etag[0] != `"49"` {
		t.Errorf("ETag: got %q", b.etag)
	}
	b, _ := c.get("49")
	if b.length[0] != strconv.Itoa(len(b.body)) {
		t.Errorf("Content-Length: got %q for %d bytes", b.length, len(b.body))
	}
	// Files sharing the blob, one after the other: each gets its own name,
	// type and time, never the one before's.
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	for _, f := range []fileframe.File{
		{Name: "a.pdf", ContentType: "application/pdf", CreatedAt: at},
		{Name: "a.pdf", ContentType: "application/pdf", CreatedAt: at},
		{Name: "b c.pdf", ContentType: "application/pdf", CreatedAt: at},
		{Name: "b c.pdf", ContentType: "text/html", CreatedAt: at},
		{Name: "b c.pdf", ContentType: "text/html", CreatedAt: at.Add(time.Second)},
		{Name: "a.pdf", ContentType: "application/pdf", CreatedAt: time.Unix(0, 0)},
		{Name: "a.pdf", ContentType: "application/pdf"},
	} {
		h := b.headersFor(&f)
		if got, want := h.disposition[0], contentDisposition(f.Name); got != want {
			t.Errorf("disposition of %q: got %q, want %q", f.Name, got, want)
		}
		if got, want := h.contentTypeValue[0], downloadType(f.ContentType); got != want {
			t.Errorf("type of %q: got %q, want %q", f.ContentType, got, want)
		}
		// As http.ServeContent sets it: in UTC, and not at all for a
		// zero time or the epoch.
		rec := httptest.NewRecorder()
		http.ServeContent(rec, httptest.NewRequest(http.MethodHead, "/", nil), "", f.CreatedAt, strings.NewReader(""))
		if got, want := h.lastModified, rec.Header()["Last-Modified"]; !slices.Equal(got, want) {
			t.Errorf("Last-Modified of %v: got %q, want %q", f.CreatedAt, got, want)
		}
	}
}

// TestDownloadFromMemory checks that a small blob is served from memory once
// read (the same bytes and headers with its file gone from disk), that a
// large one is not kept, and that the file row is still read on every
// request: a deleted file is gone at once although its bytes are cached.
func TestDownloadFromMemory(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	small := deterministicBytes(blobCacheMaxBlob)
	fs := e.file(a, "small.bin", small)
	large := deterministicBytes(blobCacheMaxBlob + 1)
	fl := e.file(a, "large.bin", large)

	first, body := e.download("GET", fs)
	if first.StatusCode != http.StatusOK || !bytes.Equal(body, small) {
		t.Fatalf("first download: %d with %d bytes", first.StatusCode, len(body))
	}
	if resp, body := e.download("GET", fl); resp.StatusCode != http.StatusOK || !bytes.Equal(body, large) {
		t.Fatalf("large download: %d with %d bytes", resp.StatusCode, len(body))
	}
	for _, f := range []fileframe.File{fs, fl} {
		if err := e.blobs.Delete(context.Background(), f.BlobKey); err != nil {
			t.Fatal(err)
		}
	}

	again, body := e.download("GET", fs)
	if again.StatusCode != http.StatusOK || !bytes.Equal(body, small) {
		t.Fatalf("download from memory: %d with %d bytes", again.StatusCode, len(body))
	}
	for _, h := range []http.Header{first.Header, again.Header} {
		h.Del("Date")
		h.Del("X-Request-Id")
	}
	if fmt.Sprint(again.Header) != fmt.Sprint(first.Header) {
		t.Errorf("headers from memory differ:\n got %v\nwant %v", again.Header, first.Header)
	}
	if resp, body := e.download("GET", fs, "Range", "bytes=10-19"); resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, small[10:20]) {
		t.Errorf("range from memory: %d %q", resp.StatusCode, body)
	}
	// A second file with the same bytes (so the same blob) has its own name.
	twin := e.file(a, "twin copy.bin", small)
	for _, f := range []fileframe.File{twin, fs, twin} {
		resp, body := e.download("GET", f)
		if want := contentDisposition(f.Name); resp.Header.Get("Content-Disposition") != want || !bytes.Equal(body, small) {
			t.Errorf("%s: Content-Disposition %q with %d bytes, want %q", f.Name, resp.Header.Get("Content-Disposition"), len(body), want)
		}
	}
	if resp, _ := e.download("GET", fl); resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("large file without its blob: got %d, want 500 (it must not be kept in memory)", resp.StatusCode)
	}

	if _, err := e.store.DeleteFile(context.Background(), fs.ID); err != nil {
		t.Fatal(err)
	}
	if resp, _ := e.download("GET", fs); resp.StatusCode != http.StatusNotFound {
		t.Errorf("deleted file with its bytes in memory: got %d, want 404", resp.StatusCode)
	}
}

// TestWholeAnswersAsServeContent checks that an unconditional GET of a
// download or a custom page from memory, which writeWhole answers, gets
// the very status, headers and bytes that http.ServeContent gives the same
// GET with a precondition that holds (If-None-Match of another ETag), and
// that both count a download.
func TestWholeAnswersAsServeContent(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanAgency)
	small := deterministicBytes(4096)
	bin := e.file(a, "small.bin", small)
	img := e.typedFile(a, "photo.png", append([]byte("\x89PNG\r\n\x1a\n"), small...))
	paged := e.file(a, "report.pdf", []byte("pdf"))
	e.savePage(paged, validPage, true)
	frame := []string{"Sec-Fetch-Dest", "iframe"}

	compare := func(name string, get func(header ...string) (*http.Response, []byte), header ...string) {
		t.Helper()
		get(header...) // puts the bytes in memory
		fast, fastBody := get(header...)
		slow, slowBody := get(append([]string{"If-None-Match", `"not-this-one"`}, header...)...)
		if fast.StatusCode != http.StatusOK || slow.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d and %d, want 200", name, fast.StatusCode, slow.StatusCode)
		}
		if !bytes.Equal(fastBody, slowBody) || len(fastBody) == 0 {
			t.Errorf("%s: %d bytes, ServeContent's %d", name, len(fastBody), len(slowBody))
		}
		for _, h := range []http.Header{fast.Header, slow.Header} {
			h.Del("Date")
			h.Del("X-Request-Id")
		}
		if fmt.Sprint(fast.Header) != fmt.Sprint(slow.Header) {
			t.Errorf("%s: headers differ from ServeContent's:\n got %v\nwant %v", name, fast.Header, slow.Header)
		}
	}
	for _, f := range []fileframe.File{bin, img} {
		before := e.downloads(f)
		compare(f.Name, func(header ...string) (*http.Response, []byte) { return e.download("GET", f, header...) })
		if err := e.srv.counts.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := e.downloads(f) - before; got != 3 {
			t.Errorf("%s: %d downloads counted for 3", f.Name, got)
		}
	}
	compare("custom page", func(header ...string) (*http.Response, []byte) {
		return e.contentGet(fmt.Sprintf("/p/%s/1", paged.Slug), header...)
	}, frame...)
}

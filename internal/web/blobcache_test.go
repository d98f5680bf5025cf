package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"

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
	for _, name := range []string{"a.pdf", "a.pdf", "b c.pdf", "a.pdf"} {
		if got, want := b.dispositionFor(name)[0], contentDisposition(name); got != want {
			t.Errorf("disposition of %q: got %q, want %q", name, got, want)
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

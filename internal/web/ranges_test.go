package web

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func TestWithoutEmptySuffixes(t *testing.T) {
	for _, tt := range []struct {
		in, kept string
		dropped  bool
	}{
		{"bytes=-0", "", true},
		{"bytes= - 00 ", "", true},
		{"bytes=-0,-+0", "", true},
		{"bytes=-0, 0-9", "bytes= 0-9", true},
		{"bytes=0-9,-0,-5", "bytes=0-9,-5", true},
		{"bytes=-5", "bytes=-5", false},
		{"bytes=0-0", "bytes=0-0", false},
		{"bytes=10-", "bytes=10-", false},
		{"items=-0", "items=-0", false},
		{"bytes=-x", "bytes=-x", false},
	} {
		kept, dropped := withoutEmptySuffixes(tt.in)
		if kept != tt.kept || dropped != tt.dropped {
			t.Errorf("%q: got %q, %v; want %q, %v", tt.in, kept, dropped, tt.kept, tt.dropped)
		}
	}
}

// TestEmptySuffixRangeIsUnsatisfiable checks that a Range of zero-length
// suffixes only (bytes=-0) gets a 416 with "bytes */size", as RFC 9110
// §14.1.1 asks, where http.ServeContent answered an empty 206 with a
// Content-Range that ends before it starts; beside another range, the
// other range is served. For a download from memory, one from the blob
// store, and a custom page.
func TestEmptySuffixRangeIsUnsatisfiable(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanAgency)
	small := deterministicBytes(4097)
	large := deterministicBytes(blobCacheMaxBlob + 1)
	fs := e.file(a, "small.bin", small)
	fl := e.file(a, "large.bin", large)
	paged := e.file(a, "report.pdf", []byte("pdf"))
	e.savePage(paged, validPage, true)
	_, page := e.contentGet(fmt.Sprintf("/p/%s/1", paged.Slug), "Sec-Fetch-Dest", "iframe")

	for _, c := range []struct {
		name string
		body []byte
		get  func(header ...string) (*http.Response, []byte)
	}{
		{"download from memory", small, func(h ...string) (*http.Response, []byte) { return e.download("GET", fs, h...) }},
		{"download from the store", large, func(h ...string) (*http.Response, []byte) { return e.download("GET", fl, h...) }},
		{"custom page", page, func(h ...string) (*http.Response, []byte) {
			return e.contentGet(fmt.Sprintf("/p/%s/1", paged.Slug), append([]string{"Sec-Fetch-Dest", "iframe"}, h...)...)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := len(c.body)
			for _, rng := range []string{"bytes=-0", "bytes= -00", "bytes=-0,-0"} {
				resp, _ := c.get("Range", rng)
				if want := fmt.Sprintf("bytes */%d", n); resp.StatusCode != http.StatusRequestedRangeNotSatisfiable || resp.Header.Get("Content-Range") != want {
					t.Errorf("%s: %d, Content-Range %q; want 416, %q", rng, resp.StatusCode, resp.Header.Get("Content-Range"), want)
				}
			}
			resp, body := c.get("Range", "bytes=-0, 0-9")
			if want := fmt.Sprintf("bytes 0-9/%d", n); resp.StatusCode != http.StatusPartialContent || resp.Header.Get("Content-Range") != want || !bytes.Equal(body, c.body[:10]) {
				t.Errorf("bytes=-0, 0-9: %d, Content-Range %q, %q; want 206, %q", resp.StatusCode, resp.Header.Get("Content-Range"), body, want)
			}
			resp, body = c.get("Range", "bytes=-5")
			if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, c.body[n-5:]) {
				t.Errorf("bytes=-5: %d, %q", resp.StatusCode, body)
			}
			// If-Range that does not hold still wins: the whole body.
			resp, body = c.get("Range", "bytes=-0", "If-Range", `"not-this-one"`)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, c.body) {
				t.Errorf("bytes=-0 with a stale If-Range: %d with %d bytes, want 200 with %d", resp.StatusCode, len(body), n)
			}
		})
	}
}

package web

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// rawDownload GETs url with a client of its own (safe in goroutines, no
// t.Fatal), returning the status, the Retry-After and the body.
func rawDownload(url string) (int, string, []byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), body, err
}

// TestOneTimeLinkConcurrent: 20 GETs at once of a one-time link's
// download: exactly one complete transfer, the others refused (503
// link_busy with Retry-After while it runs, 410 once it is counted);
// afterwards the link is gone everywhere, at once.
func TestOneTimeLinkConcurrent(t *testing.T) {
	e := newTestEnv(t)
	content := deterministicBytes(4 << 20)
	f := e.file(e.account(fileframe.PlanFree), "once.bin", content)
	f = e.setLink(f, fileframe.Link{MaxDownloads: 1})

	url := e.app.URL + "/f/" + f.Slug + "/download"
	type result struct {
		status int
		retry  string
		body   []byte
		err    error
	}
	results := make([]result, 20)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range results {
		wg.Go(func() {
			<-start
			r := &results[i]
			r.status, r.retry, r.body, r.err = rawDownload(url)
		})
	}
	close(start)
	wg.Wait()
	complete, busy, gone := 0, 0, 0
	for i, r := range results {
		switch {
		case r.err != nil:
			t.Errorf("GET %d: %v", i, r.err)
		case r.status == http.StatusOK:
			if !bytes.Equal(r.body, content) {
				t.Errorf("GET %d: 200 with %d bytes, want the whole file", i, len(r.body))
			}
			complete++
		case r.status == http.StatusServiceUnavailable:
			if r.retry == "" {
				t.Errorf("GET %d: 503 without Retry-After", i)
			}
			busy++
		case r.status == http.StatusGone:
			gone++
		default:
			t.Errorf("GET %d: got %d, want 200, 503 or 410", i, r.status)
		}
	}
	t.Logf("20 GETs: %d complete, %d busy, %d gone", complete, busy, gone)
	if complete != 1 {
		t.Fatalf("complete transfers: got %d, want exactly 1", complete)
	}
	if got := e.linkDownloads(f); got != 1 {
		t.Errorf("downloads counted: got %d, want 1", got)
	}
	for _, path := range []string{"/f/" + f.Slug + "/download", "/f/" + f.Slug} {
		resp, body := e.appGet(path)
		assertGone(t, "GET "+path+" afterwards", resp, body, "This was a one-time link, and it has already been downloaded", "once.bin")
	}
	if resp, body := e.download("HEAD", f); resp.StatusCode != http.StatusGone {
		t.Errorf("HEAD afterwards: got %d, want 410\n%s", resp.StatusCode, body)
	}
}

// TestLimitedDownloadCounted: a transfer is counted when it completes,
// and the link is used up the moment the client has the file: the next
// request, on the same connection, gets 410.
func TestLimitedDownloadCounted(t *testing.T) {
	e := newTestEnv(t)
	for _, size := range []int{0, 1, 10, 100 << 10} {
		content := deterministicBytes(size)
		f := e.setLink(e.file(e.account(fileframe.PlanFree), "f.bin", content), fileframe.Link{MaxDownloads: 2})
		for i := range 2 {
			resp, body := e.download("GET", f)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, content) {
				t.Fatalf("size %d, GET %d: got %d with %d bytes, want 200 with %d", size, i+1, resp.StatusCode, len(body), size)
			}
			for name, want := range map[string]string{
				"Accept-Ranges":          "none",
				"Cache-Control":          "no-store",
				"Content-Disposition":    contentDisposition("f.bin"),
				"X-Content-Type-Options": "nosniff",
				"Content-Type":           "application/octet-stream",
				"ETag":                   "",
			} {
				if got := resp.Header.Get(name); got != want {
					t.Errorf("size %d: %s %q, want %q", size, name, got, want)
				}
			}
		}
		if resp, body := e.download("GET", f); resp.StatusCode != http.StatusGone {
			t.Errorf("size %d: the third GET got %d, want 410\n%s", size, resp.StatusCode, body)
		}
		if got := e.linkDownloads(f); got != 2 {
			t.Errorf("size %d: downloads counted %d, want 2", size, got)
		}
	}
}

// TestLimitedDownloadRangeIgnored: on a limited link, Range and If-Range
// get the whole file (RFC 9110 lets a server ignore them), and count.
func TestLimitedDownloadRangeIgnored(t *testing.T) {
	e := newTestEnv(t)
	content := deterministicBytes(200_000)
	f := e.setLink(e.file(e.account(fileframe.PlanFree), "r.bin", content), fileframe.Link{MaxDownloads: 5})
	for _, h := range [][]string{
		{"Range", "bytes=0-9"},
		{"Range", "bytes=100000-"},
		{"Range", "bytes=10-19", "If-Range", `"` + f.BlobKey + `"`},
		{"If-None-Match", `"` + f.BlobKey + `"`},
	} {
		resp, body := e.download("GET", f, h...)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, content) || resp.Header.Get("Content-Range") != "" {
			t.Errorf("GET with %q: got %d, %d bytes, Content-Range %q; want 200 with the whole file",
				h, resp.StatusCode, len(body), resp.Header.Get("Content-Range"))
		}
	}
	if got := e.linkDownloads(f); got != 4 {
		t.Errorf("downloads counted: got %d, want 4", got)
	}
}

// TestLimitedDownloadHead: HEAD neither claims nor counts.
func TestLimitedDownloadHead(t *testing.T) {
	e := newTestEnv(t)
	content := deterministicBytes(5000)
	f := e.setLink(e.file(e.account(fileframe.PlanFree), "h.bin", content), fileframe.Link{MaxDownloads: 1})
	for range 3 {
		resp, body := e.download("HEAD", f)
		if resp.StatusCode != http.StatusOK || len(body) != 0 || resp.Header.Get("Content-Length") != "5000" {
			t.Fatalf("HEAD: got %d, %d bytes, Content-Length %q; want 200, none, 5000", resp.StatusCode, len(body), resp.Header.Get("Content-Length"))
		}
	}
	if got := e.linkDownloads(f); got != 0 {
		t.Fatalf("downloads counted after HEADs: got %d, want 0", got)
	}
	if resp, body := e.download("GET", f); resp.StatusCode != http.StatusOK || !bytes.Equal(body, content) {
		t.Fatalf("GET after HEADs: got %d, want 200 with the file", resp.StatusCode)
	}
}

// TestLimitedDownloadCut: a client that closes the connection mid-body
// does not use the link up: its slot comes back and the next GET gets the
// whole file.
func TestLimitedDownloadCut(t *testing.T) {
	e := newTestEnv(t)
	// Larger than the loopback connection's buffers, so that the server
	// is still writing when the client leaves.
	content := deterministicBytes(32 << 20)
	f := e.setLink(e.file(e.account(fileframe.PlanFree), "big.bin", content), fileframe.Link{MaxDownloads: 1})
	url := e.app.URL + "/f/" + f.Slug + "/download"

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	req := publicRequest(t, http.MethodGet, url)
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %v %v", resp, err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 64<<10)); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // unread body: the connection is closed

	// The server notices at its next write; until then the slot is held.
	deadline := time.Now().Add(20 * time.Second)
	for {
		status, retry, body, err := rawDownload(url)
		if err != nil {
			t.Fatal(err)
		}
		if status == http.StatusOK {
			if !bytes.Equal(body, content) {
				t.Fatalf("GET after the cut: 200 with %d bytes, want the whole file", len(body))
			}
			break
		}
		if status != http.StatusServiceUnavailable || retry == "" || time.Now().After(deadline) {
			t.Fatalf("GET after the cut: got %d (Retry-After %q), want 503 while the cut transfer ends, then 200", status, retry)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := e.linkDownloads(f); got != 1 {
		t.Errorf("downloads counted: got %d, want 1 (the cut one does not count)", got)
	}
	if resp, body := e.download("GET", f); resp.StatusCode != http.StatusGone {
		t.Errorf("GET after the complete one: got %d, want 410\n%s", resp.StatusCode, body)
	}
}

// TestLimitedDownloadNeverRedirected: with --download-redirect, a limited
// link is still served through the server (it must see the transfer end);
// a link without a limit is redirected as before.
func TestLimitedDownloadNeverRedirected(t *testing.T) {
	e := newTestEnv(t, func(c *Config) {
		c.Blobs = presigningBlobs{c.Blobs}
		c.DownloadRedirect = true
	})
	content := []byte("served through")
	a := e.account(fileframe.PlanFree)
	limited := e.setLink(e.file(a, "l.bin", content), fileframe.Link{MaxDownloads: 3})
	if resp, body := e.download("GET", limited); resp.StatusCode != http.StatusOK || !bytes.Equal(body, content) {
		t.Errorf("limited link: got %d %q, want 200 with the file", resp.StatusCode, body)
	}
	free := e.file(a, "u.bin", content)
	if resp, _ := e.download("GET", free); resp.StatusCode != http.StatusFound {
		t.Errorf("link without a limit: got %d, want 302", resp.StatusCode)
	}
}

// TestUnlimitedDownloadWritesNothing: a link without a limit keeps
// today's path: ranges, and no claim or count against a limit.
func TestUnlimitedDownloadWritesNothing(t *testing.T) {
	e := newTestEnv(t)
	content := deterministicBytes(1000)
	f := e.file(e.account(fileframe.PlanFree), "u.bin", content)
	resp, body := e.download("GET", f, "Range", "bytes=0-9")
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, content[:10]) {
		t.Errorf("Range: got %d, %d bytes; want 206 with 10", resp.StatusCode, len(body))
	}
	if got := e.linkDownloads(f); got != 0 {
		t.Errorf("downloads counted against no limit: %d", got)
	}
	if !strings.Contains(resp.Header.Get("Accept-Ranges"), "bytes") {
		t.Errorf("Accept-Ranges %q, want bytes", resp.Header.Get("Accept-Ranges"))
	}
}

// finishOutageStore is a store whose FinishDownload fails, as with the
// database out of reach, while down is set.
type finishOutageStore struct {
	fileframe.Store
	down *atomic.Bool
}

func (s finishOutageStore) FinishDownload(ctx context.Context, id fileframe.FileID, claim string, completed bool) error {
	if s.down.Load() {
		return fileframe.Errorf(fileframe.CodeUnavailable, "The database is out of reach just now.")
	}
	return s.Store.FinishDownload(ctx, id, claim, completed)
}

// TestLimitedDownloadSlotBackAfterOutage: a limited download that cannot
// be counted (the database out of reach) is cut a byte short, and its
// claim, which cannot be ended then either, is given back in the
// background once the database is back: the link was busy (503) for
// everyone until the claim ran out, two minutes (the nineteenth attack).
func TestLimitedDownloadSlotBackAfterOutage(t *testing.T) {
	var down atomic.Bool
	e := newTestEnv(t, func(c *Config) { c.Store = finishOutageStore{Store: c.Store, down: &down} })
	content := deterministicBytes(10 << 10)
	f := e.setLink(e.file(e.account(fileframe.PlanFree), "once.bin", content), fileframe.Link{MaxDownloads: 1})
	url := e.app.URL + "/f/" + f.Slug + "/download"

	down.Store(true)
	if _, _, body, _ := rawDownload(url); bytes.Equal(body, content) {
		t.Fatal("the download that could not be counted came whole")
	}
	down.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, _, body, err := rawDownload(url)
		if err != nil {
			t.Fatal(err)
		}
		if status == http.StatusOK {
			if !bytes.Equal(body, content) {
				t.Fatalf("the download once the database is back: 200 with %d bytes, want all %d", len(body), len(content))
			}
			break
		}
		if status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("the download once the database is back: %d, want 200 within 10 s", status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got := e.linkDownloads(f); got != 1 {
		t.Errorf("downloads counted: %d, want 1", got)
	}
}

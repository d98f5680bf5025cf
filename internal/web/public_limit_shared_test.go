package web

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestLinkControlsShared runs two instances on one PostgreSQL database
// and one blob store: a one-time link downloaded through one is gone
// through the other at once (the page and the download), concurrent
// downloads through both complete once in all, and an expired link is
// gone on both at the same moment of their clock.
func TestLinkControlsShared(t *testing.T) {
	pg := newPostgresStore(t)
	blobs, err := disk.Open(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	clock := newPageClock()
	shared := func(c *Config) { c.Store, c.Blobs, c.Now = pg, blobs, clock.Now }
	one, two := newTestEnv(t, shared), newTestEnv(t, shared)
	ctx := context.Background()
	acct, err := pg.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatal(err)
	}
	newFile := func(content []byte, l fileframe.Link) fileframe.File {
		t.Helper()
		info, err := blobs.Put(ctx, bytes.NewReader(content))
		if err != nil {
			t.Fatal(err)
		}
		f, err := pg.CreateFile(ctx, fileframe.File{AccountID: acct.ID, Name: "shared.bin", Size: info.Size, BlobKey: info.Key, ContentType: "application/octet-stream"})
		if err != nil {
			t.Fatal(err)
		}
		return one.setLink(f, l)
	}
	content := deterministicBytes(1 << 20)

	// Both instances have the link's record cached before the download.
	once := newFile(content, fileframe.Link{MaxDownloads: 1})
	for _, e := range []*testEnv{one, two} {
		if resp, _ := e.appGet("/f/" + once.Slug); resp.StatusCode != http.StatusOK {
			t.Fatalf("outer page before the download: got %d, want 200", resp.StatusCode)
		}
	}
	if resp, body := one.download("GET", once); resp.StatusCode != http.StatusOK || !bytes.Equal(body, content) {
		t.Fatalf("download through one: got %d with %d bytes, want 200 with the file", resp.StatusCode, len(body))
	}
	for name, e := range map[string]*testEnv{"two": two, "one": one} {
		resp, body := e.appGet("/f/" + once.Slug)
		assertGone(t, "outer page through "+name, resp, body, "one-time link")
		resp, body = e.download("GET", once)
		assertGone(t, "download through "+name, resp, body, "one-time link")
	}

	// Ten GETs of a one-time link, through both instances at once: one
	// complete transfer in all.
	race := newFile(content, fileframe.Link{MaxDownloads: 1})
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for i := range 10 {
		e := []*testEnv{one, two}[i%2]
		wg.Go(func() {
			status, _, body, err := rawDownload(e.app.URL + "/f/" + race.Slug + "/download")
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("GET: %v", err)
				return
			}
			if status == http.StatusOK && !bytes.Equal(body, content) {
				t.Errorf("200 with %d bytes, want the whole file", len(body))
			}
			statuses[status]++
		})
	}
	wg.Wait()
	if statuses[http.StatusOK] != 1 || statuses[http.StatusOK]+statuses[http.StatusServiceUnavailable]+statuses[http.StatusGone] != 10 {
		t.Errorf("10 GETs through two instances: got %v, want one 200, the others 503 or 410", statuses)
	}
	if got := one.linkDownloads(race); got != 1 {
		t.Errorf("downloads counted: got %d, want 1", got)
	}

	// An expiry: live on both a millisecond before, gone on both at it.
	at := clock.Now().Add(time.Hour).Truncate(time.Millisecond)
	timed := newFile(content, fileframe.Link{ExpiresAt: at})
	clock.t.Store(at.Add(-time.Millisecond).UnixNano())
	for name, e := range map[string]*testEnv{"one": one, "two": two} {
		if resp, _ := e.appGet("/f/" + timed.Slug); resp.StatusCode != http.StatusOK {
			t.Errorf("outer page through %s before the expiry: got %d, want 200", name, resp.StatusCode)
		}
	}
	clock.t.Store(at.UnixNano())
	for name, e := range map[string]*testEnv{"one": one, "two": two} {
		resp, body := e.appGet("/f/" + timed.Slug)
		assertGone(t, "outer page through "+name+" at the expiry", resp, body, "This link expired on")
		resp, body = e.download("GET", timed)
		assertGone(t, "download through "+name+" at the expiry", resp, body, "This link expired on")
	}
}

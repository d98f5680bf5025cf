package web

import (
	"context"
	"testing"
	"time"
)

// TestRestartKeepsState stops the server the way serve does and starts a new
// one on the same data: published pages, drafts and download counts (still in
// memory at shutdown) are all there.
func TestRestartKeepsState(t *testing.T) {
	slow := func(c *Config) { c.CountFlushInterval = time.Hour } // only Close flushes
	e := newTestEnv(t, slow)
	_, published := e.agencyFile("live.txt", []byte("live"))
	_, draft := e.agencyFile("draft.txt", []byte("draft"))
	e.savePage(published, customHTML("live"), true)
	e.savePage(draft, customHTML("draft"), false)
	for range 2 {
		if resp, _ := e.download("GET", published); resp.StatusCode != 200 {
			t.Fatalf("download: %d", resp.StatusCode)
		}
	}
	if got := e.downloads(published); got != 0 {
		t.Fatalf("downloads written before shutdown: got %d, want 0 (flush interval is an hour)", got)
	}

	token := e.srv.previewToken(draft.Slug, 1, time.Now().Add(time.Hour))

	e = e.restart(slow)

	if got := e.downloads(published); got != 2 {
		t.Errorf("downloads after restart: got %d, want 2", got)
	}
	resp, body := e.appGet("/f/" + published.Slug)
	if resp.StatusCode != 200 || pageKind(t, body) != "outer" {
		t.Errorf("published page after restart: got %d %s, want the outer page", resp.StatusCode, pageKind(t, body))
	}
	if resp, body := e.contentGet("/p/"+published.Slug+"/1", "Sec-Fetch-Dest", "iframe"); resp.StatusCode != 200 || string(body) != string(e.served(published, customHTML("live"))) {
		t.Errorf("live revision after restart: got %d %q", resp.StatusCode, body)
	}
	resp, body = e.appGet("/f/" + draft.Slug)
	if resp.StatusCode != 200 || pageKind(t, body) != "default" {
		t.Errorf("draft after restart: got %d %s, want the default page", resp.StatusCode, pageKind(t, body))
	}
	page, err := e.store.PageByFile(context.Background(), draft.ID)
	if err != nil || page.Published() || page.LatestRevision != 1 {
		t.Errorf("draft page after restart: got %+v (%v), want revision 1, not live", page, err)
	}
	// A preview link made before the restart still works (same secret).
	if resp, _ := e.contentGet("/p/"+draft.Slug+"/1?preview="+token, "Sec-Fetch-Dest", "iframe"); resp.StatusCode != 200 {
		t.Errorf("draft preview after restart: got %d", resp.StatusCode)
	}
}

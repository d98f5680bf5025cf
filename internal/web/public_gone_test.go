package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// setLink sets f's link controls in the server's store (whichever backend
// the test runs on) and returns the file as stored.
func (e *testEnv) setLink(f fileframe.File, l fileframe.Link) fileframe.File {
	e.t.Helper()
	got, err := e.srv.store.SetLink(context.Background(), f.ID, l)
	if err != nil {
		e.t.Fatalf("SetLink: %v", err)
	}
	return got
}

// linkDownloads returns the complete downloads counted against f's limit.
func (e *testEnv) linkDownloads(f fileframe.File) int64 {
	e.t.Helper()
	got, err := e.srv.store.FileByID(context.Background(), f.ID)
	if err != nil {
		e.t.Fatalf("FileByID: %v", err)
	}
	return got.LinkDownloads
}

// assertGone checks that resp is the service's gone page: 410, never
// stored, the page's own headers, saying want and nothing of the owner's.
func assertGone(t *testing.T, what string, resp *http.Response, body []byte, want string, owners ...string) {
	t.Helper()
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("%s: got %d, want 410\n%s", what, resp.StatusCode, body)
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("%s: Cache-Control %q, want no-store", what, got)
	}
	if got := resp.Header.Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("%s: Content-Type %q, want HTML", what, got)
	}
	if resp.Request.Method == http.MethodHead {
		return
	}
	if !strings.Contains(string(body), want) {
		t.Errorf("%s: the page does not say %q:\n%s", what, want, body)
	}
	for _, s := range owners {
		if strings.Contains(string(body), s) {
			t.Errorf("%s: the gone page shows the owner's %q", what, s)
		}
	}
}

// TestLinkExpiryMoment: a link is live a millisecond before its expiry and
// gone at it, on the outer page, the download, the appearance images and
// the content origin, at the server's clock, with nothing to invalidate.
func TestLinkExpiryMoment(t *testing.T) {
	clock := newPageClock()
	e := newTestEnv(t, func(c *Config) { c.Now = clock.Now })
	_, f := e.agencyFile("plan.pdf", []byte("the plan"))
	e.savePage(f, customHTML("custom-page-marker"), true)
	e.setFileLook(f, fileframe.Appearance{Template: "minimal", Headline: "Owner headline", LogoKey: e.putBlob(pngImage(t))})
	at := time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)
	f = e.setLink(f, fileframe.Link{ExpiresAt: at})

	type check struct {
		name    string
		get     func() (*http.Response, []byte)
		content bool
	}
	checks := []check{
		{"outer page", func() (*http.Response, []byte) { return e.appGet("/f/" + f.Slug) }, false},
		{"download", func() (*http.Response, []byte) { return e.download("GET", f) }, false},
		{"download HEAD", func() (*http.Response, []byte) { return e.download("HEAD", f) }, false},
		{"logo", func() (*http.Response, []byte) { return e.appGet("/f/" + f.Slug + "/logo") }, false},
		{"content origin", func() (*http.Response, []byte) {
			return e.contentGet("/p/"+f.Slug+"/1", "Sec-Fetch-Dest", "iframe")
		}, true},
	}
	clock.t.Store(at.Add(-time.Millisecond).UnixNano())
	for _, c := range checks {
		if resp, body := c.get(); resp.StatusCode != http.StatusOK {
			t.Fatalf("%s a millisecond before the expiry: got %d, want 200\n%s", c.name, resp.StatusCode, body)
		}
	}
	clock.t.Store(at.UnixNano())
	for _, c := range checks {
		resp, body := c.get()
		assertGone(t, c.name+" at the expiry", resp, body, "This link expired on 17 May 2030 at 09:30 UTC", "custom-page-marker", "Owner headline", "plan.pdf")
		if c.content {
			assertSandboxHeaders(t, e, resp)
		}
	}
	// The content origin's other destinations lead to the outer page,
	// which is gone.
	if resp, _ := e.contentGet("/p/"+f.Slug+"/1", "Sec-Fetch-Dest", "document"); resp.StatusCode != http.StatusFound {
		t.Errorf("content origin as a document: got %d, want 302 to the outer page", resp.StatusCode)
	}

	// Renewed, it is live again at once.
	e.setLink(f, fileframe.Link{ExpiresAt: at.Add(time.Hour)})
	if resp, _ := e.appGet("/f/" + f.Slug); resp.StatusCode != http.StatusOK {
		t.Errorf("outer page after renewal: got %d, want 200", resp.StatusCode)
	}
}

// TestRemovedLinkGone: once the collector removed the file of an ended
// link, its slug answers 410 with the gone page, not 404; a slug that
// never was stays 404.
func TestRemovedLinkGone(t *testing.T) {
	clock := newPageClock()
	e := newTestEnv(t, func(c *Config) { c.Now = clock.Now })
	_, f := e.agencyFile("brief.pdf", []byte("brief"))
	e.savePage(f, customHTML("custom-page-marker"), true)
	f = e.setLink(f, fileframe.Link{ExpiresAt: clock.Now().Add(time.Hour), RemoveWhenEnded: true})

	clock.Advance(time.Hour)
	n, err := e.srv.svc.CollectEndedLinks(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("CollectEndedLinks: got %d, %v; want 1, nil", n, err)
	}
	if _, err := e.srv.store.FileByID(context.Background(), f.ID); !fileframe.IsNotFound(err) {
		t.Fatalf("the file after collection: got %v, want not found", err)
	}
	for _, c := range []struct {
		name string
		get  func() (*http.Response, []byte)
	}{
		{"outer page", func() (*http.Response, []byte) { return e.appGet("/f/" + f.Slug) }},
		{"download", func() (*http.Response, []byte) { return e.download("GET", f) }},
		{"content origin", func() (*http.Response, []byte) {
			return e.contentGet("/p/"+f.Slug+"/1", "Sec-Fetch-Dest", "iframe")
		}},
	} {
		resp, body := c.get()
		assertGone(t, c.name, resp, body, "This link has expired, and its file was removed", "custom-page-marker", "brief.pdf")
	}
	if resp, _ := e.appGet("/f/neverwas0000"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown slug: got %d, want 404", resp.StatusCode)
	}
}

package main

import (
	"bytes"
	"context"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/postgres"
)

// linksAcrossInstances checks the link controls of issue 12 on instances
// sharing PostgreSQL and S3: a one-time link downloaded through a answers
// 410 through b at once (its page and its download); an expired link is
// 410 on both; and c, which redirects downloads to S3, serves a limited
// link's download itself. The links are set on the shared store, as the
// admin CLI's file set does.
func linksAcrossInstances(t *testing.T, db string, a, b, c *serveProc, cli func(args ...string) map[string]any) {
	t.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	content := make([]byte, 200<<10)
	mrand.NewChaCha8([32]byte{12}).Read(content)
	src := filepath.Join(t.TempDir(), "Campaign.bin")
	if err := os.WriteFile(src, content, 0o644); err != nil {
		t.Fatal(err)
	}
	add := func(l fileframe.Link) string {
		t.Helper()
		id := cli("file", "add", src, "--email", "agent@example.com")["fileId"].(string)
		f, err := store.SetLink(ctx, fileframe.FileID(id), l)
		if err != nil {
			t.Fatalf("SetLink: %v", err)
		}
		return f.Slug
	}
	status := func(p *serveProc, path string) int {
		t.Helper()
		resp, _ := httpGet(t, p.app+path)
		return resp.StatusCode
	}

	// One-time: both instances show the page; a downloads; b is gone at
	// once, without waiting for anything.
	once := add(fileframe.Link{MaxDownloads: 1})
	for _, p := range []*serveProc{a, b} {
		if got := status(p, "/f/"+once); got != http.StatusOK {
			t.Fatalf("one-time link's page through %s before the download: %d, want 200", p.app, got)
		}
	}
	download(t, a, once, content)
	for _, p := range []*serveProc{b, a} {
		for _, path := range []string{"/f/" + once + "/download", "/f/" + once} {
			resp, body := httpGet(t, p.app+path)
			if resp.StatusCode != http.StatusGone || !strings.Contains(string(body), "one-time link") {
				t.Errorf("GET %s through %s after the download through A: %d, want 410 with the gone page\n%s", path, p.app, resp.StatusCode, body)
			}
		}
	}

	// Expiry: live on both, then gone on both.
	at := time.Now().Add(3 * time.Second)
	timed := add(fileframe.Link{ExpiresAt: at})
	for _, p := range []*serveProc{a, b} {
		if got := status(p, "/f/"+timed); got != http.StatusOK {
			t.Fatalf("expiring link's page through %s before its expiry: %d, want 200", p.app, got)
		}
	}
	time.Sleep(time.Until(at))
	for _, p := range []*serveProc{a, b} {
		for _, path := range []string{"/f/" + timed, "/f/" + timed + "/download"} {
			if got := status(p, path); got != http.StatusGone {
				t.Errorf("GET %s through %s after the expiry: %d, want 410", path, p.app, got)
			}
		}
	}

	// --download-redirect: a limited link is served through, whole.
	limited := add(fileframe.Link{MaxDownloads: 2})
	resp, body := httpGet(t, c.app+"/f/"+limited+"/download")
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, content) {
		t.Errorf("limited link through C (--download-redirect): %d with %d bytes, want 200 with the file, not a redirect", resp.StatusCode, len(body))
	}
}

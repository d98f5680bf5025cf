package main

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestScaleCollection runs collections (issue 13) on two `fileframe
// serve` processes sharing PostgreSQL and S3, with the admin CLI beside
// them: a collection made by the CLI's contract command is downloaded as
// a ZIP through either instance, every entry byte for byte as added;
// files added and removed by the CLI show on the other instances' pages
// within moments (collection_files notifies their caches); a one-time
// collection downloaded through one instance is gone through the other.
func TestScaleCollection(t *testing.T) {
	t.Parallel()
	db := newTestDatabase(t)
	s3srv := startS3(t)
	secretFile := filepath.Join(t.TempDir(), "s3-secret")
	if err := os.WriteFile(secretFile, []byte(s3srv.secretKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"FILEFRAME_DATABASE_URL=" + db,
		"FILEFRAME_S3_ENDPOINT=" + s3srv.endpoint,
		"FILEFRAME_S3_BUCKET=fileframe-coll-" + strings.ToLower(rand.Text()[:12]),
		"FILEFRAME_S3_ACCESS_KEY=" + s3srv.accessKey,
		"FILEFRAME_S3_SECRET_KEY_FILE=" + secretFile,
		"FILEFRAME_S3_PATH_STYLE=true",
	}
	cliData := []string{"--data", t.TempDir()}
	cli := func(args ...string) map[string]any {
		t.Helper()
		return cliJSONEnv(t, env, append(args, cliData...)...)
	}
	cli("migrate")
	cli("account", "create", "--email", "owner@example.com", "--plan", "pro")
	a := startServeEnv(t, env, t.TempDir())
	b := startServeEnv(t, env, t.TempDir())

	// Three files, one past S3's smallest multipart part.
	var ids []string
	contents := map[string][]byte{}
	for i, size := range []int{6 << 20, 1000, 0} {
		content := make([]byte, size)
		mrand.NewChaCha8([32]byte{byte(13 + i)}).Read(content)
		name := fmt.Sprintf("part %d.bin", i+1)
		src := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(src, content, 0o644); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, cli("file", "add", src, "--email", "owner@example.com")["fileId"].(string))
		contents[name] = content
	}

	// The contract: collection create --json → collectionId, slug, url.
	c := cli("collection", "create", "--email", "owner@example.com", "--name", "Deliverables", "--base-url", a.app, ids[0], ids[1], "--json")
	id, slug, link := c["collectionId"].(string), c["slug"].(string), c["url"].(string)
	if !strings.HasPrefix(id, "f_") || link != a.app+"/f/"+slug {
		t.Fatalf("collection create --json: %v; want a file ID and url %s/f/<slug>", c, a.app)
	}

	zipThrough := func(p *serveProc, want ...string) {
		t.Helper()
		resp, body := httpGet(t, p.app+"/f/"+slug+"/download")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/zip" {
			t.Fatalf("ZIP through %s: %d %q", p.app, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil {
			t.Fatalf("ZIP through %s: %v", p.app, err)
		}
		if len(zr.File) != len(want) {
			t.Fatalf("ZIP through %s: %d entries, want %v", p.app, len(zr.File), want)
		}
		for i, zf := range zr.File {
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if zf.Name != want[i] || err != nil || !bytes.Equal(got, contents[want[i]]) {
				t.Errorf("ZIP through %s: entry %d %q (%d bytes, %v), want %q byte for byte", p.app, i, zf.Name, len(got), err, want[i])
			}
		}
	}
	zipThrough(a, "part 1.bin", "part 2.bin")
	zipThrough(b, "part 1.bin", "part 2.bin")
	if resp, body := httpGet(t, b.app+"/f/"+slug+"/files/"+ids[1]); resp.StatusCode != http.StatusOK || !bytes.Equal(body, contents["part 2.bin"]) {
		t.Errorf("one file through B: %d, %d bytes", resp.StatusCode, len(body))
	}

	// Items added and removed by the CLI show through both instances at
	// once, under the same link.
	page := func(p *serveProc) string {
		t.Helper()
		_, body := httpGet(t, p.app+"/f/"+slug)
		return string(body)
	}
	page(a)
	page(b) // cached now
	// showsSoon waits until the page through p lists name or not (listed),
	// as it must within moments: each instance hears of every commit
	// within a round trip of it (PostgreSQL's notifications, the
	// ChangeWatcher), however busy the machine running the test is.
	showsSoon := func(p *serveProc, name string, listed bool) bool {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if strings.Contains(page(p), name) == listed {
				return true
			} else if time.Now().After(end) {
				return false
			}
		}
	}
	if got := cli("collection", "add", "--email", "owner@example.com", id, ids[2], "--json"); got["slug"] != slug {
		t.Errorf("collection add: slug %v, want %s", got["slug"], slug)
	}
	for _, p := range []*serveProc{a, b} {
		if !showsSoon(p, "part 3.bin", true) {
			t.Errorf("the page through %s lacks the file the CLI added", p.app)
		}
	}
	cli("collection", "remove", "--email", "owner@example.com", id, ids[0], "--json")
	for _, p := range []*serveProc{b, a} {
		if !showsSoon(p, "part 1.bin", false) {
			t.Errorf("the page through %s still lists the file the CLI removed", p.app)
		}
		if resp, _ := httpGet(t, p.app+"/f/"+slug+"/files/"+ids[0]); resp.StatusCode != http.StatusNotFound {
			t.Errorf("a removed file through %s: %d, want 404", p.app, resp.StatusCode)
		}
	}
	zipThrough(b, "part 2.bin", "part 3.bin")

	// A one-time collection: downloaded through A, gone through B. Both
	// instances have heard of the limit once they show a change committed
	// after it (notifications arrive in commit order); a download that
	// begins before an instance has heard of it is one that began before
	// the change, and is not limited (it would have counted through A as
	// a download of an unlimited link, and left B's to go through).
	cli("file", "set", "--email", "owner@example.com", id, "--one-time")
	cli("collection", "add", "--email", "owner@example.com", id, ids[0], "--json")
	for _, p := range []*serveProc{a, b} {
		if !showsSoon(p, "part 1.bin", true) {
			t.Fatalf("the page through %s lacks the file the CLI added back", p.app)
		}
	}
	zipThrough(a, "part 2.bin", "part 3.bin", "part 1.bin")
	if resp, _ := httpGet(t, b.app+"/f/"+slug+"/download"); resp.StatusCode != http.StatusGone {
		t.Errorf("a used one-time collection through B: %d, want 410", resp.StatusCode)
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestServeCleanup runs serve with a short --cleanup-every and watches its
// background work: an expired session and a blob that no file uses (older
// than fileframe.BlobGrace) are removed, while a live session and the blob of
// a file stay.
func TestServeCleanup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliJSON(t, "account", "create", "--email", "sweep@example.com", "--plan", "pro", "--data", dir)
	src := filepath.Join(t.TempDir(), "kept.txt")
	if err := os.WriteFile(src, []byte("a file's bytes stay"), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := cliJSON(t, "file", "add", src, "--email", "sweep@example.com", "--data", dir)

	// What the server must find: done from this process, as another
	// process would, with the times set in the past.
	ctx := context.Background()
	store := openTestStore(t, dir)
	acct, err := store.AccountByEmail(ctx, "sweep@example.com")
	if err != nil {
		t.Fatal(err)
	}
	keptFile, err := store.FileByID(ctx, fileframe.FileID(kept["fileId"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	expired := fileframe.Session{Hash: fileframe.HashKey("expired"), AccountID: acct.ID, CreatedAt: now.Add(-48 * time.Hour), LastSeenAt: now.Add(-47 * time.Hour), ExpiresAt: now.Add(-time.Hour)}
	live := fileframe.Session{Hash: fileframe.HashKey("live"), AccountID: acct.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}
	for _, s := range []fileframe.Session{expired, live} {
		if err := store.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	blobs, err := disk.Open(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := blobs.Put(ctx, bytes.NewReader([]byte("nobody's bytes")))
	if err != nil {
		t.Fatal(err)
	}
	past := now.Add(-2 * fileframe.BlobGrace)
	for _, key := range []string{orphan.Key, keptFile.BlobKey} {
		if err := os.Chtimes(filepath.Join(dir, "blobs", key[0:2], key[2:4], key), past, past); err != nil {
			t.Fatal(err)
		}
	}

	p := startServe(t, dir, "--cleanup-every", "200ms")
	blobGone := func() bool {
		_, err := blobs.Stat(ctx, orphan.Key)
		return fileframe.IsNotFound(err)
	}
	sessionGone := func() bool {
		_, err := store.SessionByHash(ctx, expired.Hash)
		return fileframe.IsNotFound(err)
	}
	for deadline := time.Now().Add(15 * time.Second); !(blobGone() && sessionGone()); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 15 s of --cleanup-every 200ms: orphan removed %v, expired session removed %v; log:\n%s", blobGone(), sessionGone(), p.stderr.String())
		}
	}
	if _, err := blobs.Stat(ctx, keptFile.BlobKey); err != nil {
		t.Errorf("the blob of a file was removed: %v", err)
	}
	if _, err := store.SessionByHash(ctx, live.Hash); err != nil {
		t.Errorf("a live session was removed: %v", err)
	}
	p.stop()
	p.checkJSONLogs()
	for _, want := range []string{`"msg":"removed orphaned blobs"`, `"msg":"removed expired sessions"`} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("the log lacks %s", want)
		}
	}
}

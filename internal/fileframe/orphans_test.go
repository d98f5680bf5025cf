package fileframe_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/sqlite"
)

// orphanFixture is a real SQLite store and disk blobs with one account.
type orphanFixture struct {
	store *sqlite.Store
	blobs *disk.Store
	acct  fileframe.Account
}

func newOrphanFixture(t *testing.T) *orphanFixture {
	t.Helper()
	dir := t.TempDir()
	store, err := sqlite.Open(t.Context(), filepath.Join(dir, "fileframe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	blobs, err := disk.Open(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := store.CreateAccount(t.Context(), fileframe.Account{Email: "o@example.com", Plan: fileframe.PlanPro})
	if err != nil {
		t.Fatal(err)
	}
	return &orphanFixture{store: store, blobs: blobs, acct: acct}
}

// put stores content and, when referenced, a file that uses it.
func (f *orphanFixture) put(t *testing.T, content string, referenced bool) string {
	t.Helper()
	info, err := f.blobs.Put(t.Context(), bytes.NewReader([]byte(content)))
	if err != nil {
		t.Fatal(err)
	}
	if referenced {
		if _, err := f.store.CreateFile(t.Context(), fileframe.File{AccountID: f.acct.ID, Name: "f.bin", BlobKey: info.Key, Size: info.Size}); err != nil {
			t.Fatal(err)
		}
	}
	return info.Key
}

func (f *orphanFixture) exists(t *testing.T, key string) bool {
	t.Helper()
	_, err := f.blobs.Stat(context.Background(), key)
	if err != nil && !fileframe.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

func TestRemoveBlobIfUnused(t *testing.T) {
	f := newOrphanFixture(t)
	used := f.put(t, "a file's bytes", true)
	unused := f.put(t, "nobody's bytes", false)
	now := time.Now()
	later := now.Add(2 * fileframe.BlobGrace)

	for _, c := range []struct {
		what    string
		key     string
		at      time.Time
		removed bool
	}{
		{"a blob a file uses", used, later, false},
		{"an unused blob younger than BlobGrace", unused, now, false},
		{"an unused blob older than BlobGrace", unused, later, true},
		{"a blob already gone", unused, later, false},
	} {
		removed, err := fileframe.RemoveBlobIfUnused(t.Context(), f.store, f.blobs, c.key, c.at)
		if err != nil || removed != c.removed {
			t.Errorf("%s: removed %v, %v; want %v, nil", c.what, removed, err, c.removed)
		}
	}
	if !f.exists(t, used) || f.exists(t, unused) {
		t.Errorf("after removal: used blob present %v, unused blob present %v; want true, false", f.exists(t, used), f.exists(t, unused))
	}
}

func TestCollectOrphanBlobs(t *testing.T) {
	f := newOrphanFixture(t)
	used := f.put(t, "kept: a file uses it", true)
	orphans := []string{f.put(t, "orphan one", false), f.put(t, "orphan two", false)}

	// Within the grace period nothing goes: a row may be about to commit.
	if n, err := fileframe.CollectOrphanBlobs(t.Context(), f.store, f.blobs, time.Now()); n != 0 || err != nil {
		t.Errorf("CollectOrphanBlobs within BlobGrace: removed %d, %v; want 0, nil", n, err)
	}
	n, err := fileframe.CollectOrphanBlobs(t.Context(), f.store, f.blobs, time.Now().Add(2*fileframe.BlobGrace))
	if n != len(orphans) || err != nil {
		t.Errorf("CollectOrphanBlobs: removed %d, %v; want %d, nil", n, err, len(orphans))
	}
	for _, k := range orphans {
		if f.exists(t, k) {
			t.Errorf("orphan %s is still stored", k)
		}
	}
	if !f.exists(t, used) {
		t.Errorf("the blob a file uses was removed")
	}
	// A Put of an orphan's content refreshes it: a new row may follow.
	again := f.put(t, "orphan one", false)
	if n, _ := fileframe.CollectOrphanBlobs(t.Context(), f.store, f.blobs, time.Now()); n != 0 || !f.exists(t, again) {
		t.Errorf("a blob just put again was collected")
	}
}

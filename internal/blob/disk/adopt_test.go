package disk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// writeSource writes content to a file of dir, as a finished resumable
// upload would be, and returns its path.
func writeSource(t *testing.T, dir string, content []byte) string {
	t.Helper()
	path := filepath.Join(dir, "upload.bin")
	if err := os.WriteFile(path, content, 0o664); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAdopt(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := open(dir, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("adopted, not copied. "), 50_000)
	sum := sha256.Sum256(content)
	src := writeSource(t, t.TempDir(), content)
	before, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}

	info, err := s.Adopt(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	if info.Key != hex.EncodeToString(sum[:]) || info.Size != int64(len(content)) || !info.ModTime.Equal(now) {
		t.Errorf("Adopt = %+v, want key %x, size %d, ModTime %v", info, sum, len(content), now)
	}
	// Linked, not moved: the upload keeps its bytes until its owner
	// removes it, so that a crash before its file is recorded leaves it
	// whole.
	if got, err := os.ReadFile(src); err != nil || !bytes.Equal(got, content) {
		t.Errorf("the adopted file is not whole at its path after Adopt (%v)", err)
	}
	path := filepath.Join(dir, info.Key[0:2], info.Key[2:4], info.Key)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Linked, not copied: the blob is the very file.
	if !os.SameFile(fi, before) {
		t.Errorf("the blob is a copy, not the adopted file")
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("blob mode %v, want 0600", fi.Mode().Perm())
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("the blob's bytes differ from the adopted file's (%v)", err)
	}
	assertTmpEmpty(t, dir)

	// Removing the upload leaves the blob.
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("the blob after its upload was removed: %v", err)
	}

	// Content already stored: the blob stays and is touched, the second
	// file is left as it is (a second adopt of the same upload, after a
	// crash, costs a read).
	old := now.Add(-48 * time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	again := writeSource(t, t.TempDir(), content)
	info2, err := s.Adopt(t.Context(), again)
	if err != nil || info2.Key != info.Key || !info2.ModTime.Equal(now) {
		t.Fatalf("Adopt of stored content = %+v, %v; want the same key with ModTime now", info2, err)
	}
	if got, err := os.ReadFile(again); err != nil || !bytes.Equal(got, content) {
		t.Errorf("the second file is not whole at its path: %v", err)
	}
	if st, err := s.Stat(t.Context(), info.Key); err != nil || !st.ModTime.Equal(now) {
		t.Errorf("Stat after adopting stored content = %+v, %v; want ModTime %v", st, err, now)
	}
}

func TestAdoptFailureLeavesTheFile(t *testing.T) {
	s, dir := newStore(t)
	if _, err := s.Adopt(t.Context(), filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Errorf("Adopt of a missing file succeeded")
	}
	src := writeSource(t, t.TempDir(), []byte("stays where it was"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Adopt(ctx, src); err == nil {
		t.Errorf("Adopt with a cancelled context succeeded")
	}
	if got, err := os.ReadFile(src); err != nil || string(got) != "stays where it was" {
		t.Errorf("after a failed Adopt the file is %q, %v; want it untouched", got, err)
	}
	n := 0
	if err := s.Walk(t.Context(), func(fileframe.BlobInfo) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("after failed Adopts the store holds %d blobs (%v), want none", n, err)
	}
	assertTmpEmpty(t, dir)
}

// TestAdoptAcrossFileSystems adopts a file on another file system (tmpfs),
// which cannot be linked into the store: it is copied, and stays.
func TestAdoptAcrossFileSystems(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "fileframe-adopt-")
	if err != nil {
		t.Fatalf("this test needs /dev/shm (tmpfs), another file system than the test's temp dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	s, _ := newStore(t)
	content := []byte("from another file system")
	src := writeSource(t, shm, content)
	info, err := s.Adopt(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Open(t.Context(), info.Key)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var got bytes.Buffer
	got.ReadFrom(r.Body)
	if !bytes.Equal(got.Bytes(), content) {
		t.Errorf("the blob holds %q, want %q", got.Bytes(), content)
	}
	if got, err := os.ReadFile(src); err != nil || !bytes.Equal(got, content) {
		t.Errorf("the file on the other file system after Adopt: %q, %v; want it whole", got, err)
	}
}

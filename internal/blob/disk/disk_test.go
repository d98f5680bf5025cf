package disk

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
	"time"

	"github.com/fileframe/fileframe/internal/blob/blobtest"
	"github.com/fileframe/fileframe/internal/fileframe"
)

func TestConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) fileframe.Blobs {
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func TestOpenCreatesDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "blobs")
	if _, err := Open(dir); err != nil {
		t.Fatalf("Open: %v", err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "tmp")} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fi.Mode().Perm(), os.FileMode(0o700); got != want {
			t.Errorf("%s mode = %v, want %v", d, got, want)
		}
	}
}

func TestLayout(t *testing.T) {
	s, dir := newStore(t)
	content := []byte("where does it go")
	info, err := s.Put(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, info.Key[0:2], info.Key[2:4], info.Key)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("blob not at %s: %v", path, err)
	}
	if !bytes.Equal(got, content) {
		t.Errorf("file content = %q, want %q", got, content)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fi.Mode().Perm(), os.FileMode(0o600); got != want {
		t.Errorf("blob mode = %v, want %v", got, want)
	}
	assertTmpEmpty(t, dir)
}

// TestOpenBodyIsFile guards sendfile: net/http only uses it when the body it
// copies is an *os.File.
func TestOpenBodyIsFile(t *testing.T) {
	s, _ := newStore(t)
	info, err := s.Put(t.Context(), bytes.NewReader([]byte("sendfile me")))
	if err != nil {
		t.Fatal(err)
	}
	br, err := s.Open(t.Context(), info.Key)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Body.Close()
	if _, ok := br.Body.(*os.File); !ok {
		t.Errorf("Open Body is %T, want *os.File", br.Body)
	}
}

func TestPutFailureLeavesNoTempFile(t *testing.T) {
	s, dir := newStore(t)
	errBroken := errors.New("broken")
	r := io.MultiReader(bytes.NewReader(make([]byte, 1<<20)), iotest.ErrReader(errBroken))
	if _, err := s.Put(t.Context(), r); !errors.Is(err, errBroken) {
		t.Fatalf("Put = %v, want %v", err, errBroken)
	}
	assertTmpEmpty(t, dir)
}

func TestPutSameContentRefreshesModTime(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := open(dir, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	content := []byte("orphan collector, spare me")
	first, err := s.Put(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	old := now.Add(-48 * time.Hour)
	path := filepath.Join(dir, first.Key[0:2], first.Key[2:4], first.Key)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	second, err := s.Put(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	if !second.ModTime.Equal(now) {
		t.Errorf("Put of existing blob ModTime = %v, want %v", second.ModTime, now)
	}
	st, err := s.Stat(t.Context(), first.Key)
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime.Equal(now) {
		t.Errorf("Stat ModTime after second Put = %v, want %v", st.ModTime, now)
	}
	assertTmpEmpty(t, dir)
}

func TestOpenRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	if _, err := open(dir, clock); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	files := map[string]time.Duration{ // name: age
		"put-stale":   2 * time.Hour,
		"ping-stale":  61 * time.Minute,
		"put-fresh":   10 * time.Minute,
		"put-current": 0,
	}
	for name, age := range files {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := open(dir, clock); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	for name, age := range files {
		_, err := os.Stat(filepath.Join(tmp, name))
		if gone, wantGone := errors.Is(err, os.ErrNotExist), age > time.Hour; gone != wantGone {
			t.Errorf("%s (age %v): removed = %v, want %v", name, age, gone, wantGone)
		}
	}
}

// TestWalkListsOnlyBlobs checks that temp files, stray files and files out
// of their content-addressed place are not reported as blobs.
func TestWalkListsOnlyBlobs(t *testing.T) {
	s, dir := newStore(t)
	info, err := s.Put(t.Context(), bytes.NewReader([]byte("the one blob")))
	if err != nil {
		t.Fatal(err)
	}
	other := blobtest.KeyOf([]byte("elsewhere"))
	junk := []string{
		filepath.Join("tmp", info.Key),
		filepath.Join("tmp", "put-123"),
		"README",
		filepath.Join(info.Key[0:2], "stray"),
		filepath.Join(info.Key[0:2], info.Key[2:4], "stray"),
		filepath.Join(info.Key[0:2], info.Key[2:4], other), // wrong directory
		filepath.Join("zz", "zz", other),
	}
	for _, j := range junk {
		p := filepath.Join(dir, j)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := s.Walk(t.Context(), func(b fileframe.BlobInfo) error {
		got = append(got, b.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != info.Key {
		t.Errorf("Walk listed %v, want [%s]", got, info.Key)
	}
}

func TestInvalidKeyNeverLeavesStore(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(root, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"../victim", "../../victim", victim, "..", "tmp"} {
		if err := s.Delete(t.Context(), key); fileframe.ErrorCode(err) != fileframe.EINVALID {
			t.Errorf("Delete(%q) = %v, want EINVALID", key, err)
		}
		if _, err := s.Open(t.Context(), key); fileframe.ErrorCode(err) != fileframe.EINVALID {
			t.Errorf("Open(%q) = %v, want EINVALID", key, err)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("file outside the store: %v", err)
	}
}

func TestPingFailsWhenDirectoryGone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "blobs")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping = %v, want nil", err)
	}
	assertTmpEmpty(t, dir)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(t.Context()); err == nil {
		t.Error("Ping with the directory removed = nil, want an error")
	}
}

func assertTmpEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in tmp/: %s", e.Name())
	}
}

package disk

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
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
	type leftover struct {
		age      time.Duration
		locked   bool // a writer still holds it
		wantGone bool
	}
	files := map[string]leftover{
		"put-stale":         {2 * time.Hour, false, true},
		"ping-stale":        {61 * time.Minute, false, true},
		"put-orphan":        {10 * time.Minute, false, true},
		"put-young":         {time.Second, false, false},
		"put-current":       {0, false, false},
		"put-writing":       {10 * time.Minute, true, false},
		"put-stalled-write": {2 * time.Hour, true, true},
	}
	for name, l := range files {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if l.locked {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			if err := lockTemp(f); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(p, now.Add(-l.age), now.Add(-l.age)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := open(dir, clock); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	for name, l := range files {
		_, err := os.Stat(filepath.Join(tmp, name))
		if gone := errors.Is(err, os.ErrNotExist); gone != l.wantGone {
			t.Errorf("%s (age %v, locked %v): removed = %v, want %v", name, l.age, l.locked, gone, l.wantGone)
		}
	}
}

// TestCleanTempRemovesCrashLeftovers kills a process in the middle of a
// Put (kill -9, as a crash) and checks that CleanTemp removes its temp
// file at once, while a Put in progress in this process keeps its own and
// then completes.
func TestCleanTempRemovesCrashLeftovers(t *testing.T) {
	if dir := os.Getenv("FILEFRAME_DISK_CRASH_CHILD"); dir != "" {
		s, err := Open(dir)
		if err != nil {
			os.Exit(3)
		}
		pr, pw := io.Pipe()
		// A whole direct buffer, which Put writes before it reads on.
		go pw.Write(bytes.Repeat([]byte("c"), directBufferSize)) // then never closes
		s.Put(context.Background(), pr)
		os.Exit(4) // never reached: the parent kills this process
	}
	dir := t.TempDir()
	// The clock runs ahead so that both temp files are old enough to be
	// judged by their locks.
	s, err := open(dir, func() time.Time { return time.Now().Add(orphanTempAge + time.Second) })
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")

	child := exec.Command(os.Args[0], "-test.run=^TestCleanTempRemovesCrashLeftovers$")
	child.Env = append(os.Environ(), "FILEFRAME_DISK_CRASH_CHILD="+dir)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	waitTemps(t, tmp, 1)

	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := s.Put(context.Background(), pr)
		done <- err
	}()
	if _, err := pw.Write(bytes.Repeat([]byte("p"), directBufferSize)); err != nil {
		t.Fatal(err)
	}
	waitTemps(t, tmp, 2)

	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	n, err := s.CleanTemp(t.Context(), staleTempAge)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("CleanTemp removed %d files, want 1 (the killed process's)", n)
	}
	if left := tempNames(t, tmp); len(left) != 1 {
		t.Errorf("temp files after CleanTemp = %v, want the Put in progress's only", left)
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatalf("Put in progress failed after CleanTemp: %v", err)
	}
	assertTmpEmpty(t, dir)
}

// waitTemps waits until tmp holds n files with bytes in them.
func waitTemps(t *testing.T, tmp string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		written := 0
		for _, name := range tempNames(t, tmp) {
			if fi, err := os.Stat(filepath.Join(tmp, name)); err == nil && fi.Size() > 0 {
				written++
			}
		}
		if written >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d temp files with bytes in %s after 30s, want %d", written, tmp, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func tempNames(t *testing.T, tmp string) []string {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
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

package disk

import (
	"bytes"
	"crypto/rand"
	"io"
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A large Put goes past the page cache: of an 8 MiB blob, only the page
// holding the end of its last block, written through the cache, is in it.
// Written through the page cache, as before, all 2,049 pages were.
func TestPutLargeBodyBypassesPageCache(t *testing.T) {
	s, dir := newStore(t)
	notTmpfs(t, dir)
	body := make([]byte, 8<<20+100)
	rand.Read(body)
	info, err := s.Put(t.Context(), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if cached, pages := cachedPages(t, s, info.Key); cached > 1 {
		t.Errorf("%d of the blob's %d pages are in the page cache after Put, want at most 1 (its tail)", cached, pages)
	}
}

// The direct buffers are bounded: with maxDirectPuts Puts holding one
// (each waiting for the rest of its first block), another Put copies
// through the page cache, and completes.
func TestPutBeyondDirectBuffers(t *testing.T) {
	s, dir := newStore(t)
	notTmpfs(t, dir)
	type open struct {
		w    *io.PipeWriter
		done chan error
	}
	var held []open
	for range maxDirectPuts {
		pr, pw := io.Pipe()
		o := open{pw, make(chan error, 1)}
		go func() {
			_, err := s.Put(t.Context(), pr)
			o.done <- err
		}()
		if _, err := pw.Write([]byte("x")); err != nil { // the Put has its buffer
			t.Fatal(err)
		}
		held = append(held, o)
	}
	if len(directSlots) != maxDirectPuts {
		t.Fatalf("%d direct buffers in use, want %d", len(directSlots), maxDirectPuts)
	}
	body := make([]byte, 8<<20)
	rand.Read(body)
	info, err := s.Put(t.Context(), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if cached, pages := cachedPages(t, s, info.Key); cached != pages {
		t.Errorf("%d of the blob's %d pages are in the page cache, want all: it had no direct buffer", cached, pages)
	}
	for _, o := range held {
		o.w.Close()
		if err := <-o.done; err != nil {
			t.Fatal(err)
		}
	}
	if len(directSlots) != 0 {
		t.Errorf("%d direct buffers still in use after the Puts, want 0", len(directSlots))
	}
}

func notTmpfs(t *testing.T, dir string) {
	t.Helper()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	if fs.Type == unix.TMPFS_MAGIC {
		t.Fatalf("%s is on tmpfs, whose files are the page cache; set TMPDIR to a directory on a disk", dir)
	}
}

// cachedPages returns how many of blob key's pages are in the page cache,
// and how many it has.
func cachedPages(t *testing.T, s *Store, key string) (cached, pages int) {
	t.Helper()
	path, err := s.path(key)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	pageSize := os.Getpagesize()
	vec := make([]byte, (len(m)+pageSize-1)/pageSize)
	// x/sys/unix has no mincore(2) for Linux.
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	for _, v := range vec {
		cached += int(v & 1)
	}
	return cached, len(vec)
}

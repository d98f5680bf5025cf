package disk

import (
	"bytes"
	"crypto/rand"
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
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	if fs.Type == unix.TMPFS_MAGIC {
		t.Fatalf("%s is on tmpfs, whose files are the page cache; set TMPDIR to a directory on a disk", dir)
	}
	body := make([]byte, 8<<20+100)
	rand.Read(body)
	info, err := s.Put(t.Context(), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	path, err := s.path(info.Key)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, len(body), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	pageSize := os.Getpagesize()
	vec := make([]byte, (len(body)+pageSize-1)/pageSize)
	// x/sys/unix has no mincore(2) for Linux.
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	cached := 0
	for _, v := range vec {
		cached += int(v & 1)
	}
	if cached > 1 {
		t.Errorf("%d of the blob's %d pages are in the page cache after Put, want at most 1 (its tail)", cached, len(vec))
	}
}

//go:build linux || darwin || freebsd || netbsd || openbsd

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// canMapWALIndex tells whether ChangeWatcher maps the wal-index on this
// platform.
const canMapWALIndex = true

// mapWALIndex maps the wal-index header of the -shm file at path read-only.
// It returns nil, and no error, when the file is missing, too short or not
// an initialised wal-index of a known version, so that the caller falls
// back to PRAGMA data_version.
func mapWALIndex(path string) (*walIndex, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening the wal-index: %w", err)
	}
	defer f.Close() // the mapping outlives the descriptor
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("opening the wal-index: %w", err)
	}
	const size = 136 // the header and checkpoint information
	if fi.Size() < size {
		return nil, nil
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping the wal-index: %w", err)
	}
	x := &walIndex{mem: mem, words: (*walHeader)(unsafe.Pointer(&mem[0]))}
	if !x.valid() {
		x.unmap()
		return nil, nil
	}
	return x, nil
}

// unmap releases the mapping; x must not be read afterwards.
func (x *walIndex) unmap() error {
	return syscall.Munmap(x.mem)
}

package diskspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Ballast is a file that holds a file system's reserve (Reserve) for the
// writes that let an owner make room: signing in, deleting files. Uploads
// stop when the free space falls to the reserve (Check), but uploads that
// are already streaming can still fill the disk to its last byte; the
// ballast's room is then still there. A write that finds the disk full
// releases the ballast and tries again (internal/sqlite), and new uploads
// stay refused until the ballast is restored, which CheckRoom does as
// soon as the disk has room for it and the reserve again.
type Ballast struct {
	path string
	mu   sync.Mutex
}

// BallastName is the ballast's file name in the data directory.
const BallastName = "fileframe.reserve"

// NewBallast returns the ballast of the file system of dir, kept in
// dir/BallastName, and makes it when it is missing and there is room.
func NewBallast(dir string) *Ballast {
	b := &Ballast{path: filepath.Join(dir, BallastName)}
	b.restore()
	return b
}

// Release removes the ballast, and reports whether it was there to free
// room. Safe to call from several processes sharing the data directory.
func (b *Ballast) Release() bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	err := os.Remove(b.path)
	return err == nil
}

// CheckRoom returns ErrFull when the file system has no room beyond its
// reserve, or when its ballast was released and cannot be made again yet
// (which needs the reserve twice: once for the ballast, once free); it
// makes the ballast again when it can.
func (b *Ballast) CheckRoom() error {
	if b == nil {
		return Check(".")
	}
	if !b.present() && !b.restore() {
		return ErrFull
	}
	return Check(filepath.Dir(b.path))
}

func (b *Ballast) present() bool {
	_, err := os.Stat(b.path)
	return err == nil
}

// restore makes the ballast when it is missing and the file system has
// room for it and the reserve, and reports whether the ballast is there.
func (b *Ballast) restore() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := os.Stat(b.path); err == nil {
		return true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	avail, total, ok := space(filepath.Dir(b.path))
	if !ok {
		return true // space cannot be read here: no ballast, no refusal
	}
	size := Reserve(total)
	if avail < 2*size {
		return false
	}
	tmp := b.path + ".new"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return false
	}
	err = allocate(f, int64(size))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, b.path)
	}
	if err != nil {
		os.Remove(tmp)
		return false
	}
	return true
}

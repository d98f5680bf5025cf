// Package diskspace tells when the file system under the embedded stores
// (the SQLite database, the blob directory) is nearly full, so that
// Fileframe refuses new uploads and pages with 507 while it still has room
// for the small writes that let an owner act: signing in (a session row),
// deleting files. It also maps the system's "no space" errors to the same
// answer.
package diskspace

import (
	"errors"
	"os"
	"syscall"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The reserve is the free space that uploads and new pages never take: a
// twentieth of the file system, at least 1 MiB and at most 64 MiB.
const (
	minReserve = 1 << 20
	maxReserve = 64 << 20
)

// Reserve returns the free space kept back on a file system of total bytes.
func Reserve(total uint64) uint64 {
	return min(max(total/20, minReserve), maxReserve)
}

// ErrFull is the error of a write refused because the file system holding
// the data is full, or would be but for the reserve.
var ErrFull = fileframe.Errorf(fileframe.CodeStorageFull,
	"The server's disk is full: nothing new can be stored until room is made. Deleting files you no longer need frees their room (a file uploaded in the last minute, a minute after its upload); the operator can also add space.")

// Check returns ErrFull when the file system of dir has less than its
// reserve free (for unprivileged users, as statfs's f_bavail counts), and
// nil when it has more or when its space cannot be read (the write itself
// will then tell).
func Check(dir string) error {
	avail, total, ok := space(dir)
	if ok && avail < Reserve(total) {
		return ErrFull
	}
	return nil
}

// IsNoSpace reports whether err is the system's "no space left on device"
// or "disk quota exceeded".
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// Wrap returns err marked as ErrFull (its code, 507) when it is the
// system's "no space" error, and err unchanged otherwise.
func Wrap(err error) error {
	if err != nil && IsNoSpace(err) {
		return errors.Join(ErrFull, err)
	}
	return err
}

// writeZeros writes size zero bytes to f.
func writeZeros(f *os.File, size int64) error {
	buf := make([]byte, 1<<20)
	for size > 0 {
		n := min(size, int64(len(buf)))
		if _, err := f.Write(buf[:n]); err != nil {
			return err
		}
		size -= n
	}
	return nil
}

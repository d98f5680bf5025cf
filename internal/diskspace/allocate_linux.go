package diskspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// allocate gives f size bytes of disk blocks, not a sparse hole: the
// ballast must hold real room.
func allocate(f *os.File, size int64) error {
	if err := unix.Fallocate(int(f.Fd()), 0, 0, size); err == nil {
		return nil
	}
	return writeZeros(f, size) // file systems without fallocate
}

//go:build unix

package diskspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// space returns the bytes free to unprivileged users and the size of the
// file system holding dir.
func space(dir string) (avail, total uint64, ok bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), uint64(st.Blocks) * uint64(st.Bsize), true
}

// allocate gives f size bytes of disk blocks, not a sparse hole: the
// ballast must hold real room.
func allocate(f *os.File, size int64) error {
	if err := unix.Fallocate(int(f.Fd()), 0, 0, size); err == nil {
		return nil
	}
	return writeZeros(f, size) // file systems without fallocate
}

//go:build unix

package diskspace

import (
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

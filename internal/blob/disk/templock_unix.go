//go:build unix

package disk

import (
	"errors"
	"os"
	"syscall"
)

// lockTemp takes an exclusive flock(2) on a temp file that Put is writing.
// The kernel drops it when the file is closed or the process dies, so a
// temp file whose lock can be taken has no writer left: a crash leftover
// that CleanTemp may remove at once, whatever its age.
func lockTemp(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// writerGone reports whether no process holds the temp file at path open
// for writing, by trying its lock; a file that cannot be opened is not
// reported gone (another clean-up, or the writer's rename, took it).
func writerGone(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) || err != nil {
		return false
	}
	return true
}

package main

import (
	"fmt"
	"os"
	"syscall"
)

// changeStamp names the file's last change as the system keeps it: its
// device, inode and status change time (ctime), which every write moves
// and no user can set back (touch -r sets the modification time only).
func changeStamp(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d.%09d", st.Dev, st.Ino, st.Ctimespec.Sec, st.Ctimespec.Nsec)
}

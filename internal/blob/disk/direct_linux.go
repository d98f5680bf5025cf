package disk

import (
	"os"

	"golang.org/x/sys/unix"
)

// setDirect turns O_DIRECT on or off for f: while it is on, writes go from
// the caller's buffer to the device without a copy into the page cache.
// It fails where f's file system takes no direct I/O.
func setDirect(f *os.File, on bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		var flags int
		flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0)
		if ferr != nil {
			return
		}
		if on {
			flags |= unix.O_DIRECT
		} else {
			flags &^= unix.O_DIRECT
		}
		_, ferr = unix.FcntlInt(fd, unix.F_SETFL, flags)
	})
	if err != nil {
		return err
	}
	return ferr
}

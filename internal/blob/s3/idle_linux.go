package s3

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// sendQueue returns how many bytes written to c the peer has not
// acknowledged yet (SIOCOUTQ), or false when it cannot be asked.
func sendQueue(c net.Conn) (int, bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var n int
	var qerr error
	if err := raw.Control(func(fd uintptr) { n, qerr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) }); err != nil || qerr != nil {
		return 0, false
	}
	return n, true
}

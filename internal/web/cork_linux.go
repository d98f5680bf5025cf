package web

import (
	"net"
	"net/http"
	"syscall"

	"golang.org/x/sys/unix"
)

// cork holds back the partial segments of the TCP connection that r came
// on (TCP_CORK, which nginx's tcp_nopush sets too), so that the writes of
// an answer of size bytes from memory leave as one segment rather than one
// each; the returned function flushes w and lets them go. For an answer of
// corkAbove bytes or less (one write), or where r's connection is not
// plain TCP (TLS, a test's recorder) or cannot be corked, it does nothing.
func cork(w http.ResponseWriter, r *http.Request, size int64) (uncork func()) {
	tc, ok := r.Context().Value(connKey{}).(*net.TCPConn)
	if !ok || size <= corkAbove {
		return func() {}
	}
	rc, err := tc.SyscallConn()
	if err != nil || setCork(rc, 1) != nil {
		return func() {}
	}
	return func() {
		_ = http.NewResponseController(w).Flush()
		_ = setCork(rc, 0)
	}
}

func setCork(rc syscall.RawConn, on int) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_CORK, on)
	})
	if err != nil {
		return err
	}
	return serr
}

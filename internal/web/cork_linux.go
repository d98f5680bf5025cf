package web

import (
	"net"
	"net/http"
	"syscall"

	"golang.org/x/sys/unix"
)

// corker corks and uncorks one TCP connection. Its functions are made
// once, when the connection is accepted, so that an answer allocates
// nothing to cork it; requests that share the connection (one after the
// other in HTTP/1.1) share it, and it holds no state of its own.
type corker struct {
	rc      syscall.RawConn
	on, off func(fd uintptr)
}

// newCorker returns the corker of c, or nil when c is not plain TCP (TLS,
// a test's pipe).
func newCorker(c net.Conn) *corker {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	// A failure to cork leaves the writes to leave as they come, and
	// uncorking a connection that is not corked does nothing: the errors
	// change nothing the answer could do otherwise.
	return &corker{
		rc:  rc,
		on:  func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_CORK, 1) },
		off: func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_CORK, 0) },
	}
}

// cork holds back the partial segments of the TCP connection that r came
// on (TCP_CORK, which nginx's tcp_nopush sets too), so that the writes of
// an answer of size bytes from memory leave as one segment rather than one
// each; uncork(w, k) with the returned corker flushes w and lets them go.
// For an answer of corkAbove bytes or less (one write), or where r's
// connection is not plain TCP (TLS, a test's recorder), it returns nil,
// and uncork does nothing.
func cork(r *http.Request, size int64) *corker {
	k, ok := r.Context().Value(connKey{}).(*corker)
	if !ok || size <= corkAbove {
		return nil
	}
	if k.rc.Control(k.on) != nil {
		return nil
	}
	return k
}

// uncork flushes w and uncorks the connection that k (from cork) corked.
func uncork(w http.ResponseWriter, k *corker) {
	if k == nil {
		return
	}
	_ = http.NewResponseController(w).Flush()
	_ = k.rc.Control(k.off)
}

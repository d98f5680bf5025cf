package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
)

// Listener returns l with its TCP connections able to hold back the
// writes of an answer and send them together (hold), in one system call
// and one TCP segment. serve wraps its listeners in it.
func Listener(l net.Listener) net.Listener { return holdListener{l} }

type holdListener struct{ net.Listener }

func (l holdListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		return &heldConn{TCPConn: tc}, nil
	}
	return c, err
}

// connKey is the context key under which ConnContext keeps a request's
// connection, for hold.
type connKey struct{}

// ConnContext is for http.Server's ConnContext: it keeps the connection
// that the requests on c come on in their context, for hold.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if hc, ok := c.(*heldConn); ok {
		return context.WithValue(ctx, connKey{}, hc)
	}
	return ctx
}

// holdAbove is the size of a body from memory above which its answer is
// held: net/http writes to the connection through a 4 KiB buffer, so the
// headers and a larger body reach the connection in two writes or more,
// each its own system call and TCP segment (a 4 KiB download: the headers
// and 3.5 KiB of the body, then the rest), where one would do.
const holdAbove = 3 << 10

// holdSize is what a held connection keeps back: one write of net/http's
// 4 KiB buffer. The write after it leaves with it, in one writev.
const holdSize = 4 << 10

var holdBuffers = sync.Pool{New: func() any { return new([holdSize]byte) }}

// heldConn is a TCP connection that can hold back what is written to it
// while an answer is being written (hold, release): writes of up to
// holdSize bytes in all are kept, and leave with the next write (in one
// writev) or at release. The kernel's TCP_CORK, which nginx's tcp_nopush
// sets, does the same with two more system calls per answer (setsockopt
// on and off; docs/performance.md, "Held answers").
//
// Only the goroutine serving the connection writes to it (net/http's
// HTTP/1 server writes a response from its handler's goroutine), so the
// fields need no lock; Close, which another goroutine may call, does not
// touch them.
type heldConn struct {
	*net.TCPConn
	held    bool
	pending *[holdSize]byte // from holdBuffers while it holds bytes
	n       int             // bytes held in pending
	iov     [2][]byte
	bufs    net.Buffers // iov as writev's argument, kept here so that it does not escape per write
}

func (c *heldConn) Write(p []byte) (int, error) {
	if !c.held {
		return c.TCPConn.Write(p)
	}
	if c.n+len(p) <= holdSize {
		if c.pending == nil {
			c.pending = holdBuffers.Get().(*[holdSize]byte)
		}
		c.n += copy(c.pending[c.n:], p)
		return len(p), nil
	}
	if c.n == 0 {
		return c.TCPConn.Write(p)
	}
	held := c.n
	c.iov = [2][]byte{c.pending[:held], p}
	c.bufs = c.iov[:]
	n, err := c.bufs.WriteTo(c.TCPConn)
	c.iov, c.bufs = [2][]byte{}, nil
	c.putPending()
	if n < int64(held) {
		return 0, err
	}
	return int(n) - held, err
}

// ReadFrom copies from r through Write while the connection is held (the
// bytes of an answer from memory, through http.ServeContent), and with
// sendfile or splice otherwise.
func (c *heldConn) ReadFrom(r io.Reader) (int64, error) {
	if c.held {
		return io.Copy(writerOnly{c}, r)
	}
	return c.TCPConn.ReadFrom(r)
}

// flush writes what is held.
func (c *heldConn) flush() error {
	if c.n == 0 {
		return nil
	}
	_, err := c.TCPConn.Write(c.pending[:c.n])
	c.putPending()
	return err
}

func (c *heldConn) putPending() {
	c.n = 0
	holdBuffers.Put(c.pending)
	c.pending = nil
}

// hold holds back the writes of an answer to r of size bytes from memory
// on r's connection, so that they leave as one write and one TCP segment;
// release(w, c) with the returned connection flushes w and sends them.
// For an answer of holdAbove bytes or less (one write anyway), or where
// r's connection is not plain TCP from Listener (TLS, a test's recorder),
// it returns nil, and release does nothing.
func hold(r *http.Request, size int64) *heldConn {
	c, ok := r.Context().Value(connKey{}).(*heldConn)
	if !ok || size <= holdAbove {
		return nil
	}
	c.held = true
	return c
}

// release flushes w and sends what c (from hold) held back. A failed
// write is net/http's to see: the connection's next read or write fails
// as well.
func release(w http.ResponseWriter, c *heldConn) {
	if c == nil {
		return
	}
	_ = http.NewResponseController(w).Flush()
	c.held = false
	_ = c.flush()
}

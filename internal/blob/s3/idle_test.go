//go:build linux

package s3

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pipeTCP returns the two ends of a loopback TCP connection, the server's
// with a receive buffer of rcvbuf bytes (the system's default when 0).
func pipeTCP(t *testing.T, rcvbuf int) (client, server net.Conn) {
	t.Helper()
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		if rcvbuf == 0 {
			return nil
		}
		var serr error
		err := rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, rcvbuf) })
		return errors.Join(err, serr)
	}}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// TestIdleConnBlackHoleCostsOneTimeout: a peer that stops taking bytes in
// the middle of a large write fails the write about one idle timeout after
// it stopped, whether the bytes come in one write (a part of an upload) or
// in many of 32 KiB (the transport's copy of a body). It took four
// timeouts for one write before (the bytes a growing send buffer took
// during a timed-out write, and those acknowledged before the stop, each
// counted as progress for one more), and many small writes counted each
// write as progress: with the SDK's three tries, an 8 MB upload into a
// black hole waited 2 to 8 minutes for its 503.
func TestIdleConnBlackHoleCostsOneTimeout(t *testing.T) {
	const timeout = time.Second
	for _, tc := range []struct {
		name  string
		write func(c *idleConn) (int, error)
	}{
		{"one write", func(c *idleConn) (int, error) { return c.Write(make([]byte, 64<<20)) }},
		{"writes of 32 KiB", func(c *idleConn) (int, error) {
			piece, sent := make([]byte, 32<<10), 0
			for sent < 64<<20 {
				n, err := c.Write(piece)
				sent += n
				if err != nil {
					return sent, err
				}
			}
			return sent, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The peer takes a MiB, then nothing; its small receive buffer
			// fills at once, so it stops acknowledging as a black hole does.
			// The send buffer, small too, grows twice meanwhile, as Linux's
			// autotuning grows it: the socket takes more bytes, although
			// none leave.
			client, peer := pipeTCP(t, 64<<10)
			tcp := client.(*net.TCPConn)
			if err := tcp.SetWriteBuffer(32 << 10); err != nil {
				t.Fatal(err)
			}
			go io.CopyN(io.Discard, peer, 1<<20)
			grown := make(chan struct{})
			go func() {
				defer close(grown)
				for _, size := range []int{64 << 10, 100 << 10} {
					time.Sleep(timeout * 6 / 10)
					tcp.SetWriteBuffer(size)
				}
			}()
			defer func() { <-grown }()
			c := &idleConn{Conn: client, timeout: timeout}

			start := time.Now()
			n, err := tc.write(c)
			took := time.Since(start)
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("writing into a peer that stopped reading: %d bytes, %v; want a deadline error", n, err)
			}
			if took < timeout || took > timeout*7/4 {
				t.Errorf("the write failed after %v (%d bytes in), want one idle timeout (%v) after the buffers filled", took, n, timeout)
			}
		})
	}
}

// TestIdleConnSlowPeerIsNotIdle: a peer that takes bytes slowly, with the
// send buffer full all along, is not taken for a black hole, neither while
// writing nor while the buffers drain after the last write.
func TestIdleConnSlowPeerIsNotIdle(t *testing.T) {
	const timeout = 300 * time.Millisecond
	client, peer := pipeTCP(t, 0)
	const size = 8 << 20
	done := make(chan error, 1)
	go func() {
		// 32 KiB every 10 ms, about 3 MB/s (a slow link): once the
		// buffers are full, a 256 KiB piece waits about 80 ms for room,
		// and the last megabytes in them drain for longer than the
		// timeout after the last write.
		buf := make([]byte, 32<<10)
		for got := 0; got < size; {
			n, err := io.ReadFull(peer, buf[:min(len(buf), size-got)])
			got += n
			if err != nil {
				done <- err
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		done <- nil
	}()
	c := &idleConn{Conn: client, timeout: timeout}
	if n, err := c.Write(make([]byte, size)); err != nil || n != size {
		t.Fatalf("Write through a slow peer: %d bytes, %v", n, err)
	}
	// The last bytes drain while a read waits for the answer.
	go func() {
		if err := <-done; err == nil {
			peer.Write([]byte("answer"))
		}
	}()
	buf := make([]byte, 16)
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "answer" {
		t.Fatalf("Read after the slow peer took everything: %q, %v", buf[:n], err)
	}
}

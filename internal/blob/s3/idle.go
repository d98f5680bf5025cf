package s3

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// DefaultIdleTimeout is Config.IdleTimeout's default.
const DefaultIdleTimeout = 30 * time.Second

// idleClient is the store's HTTP client when Config.HTTPClient is nil: the
// SDK's default client whose connections fail once they have sent and
// received nothing for timeout (idleConn). Without it, an S3 server that
// accepts a connection and then answers nothing (a network partition, a
// stopped virtual machine, a proxy whose upstream is gone) holds a request
// for as long as TCP takes to notice, which can be many minutes; with it,
// the SDK's tries end after about three times timeout, as CodeUnavailable.
//
// The SDK's own read timeout (BuildableClient.WithReadTimeout) is not used:
// it counts only bytes received, so it would end an upload whose body takes
// longer than the timeout to send, which is why the SDK leaves S3 without
// one.
//
// The client is frozen: the SDK would otherwise apply its defaults mode to
// a buildable one, which replaces the transport's dialer and this one with
// it.
func idleClient(timeout time.Duration) aws.HTTPClient {
	return awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		dial := tr.DialContext
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &idleConn{Conn: c, timeout: timeout}, nil
		}
	}).Freeze()
}

// idleConn is a connection whose reads and writes fail once the peer has
// made no progress for timeout. Progress is bytes received, bytes the peer
// acknowledges (those written less those still in the send queue,
// sendQueue), and the start of a read, or of a write with nothing left
// unacknowledged: a new request or a new answer to wait for. So a response
// the server is slow to start still has timeout after the request's last
// byte was acknowledged; a long upload whose bytes keep being acknowledged
// is never cut, however long each write takes and however much the send
// buffer holds after the last one; and a connection idle in the pool for
// longer than timeout is closed.
//
// Bytes that the socket merely takes are not progress: a send buffer that
// has room, or grows (Linux's autotuning grows it for tens of seconds),
// takes more bytes from a stream sent into a black hole, and counting those
// kept a try going for 40 to 60 s instead of 30. The acknowledged count is
// read every tenth of timeout while a read or a write waits, and after
// each piece (writePiece) a write hands the socket: the connection fails
// between one and 1.1 timeouts after the peer last acknowledged or sent a
// byte. Where the send queue cannot be read (not Linux), every byte the
// socket takes counts instead.
//
// The start of a read counts because a read begins when this side wants
// more: one that comes late (a download whose own client reads slowly)
// finds its bytes waiting, and the peer was not idle meanwhile.
type idleConn struct {
	net.Conn
	timeout time.Duration
	written atomic.Int64 // bytes handed to the socket
	active  atomic.Int64 // when progress was last seen, in Unix nanoseconds
	// acked is the acknowledged count when it was last read: progress is
	// a higher count. Reads and writes share it, and active: both wait at
	// once when the link stops, and progress seen by either keeps both.
	acked atomic.Int64
}

// idleChecks is how many times per timeout a waiting read or write checks
// for acknowledged bytes. Progress found by a check is counted when the
// check runs, up to a tenth of timeout after the bytes were acknowledged:
// a try into a black hole whose buffers took bytes as it began lasted a
// quarter more than timeout when it was checked four times.
const idleChecks = 10

// writePiece is the most one write hands the socket, so that the
// acknowledged count read after each is fresh when the send buffer fills.
// Large enough that the extra system calls cost nothing beside the bytes
// they move.
const writePiece = 256 << 10

// progress records progress now and gives both sides a check's time.
func (c *idleConn) progress() {
	now := time.Now()
	c.active.Store(now.UnixNano())
	_ = c.Conn.SetDeadline(now.Add(c.timeout / idleChecks))
}

// wait gives both sides a check's time, no more than is left of timeout
// since the last progress, and reports whether any is left.
func (c *idleConn) wait() bool {
	left := time.Until(time.Unix(0, c.active.Load()).Add(c.timeout))
	if left <= 0 {
		return false
	}
	_ = c.Conn.SetDeadline(time.Now().Add(min(left, c.timeout/idleChecks)))
	return true
}

// acknowledged reads the acknowledged count and reports whether the peer
// made progress since it was last read, and whether nothing written is
// left unacknowledged. When the queue cannot be read, progress is whether
// took bytes moved, and nothing is left.
func (c *idleConn) acknowledged(took int) (progress, caughtUp bool) {
	q, ok := sendQueue(c.Conn)
	if !ok {
		return took > 0, true
	}
	return raise(&c.acked, c.written.Load()-int64(q)), q == 0
}

func (c *idleConn) Read(p []byte) (int, error) {
	c.progress()
	for {
		n, err := c.Conn.Read(p)
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && !c.idle(0) {
			continue
		}
		return n, err
	}
}

func (c *idleConn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return c.Conn.Write(p)
	}
	if _, caughtUp := c.acknowledged(0); caughtUp {
		c.progress()
	} else if !c.wait() {
		return 0, c.timedOut("write")
	}
	sent := 0
	for sent < len(p) {
		n, err := c.Conn.Write(p[sent:min(len(p), sent+writePiece)])
		sent += n
		c.written.Add(int64(n))
		switch {
		case err == nil:
			if progress, _ := c.acknowledged(n); progress {
				c.progress()
			} else if !c.wait() && sent < len(p) {
				return sent, c.timedOut("write")
			}
		case errors.Is(err, os.ErrDeadlineExceeded) && !c.idle(n):
		default:
			return sent, err
		}
	}
	return sent, nil
}

// idle is called when a read or write timed out having moved took bytes.
// It reports whether the connection has made no progress for c.timeout;
// until then, it gives both sides another check's time.
func (c *idleConn) idle(took int) bool {
	if progress, _ := c.acknowledged(took); progress {
		c.progress()
		return false
	}
	return !c.wait()
}

// timedOut is the error of an operation op that ran out of time before it
// reached the socket, as the socket's own would read.
func (c *idleConn) timedOut(op string) error {
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.ErrDeadlineExceeded}
}

// raise sets *mark to now if now is more, and reports whether it was.
func raise(mark *atomic.Int64, now int64) bool {
	for {
		old := mark.Load()
		if now <= old {
			return false
		}
		if mark.CompareAndSwap(old, now) {
			return true
		}
	}
}

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

// idleConn is a connection whose reads and writes fail once it has made no
// progress either way for timeout: every read and write, and every byte
// written, counts as progress. So a response the server is slow to start
// still has timeout after the request's last byte, a long upload whose
// bytes keep going out is never cut (the transport's read for the answer
// waits meanwhile, each write counting for it too), and a connection idle
// in the pool for longer than timeout is closed.
//
// Progress is measured in bytes, not calls: one write may hand the
// transport a whole part of an upload (megabytes), which a slow link takes
// longer than timeout to send, and the socket's send buffer may hold
// megabytes that leave after the last write has returned, before the
// server can answer. So bytes the peer acknowledges (those written less
// those still in the send queue, sendQueue) are progress too. They are
// read every quarter of timeout while a read or a write waits, and after
// each piece (writePiece) a write hands the socket: the connection fails
// between one and one and a quarter timeouts after the peer last took a
// byte, and one timeout after the wait began if it took none. A peer that takes nothing (a black hole) acknowledges nothing.
type idleConn struct {
	net.Conn
	timeout time.Duration
	written atomic.Int64 // bytes handed to the socket
	active  atomic.Int64 // when progress was last seen, in Unix nanoseconds
	// readAcked and writeAcked are the bytes acknowledged when a piece was
	// last written, or a read, or a write, last checked while it waited:
	// what progress is measured from. Each side has its own, since both
	// wait at once when the link stops, and each must see the progress
	// made.
	readAcked, writeAcked atomic.Int64
}

// idleChecks is how many times per timeout a waiting read or write checks
// for acknowledged bytes.
const idleChecks = 4

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

func (c *idleConn) Read(p []byte) (int, error) {
	c.progress()
	for {
		n, err := c.Conn.Read(p)
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && !c.idle(&c.readAcked, 0) {
			continue
		}
		return n, err
	}
}

func (c *idleConn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return c.Conn.Write(p)
	}
	c.progress()
	sent := 0
	for sent < len(p) {
		n, err := c.Conn.Write(p[sent:min(len(p), sent+writePiece)])
		sent += n
		c.written.Add(int64(n))
		switch {
		case err == nil:
			c.progress()
			if q, ok := sendQueue(c.Conn); ok {
				acked := c.written.Load() - int64(q)
				raise(&c.readAcked, acked)
				raise(&c.writeAcked, acked)
			}
		case errors.Is(err, os.ErrDeadlineExceeded) && !c.idle(&c.writeAcked, n):
		default:
			return sent, err
		}
	}
	return sent, nil
}

// idle is called when a read or write timed out having moved took bytes.
// It reports whether the connection has made no progress for c.timeout;
// if it has, or not for that long yet, it gives both sides another check's
// time (no more than what is left of c.timeout). Progress here is the peer acknowledging more bytes than *mark
// records, which it then records. The bytes a timed-out write moved are
// not progress in themselves (a send buffer growing takes a few more while
// the link stands still), except where the send queue cannot be read: then
// they are all there is to go by.
func (c *idleConn) idle(mark *atomic.Int64, took int) bool {
	q, ok := sendQueue(c.Conn)
	if ok && q > 0 && raise(mark, c.written.Load()-int64(q)) || !ok && took > 0 {
		c.progress()
		return false
	}
	left := time.Until(time.Unix(0, c.active.Load()).Add(c.timeout))
	if left <= 0 {
		return true
	}
	_ = c.Conn.SetDeadline(time.Now().Add(min(left, c.timeout/idleChecks)))
	return false
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

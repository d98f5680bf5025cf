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
// written, moves both deadlines to timeout from now. So a response the
// server is slow to start still has timeout after the request's last byte,
// a long upload whose bytes keep going out is never cut (the transport's
// read for the answer waits meanwhile, its deadline moving with each
// write), and a connection idle in the pool for longer than timeout is
// closed.
//
// Progress is measured in bytes, not calls: one write may hand the
// transport a whole part of an upload (megabytes), which a slow link takes
// longer than timeout to send, and the socket's send buffer may hold
// megabytes that leave after the last write has returned, before the
// server can answer. So a write that times out having sent some of its
// bytes goes on with the rest; and a read or write that times out having
// moved nothing is tried again while the peer keeps acknowledging bytes
// (those written less those still in the send queue, sendQueue). A peer
// that takes nothing (a black hole) acknowledges nothing.
type idleConn struct {
	net.Conn
	timeout time.Duration
	written atomic.Int64 // bytes handed to the socket
	// readAcked and writeAcked are the bytes acknowledged when a read, or
	// a write, last timed out; each is used by the one goroutine that
	// reads, or writes, at a time.
	readAcked, writeAcked int64
}

func (c *idleConn) extend() {
	_ = c.Conn.SetDeadline(time.Now().Add(c.timeout))
}

func (c *idleConn) Read(p []byte) (int, error) {
	for {
		c.extend()
		n, err := c.Conn.Read(p)
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && c.draining(&c.readAcked) {
			continue
		}
		return n, err
	}
}

func (c *idleConn) Write(p []byte) (int, error) {
	sent := 0
	for {
		c.extend()
		n, err := c.Conn.Write(p[sent:])
		sent += n
		c.written.Add(int64(n))
		if errors.Is(err, os.ErrDeadlineExceeded) && (n > 0 || c.draining(&c.writeAcked)) {
			continue
		}
		if sent > 0 {
			c.extend()
		}
		return sent, err
	}
}

// draining reports whether bytes written earlier are still leaving: some
// are in the send queue, and the peer has acknowledged more of them than
// when *acked was last recorded.
func (c *idleConn) draining(acked *int64) bool {
	q, ok := sendQueue(c.Conn)
	if !ok || q == 0 {
		return false
	}
	now := c.written.Load() - int64(q)
	progress := now > *acked
	*acked = now
	return progress
}

package s3

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
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
// moved nothing is tried again while the bytes not yet acknowledged
// (sendQueue) keep decreasing. A peer that takes nothing (a black hole)
// makes no such progress.
type idleConn struct {
	net.Conn
	timeout time.Duration
	// readQueued and writeQueued are the send queue when a read, or a
	// write, last timed out (0: empty, or not asked yet); each is used by
	// the one goroutine that reads, or writes, at a time.
	readQueued, writeQueued int
}

func (c *idleConn) extend() {
	_ = c.Conn.SetDeadline(time.Now().Add(c.timeout))
}

func (c *idleConn) Read(p []byte) (int, error) {
	for {
		c.extend()
		n, err := c.Conn.Read(p)
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && c.draining(&c.readQueued) {
			continue
		}
		c.readQueued = 0
		return n, err
	}
}

func (c *idleConn) Write(p []byte) (int, error) {
	sent := 0
	for {
		c.extend()
		n, err := c.Conn.Write(p[sent:])
		sent += n
		if errors.Is(err, os.ErrDeadlineExceeded) && (n > 0 || c.draining(&c.writeQueued)) {
			continue
		}
		c.writeQueued = 0
		if sent > 0 {
			c.extend()
		}
		return sent, err
	}
}

// draining reports whether bytes written earlier are still leaving: the
// send queue is not empty, and smaller than at the last timeout that
// *queued recorded (or this is the first).
func (c *idleConn) draining(queued *int) bool {
	q, ok := sendQueue(c.Conn)
	if !ok || q == 0 {
		return false
	}
	prev := *queued
	*queued = q
	return prev == 0 || q < prev
}

// Package faultproxy puts a TCP proxy on loopback between code under test
// and a server it depends on (PostgreSQL, an S3 server), so that a test
// can take the server out of reach and bring it back without stopping it.
package faultproxy

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards the connections made to Addr to its upstream server.
// Cut ends every connection through it and refuses new ones (a connection
// is accepted and closed at once, as a server that is down or restarting
// does); Restore lets them through again.
type Proxy struct {
	// Addr is the proxy's host:port on loopback.
	Addr string

	ln       net.Listener
	upstream string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// New starts a proxy to upstream (host:port) and stops it when the test
// ends.
func New(tb testing.TB, upstream string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), ln: ln, upstream: upstream, conns: map[net.Conn]struct{}{}}
	p.wg.Go(p.serve)
	tb.Cleanup(func() {
		ln.Close()
		p.Cut()
		p.wg.Wait()
	})
	return p
}

// Cut ends every connection through the proxy and refuses new ones until
// Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		} else if err != nil {
			continue
		}
		p.wg.Go(func() { p.pipe(c) })
	}
}

// pipe copies between the client c and a new connection to the upstream
// server, unless the proxy is cut.
func (p *Proxy) pipe(c net.Conn) {
	defer c.Close()
	p.mu.Lock()
	down := p.down
	p.mu.Unlock()
	if down {
		return
	}
	s, err := net.Dial("tcp", p.upstream)
	if err != nil {
		return
	}
	defer s.Close()
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		return
	}
	p.conns[c], p.conns[s] = struct{}{}, struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.conns, c)
		delete(p.conns, s)
		p.mu.Unlock()
	}()
	done := make(chan struct{})
	go func() {
		io.Copy(s, c)
		s.Close()
		close(done)
	}()
	io.Copy(c, s)
	c.Close()
	<-done
}

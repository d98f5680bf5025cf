// Package faultproxy puts a TCP proxy on loopback between code under test
// and a server it depends on (PostgreSQL, an S3 server), so that a test
// can take the server out of reach and bring it back without stopping it.
package faultproxy

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy forwards the connections made to Addr to its upstream server.
// Cut ends every connection through it and refuses new ones (a connection
// is accepted and closed at once, as a server that is down or restarting
// does); Hang keeps every connection open but forwards nothing, and
// accepts new ones without connecting them (a network partition, a stopped
// virtual machine); Restore lets them through again.
type Proxy struct {
	// Addr is the proxy's host:port on loopback.
	Addr string

	ln       net.Listener
	upstream string

	rate atomic.Int64 // bytes a second each way, per connection; 0: as fast as it goes

	mu    sync.Mutex
	down  bool
	hung  chan struct{} // closed by Restore; nil while not hung
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
// Restore. It ends a Hang.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	if p.hung != nil {
		close(p.hung)
		p.hung = nil
	}
}

// Hang stops forwarding until Restore: what is sent either way waits in
// the proxy, and new connections are accepted and wait too. Restore
// forwards it all, as a network does when a partition heals.
func (p *Proxy) Hang() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hung == nil {
		p.hung = make(chan struct{})
	}
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
	if p.hung != nil {
		close(p.hung)
		p.hung = nil
	}
}

// Throttle forwards at most rate bytes a second each way on each
// connection (a slow link), or as fast as it goes when rate is 0.
func (p *Proxy) Throttle(rate int64) { p.rate.Store(rate) }

// gate waits while the proxy hangs, and reports whether it may go on: not
// once the proxy is cut, or c is closed.
func (p *Proxy) gate() bool {
	p.mu.Lock()
	hung, down := p.hung, p.down
	p.mu.Unlock()
	if hung != nil {
		<-hung // Restore, or Cut, which closes the connections and restores
		p.mu.Lock()
		down = p.down
		p.mu.Unlock()
	}
	return !down
}

// copy copies from src to dst until either fails, holding each piece
// while the proxy hangs.
func (p *Proxy) copy(dst, src net.Conn) {
	buf := make([]byte, 16<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.gate() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			if rate := p.rate.Load(); rate > 0 {
				time.Sleep(time.Duration(int64(n) * int64(time.Second) / rate))
			}
		}
		if err != nil {
			return
		}
	}
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
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
	}()
	if !p.gate() {
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
	p.conns[s] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.conns, s)
		p.mu.Unlock()
	}()
	done := make(chan struct{})
	go func() {
		p.copy(s, c)
		s.Close()
		close(done)
	}()
	p.copy(c, s)
	c.Close()
	<-done
}

package pgtest

import (
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy stands between the code under test and the test server, on a
// loopback port of its own, so that a test can take the database out of
// reach and bring it back: Cut ends every connection through it and
// refuses new ones (a connection is accepted and closed at once, as a
// server that is down or restarting does), Restore lets them through
// again.
type Proxy struct {
	// URL is the database's URL through the proxy.
	URL string

	ln       net.Listener
	upstream string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewProxy starts a proxy to the database at dbURL (a URL of NewDatabase)
// and stops it when the test ends.
func NewProxy(tb testing.TB, dbURL string) *Proxy {
	tb.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{ln: ln, upstream: u.Host, conns: map[net.Conn]struct{}{}}
	if u.Port() == "" {
		p.upstream = net.JoinHostPort(u.Hostname(), "5432")
	}
	u.Host = ln.Addr().String()
	p.URL = u.String()
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

// pipe copies between the client c and a new connection to the server,
// unless the proxy is cut.
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

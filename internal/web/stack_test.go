//go:build !race

// The race detector makes every frame larger, so this file is left out of
// the race run; scripts/test runs it in a step of its own.

package web

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestPublicPagesKeepSmallStacks serves the public pages, each on many
// keep-alive connections, and checks that a connection's goroutine keeps
// the 8 KiB stack it starts with. A request that goes deeper makes the
// stack double: at 1,000 connections that was 10 MB more memory, and the
// collector's shrinking and the next request's growth cost 4% of the CPU
// (docs/performance.md, "Every connection's stack back to 8 KiB").
// Whole answers from memory (a small download, a custom page on the
// content origin) are checked too, held as serve holds them; answers
// written through http.ServeContent (ranges, conditional requests, large
// downloads) go deeper than 8 KiB within net/http alone, and are not.
func TestPublicPagesKeepSmallStacks(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanAgency)
	custom := e.file(a, "report.pdf", []byte("%PDF-1.4 report"))
	e.publishPages(a, custom, 1)
	plain := e.file(a, "plain.pdf", []byte("%PDF-1.4 plain"))
	small := e.file(a, "small.bin", deterministicBytes(4096))
	// The handlers as serve runs them, answers held where they ask for
	// it, without the harness's contract check around them.
	serve := func(h http.Handler) *httptest.Server {
		srv := httptest.NewUnstartedServer(h)
		srv.Listener = Listener(srv.Listener)
		srv.Config.ConnContext = ConnContext
		srv.Start()
		return srv
	}
	app := serve(e.srv.AppHandler())
	defer app.Close()
	content := serve(e.srv.ContentHandler())
	defer content.Close()

	appHost, contentHost := e.app.Listener.Addr().String(), e.content.Listener.Addr().String()
	for _, c := range []struct{ name, addr, host, path, header string }{
		{"outer page of a custom page", app.Listener.Addr().String(), appHost, "/f/" + custom.Slug, ""},
		{"default page", app.Listener.Addr().String(), appHost, "/f/" + plain.Slug, ""},
		{"4 KiB download", app.Listener.Addr().String(), appHost, "/f/" + small.Slug + "/download", ""},
		{"custom page", content.Listener.Addr().String(), contentHost, fmt.Sprintf("/p/%s/1", custom.Slug), "Sec-Fetch-Dest: iframe\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			per := stackPerConnection(t, c.addr, c.host, c.path, c.header)
			t.Logf("%d bytes of stack per connection", per)
			if per > 12<<10 {
				t.Errorf("%d bytes of stack per connection after one request each; the 8 KiB a goroutine starts with did not suffice", per)
			}
		})
	}
}

// stackPerConnection returns the stack memory that each of 200 keep-alive
// connections to addr holds after one GET of path (with header, lines
// ending in CRLF, among its headers), with the collector off (which would
// shrink grown stacks again).
func stackPerConnection(t *testing.T, addr, host, path, header string) uint64 {
	t.Helper()
	get := func(c net.Conn, r *bufio.Reader) {
		t.Helper()
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n%sUser-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0\r\n\r\n", path, host, header)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: status %d", path, resp.StatusCode)
		}
	}
	// One request first, so that caches are filled and nothing is built
	// for the first time below.
	warm, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	get(warm, bufio.NewReader(warm))
	warm.Close()

	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 200
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		get(c, bufio.NewReader(c))
	}
	runtime.ReadMemStats(&after)
	if after.StackInuse < before.StackInuse {
		return 0
	}
	return (after.StackInuse - before.StackInuse) / n
}

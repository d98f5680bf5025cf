//go:build linux

package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// Answers from memory larger than net/http's 4 KiB write buffer leave
// held, in one TCP segment each, where they took two (net/http's 4 KiB
// buffer, then the rest): a 4 KiB download and a 10 KB custom page,
// ten times each on one kept-alive connection, counted in the data
// segments the client's socket received (TCP_INFO).
func TestMemoryAnswersLeaveInOneSegment(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanAgency)
	small := e.file(a, "small.bin", bytes.Repeat([]byte("x"), 4096))
	paged := e.file(a, "report.pdf", []byte("pdf"))
	doc := strings.Replace(validPage, "Spring launch</h1>", "Spring launch</h1><p>"+strings.Repeat("The quarter in numbers, region by region. ", 240)+"</p>", 1)
	if _, _, err := e.srv.svc.SavePage(context.Background(), a, paged, []byte(doc), service.PageMode{Publish: true}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, url string
		header    http.Header
		min       int64
	}{
		{"4 KiB download", e.app.URL + "/f/" + small.Slug + "/download", nil, 4096},
		{"10 KB custom page", fmt.Sprintf("%s/p/%s/1", e.content.URL, paged.Slug), http.Header{"Sec-Fetch-Dest": {"iframe"}}, 10_000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var conn *net.TCPConn
			client := &http.Client{Transport: &http.Transport{
				DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
					if err == nil {
						conn = c.(*net.TCPConn)
					}
					return c, err
				},
			}}
			defer client.CloseIdleConnections()
			get := func() {
				t.Helper()
				req, _ := http.NewRequest(http.MethodGet, tt.url, nil)
				req.Header = tt.header.Clone()
				if req.Header == nil {
					req.Header = http.Header{}
				}
				req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || n < tt.min {
					t.Fatalf("GET %s: %d, %d bytes", tt.url, resp.StatusCode, n)
				}
			}
			get() // opens the connection and puts the bytes in memory
			before := dataSegmentsIn(t, conn)
			const requests = 10
			for range requests {
				get()
			}
			if got := dataSegmentsIn(t, conn) - before; got > requests {
				t.Errorf("%d answers came in %d data segments, want one each", requests, got)
			}
		})
	}
}

func dataSegmentsIn(t *testing.T, c *net.TCPConn) int64 {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var info *unix.TCPInfo
	var ierr error
	if err := rc.Control(func(fd uintptr) { info, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) }); err != nil {
		t.Fatal(err)
	}
	if ierr != nil {
		t.Fatal(ierr)
	}
	return int64(info.Data_segs_in)
}

// A held connection sends what it holds with the next write, or at
// release, in order and in one segment; what is written while it is not
// held, and files through ReadFrom (sendfile), pass as they come.
func TestHeldConnWrites(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l = Listener(l)
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	sc, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	c, ok := sc.(*heldConn)
	if !ok {
		t.Fatalf("Listener accepted a %T, want a *heldConn", sc)
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, deterministicBytes(100_000), 0o600); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	write := func(p []byte) {
		t.Helper()
		if n, err := c.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write of %d bytes: %d, %v", len(p), n, err)
		}
		want.Write(p)
	}
	readFrom := func(r io.Reader, size int) {
		t.Helper()
		if n, err := c.ReadFrom(r); n != int64(size) || err != nil {
			t.Fatalf("ReadFrom of %d bytes: %d, %v", size, n, err)
		}
	}
	answers := []struct {
		name     string
		held     bool
		segments int64 // the most the answer may take
		write    func()
	}{
		{"4 KiB then the rest", true, 1, func() { write(deterministicBytes(4096)); write([]byte("the rest")) }},
		{"small writes", true, 1, func() { write([]byte("a")); write([]byte("b")); write(deterministicBytes(3000)) }},
		{"4 KiB then 60 KB", true, 2, func() { write(deterministicBytes(4096)); write(deterministicBytes(60_000)) }},
		{"a large write first", true, 2, func() { write(deterministicBytes(20_000)); write([]byte("tail")) }},
		{"from memory through ReadFrom", true, 2, func() {
			write([]byte("HTTP/1.1 200 OK\r\n\r\n"))
			p := deterministicBytes(10_000)
			readFrom(io.LimitReader(bytes.NewReader(p), 9000), 9000)
			want.Write(p[:9000])
		}},
		{"not held", false, 3, func() { write([]byte("one")); write([]byte("two")) }},
		{"a file, not held", false, 10, func() {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			readFrom(f, 100_000)
			p, _ := os.ReadFile(file)
			want.Write(p)
		}},
	}
	for _, a := range answers {
		t.Run(a.name, func(t *testing.T) {
			want.Reset()
			before := dataSegmentsIn(t, client.(*net.TCPConn))
			c.held = a.held
			a.write()
			c.held = false
			if err := c.flush(); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, want.Len())
			client.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(client, got); err != nil {
				t.Fatalf("reading %d bytes: %v", want.Len(), err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatal("the bytes received differ from the bytes written")
			}
			if c.pending != nil || c.n != 0 {
				t.Errorf("%d bytes still held after flush", c.n)
			}
			segs := dataSegmentsIn(t, client.(*net.TCPConn)) - before
			if a.held && segs > a.segments {
				t.Errorf("%d data segments, want at most %d", segs, a.segments)
			}
		})
	}
	// A peer that is gone: the held bytes' write fails, and the error is
	// the writer's.
	client.Close()
	time.Sleep(50 * time.Millisecond)
	c.held = true
	var werr error
	for range 100 {
		if _, werr = c.Write(deterministicBytes(4096)); werr != nil {
			break
		}
		if _, werr = c.Write(deterministicBytes(4096)); werr != nil {
			break
		}
	}
	if werr == nil {
		t.Error("writes to a closed peer kept succeeding")
	}
	c.held = false
	if c.pending != nil {
		t.Error("a failed write kept its buffer")
	}
}

package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// Answers from memory larger than net/http's 4 KiB write buffer leave
// corked, in one TCP segment each, where they took two (the headers and
// 512 bytes, then the rest): a 4 KiB download and a 10 KB custom page,
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

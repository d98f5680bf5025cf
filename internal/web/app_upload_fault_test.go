package web

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestUploadClientFaults: an upload that fails by its client's doing is
// answered as the client's fault, never 500, and is not logged as a server
// error: a raw body shorter than its Content-Length and a multipart body
// cut short are 400 upload_incomplete, a client that stops sending is 408
// request_timeout (issue 15, item 1). Nothing is stored and no room stays
// reserved.
func TestUploadClientFaults(t *testing.T) {
	e := newTestEnv(t, func(c *Config) {
		c.UploadIdleTimeout = 300 * time.Millisecond
		c.Quotas = map[fileframe.Plan]fileframe.Quota{fileframe.PlanAgency: {Storage: 1 << 20}}
	})
	a := e.account(fileframe.PlanAgency)
	key, _ := e.key(a, "")
	host := strings.TrimPrefix(e.app.URL, "http://")

	// send writes head and body on a raw connection, then either closes
	// its writing half (the body ends early) or waits (a stalled client),
	// and returns the answer.
	send := func(t *testing.T, head, body string, stall bool) (*http.Response, string) {
		t.Helper()
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.Write([]byte(head + body)); err != nil {
			t.Fatal(err)
		}
		if !stall {
			conn.(*net.TCPConn).CloseWrite()
		}
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&b)
		return resp, b.String()
	}
	raw := func(length int) string {
		return fmt.Sprintf("POST /api/files?name=a.bin HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", host, key, length)
	}
	const boundary = "XyZboundary"
	multipartHead := func(length int) string {
		return fmt.Sprintf("POST /api/files HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n", host, key, boundary, length)
	}
	part := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n" + strings.Repeat("x", 5000)

	for _, tt := range []struct {
		name       string
		head, body string
		stall      bool
		status     int
		code       string
	}{
		{"raw body shorter than its Content-Length", raw(10000), strings.Repeat("x", 4000), false, 400, fileframe.CodeUploadIncomplete},
		{"multipart body cut inside its file", multipartHead(20000), part, false, 400, fileframe.CodeUploadIncomplete},
		{"raw body that stops arriving", raw(10000), strings.Repeat("x", 4000), true, 408, fileframe.CodeRequestTimeout},
		{"multipart body that stops arriving", multipartHead(20000), part, true, 408, fileframe.CodeRequestTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := send(t, tt.head, tt.body, tt.stall)
			if resp.StatusCode != tt.status || !strings.Contains(body, `"code":"`+tt.code+`"`) {
				t.Errorf("got %d %s, want %d %s", resp.StatusCode, body, tt.status, tt.code)
			}
		})
	}
	if strings.Contains(e.logs.String(), `"level":"ERROR"`) {
		t.Errorf("a client's fault was logged as a server error:\n%s", e.logs.String())
	}
	if files, _ := e.store.FilesByAccount(context.Background(), a.ID); len(files) != 0 {
		t.Errorf("stored %d files", len(files))
	}
	// All the room is free again.
	if _, err := e.store.Reserve(context.Background(), fileframe.Reservation{ID: "probe", AccountID: a.ID, Bytes: 1 << 20, ExpiresAt: time.Now().Add(time.Hour)}, 1<<20, time.Now()); err != nil {
		t.Errorf("reserving the whole quota after the failures: %v", err)
	}
}

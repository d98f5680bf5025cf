package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The client against a stand-in server: what it sends, how it retries and
// how it reads refusals. Its work against the real server is tested in
// cmd/fileframe (remote_test.go), through the commands.

func newTestClient(t *testing.T, h http.HandlerFunc) (*Client, *[]time.Duration) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+"/", "ffk_test", nil)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return c, &waits
}

func TestRetry429WithSameIdempotencyKey(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	c, waits := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		n := len(keys)
		mu.Unlock()
		if got := r.Header.Get("Authorization"); got != "Bearer ffk_test" {
			t.Errorf("Authorization: got %q", got)
		}
		if r.URL.Path != "/api/files/f_1/page/revisions" {
			t.Errorf("path: got %q", r.URL.Path)
		}
		if n < 3 {
			w.Header().Set("Retry-After", "2")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"status":429,"code":"rate_limited","detail":"slow down","errors":[]}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"ok":true,"slug":"abc","url":"/f/abc","published":true,"revision":4,"created":true,"warnings":[]}`)
	})
	s, err := c.SaveRevision(context.Background(), "f_1", "<html></html>", true)
	if err != nil {
		t.Fatalf("SaveRevision: %v", err)
	}
	if s.Revision != 4 || !s.Published || s.URL != "/f/abc" {
		t.Errorf("answer: got %+v", s)
	}
	if len(keys) != 3 || keys[0] == "" || keys[1] != keys[0] || keys[2] != keys[0] {
		t.Errorf("Idempotency-Keys of one call and its retries: got %q, want one key three times", keys)
	}
	if len(*waits) != 2 || (*waits)[0] != 2*time.Second {
		t.Errorf("waits: got %v, want Retry-After's 2s twice", *waits)
	}
	// Another call, another key.
	first := keys[0]
	c.SaveRevision(context.Background(), "f_1", "<html></html>", true)
	if len(keys) != 4 || keys[3] == "" || keys[3] == first {
		t.Fatalf("second call sent %q after the first's %q", keys[3:], first)
	}
}

func TestRetryGivesUp(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"status":429,"code":"rate_limited","detail":"slow down","errors":[],"requestId":"r1"}`)
	})
	_, err := c.File(context.Background(), "f_1")
	var e *Error
	if !errors.As(err, &e) || e.Code != "rate_limited" || e.Status != 429 || e.RetryAfter != time.Second || e.Detail != "slow down" {
		t.Fatalf("got %#v, want the last 429 as an *Error", err)
	}
	// A Retry-After longer than MaxWait is not waited for.
	c.MaxWait = 0
	calls := 0
	c.http.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls++
		return http.DefaultTransport.RoundTrip(r)
	})
	c.File(context.Background(), "f_1")
	if calls != 1 {
		t.Errorf("with a Retry-After over MaxWait: %d requests, want 1", calls)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestRetryConnectionErrors(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true,"id":"f_1","name":"a.txt","size":3}`)
	})
	var methods []string
	fail := 2
	next := c.http.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.http.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		methods = append(methods, r.Method)
		if fail > 0 {
			fail--
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
		}
		return next.RoundTrip(r)
	})
	f, err := c.File(context.Background(), "f_1")
	if err != nil || f.Name != "a.txt" || len(methods) != 3 {
		t.Errorf("GET after two connection errors: %+v, %v after %d tries", f, err, len(methods))
	}
	// The tus creation POST is not retried: the server may have made the
	// upload.
	fail, methods = 1, nil
	if _, err := c.tusCreate(context.Background(), 3, "a.txt", LinkChange{}); err == nil || len(methods) != 1 {
		t.Errorf("tus POST after a connection error: %v after %d tries, want the error after 1", err, len(methods))
	}
}

func TestErrorBodies(t *testing.T) {
	for _, tt := range []struct {
		name, contentType, body string
		status                  int
		want                    Error
	}{
		{"problem", "application/problem+json", `{"title":"HTML breaks the page rules","status":422,"detail":"fix it","code":"html_invalid","errors":[{"rule":"inline.script","message":"m","line":3,"column":5,"excerpt":"<script src>","hint":"inline it"}],"requestId":"q"}`, 422,
			Error{Status: 422, Code: "html_invalid", Title: "HTML breaks the page rules", Detail: "fix it", RequestID: "q",
				Findings: []Finding{{Rule: "inline.script", Message: "m", Line: 3, Column: 5, Excerpt: "<script src>", Hint: "inline it"}}}},
		{"tus", "text/plain; charset=utf-8", "ERR_QUOTA_EXCEEDED: This file is larger than the 1 KiB left.\n", 413,
			Error{Status: 413, Code: "quota_exceeded", Detail: "This file is larger than the 1 KiB left."}},
		{"proxy", "text/html", "<html>Bad gateway</html>", 502, Error{Status: 502, Detail: "<html>Bad gateway</html>"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := c.Page(context.Background(), "f_1")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Status != tt.want.Status || e.Code != tt.want.Code || e.Detail != tt.want.Detail || e.Title != tt.want.Title ||
				e.RequestID != tt.want.RequestID || len(e.Findings) != len(tt.want.Findings) || (len(e.Findings) > 0 && e.Findings[0] != tt.want.Findings[0]) {
				t.Errorf("got %+v, want %+v", *e, tt.want)
			}
			if !strings.Contains(e.Error(), tt.want.Detail) {
				t.Errorf("Error() %q lacks the detail", e.Error())
			}
		})
	}
}

func TestNewRefusesBadURLs(t *testing.T) {
	for _, u := range []string{"", "files.example.com", "ftp://x", "https://u:p@x", "https://x/?a=1"} {
		if _, err := New(u, "ffk_x", nil); err == nil {
			t.Errorf("New(%q): no error", u)
		}
	}
	c, err := New("https://x.example/base/", "ffk_x", nil)
	if err != nil || c.url("/api/files", nil) != "https://x.example/base/api/files" {
		t.Errorf("New with a path: %v, %v", c, err)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{"0", 0, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"", 0, false},
		{"-1", 0, false},
		{"soon", 0, false},
	} {
		if got, ok := RetryAfter(tt.in, now); got != tt.want || ok != tt.ok {
			t.Errorf("RetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

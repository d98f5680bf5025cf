package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeLogFlushedAtShutdown serves requests with a log buffer that is
// never flushed by its timer, and checks that a graceful shutdown writes
// every access line: none is lost with the buffer.
func TestServeLogFlushedAtShutdown(t *testing.T) {
	t.Parallel()
	cfg, err := parseServeConfig(flag.NewFlagSet("serve", flag.ContinueOnError),
		[]string{"--addr", "127.0.0.1:0", "--data", t.TempDir()},
		func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	var stdout, logs lockedBuffer
	m := newMain(cfg, &stdout, &logs, time.Hour)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- m.Run(ctx) }()

	var app string
	for deadline := time.Now().Add(30 * time.Second); app == ""; {
		for _, l := range strings.Split(stdout.String(), "\n") {
			if a, ok := strings.CutPrefix(l, "  app:     "); ok {
				app = a
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve printed no address in 30s: %q", stdout.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	const n = 50
	for i := range n {
		path := "/healthz"
		if i%2 == 1 {
			path = "/f/nosuchslug"
		}
		resp, err := http.Get(app + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if got := countAccessLines(t, logs.String()); got != 0 {
		t.Fatalf("%d access lines written before shutdown with an hour's flush interval; the test needs them held", got)
	}

	cancel()
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run still running 30s after its context ended")
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	out := logs.String()
	if got := countAccessLines(t, out); got != n {
		t.Errorf("got %d access lines after shutdown, want %d:\n%s", got, n, out)
	}
	if !strings.Contains(out, `"msg":"stopped"`) {
		t.Errorf("the last line, \"stopped\", was not written:\n%s", out)
	}
}

// countAccessLines counts the access log lines in logs, failing on a line
// that is not JSON.
func countAccessLines(t *testing.T, logs string) int {
	t.Helper()
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		if l == "" {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		if v["msg"] == "http request" {
			n++
		}
	}
	return n
}

// TestServeWarnsWhenOriginsAreOneSite checks that serve says so, on its
// banner and in its log, when the content origin is on the app's site (or
// is plain http off loopback), and says nothing with the defaults.
func TestServeWarnsWhenOriginsAreOneSite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string // what the warnings mention; none for none
	}{
		{"defaults", nil, nil},
		{"one IP address", []string{"--content-origin", "http://127.0.0.1:1"}, []string{"are one site (127.0.0.1)"}},
		{"subdomains", []string{"--base-url", "https://files.example.com", "--content-origin", "https://pages.example.com"},
			[]string{"are one site (example.com)"}},
		{"separate domains", []string{"--base-url", "https://files.example.com", "--content-origin", "https://usercontent.example.net"}, nil},
		{"plain http", []string{"--base-url", "http://files.example.com", "--content-origin", "http://usercontent.example.net"},
			[]string{"plain http on a host other than loopback"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--addr", "127.0.0.1:0", "--data", t.TempDir()}, tt.args...)
			cfg, err := parseServeConfig(flag.NewFlagSet("serve", flag.ContinueOnError), args,
				func(string) (string, bool) { return "", false })
			if err != nil {
				t.Fatal(err)
			}
			var stdout, logs lockedBuffer
			m := newMain(cfg, &stdout, &logs, time.Hour)
			if err := m.open(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			printed := strings.Count(stdout.String(), "\n  warning: ")
			logged := strings.Count(logs.String(), `"level":"WARN"`)
			if printed != len(tt.want) || logged != len(tt.want) {
				t.Errorf("%d warnings printed and %d logged, want %d\nstdout:\n%s\nlog:\n%s", printed, logged, len(tt.want), stdout.String(), logs.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout.String(), w) || !strings.Contains(logs.String(), w) {
					t.Errorf("the banner or the log does not say %q\nstdout:\n%s\nlog:\n%s", w, stdout.String(), logs.String())
				}
			}
		})
	}
}

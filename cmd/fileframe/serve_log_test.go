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

package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeCounter is an io.Writer that counts its writes.
type writeCounter struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.b.Write(p)
}

func (w *writeCounter) get() (string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String(), w.writes
}

func TestLogBuffer(t *testing.T) {
	var out writeCounter
	b := newLogBuffer(&out, time.Hour)
	log := slog.New(b.Handler(slog.NewJSONHandler(b, nil)))

	log.Info("one")
	log.Info("two", "request_id", "x")
	if got, _ := out.get(); got != "" {
		t.Fatalf("info lines written before a flush: %q", got)
	}
	log.With("request_id", "y").Warn("three")
	got, writes := out.get()
	if n := strings.Count(got, "\n"); n != 3 || writes != 1 {
		t.Fatalf("after a warning: %d lines in %d writes, want 3 in 1:\n%s", n, writes, got)
	}
	if i, j, k := strings.Index(got, `"one"`), strings.Index(got, `"two"`), strings.Index(got, `"three"`); !(0 <= i && i < j && j < k) {
		t.Errorf("lines out of order:\n%s", got)
	}
	log.Error("four")
	if got, _ := out.get(); !strings.Contains(got, `"four"`) {
		t.Errorf("an error line was held")
	}

	log.Info("five")
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, _ := out.get(); !strings.Contains(got, `"five"`) {
		t.Errorf("Flush did not write the buffer")
	}
	log.Info("six")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := out.get(); !strings.HasSuffix(got, "\"six\"}\n") {
		t.Errorf("Close did not write the rest:\n%s", got)
	}
}

func TestLogBufferInterval(t *testing.T) {
	var out writeCounter
	b := newLogBuffer(&out, 10*time.Millisecond)
	defer b.Close()
	fmt.Fprintln(b, "line")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got, _ := out.get(); got == "line\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the buffer was not written within 10s of a 10ms interval")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLogBufferFull writes from many goroutines past the buffer's size: every
// line arrives whole and once, in far fewer writes than lines.
func TestLogBufferFull(t *testing.T) {
	var out writeCounter
	b := newLogBuffer(&out, time.Hour)
	line := strings.Repeat("x", 100)
	const writers, lines = 8, 2000
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for j := range lines {
				fmt.Fprintf(b, "%d %d %s\n", i, j, line)
			}
		})
	}
	wg.Wait()
	if _, writes := out.get(); writes == 0 {
		t.Errorf("%d bytes buffered without a write, want at most %d", writers*lines*len(line), logBufferMax)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	got, writes := out.get()
	seen := map[string]bool{}
	next := make([]int, writers)
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		var i, j int
		var rest string
		if _, err := fmt.Sscanf(l, "%d %d %s", &i, &j, &rest); err != nil || rest != line {
			t.Fatalf("broken line %q", l)
		}
		if seen[l] || j != next[i] {
			t.Fatalf("line %q out of order or repeated", l)
		}
		seen[l] = true
		next[i]++
	}
	if len(seen) != writers*lines {
		t.Errorf("got %d lines, want %d", len(seen), writers*lines)
	}
	// Every write but Close's is of a buffer too full for one more line,
	// however many writers found it full at once.
	if max := len(got)/(logBufferMax-len(line)-20) + 1; writes > max {
		t.Errorf("%d writes, want at most %d", writes, max)
	}
}

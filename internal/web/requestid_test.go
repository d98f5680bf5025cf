package web

import (
	"strings"
	"sync"
	"testing"
)

func TestRequestIDs(t *testing.T) {
	g := newRequestIDs()
	const goroutines, each = 4, 5000
	ids := make([][]string, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			for range each {
				ids[i] = append(ids[i], g.id())
			}
		})
	}
	wg.Wait()
	seen := make(map[string]bool, goroutines*each)
	for _, list := range ids {
		for _, id := range list {
			if len(id) != requestIDLen || strings.Trim(id, base62Digits) != "" || !validRequestID(id) {
				t.Fatalf("request ID %q: want %d base62 characters", id, requestIDLen)
			}
			if seen[id] {
				t.Fatalf("request ID %q made twice", id)
			}
			seen[id] = true
		}
	}

	// The counter's last digits wrap into the next ones; the largest
	// counter still fits.
	g.next.Store(60)
	if a, b := g.id(), g.id(); a[requestIDPrefixLen:] != "0000000000z" || b[requestIDPrefixLen:] != "00000000010" {
		t.Errorf("61 and 62: got %q then %q", a, b)
	}
	g.next.Store(1<<64 - 2)
	if got, want := g.id()[requestIDPrefixLen:], "LygHa16AHYF"; got != want {
		t.Errorf("the largest counter: got %q, want %q", got, want)
	}

	// Two generators (two origins, two processes) start apart.
	if h := newRequestIDs(); h.prefix == g.prefix && h.next.Load() == g.next.Load() {
		t.Errorf("two generators start at the same point")
	}
}

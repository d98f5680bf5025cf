package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// countStore records AddDownloads calls and fails them while failing is set.
// Only AddDownloads is implemented; the embedded nil Store panics on anything
// else, which would show a counter doing more than it should.
type countStore struct {
	fileframe.Store
	mu      sync.Mutex
	failing bool
	totals  map[fileframe.FileID]int64
	calls   int
}

func newCountStore() *countStore {
	return &countStore{totals: make(map[fileframe.FileID]int64)}
}

func (s *countStore) AddDownloads(ctx context.Context, counts map[fileframe.FileID]int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.failing {
		return errors.New("database is locked")
	}
	for id, n := range counts {
		s.totals[id] += n
	}
	return nil
}

func (s *countStore) setFailing(v bool) {
	s.mu.Lock()
	s.failing = v
	s.mu.Unlock()
}

func (s *countStore) snapshot() map[fileframe.FileID]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.totals)
}

func discardLogger() *slog.Logger { return slog.New(slog.NewJSONHandler(io.Discard, nil)) }

func TestDownloadCounterKeepsCountsWhenAFlushFails(t *testing.T) {
	ctx := context.Background()
	store := newCountStore()
	c := newDownloadCounter(store, discardLogger(), time.Hour)
	defer c.Close(ctx)

	c.Add("a")
	c.Add("a")
	c.Add("b")
	store.setFailing(true)
	if err := c.Flush(ctx); err == nil {
		t.Fatal("Flush: got nil error from a failing store")
	}
	if got := c.pendingTotal(); got != 3 {
		t.Fatalf("pending after a failed flush: got %d, want 3", got)
	}
	c.Add("a")
	store.setFailing(false)
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[fileframe.FileID]int64{"a": 3, "b": 1}
	if got := store.snapshot(); !maps.Equal(got, want) {
		t.Errorf("store: got %v, want %v", got, want)
	}
	if got := c.pendingTotal(); got != 0 {
		t.Errorf("pending after a flush: got %d, want 0", got)
	}
	// Nothing pending: no store call at all.
	calls := store.calls
	if err := c.Flush(ctx); err != nil || store.calls != calls {
		t.Errorf("empty flush: err %v, %d store calls, want none", err, store.calls-calls)
	}
}

func TestDownloadCounterFlushesPeriodically(t *testing.T) {
	store := newCountStore()
	c := newDownloadCounter(store, discardLogger(), 10*time.Millisecond)
	defer c.Close(context.Background())
	store.setFailing(true)
	c.Add("a")
	time.Sleep(50 * time.Millisecond) // a few failing flushes
	store.setFailing(false)
	deadline := time.Now().Add(5 * time.Second)
	for store.snapshot()["a"] != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("store: got %v, want a:1 after periodic flushes", store.snapshot())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestDownloadCounterCloseFlushes(t *testing.T) {
	ctx := context.Background()
	store := newCountStore()
	c := newDownloadCounter(store, discardLogger(), time.Hour)
	c.Add("a")
	c.Add("b")
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := store.snapshot(), map[fileframe.FileID]int64{"a": 1, "b": 1}; !maps.Equal(got, want) {
		t.Errorf("store after Close: got %v, want %v", got, want)
	}
	if err := c.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestDownloadCounterCloseReportsAFailedFlush(t *testing.T) {
	var logs bytes.Buffer
	store := newCountStore()
	store.setFailing(true)
	c := newDownloadCounter(store, slog.New(slog.NewJSONHandler(&lockedWriter{w: &logs}, nil)), time.Hour)
	c.Add("a")
	if err := c.Close(context.Background()); err == nil {
		t.Fatal("Close: got nil error, want the store's")
	}
	if !bytes.Contains(logs.Bytes(), []byte(`"downloads":1`)) {
		t.Errorf("lost counts not logged: %s", logs.String())
	}
}

func TestDownloadCounterConcurrent(t *testing.T) {
	ctx := context.Background()
	store := newCountStore()
	c := newDownloadCounter(store, discardLogger(), time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			id := fileframe.FileID([]string{"a", "b"}[g%2])
			for range 1000 {
				c.Add(id)
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			store.setFailing(true)
			time.Sleep(time.Millisecond)
			store.setFailing(false)
			time.Sleep(time.Millisecond)
		}
	})
	wg.Wait()
	store.setFailing(false)
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := store.snapshot(), map[fileframe.FileID]int64{"a": 4000, "b": 4000}; !maps.Equal(got, want) {
		t.Errorf("store: got %v, want %v", got, want)
	}
}

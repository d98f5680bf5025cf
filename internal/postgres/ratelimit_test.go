package postgres

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRateLimitShared checks the GCRA limiter: a burst, then one request per
// interval, with the wait until the next; shared by two Stores on one
// database, as two instances would be.
func TestRateLimitShared(t *testing.T) {
	db := newDatabase(t)
	a, b := open(t, db), open(t, db)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

	allow := func(s *Store, bucket string, at time.Time) (bool, time.Duration) {
		t.Helper()
		d, err := s.Allow(t.Context(), bucket, 2, 3, at) // 2/s, bursts of 3
		ok, wait := d.Allowed, d.RetryAfter
		if err != nil {
			t.Fatalf("Allow: %v", err)
		}
		return ok, wait
	}
	// The burst of 3, taken alternately through both stores.
	for i, s := range []*Store{a, b, a} {
		if ok, _ := allow(s, "key:k1", start); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	ok, wait := allow(b, "key:k1", start)
	if ok {
		t.Fatalf("fourth request at once: allowed, want refused")
	}
	if wait != 500*time.Millisecond {
		t.Errorf("wait: got %v, want 500ms (one token at 2/s)", wait)
	}
	if ok, _ := allow(a, "key:k1", start.Add(499*time.Millisecond)); ok {
		t.Errorf("after 499ms: allowed, want refused")
	}
	if ok, _ := allow(a, "key:k1", start.Add(500*time.Millisecond)); !ok {
		t.Errorf("after 500ms: refused, want one more")
	}
	if ok, _ := allow(b, "key:k1", start.Add(500*time.Millisecond)); ok {
		t.Errorf("second request after 500ms: allowed, want refused")
	}
	// Another bucket is independent.
	if ok, _ := allow(b, "ip:192.0.2.1", start); !ok {
		t.Errorf("another bucket: refused, want allowed")
	}
	// Long after, the bucket is full again.
	for i := range 3 {
		if ok, _ := allow(b, "key:k1", start.Add(time.Hour)); !ok {
			t.Errorf("an hour later, request %d refused", i+1)
		}
	}
}

// TestRateLimitConcurrent checks that concurrent requests through two
// Stores never take more than the burst.
func TestRateLimitConcurrent(t *testing.T) {
	db := newDatabase(t)
	stores := []*Store{open(t, db), open(t, db)}
	now := time.Now()
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			for range 10 {
				d, err := stores[i%2].Allow(t.Context(), "key:busy", 0.001, 25, now)
				ok := d.Allowed
				if err != nil {
					t.Errorf("Allow: %v", err)
					return
				}
				if ok {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != 25 {
		t.Errorf("allowed: got %d, want exactly the burst, 25", got)
	}
}

// TestRateLimitPurge checks that full buckets' rows are deleted and that a
// deleted row behaves as a full bucket.
func TestRateLimitPurge(t *testing.T) {
	s := open(t, newDatabase(t))
	start := time.Now()
	if d, err := s.Allow(t.Context(), "ip:old", 1, 1, start); err != nil || !d.Allowed {
		t.Fatalf("Allow: %v %v", d.Allowed, err)
	}
	// Two minutes later the bucket is full, and a purge is due.
	if d, err := s.Allow(t.Context(), "ip:new", 1, 1, start.Add(2*time.Minute)); err != nil || !d.Allowed {
		t.Fatalf("Allow: %v %v", d.Allowed, err)
	}
	var buckets []string
	rows, err := s.pool.Query(t.Context(), `SELECT bucket FROM rate_limits ORDER BY bucket`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var b string
		rows.Scan(&b)
		buckets = append(buckets, b)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if len(buckets) != 1 || buckets[0] != "ip:new" {
		t.Errorf("rows after the purge: got %q, want only ip:new", buckets)
	}
	if d, _ := s.Allow(t.Context(), "ip:old", 1, 1, start.Add(2*time.Minute)); !d.Allowed {
		t.Errorf("a purged bucket: refused, want allowed (full)")
	}
}

func TestRateLimitFailsOnClosedStore(t *testing.T) {
	s := open(t, newDatabase(t))
	s.Close()
	if _, err := s.Allow(t.Context(), "key:x", 1, 1, time.Now()); err == nil {
		t.Errorf("Allow on a closed store: got no error")
	}
}

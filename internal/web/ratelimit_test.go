package web

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestRateLimitBurstThenRefill(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(clock.Now)
	for i := range 3 {
		if ok, _ := l.allow("key:a", 1, 3); !ok {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	ok, wait := l.allow("key:a", 1, 3)
	if ok {
		t.Fatal("request after the burst allowed")
	}
	if wait != time.Second {
		t.Errorf("wait: got %v, want 1s", wait)
	}
	// A refused request takes no token: half a second later the wait is
	// half a second, not one and a half.
	clock.Advance(500 * time.Millisecond)
	if ok, wait := l.allow("key:a", 1, 3); ok || wait != 500*time.Millisecond {
		t.Errorf("after 0.5s: got ok=%v wait=%v, want false 500ms", ok, wait)
	}
	clock.Advance(500 * time.Millisecond)
	if ok, _ := l.allow("key:a", 1, 3); !ok {
		t.Error("refused after a token refilled")
	}
	if ok, _ := l.allow("key:a", 1, 3); ok {
		t.Error("allowed a second request on one refilled token")
	}
}

func TestRateLimitBucketsAreIndependent(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(clock.Now)
	if ok, _ := l.allow("key:a", 1, 1); !ok {
		t.Fatal("first request of key:a refused")
	}
	if ok, _ := l.allow("key:a", 1, 1); ok {
		t.Fatal("second request of key:a allowed")
	}
	if ok, _ := l.allow("key:b", 1, 1); !ok {
		t.Error("key:b refused because key:a is exhausted")
	}
	if ok, _ := l.allow("ip:192.0.2.1", 1, 1); !ok {
		t.Error("ip bucket refused because key:a is exhausted")
	}
}

func TestRateLimitSlowRate(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(clock.Now)
	l.allow("touch:k", 1.0/60, 1)
	ok, wait := l.allow("touch:k", 1.0/60, 1)
	if ok || wait != time.Minute {
		t.Fatalf("got ok=%v wait=%v, want false 1m", ok, wait)
	}
	clock.Advance(59 * time.Second)
	if ok, _ := l.allow("touch:k", 1.0/60, 1); ok {
		t.Error("allowed after 59s")
	}
	clock.Advance(time.Second)
	if ok, _ := l.allow("touch:k", 1.0/60, 1); !ok {
		t.Error("refused after 60s")
	}
}

func TestRateLimitZeroBurstStillAllows(t *testing.T) {
	l := newLimiter(newFakeClock().Now)
	if ok, _ := l.allow("key:a", 5, 0); !ok {
		t.Error("a burst of 0 refused the first request; it should count as 1")
	}
}

func TestRateLimitDropsFullBuckets(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(clock.Now)
	for i := range 100 {
		l.allow(fmt.Sprintf("ip:%d", i), 1, 10)
	}
	if got := l.size(); got != 100 {
		t.Fatalf("size: got %d, want 100", got)
	}
	// After a sweep interval every bucket has refilled (10 tokens at 1/s
	// take 10s), so the next call drops them all but its own.
	clock.Advance(l.sweepEvery)
	l.allow("ip:new", 1, 10)
	if got := l.size(); got != 1 {
		t.Errorf("size after sweep: got %d, want 1", got)
	}
}

func TestRateLimitKeepsBucketsThatAreNotFull(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(clock.Now)
	// Slow bucket: one token an hour, so it is far from full after a minute.
	l.allow("key:slow", 1.0/3600, 2)
	l.allow("key:slow", 1.0/3600, 2)
	clock.Advance(l.sweepEvery)
	l.allow("ip:other", 1, 1)
	if ok, _ := l.allow("key:slow", 1.0/3600, 2); ok {
		t.Error("the sweep dropped an exhausted bucket, so its client got a fresh burst")
	}
}

func TestRateLimitCapsBuckets(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(clock.Now)
	l.maxBuckets = 1000
	for i := range 10 * l.maxBuckets {
		// Slow buckets that are never full, so only the cap can drop them.
		l.allow(fmt.Sprintf("ip:%d", i), 1.0/3600, 5)
		if n := l.size(); n > l.maxBuckets {
			t.Fatalf("after %d buckets the limiter holds %d, above the cap of %d", i+1, n, l.maxBuckets)
		}
	}
}

func TestRateLimitConcurrentUse(t *testing.T) {
	clock := newFakeClock()
	l := newLimiter(clock.Now)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 20 {
		wg.Go(func() {
			for range 50 {
				if ok, _ := l.allow("key:shared", 1, 100); ok {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if allowed != 100 {
		t.Errorf("allowed: got %d, want exactly the burst, 100", allowed)
	}
}

func TestRateLimitRetryAfterSeconds(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{
		{time.Nanosecond, 1},
		{200 * time.Millisecond, 1},
		{time.Second, 1},
		{time.Second + time.Millisecond, 2},
		{59500 * time.Millisecond, 60},
	} {
		if got := retryAfterSeconds(tt.d); got != tt.want {
			t.Errorf("retryAfterSeconds(%v): got %d, want %d", tt.d, got, tt.want)
		}
	}
}

func TestRateLimitClientBucket(t *testing.T) {
	for _, tt := range []struct{ remote, want string }{
		{"192.0.2.7:5555", "ip:192.0.2.7"},
		{"[::ffff:192.0.2.7]:5555", "ip:192.0.2.7"},
		{"[2001:db8:1:2:3:4:5:6]:443", "ip:2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "ip:2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:80", "ip:fe80::/64"},
		{"@", "ip:@"}, // a unix socket: one bucket for all
	} {
		if got := clientBucket(tt.remote); got != tt.want {
			t.Errorf("clientBucket(%q): got %q, want %q", tt.remote, got, tt.want)
		}
	}
}

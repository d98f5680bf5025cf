package web

import (
	"context"
	"math"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// limiter keeps one token bucket per string key ("key:<id>", "ip:<addr>",
// ...) in this process's memory. It reads time only from its clock, so tests
// drive it with a fake one. It is the default fileframe.RateLimiter, right
// for a single instance; instances behind a load balancer share one through
// their database instead (Config.RateLimiter).
//
// Memory is bounded in two ways. Buckets that have refilled completely are
// dropped, at most once per sweepEvery: a full bucket behaves exactly like a
// new one, so dropping it forgets nothing. If the map still reaches
// maxBuckets (a flood from very many addresses), arbitrary buckets are dropped
// until it is back under the cap; that can let some clients start over with a
// full bucket, which is the price of a fixed memory ceiling.
type limiter struct {
	now        func() time.Time
	maxBuckets int
	sweepEvery time.Duration

	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
	lastSweep time.Time
}

// Defaults for newLimiter. A bucket costs a few hundred bytes with its key,
// so the cap holds the map to roughly 16 MiB.
const (
	limiterMaxBuckets = 1 << 16
	limiterSweepEvery = time.Minute
)

// newLimiter returns an empty limiter reading time from now.
func newLimiter(now func() time.Time) *limiter {
	return &limiter{
		now:        now,
		maxBuckets: limiterMaxBuckets,
		sweepEvery: limiterSweepEvery,
		buckets:    make(map[string]*rate.Limiter),
		lastSweep:  now(),
	}
}

// allow takes one token from the named bucket, which refills at perSecond
// tokens a second up to burst. When the bucket is empty it takes nothing and
// returns how long until a token will be there.
func (l *limiter) allow(bucket string, perSecond float64, burst int) (ok bool, retryAfter time.Duration) {
	return l.allowAt(l.now(), bucket, perSecond, burst)
}

var _ fileframe.RateLimiter = (*limiter)(nil)

// Allow is allow at the given time, as fileframe.RateLimiter; it never
// fails.
func (l *limiter) Allow(_ context.Context, bucket string, perSecond float64, burst int, now time.Time) (fileframe.RateDecision, error) {
	return l.take(now, bucket, perSecond, burst), nil
}

func (l *limiter) allowAt(now time.Time, bucket string, perSecond float64, burst int) (ok bool, retryAfter time.Duration) {
	d := l.take(now, bucket, perSecond, burst)
	return d.Allowed, d.RetryAfter
}

// take takes a token from the bucket at now, if there is one, and says
// what is left.
func (l *limiter) take(now time.Time, bucket string, perSecond float64, burst int) fileframe.RateDecision {
	burst = max(burst, 1) // a bucket of 0 would refuse everything for ever

	// Everything happens under l.mu, so that a sweep cannot drop a bucket
	// between its lookup and the reservation (which would lose the token).
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) >= l.sweepEvery {
		l.dropFull(now)
		l.lastSweep = now
	}
	lim, found := l.buckets[bucket]
	if !found {
		if len(l.buckets) >= l.maxBuckets {
			l.dropFull(now)
			l.dropAny(l.maxBuckets - l.maxBuckets/10 - 1)
		}
		lim = rate.NewLimiter(rate.Limit(perSecond), burst)
		l.buckets[bucket] = lim
	}

	if lim.Limit() != rate.Limit(perSecond) {
		lim.SetLimitAt(now, rate.Limit(perSecond))
	}
	if lim.Burst() != burst {
		lim.SetBurstAt(now, burst)
	}
	r := lim.ReserveN(now, 1)
	if !r.OK() {
		return fileframe.RateDecision{RetryAfter: time.Duration(math.MaxInt64)}
	}
	d := fileframe.RateDecision{Allowed: true}
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		d = fileframe.RateDecision{RetryAfter: wait}
	}
	tokens := lim.TokensAt(now)
	d.Remaining = max(int(math.Floor(tokens)), 0)
	if missing := float64(burst) - tokens; missing > 0 && perSecond > 0 {
		d.Reset = time.Duration(missing / perSecond * float64(time.Second))
	}
	return d
}

// dropFull removes the buckets that have refilled to their burst.
// l.mu is held.
func (l *limiter) dropFull(now time.Time) {
	for k, lim := range l.buckets {
		if lim.TokensAt(now) >= float64(lim.Burst()) {
			delete(l.buckets, k)
		}
	}
}

// dropAny removes buckets, whichever the map yields first, until at most n
// remain. l.mu is held.
func (l *limiter) dropAny(n int) {
	for k := range l.buckets {
		if len(l.buckets) <= n {
			return
		}
		delete(l.buckets, k)
	}
}

// size returns the number of buckets held.
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// retryAfterSeconds turns a wait into a Retry-After value: whole seconds,
// rounded up, at least 1 (RFC 9110, section 10.2.3).
func retryAfterSeconds(d time.Duration) int64 {
	if d >= time.Duration(math.MaxInt64) {
		return 3600
	}
	return max(1, int64(math.Ceil(d.Seconds())))
}

// clientBucket returns the rate-limit bucket of the client at remoteAddr
// ("host:port", as in http.Request.RemoteAddr). IPv6 clients are grouped by
// their /64 network, because one host is commonly given a whole /64 and could
// otherwise pick a fresh address, and a fresh bucket, for every request.
func clientBucket(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return "ip:" + host
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return "ip:" + p.String()
	}
	return "ip:" + addr.String()
}

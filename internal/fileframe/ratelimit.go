package fileframe

import (
	"context"
	"time"
)

// RateLimiter decides whether one more request may pass through a named
// bucket ("key:<id>", "ip:<addr>", ...). A bucket allows perSecond requests
// a second on average and bursts of burst requests (at least 1): a token
// bucket, or its equivalent, the generic cell rate algorithm (GCRA).
//
// Implementations: an in-memory limiter in internal/web, the default, which
// is right for one instance; and internal/postgres's Store.Allow, which
// several instances share through their database, so that a client cannot
// multiply its allowance by the number of instances behind a load balancer.
//
// Allow takes one request from the bucket at time now and reports whether
// it may pass; when it may not, RetryAfter says how long until it would.
// Either way the decision says how many requests the bucket holds after
// this one and how long until it is full (the API's RateLimit headers). It
// returns an error only when the limiter cannot decide (its database is
// unreachable, ...); callers then let the request pass and log the error
// ("fail open"), so that an outage of the limiter does not take the API down
// with it.
type RateLimiter interface {
	Allow(ctx context.Context, bucket string, perSecond float64, burst int, now time.Time) (RateDecision, error)
}

// RateDecision is a RateLimiter's answer for one request.
type RateDecision struct {
	// Allowed: the request may pass (it took a token).
	Allowed bool
	// RetryAfter, when refused, is how long until a token is there.
	RetryAfter time.Duration
	// Remaining is how many more requests the bucket lets pass now.
	Remaining int
	// Reset is how long until the bucket is full again.
	Reset time.Duration
}

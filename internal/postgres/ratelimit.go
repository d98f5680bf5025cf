package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

var _ fileframe.RateLimiter = (*Store)(nil)

// rateLimitPurgeEvery is how often a Store deletes the rows of full buckets.
const rateLimitPurgeEvery = time.Minute

// Allow takes one request from the bucket, shared through the database by
// every Store on it, so a limit hit through one instance is felt on all. It
// implements fileframe.RateLimiter with the generic cell rate algorithm
// (GCRA): a bucket is one row holding its theoretical arrival time (tat);
// each request moves tat on by one emission interval T = 1/perSecond, and is
// refused, leaving the row as it was, when that would put tat more than
// burst×T after now. One INSERT … ON CONFLICT DO UPDATE decides and writes
// atomically, so concurrent requests from any number of instances never
// take more than the bucket holds.
//
// now comes from the caller (the instance's clock): instances must keep
// their clocks in step (NTP); a skew of d lets a client gain or lose about
// d×perSecond requests when its requests alternate between instances.
//
// At most once a minute per Store, the same call also deletes the rows of
// full buckets (tat before now), which behave exactly like missing rows; so
// the table holds only buckets in use. A failure of that clean-up is
// ignored: the next one retries.
func (s *Store) Allow(ctx context.Context, bucket string, perSecond float64, burst int, now time.Time) (fileframe.RateDecision, error) {
	if perSecond <= 0 {
		return fileframe.RateDecision{}, errors.New("postgres: rate limit: perSecond must be positive")
	}
	burst = max(burst, 1)
	interval := max(time.Duration(float64(time.Second)/perSecond), time.Microsecond)
	window := interval * time.Duration(burst)
	if window/time.Duration(burst) != interval { // overflow: a rate so slow that the window exceeds ~292 years
		window = time.Duration(1<<63 - 1)
	}
	now = now.UTC()
	// prev reads the row as the statement's snapshot saw it; it says how
	// long a refused request must wait and what is left. tat is the row
	// after this request, when it passed.
	var allowed bool
	var prev, tat *time.Time
	err := s.pool.QueryRow(ctx, `
		WITH prev AS (
			SELECT tat FROM rate_limits WHERE bucket = $1
		), up AS (
			INSERT INTO rate_limits AS r (bucket, tat)
			VALUES ($1, $2::timestamptz + $3::bigint * interval '1 microsecond')
			ON CONFLICT (bucket) DO UPDATE
				SET tat = greatest(r.tat, $2::timestamptz) + $3::bigint * interval '1 microsecond'
				WHERE greatest(r.tat, $2::timestamptz) + $3::bigint * interval '1 microsecond'
					<= $2::timestamptz + $4::bigint * interval '1 microsecond'
			RETURNING tat
		)
		SELECT EXISTS (SELECT 1 FROM up), (SELECT tat FROM prev), (SELECT tat FROM up)`,
		bucket, now, interval.Microseconds(), window.Microseconds(),
	).Scan(&allowed, &prev, &tat)
	if err != nil {
		return fileframe.RateDecision{}, wrap("rate limit", err)
	}
	s.purgeRateLimits(ctx, now)
	// The bucket is full when tat ≤ now; each interval of tat beyond now
	// is a token taken.
	left := func(tat time.Time) (int, time.Duration) {
		used := max(tat.Sub(now), 0)
		return max(int((window-used)/interval), 0), used
	}
	if allowed {
		d := fileframe.RateDecision{Allowed: true}
		if tat != nil {
			d.Remaining, d.Reset = left(*tat)
		}
		return d, nil
	}
	wait := interval // the row appeared after the snapshot: about one interval
	d := fileframe.RateDecision{}
	if prev != nil {
		wait = prev.Add(interval).Sub(now.Add(window))
		d.Remaining, d.Reset = left(*prev)
	}
	d.RetryAfter = max(wait, time.Microsecond)
	return d, nil
}

// purgeRateLimits deletes the rows of full buckets, at most once per
// rateLimitPurgeEvery per Store.
func (s *Store) purgeRateLimits(ctx context.Context, now time.Time) {
	last := s.ratePurge.Load()
	if now.UnixNano()-last < int64(rateLimitPurgeEvery) || !s.ratePurge.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	s.pool.Exec(ctx, `DELETE FROM rate_limits WHERE tat < $1`, now)
}

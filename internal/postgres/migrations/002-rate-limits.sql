-- Rate-limit buckets shared by every instance (fileframe.RateLimiter).
-- tat is the bucket's theoretical arrival time in the generic cell rate
-- algorithm (GCRA): a bucket whose tat is in the past is full, exactly like a
-- missing row, so such rows may be deleted at any time.
CREATE TABLE rate_limits (
    bucket text        PRIMARY KEY,
    tat    timestamptz NOT NULL
);

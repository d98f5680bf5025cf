-- 008: the answers of API requests sent with an Idempotency-Key, the twin
-- of internal/sqlite's 006-idempotency.sql: kept for a day so that a
-- retry gets the first answer instead of running again, on any instance.
-- A row with done = false is a request still running.
CREATE TABLE idempotent_requests (
    key_id      text        NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    idem_key    text        NOT NULL,
    fingerprint text        NOT NULL DEFAULT '',
    done        boolean     NOT NULL DEFAULT false,
    status      integer     NOT NULL DEFAULT 0,
    header      jsonb       NOT NULL DEFAULT '{}',
    body        bytea       NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (key_id, idem_key)
);

-- Old answers are removed from time to time.
CREATE INDEX idempotent_requests_created_at ON idempotent_requests (created_at);

-- 006: the answers of API requests sent with an Idempotency-Key, kept
-- for a day so that a retry gets the first answer instead of running
-- again. A row with done = 0 is a request still running.
CREATE TABLE idempotent_requests (
    key_id      TEXT    NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    idem_key    TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL DEFAULT '',
    done        INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
    status      INTEGER NOT NULL DEFAULT 0,
    header      TEXT    NOT NULL DEFAULT '{}',
    body        BLOB    NOT NULL DEFAULT x'',
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (key_id, idem_key)
) STRICT;

-- Old answers are removed from time to time.
CREATE INDEX idempotent_requests_created_at ON idempotent_requests (created_at);

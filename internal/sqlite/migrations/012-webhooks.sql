-- 012: signed webhooks (issue 14). webhook_endpoints are an account's
-- receivers (events: the types it wants, each between commas, so that
-- instr finds one; file_id: '' for every file, else the one file, without
-- a foreign key, so that a deleted file's deliveries still finish).
-- webhook_events and webhook_deliveries are the outbox: a store writes the
-- event and one delivery per endpoint that wants it in the transaction of
-- the change; serve's worker claims due deliveries (claim, lease_until)
-- and records each attempt. files.link_ended_at is when the end of a
-- file's link was noticed (its link.expired event), NULL before.
CREATE TABLE webhook_endpoints (
    id          TEXT    PRIMARY KEY,
    account_id  TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    url         TEXT    NOT NULL,
    secret      TEXT    NOT NULL,
    events      TEXT    NOT NULL,
    file_id     TEXT    NOT NULL DEFAULT '',
    description TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    disabled_at INTEGER
) STRICT;
CREATE INDEX webhook_endpoints_account_id ON webhook_endpoints (account_id, created_at);

CREATE TABLE webhook_events (
    id         TEXT    PRIMARY KEY,
    account_id TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    type       TEXT    NOT NULL,
    file_id    TEXT    NOT NULL DEFAULT '',
    data       TEXT    NOT NULL, -- EventData as JSON
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_events_created_at ON webhook_events (created_at);

CREATE TABLE webhook_deliveries (
    id               TEXT    PRIMARY KEY,
    webhook_id       TEXT    NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id         TEXT    NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    state            TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    series_start     INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER,
    claim            TEXT,
    lease_until      INTEGER,
    last_attempt_at  INTEGER,
    last_status      INTEGER NOT NULL DEFAULT 0,
    last_error       TEXT    NOT NULL DEFAULT '',
    last_duration_ms INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    finished_at      INTEGER
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_webhook_id ON webhook_deliveries (webhook_id, created_at);
CREATE INDEX webhook_deliveries_event_id ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_finished_at ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL;

ALTER TABLE files ADD COLUMN link_ended_at INTEGER;
CREATE INDEX files_link_unnoticed ON files (expires_at) WHERE expires_at IS NOT NULL AND link_ended_at IS NULL;

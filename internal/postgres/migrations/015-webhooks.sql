-- 015: signed webhooks (issue 14), the twin of internal/sqlite's
-- 012-webhooks.sql. webhook_endpoints are an account's receivers (events:
-- the types it wants, each between commas, so that strpos finds one;
-- file_id: '' for every file, else the one file, without a foreign key, so
-- that a deleted file's deliveries still finish). webhook_events and
-- webhook_deliveries are the outbox: a store writes the event and one
-- delivery per endpoint that wants it in the transaction of the change;
-- every instance's worker claims due deliveries (FOR UPDATE SKIP LOCKED,
-- then claim and lease_until) and records each attempt.
-- files.link_ended_at is when the end of a file's link was noticed (its
-- link.expired event), NULL before; it shows nowhere a visitor looks, so
-- it stays out of the change notification's columns (003, 013).
CREATE TABLE webhook_endpoints (
    id          text        NOT NULL,
    account_id  text        NOT NULL,
    url         text        NOT NULL,
    secret      text        NOT NULL,
    events      text        NOT NULL,
    file_id     text        NOT NULL DEFAULT '',
    description text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL,
    disabled_at timestamptz,
    seq         bigint      GENERATED ALWAYS AS IDENTITY,
    CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id),
    CONSTRAINT webhook_endpoints_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
);
CREATE INDEX webhook_endpoints_account_id ON webhook_endpoints (account_id, created_at);

CREATE TABLE webhook_events (
    id         text        NOT NULL,
    account_id text        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    type       text        NOT NULL,
    file_id    text        NOT NULL DEFAULT '',
    data       text        NOT NULL, -- EventData as JSON, as the stores wrote it
    created_at timestamptz NOT NULL,
    CONSTRAINT webhook_events_pkey PRIMARY KEY (id)
);
CREATE INDEX webhook_events_created_at ON webhook_events (created_at);

CREATE TABLE webhook_deliveries (
    id               text        NOT NULL,
    webhook_id       text        NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id         text        NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    state            text        NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts         integer     NOT NULL DEFAULT 0,
    series_start     integer     NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz,
    claim            text,
    lease_until      timestamptz,
    last_attempt_at  timestamptz,
    last_status      integer     NOT NULL DEFAULT 0,
    last_error       text        NOT NULL DEFAULT '',
    last_duration_ms bigint      NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL,
    finished_at      timestamptz,
    seq              bigint      GENERATED ALWAYS AS IDENTITY,
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_webhook_id ON webhook_deliveries (webhook_id, created_at);
CREATE INDEX webhook_deliveries_event_id ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_finished_at ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL;

ALTER TABLE files ADD COLUMN link_ended_at timestamptz;
CREATE INDEX files_link_unnoticed ON files (expires_at) WHERE expires_at IS NOT NULL AND link_ended_at IS NULL;

-- 004: what the web application stores: sessions and appearances, the twin
-- of internal/sqlite's 002-app.sql; and insertion order on accounts and
-- files (SQLite's rowid), which breaks ties between rows created in the same
-- millisecond in ListAccounts and FilesByAccount, as api_keys.seq does.

ALTER TABLE accounts ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE files ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;

-- A signed-in browser. Only the hash of the cookie's token is stored.
CREATE TABLE sessions (
    hash         text        NOT NULL, -- hex SHA-256 of the cookie token
    account_id   text        NOT NULL,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    CONSTRAINT sessions_pkey PRIMARY KEY (hash),
    CONSTRAINT sessions_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
);

-- An account's sessions, ended together on a password change; and the
-- expired ones, removed from time to time.
CREATE INDEX sessions_account_id ON sessions (account_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- An account's default appearance; no row when none is set.
CREATE TABLE account_appearances (
    account_id text NOT NULL,
    template   text NOT NULL,
    headline   text NOT NULL,
    message    text NOT NULL,
    accent     text NOT NULL,
    logo_key   text NOT NULL, -- blob key, or '' for none
    background text NOT NULL, -- blob key, or '' for none
    CONSTRAINT account_appearances_pkey PRIMARY KEY (account_id),
    CONSTRAINT account_appearances_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
);

-- A file's own appearance, overriding its account's; no row when none is
-- set. Deleting the file deletes it.
CREATE TABLE file_appearances (
    file_id    text NOT NULL,
    template   text NOT NULL,
    headline   text NOT NULL,
    message    text NOT NULL,
    accent     text NOT NULL,
    logo_key   text NOT NULL,
    background text NOT NULL,
    CONSTRAINT file_appearances_pkey PRIMARY KEY (file_id),
    CONSTRAINT file_appearances_file_id_fkey FOREIGN KEY (file_id) REFERENCES files (id) ON DELETE CASCADE
);

-- The rows that keep a blob alive (BlobInUse, orphan collection).
CREATE INDEX account_appearances_logo_key ON account_appearances (logo_key);
CREATE INDEX account_appearances_background ON account_appearances (background);
CREATE INDEX file_appearances_logo_key ON file_appearances (logo_key);
CREATE INDEX file_appearances_background ON file_appearances (background);

-- Appearances show on public pages: notify their changes as 003 does for
-- the other tables. Sessions show nowhere public and notify nothing. A
-- rename (files.name), a file's deletion and an account's disabling are
-- already notified by 003's triggers on files and accounts.
CREATE TRIGGER account_appearances_notify_change
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON account_appearances
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

CREATE TRIGGER file_appearances_notify_change
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON file_appearances
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

-- 002: what the web application stores: sessions and appearances.

-- A signed-in browser. Only the hash of the cookie's token is stored.
CREATE TABLE sessions (
    hash         TEXT    PRIMARY KEY, -- hex SHA-256 of the cookie token
    account_id   TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- An account's sessions, ended together on a password change; and the
-- expired ones, removed from time to time.
CREATE INDEX sessions_account_id ON sessions (account_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- An account's default appearance; no row when none is set.
CREATE TABLE account_appearances (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    template   TEXT NOT NULL,
    headline   TEXT NOT NULL,
    message    TEXT NOT NULL,
    accent     TEXT NOT NULL,
    logo_key   TEXT NOT NULL, -- blob key, or '' for none
    background TEXT NOT NULL  -- blob key, or '' for none
) STRICT;

-- A file's own appearance, overriding its account's; no row when none is
-- set. Deleting the file deletes it.
CREATE TABLE file_appearances (
    file_id    TEXT PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
    template   TEXT NOT NULL,
    headline   TEXT NOT NULL,
    message    TEXT NOT NULL,
    accent     TEXT NOT NULL,
    logo_key   TEXT NOT NULL,
    background TEXT NOT NULL
) STRICT;

-- The rows that keep a blob alive (BlobInUse, orphan collection).
CREATE INDEX account_appearances_logo_key ON account_appearances (logo_key);
CREATE INDEX account_appearances_background ON account_appearances (background);
CREATE INDEX file_appearances_logo_key ON file_appearances (logo_key);
CREATE INDEX file_appearances_background ON file_appearances (background);

-- 001: the initial schema.
--
-- Times are INTEGER Unix milliseconds in UTC; NULL is the zero time.
-- Booleans are INTEGER 0 or 1. Tables are STRICT so a wrong type is an error
-- rather than a silently stored value.

CREATE TABLE accounts (
    id            TEXT    PRIMARY KEY,
    email         TEXT    NOT NULL UNIQUE, -- stored lower-cased
    password_hash TEXT    NOT NULL DEFAULT '',
    plan          TEXT    NOT NULL CHECK (plan IN ('free', 'pro', 'agency')),
    admin         INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
    disabled      INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    created_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE files (
    id           TEXT    PRIMARY KEY,
    account_id   TEXT    NOT NULL REFERENCES accounts (id),
    name         TEXT    NOT NULL,
    size         INTEGER NOT NULL CHECK (size >= 0),
    content_type TEXT    NOT NULL,
    blob_key     TEXT    NOT NULL,
    slug         TEXT    NOT NULL UNIQUE,
    downloads    INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL
) STRICT;

-- An account's files, newest first; and the rows that keep a blob alive, for
-- orphan collection.
CREATE INDEX files_account_id_created_at ON files (account_id, created_at);
CREATE INDEX files_blob_key ON files (blob_key);

CREATE TABLE api_keys (
    id           TEXT    PRIMARY KEY,
    account_id   TEXT    NOT NULL REFERENCES accounts (id),
    kind         TEXT    NOT NULL CHECK (kind IN ('general', 'page')),
    file_id      TEXT    REFERENCES files (id),
    name         TEXT    NOT NULL,
    prefix       TEXT    NOT NULL,
    hash         TEXT    NOT NULL UNIQUE, -- hex SHA-256 of the key; the secret is never stored
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    expires_at   INTEGER,
    revoked_at   INTEGER,
    -- A page-bound key names its file; a general key names none.
    CHECK ((kind = 'page') = (file_id IS NOT NULL))
) STRICT;

CREATE INDEX api_keys_account_id_created_at ON api_keys (account_id, created_at);
CREATE INDEX api_keys_file_id ON api_keys (file_id) WHERE file_id IS NOT NULL;

-- A file's custom page. live_revision is 0 while the page is a draft.
CREATE TABLE pages (
    file_id         TEXT    PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
    latest_revision INTEGER NOT NULL CHECK (latest_revision > 0),
    live_revision   INTEGER NOT NULL DEFAULT 0 CHECK (live_revision >= 0),
    updated_at      INTEGER NOT NULL
) STRICT;

-- Page HTML, stored once per distinct content whatever the number of
-- revisions (of any page) that refer to it.
CREATE TABLE page_html (
    sha256 TEXT PRIMARY KEY, -- hex SHA-256 of html
    html   BLOB NOT NULL
) STRICT;

CREATE TABLE page_revisions (
    file_id      TEXT    NOT NULL REFERENCES pages (file_id) ON DELETE CASCADE,
    number       INTEGER NOT NULL CHECK (number > 0),
    sha256       TEXT    NOT NULL REFERENCES page_html (sha256),
    size         INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    published_at INTEGER, -- NULL when never published; such revisions may be pruned
    PRIMARY KEY (file_id, number)
) STRICT, WITHOUT ROWID;

-- Whether page_html rows are still referenced, when revisions are pruned.
CREATE INDEX page_revisions_sha256 ON page_revisions (sha256);

-- Server secrets, e.g. the key that signs preview links.
CREATE TABLE secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
) STRICT;

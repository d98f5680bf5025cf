-- 001: the initial schema, the PostgreSQL twin of internal/sqlite's
-- 001-initial.sql: the same tables, columns, constraints and indexes.
--
-- Times are timestamptz, written in UTC truncated to the millisecond; NULL is
-- the zero time. Counters and sizes are bigint. Constraints are named so that
-- the store can tell which one a violation broke (see errors.go).

CREATE TABLE accounts (
    id            text        NOT NULL,
    email         text        NOT NULL, -- stored lower-cased
    password_hash text        NOT NULL DEFAULT '',
    plan          text        NOT NULL,
    admin         boolean     NOT NULL DEFAULT false,
    disabled      boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL,
    CONSTRAINT accounts_pkey PRIMARY KEY (id),
    CONSTRAINT accounts_email_key UNIQUE (email),
    CONSTRAINT accounts_plan_check CHECK (plan IN ('free', 'pro', 'agency'))
);

CREATE TABLE files (
    id           text        NOT NULL,
    account_id   text        NOT NULL,
    name         text        NOT NULL,
    size         bigint      NOT NULL,
    content_type text        NOT NULL,
    blob_key     text        NOT NULL,
    slug         text        NOT NULL,
    downloads    bigint      NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL,
    CONSTRAINT files_pkey PRIMARY KEY (id),
    CONSTRAINT files_slug_key UNIQUE (slug),
    CONSTRAINT files_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id),
    CONSTRAINT files_size_check CHECK (size >= 0)
);

-- An account's files, newest first; and the rows that keep a blob alive, for
-- orphan collection.
CREATE INDEX files_account_id_created_at ON files (account_id, created_at);
CREATE INDEX files_blob_key ON files (blob_key);

CREATE TABLE api_keys (
    id           text        NOT NULL,
    -- Insertion order, which breaks ties between keys created in the same
    -- millisecond (SQLite's rowid).
    seq          bigint      GENERATED ALWAYS AS IDENTITY,
    account_id   text        NOT NULL,
    kind         text        NOT NULL,
    file_id      text,
    name         text        NOT NULL,
    prefix       text        NOT NULL,
    hash         text        NOT NULL, -- hex SHA-256 of the key; the secret is never stored
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    expires_at   timestamptz,
    revoked_at   timestamptz,
    CONSTRAINT api_keys_pkey PRIMARY KEY (id),
    CONSTRAINT api_keys_hash_key UNIQUE (hash),
    CONSTRAINT api_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id),
    CONSTRAINT api_keys_file_id_fkey FOREIGN KEY (file_id) REFERENCES files (id),
    CONSTRAINT api_keys_kind_check CHECK (kind IN ('general', 'page')),
    -- A page-bound key names its file; a general key names none.
    CONSTRAINT api_keys_file_id_check CHECK ((kind = 'page') = (file_id IS NOT NULL))
);

CREATE INDEX api_keys_account_id_created_at ON api_keys (account_id, created_at, seq);
CREATE INDEX api_keys_file_id ON api_keys (file_id) WHERE file_id IS NOT NULL;

-- A file's custom page. live_revision is 0 while the page is a draft.
CREATE TABLE pages (
    file_id         text        NOT NULL,
    latest_revision integer     NOT NULL,
    live_revision   integer     NOT NULL DEFAULT 0,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT pages_pkey PRIMARY KEY (file_id),
    CONSTRAINT pages_file_id_fkey FOREIGN KEY (file_id) REFERENCES files (id) ON DELETE CASCADE,
    CONSTRAINT pages_latest_revision_check CHECK (latest_revision > 0),
    CONSTRAINT pages_live_revision_check CHECK (live_revision >= 0)
);

-- Page HTML, stored once per distinct content whatever the number of
-- revisions (of any page) that refer to it.
CREATE TABLE page_html (
    sha256 text  NOT NULL, -- hex SHA-256 of html
    html   bytea NOT NULL,
    CONSTRAINT page_html_pkey PRIMARY KEY (sha256)
);

CREATE TABLE page_revisions (
    file_id      text        NOT NULL,
    number       integer     NOT NULL,
    sha256       text        NOT NULL,
    size         integer     NOT NULL,
    created_at   timestamptz NOT NULL,
    published_at timestamptz, -- NULL when never published; such revisions may be pruned
    CONSTRAINT page_revisions_pkey PRIMARY KEY (file_id, number),
    CONSTRAINT page_revisions_file_id_fkey FOREIGN KEY (file_id) REFERENCES pages (file_id) ON DELETE CASCADE,
    CONSTRAINT page_revisions_sha256_fkey FOREIGN KEY (sha256) REFERENCES page_html (sha256),
    CONSTRAINT page_revisions_number_check CHECK (number > 0),
    CONSTRAINT page_revisions_size_check CHECK (size >= 0)
);

-- Whether page_html rows are still referenced, when revisions are pruned.
CREATE INDEX page_revisions_sha256 ON page_revisions (sha256);

-- Server secrets, e.g. the key that signs preview links.
CREATE TABLE secrets (
    name  text  NOT NULL,
    value bytea NOT NULL,
    CONSTRAINT secrets_pkey PRIMARY KEY (name)
);

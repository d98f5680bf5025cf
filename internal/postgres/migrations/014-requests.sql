-- 014: file requests (issue 13), the twin of internal/sqlite's
-- 011-requests.sql. A request is a public page /r/<slug> through which
-- anyone with the link sends files into the owner's account, within its
-- limits; request_files says which files each request received, in which
-- visit and from whom. Received files are rows of files that are not
-- shared (their link answers 404) until the owner shares them, so shared
-- joins the columns whose updates notify every instance's public cache
-- (003, 010). A check of a request's limits locks its row (FOR UPDATE),
-- so that the checks of one request are serialised across instances.
ALTER TABLE files ADD COLUMN shared boolean NOT NULL DEFAULT true;
ALTER TABLE upload_reservations ADD COLUMN request_id text NOT NULL DEFAULT '';

CREATE TABLE requests (
    id            text        NOT NULL,
    account_id    text        NOT NULL,
    slug          text        NOT NULL,
    title         text        NOT NULL,
    message       text        NOT NULL DEFAULT '',
    max_bytes     bigint      NOT NULL,
    max_files     bigint      NOT NULL,
    expires_at    timestamptz,
    password_hash text        NOT NULL DEFAULT '',
    closed_at     timestamptz,
    created_at    timestamptz NOT NULL,
    CONSTRAINT requests_pkey PRIMARY KEY (id),
    CONSTRAINT requests_slug_key UNIQUE (slug),
    CONSTRAINT requests_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE,
    CONSTRAINT requests_limits_check CHECK (max_bytes > 0 AND max_files > 0)
);
CREATE INDEX requests_account_id_created_at ON requests (account_id, created_at);

CREATE TABLE request_files (
    file_id      text        NOT NULL,
    request_id   text        NOT NULL,
    visit_id     text        NOT NULL,
    sender_name  text        NOT NULL DEFAULT '',
    sender_email text        NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    CONSTRAINT request_files_pkey PRIMARY KEY (file_id),
    CONSTRAINT request_files_file_id_fkey FOREIGN KEY (file_id) REFERENCES files (id) ON DELETE CASCADE,
    CONSTRAINT request_files_request_id_fkey FOREIGN KEY (request_id) REFERENCES requests (id) ON DELETE CASCADE
);
CREATE INDEX request_files_request_id ON request_files (request_id, visit_id);
CREATE INDEX upload_reservations_request_id ON upload_reservations (request_id, expires_at) WHERE request_id <> '';

DROP TRIGGER files_update_notify_change ON files;

CREATE TRIGGER files_update_notify_change
    AFTER UPDATE OF id, account_id, name, size, content_type, blob_key, slug, created_at,
        expires_at, max_downloads, link_downloads, remove_when_ended, password_hash, reveal, kind, shared ON files
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

-- 011: file requests (issue 13). A request is a public page /r/<slug>
-- through which anyone with the link sends files into the owner's account,
-- within its limits; request_files says which files each request received,
-- in which visit (the sender's visit cookie) and from whom. Received files
-- are rows of files that are not shared (their link answers 404) until the
-- owner shares them. A reservation of an upload sent through a request
-- names it, so that uploads running at once count against its limits.
ALTER TABLE files ADD COLUMN shared INTEGER NOT NULL DEFAULT 1 CHECK (shared IN (0, 1));
ALTER TABLE upload_reservations ADD COLUMN request_id TEXT NOT NULL DEFAULT '';

CREATE TABLE requests (
    id            TEXT    PRIMARY KEY,
    account_id    TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    slug          TEXT    NOT NULL UNIQUE,
    title         TEXT    NOT NULL,
    message       TEXT    NOT NULL DEFAULT '',
    max_bytes     INTEGER NOT NULL CHECK (max_bytes > 0),
    max_files     INTEGER NOT NULL CHECK (max_files > 0),
    expires_at    INTEGER,
    password_hash TEXT    NOT NULL DEFAULT '',
    closed_at     INTEGER,
    created_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX requests_account_id_created_at ON requests (account_id, created_at);

CREATE TABLE request_files (
    file_id      TEXT    PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
    request_id   TEXT    NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
    visit_id     TEXT    NOT NULL,
    sender_name  TEXT    NOT NULL DEFAULT '',
    sender_email TEXT    NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX request_files_request_id ON request_files (request_id, visit_id);
CREATE INDEX upload_reservations_request_id ON upload_reservations (request_id, expires_at) WHERE request_id <> '';

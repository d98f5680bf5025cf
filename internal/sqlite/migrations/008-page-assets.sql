-- 008: zero egress (issue 16). The remote resources (images, fonts, media,
-- text tracks) each page revision names by an absolute https URL, in the
-- order the page first names them, and what Fileframe keeps of them: the
-- bytes' SHA-256 (their blob key) when fetched, else why not. page_served
-- is the HTML a revision is served as when it differs from what was posted
-- (the URLs rewritten to the kept copies). Both go with their revision.
CREATE TABLE page_assets (
    file_id    TEXT    NOT NULL,
    number     INTEGER NOT NULL,
    position   INTEGER NOT NULL CHECK (position >= 0),
    url        TEXT    NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('image', 'font', 'media', 'track')),
    sha256     TEXT    NOT NULL DEFAULT '', -- '' when not kept
    type       TEXT    NOT NULL DEFAULT '',
    ext        TEXT    NOT NULL DEFAULT '',
    size       INTEGER NOT NULL DEFAULT 0 CHECK (size >= 0),
    problem    TEXT    NOT NULL DEFAULT '',
    fetched_at INTEGER NOT NULL,
    PRIMARY KEY (file_id, number, position),
    FOREIGN KEY (file_id, number) REFERENCES page_revisions (file_id, number) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

-- Serving a kept resource by its hash, and whether a blob is in use.
CREATE INDEX page_assets_sha256 ON page_assets (sha256) WHERE sha256 <> '';

CREATE TABLE page_served (
    file_id TEXT    NOT NULL,
    number  INTEGER NOT NULL,
    sha256  TEXT    NOT NULL, -- hex SHA-256 of html
    html    BLOB    NOT NULL,
    PRIMARY KEY (file_id, number),
    FOREIGN KEY (file_id, number) REFERENCES page_revisions (file_id, number) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

-- 012: previews (issue 13), the twin of internal/sqlite's
-- 009-previews.sql: the thumbnail made once for an image blob, itself a
-- blob (thumb_key; '' when none can be made). No change notification: a
-- row is a fact about immutable bytes that no cached page can contradict
-- (a page rendered before the row existed links the thumbnail's route,
-- which makes or finds it), and a notification per first view of every
-- image would empty every instance's public cache.
CREATE TABLE previews (
    blob_key   text        NOT NULL,
    kind       text        NOT NULL,
    thumb_key  text        NOT NULL DEFAULT '',
    width      integer     NOT NULL DEFAULT 0,
    height     integer     NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    CONSTRAINT previews_pkey PRIMARY KEY (blob_key),
    CONSTRAINT previews_check CHECK (kind IN ('image') AND width >= 0 AND height >= 0)
);

CREATE INDEX previews_thumb_key ON previews (thumb_key) WHERE thumb_key <> '';

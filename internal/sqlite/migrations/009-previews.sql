-- 009: previews (issue 13). The thumbnail made once for an image blob,
-- itself a blob (thumb_key; '' when none can be made, so that it is not
-- tried again). A row is a fact about immutable bytes, shared by every
-- file with them; it goes when the blob does (RemoveBlobIfUnused), and
-- while it exists its thumbnail is in use (BlobInUse).
CREATE TABLE previews (
    blob_key   TEXT    NOT NULL PRIMARY KEY,
    kind       TEXT    NOT NULL CHECK (kind IN ('image')),
    thumb_key  TEXT    NOT NULL DEFAULT '',
    width      INTEGER NOT NULL DEFAULT 0 CHECK (width >= 0),
    height     INTEGER NOT NULL DEFAULT 0 CHECK (height >= 0),
    created_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Whether a blob is in use as a thumbnail.
CREATE INDEX previews_thumb_key ON previews (thumb_key) WHERE thumb_key <> '';

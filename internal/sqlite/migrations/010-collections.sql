-- 010: collections (issue 13). A collection is a row of files of kind
-- 'collection' (no blob: blob_key '', content_type application/zip; its
-- size the sum of its items'), so that link controls, appearances, pages
-- and keys keyed by the file work for it unchanged. collection_files are
-- its items, in position order: files of kind 'file' of the same account
-- (checked by the store in the transaction that adds them).
ALTER TABLE files ADD COLUMN kind TEXT NOT NULL DEFAULT 'file' CHECK (kind IN ('file', 'collection'));

CREATE TABLE collection_files (
    collection_id TEXT    NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    file_id       TEXT    NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL CHECK (position >= 0),
    added_at      INTEGER NOT NULL,
    PRIMARY KEY (collection_id, file_id)
) STRICT, WITHOUT ROWID;
-- The collections of a file, when it is deleted.
CREATE INDEX collection_files_file_id ON collection_files (file_id);

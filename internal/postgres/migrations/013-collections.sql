-- 013: collections (issue 13), the twin of internal/sqlite's
-- 010-collections.sql. A collection is a row of files of kind
-- 'collection' (no blob: blob_key '', content_type application/zip; its
-- size the sum of its items'); collection_files are its items, in
-- position order: files of kind 'file' of the same account (checked by
-- the store in the transaction that adds them, with the collection's row
-- locked). Items show on the collection's public page, so their changes
-- notify every instance's public cache (003), and so do kind's.
ALTER TABLE files ADD COLUMN kind text NOT NULL DEFAULT 'file',
    ADD CONSTRAINT files_kind_check CHECK (kind IN ('file', 'collection'));

CREATE TABLE collection_files (
    collection_id text        NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    file_id       text        NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    position      integer     NOT NULL CHECK (position >= 0),
    added_at      timestamptz NOT NULL,
    CONSTRAINT collection_files_pkey PRIMARY KEY (collection_id, file_id)
);
CREATE INDEX collection_files_file_id ON collection_files (file_id);

CREATE TRIGGER collection_files_notify_change
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON collection_files
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

DROP TRIGGER files_update_notify_change ON files;

CREATE TRIGGER files_update_notify_change
    AFTER UPDATE OF id, account_id, name, size, content_type, blob_key, slug, created_at,
        expires_at, max_downloads, link_downloads, remove_when_ended, password_hash, reveal, kind ON files
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

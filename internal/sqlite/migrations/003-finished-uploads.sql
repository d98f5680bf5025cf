-- 003: the resumable uploads that became files, so that a client that
-- missed the answer to an upload's last request can still be told which
-- file it made (instead of starting the upload again).
CREATE TABLE finished_uploads (
    upload_id   TEXT    PRIMARY KEY,
    file_id     TEXT    NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    finished_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Old records are forgotten from time to time.
CREATE INDEX finished_uploads_finished_at ON finished_uploads (finished_at);
-- Deleting a file deletes its record (the foreign key looks it up).
CREATE INDEX finished_uploads_file_id ON finished_uploads (file_id);

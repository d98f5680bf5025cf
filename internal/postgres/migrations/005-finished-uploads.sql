-- 005: the resumable uploads that became files, so that a client that
-- missed the answer to an upload's last request can still be told which
-- file it made (instead of starting the upload again), on any instance.
CREATE TABLE finished_uploads (
    upload_id   text        PRIMARY KEY,
    file_id     text        NOT NULL,
    finished_at timestamptz NOT NULL,
    CONSTRAINT finished_uploads_file_id_fkey FOREIGN KEY (file_id) REFERENCES files (id) ON DELETE CASCADE
);

-- Old records are forgotten from time to time.
CREATE INDEX finished_uploads_finished_at ON finished_uploads (finished_at);
-- Deleting a file deletes its record (the foreign key looks it up).
CREATE INDEX finished_uploads_file_id ON finished_uploads (file_id);

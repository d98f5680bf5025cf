-- 007: link controls (issue 12): when a file's link ends, how many
-- complete downloads it allows (counted as they finish, in
-- link_downloads), its password, and whether the file is removed once
-- the link has ended. download_claims are the downloads running against a
-- limit; gone_links the slugs of removed files whose links ended, which
-- answer 410.
ALTER TABLE files ADD COLUMN expires_at INTEGER;
ALTER TABLE files ADD COLUMN max_downloads INTEGER NOT NULL DEFAULT 0 CHECK (max_downloads >= 0);
ALTER TABLE files ADD COLUMN link_downloads INTEGER NOT NULL DEFAULT 0 CHECK (link_downloads >= 0);
ALTER TABLE files ADD COLUMN remove_when_ended INTEGER NOT NULL DEFAULT 0 CHECK (remove_when_ended IN (0, 1));
ALTER TABLE files ADD COLUMN password_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN reveal TEXT NOT NULL DEFAULT '' CHECK (reveal IN ('', 'name'));

-- The collector's search for ended links to remove.
CREATE INDEX files_ended_by_time ON files (expires_at) WHERE expires_at IS NOT NULL AND remove_when_ended = 1;
CREATE INDEX files_ended_by_count ON files (id) WHERE max_downloads > 0 AND link_downloads >= max_downloads AND remove_when_ended = 1;

CREATE TABLE download_claims (
    id         TEXT    PRIMARY KEY,
    file_id    TEXT    NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX download_claims_file_id ON download_claims (file_id, expires_at);

CREATE TABLE gone_links (
    slug    TEXT    PRIMARY KEY,
    reason  TEXT    NOT NULL CHECK (reason IN ('expired', 'used_up')),
    gone_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

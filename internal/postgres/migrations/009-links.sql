-- 009: link controls, the twin of internal/sqlite's 007-links.sql: when a
-- file's link ends, how many complete downloads it allows (counted as they
-- finish, in link_downloads), its password, and whether the file is
-- removed once the link has ended; the downloads running against a limit;
-- and the slugs of removed files whose links ended, which answer 410.
ALTER TABLE files
    ADD COLUMN expires_at timestamptz,
    ADD COLUMN max_downloads bigint NOT NULL DEFAULT 0,
    ADD COLUMN link_downloads bigint NOT NULL DEFAULT 0,
    ADD COLUMN remove_when_ended boolean NOT NULL DEFAULT false,
    ADD COLUMN password_hash text NOT NULL DEFAULT '',
    ADD COLUMN reveal text NOT NULL DEFAULT '',
    ADD CONSTRAINT files_link_check CHECK (max_downloads >= 0 AND link_downloads >= 0 AND reveal IN ('', 'name'));

CREATE INDEX files_ended_by_time ON files (expires_at) WHERE expires_at IS NOT NULL AND remove_when_ended;
CREATE INDEX files_ended_by_count ON files (id) WHERE max_downloads > 0 AND link_downloads >= max_downloads AND remove_when_ended;

CREATE TABLE download_claims (
    id         text        NOT NULL,
    file_id    text        NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    CONSTRAINT download_claims_pkey PRIMARY KEY (id)
);
CREATE INDEX download_claims_file_id ON download_claims (file_id, expires_at);

CREATE TABLE gone_links (
    slug    text        NOT NULL,
    reason  text        NOT NULL CHECK (reason IN ('expired', 'used_up')),
    gone_at timestamptz NOT NULL,
    CONSTRAINT gone_links_pkey PRIMARY KEY (slug)
);

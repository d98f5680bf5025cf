-- 011: zero egress (issue 16), the twin of internal/sqlite's
-- 008-page-assets.sql: the remote resources each page revision names, what
-- Fileframe keeps of them, and the HTML a revision is served as when it
-- differs from what was posted. A change to either changes what visitors
-- see, so both notify like pages.
CREATE TABLE page_assets (
    file_id    text        NOT NULL,
    number     integer     NOT NULL,
    position   integer     NOT NULL,
    url        text        NOT NULL,
    kind       text        NOT NULL,
    sha256     text        NOT NULL DEFAULT '',
    type       text        NOT NULL DEFAULT '',
    ext        text        NOT NULL DEFAULT '',
    size       bigint      NOT NULL DEFAULT 0,
    problem    text        NOT NULL DEFAULT '',
    fetched_at timestamptz NOT NULL,
    CONSTRAINT page_assets_pkey PRIMARY KEY (file_id, number, position),
    CONSTRAINT page_assets_revision_fkey FOREIGN KEY (file_id, number) REFERENCES page_revisions (file_id, number) ON DELETE CASCADE,
    CONSTRAINT page_assets_check CHECK (position >= 0 AND size >= 0 AND kind IN ('image', 'font', 'media', 'track'))
);

CREATE INDEX page_assets_sha256 ON page_assets (sha256) WHERE sha256 <> '';

CREATE TABLE page_served (
    file_id text    NOT NULL,
    number  integer NOT NULL,
    sha256  text    NOT NULL,
    html    bytea   NOT NULL,
    CONSTRAINT page_served_pkey PRIMARY KEY (file_id, number),
    CONSTRAINT page_served_revision_fkey FOREIGN KEY (file_id, number) REFERENCES page_revisions (file_id, number) ON DELETE CASCADE
);

CREATE TRIGGER page_assets_notify_change
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON page_assets
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

CREATE TRIGGER page_served_notify_change
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON page_served
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

-- 016: statistics and A/B tests of pages (issue 14), the twin of
-- internal/sqlite's 013-stats.sql (whose comment says what each table
-- holds): the report's SQL is shared by both stores (internal/statsql), so
-- columns keep the same names and the day and hour columns are unix
-- seconds here too. The statistics tables are not in the change
-- notification (nothing in them changes what a visitor sees); page_tests
-- is: a test starting or ending changes the page each visitor gets.
CREATE TABLE stat_hours (
    file_id   text   NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    hour      bigint NOT NULL,
    variant   text   NOT NULL,
    test_id   text   NOT NULL DEFAULT '',
    views     bigint NOT NULL DEFAULT 0,
    clicks    bigint NOT NULL DEFAULT 0,
    downloads bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (file_id, hour, variant, test_id)
);
CREATE INDEX stat_hours_hour ON stat_hours (hour);

CREATE TABLE stat_days (
    file_id   text   NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    day       bigint NOT NULL,
    variant   text   NOT NULL,
    test_id   text   NOT NULL DEFAULT '',
    views     bigint NOT NULL DEFAULT 0,
    clicks    bigint NOT NULL DEFAULT 0,
    downloads bigint NOT NULL DEFAULT 0,
    visitors  bigint NOT NULL DEFAULT 0,
    converted bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (file_id, day, variant, test_id)
);
CREATE INDEX stat_days_day ON stat_days (day);

CREATE TABLE stat_sources (
    file_id   text   NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    day       bigint NOT NULL,
    dim       text   NOT NULL,
    value     text   NOT NULL,
    views     bigint NOT NULL DEFAULT 0,
    clicks    bigint NOT NULL DEFAULT 0,
    downloads bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (file_id, day, dim, value)
);
CREATE INDEX stat_sources_day ON stat_sources (day);

CREATE TABLE stat_visitors (
    file_id text   NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    day     bigint NOT NULL,
    variant text   NOT NULL,
    test_id text   NOT NULL DEFAULT '',
    visitor bigint NOT NULL,
    events  integer NOT NULL,
    PRIMARY KEY (file_id, day, variant, test_id, visitor)
);
CREATE INDEX stat_visitors_day ON stat_visitors (day);

CREATE TABLE stat_salts (
    day  bigint PRIMARY KEY,
    salt bytea  NOT NULL
);
CREATE TABLE stat_rollup (
    id     integer PRIMARY KEY CHECK (id = 1),
    before bigint  NOT NULL
);

CREATE TABLE page_tests (
    id          text        PRIMARY KEY,
    file_id     text        NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    account_id  text        NOT NULL,
    revisions   text        NOT NULL,
    secret      bytea       NOT NULL,
    started_at  timestamptz NOT NULL,
    ended_at    timestamptz,
    promoted    integer     NOT NULL DEFAULT 0
);
CREATE INDEX page_tests_file_id ON page_tests (file_id, started_at);
CREATE UNIQUE INDEX page_tests_running ON page_tests (file_id) WHERE ended_at IS NULL;

CREATE TRIGGER page_tests_notify_change
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON page_tests
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

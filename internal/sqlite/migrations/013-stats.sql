-- 013: statistics and A/B tests of pages (issue 14). stat_hours and
-- stat_days are counts per file, hour or day (unix seconds of its start,
-- UTC), variant ('page:N', 'template:NAME', 'default') and test ('' outside
-- one); stat_days also holds the day's unique visitors and converters,
-- added by the rollup from stat_visitors. stat_sources are a day's counts
-- per source dimension and value. stat_visitors holds, until its day is
-- rolled up, a 64-bit salted hash per visitor with the events it had (bits:
-- 1 view, 2 click, 4 download); stat_salts holds each day's salt until the
-- same rollup deletes it; stat_rollup says which days it passed. Rows go
-- with their file.
CREATE TABLE stat_hours (
    file_id   TEXT    NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    hour      INTEGER NOT NULL,
    variant   TEXT    NOT NULL,
    test_id   TEXT    NOT NULL DEFAULT '',
    views     INTEGER NOT NULL DEFAULT 0,
    clicks    INTEGER NOT NULL DEFAULT 0,
    downloads INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (file_id, hour, variant, test_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX stat_hours_hour ON stat_hours (hour);

CREATE TABLE stat_days (
    file_id   TEXT    NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    day       INTEGER NOT NULL,
    variant   TEXT    NOT NULL,
    test_id   TEXT    NOT NULL DEFAULT '',
    views     INTEGER NOT NULL DEFAULT 0,
    clicks    INTEGER NOT NULL DEFAULT 0,
    downloads INTEGER NOT NULL DEFAULT 0,
    visitors  INTEGER NOT NULL DEFAULT 0,
    converted INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (file_id, day, variant, test_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX stat_days_day ON stat_days (day);

CREATE TABLE stat_sources (
    file_id   TEXT    NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    day       INTEGER NOT NULL,
    dim       TEXT    NOT NULL,
    value     TEXT    NOT NULL,
    views     INTEGER NOT NULL DEFAULT 0,
    clicks    INTEGER NOT NULL DEFAULT 0,
    downloads INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (file_id, day, dim, value)
) STRICT, WITHOUT ROWID;
CREATE INDEX stat_sources_day ON stat_sources (day);

CREATE TABLE stat_visitors (
    file_id TEXT    NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    day     INTEGER NOT NULL,
    variant TEXT    NOT NULL,
    test_id TEXT    NOT NULL DEFAULT '',
    visitor INTEGER NOT NULL,
    events  INTEGER NOT NULL,
    PRIMARY KEY (file_id, day, variant, test_id, visitor)
) STRICT, WITHOUT ROWID;
CREATE INDEX stat_visitors_day ON stat_visitors (day);

CREATE TABLE stat_salts (
    day  INTEGER PRIMARY KEY,
    salt BLOB    NOT NULL
) STRICT;
-- The first day not rolled up yet: no salt is made for a day before it
-- (no row: none rolled up).
CREATE TABLE stat_rollup (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    before INTEGER NOT NULL
) STRICT;

CREATE TABLE page_tests (
    id          TEXT    PRIMARY KEY,
    file_id     TEXT    NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    account_id  TEXT    NOT NULL,
    revisions   TEXT    NOT NULL, -- the revision numbers, comma-separated
    secret      BLOB    NOT NULL,
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER,
    promoted    INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX page_tests_file_id ON page_tests (file_id, started_at);
CREATE UNIQUE INDEX page_tests_running ON page_tests (file_id) WHERE ended_at IS NULL;

-- 015: a counter of the commits that can change what visitors see, so that
-- ChangeWatcher (change.go) empties the public cache (internal/web,
-- public_cache.go) only for those. Before, it saw every commit of every
-- connection, so download counts (flushed about every second), statistics
-- (every 5 s), sessions and webhook deliveries emptied the cache of every
-- link as often as they were written.
--
-- The triggers cover the same tables and columns as PostgreSQL's change
-- notifications (its migrations 003, 004, 010, 011, 013, 014, 016 and 018),
-- which the cache has relied on since the scale-out mode: accounts; files
-- but for their download counts and link_ended_at; pages; revisions
-- changed or deleted in place; api_keys but for their last-used times;
-- both appearances; page assets and served copies; collections' files;
-- page tests. A table or column that starts to show on a public path must
-- join both lists (TestPublicChangesMatchPostgres compares them).
--
-- They are in the database, not in the Go code, so that every writer fires
-- them: this process, the admin CLI, another version of the binary, or an
-- operator's sqlite3 shell.
CREATE TABLE public_changes (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
) STRICT;
INSERT INTO public_changes (id, n) VALUES (1, 0);

CREATE TRIGGER accounts_public_insert AFTER INSERT ON accounts
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER accounts_public_update AFTER UPDATE ON accounts
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER accounts_public_delete AFTER DELETE ON accounts
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER files_public_insert AFTER INSERT ON files
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER files_public_update AFTER UPDATE OF id, account_id, name, size, content_type, blob_key, slug, created_at,
    expires_at, max_downloads, link_downloads, remove_when_ended, password_hash, reveal, kind, shared ON files
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER files_public_delete AFTER DELETE ON files
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER pages_public_insert AFTER INSERT ON pages
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER pages_public_update AFTER UPDATE ON pages
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER pages_public_delete AFTER DELETE ON pages
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER api_keys_public_insert AFTER INSERT ON api_keys
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER api_keys_public_update AFTER UPDATE OF id, account_id, kind, file_id, name, prefix, hash, created_at,
    expires_at, revoked_at ON api_keys
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER api_keys_public_delete AFTER DELETE ON api_keys
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER account_appearances_public_insert AFTER INSERT ON account_appearances
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER account_appearances_public_update AFTER UPDATE ON account_appearances
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER account_appearances_public_delete AFTER DELETE ON account_appearances
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER file_appearances_public_insert AFTER INSERT ON file_appearances
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER file_appearances_public_update AFTER UPDATE ON file_appearances
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER file_appearances_public_delete AFTER DELETE ON file_appearances
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

-- A revision changed or deleted in place (by an operator's SQL: the
-- service only prunes revisions that show nowhere); a new one shows only
-- once pages names it.
CREATE TRIGGER page_revisions_public_update AFTER UPDATE ON page_revisions
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER page_revisions_public_delete AFTER DELETE ON page_revisions
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER page_assets_public_insert AFTER INSERT ON page_assets
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER page_assets_public_update AFTER UPDATE ON page_assets
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER page_assets_public_delete AFTER DELETE ON page_assets
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER page_served_public_insert AFTER INSERT ON page_served
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER page_served_public_update AFTER UPDATE ON page_served
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER page_served_public_delete AFTER DELETE ON page_served
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER collection_files_public_insert AFTER INSERT ON collection_files
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER collection_files_public_update AFTER UPDATE ON collection_files
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER collection_files_public_delete AFTER DELETE ON collection_files
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER page_tests_public_insert AFTER INSERT ON page_tests
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER page_tests_public_update AFTER UPDATE ON page_tests
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER page_tests_public_delete AFTER DELETE ON page_tests
BEGIN UPDATE public_changes SET n = n + 1 WHERE id = 1; END;

-- 003: notify every committed change that can affect what visitors see on
-- the channel fileframe_changes, so that each instance's cache of public
-- records (internal/web, public_cache.go) is dropped at once (ChangeWatcher
-- in change.go). A notification is delivered when its transaction commits,
-- and the notifications of one transaction with the same payload are
-- delivered once, so the triggers are per statement.
--
-- Download counts (files.downloads) and key last-used times
-- (api_keys.last_used_at) are left out: they change all the time and show
-- nowhere a cache reaches.

CREATE FUNCTION fileframe_notify_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('fileframe_changes', TG_TABLE_NAME);
    RETURN NULL;
END
$$;

CREATE TRIGGER accounts_notify_change
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

CREATE TRIGGER files_notify_change
    AFTER INSERT OR DELETE OR TRUNCATE ON files
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

CREATE TRIGGER files_update_notify_change
    AFTER UPDATE OF id, account_id, name, size, content_type, blob_key, slug, created_at ON files
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

CREATE TRIGGER pages_notify_change
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON pages
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

CREATE TRIGGER api_keys_notify_change
    AFTER INSERT OR DELETE OR TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

CREATE TRIGGER api_keys_update_notify_change
    AFTER UPDATE OF id, account_id, kind, file_id, name, prefix, hash, created_at, expires_at, revoked_at ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

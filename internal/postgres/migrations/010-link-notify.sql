-- 010: the link controls of 009 change what visitors see (a link that
-- expires or is used up answers 410, a password hides the page), so their
-- columns join the list of files' columns whose updates notify every
-- instance's public cache (003). link_downloads among them: a download
-- that finishes on one instance uses up the link on all. Downloads of
-- links without a limit never write it, so it changes only as counted
-- downloads finish. Claims (download_claims) show nowhere a cache reaches.
DROP TRIGGER files_update_notify_change ON files;

CREATE TRIGGER files_update_notify_change
    AFTER UPDATE OF id, account_id, name, size, content_type, blob_key, slug, created_at,
        expires_at, max_downloads, link_downloads, remove_when_ended, password_hash, reveal ON files
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();

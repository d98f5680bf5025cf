-- 017: each account's usage, kept up to date by triggers (issue 15, "How
-- cost grows"), the twin of SQLite's 014-account-usage.sql. Reading it
-- summed every row of the account's files, appearances and page assets on
-- every upload; now it reads one row (and sums the account's unexpired
-- reservations, which are few).
--
-- account_usage has a row per account: the bytes and number of its files of
-- kind 'file', the bytes of its appearances' images (account's and files';
-- -1, not measured yet, counts 0) and the bytes of the distinct kept page
-- assets of its files. page_asset_refs counts, per account and kept asset
-- (sha256 and size, as the sum counted them), the page_assets rows that
-- name it, so that an asset counts once however many revisions keep it.
--
-- The account's account_usage row is also what serialises the checks of
-- its quota (lockUsage locks it): every trigger below writes it, so a
-- transaction that changes the usage holds it until commit. The page
-- assets' trigger locks it before the asset's page_asset_refs row, in the
-- order lockUsage and then the write take them.
--
-- The triggers cover every write: a deleted file first deletes its
-- appearance and its page assets, while its row still says whose they
-- were, so the ON DELETE CASCADE that follows finds nothing left. A file
-- never changes account: that is refused rather than moved.
CREATE TABLE account_usage (
    account_id       text   NOT NULL,
    file_bytes       bigint NOT NULL DEFAULT 0,
    file_count       bigint NOT NULL DEFAULT 0,
    appearance_bytes bigint NOT NULL DEFAULT 0,
    asset_bytes      bigint NOT NULL DEFAULT 0,
    CONSTRAINT account_usage_pkey PRIMARY KEY (account_id),
    CONSTRAINT account_usage_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
);

CREATE TABLE page_asset_refs (
    account_id text   NOT NULL,
    sha256     text   NOT NULL,
    size       bigint NOT NULL,
    refs       bigint NOT NULL,
    CONSTRAINT page_asset_refs_pkey PRIMARY KEY (account_id, sha256, size),
    CONSTRAINT page_asset_refs_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE,
    CONSTRAINT page_asset_refs_refs_check CHECK (refs >= 0)
);

INSERT INTO page_asset_refs (account_id, sha256, size, refs)
SELECT f.account_id, p.sha256, p.size, count(*)
FROM page_assets p JOIN files f ON f.id = p.file_id
WHERE p.sha256 <> ''
GROUP BY f.account_id, p.sha256, p.size;

INSERT INTO account_usage (account_id, file_bytes, file_count, appearance_bytes, asset_bytes)
SELECT a.id, coalesce(f.bytes, 0), coalesce(f.n, 0), coalesce(aa.bytes, 0) + coalesce(fa.bytes, 0), coalesce(r.bytes, 0)
FROM accounts a
LEFT JOIN (SELECT account_id, sum(size) AS bytes, count(*) AS n FROM files WHERE kind = 'file' GROUP BY account_id) f
    ON f.account_id = a.id
LEFT JOIN (SELECT account_id, sum(greatest(logo_bytes, 0) + greatest(background_bytes, 0)) AS bytes
           FROM account_appearances GROUP BY account_id) aa
    ON aa.account_id = a.id
LEFT JOIN (SELECT f.account_id, sum(greatest(x.logo_bytes, 0) + greatest(x.background_bytes, 0)) AS bytes
           FROM file_appearances x JOIN files f ON f.id = x.file_id GROUP BY f.account_id) fa
    ON fa.account_id = a.id
LEFT JOIN (SELECT account_id, sum(size) AS bytes FROM page_asset_refs GROUP BY account_id) r
    ON r.account_id = a.id;

CREATE FUNCTION fileframe_usage_account() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO account_usage (account_id) VALUES (NEW.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER accounts_usage
    AFTER INSERT ON accounts
    FOR EACH ROW EXECUTE FUNCTION fileframe_usage_account();

-- Files.

CREATE FUNCTION fileframe_usage_files() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.kind = 'file' THEN
        UPDATE account_usage SET file_bytes = file_bytes - OLD.size, file_count = file_count - 1
        WHERE account_id = OLD.account_id;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.kind = 'file' THEN
        UPDATE account_usage SET file_bytes = file_bytes + NEW.size, file_count = file_count + 1
        WHERE account_id = NEW.account_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER files_usage_insert
    AFTER INSERT ON files
    FOR EACH ROW WHEN (NEW.kind = 'file') EXECUTE FUNCTION fileframe_usage_files();

CREATE TRIGGER files_usage_update
    AFTER UPDATE OF size, kind ON files
    FOR EACH ROW WHEN ((OLD.kind = 'file' OR NEW.kind = 'file') AND (OLD.size <> NEW.size OR OLD.kind <> NEW.kind))
    EXECUTE FUNCTION fileframe_usage_files();

CREATE TRIGGER files_usage_delete
    AFTER DELETE ON files
    FOR EACH ROW WHEN (OLD.kind = 'file') EXECUTE FUNCTION fileframe_usage_files();

CREATE FUNCTION fileframe_usage_file_account() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a file cannot change account (account_usage)';
END
$$;

CREATE TRIGGER files_usage_account
    BEFORE UPDATE OF account_id ON files
    FOR EACH ROW WHEN (OLD.account_id <> NEW.account_id) EXECUTE FUNCTION fileframe_usage_file_account();

CREATE FUNCTION fileframe_usage_file_children() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM file_appearances WHERE file_id = OLD.id;
    DELETE FROM page_assets WHERE file_id = OLD.id;
    RETURN OLD;
END
$$;

CREATE TRIGGER files_usage_delete_children
    BEFORE DELETE ON files
    FOR EACH ROW EXECUTE FUNCTION fileframe_usage_file_children();

-- Appearances.

CREATE FUNCTION fileframe_usage_account_appearances() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE account_usage SET appearance_bytes = appearance_bytes - greatest(OLD.logo_bytes, 0) - greatest(OLD.background_bytes, 0)
        WHERE account_id = OLD.account_id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        UPDATE account_usage SET appearance_bytes = appearance_bytes + greatest(NEW.logo_bytes, 0) + greatest(NEW.background_bytes, 0)
        WHERE account_id = NEW.account_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER account_appearances_usage
    AFTER INSERT OR UPDATE OR DELETE ON account_appearances
    FOR EACH ROW EXECUTE FUNCTION fileframe_usage_account_appearances();

CREATE FUNCTION fileframe_usage_file_appearances() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE account_usage SET appearance_bytes = appearance_bytes - greatest(OLD.logo_bytes, 0) - greatest(OLD.background_bytes, 0)
        WHERE account_id = (SELECT account_id FROM files WHERE id = OLD.file_id);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        UPDATE account_usage SET appearance_bytes = appearance_bytes + greatest(NEW.logo_bytes, 0) + greatest(NEW.background_bytes, 0)
        WHERE account_id = (SELECT account_id FROM files WHERE id = NEW.file_id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER file_appearances_usage
    AFTER INSERT OR UPDATE OR DELETE ON file_appearances
    FOR EACH ROW EXECUTE FUNCTION fileframe_usage_file_appearances();

-- Page assets: the first row to name an asset adds its size, the last to
-- go takes it away.

CREATE FUNCTION fileframe_usage_page_assets() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    acct text;
    n bigint;
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.sha256 <> '' THEN
        SELECT account_id INTO acct FROM files WHERE id = OLD.file_id;
        PERFORM 1 FROM account_usage WHERE account_id = acct FOR UPDATE;
        UPDATE page_asset_refs SET refs = refs - 1
        WHERE account_id = acct AND sha256 = OLD.sha256 AND size = OLD.size
        RETURNING refs INTO n;
        IF n = 0 THEN
            DELETE FROM page_asset_refs WHERE account_id = acct AND sha256 = OLD.sha256 AND size = OLD.size;
            UPDATE account_usage SET asset_bytes = asset_bytes - OLD.size WHERE account_id = acct;
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.sha256 <> '' THEN
        SELECT account_id INTO acct FROM files WHERE id = NEW.file_id;
        PERFORM 1 FROM account_usage WHERE account_id = acct FOR UPDATE;
        INSERT INTO page_asset_refs AS r (account_id, sha256, size, refs) VALUES (acct, NEW.sha256, NEW.size, 1)
        ON CONFLICT (account_id, sha256, size) DO UPDATE SET refs = r.refs + 1
        RETURNING refs INTO n;
        IF n = 1 THEN
            UPDATE account_usage SET asset_bytes = asset_bytes + NEW.size WHERE account_id = acct;
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER page_assets_usage
    AFTER INSERT OR UPDATE OF file_id, sha256, size OR DELETE ON page_assets
    FOR EACH ROW EXECUTE FUNCTION fileframe_usage_page_assets();

-- 014: each account's usage, kept up to date by triggers (issue 15, "How
-- cost grows"). Reading it summed every row of the account's files,
-- appearances and page assets, in the writer, on every upload; now it reads
-- one row (and sums the account's unexpired reservations, which are few).
--
-- account_usage has a row per account: the bytes and number of its files of
-- kind 'file', the bytes of its appearances' images (account's and files';
-- -1, not measured yet, counts 0) and the bytes of the distinct kept page
-- assets of its files. page_asset_refs counts, per account and kept asset
-- (sha256 and size, as the sum counted them), the page_assets rows that
-- name it, so that an asset counts once however many revisions keep it.
--
-- The triggers cover every write: a deleted file first deletes its
-- appearance and its page assets, while its row still says whose they
-- were, so the ON DELETE CASCADE that follows finds nothing left. A file
-- never changes account: that is refused rather than moved.
CREATE TABLE account_usage (
    account_id       TEXT    PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    file_bytes       INTEGER NOT NULL DEFAULT 0,
    file_count       INTEGER NOT NULL DEFAULT 0,
    appearance_bytes INTEGER NOT NULL DEFAULT 0,
    asset_bytes      INTEGER NOT NULL DEFAULT 0
) STRICT, WITHOUT ROWID;

CREATE TABLE page_asset_refs (
    account_id TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    sha256     TEXT    NOT NULL,
    size       INTEGER NOT NULL,
    refs       INTEGER NOT NULL CHECK (refs > 0),
    PRIMARY KEY (account_id, sha256, size)
) STRICT, WITHOUT ROWID;

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
LEFT JOIN (SELECT account_id, sum(max(logo_bytes, 0) + max(background_bytes, 0)) AS bytes FROM account_appearances GROUP BY account_id) aa
    ON aa.account_id = a.id
LEFT JOIN (SELECT f.account_id, sum(max(x.logo_bytes, 0) + max(x.background_bytes, 0)) AS bytes
           FROM file_appearances x JOIN files f ON f.id = x.file_id GROUP BY f.account_id) fa
    ON fa.account_id = a.id
LEFT JOIN (SELECT account_id, sum(size) AS bytes FROM page_asset_refs GROUP BY account_id) r
    ON r.account_id = a.id;

CREATE TRIGGER accounts_usage_insert AFTER INSERT ON accounts BEGIN
    INSERT INTO account_usage (account_id) VALUES (NEW.id);
END;

-- Files.

CREATE TRIGGER files_usage_insert AFTER INSERT ON files WHEN NEW.kind = 'file' BEGIN
    UPDATE account_usage SET file_bytes = file_bytes + NEW.size, file_count = file_count + 1
    WHERE account_id = NEW.account_id;
END;

CREATE TRIGGER files_usage_update AFTER UPDATE OF size, kind ON files
WHEN (OLD.kind = 'file' OR NEW.kind = 'file') AND (OLD.size <> NEW.size OR OLD.kind <> NEW.kind) BEGIN
    UPDATE account_usage SET
        file_bytes = file_bytes + iif(NEW.kind = 'file', NEW.size, 0) - iif(OLD.kind = 'file', OLD.size, 0),
        file_count = file_count + (NEW.kind = 'file') - (OLD.kind = 'file')
    WHERE account_id = NEW.account_id;
END;

CREATE TRIGGER files_usage_account BEFORE UPDATE OF account_id ON files
WHEN OLD.account_id <> NEW.account_id BEGIN
    SELECT RAISE(ABORT, 'a file cannot change account (account_usage)');
END;

CREATE TRIGGER files_usage_delete_children BEFORE DELETE ON files BEGIN
    DELETE FROM file_appearances WHERE file_id = OLD.id;
    DELETE FROM page_assets WHERE file_id = OLD.id;
END;

CREATE TRIGGER files_usage_delete AFTER DELETE ON files WHEN OLD.kind = 'file' BEGIN
    UPDATE account_usage SET file_bytes = file_bytes - OLD.size, file_count = file_count - 1
    WHERE account_id = OLD.account_id;
END;

-- Appearances.

CREATE TRIGGER account_appearances_usage_insert AFTER INSERT ON account_appearances BEGIN
    UPDATE account_usage SET appearance_bytes = appearance_bytes + max(NEW.logo_bytes, 0) + max(NEW.background_bytes, 0)
    WHERE account_id = NEW.account_id;
END;

CREATE TRIGGER account_appearances_usage_update AFTER UPDATE ON account_appearances BEGIN
    UPDATE account_usage SET appearance_bytes = appearance_bytes - max(OLD.logo_bytes, 0) - max(OLD.background_bytes, 0)
    WHERE account_id = OLD.account_id;
    UPDATE account_usage SET appearance_bytes = appearance_bytes + max(NEW.logo_bytes, 0) + max(NEW.background_bytes, 0)
    WHERE account_id = NEW.account_id;
END;

CREATE TRIGGER account_appearances_usage_delete AFTER DELETE ON account_appearances BEGIN
    UPDATE account_usage SET appearance_bytes = appearance_bytes - max(OLD.logo_bytes, 0) - max(OLD.background_bytes, 0)
    WHERE account_id = OLD.account_id;
END;

CREATE TRIGGER file_appearances_usage_insert AFTER INSERT ON file_appearances BEGIN
    UPDATE account_usage SET appearance_bytes = appearance_bytes + max(NEW.logo_bytes, 0) + max(NEW.background_bytes, 0)
    WHERE account_id = (SELECT account_id FROM files WHERE id = NEW.file_id);
END;

CREATE TRIGGER file_appearances_usage_update AFTER UPDATE ON file_appearances BEGIN
    UPDATE account_usage SET appearance_bytes = appearance_bytes - max(OLD.logo_bytes, 0) - max(OLD.background_bytes, 0)
    WHERE account_id = (SELECT account_id FROM files WHERE id = OLD.file_id);
    UPDATE account_usage SET appearance_bytes = appearance_bytes + max(NEW.logo_bytes, 0) + max(NEW.background_bytes, 0)
    WHERE account_id = (SELECT account_id FROM files WHERE id = NEW.file_id);
END;

CREATE TRIGGER file_appearances_usage_delete AFTER DELETE ON file_appearances BEGIN
    UPDATE account_usage SET appearance_bytes = appearance_bytes - max(OLD.logo_bytes, 0) - max(OLD.background_bytes, 0)
    WHERE account_id = (SELECT account_id FROM files WHERE id = OLD.file_id);
END;

-- Page assets: the first row to name an asset adds its size, the last to
-- go takes it away.

CREATE TRIGGER page_assets_usage_insert AFTER INSERT ON page_assets WHEN NEW.sha256 <> '' BEGIN
    UPDATE account_usage SET asset_bytes = asset_bytes + NEW.size
    WHERE account_id = (SELECT account_id FROM files WHERE id = NEW.file_id)
      AND NOT EXISTS (SELECT 1 FROM page_asset_refs r
                      WHERE r.account_id = account_usage.account_id AND r.sha256 = NEW.sha256 AND r.size = NEW.size);
    INSERT INTO page_asset_refs (account_id, sha256, size, refs)
    SELECT account_id, NEW.sha256, NEW.size, 1 FROM files WHERE id = NEW.file_id
    ON CONFLICT (account_id, sha256, size) DO UPDATE SET refs = refs + 1;
END;

CREATE TRIGGER page_assets_usage_delete AFTER DELETE ON page_assets WHEN OLD.sha256 <> '' BEGIN
    UPDATE account_usage SET asset_bytes = asset_bytes - OLD.size
    WHERE account_id = (SELECT account_id FROM files WHERE id = OLD.file_id)
      AND EXISTS (SELECT 1 FROM page_asset_refs r
                  WHERE r.account_id = account_usage.account_id AND r.sha256 = OLD.sha256 AND r.size = OLD.size
                    AND r.refs = 1);
    DELETE FROM page_asset_refs
    WHERE account_id = (SELECT account_id FROM files WHERE id = OLD.file_id) AND sha256 = OLD.sha256 AND size = OLD.size
      AND refs = 1;
    UPDATE page_asset_refs SET refs = refs - 1
    WHERE account_id = (SELECT account_id FROM files WHERE id = OLD.file_id) AND sha256 = OLD.sha256 AND size = OLD.size;
END;

-- Nothing updates page assets in place; were it done, it would count as
-- the old row's removal and the new one's insertion.
CREATE TRIGGER page_assets_usage_update AFTER UPDATE OF file_id, sha256, size ON page_assets BEGIN
    UPDATE account_usage SET asset_bytes = asset_bytes - OLD.size
    WHERE OLD.sha256 <> '' AND account_id = (SELECT account_id FROM files WHERE id = OLD.file_id)
      AND EXISTS (SELECT 1 FROM page_asset_refs r
                  WHERE r.account_id = account_usage.account_id AND r.sha256 = OLD.sha256 AND r.size = OLD.size
                    AND r.refs = 1);
    DELETE FROM page_asset_refs
    WHERE OLD.sha256 <> '' AND account_id = (SELECT account_id FROM files WHERE id = OLD.file_id)
      AND sha256 = OLD.sha256 AND size = OLD.size AND refs = 1;
    UPDATE page_asset_refs SET refs = refs - 1
    WHERE OLD.sha256 <> '' AND account_id = (SELECT account_id FROM files WHERE id = OLD.file_id)
      AND sha256 = OLD.sha256 AND size = OLD.size;
    UPDATE account_usage SET asset_bytes = asset_bytes + NEW.size
    WHERE NEW.sha256 <> '' AND account_id = (SELECT account_id FROM files WHERE id = NEW.file_id)
      AND NOT EXISTS (SELECT 1 FROM page_asset_refs r
                      WHERE r.account_id = account_usage.account_id AND r.sha256 = NEW.sha256 AND r.size = NEW.size);
    INSERT INTO page_asset_refs (account_id, sha256, size, refs)
    SELECT account_id, NEW.sha256, NEW.size, 1 FROM files WHERE NEW.sha256 <> '' AND id = NEW.file_id
    ON CONFLICT (account_id, sha256, size) DO UPDATE SET refs = refs + 1;
END;

-- 005: the sizes of appearance images, which count in the account's
-- storage quota beside its files. Images stored before this migration
-- are -1, "not measured yet": serve measures them in the blob store at
-- start (Store.UnmeasuredImages, SetImageBytes); until then they count 0.
ALTER TABLE account_appearances ADD COLUMN logo_bytes INTEGER NOT NULL DEFAULT 0 CHECK (logo_bytes >= -1);
ALTER TABLE account_appearances ADD COLUMN background_bytes INTEGER NOT NULL DEFAULT 0 CHECK (background_bytes >= -1);
ALTER TABLE file_appearances ADD COLUMN logo_bytes INTEGER NOT NULL DEFAULT 0 CHECK (logo_bytes >= -1);
ALTER TABLE file_appearances ADD COLUMN background_bytes INTEGER NOT NULL DEFAULT 0 CHECK (background_bytes >= -1);
UPDATE account_appearances SET logo_bytes = -1 WHERE logo_key <> '';
UPDATE account_appearances SET background_bytes = -1 WHERE background <> '';
UPDATE file_appearances SET logo_bytes = -1 WHERE logo_key <> '';
UPDATE file_appearances SET background_bytes = -1 WHERE background <> '';

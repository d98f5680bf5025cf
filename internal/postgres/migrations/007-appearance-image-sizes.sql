-- 007: the sizes of appearance images, the twin of internal/sqlite's
-- 005-appearance-image-sizes.sql: they count in the account's storage
-- quota; images stored before are -1 until serve measures them.
ALTER TABLE account_appearances
    ADD COLUMN logo_bytes bigint NOT NULL DEFAULT 0,
    ADD COLUMN background_bytes bigint NOT NULL DEFAULT 0,
    ADD CONSTRAINT account_appearances_bytes_check CHECK (logo_bytes >= -1 AND background_bytes >= -1);
ALTER TABLE file_appearances
    ADD COLUMN logo_bytes bigint NOT NULL DEFAULT 0,
    ADD COLUMN background_bytes bigint NOT NULL DEFAULT 0,
    ADD CONSTRAINT file_appearances_bytes_check CHECK (logo_bytes >= -1 AND background_bytes >= -1);
UPDATE account_appearances SET logo_bytes = -1 WHERE logo_key <> '';
UPDATE account_appearances SET background_bytes = -1 WHERE background <> '';
UPDATE file_appearances SET logo_bytes = -1 WHERE logo_key <> '';
UPDATE file_appearances SET background_bytes = -1 WHERE background <> '';

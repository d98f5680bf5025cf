-- 004: storage that uploads hold against their account's quota while their
-- bytes arrive, so that uploads running at once cannot together store more
-- than the quota. A reservation counts until it is released, becomes a
-- file, or expires (an upload whose process died frees its room by itself).
CREATE TABLE upload_reservations (
    id         TEXT    PRIMARY KEY,
    account_id TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    bytes      INTEGER NOT NULL CHECK (bytes >= 0),
    expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- An account's reservations are summed on every check.
CREATE INDEX upload_reservations_account_id ON upload_reservations (account_id, expires_at);
-- Expired ones are removed from time to time.
CREATE INDEX upload_reservations_expires_at ON upload_reservations (expires_at);

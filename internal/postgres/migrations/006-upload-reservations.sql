-- 006: storage that uploads hold against their account's quota while their
-- bytes arrive, the twin of internal/sqlite's 004-upload-reservations.sql.
-- A check locks the account's row (SELECT … FOR UPDATE), so that the
-- checks of one account are serialised across every instance.
CREATE TABLE upload_reservations (
    id         text        NOT NULL,
    account_id text        NOT NULL,
    bytes      bigint      NOT NULL,
    expires_at timestamptz NOT NULL,
    CONSTRAINT upload_reservations_pkey PRIMARY KEY (id),
    CONSTRAINT upload_reservations_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE,
    CONSTRAINT upload_reservations_bytes_check CHECK (bytes >= 0)
);

CREATE INDEX upload_reservations_account_id ON upload_reservations (account_id, expires_at);
CREATE INDEX upload_reservations_expires_at ON upload_reservations (expires_at);

package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
)

// RecordUpload remembers that the resumable upload uploadID became file id.
func (s *Store) RecordUpload(ctx context.Context, uploadID string, id fileframe.FileID, at time.Time) error {
	if !storable(uploadID, string(id)) {
		return notFound("File")
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO finished_uploads (upload_id, file_id, finished_at) VALUES ($1, $2, $3)`,
		uploadID, id, ts(stored(at)))
	if pe := pgError(err); pe != nil && pe.Code == uniqueViolation && pe.ConstraintName == "finished_uploads_pkey" {
		return fileframe.Errorf(fileframe.ECONFLICT, "This upload is already recorded.")
	}
	return wrap("record upload", err)
}

// UploadFile returns the file that the resumable upload uploadID became.
func (s *Store) UploadFile(ctx context.Context, uploadID string) (fileframe.FileID, error) {
	if !storable(uploadID) {
		return "", notFound("Upload")
	}
	var id fileframe.FileID
	err := s.pool.QueryRow(ctx, `SELECT file_id FROM finished_uploads WHERE upload_id = $1`, uploadID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", notFound("Upload")
	}
	return id, wrap("upload file", err)
}

// DeleteUploadRecords forgets the uploads recorded before t.
func (s *Store) DeleteUploadRecords(ctx context.Context, t time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM finished_uploads WHERE finished_at < $1`, ts(t))
	if err != nil {
		return 0, wrap("delete upload records", err)
	}
	return int(tag.RowsAffected()), nil
}

// Reserve stores r if it fits in limit. The account's row is locked first
// (FOR UPDATE), so the checks of one account run one at a time on every
// instance: no other check can pass between this one's sum and its write.
func (s *Store) Reserve(ctx context.Context, r fileframe.Reservation, limit int64, at time.Time) (int64, error) {
	if r.ID == "" || r.Bytes < 0 || !storable(r.ID) {
		return 0, fileframe.Errorf(fileframe.EINVALID, "A reservation needs an ID and a size of at least zero.")
	}
	if !storable(string(r.AccountID)) {
		return 0, notFound("Account")
	}
	var used int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if used, err = lockUsedStorage(ctx, tx, r.AccountID, r.ID, at); err != nil {
			return err
		}
		if limit > 0 && used+r.Bytes > limit {
			return quotaExceeded()
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO upload_reservations (id, account_id, bytes, expires_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, bytes = excluded.bytes, expires_at = excluded.expires_at`,
			r.ID, r.AccountID, r.Bytes, ts(r.ExpiresAt))
		return err
	})
	return used, wrap("reserve", err)
}

// ReleaseReservation removes a reservation.
func (s *Store) ReleaseReservation(ctx context.Context, id string) error {
	if !storable(id) {
		return nil
	}
	_, err := s.pool.Exec(ctx, `DELETE FROM upload_reservations WHERE id = $1`, id)
	return wrap("release reservation", err)
}

// DeleteExpiredReservations removes the reservations expired before t.
func (s *Store) DeleteExpiredReservations(ctx context.Context, t time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM upload_reservations WHERE expires_at < $1`, ts(t))
	if err != nil {
		return 0, wrap("delete expired reservations", err)
	}
	return int(tag.RowsAffected()), nil
}

// lockUsedStorage locks the account's row for the rest of the transaction
// and returns the bytes of its files and of its reservations unexpired at
// t, but the one named except. A missing account is ENOTFOUND.
func lockUsedStorage(ctx context.Context, tx pgx.Tx, id fileframe.AccountID, except string, t time.Time) (int64, error) {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, id).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, notFound("Account")
	} else if err != nil {
		return 0, err
	}
	var used int64
	err = tx.QueryRow(ctx, `
		SELECT (SELECT COALESCE(SUM(size), 0) FROM files WHERE account_id = $1)::bigint
		     + (SELECT COALESCE(SUM(bytes), 0) FROM upload_reservations
		        WHERE account_id = $1 AND expires_at > $2 AND id <> $3)::bigint`,
		id, ts(t), except).Scan(&used)
	return used, err
}

// quotaExceeded is the store's answer to a reservation or file that does
// not fit; the caller, which knows the plan, words its own message.
func quotaExceeded() error {
	return fileframe.Errorf(fileframe.CodeQuotaExceeded, "This upload does not fit in what is left of the account's storage.")
}

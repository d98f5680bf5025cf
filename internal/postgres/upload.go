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
	return wrap("record upload", recordUpload(ctx, s.pool, uploadID, id, at))
}

// recordUpload records that the resumable upload became file id; nothing
// for no upload. In a transaction that stores the file, the two commit
// together.
func recordUpload(ctx context.Context, db execer, upload string, id fileframe.FileID, at time.Time) error {
	if upload == "" {
		return nil
	}
	_, err := db.Exec(ctx, `INSERT INTO finished_uploads (upload_id, file_id, finished_at) VALUES ($1, $2, $3)`,
		upload, id, ts(stored(at)))
	if pe := pgError(err); pe != nil && pe.Code == uniqueViolation && pe.ConstraintName == "finished_uploads_pkey" {
		return errRecorded
	}
	return err
}

// unrecorded returns ECONFLICT when the resumable upload is recorded
// already (nil for no upload).
func unrecorded(ctx context.Context, tx pgx.Tx, upload string) error {
	if upload == "" {
		return nil
	}
	var ok bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM finished_uploads WHERE upload_id = $1)`, upload).Scan(&ok); err != nil {
		return err
	}
	if ok {
		return errRecorded
	}
	return nil
}

// errRecorded is the error of an upload recorded already.
var errRecorded = fileframe.Errorf(fileframe.ECONFLICT, "This upload is already recorded.")

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

// Reserve stores r if it fits in q. The account's usage row is locked first
// (FOR UPDATE), so the checks of one account run one at a time on every
// instance: no other check can pass between this one's sum and its write.
func (s *Store) Reserve(ctx context.Context, r fileframe.Reservation, q fileframe.Quota, at time.Time) (int64, error) {
	if r.ID == "" || r.Bytes < 0 || !storable(r.ID) {
		return 0, fileframe.Errorf(fileframe.EINVALID, "A reservation needs an ID and a size of at least zero.")
	}
	if !storable(string(r.AccountID)) {
		return 0, notFound("Account")
	}
	var used fileframe.Usage
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if used, err = lockUsage(ctx, tx, r.AccountID, r.ID, at); err != nil {
			return err
		}
		if err := used.Fits(r.Bytes, q); err != nil {
			return err
		}
		if r.RequestID == "" {
			// A renewal keeps the request its reservation counts against.
			err := tx.QueryRow(ctx, `SELECT request_id FROM upload_reservations WHERE id = $1`, r.ID).Scan(&r.RequestID)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		if r.RequestID != "" {
			if !storable(string(r.RequestID)) {
				return notFound("Request")
			}
			if err := requestRoom(ctx, tx, r.RequestID, r.AccountID, r.ID, r.Bytes, at); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO upload_reservations (id, account_id, bytes, expires_at, request_id) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, bytes = excluded.bytes,
				expires_at = excluded.expires_at, request_id = excluded.request_id`,
			r.ID, r.AccountID, r.Bytes, ts(r.ExpiresAt), r.RequestID)
		return err
	})
	return used.Bytes, wrap("reserve", err)
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

// lockUsage locks the account's usage row for the rest of the transaction
// and returns what the account holds, counting its reservations unexpired
// at t but the one named except: its totals, which triggers keep
// (migration 017) and which every write that changes them locks too, and
// its reservations, summed. A reservation of an upload through a file
// request counts only while the request takes files (as SQLite's
// reservationLive). A missing account is ENOTFOUND.
func lockUsage(ctx context.Context, tx pgx.Tx, id fileframe.AccountID, except string, t time.Time) (fileframe.Usage, error) {
	var u fileframe.Usage
	err := tx.QueryRow(ctx, `
		SELECT file_bytes + appearance_bytes + asset_bytes, file_count
		FROM account_usage WHERE account_id = $1 FOR UPDATE`, id).Scan(&u.Bytes, &u.Files)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Usage{}, notFound("Account")
	} else if err != nil {
		return fileframe.Usage{}, err
	}
	var bytes, files int64
	err = tx.QueryRow(ctx, `
		SELECT coalesce(sum(bytes), 0)::bigint, count(*) FROM upload_reservations
		WHERE account_id = $1 AND expires_at > $2 AND id <> $3
		  AND (request_id = '' OR EXISTS (SELECT 1 FROM requests q
		       WHERE q.id = upload_reservations.request_id AND q.closed_at IS NULL
		         AND (q.expires_at IS NULL OR q.expires_at > $2)))`,
		id, ts(t), except).Scan(&bytes, &files)
	u.Bytes += bytes
	u.Files += files
	return u, err
}

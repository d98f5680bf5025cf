package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// RecordUpload remembers that the resumable upload uploadID became file id.
func (s *Store) RecordUpload(ctx context.Context, uploadID string, id fileframe.FileID, at time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := fileExists(ctx, tx, id); err != nil {
			return err
		}
		return recordUpload(ctx, tx, uploadID, id, at)
	})
	return wrap("record upload", err)
}

// UploadFile returns the file that the resumable upload uploadID became.
func (s *Store) UploadFile(ctx context.Context, uploadID string) (fileframe.FileID, error) {
	var id fileframe.FileID
	err := s.read.QueryRowContext(ctx, `SELECT file_id FROM finished_uploads WHERE upload_id = ?`, uploadID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notFound("Upload")
	}
	return id, wrap("upload file", err)
}

// DeleteUploadRecords forgets the uploads recorded before t.
func (s *Store) DeleteUploadRecords(ctx context.Context, t time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM finished_uploads WHERE finished_at < ?`, t.UnixMilli())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, wrap("delete upload records", err)
	}
	return int(n), nil
}

// Reserve stores r if it fits in q. It runs on the writer, one
// transaction at a time, so no other check can pass between this one's
// sum and its write.
func (s *Store) Reserve(ctx context.Context, r fileframe.Reservation, q fileframe.Quota, at time.Time) (int64, error) {
	if r.ID == "" || r.Bytes < 0 {
		return 0, fileframe.Errorf(fileframe.EINVALID, "A reservation needs an ID and a size of at least zero.")
	}
	var used fileframe.Usage
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := accountExists(ctx, tx, r.AccountID); err != nil {
			return err
		}
		var err error
		if used, err = accountUsage(ctx, tx, r.AccountID, r.ID, at); err != nil {
			return err
		}
		if err := used.Fits(r.Bytes, q); err != nil {
			return err
		}
		if r.RequestID == "" {
			// A renewal keeps the request its reservation counts against.
			err := tx.QueryRowContext(ctx, `SELECT request_id FROM upload_reservations WHERE id = ?`, r.ID).Scan(&r.RequestID)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		if r.RequestID != "" {
			if err := requestRoom(ctx, tx, r.RequestID, r.AccountID, r.ID, r.Bytes, at); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO upload_reservations (id, account_id, bytes, expires_at, request_id) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, bytes = excluded.bytes,
				expires_at = excluded.expires_at,
				request_id = excluded.request_id`,
			r.ID, r.AccountID, r.Bytes, r.ExpiresAt.UnixMilli(), r.RequestID)
		return err
	})
	return used.Bytes, wrap("reserve", err)
}

// ReleaseReservation removes a reservation.
func (s *Store) ReleaseReservation(ctx context.Context, id string) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM upload_reservations WHERE id = ?`, id)
		return err
	})
	return wrap("release reservation", err)
}

// DeleteExpiredReservations removes the reservations expired before t.
func (s *Store) DeleteExpiredReservations(ctx context.Context, t time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM upload_reservations WHERE expires_at < ?`, t.UnixMilli())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, wrap("delete expired reservations", err)
	}
	return int(n), nil
}

// reservationLive is the condition under which an unexpired reservation
// (of upload_reservations, at time ?2) holds room: an upload through a
// file request can finish only while its request takes files, so once the
// request is closed, deleted or past its end, its uploads' room is the
// owner's again (not a day later, when the reservation expires).
const reservationLive = `(request_id = '' OR EXISTS (SELECT 1 FROM requests q
		WHERE q.id = upload_reservations.request_id AND q.closed_at IS NULL
		  AND (q.expires_at IS NULL OR q.expires_at > ?2)))`

// accountUsage returns what the account holds, counting its reservations
// unexpired at t (and live: reservationLive) but the one named except: its
// totals, which triggers keep (migration 014), and its reservations,
// summed. A missing account holds nothing.
func accountUsage(ctx context.Context, tx querier, id fileframe.AccountID, except string, t time.Time) (fileframe.Usage, error) {
	var u fileframe.Usage
	err := tx.QueryRowContext(ctx, `
		SELECT coalesce((SELECT file_bytes + appearance_bytes + asset_bytes FROM account_usage WHERE account_id = ?1), 0)
		     + (SELECT coalesce(sum(bytes), 0) FROM upload_reservations
		        WHERE account_id = ?1 AND expires_at > ?2 AND id <> ?3 AND `+reservationLive+`),
		       coalesce((SELECT file_count FROM account_usage WHERE account_id = ?1), 0)
		     + (SELECT count(*) FROM upload_reservations
		        WHERE account_id = ?1 AND expires_at > ?2 AND id <> ?3 AND `+reservationLive+`)`,
		id, t.UnixMilli(), except).Scan(&u.Bytes, &u.Files)
	return u, err
}

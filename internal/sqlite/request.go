package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

const requestColumns = `r.id, r.account_id, r.slug, r.title, r.message, r.max_bytes, r.max_files, r.expires_at,
	r.password_hash, r.closed_at, r.created_at,
	(SELECT count(*) FROM request_files rf WHERE rf.request_id = r.id),
	(SELECT coalesce(sum(f.size), 0) FROM request_files rf JOIN files f ON f.id = rf.file_id WHERE rf.request_id = r.id)`

// scanRequest reads one row of requestColumns.
func scanRequest(scan func(...any) error) (fileframe.Request, error) {
	var r fileframe.Request
	var expires, closed, created sql.NullInt64
	err := scan(&r.ID, &r.AccountID, &r.Slug, &r.Title, &r.Message, &r.MaxBytes, &r.MaxFiles, &expires,
		&r.PasswordHash, &closed, &created, &r.Received, &r.ReceivedBytes)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Request{}, notFound("Request")
	}
	r.ExpiresAt, r.ClosedAt, r.CreatedAt = fromMillis(expires), fromMillis(closed), fromMillis(created)
	return r, err
}

// CreateRequest stores a new request.
func (s *Store) CreateRequest(ctx context.Context, r fileframe.Request) (fileframe.Request, error) {
	if r.ID == "" {
		r.ID = fileframe.NewRequestID()
	}
	if r.Slug == "" {
		r.Slug = fileframe.NewSlug()
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now()
	}
	r.CreatedAt, r.ExpiresAt, r.ClosedAt = stored(r.CreatedAt), stored(r.ExpiresAt), stored(r.ClosedAt)
	r.Received, r.ReceivedBytes = 0, 0
	if r.MaxBytes < 1 || r.MaxFiles < 1 {
		return fileframe.Request{}, fileframe.Errorf(fileframe.EINVALID, "A request takes at least one file of at least one byte.")
	}
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := accountExists(ctx, tx, r.AccountID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO requests (id, account_id, slug, title, message, max_bytes, max_files, expires_at,
				password_hash, closed_at, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.AccountID, r.Slug, r.Title, r.Message, r.MaxBytes, r.MaxFiles, millis(r.ExpiresAt),
			r.PasswordHash, millis(r.ClosedAt), millis(r.CreatedAt))
		if isUnique(err) {
			if strings.Contains(err.Error(), "requests.slug") {
				return fileframe.Errorf(fileframe.ECONFLICT, "This request link is already taken.")
			}
			return fileframe.Errorf(fileframe.ECONFLICT, "A request with this ID already exists.")
		}
		return err
	})
	if err != nil {
		return fileframe.Request{}, wrap("create request", err)
	}
	return r, nil
}

// RequestByID returns the request with that ID.
func (s *Store) RequestByID(ctx context.Context, id fileframe.RequestID) (fileframe.Request, error) {
	r, err := scanRequest(s.read.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM requests r WHERE r.id = ?`, id).Scan)
	return r, wrap("request by id", err)
}

// RequestBySlug returns the request whose page is /r/<slug>.
func (s *Store) RequestBySlug(ctx context.Context, slug string) (fileframe.Request, error) {
	r, err := scanRequest(s.read.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM requests r WHERE r.slug = ?`, slug).Scan)
	return r, wrap("request by slug", err)
}

// RequestsByAccount lists the account's requests, newest first.
func (s *Store) RequestsByAccount(ctx context.Context, id fileframe.AccountID) ([]fileframe.Request, error) {
	if err := accountExists(ctx, s.read, id); err != nil {
		return nil, wrap("requests by account", err)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+requestColumns+` FROM requests r WHERE r.account_id = ?
		ORDER BY r.created_at DESC, r.id DESC`, id)
	if err != nil {
		return nil, wrap("requests by account", err)
	}
	defer rows.Close()
	out := []fileframe.Request{}
	for rows.Next() {
		r, err := scanRequest(rows.Scan)
		if err != nil {
			return nil, wrap("requests by account", err)
		}
		out = append(out, r)
	}
	return out, wrap("requests by account", rows.Err())
}

// CloseRequest closes the request at at unless it is closed.
func (s *Store) CloseRequest(ctx context.Context, id fileframe.RequestID, at time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE requests SET closed_at = coalesce(closed_at, ?) WHERE id = ?`,
			stored(at).UnixMilli(), id)
		if err != nil {
			return err
		}
		return mustAffect(res, "Request")
	})
	return wrap("close request", err)
}

// DeleteRequest removes the request and its records; the files stay.
func (s *Store) DeleteRequest(ctx context.Context, id fileframe.RequestID) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM requests WHERE id = ?`, id)
		if err != nil {
			return err
		}
		return mustAffect(res, "Request")
	})
	return wrap("delete request", err)
}

// ReceivedFiles lists what the request received, oldest first.
func (s *Store) ReceivedFiles(ctx context.Context, id fileframe.RequestID, visit string) ([]fileframe.RequestFile, error) {
	var one int
	err := s.read.QueryRowContext(ctx, `SELECT 1 FROM requests WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("Request")
	} else if err != nil {
		return nil, wrap("received files", err)
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT rf.visit_id, rf.sender_name, rf.sender_email, rf.created_at, `+prefixed("f.", fileColumns)+`
		FROM request_files rf JOIN files f ON f.id = rf.file_id
		WHERE rf.request_id = ?1 AND (?2 = '' OR rf.visit_id = ?2)
		ORDER BY rf.created_at, rf.file_id`, id, visit)
	if err != nil {
		return nil, wrap("received files", err)
	}
	defer rows.Close()
	out := []fileframe.RequestFile{}
	for rows.Next() {
		rf := fileframe.RequestFile{RequestID: id}
		var fs fileScan
		var created sql.NullInt64
		if err := rows.Scan(append([]any{&rf.VisitID, &rf.SenderName, &rf.SenderEmail, &created}, fs.dest()...)...); err != nil {
			return nil, wrap("received files", err)
		}
		rf.CreatedAt, rf.File = fromMillis(created), fs.file()
		out = append(out, rf)
	}
	return out, wrap("received files", rows.Err())
}

// CreateRequestFile stores a file received through a request in place of
// its reservation, within the account's quota and the request's limits.
// The writer runs one transaction at a time, so no other check can pass
// between this one's sums and its inserts.
func (s *Store) CreateRequestFile(ctx context.Context, f fileframe.File, rf fileframe.RequestFile, reservation, upload string, q fileframe.Quota, at time.Time) (fileframe.File, error) {
	f = newFile(f)
	f.Shared = false
	rf.CreatedAt = f.CreatedAt
	return s.createReserved(ctx, f, &rf, reservation, upload, q, at)
}

// requestRoom checks that one more file of size bytes fits in request id
// of account beside what it received and its reservations unexpired at t
// but the one named except (CheckRequestRoom). A request that is missing
// or of another account is ENOTFOUND.
func requestRoom(ctx context.Context, tx querier, id fileframe.RequestID, account fileframe.AccountID, except string, size int64, t time.Time) error {
	r, err := scanRequest(tx.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM requests r WHERE r.id = ?`, id).Scan)
	if err != nil {
		return err
	}
	if r.AccountID != account {
		return notFound("Request")
	}
	var files, bytes int64
	if err := tx.QueryRowContext(ctx, `
		SELECT count(*), coalesce(sum(bytes), 0) FROM upload_reservations
		WHERE request_id = ? AND expires_at > ? AND id <> ?`, id, t.UnixMilli(), except).Scan(&files, &bytes); err != nil {
		return err
	}
	return fileframe.CheckRequestRoom(r, r.Received+files, r.ReceivedBytes+bytes, size, t)
}

// ShareFile makes the file's link public.
func (s *Store) ShareFile(ctx context.Context, id fileframe.FileID) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE files SET shared = 1 WHERE id = ?`, id)
		if err != nil {
			return err
		}
		return mustAffect(res, "File")
	})
	return wrap("share file", err)
}

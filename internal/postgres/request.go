package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

const requestColumns = `r.id, r.account_id, r.slug, r.title, r.message, r.max_bytes, r.max_files, r.expires_at,
	r.password_hash, r.closed_at, r.created_at,
	(SELECT count(*) FROM request_files rf WHERE rf.request_id = r.id),
	(SELECT coalesce(sum(f.size), 0)::bigint FROM request_files rf JOIN files f ON f.id = rf.file_id WHERE rf.request_id = r.id)`

// scanRequest reads one row of requestColumns.
func scanRequest(row pgx.Row) (fileframe.Request, error) {
	var r fileframe.Request
	var expires, closed, created pgtype.Timestamptz
	err := row.Scan(&r.ID, &r.AccountID, &r.Slug, &r.Title, &r.Message, &r.MaxBytes, &r.MaxFiles, &expires,
		&r.PasswordHash, &closed, &created, &r.Received, &r.ReceivedBytes)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Request{}, notFound("Request")
	}
	r.ExpiresAt, r.ClosedAt, r.CreatedAt = fromTS(expires), fromTS(closed), fromTS(created)
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
	if !storable(string(r.AccountID)) {
		return fileframe.Request{}, notFound("Account")
	}
	// A missing account is the violation of requests_account_id_fkey (wrap).
	_, err := s.pool.Exec(ctx, `
		INSERT INTO requests (id, account_id, slug, title, message, max_bytes, max_files, expires_at,
			password_hash, closed_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		r.ID, r.AccountID, r.Slug, r.Title, r.Message, r.MaxBytes, r.MaxFiles, ts(r.ExpiresAt),
		r.PasswordHash, ts(r.ClosedAt), ts(r.CreatedAt))
	if err != nil {
		return fileframe.Request{}, wrap("create request", err)
	}
	return r, nil
}

// RequestByID returns the request with that ID.
func (s *Store) RequestByID(ctx context.Context, id fileframe.RequestID) (fileframe.Request, error) {
	if !storable(string(id)) {
		return fileframe.Request{}, notFound("Request")
	}
	r, err := scanRequest(s.pool.QueryRow(ctx, `SELECT `+requestColumns+` FROM requests r WHERE r.id = $1`, id))
	return r, wrap("request by id", err)
}

// RequestBySlug returns the request whose page is /r/<slug>.
func (s *Store) RequestBySlug(ctx context.Context, slug string) (fileframe.Request, error) {
	if !storable(slug) {
		return fileframe.Request{}, notFound("Request")
	}
	r, err := scanRequest(s.pool.QueryRow(ctx, `SELECT `+requestColumns+` FROM requests r WHERE r.slug = $1`, slug))
	return r, wrap("request by slug", err)
}

// RequestsByAccount lists the account's requests, newest first.
func (s *Store) RequestsByAccount(ctx context.Context, id fileframe.AccountID) ([]fileframe.Request, error) {
	if !storable(string(id)) {
		return nil, notFound("Account")
	}
	out := []fileframe.Request{}
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1`, id).Scan(&one); errors.Is(err, pgx.ErrNoRows) {
			return notFound("Account")
		} else if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+requestColumns+` FROM requests r WHERE r.account_id = $1
			ORDER BY r.created_at DESC, r.id DESC`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRequest(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap("requests by account", err)
	}
	return out, nil
}

// CloseRequest closes the request at at unless it is closed.
func (s *Store) CloseRequest(ctx context.Context, id fileframe.RequestID, at time.Time) error {
	if !storable(string(id)) {
		return notFound("Request")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE requests SET closed_at = coalesce(closed_at, $1) WHERE id = $2`, ts(stored(at)), id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("Request")
	}
	return wrap("close request", err)
}

// DeleteRequest removes the request and its records; the files stay.
func (s *Store) DeleteRequest(ctx context.Context, id fileframe.RequestID) error {
	if !storable(string(id)) {
		return notFound("Request")
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM requests WHERE id = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("Request")
	}
	return wrap("delete request", err)
}

// ReceivedFiles lists what the request received, oldest first.
func (s *Store) ReceivedFiles(ctx context.Context, id fileframe.RequestID, visit string) ([]fileframe.RequestFile, error) {
	if !storable(string(id), visit) {
		return nil, notFound("Request")
	}
	out := []fileframe.RequestFile{}
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM requests WHERE id = $1`, id).Scan(&one); errors.Is(err, pgx.ErrNoRows) {
			return notFound("Request")
		} else if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `
			SELECT rf.visit_id, rf.sender_name, rf.sender_email, rf.created_at, `+prefixed("f.", fileColumns)+`
			FROM request_files rf JOIN files f ON f.id = rf.file_id
			WHERE rf.request_id = $1 AND ($2 = '' OR rf.visit_id = $2)
			ORDER BY rf.created_at, rf.file_id`, id, visit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			rf := fileframe.RequestFile{RequestID: id}
			var fs fileScan
			var created pgtype.Timestamptz
			if err := rows.Scan(append([]any{&rf.VisitID, &rf.SenderName, &rf.SenderEmail, &created}, fs.dest()...)...); err != nil {
				return err
			}
			rf.CreatedAt, rf.File = fromTS(created), fs.file()
			out = append(out, rf)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap("received files", err)
	}
	return out, nil
}

// CreateRequestFile stores a file received through a request in place of
// its reservation, within the account's quota and the request's limits:
// the account's usage row and then the request's are locked (FOR UPDATE, in the
// order Reserve takes them), so the checks of one request run one at a
// time on every instance.
func (s *Store) CreateRequestFile(ctx context.Context, f fileframe.File, rf fileframe.RequestFile, reservation, upload string, q fileframe.Quota, at time.Time) (fileframe.File, error) {
	f = newFile(f)
	f.Shared = false
	rf.CreatedAt = f.CreatedAt
	if !storable(string(f.AccountID), string(rf.RequestID)) {
		return fileframe.File{}, notFound("Request")
	}
	return s.createReserved(ctx, f, &rf, reservation, upload, q, at)
}

// requestRoom locks request id's row and checks that one more file of
// size bytes fits in it beside what it received and its reservations
// unexpired at t but the one named except (CheckRequestRoom). A request
// that is missing or of another account is ENOTFOUND.
func requestRoom(ctx context.Context, tx pgx.Tx, id fileframe.RequestID, account fileframe.AccountID, except string, size int64, t time.Time) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM requests WHERE id = $1 AND account_id = $2 FOR UPDATE`, id, account).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound("Request")
	} else if err != nil {
		return err
	}
	r, err := scanRequest(tx.QueryRow(ctx, `SELECT `+requestColumns+` FROM requests r WHERE r.id = $1`, id))
	if err != nil {
		return err
	}
	var files, bytes int64
	if err := tx.QueryRow(ctx, `
		SELECT count(*), coalesce(sum(bytes), 0)::bigint FROM upload_reservations
		WHERE request_id = $1 AND expires_at > $2 AND id <> $3`, id, ts(t), except).Scan(&files, &bytes); err != nil {
		return err
	}
	return fileframe.CheckRequestRoom(r, r.Received+files, r.ReceivedBytes+bytes, size, t)
}

// ShareFile makes the file's link public.
func (s *Store) ShareFile(ctx context.Context, id fileframe.FileID) error {
	if !storable(string(id)) {
		return notFound("File")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE files SET shared = true WHERE id = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("File")
	}
	return wrap("share file", err)
}

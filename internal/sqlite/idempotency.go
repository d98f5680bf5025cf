package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// ClaimIdempotent claims (keyID, key) for a request starting at now, or
// returns the request that holds it. It runs on the writer, so one claim
// of a pair wins.
func (s *Store) ClaimIdempotent(ctx context.Context, keyID fileframe.KeyID, key string, now time.Time, stale time.Duration) (fileframe.IdempotentRequest, bool, error) {
	var existing fileframe.IdempotentRequest
	claimed := false
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		r, err := idempotentRequest(ctx, tx, keyID, key)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM api_keys WHERE id = ?`, keyID).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return notFound("API key")
			} else if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO idempotent_requests (key_id, idem_key, created_at) VALUES (?, ?, ?)`,
				keyID, key, now.UnixMilli())
			claimed = err == nil
			return err
		case err != nil:
			return err
		case !r.Done && now.Sub(r.CreatedAt) > stale:
			// The process that claimed it died: take it over.
			_, err := tx.ExecContext(ctx, `UPDATE idempotent_requests SET created_at = ? WHERE key_id = ? AND idem_key = ?`,
				now.UnixMilli(), keyID, key)
			claimed = err == nil
			return err
		}
		existing = r
		return nil
	})
	if err != nil {
		return fileframe.IdempotentRequest{}, false, wrap("claim idempotent request", err)
	}
	return existing, claimed, nil
}

// idempotentRequest reads the record of (keyID, key); sql.ErrNoRows when
// there is none.
func idempotentRequest(ctx context.Context, tx querier, keyID fileframe.KeyID, key string) (fileframe.IdempotentRequest, error) {
	r := fileframe.IdempotentRequest{KeyID: keyID, Key: key}
	var header string
	var created int64
	err := tx.QueryRowContext(ctx, `
		SELECT fingerprint, done, status, header, body, created_at FROM idempotent_requests
		WHERE key_id = ? AND idem_key = ?`, keyID, key).Scan(&r.Fingerprint, &r.Done, &r.Status, &header, &r.Body, &created)
	if err != nil {
		return r, err
	}
	r.CreatedAt = time.UnixMilli(created).UTC()
	if err := json.Unmarshal([]byte(header), &r.Header); err != nil {
		return r, err
	}
	return r, nil
}

// FinishIdempotent stores the answer of a claimed request.
func (s *Store) FinishIdempotent(ctx context.Context, r fileframe.IdempotentRequest) error {
	header, err := json.Marshal(r.Header)
	if err != nil {
		return err
	}
	body := r.Body
	if body == nil {
		body = []byte{}
	}
	err = s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `
			UPDATE idempotent_requests SET fingerprint = ?, done = 1, status = ?, header = ?, body = ?
			WHERE key_id = ? AND idem_key = ? AND done = 0`,
			r.Fingerprint, r.Status, string(header), body, r.KeyID, r.Key)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound("Idempotent request")
		}
		return nil
	})
	return wrap("finish idempotent request", err)
}

// ReleaseIdempotent forgets the claim made at claimedAt of a request that
// is still running.
func (s *Store) ReleaseIdempotent(ctx context.Context, keyID fileframe.KeyID, key string, claimedAt time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM idempotent_requests WHERE key_id = ? AND idem_key = ? AND done = 0 AND created_at = ?`,
			keyID, key, claimedAt.UnixMilli())
		return err
	})
	return wrap("release idempotent request", err)
}

// DeleteIdempotentBefore forgets the requests claimed before t.
func (s *Store) DeleteIdempotentBefore(ctx context.Context, t time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM idempotent_requests WHERE created_at < ?`, t.UnixMilli())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, wrap("delete idempotent requests", err)
	}
	return int(n), nil
}

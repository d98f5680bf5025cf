package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// ClaimIdempotent claims (keyID, key) for a request starting at now, or
// returns the request that holds it. One INSERT … ON CONFLICT decides, so
// one claim of a pair wins across instances.
func (s *Store) ClaimIdempotent(ctx context.Context, keyID fileframe.KeyID, key string, now time.Time, stale time.Duration) (fileframe.IdempotentRequest, bool, error) {
	if !storable(string(keyID), key) {
		return fileframe.IdempotentRequest{}, false, notFound("API key")
	}
	now = stored(now)
	// A record released between the failed claim and the read is gone:
	// claim again.
	for range 3 {
		var ok bool
		err := s.pool.QueryRow(ctx, `
			INSERT INTO idempotent_requests AS r (key_id, idem_key, created_at) VALUES ($1, $2, $3)
			ON CONFLICT (key_id, idem_key) DO UPDATE SET created_at = excluded.created_at
				WHERE NOT r.done AND r.created_at < $4
			RETURNING true`, keyID, key, now, now.Add(-stale)).Scan(&ok)
		if err == nil {
			return fileframe.IdempotentRequest{}, true, nil
		}
		if pe := pgError(err); pe != nil && pe.Code == foreignKeyViolation {
			return fileframe.IdempotentRequest{}, false, notFound("API key")
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fileframe.IdempotentRequest{}, false, wrap("claim idempotent request", err)
		}
		r := fileframe.IdempotentRequest{KeyID: keyID, Key: key}
		var created pgtype.Timestamptz
		err = s.pool.QueryRow(ctx, `
			SELECT fingerprint, done, status, header, body, created_at FROM idempotent_requests
			WHERE key_id = $1 AND idem_key = $2`, keyID, key).Scan(&r.Fingerprint, &r.Done, &r.Status, &r.Header, &r.Body, &created)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		} else if err != nil {
			return fileframe.IdempotentRequest{}, false, wrap("claim idempotent request", err)
		}
		r.CreatedAt = fromTS(created)
		return r, false, nil
	}
	return fileframe.IdempotentRequest{}, false, errors.New("postgres: claim idempotent request: the record kept changing")
}

// FinishIdempotent stores the answer of a claimed request.
func (s *Store) FinishIdempotent(ctx context.Context, r fileframe.IdempotentRequest) error {
	if !storable(string(r.KeyID), r.Key) {
		return notFound("Idempotent request")
	}
	header := r.Header
	if header == nil {
		header = map[string]string{}
	}
	body := r.Body
	if body == nil {
		body = []byte{}
	}
	tag, err := s.pool.Exec(ctx, `
		UPDATE idempotent_requests SET fingerprint = $3, done = true, status = $4, header = $5, body = $6
		WHERE key_id = $1 AND idem_key = $2 AND NOT done`,
		r.KeyID, r.Key, r.Fingerprint, r.Status, header, body)
	if err != nil {
		return wrap("finish idempotent request", err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("Idempotent request")
	}
	return nil
}

// ReleaseIdempotent forgets the claim made at claimedAt of a request that
// is still running.
func (s *Store) ReleaseIdempotent(ctx context.Context, keyID fileframe.KeyID, key string, claimedAt time.Time) error {
	if !storable(string(keyID), key) {
		return nil
	}
	_, err := s.pool.Exec(ctx, `DELETE FROM idempotent_requests WHERE key_id = $1 AND idem_key = $2 AND NOT done AND created_at = $3`,
		keyID, key, stored(claimedAt))
	return wrap("release idempotent request", err)
}

// DeleteIdempotentBefore forgets the requests claimed before t.
func (s *Store) DeleteIdempotentBefore(ctx context.Context, t time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotent_requests WHERE created_at < $1`, t)
	if err != nil {
		return 0, wrap("delete idempotent requests", err)
	}
	return int(tag.RowsAffected()), nil
}

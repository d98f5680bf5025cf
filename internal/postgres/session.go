package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// CreateSession stores a new session (its token's hash). The account must
// exist (else ENOTFOUND, the violation of sessions_account_id_fkey); a taken
// hash is ECONFLICT.
func (s *Store) CreateSession(ctx context.Context, sess fileframe.Session) error {
	if !storable(string(sess.AccountID)) {
		return notFound("Account")
	}
	_, err := s.pool.Exec(ctx, `
		INSERT INTO sessions (hash, account_id, created_at, last_seen_at, expires_at)
		VALUES ($1, $2, $3, $4, $5)`,
		sess.Hash, sess.AccountID, stored(sess.CreatedAt), stored(sess.LastSeenAt), stored(sess.ExpiresAt))
	return wrap("create session", err)
}

// SessionByHash returns the session whose token hashes to hash, expired ones
// included.
func (s *Store) SessionByHash(ctx context.Context, hash string) (fileframe.Session, error) {
	if !storable(hash) {
		return fileframe.Session{}, notFound("Session")
	}
	var sess fileframe.Session
	var created, seen, expires pgtype.Timestamptz
	err := s.pool.QueryRow(ctx, `
		SELECT hash, account_id, created_at, last_seen_at, expires_at FROM sessions WHERE hash = $1`, hash).
		Scan(&sess.Hash, &sess.AccountID, &created, &seen, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Session{}, notFound("Session")
	} else if err != nil {
		return fileframe.Session{}, wrap("session by hash", err)
	}
	sess.CreatedAt = fromTS(created)
	sess.LastSeenAt = fromTS(seen)
	sess.ExpiresAt = fromTS(expires)
	return sess, nil
}

// TouchSession records activity and moves the expiry. A missing session is
// ENOTFOUND.
func (s *Store) TouchSession(ctx context.Context, hash string, seen, expires time.Time) error {
	if !storable(hash) {
		return notFound("Session")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE sessions SET last_seen_at = $1, expires_at = $2 WHERE hash = $3`,
		stored(seen), stored(expires), hash)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("Session")
	}
	return wrap("touch session", err)
}

// DeleteSession ends one session; a missing session is not an error.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	if !storable(hash) {
		return nil
	}
	_, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE hash = $1`, hash)
	return wrap("delete session", err)
}

// DeleteAccountSessions ends every session of the account except the one
// whose hash is keep (empty keeps none).
func (s *Store) DeleteAccountSessions(ctx context.Context, id fileframe.AccountID, keep string) error {
	if !storable(string(id)) {
		return nil
	}
	if !storable(keep) {
		keep = "" // matches no stored session, so keeps none
	}
	_, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE account_id = $1 AND hash <> $2`, id, keep)
	return wrap("delete account sessions", err)
}

// DeleteExpiredSessions removes the sessions that expired before t and
// returns how many.
func (s *Store) DeleteExpiredSessions(ctx context.Context, t time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at < $1`, stored(t))
	if err != nil {
		return 0, wrap("delete expired sessions", err)
	}
	return int(tag.RowsAffected()), nil
}

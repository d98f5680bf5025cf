package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// CreateSession stores a new session (its token's hash). The account must
// exist (else ENOTFOUND); a taken hash is ECONFLICT.
func (s *Store) CreateSession(ctx context.Context, sess fileframe.Session) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := accountExists(ctx, tx, sess.AccountID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO sessions (hash, account_id, created_at, last_seen_at, expires_at)
			VALUES (?, ?, ?, ?, ?)`,
			sess.Hash, sess.AccountID, sess.CreatedAt.UnixMilli(), sess.LastSeenAt.UnixMilli(), sess.ExpiresAt.UnixMilli())
		if isUnique(err) {
			return fileframe.Errorf(fileframe.ECONFLICT, "This session already exists.")
		}
		return err
	})
	return wrap("create session", err)
}

// SessionByHash returns the session whose token hashes to hash, expired ones
// included.
func (s *Store) SessionByHash(ctx context.Context, hash string) (fileframe.Session, error) {
	var sess fileframe.Session
	var created, seen, expires sql.NullInt64
	err := s.sessionByHash.QueryRowContext(ctx, hash).Scan(&sess.Hash, &sess.AccountID, &created, &seen, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Session{}, notFound("Session")
	} else if err != nil {
		return fileframe.Session{}, wrap("session by hash", err)
	}
	sess.CreatedAt = fromMillis(created)
	sess.LastSeenAt = fromMillis(seen)
	sess.ExpiresAt = fromMillis(expires)
	return sess, nil
}

// TouchSession records activity and moves the expiry. A missing session is
// ENOTFOUND.
func (s *Store) TouchSession(ctx context.Context, hash string, seen, expires time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE hash = ?`,
			seen.UnixMilli(), expires.UnixMilli(), hash)
		if err != nil {
			return err
		}
		return mustAffect(res, "Session")
	})
	return wrap("touch session", err)
}

// DeleteSession ends one session; a missing session is not an error.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE hash = ?`, hash)
		return err
	})
	return wrap("delete session", err)
}

// DeleteAccountSessions ends every session of the account except the one
// whose hash is keep (empty keeps none).
func (s *Store) DeleteAccountSessions(ctx context.Context, id fileframe.AccountID, keep string) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE account_id = ? AND hash <> ?`, id, keep)
		return err
	})
	return wrap("delete account sessions", err)
}

// DeleteExpiredSessions removes the sessions that expired before t and
// returns how many.
func (s *Store) DeleteExpiredSessions(ctx context.Context, t time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at < ?`, t.UnixMilli())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, wrap("delete expired sessions", err)
	}
	return int(n), nil
}

package fileframe

import (
	"context"
	"time"
)

// Session is a signed-in browser of the web application. The cookie holds a
// random token; only its hash is stored, like an API key's.
type Session struct {
	Hash       string // hex SHA-256 of the cookie token
	AccountID  AccountID
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
}

// SessionStore keeps the web application's sessions. Errors follow Store's
// conventions.
type SessionStore interface {
	// CreateSession stores a new session (its token's hash). The account
	// must exist (else ENOTFOUND).
	CreateSession(ctx context.Context, s Session) error
	// SessionByHash returns the session whose token hashes to hash, expired
	// ones included (the caller checks ExpiresAt).
	SessionByHash(ctx context.Context, hash string) (Session, error)
	// TouchSession records activity and moves the expiry (sliding sessions).
	TouchSession(ctx context.Context, hash string, seen, expires time.Time) error
	// DeleteSession ends one session; a missing session is not an error.
	DeleteSession(ctx context.Context, hash string) error
	// DeleteAccountSessions ends every session of the account except the
	// one whose hash is keep (empty keeps none), e.g. on a password change.
	DeleteAccountSessions(ctx context.Context, id AccountID, keep string) error
	// DeleteExpiredSessions removes sessions that expired before t and
	// returns how many.
	DeleteExpiredSessions(ctx context.Context, t time.Time) (int, error)
}

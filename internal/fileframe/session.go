package fileframe

import "time"

// Session is a signed-in browser of the web application. The cookie holds a
// random token; only its hash is stored, like an API key's.
type Session struct {
	Hash       string // hex SHA-256 of the cookie token
	AccountID  AccountID
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
}

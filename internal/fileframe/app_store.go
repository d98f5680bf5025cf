package fileframe

import (
	"context"
	"time"
)

// AppStore is what the web application needs of a store beyond Store:
// sessions, account administration, file management, appearances and
// publishing an existing revision. Errors follow Store's conventions
// (ENOTFOUND, ECONFLICT, EINVALID). Both backends implement it and pass
// storetest; Store embeds it once they do.
type AppStore interface {
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

	// CountAccounts returns the number of accounts (0 on a fresh instance,
	// which then shows its setup screen).
	CountAccounts(ctx context.Context) (int, error)
	// ListAccounts lists every account, oldest first, with its file count
	// and bytes stored.
	ListAccounts(ctx context.Context) ([]AccountUsage, error)
	// SetAccountPassword replaces the account's password hash.
	SetAccountPassword(ctx context.Context, id AccountID, hash string) error
	// SetAccountDisabled disables or re-enables an account; a disabled
	// account's links stop working and nothing is deleted.
	SetAccountDisabled(ctx context.Context, id AccountID, disabled bool) error
	// SetAccountAppearance sets the account's default appearance (the zero
	// value clears it).
	SetAccountAppearance(ctx context.Context, id AccountID, a Appearance) error
	// AccountAppearance returns the account's default appearance (zero when
	// none is set).
	AccountAppearance(ctx context.Context, id AccountID) (Appearance, error)

	// FilesByAccount lists the account's files, newest first, with the
	// state of each one's custom page.
	FilesByAccount(ctx context.Context, id AccountID) ([]FileListing, error)
	// RenameFile changes the name visitors download the file under.
	RenameFile(ctx context.Context, id FileID, name string) error
	// DeleteFile removes the file's row with its page, revisions, appearance
	// and page-bound keys, and returns the deleted file so the caller can
	// remove its blob when BlobInUse says no other file uses it.
	DeleteFile(ctx context.Context, id FileID) (File, error)
	// BlobInUse reports whether any file (or appearance image) refers to
	// the blob key.
	BlobInUse(ctx context.Context, key string) (bool, error)
	// SetFileAppearance sets the file's own appearance, overriding the
	// account's (the zero value clears the override).
	SetFileAppearance(ctx context.Context, id FileID, a Appearance) error
	// FileAppearance returns the file's own appearance (zero when none).
	FileAppearance(ctx context.Context, id FileID) (Appearance, error)

	// SetLiveRevision publishes an existing revision of the file's page
	// (number ≥ 1) or unpublishes the page (number 0), without storing a
	// new revision. A revision that is not kept is ENOTFOUND.
	SetLiveRevision(ctx context.Context, id FileID, number int, at time.Time) (Page, error)
}

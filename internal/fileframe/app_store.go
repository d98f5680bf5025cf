package fileframe

import (
	"context"
	"time"
	"unicode"
	"unicode/utf8"
)

// AppStore is what the web application needs of a store beyond the rest of
// Store: sessions, account administration, file management, appearances
// and publishing an existing revision. Store embeds it, so every store
// implements it, and storetest.Run holds both backends to it. Errors follow
// Store's conventions (ENOTFOUND, ECONFLICT, EINVALID).
//
// Details that storetest holds every implementation to:
//   - every method naming an account, file or session that does not exist is
//     ENOTFOUND, except DeleteSession and DeleteAccountSessions (nothing to
//     end is not an error); FilesByAccount of a missing account is ENOTFOUND
//     (an account without files gets an empty list), as KeysByAccount;
//   - RenameFile checks the name with CheckFileName (EINVALID), so that no
//     caller can store a name a download could not carry; appearances are
//     stored as given (the web edge validates templates and colours);
//   - DeleteFile deletes, in one transaction, the page-bound keys of the
//     file, its page with every revision (and the HTML no other revision
//     shares), and its appearance; general keys are untouched;
//   - a revision published by SetLiveRevision gets PublishedAt (its first
//     publication time is kept if it had one), so pruning keeps it, and
//     the page's UpdatedAt becomes at.
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

	// CreateFirstAccount stores a as the instance's first account, like
	// CreateAccount, but only while no account exists: otherwise it is
	// ECONFLICT. Check and insert are one atomic step across every process
	// sharing the store, so that two setup screens submitted at once (on one
	// instance or on several) cannot both create an admin.
	CreateFirstAccount(ctx context.Context, a Account) (Account, error)
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

	// RecordUpload remembers that the resumable upload uploadID became the
	// file id, so that a client that missed the answer to the upload's last
	// request can be told which file it made (UploadFile). The file must
	// exist (else ENOTFOUND); recording an upload again is ECONFLICT.
	// Deleting the file forgets the record.
	RecordUpload(ctx context.Context, uploadID string, id FileID, at time.Time) error
	// UploadFile returns the file that the resumable upload uploadID became.
	UploadFile(ctx context.Context, uploadID string) (FileID, error)
	// DeleteUploadRecords forgets the uploads recorded before t and returns
	// how many.
	DeleteUploadRecords(ctx context.Context, t time.Time) (int, error)

	// SetLiveRevision publishes an existing revision of the file's page
	// (number ≥ 1) or unpublishes the page (number 0), without storing a
	// new revision. A revision that is not kept is ENOTFOUND.
	SetLiveRevision(ctx context.Context, id FileID, number int, at time.Time) (Page, error)
}

// MaxFileNameLen is the longest file name, in bytes, that RenameFile takes.
const MaxFileNameLen = 255

// CheckFileName returns an EINVALID error unless name can be a file's name:
// 1 to MaxFileNameLen bytes of UTF-8 without control characters (they could
// not be carried in a Content-Disposition header, and would show as nothing
// in a listing).
func CheckFileName(name string) error {
	switch {
	case name == "":
		return Errorf(EINVALID, "A file name cannot be empty.")
	case len(name) > MaxFileNameLen:
		return Errorf(EINVALID, "A file name can be at most %d bytes long.", MaxFileNameLen)
	case !utf8.ValidString(name):
		return Errorf(EINVALID, "A file name must be valid UTF-8.")
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return Errorf(EINVALID, "A file name cannot contain control characters such as line breaks or tabs.")
		}
	}
	return nil
}

package fileframe

import (
	"context"
	"time"
)

// Store keeps Fileframe's metadata. Implementations: internal/sqlite (the
// embedded default) and internal/postgres; internal/storetest is the
// conformance suite both pass.
//
// Every method returns an *Error with code ENOTFOUND when the thing asked
// for does not exist (never a zero value and a nil error), ECONFLICT when a
// unique value is taken, and EINVALID for a value the store cannot hold. Any
// other error is internal. Several processes may use one store at once (the
// server and the admin CLI, or many instances), so no method may rely on
// state kept in memory.
//
// Details that storetest holds every implementation to:
//   - an empty or unknown Plan in CreateAccount is EINVALID (no default plan);
//   - CreateFile and CreateKey for a missing account are ENOTFOUND, and so
//     are KeysByAccount of a missing account (an account without keys gets
//     an empty list), Revisions of a file without a page, and TouchKey and
//     RevokeKey of a missing key;
//   - a key whose kind and file do not match (a page key without a file, a
//     general key with one) or whose hash is empty is EINVALID;
//   - times come back in UTC with at least millisecond precision.
//
// Store embeds AppStore, what the web application needs beyond the public
// paths and the API; its own details are listed there.
type Store interface {
	AppStore

	// CreateAccount stores a new account. The email is lower-cased; a taken
	// email is ECONFLICT. ID and CreatedAt are set when empty.
	CreateAccount(ctx context.Context, a Account) (Account, error)
	// AccountByID returns the account with that ID.
	AccountByID(ctx context.Context, id AccountID) (Account, error)
	// AccountByEmail returns the account with that email (any case).
	AccountByEmail(ctx context.Context, email string) (Account, error)
	// SetAccountPlan changes an account's plan.
	SetAccountPlan(ctx context.Context, id AccountID, p Plan) error

	// CreateFile stores a new file record. Its blob must already be durable.
	// ID, Slug and CreatedAt are set when empty; a taken slug is ECONFLICT.
	CreateFile(ctx context.Context, f File) (File, error)
	// CreateFileReserved is CreateFile for an upload that holds the
	// reservation named reservation (Reserve): in one atomic step it removes
	// that reservation and stores f if f.Size, the account's other files and
	// its other reservations unexpired at now fit in limit (limit ≤ 0 is
	// unlimited); if not, nothing changes (the reservation stays until
	// released) and the error has code CodeQuotaExceeded. A reservation that is missing (released, or removed
	// after it expired) is not an error: the check alone decides.
	CreateFileReserved(ctx context.Context, f File, reservation string, limit int64, now time.Time) (File, error)
	// Reserve stores r, replacing any reservation with r.ID, if r.Bytes, the
	// account's files and its other reservations unexpired at now fit in
	// limit (limit ≤ 0 is unlimited). If they do not, nothing changes and
	// the error has code CodeQuotaExceeded. used is what the account's
	// files and other unexpired reservations take, either way. Check and
	// write are one atomic step across every process sharing the store. A
	// missing account is ENOTFOUND; a negative Bytes or an empty ID is
	// EINVALID.
	Reserve(ctx context.Context, r Reservation, limit int64, now time.Time) (used int64, err error)
	// ReleaseReservation removes a reservation; a missing one is not an
	// error.
	ReleaseReservation(ctx context.Context, id string) error
	// DeleteExpiredReservations removes the reservations that expired
	// before t and returns how many (they no longer count in any case).
	DeleteExpiredReservations(ctx context.Context, t time.Time) (int, error)
	// FileByID returns the file with that ID.
	FileByID(ctx context.Context, id FileID) (File, error)
	// FileBySlug returns the file whose public link is /f/<slug>.
	FileBySlug(ctx context.Context, slug string) (File, error)
	// AddDownloads adds each count to its file's download counter in one
	// transaction; files that no longer exist are skipped.
	AddDownloads(ctx context.Context, counts map[FileID]int64) error

	// CreateKey stores a new API key (its hash, never the secret). ID and
	// CreatedAt are set when empty. A page-bound key's file must exist and
	// belong to the key's account (else ENOTFOUND).
	CreateKey(ctx context.Context, k Key) (Key, error)
	// KeyByHash returns the key whose secret hashes to hash, revoked and
	// expired keys included (the caller decides with Key.Usable).
	KeyByHash(ctx context.Context, hash string) (Key, error)
	// KeysByAccount lists an account's keys, newest first, revoked included.
	KeysByAccount(ctx context.Context, id AccountID) ([]Key, error)
	// RevokeKey revokes one of the account's keys at the given time. A key
	// of another account is ENOTFOUND. Revoking twice keeps the first time.
	RevokeKey(ctx context.Context, account AccountID, id KeyID, at time.Time) error
	// TouchKey records that the key was used at the given time.
	TouchKey(ctx context.Context, id KeyID, at time.Time) error

	// SavePage stores w.HTML as the page's next revision, atomically: the
	// revision number, the HTML and the page's live/draft state change
	// together or not at all, and concurrent calls for one file are
	// serialised (the last to commit wins). With Publish the new revision
	// becomes live; without it the page becomes a draft (not live), even if
	// it was published. Identical HTML is stored once. Old revisions beyond
	// RevisionsKept that were never published are pruned. The file must
	// exist (else ENOTFOUND).
	SavePage(ctx context.Context, w PageWrite) (Page, error)
	// PageByFile returns a file's custom page; ENOTFOUND when it has none.
	PageByFile(ctx context.Context, id FileID) (Page, error)
	// Revision returns one revision of a file's page with its HTML.
	Revision(ctx context.Context, id FileID, number int) (Revision, error)
	// Revisions lists a page's kept revisions, newest first, without HTML.
	Revisions(ctx context.Context, id FileID) ([]Revision, error)

	// Secret returns the named server secret (e.g. the key that signs preview
	// links), creating it with generate on first use. Concurrent first calls
	// from several processes all get the same value.
	Secret(ctx context.Context, name string, generate func() []byte) ([]byte, error)

	// Ping reports whether the store is reachable.
	Ping(ctx context.Context) error
	// Close releases the store's resources.
	Close() error
}

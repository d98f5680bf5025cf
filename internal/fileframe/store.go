package fileframe

import "context"

// Store keeps Fileframe's metadata. Implementations: internal/sqlite (the
// embedded default) and internal/postgres; internal/storetest is the
// conformance suite both pass. It is made of one interface per entity, each
// beside its type (AccountStore in account.go, FileStore in file.go, …), and
// each implementation keeps the SQL of one table (or of one entity's
// tables) in one file of the same name.
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
//   - every method naming an account, file, key or session that does not
//     exist is ENOTFOUND (CreateFile, CreateKey, KeysByAccount and
//     FilesByAccount of a missing account; Revisions of a file without a
//     page; TouchKey and RevokeKey of a missing key), except DeleteSession
//     and DeleteAccountSessions (nothing to end is not an error); an account
//     without keys or files gets an empty list;
//   - a key whose kind and file do not match (a page key without a file, a
//     general key with one) or whose hash is empty is EINVALID;
//   - RenameFile checks the name with CheckFileName (EINVALID), so that no
//     caller can store a name a download could not carry; appearances are
//     stored as given (the web edge validates templates and colours);
//   - DeleteFile deletes, in one transaction, the page-bound keys of the
//     file, its page with every revision (and the HTML no other revision
//     shares), and its appearance; general keys are untouched;
//   - a revision published by SetLiveRevision gets PublishedAt (its first
//     publication time is kept if it had one), so pruning keeps it, and
//     the page's UpdatedAt becomes at;
//   - times come back in UTC with at least millisecond precision.
type Store interface {
	AccountStore
	AppearanceStore
	FileStore
	UploadStore
	KeyStore
	PageStore
	SessionStore
	IdempotencyStore
	LinkStore
	PreviewStore
	CollectionStore
	RequestStore
	WebhookStore
	StatsStore

	// Secret returns the named server secret (e.g. the key that signs preview
	// links), creating it with generate on first use. Concurrent first calls
	// from several processes all get the same value.
	Secret(ctx context.Context, name string, generate func() []byte) ([]byte, error)
	// Ping reports whether the store is reachable.
	Ping(ctx context.Context) error
	// Close releases the store's resources.
	Close() error
}

// SpaceChecker is what a store or blob store on a local file system (the
// embedded SQLite database, the disk blob store) also offers: CheckSpace
// returns an error of code CodeStorageFull when its disk has no more than
// its reserve free. Use cases that store something new and large (files,
// pages, images) ask it first and answer 507; the small writes that let an
// owner make room (sessions, deletions) do not, and the reserve is theirs.
type SpaceChecker interface {
	CheckSpace(ctx context.Context) error
}

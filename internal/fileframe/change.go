package fileframe

import "context"

// ChangeWatcher tells whether the store's contents may have changed: its
// Generation is a number that changes whenever any process (this one, the
// admin CLI, another instance) commits a change that can affect what
// visitors see. A cache of what was read from the store is valid while the
// generation it was read under is unchanged.
//
// Generation never decreases. When the watcher cannot vouch for the store
// (for example while it is reconnecting), it returns a new value on every
// call, so that nothing is cached. A caller must read the generation before
// the data it tags with it.
type ChangeWatcher interface {
	Generation(ctx context.Context) (uint64, error)
	// Close releases the watcher's resources (a connection, a goroutine).
	Close() error
}

// ChangeWatchingStore is a Store that can watch itself for changes made by
// any process (internal/sqlite and internal/postgres). A Store without it
// is read afresh on every request.
type ChangeWatchingStore interface {
	// WatchChanges starts a ChangeWatcher on the store; Close it before the
	// store.
	WatchChanges(ctx context.Context) (ChangeWatcher, error)
}

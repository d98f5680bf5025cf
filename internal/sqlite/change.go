package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// ChangeWatcher is fileframe.ChangeWatcher on a SQLite file: it asks SQLite
// on every call, on a connection of its own, whether any other connection
// has committed since the last call.
//
// PRAGMA data_version returns a value that changes when another connection
// (this process's writer, or any connection of another process, such as the
// admin CLI) has committed to the file since the last time the same
// connection asked (https://www.sqlite.org/pragma.html#pragma_data_version).
// It is answered from the WAL index in shared memory, so it is exact across
// processes at the cost of one small statement, and no change can be missed
// by asking too seldom. It sees every commit, download counts included, so a
// cache is emptied at most once per count flush (about a second) on a busy
// server.
type ChangeWatcher struct {
	db   *sql.DB
	conn *sql.Conn
	stmt *sql.Stmt

	mu      sync.Mutex // serialises the statement on conn
	version int64      // the last data_version read
	gen     uint64     // how many times version has changed
	// started counts the checks begun; lastStart is the number of the last
	// one completed. A caller that arrives while a check runs may use the
	// result of any check begun after it arrived, instead of running one
	// more.
	started   atomic.Uint64
	lastStart uint64
}

var _ fileframe.ChangeWatcher = (*ChangeWatcher)(nil)

// WatchChanges opens a ChangeWatcher on the store's database file. It holds
// one read connection of its own until Close.
func (s *Store) WatchChanges(ctx context.Context) (fileframe.ChangeWatcher, error) {
	w, err := s.watchChanges(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: watch changes: %w", err)
	}
	return w, nil
}

func (s *Store) watchChanges(ctx context.Context) (*ChangeWatcher, error) {
	var seq int
	var name, file string
	if err := s.read.QueryRowContext(ctx, `PRAGMA database_list`).Scan(&seq, &name, &file); err != nil {
		return nil, err
	}
	if file == "" {
		return nil, errors.New("the database has no file")
	}
	db, err := sql.Open("sqlite", dsn(file, append(commonPragmas, readPragmas...), ""))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	w := &ChangeWatcher{db: db}
	if w.conn, err = db.Conn(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if w.stmt, err = w.conn.PrepareContext(ctx, `PRAGMA data_version`); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.stmt.QueryRowContext(ctx).Scan(&w.version); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Generation returns a number that changes when any connection but the
// watcher's own has committed to the database since the previous call.
func (w *ChangeWatcher) Generation(ctx context.Context) (uint64, error) {
	arrived := w.started.Load()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lastStart > arrived {
		// A check that began after this call arrived has just completed.
		return w.gen, nil
	}
	n := w.started.Add(1)
	var v int64
	if err := w.stmt.QueryRowContext(ctx).Scan(&v); err != nil {
		return 0, fmt.Errorf("sqlite: data_version: %w", err)
	}
	if v != w.version {
		w.version = v
		w.gen++
	}
	w.lastStart = n
	return w.gen, nil
}

// Close releases the watcher's connection.
func (w *ChangeWatcher) Close() error {
	var errs []error
	if w.stmt != nil {
		errs = append(errs, w.stmt.Close())
	}
	if w.conn != nil {
		errs = append(errs, w.conn.Close())
	}
	errs = append(errs, w.db.Close())
	return errors.Join(errs...)
}

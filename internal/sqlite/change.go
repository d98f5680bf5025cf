package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
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
	// stmt is PRAGMA data_version prepared on conn's driver connection,
	// used only inside conn.Raw: database/sql's own statement machinery
	// (pool bookkeeping, Rows, Scan) cost as much as the statement.
	stmt driver.Stmt
	dest []driver.Value

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
	err = w.conn.Raw(func(dc any) error {
		c, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("driver connection %T cannot prepare", dc)
		}
		w.stmt, err = c.PrepareContext(ctx, `PRAGMA data_version`)
		return err
	})
	if err == nil {
		w.dest = make([]driver.Value, 1)
		w.version, err = w.dataVersion(ctx)
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// dataVersion runs PRAGMA data_version; the caller holds mu (or is alone).
func (w *ChangeWatcher) dataVersion(ctx context.Context) (int64, error) {
	var v int64
	err := w.conn.Raw(func(any) error {
		q, ok := w.stmt.(driver.StmtQueryContext)
		if !ok {
			return fmt.Errorf("driver statement %T cannot query", w.stmt)
		}
		rows, err := q.QueryContext(ctx, nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		if err := rows.Next(w.dest); err != nil {
			return err
		}
		n, ok := w.dest[0].(int64)
		if !ok {
			return fmt.Errorf("data_version is a %T", w.dest[0])
		}
		v = n
		return nil
	})
	return v, err
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
	v, err := w.dataVersion(ctx)
	if err != nil {
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
		errs = append(errs, w.conn.Raw(func(any) error { return w.stmt.Close() }))
	}
	if w.conn != nil {
		errs = append(errs, w.conn.Close())
	}
	errs = append(errs, w.db.Close())
	return errors.Join(errs...)
}

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

// ChangeWatcher is fileframe.ChangeWatcher on a SQLite file: it tells, on
// every call, whether any connection (of this process or another, such as
// the admin CLI) has committed to the file since the last call. It has two
// ways to ask, both exact across processes:
//
//   - The wal-index header (change_walindex.go): SQLite writes it into the
//     database's -shm file, shared memory that every connection of every
//     process maps, as part of each commit and before the commit returns. The
//     watcher maps the same file read-only and compares the header with the
//     one it saw last: 24 atomic loads, no lock, no system call. This is the
//     way on the platforms where the file can be mapped.
//   - PRAGMA data_version (https://www.sqlite.org/pragma.html#pragma_data_version)
//     on a connection of the watcher's own, answered from the same header
//     but inside a read transaction (two fcntl locks and a statement, about
//     5 µs); it changes when any other connection has committed since the
//     same connection last asked. It is the fallback where the file cannot
//     be mapped.
//
// SQLITE_FCNTL_DATA_VERSION (sqlite3_file_control) would not do: it returns
// the pager's counter as of the connection's last read transaction, so it
// misses other processes' commits until a statement runs.
//
// Both see every commit, download counts included, so a cache is emptied at
// most once per count flush (about a second) on a busy server.
type ChangeWatcher struct {
	db   *sql.DB
	conn *sql.Conn

	// index is the mapped wal-index, or nil when data_version is used.
	// Close unmaps it under closeMu, and calls read it under closeMu's read
	// lock: reading an unmapped address would crash the process, and
	// http.Server.Close does not wait for the handlers it cuts off.
	index   *walIndex
	closeMu sync.RWMutex
	closed  bool
	// seen is the header last read from index and the generation it was
	// given; swapped under mu.
	seen atomic.Pointer[seenHeader]

	// stmt is PRAGMA data_version prepared on conn's driver connection,
	// used only inside conn.Raw: database/sql's own statement machinery
	// (pool bookkeeping, Rows, Scan) cost as much as the statement.
	stmt driver.Stmt
	dest []driver.Value

	mu      sync.Mutex // serialises the statement on conn, and changes of seen
	version int64      // the last data_version read
	gen     uint64     // how many times version has changed
	// started counts the checks begun; lastStart is the number of the last
	// one completed. A caller that arrives while a check runs may use the
	// result of any check begun after it arrived, instead of running one
	// more.
	started   atomic.Uint64
	lastStart uint64

	closeOnce sync.Once
	closeErr  error
}

// seenHeader is a wal-index header and the generation given to it.
type seenHeader struct {
	header walHeader
	gen    uint64
}

var _ fileframe.ChangeWatcher = (*ChangeWatcher)(nil)

// WatchChanges opens a ChangeWatcher on the store's database file. It holds
// one read connection of its own until Close.
func (s *Store) WatchChanges(ctx context.Context) (fileframe.ChangeWatcher, error) {
	w, err := s.watchChanges(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("sqlite: watch changes: %w", err)
	}
	return w, nil
}

// watchChanges opens a ChangeWatcher; with dataVersionOnly it does not
// try the wal-index (the tests use it to cover the fallback).
func (s *Store) watchChanges(ctx context.Context, dataVersionOnly bool) (*ChangeWatcher, error) {
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
	// The watcher's connection has now read the database, so it has the
	// WAL and its -shm file open. SQLite truncates or deletes that file only
	// when no connection has it open, so the mapping stays valid until
	// Close closes the connection.
	if !dataVersionOnly {
		if w.index, err = mapWALIndex(file + "-shm"); err != nil {
			w.Close()
			return nil, err
		}
		if w.index != nil {
			w.seen.Store(&seenHeader{header: w.index.header()})
		}
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
	if w.index != nil {
		w.closeMu.RLock()
		defer w.closeMu.RUnlock()
		if w.closed {
			return 0, errors.New("sqlite: the change watcher is closed")
		}
		return w.indexGeneration(), nil
	}
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

// indexGeneration is Generation through the mapped wal-index: the
// generation of the header last seen, one more when the header differs.
// A header read while a commit writes it may mix old and new words; it then
// differs from both and costs one spurious change, never a missed one: the
// commits that returned before the call have finished writing.
func (w *ChangeWatcher) indexGeneration() uint64 {
	seen := w.seen.Load()
	if w.index.header() == seen.header {
		return seen.gen
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// Read again under the lock: the header only moves forward, and another
	// caller may have recorded a newer one meanwhile.
	h := w.index.header()
	seen = w.seen.Load()
	if h == seen.header {
		return seen.gen
	}
	w.seen.Store(&seenHeader{header: h, gen: seen.gen + 1})
	return seen.gen + 1
}

// Close releases the watcher's connection and its mapping. Generation
// fails after Close; Close may be called more than once.
func (w *ChangeWatcher) Close() error {
	w.closeOnce.Do(func() {
		var errs []error
		if w.index != nil {
			w.closeMu.Lock()
			w.closed = true
			errs = append(errs, w.index.unmap())
			w.closeMu.Unlock()
		}
		if w.stmt != nil {
			errs = append(errs, w.conn.Raw(func(any) error { return w.stmt.Close() }))
		}
		if w.conn != nil {
			errs = append(errs, w.conn.Close())
		}
		errs = append(errs, w.db.Close())
		w.closeErr = errors.Join(errs...)
	})
	return w.closeErr
}

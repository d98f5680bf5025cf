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
// Both see every commit. Most commits cannot change what visitors see:
// download counts, statistics, sessions, webhook deliveries. So when either
// sees one, the watcher reads the counter that migration 015's triggers bump
// on every write that can (the same tables and columns as PostgreSQL's
// notifications), on its own connection, and moves the generation only when
// that counter has moved. The read costs about as much as data_version, once
// per commit rather than per call.
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
	// counter is publicCounterQuery prepared on conn's driver connection,
	// used as stmt is.
	counter driver.Stmt
	dest    []driver.Value

	mu      sync.Mutex // serialises the statements on conn, and changes of seen
	version int64      // the last data_version read
	changes int64      // the counter last read; unknownChanges after a failed read
	gen     uint64     // how many times changes has moved
	// started counts the checks begun; lastStart is the number of the last
	// one completed. A caller that arrives while a check runs may use the
	// result of any check begun after it arrived, instead of running one
	// more.
	started   atomic.Uint64
	lastStart uint64

	closeOnce sync.Once
	closeErr  error
}

// seenHeader is a wal-index header, the counter of public changes read
// after it, and the generation given to them.
type seenHeader struct {
	header  walHeader
	changes int64
	gen     uint64
}

// publicCounterQuery reads the counter of migration 015.
const publicCounterQuery = `SELECT n FROM public_changes WHERE id = 1`

// unknownChanges stands for a counter that could not be read: it never
// equals one read, so the next read moves the generation.
const unknownChanges = -1

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
		if w.stmt, err = c.PrepareContext(ctx, `PRAGMA data_version`); err != nil {
			return err
		}
		w.counter, err = c.PrepareContext(ctx, publicCounterQuery)
		return err
	})
	if err == nil {
		w.dest = make([]driver.Value, 1)
		w.version, err = w.queryInt(ctx, w.stmt)
	}
	if err == nil {
		w.changes, err = w.queryInt(ctx, w.counter)
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
			// The header first: a commit after it is read moves it again.
			h := w.index.header()
			changes, err := w.queryInt(ctx, w.counter)
			if err != nil {
				w.Close()
				return nil, err
			}
			w.seen.Store(&seenHeader{header: h, changes: changes})
		}
	}
	return w, nil
}

// queryInt runs stmt (PRAGMA data_version or publicCounterQuery) and
// returns its one integer; the caller holds mu (or is alone).
func (w *ChangeWatcher) queryInt(ctx context.Context, stmt driver.Stmt) (int64, error) {
	var v int64
	err := w.conn.Raw(func(any) error {
		q, ok := stmt.(driver.StmtQueryContext)
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
			return fmt.Errorf("the answer is a %T", w.dest[0])
		}
		v = n
		return nil
	})
	return v, err
}

// Generation returns a number that changes when any connection has
// committed a change that can affect visitors (see migration 015) since
// the previous call.
func (w *ChangeWatcher) Generation(ctx context.Context) (uint64, error) {
	if w.index != nil {
		w.closeMu.RLock()
		defer w.closeMu.RUnlock()
		if w.closed {
			return 0, errors.New("sqlite: the change watcher is closed")
		}
		return w.indexGeneration(ctx), nil
	}
	arrived := w.started.Load()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lastStart > arrived {
		// A check that began after this call arrived has just completed.
		return w.gen, nil
	}
	n := w.started.Add(1)
	v, err := w.queryInt(ctx, w.stmt)
	if err != nil {
		return 0, fmt.Errorf("sqlite: data_version: %w", err)
	}
	if v != w.version {
		changes, err := w.queryInt(ctx, w.counter)
		if err != nil {
			// version is not recorded, so the next call reads again.
			return 0, fmt.Errorf("sqlite: public changes: %w", err)
		}
		w.version = v
		if changes != w.changes {
			w.changes = changes
			w.gen++
		}
	}
	w.lastStart = n
	return w.gen, nil
}

// indexGeneration is Generation through the mapped wal-index: the
// generation of the header last seen; when the header differs, the counter
// of public changes is read, and the generation moves if it has.
//
// The header is read before the counter, in a read transaction begun after
// it: the counter then includes every commit the header shows, and a commit
// after the header was read moves the header again, so the next call reads
// the counter again. A header read while a commit writes it may mix old and
// new words; it then differs from the final one too, and costs one more
// read of the counter, never a missed change: the commits that returned
// before the call have finished writing.
//
// A failed read of the counter moves the generation (an emptied cache is
// the safe mistake) and is recorded as unknownChanges, so that the next
// read moves it again.
func (w *ChangeWatcher) indexGeneration(ctx context.Context) uint64 {
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
	// The read is not the caller's to cancel: other callers wait on it.
	changes, err := w.queryInt(context.WithoutCancel(ctx), w.counter)
	if err != nil {
		changes = unknownChanges
	}
	next := &seenHeader{header: h, changes: changes, gen: seen.gen}
	if changes != seen.changes || changes == unknownChanges {
		next.gen++
	}
	w.seen.Store(next)
	return next.gen
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
		for _, stmt := range []driver.Stmt{w.stmt, w.counter} {
			if stmt != nil {
				errs = append(errs, w.conn.Raw(func(any) error { return stmt.Close() }))
			}
		}
		if w.conn != nil {
			errs = append(errs, w.conn.Close())
		}
		errs = append(errs, w.db.Close())
		w.closeErr = errors.Join(errs...)
	})
	return w.closeErr
}

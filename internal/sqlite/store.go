// Package sqlite is Fileframe's embedded metadata store: fileframe.Store on a
// single SQLite file, through the pure-Go driver modernc.org/sqlite.
//
// The database runs in WAL mode with foreign keys on and synchronous=FULL, so
// a write is durable when its method returns. A Store keeps two connection
// pools on the file: readers, which run concurrently and never write, and a
// single writer connection owned by one goroutine, which runs every write in
// a BEGIN IMMEDIATE transaction and commits concurrent writes together
// (group commit, see write.go). SQLite allows one writer at a time; taking
// the write lock at BEGIN, rather than on the first write of a deferred
// transaction, means a writer waits for the lock (busy_timeout) instead of
// failing with SQLITE_BUSY when it cannot upgrade a read lock, and one writer
// per process means the writes of one process queue in Go rather than in
// SQLite's sleep-and-retry busy handler. Other processes on the same file
// (the admin CLI while a server runs) queue on busy_timeout, and a write that
// still meets SQLITE_BUSY is retried, so callers never see it.
//
// Schema changes are numbered migrations, migrations/NNN-name.sql, embedded
// in the binary and applied by Open; see Open.
//
// Times are stored as INTEGER Unix milliseconds in UTC, and read back as UTC
// time.Time values truncated to the millisecond; the zero time.Time is stored
// as NULL.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/fileframe/fileframe/internal/diskspace"
	"github.com/fileframe/fileframe/internal/fileframe"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is fileframe.Store on a SQLite database file. It is safe for
// concurrent use, and several Stores (in one process or several) may use one
// file at once.
type Store struct {
	dir string // the database file's directory (CheckSpace)
	// ballast holds the disk's reserve for the writes that make room
	// (KeepReserve); nil unless asked for.
	ballast *diskspace.Ballast
	read    *sql.DB // concurrent, query_only connections
	// One connection, which the writer goroutine holds (writer). Its DSN
	// also sets _txlock=immediate, so that any BeginTx on it would take the
	// write lock at once too.
	write *sql.DB

	calls      chan *writeCall // to the writer goroutine; see write.go
	writer     writerConn      // the writer goroutine's connection
	quit       chan struct{}   // closed by Close
	writerDone chan struct{}   // closed when the writer goroutine returns
	closeOnce  sync.Once
	closeErr   error

	// Statements of the reads on the request paths, prepared once on each
	// reader connection: parsing and planning is about a third of the cost
	// of a lookup by key.
	accountByID, fileByID, fileBySlug, keyByHash, pageByFile, revision, sessionByHash *sql.Stmt
	// The appearances, read by a public page's cache miss: one
	// statement each, the owner's row joined to its appearance, instead
	// of a read transaction of an existence check and a read whose four
	// statements were each parsed anew (a fifth of a miss's time).
	accountAppearance, fileAppearance *sql.Stmt
	// revisionHead is a live revision's hash and the start of its HTML,
	// read by a public page's cache miss for the page's title.
	revisionHead *sql.Stmt
	// prepared is every statement above that prepare made, for Close.
	prepared []*sql.Stmt
}

var _ fileframe.Store = (*Store)(nil)

// busyTimeout is how long a statement waits for a lock held by another
// connection (usually another process's writer) before SQLite gives up with
// SQLITE_BUSY.
const busyTimeout = 10 * time.Second

// Pragmas for every connection, set through the DSN so that each pooled
// connection gets them when it is opened, not only the first one.
//
// synchronous is FULL, not the NORMAL often recommended with WAL: in WAL mode
// NORMAL syncs the log only at checkpoints, so the last transactions before a
// power loss or OS crash can be rolled back although their commits returned.
// A stored page is acknowledged to the API caller, and a file row is
// committed after its blob is durable, so a commit has to be durable when it
// returns (https://www.sqlite.org/pragma.html#pragma_synchronous).
var (
	commonPragmas = []string{
		fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()),
		"foreign_keys(1)",
	}
	writePragmas = []string{
		"journal_mode(WAL)",
		"synchronous(FULL)",
		// After a checkpoint, truncate the WAL back to this size so a burst
		// of writes does not leave a large file behind.
		"journal_size_limit(67108864)",
	}
	readPragmas = []string{
		"query_only(1)",
	}
)

// Open opens (creating if needed) the database at path, applies pending migrations and refuses a database whose schema is newer than this binary.
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	write, err := sql.Open("sqlite", dsn(abs, append(commonPragmas, writePragmas...), "immediate"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)

	read, err := sql.Open("sqlite", dsn(abs, append(commonPragmas, readPragmas...), ""))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)

	s := &Store{
		dir:        filepath.Dir(abs),
		read:       read,
		write:      write,
		calls:      make(chan *writeCall),
		quit:       make(chan struct{}),
		writerDone: make(chan struct{}),
	}
	go s.runWriter()
	// The writer is used first: it creates the file and switches it to WAL,
	// which readers then find already done.
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := openAll(ctx, read, n); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return s, nil
}

// openAll opens the pool's n connections now and leaves them idle in it,
// where they stay (no idle timeout, no lifetime): a read then never has to
// open the database file while the process may be out of file descriptors
// (a burst of connections), which SQLite would report as "unable to open
// database file".
func openAll(ctx context.Context, db *sql.DB, n int) error {
	conns := make([]*sql.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		if err := c.PingContext(ctx); err != nil {
			return err
		}
	}
	return nil
}

// prepare prepares the statements of the hot reads on the reader pool.
func (s *Store) prepare(ctx context.Context) error {
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{
		{&s.accountByID, `SELECT ` + accountColumns + ` FROM accounts WHERE id = ?`},
		{&s.fileByID, `SELECT ` + fileColumns + ` FROM files WHERE id = ?`},
		{&s.fileBySlug, `SELECT ` + fileColumns + ` FROM files WHERE slug = ?`},
		{&s.keyByHash, `SELECT ` + keyColumns + ` FROM api_keys WHERE hash = ?`},
		{&s.pageByFile, `SELECT ` + pageColumns + ` FROM pages WHERE file_id = ?`},
		{&s.revision, `SELECT r.file_id, r.number, r.sha256, r.size, r.created_at, r.published_at, h.html, v.sha256, v.html
			FROM page_revisions r JOIN page_html h ON h.sha256 = r.sha256
			LEFT JOIN page_served v ON v.file_id = r.file_id AND v.number = r.number
			WHERE r.file_id = ? AND r.number = ?`},
		{&s.sessionByHash, `SELECT hash, account_id, created_at, last_seen_at, expires_at FROM sessions WHERE hash = ?`},
		{&s.accountAppearance, ownedAppearance("accounts", "account_appearances", "account_id")},
		{&s.fileAppearance, ownedAppearance("files", "file_appearances", "file_id")},
		{&s.revisionHead, `SELECT r.sha256, substr(h.html, 1, ?3)
			FROM page_revisions r JOIN page_html h ON h.sha256 = r.sha256
			WHERE r.file_id = ?1 AND r.number = ?2`},
	} {
		stmt, err := s.read.PrepareContext(ctx, p.query)
		if err != nil {
			return fmt.Errorf("sqlite: prepare %q: %w", p.query, err)
		}
		*p.stmt = stmt
		s.prepared = append(s.prepared, stmt)
	}
	return nil
}

// dsn returns the driver's data source name for the database file at the
// absolute path abs, as a file: URI so that any character may appear in the
// path.
func dsn(abs string, pragmas []string, txlock string) string {
	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	if txlock != "" {
		q.Set("_txlock", txlock)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String()
}

// Close waits for the write in progress, if any, and closes the store's
// connections; later calls fail. The writer connection closes last: as the
// last connection to the file it checkpoints the WAL into the database.
// Calling Close again returns the first call's result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.quit)
		<-s.writerDone
		var errs []error
		for _, stmt := range s.prepared {
			errs = append(errs, stmt.Close())
		}
		errs = append(errs, s.read.Close(), s.write.Close())
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// Ping reports whether the database can be read.
func (s *Store) Ping(ctx context.Context) error {
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	return s.CheckSpace(ctx)
}

// CheckSpace returns an error of code CodeStorageFull (507) when the file
// system of the database has no more than its reserve free
// (diskspace.Check): what would grow the database (new files, pages) is
// then refused up front, and the reserve is left for what lets an owner
// make room (sessions, deletions).
func (s *Store) CheckSpace(ctx context.Context) error {
	if s.ballast != nil {
		return s.ballast.CheckRoom()
	}
	return diskspace.Check(s.dir)
}

// KeepReserve keeps the disk's reserve in a ballast file beside the
// database (diskspace.Ballast): a write that finds the disk full releases
// it and is tried again, so that signing in and deleting files work even
// when uploads already streaming filled the disk to its last byte; new
// uploads and pages stay refused (CheckSpace) until it is made again.
// Serve and the admin commands ask for it; tests need not.
func (s *Store) KeepReserve() {
	s.ballast = diskspace.NewBallast(s.dir)
}

// isFull reports whether err is the disk full, as SQLite or the system
// says it.
func isFull(err error) bool {
	return err != nil && (sqliteCode(err)&0xff == sqlite3.SQLITE_FULL || diskspace.IsNoSpace(err) ||
		fileframe.ErrorCode(err) == fileframe.CodeStorageFull)
}

// SchemaVersion returns the number of the last applied migration.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.read.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("sqlite: schema version: %w", err)
	}
	return v, nil
}

// busyRetries is how many times a write batch that failed with SQLITE_BUSY
// or SQLITE_LOCKED is tried again. busy_timeout already waits for ordinary
// lock contention; these retries cover the cases where SQLite returns BUSY
// without waiting (e.g. SQLITE_BUSY_RECOVERY while another process recovers
// the WAL) and a lock held longer than busy_timeout.
const busyRetries = 5

// readTx runs fn in a read transaction, so that the several queries of one
// read see one snapshot.
func (s *Store) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// sqliteCode returns SQLite's extended result code carried by err, or 0.
func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

// isUnique reports whether err is a UNIQUE or PRIMARY KEY violation.
func isUnique(err error) bool {
	c := sqliteCode(err)
	return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// isCheck reports whether err is a CHECK violation: a value the schema does
// not allow.
func isCheck(err error) bool {
	return sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_CHECK
}

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED, with any
// extended code.
func isBusy(err error) bool {
	c := sqliteCode(err) & 0xff
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

// wrap adds the operation to an internal error; a *fileframe.Error is
// returned as it is, so its code reaches the caller.
func wrap(op string, err error) error {
	var fe *fileframe.Error
	if err == nil || errors.As(err, &fe) {
		return err
	}
	if isCheck(err) {
		return fmt.Errorf("sqlite: %s: %w: %w", op, fileframe.Errorf(fileframe.EINVALID, "The store cannot hold this value."), err)
	}
	if sqliteCode(err)&0xff == sqlite3.SQLITE_FULL || diskspace.IsNoSpace(err) {
		return fmt.Errorf("sqlite: %s: %w: %w", op, diskspace.ErrFull, err)
	}
	if sqliteCode(err)&0xff == sqlite3.SQLITE_CANTOPEN {
		// The file was opened at Open: failing to open it (or its journal)
		// again now is the process out of file descriptors for a moment.
		return fmt.Errorf("sqlite: %s: %w: %w", op, fileframe.Errorf(fileframe.CodeBusy,
			"The server has as many files and connections open as it may; try again in a few seconds."), err)
	}
	return fmt.Errorf("sqlite: %s: %w", op, err)
}

// millis is the stored form of t: Unix milliseconds, or NULL for the zero
// time.
func millis(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// fromMillis is the time stored as ms; NULL is the zero time.
func fromMillis(ms sql.NullInt64) time.Time {
	if !ms.Valid {
		return time.Time{}
	}
	return time.UnixMilli(ms.Int64).UTC()
}

// stored returns t as it reads back from the database: UTC, truncated to the
// millisecond; the zero time stays zero.
func stored(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}

// now returns the current time as the store keeps it.
func now() time.Time { return stored(time.Now()) }

// notFound returns an ENOTFOUND error with a user-safe message.
func notFound(what string) error {
	return fileframe.Errorf(fileframe.ENOTFOUND, "%s not found.", what)
}

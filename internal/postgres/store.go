// Package postgres is Fileframe's shared metadata store: fileframe.Store on
// PostgreSQL, through pgx and a pgxpool connection pool. It is what several
// instances of Fileframe use at once behind a load balancer (DESIGN.md,
// "Scale-out"), and it behaves as internal/sqlite does: both pass
// internal/storetest, and the schema is the same tables, columns,
// constraints and indexes.
//
// Nothing is kept in memory between calls, so every instance sees every
// other's writes at once. Every method is one statement, or one transaction
// in READ COMMITTED, PostgreSQL's default; the places where concurrent
// writers from several instances meet (SavePage on one page, the first
// Secret, migrations at start) are serialised by row or advisory locks rather
// than by stricter isolation, so they wait instead of failing. A transaction
// that still fails with a deadlock or a serialization failure is retried.
//
// Schema changes are numbered migrations, migrations/NNN-name.sql, embedded
// in the binary and applied by Open; see Open.
//
// Store is also the fileframe.RateLimiter that instances on one database
// share (Allow, in ratelimit.go), so that a rate limit hit through one
// instance is felt on all.
//
// Times are stored as timestamptz, written in UTC truncated to the
// millisecond (as internal/sqlite keeps them) and read back as UTC time.Time
// values; the zero time.Time is stored as NULL.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is fileframe.Store on a PostgreSQL database. It is safe for
// concurrent use, and any number of Stores (in one process or many) may use
// one database at once.
type Store struct {
	pool *pgxpool.Pool
	// ratePurge is when Allow last deleted full buckets, in Unix
	// nanoseconds.
	ratePurge atomic.Int64
}

var _ fileframe.Store = (*Store)(nil)

// Open connects to the database at url (postgres://...), applies pending
// migrations and refuses a database whose schema is newer than this binary.
//
// The URL takes libpq's parameters (sslmode, connect_timeout, ...) and
// pgxpool's, among them pool_max_conns, the size of the connection pool
// (default: the larger of 4 and the number of CPUs). Statements are
// prepared once per connection and cached, pgx's default.
//
// A connection that is not made within connect_timeout (default 10 s), and
// a statement, or a wait for a pooled connection, that gets no answer within
// 20 s, fail with CodeUnavailable: a database that accepts connections and
// then answers nothing holds no request longer than that (see deadline.go).
func Open(ctx context.Context, url string) (*Store, error) {
	return openDeadline(ctx, url, defaultStatementDeadline)
}

// openDeadline is Open with the statement deadline d (none when 0).
func openDeadline(ctx context.Context, url string, d time.Duration) (*Store, error) {
	config, err := pgxpool.ParseConfig(url)
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		// Its message quotes the URL with the password redacted only on a
		// best-effort basis (see ParseConfigError.Error), and this error is
		// logged: say what is wrong without the URL.
		return nil, errors.New("postgres: open: cannot parse the database URL; want postgres://user:password@host:port/database?sslmode=...")
	} else if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if _, ok := config.ConnConfig.RuntimeParams["application_name"]; !ok {
		config.ConnConfig.RuntimeParams["application_name"] = "fileframe"
	}
	if config.ConnConfig.ConnectTimeout == 0 {
		config.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	config.ConnConfig.Tracer = deadlineTracer{d: d}
	pool, err := pgxpool.NewWithConfig(ctx, config)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	s := &Store{pool: pool}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the store's connections, waiting for those in use to be
// released. Closing twice is harmless.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// Ping reports whether the database can be read.
func (s *Store) Ping(ctx context.Context) error {
	if _, err := s.SchemaVersion(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

// SchemaVersion returns the number of the last applied migration.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, wrap("schema version", err)
	}
	return v, nil
}

// txRetries is how many times a transaction that failed with a transient
// error (see retryable) is tried again.
const txRetries = 5

// inTx runs fn in a READ COMMITTED transaction and commits it, retrying the
// whole transaction when it fails with a transient error. fn may be called
// more than once, so it must not have effects outside tx.
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return retry(ctx, func() error { return pgx.BeginFunc(ctx, s.pool, fn) })
}

// retry calls fn until it succeeds, fails with an error that is not
// transient, or has been tried txRetries+1 times.
func retry(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || !retryable(err) || attempt == txRetries {
			return err
		}
		delay := time.Duration(attempt+1) * 10 * time.Millisecond
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
	}
}

// readTx runs fn in a read-only REPEATABLE READ transaction, so that the
// several queries of one read see one snapshot.
func (s *Store) readTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// ts is the stored form of t: a timestamptz in UTC truncated to the
// millisecond, or NULL for the zero time.
func ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return stored(t)
}

// fromTS is the time stored as v, in UTC; NULL is the zero time.
func fromTS(v pgtype.Timestamptz) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return v.Time.UTC()
}

// stored returns t as it reads back from the database: UTC, truncated to the
// millisecond; the zero time stays zero. PostgreSQL keeps microseconds, but
// both stores keep milliseconds so that they return the same values.
func stored(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}

// now returns the current time as the store keeps it.
func now() time.Time { return stored(time.Now()) }

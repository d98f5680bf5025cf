package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Writes go through one goroutine per Store, the writer, which owns the
// single writer connection and commits concurrent write calls together
// (group commit): it takes every call waiting when it becomes free, runs them
// one after another in one BEGIN IMMEDIATE transaction, each inside its own
// SAVEPOINT, and commits once. With synchronous=FULL a commit costs an fsync
// of the WAL, which is most of a write's time; sharing it lets throughput
// grow with the number of concurrent writers instead of being capped at one
// write per fsync. Nothing waits to fill a batch: a call that finds the
// writer free is committed at once.
//
// Each call stays atomic and isolated: a call that fails is rolled back to
// its savepoint and the others in the batch commit; a failed commit fails
// every call in the batch, none of which then took effect. Calls of one batch
// run in the order they arrived, each seeing the writes of the ones before
// it, exactly as if they had been separate transactions.

// maxBatch bounds the calls committed together, and so the size of one
// transaction in the WAL.
const maxBatch = 64

// querier is what a write function may use: the writer connection, inside
// the transaction. *sql.Tx (in read transactions) satisfies it too.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// writeFunc is one write call's work. It must use the ctx it is given, not
// its caller's, and may run more than once (when a batch is retried), so it
// must have no effects outside q.
type writeFunc func(ctx context.Context, q querier) error

// States of a writeCall.
const (
	callWaiting   int32 = iota // in a batch, not started
	callStarted                // its function ran or is running; the caller waits for the commit
	callAbandoned              // its caller's context ended before it started; it will not run
)

type writeCall struct {
	ctx    context.Context
	fn     writeFunc
	state  atomic.Int32
	result chan error // buffered: the writer never blocks on an abandoned call
}

// start reports whether the call is to run (again), marking it started.
func (c *writeCall) start() bool {
	return c.state.CompareAndSwap(callWaiting, callStarted) || c.state.Load() == callStarted
}

// run runs the call's function, turning a panic into a *callPanic error
// that inTx raises again in the caller's goroutine: the writer goroutine
// must survive, or every later write would wait forever.
func (c *writeCall) run(ctx context.Context, q querier) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &callPanic{value: v}
		}
	}()
	return c.fn(ctx, q)
}

// callPanic carries a panic of a write function to its caller.
type callPanic struct{ value any }

func (p *callPanic) Error() string { return fmt.Sprintf("sqlite: write panicked: %v", p.value) }

// errClosed is returned by a write on a closed Store.
var errClosed = errors.New("sqlite: store is closed")

// inTx runs fn in a write transaction and returns once it is durably
// committed (or has failed). Until fn starts, the call can be abandoned by
// ending ctx; once it has started, it waits for the commit, which is short
// because the transaction already holds the write lock.
func (s *Store) inTx(ctx context.Context, fn writeFunc) error {
	c := &writeCall{ctx: ctx, fn: fn, result: make(chan error, 1)}
	select {
	case s.calls <- c:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.quit:
		return errClosed
	}
	var err error
	select {
	case err = <-c.result:
	case <-ctx.Done():
		if c.state.CompareAndSwap(callWaiting, callAbandoned) {
			return ctx.Err()
		}
		err = <-c.result
	}
	if p, ok := err.(*callPanic); ok {
		panic(p.value)
	}
	return err
}

// runWriter is the writer goroutine: it takes a waiting call, every other
// call waiting at that moment (calls is unbuffered, so these are callers
// blocked in inTx), and commits them as one batch, until the Store closes.
func (s *Store) runWriter() {
	defer close(s.writerDone)
	defer s.writer.drop()
	batch := make([]*writeCall, 0, maxBatch)
	for {
		select {
		case c := <-s.calls:
			batch = append(batch[:0], c)
		case <-s.quit:
			return
		}
	collect:
		for len(batch) < maxBatch {
			select {
			case c := <-s.calls:
				batch = append(batch, c)
			default:
				break collect
			}
		}
		s.runBatch(batch)
		clear(batch) // let the calls be collected
	}
}

// runBatch commits the batch, retrying it when SQLite reports the database
// busy (see busyRetries), and delivers each call's result.
func (s *Store) runBatch(batch []*writeCall) {
	// Waiting for the write lock ends when every caller has gone.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var live atomic.Int32
	live.Store(int32(len(batch)))
	for _, c := range batch {
		stop := context.AfterFunc(c.ctx, func() {
			if live.Add(-1) == 0 {
				cancel()
			}
		})
		defer stop()
	}

	var errs []error
	var err error
	for attempt := 0; ; attempt++ {
		errs, err = s.runBatchOnce(ctx, batch)
		if err == nil || !isBusy(err) || attempt == busyRetries {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt+1) * 20 * time.Millisecond):
			continue
		}
		break
	}
	// A full disk: the ballast's room (KeepReserve) lets the writes that
	// make room through. The whole batch again when nothing was committed,
	// else only the calls that failed.
	switch {
	case isFull(err) && s.ballast.Release():
		errs, err = s.runBatchOnce(ctx, batch)
	case err == nil:
		var again []*writeCall
		var at []int
		for i, e := range errs {
			if isFull(e) {
				again, at = append(again, batch[i]), append(at, i)
			}
		}
		if len(again) > 0 && s.ballast.Release() {
			if againErrs, againErr := s.runBatchOnce(ctx, again); againErr == nil {
				for j, i := range at {
					errs[i] = againErrs[j]
				}
			}
		}
	}
	for i, c := range batch {
		switch {
		case err != nil && ctx.Err() != nil:
			c.result <- c.ctx.Err() // every caller has gone
		case err != nil:
			c.result <- err
		default:
			c.result <- errs[i]
		}
	}
}

// runBatchOnce runs the batch in one transaction on the writer connection
// and commits it. It returns each call's own error, or an error of the whole
// batch, in which case nothing was committed.
func (s *Store) runBatchOnce(ctx context.Context, batch []*writeCall) (errs []error, err error) {
	conn, err := s.writer.open(ctx, s.write)
	if err != nil {
		return nil, err
	}
	inTx := context.WithoutCancel(ctx)
	defer func() {
		if err != nil {
			// Ends the transaction if one is open: a failed COMMIT leaves it
			// open, and so can a BEGIN that succeeded as ctx ended. When
			// there is none (BEGIN failed, or SQLite rolled back by itself)
			// this fails harmlessly.
			conn.ExecContext(inTx, `ROLLBACK`)
			if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
				s.writer.drop() // the next batch takes a new connection
			}
		}
	}()
	// Only taking the lock may wait, so only BEGIN watches ctx. Once the
	// transaction has begun, statements run to completion: interrupting one
	// would make SQLite roll back the whole transaction, other calls' writes
	// included (https://www.sqlite.org/c3ref/interrupt.html).
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return nil, err
	}
	errs = make([]error, len(batch))
	for i, c := range batch {
		if c.ctx.Err() != nil && c.state.CompareAndSwap(callWaiting, callAbandoned) {
			errs[i] = c.ctx.Err()
			continue
		}
		if !c.start() {
			errs[i] = c.ctx.Err()
			continue
		}
		if _, err := conn.ExecContext(inTx, `SAVEPOINT call`); err != nil {
			return nil, err
		}
		if errs[i] = c.run(inTx, conn); isBusy(errs[i]) {
			return nil, errs[i] // retried as a whole
		} else if errs[i] != nil {
			if _, err := conn.ExecContext(inTx, `ROLLBACK TO call`); err != nil {
				return nil, err
			}
		}
		if _, err := conn.ExecContext(inTx, `RELEASE call`); err != nil {
			return nil, err
		}
	}
	if _, err := conn.ExecContext(inTx, `COMMIT`); err != nil {
		return nil, err
	}
	return errs, nil
}

// maxWriteStmts bounds the statements the writer keeps prepared. The
// write paths' statements are a fixed set of strings in this package;
// past the bound (SQL built with a varying number of placeholders), new
// ones run unprepared.
const maxWriteStmts = 256

// writerConn is the writer connection, held by the writer goroutine from
// its first batch until the Store closes (or the connection breaks), with
// the statements run through ExecContext and QueryRowContext prepared
// once: parsing a statement anew on every call, its tables' triggers
// included, was 8.5% of a page POST's CPU (docs/performance.md, "Page
// POSTs: where the time goes"). Only the writer goroutine uses it; it is
// the querier write functions get.
//
// A prepared statement is one SQLite statement, which must not run again
// while rows of it are being read, and closing it frees it under any rows
// still open (database/sql does not wait for them on a connection's
// statement). So QueryContext, whose rows a function reads while running
// other statements, runs unprepared; QueryRowContext's row is read at
// once by every caller (Scan); and statements are closed only when the
// connection is dropped, after the batch's functions have returned.
type writerConn struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
}

var _ querier = (*writerConn)(nil)

// open returns the connection, taking one from db if there is none.
func (w *writerConn) open(ctx context.Context, db *sql.DB) (*writerConn, error) {
	if w.conn == nil {
		conn, err := db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		w.conn, w.stmts = conn, make(map[string]*sql.Stmt)
	}
	return w, nil
}

// drop closes the statements and gives the connection back to db.
func (w *writerConn) drop() {
	if w.conn == nil {
		return
	}
	for _, st := range w.stmts {
		st.Close()
	}
	w.conn.Close()
	w.conn, w.stmts = nil, nil
}

// stmt returns query prepared on the connection, or nil when query is to
// run unprepared: past maxWriteStmts, or when it cannot be prepared (it
// then fails unprepared in the same way).
func (w *writerConn) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := w.stmts[query]; ok {
		return st
	}
	if len(w.stmts) >= maxWriteStmts {
		return nil
	}
	st, err := w.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	w.stmts[query] = st
	return st
}

func (w *writerConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := w.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return w.conn.ExecContext(ctx, query, args...)
}

func (w *writerConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := w.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return w.conn.QueryRowContext(ctx, query, args...)
}

// QueryContext runs query unprepared (see writerConn).
func (w *writerConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return w.conn.QueryContext(ctx, query, args...)
}

// PrepareContext prepares a statement that the caller closes.
func (w *writerConn) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return w.conn.PrepareContext(ctx, query)
}

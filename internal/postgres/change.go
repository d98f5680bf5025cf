package postgres

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// changeChannel is the channel on which migration 003's triggers notify
// every committed change to accounts, files (but their download counts),
// pages and api_keys (but their last-used times).
const changeChannel = "fileframe_changes"

// changePingInterval is how often an idle listener checks its connection,
// so that one lost without an error (a silent network partition) is found
// and replaced.
const changePingInterval = 5 * time.Second

// ChangeWatcher is fileframe.ChangeWatcher on PostgreSQL: a connection of
// its own LISTENs on changeChannel, and each notification bumps the
// generation. PostgreSQL delivers a notification when the transaction that
// sent it commits, to every listening session, whichever instance made the
// change (https://www.postgresql.org/docs/current/sql-notify.html); it
// arrives within a round trip of the commit.
//
// While the listener is not connected, notifications may be lost, so the
// generation is new on every call (nothing may be cached) until it has
// connected and LISTENed again; then it is bumped once.
//
// LISTEN needs a session of its own on the server: through a connection
// pooler in transaction mode (PgBouncer's pool_mode=transaction)
// notifications are lost, so the watcher's connection must reach PostgreSQL
// directly or through session pooling.
type ChangeWatcher struct {
	config    *pgx.ConnConfig
	gen       atomic.Uint64
	listening atomic.Bool
	cancel    context.CancelFunc
	done      chan struct{}
}

var _ fileframe.ChangeWatcher = (*ChangeWatcher)(nil)

// WatchChanges starts a ChangeWatcher on the store's database. It connects
// at once, and returns an error when it cannot; it reconnects by itself
// later.
func (s *Store) WatchChanges(ctx context.Context) (fileframe.ChangeWatcher, error) {
	w := &ChangeWatcher{config: s.listenConfig(" changes"), done: make(chan struct{})}
	conn, err := w.listen(ctx)
	if err != nil {
		return nil, wrap("watch changes", err)
	}
	run, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	go w.run(run, conn)
	return w, nil
}

// Generation returns the number of changes notified since the watcher
// started, or a new number on every call while it is not listening.
func (w *ChangeWatcher) Generation(ctx context.Context) (uint64, error) {
	if !w.listening.Load() {
		return w.gen.Add(1), nil
	}
	return w.gen.Load(), nil
}

// Close stops listening and closes the connection.
func (w *ChangeWatcher) Close() error {
	w.cancel()
	<-w.done
	return nil
}

// listen connects and LISTENs; then, and only then, the generation is
// bumped and it counts as listening. In that order, a value handed out
// while not listening is never handed out again once listening.
func (w *ChangeWatcher) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := listenConn(ctx, w.config, changeChannel)
	if err != nil {
		return nil, err
	}
	w.gen.Add(1)
	w.listening.Store(true)
	return conn, nil
}

// listenConfig is the configuration of a connection that waits for
// notifications, named in pg_stat_activity by the pool's application name
// and suffix. Ending a wait for notifications must leave the connection
// usable: a read deadline does, where pgx's default (a cancel request to
// the server, then a deadline) costs a connection each time.
func (s *Store) listenConfig(suffix string) *pgx.ConnConfig {
	config := s.pool.Config().ConnConfig.Copy()
	config.RuntimeParams["application_name"] = config.RuntimeParams["application_name"] + suffix
	config.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	return config
}

// listenConn connects with config and LISTENs on channel.
func listenConn(ctx context.Context, config *pgx.ConnConfig, channel string) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, config)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, `LISTEN `+channel); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// run waits for notifications on conn, and reconnects (with a growing
// delay, up to 5s) when it is lost, until ctx ends.
func (w *ChangeWatcher) run(ctx context.Context, conn *pgx.Conn) {
	defer close(w.done)
	delay := 50 * time.Millisecond
	for {
		if conn != nil {
			err := w.wait(ctx, conn)
			w.listening.Store(false)
			conn.Close(context.Background())
			conn = nil
			if ctx.Err() != nil {
				return
			}
			_ = err // lost: reconnect below
		}
		var err error
		conn, err = w.listen(ctx)
		if err == nil {
			delay = 50 * time.Millisecond
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, 5*time.Second)
	}
}

// wait bumps the generation for each notification on conn until the
// connection fails or ctx ends.
func (w *ChangeWatcher) wait(ctx context.Context, conn *pgx.Conn) error {
	return waitPinging(ctx, conn, func(*pgconn.Notification) { w.gen.Add(1) })
}

// waitPinging calls fn with each notification on conn until the
// connection fails or ctx ends. An idle connection is pinged every
// changePingInterval, so that one lost without an error (a silent network
// partition) is found. conn must end waits with a read deadline
// (listenConfig), not a cancel request.
func waitPinging(ctx context.Context, conn *pgx.Conn, fn func(*pgconn.Notification)) error {
	for {
		waitCtx, cancel := context.WithTimeout(ctx, changePingInterval)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil:
			fn(n)
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err):
			pingCtx, cancel := context.WithTimeout(ctx, changePingInterval)
			err := conn.Ping(pingCtx)
			cancel()
			if err != nil {
				return err
			}
		default:
			return err
		}
	}
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	tusd "github.com/tus/tusd/v2/pkg/handler"
)

// tusReleaseChannel carries the IDs of uploads whose lock another request
// waits for: the instance holding it asks its request to let go.
const tusReleaseChannel = "fileframe_tus_release"

// Timing of TusLocker: how often a waiting Lock tries again, how often it
// repeats its release request (one sent while the holder's listener was
// reconnecting is lost), and how long one query on the lock connection
// may take.
const (
	tusLockPoll     = 50 * time.Millisecond
	tusReleaseAgain = time.Second
	tusLockQuery    = 5 * time.Second
)

// TusLocker is tusd's handler.Locker shared through PostgreSQL, so that
// instances behind a load balancer never work on one unfinished upload at
// once: a request that resumes on instance B an upload whose stalled
// request still runs on instance A waits for A to let go.
//
// Each lock is a session-level advisory lock, all of one process's on one
// dedicated connection (a connection per lock would take the pool's
// connections from the store), plus a map of the locks this process holds,
// since advisory locks are re-entrant within a session. A waiter asks the
// holder to let go, with NOTIFY on tusReleaseChannel when the holder is
// another instance; every instance LISTENs on a second connection and
// calls the holding request's requestRelease callback, which makes tusd end
// it. A dead instance's locks go with its connection. If the lock
// connection fails, this process's locks are lost with it: their requests
// are asked to let go, and the next Lock connects again.
type TusLocker struct {
	config *pgx.ConnConfig // of the lock connection
	listen *pgx.ConnConfig // of the listener (listenConfig)
	log    *slog.Logger

	mu   sync.Mutex // guards conn and held; the lock queries run under it
	conn *pgx.Conn  // nil until connected, or after a failure
	held map[string]*tusHeld

	cancel context.CancelFunc
	done   chan struct{}
}

// tusHeld is a lock this process holds.
type tusHeld struct {
	requestRelease func()
	released       chan struct{} // closed by Unlock
	lost           *atomic.Bool  // the lock's tusLock.lost
}

var _ tusd.Locker = (*TusLocker)(nil)

// TusLocker returns a locker of tus uploads on the store's database. It
// connects at once (its lock connection and its listener), and returns an
// error when it cannot. Close it when done; log receives its failures.
func (s *Store) TusLocker(ctx context.Context, log *slog.Logger) (*TusLocker, error) {
	config := s.pool.Config().ConnConfig.Copy()
	config.RuntimeParams["application_name"] = config.RuntimeParams["application_name"] + " tus locks"
	l := &TusLocker{config: config, listen: s.listenConfig(" tus locks"), log: log, held: map[string]*tusHeld{}, done: make(chan struct{})}
	if err := l.connect(ctx); err != nil {
		return nil, wrap("tus locks", err)
	}
	listener, err := listenConn(ctx, l.listen, tusReleaseChannel)
	if err != nil {
		l.conn.Close(context.Background())
		return nil, wrap("tus locks", err)
	}
	run, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	go l.run(run, listener)
	return l, nil
}

// Close stops the listener and closes the lock connection, which releases
// every lock still held.
func (l *TusLocker) Close() error {
	l.cancel()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		err := l.conn.Close(context.Background())
		l.conn = nil
		return err
	}
	return nil
}

// connect opens the lock connection; l.mu is held (or l not yet shared).
func (l *TusLocker) connect(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, l.config)
	if err != nil {
		return err
	}
	l.conn = conn
	return nil
}

// NewLock returns the lock of an upload.
func (l *TusLocker) NewLock(id string) (tusd.Lock, error) {
	h := fnv.New64a()
	h.Write([]byte("fileframe tus " + id))
	return &tusLock{l: l, id: id, key: int64(h.Sum64())}, nil
}

type tusLock struct {
	l    *TusLocker
	id   string
	key  int64       // of the advisory lock
	lost atomic.Bool // see LostWithConnection
}

// LostWithConnection reports whether the holder of the lock was asked to
// let go because the lock connection failed (the database out of reach),
// which took the lock with it, rather than because another request for
// the upload asked for it. It is set before the holder's requestRelease
// is called. The request is then the server's to fail, with a 503 the
// client retries, not tusd's 400 ERR_UPLOAD_INTERRUPTED, which says that
// the client itself sent a newer request.
func (k *tusLock) LostWithConnection() bool { return k.lost.Load() }

// Lock takes the upload's lock, asking its holder to let go and waiting
// until it does or ctx ends (tusd.ErrLockTimeout).
func (k *tusLock) Lock(ctx context.Context, requestRelease func()) error {
	l := k.l
	var asked time.Time
	for {
		l.mu.Lock()
		if h, ok := l.held[k.id]; ok {
			// Held in this process: ask, and wait for its Unlock.
			h.requestRelease()
			l.mu.Unlock()
			select {
			case <-ctx.Done():
				return tusd.ErrLockTimeout
			case <-h.released:
			}
			continue
		}
		ok, err := l.tryLock(ctx, k.key)
		if ok {
			k.lost.Store(false)
			l.held[k.id] = &tusHeld{requestRelease: requestRelease, released: make(chan struct{}), lost: &k.lost}
		} else if err == nil && time.Since(asked) >= tusReleaseAgain {
			// Held by another instance: ask it to let go.
			err = l.query(new(any), `SELECT pg_notify($1, $2)`, tusReleaseChannel, k.id)
			asked = time.Now()
		}
		l.mu.Unlock()
		if err != nil {
			l.log.Warn("postgres: cannot lock a tus upload: the database is out of reach", "upload", k.id, "err", err)
			return errTusLockUnavailable
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return tusd.ErrLockTimeout
		case <-time.After(tusLockPoll):
		}
	}
}

// errTusLockUnavailable is tusd's answer to a request whose upload's lock
// cannot be asked for: the database is out of reach. The server's side,
// but for a while: 503 with Retry-After, and nothing of the database's
// error (which the log has).
var errTusLockUnavailable = func() tusd.Error {
	e := tusd.NewError("ERR_UNAVAILABLE", "The upload's lock cannot be taken just now (the database is out of reach). Try again in a moment.", http.StatusServiceUnavailable)
	e.HTTPResponse.Header = tusd.HTTPHeader{"Retry-After": "1"}
	return e
}()

// tryLock tries the advisory lock once on the lock connection, connecting
// first when needed; l.mu is held. The lock connection sits idle between
// uploads, so its loss (the database restarted, or ended the session) is
// found by the next query: that query's lock attempt is made again once on
// a new connection, rather than failing a request that found the database
// up. The locks held on the lost connection went with it, and their
// requests were asked to stop (query).
func (l *TusLocker) tryLock(ctx context.Context, key int64) (ok bool, err error) {
	for attempt := 0; ; attempt++ {
		if l.conn == nil {
			if err := l.connect(ctx); err != nil {
				return false, err
			}
		}
		if err = l.query(&ok, `SELECT pg_try_advisory_lock($1)`, key); err == nil || attempt == 1 {
			return ok, err
		}
	}
}

// query runs one statement on the lock connection, scanning its one value
// into dest; l.mu is held and l.conn is set. It runs on a context of its own: cancelling a query
// midway would cost the connection, and with it every lock. A failure
// drops the connection: its locks went with it, so the requests holding
// them are asked to stop.
func (l *TusLocker) query(dest any, sql string, args ...any) error {
	ctx, cancel := context.WithTimeout(context.Background(), tusLockQuery)
	defer cancel()
	err := l.conn.QueryRow(ctx, sql, args...).Scan(dest)
	if err != nil {
		l.log.Warn("postgres: the tus lock connection failed; the requests holding its locks are stopped", "err", err, "locks", len(l.held))
		l.conn.Close(context.Background())
		l.conn = nil
		for _, h := range l.held {
			h.lost.Store(true)
			h.requestRelease()
		}
	}
	return err
}

// Unlock releases the lock. It fails only for a lock not held: when the
// database cannot be asked, the lock goes with the connection.
func (k *tusLock) Unlock() error {
	l := k.l
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.held[k.id]
	if !ok {
		return fmt.Errorf("postgres: unlocking upload %s, which is not locked", k.id)
	}
	delete(l.held, k.id)
	close(h.released)
	if l.conn == nil {
		return nil // lost with the connection
	}
	// A failed query drops the connection (query), and the lock with its
	// session: released either way.
	var released bool
	_ = l.query(&released, `SELECT pg_advisory_unlock($1)`, k.key)
	return nil
}

// run passes release requests to the holding requests until ctx ends,
// connecting again a second after the listener fails.
func (l *TusLocker) run(ctx context.Context, conn *pgx.Conn) {
	defer close(l.done)
	for {
		if conn != nil {
			err := waitPinging(ctx, conn, func(n *pgconn.Notification) {
				l.mu.Lock()
				if h, ok := l.held[n.Payload]; ok {
					h.requestRelease()
				}
				l.mu.Unlock()
			})
			conn.Close(context.Background())
			conn = nil
			if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
				l.log.Warn("postgres: tus lock listener lost; connecting again", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		var err error
		if conn, err = listenConn(ctx, l.listen, tusReleaseChannel); err != nil && ctx.Err() == nil {
			l.log.Warn("postgres: tus lock listener cannot connect", "err", err)
		}
	}
}

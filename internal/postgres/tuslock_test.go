package postgres

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	tusd "github.com/tus/tusd/v2/pkg/handler"
)

// newTusLocker returns a locker on the database at u, as one instance of
// several would have, closed when the test ends.
func newTusLocker(t *testing.T, u string) *TusLocker {
	t.Helper()
	l, err := open(t, u).TusLocker(t.Context(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("TusLocker: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func lockOf(t *testing.T, l *TusLocker, id string) tusd.Lock {
	t.Helper()
	k, err := l.NewLock(id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// lockWithin tries to take the lock for d.
func lockWithin(k tusd.Lock, d time.Duration, requestRelease func()) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return k.Lock(ctx, requestRelease)
}

func TestTusLockerAcrossInstances(t *testing.T) {
	u := newDatabase(t)
	a, b := newTusLocker(t, u), newTusLocker(t, u)

	// A holds the lock and ignores requests to let go: B times out, and A
	// was asked.
	asked := make(chan struct{}, 1)
	held := lockOf(t, a, "up1")
	notify := func() {
		select {
		case asked <- struct{}{}:
		default:
		}
	}
	if err := held.Lock(t.Context(), notify); err != nil {
		t.Fatalf("A Lock: %v", err)
	}
	if err := lockWithin(lockOf(t, b, "up1"), 300*time.Millisecond, func() {}); !errors.Is(err, tusd.ErrLockTimeout) {
		t.Fatalf("B Lock of a held upload: got %v, want ErrLockTimeout", err)
	}
	select {
	case <-asked:
	case <-time.After(5 * time.Second):
		t.Fatal("A's request was never asked to release the lock")
	}
	// Another upload is not blocked.
	other := lockOf(t, b, "up2")
	if err := lockWithin(other, 5*time.Second, func() {}); err != nil {
		t.Fatalf("B Lock of another upload: %v", err)
	}
	if err := other.Unlock(); err != nil {
		t.Fatalf("B Unlock: %v", err)
	}

	// A's request lets go when asked (as tusd ends the request, which then
	// unlocks): B gets the lock.
	if err := held.Unlock(); err != nil {
		t.Fatalf("A Unlock: %v", err)
	}
	stalled := lockOf(t, a, "up1")
	if err := stalled.Lock(t.Context(), func() { go stalled.Unlock() }); err != nil {
		t.Fatalf("A Lock again: %v", err)
	}
	resumed := lockOf(t, b, "up1")
	if err := lockWithin(resumed, 5*time.Second, func() {}); err != nil {
		t.Fatalf("B Lock after asking A's stalled request: %v", err)
	}
	if err := lockWithin(lockOf(t, a, "up1"), 200*time.Millisecond, func() {}); !errors.Is(err, tusd.ErrLockTimeout) {
		t.Errorf("A Lock while B holds it: got %v, want ErrLockTimeout", err)
	}
	if err := resumed.Unlock(); err != nil {
		t.Fatalf("B Unlock: %v", err)
	}
}

func TestTusLockerDeadInstance(t *testing.T) {
	u := newDatabase(t)
	a, b := newTusLocker(t, u), newTusLocker(t, u)
	if err := lockOf(t, a, "up").Lock(t.Context(), func() {}); err != nil {
		t.Fatalf("A Lock: %v", err)
	}
	// A dies holding the lock: its connection closes, the lock goes with it.
	if err := a.Close(); err != nil {
		t.Fatalf("A Close: %v", err)
	}
	if err := lockWithin(lockOf(t, b, "up"), 5*time.Second, func() {}); err != nil {
		t.Fatalf("B Lock after A died: %v", err)
	}
}

func TestTusLockerInOneProcess(t *testing.T) {
	l := newTusLocker(t, newDatabase(t))
	first := lockOf(t, l, "up")
	asked := make(chan struct{}, 1)
	notify := func() {
		select {
		case asked <- struct{}{}:
		default:
		}
	}
	if err := first.Lock(t.Context(), notify); err != nil {
		t.Fatal(err)
	}
	// Advisory locks are re-entrant in a session; the locker is not.
	if err := lockWithin(lockOf(t, l, "up"), 200*time.Millisecond, func() {}); !errors.Is(err, tusd.ErrLockTimeout) {
		t.Fatalf("second Lock in one process: got %v, want ErrLockTimeout", err)
	}
	<-asked
	done := make(chan error, 1)
	go func() { done <- lockWithin(lockOf(t, l, "up"), 5*time.Second, func() {}) }()
	time.Sleep(50 * time.Millisecond)
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	if err := lockOf(t, l, "never").Unlock(); err == nil {
		t.Error("Unlock of a lock not held: got no error")
	}
}

// The lock connection sits idle between uploads: when the database ends
// its session (a restart, pg_terminate_backend), the next Lock finds out
// by its query and takes the lock on a new connection, instead of failing
// a request that found the database up. With the database out of reach,
// Lock is tusd's 503 with Retry-After, without the database's error.
func TestTusLockerConnectionLost(t *testing.T) {
	u := newDatabase(t)
	l := newTusLocker(t, u)
	if err := lockWithin(lockOf(t, l, "first"), 5*time.Second, func() {}); err != nil {
		t.Fatalf("Lock: %v", err)
	}
	if err := lockOf(t, l, "first").Unlock(); err != nil {
		t.Fatalf("Unlock: %v", err)
	}
	admin, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	var ended int
	if err := admin.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name LIKE '%tus locks' AND pid <> pg_backend_pid()`).Scan(&ended); err != nil || ended == 0 {
		t.Fatalf("ending the lock sessions: %d, %v", ended, err)
	}
	time.Sleep(100 * time.Millisecond) // the session is gone before the next query
	if err := lockWithin(lockOf(t, l, "second"), 5*time.Second, func() {}); err != nil {
		t.Fatalf("Lock after the database ended the lock connection: %v", err)
	}

	// Out of reach: the session ends again, and no new one can be made.
	if _, err := admin.Exec(t.Context(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name LIKE '%tus locks' AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	l.mu.Lock()
	l.config.Port = 1 // nothing listens there
	l.mu.Unlock()
	err = lockWithin(lockOf(t, l, "third"), 5*time.Second, func() {})
	var te tusd.Error
	if !errors.As(err, &te) || te.HTTPResponse.StatusCode != http.StatusServiceUnavailable || te.HTTPResponse.Header["Retry-After"] == "" {
		t.Fatalf("Lock with the database out of reach: %v, want tusd's 503 with Retry-After", err)
	}
	if strings.Contains(te.ErrorCode+te.Message, "postgres") {
		t.Errorf("the answer tells the database's error: %s %s", te.ErrorCode, te.Message)
	}
}

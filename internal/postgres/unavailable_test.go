package postgres

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/postgres/pgtest"
)

// TestUnreachableDatabaseIsUnavailable calls every method of the store
// that takes a context while its database is out of reach (a proxy in
// between ends every connection and refuses new ones): each returns
// CodeUnavailable, which the web layer answers 503 with Retry-After, or a
// refusal of its arguments made before any query (a zero ID that cannot
// exist), never an error without a code, which would be a 500. Then the
// database comes back, and the store answers again, with no restart.
func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	proxy := pgtest.NewProxy(t, newDatabase(t))
	s := open(t, proxy.URL)
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping through the proxy: %v", err)
	}

	proxy.Cut()
	ctxType := reflect.TypeFor[context.Context]()
	errType := reflect.TypeFor[error]()
	v := reflect.ValueOf(s)
	unavailable := 0
	for i := range v.NumMethod() {
		m := v.Type().Method(i)
		mt := m.Type // with the receiver first
		if mt.NumIn() < 2 || mt.In(1) != ctxType || mt.NumOut() == 0 || mt.Out(mt.NumOut()-1) != errType {
			continue // Close, and what does not query
		}
		err := callWithArgs(t, v.Method(i), ctxType, queryingArgs[m.Name])
		code := fileframe.ErrorCode(err)
		switch {
		case err == nil:
			t.Errorf("%s: no error with the database out of reach", m.Name)
		case code == fileframe.CodeUnavailable:
			unavailable++
		case code == fileframe.EINTERNAL:
			t.Errorf("%s: an error without a code (a 500): %v", m.Name, err)
		default:
			t.Logf("%s: refused before any query, %s: %v", m.Name, code, err)
		}
	}
	t.Logf("%d methods answered %s", unavailable, fileframe.CodeUnavailable)
	if unavailable < 50 {
		t.Errorf("only %d methods answered %s: the test reaches too few queries", unavailable, fileframe.CodeUnavailable)
	}
	if err := s.Ping(t.Context()); fileframe.ErrorCode(err) != fileframe.CodeUnavailable {
		t.Errorf("Ping with the database out of reach: %v, want code %s", err, fileframe.CodeUnavailable)
	}

	// Back: the pool's connections were all lost, and a query may still
	// meet one before the pool finds out (answered 503 too); within a
	// second, every query works.
	proxy.Restore()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := s.Ping(t.Context())
		if err == nil {
			break
		}
		if code := fileframe.ErrorCode(err); code != fileframe.CodeUnavailable {
			t.Fatalf("Ping after the database came back: %v (code %s), want nil or %s", err, code, fileframe.CodeUnavailable)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store still cannot reach the database 5 s after it came back: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "back@example.com", Plan: fileframe.PlanAgency}); err != nil {
		t.Errorf("CreateAccount after the database came back: %v", err)
	}
}

// queryingArgs are the arguments after the context of the methods that
// do nothing, and query nothing, with zero values.
var queryingArgs = map[string][]any{
	"AddDownloads": {map[fileframe.FileID]int64{"f_x": 1}},
	"AddStats": {&fileframe.StatBatch{Hours: map[fileframe.StatKey]fileframe.StatCounts{
		{File: "f_x", Hour: 3600}: {Views: 1},
	}}},
	"BlobInUse":    {"blob"},
	"RecordUpload": {"upload", fileframe.FileID("f_x"), time.Now()},
	"Allow":        {"bucket", 1.0, 1, time.Now()},
}

// callWithArgs calls method with a context that ends within 10 s and args,
// or the zero value of every argument after the context when args is nil,
// and returns its error; a panic (a nil func called) is reported as one.
func callWithArgs(t *testing.T, method reflect.Value, ctxType reflect.Type, given []any) (err error) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	mt := method.Type()
	args := make([]reflect.Value, mt.NumIn())
	for j := range args {
		if given != nil && j > 0 {
			args[j] = reflect.ValueOf(given[j-1]).Convert(mt.In(j))
		} else {
			args[j] = reflect.Zero(mt.In(j))
		}
	}
	args[0] = reflect.ValueOf(ctx).Convert(ctxType)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	out := method.Call(args)
	if e := out[len(out)-1]; !e.IsNil() {
		err = e.Interface().(error)
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		err = fmt.Errorf("still waiting after 10 s: %w", err)
	}
	return err
}

// TestBlackHoledDatabaseIsUnavailable puts the database behind a proxy
// that keeps every connection open and forwards nothing (a network
// partition): without deadlines, every request that needs the database
// waited for as long as the partition lasted. Each call now fails with
// CodeUnavailable once the store's deadline passes, whether it was
// waiting for an answer, for a new connection or for a pooled one, and
// the store works again once the partition heals.
func TestBlackHoledDatabaseIsUnavailable(t *testing.T) {
	proxy := pgtest.NewProxy(t, newDatabase(t))
	const deadline = time.Second
	s, err := openDeadline(t.Context(), withParam(t, withParam(t, proxy.URL, "connect_timeout", "1"), "pool_max_conns", "2"), deadline)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping through the proxy: %v", err)
	}

	proxy.Hang()
	// More callers than the pool has connections: the pooled ones hang on
	// their statements, the rest wait for a connection; the new
	// connections the pool opens hang before they are ready.
	const callers = 6
	errs := make(chan error, callers)
	took := make(chan time.Duration, callers)
	for i := range callers {
		go func() {
			start := time.Now()
			var err error
			switch i % 3 {
			case 0:
				_, err = s.SchemaVersion(t.Context())
			case 1:
				_, err = s.CreateAccount(t.Context(), fileframe.Account{Email: fmt.Sprintf("hole%d@example.com", i), Plan: fileframe.PlanAgency})
			case 2:
				_, err = s.FileBySlug(t.Context(), "some-slug")
			}
			took <- time.Since(start)
			errs <- err
		}()
	}
	for range callers {
		select {
		case err := <-errs:
			d := <-took
			if code := fileframe.ErrorCode(err); code != fileframe.CodeUnavailable {
				t.Errorf("a call with the database black-holed: %v (code %s) after %v, want %s", err, code, d, fileframe.CodeUnavailable)
			}
			// A statement's deadline after a connection's wait, and
			// perhaps a new connection's timeout: never much more.
			if d > 4*deadline {
				t.Errorf("a call with the database black-holed took %v, want no more than %v", d, 4*deadline)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("calls still waiting 30 s into the partition")
		}
	}

	proxy.Restore()
	until := time.Now().Add(10 * time.Second)
	for {
		err := s.Ping(t.Context())
		if err == nil {
			break
		}
		if time.Now().After(until) {
			t.Fatalf("the store still cannot reach the database 10 s after the partition healed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "healed@example.com", Plan: fileframe.PlanAgency}); err != nil {
		t.Errorf("CreateAccount after the partition healed: %v", err)
	}
}

package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestBatchIsolation runs many writes at once, so that they share
// transactions, with every other one bound to fail: each must succeed or
// fail on its own, as if it had been alone.
func TestBatchIsolation(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "test.db"))
	const n = 100
	for i := range n / 2 {
		if _, err := s.CreateAccount(t.Context(), fileframe.Account{Email: fmt.Sprintf("taken%d@example.com", i), Plan: fileframe.PlanFree}); err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			email := fmt.Sprintf("new%d@example.com", i)
			if i%2 == 1 {
				email = fmt.Sprintf("taken%d@example.com", i/2)
			}
			_, errs[i] = s.CreateAccount(t.Context(), fileframe.Account{Email: email, Plan: fileframe.PlanPro})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		want := ""
		if i%2 == 1 {
			want = fileframe.ECONFLICT
		}
		if got := fileframe.ErrorCode(err); got != want {
			t.Errorf("CreateAccount #%d: code got %q (error %v), want %q", i, got, err, want)
		}
	}
	var count int
	if err := s.read.QueryRowContext(t.Context(), `SELECT count(*) FROM accounts`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if want := n/2 + n/2; count != want {
		t.Errorf("accounts: got %d, want %d", count, want)
	}
	var pro int
	if err := s.read.QueryRowContext(t.Context(), `SELECT count(*) FROM accounts WHERE plan = 'pro'`).Scan(&pro); err != nil {
		t.Fatal(err)
	}
	if pro != n/2 {
		t.Errorf("accounts made by the concurrent writes: got %d, want %d", pro, n/2)
	}
}

// TestWritePanic checks that a panic in a write function reaches its caller,
// rolls back what the function wrote, and leaves the writer working.
func TestWritePanic(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "test.db"))
	func() {
		defer func() {
			if got := recover(); got != "boom" {
				t.Errorf("recover: got %v, want %q", got, "boom")
			}
		}()
		s.inTx(t.Context(), func(ctx context.Context, q querier) error {
			if _, err := q.ExecContext(ctx, `INSERT INTO secrets (name, value) VALUES ('x', x'00')`); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	var calls int
	v, err := s.Secret(t.Context(), "x", func() []byte { calls++; return []byte("fresh") })
	if err != nil {
		t.Fatalf("Secret after a panicking write: %v", err)
	}
	if string(v) != "fresh" || calls != 1 {
		t.Errorf("Secret after a panicking write: got %q (generated %d times), want %q: the panicking write is rolled back", v, calls, "fresh")
	}
}

// TestWriterStatements runs more distinct statements through one write
// than the writer keeps prepared, while rows of a query are still being
// read, then the same statements again: every one does what it says, the
// open rows read on, and the bound holds.
func TestWriterStatements(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "test.db"))
	err := s.inTx(t.Context(), func(ctx context.Context, q querier) error {
		if _, err := q.ExecContext(ctx, `CREATE TEMP TABLE seen (n INTEGER)`); err != nil {
			return err
		}
		rows, err := q.QueryContext(ctx, `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT n FROM c`)
		if err != nil {
			return err
		}
		defer rows.Close()
		var got []int
		for rows.Next() {
			var n int
			if err := rows.Scan(&n); err != nil {
				return err
			}
			got = append(got, n)
			for i := range maxWriteStmts + 10 {
				// Distinct statements (the comment), each run on every row.
				if _, err := q.ExecContext(ctx, fmt.Sprintf(`INSERT INTO seen (n) VALUES (?) -- %d`, i), n*1000+i); err != nil {
					return err
				}
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if fmt.Sprint(got) != "[1 2 3]" {
			return fmt.Errorf("rows read across the statements' closing: %v, want [1 2 3]", got)
		}
		var count, sum int
		if err := q.QueryRowContext(ctx, `SELECT count(*), sum(n) FROM seen`).Scan(&count, &sum); err != nil {
			return err
		}
		want := 0
		for n := 1; n <= 3; n++ {
			for i := range maxWriteStmts + 10 {
				want += n*1000 + i
			}
		}
		if count != 3*(maxWriteStmts+10) || sum != want {
			return fmt.Errorf("inserted rows: %d summing to %d, want %d summing to %d", count, sum, 3*(maxWriteStmts+10), want)
		}
		if len(s.writer.stmts) != maxWriteStmts {
			return fmt.Errorf("%d statements kept, want the bound, %d", len(s.writer.stmts), maxWriteStmts)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A statement that cannot be prepared fails as it would unprepared,
	// through each way of running one, and the writer goes on.
	err = s.inTx(t.Context(), func(ctx context.Context, q querier) error {
		if _, err := q.ExecContext(ctx, `INSERT INTO no_such_table VALUES (1)`); err == nil {
			return errors.New("Exec of a missing table succeeded")
		}
		if _, err := q.QueryContext(ctx, `SELECT * FROM no_such_table`); err == nil {
			return errors.New("Query of a missing table succeeded")
		}
		var n int
		if err := q.QueryRowContext(ctx, `SELECT n FROM no_such_table`).Scan(&n); err == nil || !strings.Contains(err.Error(), "no_such_table") {
			return fmt.Errorf("QueryRow of a missing table: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "after@example.com", Plan: fileframe.PlanFree}); err != nil {
		t.Fatalf("a write after failed statements: %v", err)
	}
}

// TestClosedStore checks that writes after Close fail, and that Close may be
// called again.
func TestClosedStore(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close again: got %v, want nil", err)
	}
	_, err = s.CreateAccount(context.Background(), fileframe.Account{Email: "x@example.com", Plan: fileframe.PlanFree})
	if !errors.Is(err, errClosed) {
		t.Errorf("CreateAccount after Close: got %v, want %v", err, errClosed)
	}
}

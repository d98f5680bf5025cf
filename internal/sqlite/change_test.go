package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// watchMechanisms are the two ways a ChangeWatcher asks (see
// ChangeWatcher): the mapped wal-index, and PRAGMA data_version alone.
var watchMechanisms = []struct {
	name            string
	dataVersionOnly bool
}{
	{"wal-index", false},
	{"data_version", true},
}

// watch starts a ChangeWatcher on s and closes it when the test ends.
func watch(tb testing.TB, s *Store) *ChangeWatcher {
	return watchWith(tb, s, false)
}

// watchWith is watch, using only PRAGMA data_version when dataVersionOnly
// is set. Where the platform can map the wal-index, it checks that the
// watcher does when asked to.
func watchWith(tb testing.TB, s *Store, dataVersionOnly bool) *ChangeWatcher {
	tb.Helper()
	w, err := s.watchChanges(context.Background(), dataVersionOnly)
	if err != nil {
		tb.Fatalf("WatchChanges: %v", err)
	}
	if mapped := w.index != nil; mapped == dataVersionOnly || (mapped != canMapWALIndex && !dataVersionOnly) {
		tb.Fatalf("watcher uses the wal-index: %v, want %v", mapped, !dataVersionOnly && canMapWALIndex)
	}
	tb.Cleanup(func() {
		if err := w.Close(); err != nil {
			tb.Errorf("ChangeWatcher.Close: %v", err)
		}
	})
	return w
}

// generation returns w's generation, failing the test on an error.
func generation(t *testing.T, w fileframe.ChangeWatcher) uint64 {
	t.Helper()
	g, err := w.Generation(t.Context())
	if err != nil {
		t.Fatalf("Generation: %v", err)
	}
	return g
}

// changeEnvDB names the database a child process of TestChangeWatcher
// changes a plan in.
const changeEnvDB = "FILEFRAME_SQLITE_TEST_CHANGE_DB"

func TestChangeWatcher(t *testing.T) {
	if path := os.Getenv(changeEnvDB); path != "" {
		// The child: another process, as the admin CLI is.
		s := open(t, path)
		a, err := s.AccountByEmail(t.Context(), "owner@example.com")
		if err != nil {
			t.Fatalf("child: AccountByEmail: %v", err)
		}
		if err := s.SetAccountPlan(t.Context(), a.ID, fileframe.PlanFree); err != nil {
			t.Fatalf("child: SetAccountPlan: %v", err)
		}
		return
	}
	for _, m := range watchMechanisms {
		t.Run(m.name, func(t *testing.T) { testChangeWatcher(t, m.dataVersionOnly) })
	}
}

func testChangeWatcher(t *testing.T, dataVersionOnly bool) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "test.db")
	s := open(t, path)
	w := watchWith(t, s, dataVersionOnly)
	a, err := s.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	f, err := s.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "a.txt"})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}

	// Each step must change the generation on the very next call, with no
	// wait: the write has returned, so it has committed.
	g := generation(t, w)
	expectSame := func(step string) {
		t.Helper()
		if got := generation(t, w); got != g {
			t.Errorf("after %s: generation got %d, want it unchanged at %d", step, got, g)
		}
	}
	expectChanged := func(step string) {
		t.Helper()
		got := generation(t, w)
		if got == g {
			t.Errorf("after %s: generation got %d, want it changed", step, got)
		}
		if got < g {
			t.Errorf("after %s: generation went back from %d to %d", step, g, got)
		}
		g = got
	}

	expectSame("nothing")
	if _, err := s.FileBySlug(ctx, f.Slug); err != nil {
		t.Fatalf("FileBySlug: %v", err)
	}
	expectSame("a read")

	if _, err := s.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: []byte("<html></html>"), Publish: true}); err != nil {
		t.Fatalf("SavePage: %v", err)
	}
	expectChanged("a write through the same Store")

	other := open(t, path)
	if err := other.SetAccountPlan(ctx, a.ID, fileframe.PlanPro); err != nil {
		t.Fatalf("SetAccountPlan: %v", err)
	}
	expectChanged("a write through another Store on the file")

	raw, err := sql.Open("sqlite", dsn(path, commonPragmas, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `UPDATE accounts SET disabled = 1 WHERE id = ?`, a.ID); err != nil {
		t.Fatalf("UPDATE: %v", err)
	}
	expectChanged("an UPDATE on a plain connection")

	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestChangeWatcher$", "-test.count=1")
	cmd.Env = append(os.Environ(), changeEnvDB+"="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	expectChanged("a write by another process")
	expectSame("nothing more")

	// A checkpoint that empties the WAL, then a write that starts it over
	// from its first frame.
	if _, err := raw.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatalf("wal_checkpoint: %v", err)
	}
	if _, err := s.FileBySlug(ctx, f.Slug); err != nil {
		t.Fatalf("FileBySlug: %v", err)
	}
	if _, err := raw.ExecContext(ctx, `UPDATE accounts SET disabled = 0 WHERE id = ?`, a.ID); err != nil {
		t.Fatalf("UPDATE: %v", err)
	}
	expectChanged("a write after a checkpoint")
	expectSame("nothing after the checkpoint")

	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := w.Generation(ctx); err == nil {
		t.Errorf("Generation after Close: got no error")
	}
}

func TestChangeWatcherConcurrent(t *testing.T) {
	for _, m := range watchMechanisms {
		t.Run(m.name, func(t *testing.T) { testChangeWatcherConcurrent(t, m.dataVersionOnly) })
	}
}

func testChangeWatcherConcurrent(t *testing.T, dataVersionOnly bool) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "test.db")
	s := open(t, path)
	w := watchWith(t, s, dataVersionOnly)
	a, err := s.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	f, err := s.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "a.txt"})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}
	// Callers that each write and then ask must all see their own write,
	// however the checks of concurrent callers are shared. (A write that
	// changes nothing, such as setting a plan to the plan it is, commits no
	// page and so changes no generation: each write here adds a revision.)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			for j := range 20 {
				before, err := w.Generation(ctx)
				if err != nil {
					errs <- err
					return
				}
				html := fmt.Appendf(nil, "<html>%d %d</html>", i, j)
				if _, err := s.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: html}); err != nil {
					errs <- err
					return
				}
				after, err := w.Generation(ctx)
				if err != nil {
					errs <- err
					return
				}
				if after == before {
					t.Errorf("generation %d unchanged after a write", after)
				}
			}
			errs <- nil
		}()
	}
	timeout := time.After(time.Minute)
	for range 8 {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatal(err)
			}
		case <-timeout:
			t.Fatal("timed out")
		}
	}
}

// BenchmarkGeneration is the cost a cache pays per request to stay exact.
func BenchmarkGeneration(b *testing.B) {
	for _, m := range watchMechanisms {
		b.Run(m.name, func(b *testing.B) {
			s, err := Open(b.Context(), filepath.Join(b.TempDir(), "test.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			w := watchWith(b, s, m.dataVersionOnly)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := w.Generation(context.Background()); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// TestChangeWatcherCloseWhileInUse closes a watcher while requests still ask
// it (as when a shutdown cuts handlers off): calls fail, none crashes on the
// unmapped wal-index.
func TestChangeWatcherCloseWhileInUse(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "test.db"))
	w := watch(t, s)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				w.Generation(context.Background())
			}
		})
	}
	time.Sleep(10 * time.Millisecond)
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	time.Sleep(10 * time.Millisecond)
	close(stop)
	wg.Wait()
	if _, err := w.Generation(context.Background()); err == nil {
		t.Errorf("Generation after Close: got no error")
	}
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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

// TestChangeWatcherSkipsCounters: writes that show nowhere the public cache
// reaches (download counts, statistics, sessions, key last-used times,
// download claims) leave the generation as it was, with either mechanism;
// a download that uses up a limited link moves it.
func TestChangeWatcherSkipsCounters(t *testing.T) {
	for _, m := range watchMechanisms {
		t.Run(m.name, func(t *testing.T) {
			ctx := t.Context()
			path := filepath.Join(t.TempDir(), "test.db")
			s := open(t, path)
			w := watchWith(t, s, m.dataVersionOnly)
			a, err := s.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
			if err != nil {
				t.Fatal(err)
			}
			f, err := s.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "a.txt"})
			if err != nil {
				t.Fatal(err)
			}
			key, err := s.CreateKey(ctx, fileframe.Key{AccountID: a.ID, Kind: fileframe.KeyGeneral, Name: "k", Hash: "h", Prefix: "ffk_"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.SetLink(ctx, f.ID, fileframe.Link{MaxDownloads: 1}); err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			g := generation(t, w)
			quiet := []struct {
				name  string
				write func() error
			}{
				{"AddDownloads", func() error { return s.AddDownloads(ctx, map[fileframe.FileID]int64{f.ID: 3}) }},
				{"TouchKey", func() error { return s.TouchKey(ctx, key.ID, now) }},
				{"CreateSession", func() error {
					return s.CreateSession(ctx, fileframe.Session{Hash: "ab", AccountID: a.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)})
				}},
				{"AddStats", func() error {
					b := fileframe.NewStatBatch()
					b.Hours[fileframe.StatKey{File: f.ID, Hour: now.Unix() / 3600 * 3600, Variant: fileframe.VariantDefault}] = fileframe.StatCounts{Views: 5}
					return s.AddStats(ctx, b)
				}},
				{"ClaimDownload", func() error { return s.ClaimDownload(ctx, f.ID, "c1", now, time.Minute) }},
				{"an unfinished download", func() error { return s.FinishDownload(ctx, f.ID, "c1", false) }},
			}
			for _, q := range quiet {
				if err := q.write(); err != nil {
					t.Fatalf("%s: %v", q.name, err)
				}
				if got := generation(t, w); got != g {
					t.Errorf("after %s: generation moved from %d to %d", q.name, g, got)
					g = got
				}
			}
			if err := s.ClaimDownload(ctx, f.ID, "c2", now, time.Minute); err != nil {
				t.Fatal(err)
			}
			if err := s.FinishDownload(ctx, f.ID, "c2", true); err != nil {
				t.Fatal(err)
			}
			if got := generation(t, w); got == g {
				t.Errorf("after the download that used up the link: generation still %d", got)
			}
		})
	}
}

// TestPublicChangesMatchPostgres: the triggers of migration 015 watch the
// tables and columns PostgreSQL's change notifications watch, no more and
// no fewer, so that the public cache is as exact on one store as on the
// other. It reads PostgreSQL's migrations, keeping each notifying trigger's
// last definition.
func TestPublicChangesMatchPostgres(t *testing.T) {
	paths, err := filepath.Glob("../postgres/migrations/*.sql")
	if err != nil || len(paths) == 0 {
		t.Fatalf("PostgreSQL's migrations: %v (%d files)", err, len(paths))
	}
	// watched maps "table event" to its columns ("" for any), e.g.
	// "files UPDATE" to "account_id,blob_key,...".
	pg := map[string]string{}
	byTrigger := map[string][]string{}
	create := regexp.MustCompile(`(?s)CREATE TRIGGER (\w+)\s+AFTER (.+?) ON (\w+)\s+FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change\(\)`)
	drop := regexp.MustCompile(`DROP TRIGGER (\w+) ON`)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range drop.FindAllStringSubmatch(string(b), -1) {
			delete(byTrigger, m[1])
		}
		for _, m := range create.FindAllStringSubmatch(string(b), -1) {
			var keys []string
			for ev := range strings.SplitSeq(m[2], " OR ") {
				ev = strings.Join(strings.Fields(ev), " ")
				if ev == "TRUNCATE" {
					continue // SQLite has none
				}
				cols := ""
				if rest, ok := strings.CutPrefix(ev, "UPDATE OF "); ok {
					ev, cols = "UPDATE", normColumns(rest)
				}
				keys = append(keys, m[3]+" "+ev+"="+cols)
			}
			byTrigger[m[1]] = keys
		}
	}
	for _, keys := range byTrigger {
		for _, k := range keys {
			table, cols, _ := strings.Cut(k, "=")
			pg[table] = cols
		}
	}

	s := open(t, filepath.Join(t.TempDir(), "test.db"))
	rows, err := s.read.QueryContext(t.Context(), `SELECT tbl_name, sql FROM sqlite_schema WHERE type = 'trigger' AND sql LIKE '%public_changes%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	lite := map[string]string{}
	event := regexp.MustCompile(`(?s)AFTER (INSERT|DELETE|UPDATE OF (.+?)|UPDATE) ON`)
	for rows.Next() {
		var table, sql string
		if err := rows.Scan(&table, &sql); err != nil {
			t.Fatal(err)
		}
		m := event.FindStringSubmatch(sql)
		if m == nil {
			t.Fatalf("trigger on %s: no event in %q", table, sql)
		}
		ev, cols := m[1], ""
		if m[2] != "" {
			ev, cols = "UPDATE", normColumns(m[2])
		}
		lite[table+" "+ev] = cols
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for k, cols := range pg {
		got, ok := lite[k]
		switch {
		case !ok:
			t.Errorf("PostgreSQL notifies on %s; SQLite counts no such change", k)
		case got != cols:
			t.Errorf("%s: PostgreSQL watches columns %q, SQLite %q", k, cols, got)
		}
	}
	for k := range lite {
		if _, ok := pg[k]; !ok {
			t.Errorf("SQLite counts %s; PostgreSQL notifies no such change", k)
		}
	}
	if len(pg) < 25 {
		t.Errorf("read %d notified changes from PostgreSQL's migrations; the pattern no longer matches them", len(pg))
	}
}

// normColumns sorts a comma-separated column list.
func normColumns(s string) string {
	var cols []string
	for c := range strings.SplitSeq(s, ",") {
		cols = append(cols, strings.TrimSpace(c))
	}
	slices.Sort(cols)
	return strings.Join(cols, ",")
}

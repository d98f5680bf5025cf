package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/storetest"
)

// open opens a store on path and closes it when the test ends.
func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) fileframe.Store {
		return open(t, filepath.Join(t.TempDir(), "test.db"))
	})
}

func TestMigrations(t *testing.T) {
	t.Run("embedded migrations are numbered 1..N", func(t *testing.T) {
		ms, err := Migrations()
		if err != nil {
			t.Fatalf("migrations: %v", err)
		}
		if len(ms) == 0 {
			t.Fatalf("migrations: got none, want at least 001-initial.sql")
		}
		for i, m := range ms {
			if m.Version != i+1 {
				t.Errorf("migration %s: version got %d, want %d", m.Name, m.Version, i+1)
			}
		}
	})

	t.Run("Open applies every migration, and reopening applies none again", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "test.db")
		ms, err := Migrations()
		if err != nil {
			t.Fatalf("migrations: %v", err)
		}
		for range 3 {
			s, err := Open(t.Context(), path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			v, err := s.SchemaVersion(t.Context())
			if err != nil {
				t.Fatalf("SchemaVersion: %v", err)
			}
			if v != len(ms) {
				t.Errorf("SchemaVersion: got %d, want %d", v, len(ms))
			}
			var rows int
			if err := s.read.QueryRowContext(t.Context(), `SELECT count(*) FROM schema_migrations`).Scan(&rows); err != nil {
				t.Fatalf("count schema_migrations: %v", err)
			}
			if rows != len(ms) {
				t.Errorf("schema_migrations: got %d rows, want %d", rows, len(ms))
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
		}
	})

	t.Run("Open refuses a database whose schema is newer than the binary", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "test.db")
		s, err := Open(t.Context(), path)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		latest, err := s.SchemaVersion(t.Context())
		if err != nil {
			t.Fatalf("SchemaVersion: %v", err)
		}
		newer := latest + 1
		if err := s.inTx(t.Context(), func(ctx context.Context, q querier) error {
			_, err := q.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)`, newer)
			return err
		}); err != nil {
			t.Fatalf("insert a newer version: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		s, err = Open(t.Context(), path)
		if err == nil {
			s.Close()
			t.Fatalf("Open of a newer database: got no error, want one")
		}
		want := fmt.Sprintf("database schema version %d is newer than this binary (%d); upgrade fileframe", newer, latest)
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open of a newer database: got error %q, want it to say %q", err, want)
		}
	})

	// Migration 005 marks the images of existing appearances unmeasured,
	// for serve to measure (service.MeasureImages).
	t.Run("images stored before migration 005 are unmeasured after it", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "test.db")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := Migrations()
		if err != nil {
			t.Fatal(err)
		}
		stmts := []string{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`}
		for _, m := range ms[:4] {
			stmts = append(stmts, m.SQL, fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, 0)`, m.Version))
		}
		stmts = append(stmts,
			`INSERT INTO accounts (id, email, plan, created_at) VALUES ('a_1', 'a@example.com', 'pro', 0)`,
			`INSERT INTO account_appearances (account_id, template, headline, message, accent, logo_key, background)
			 VALUES ('a_1', 'bold', '', '', '', 'logo-key', '')`)
		for _, q := range stmts {
			if _, err := db.ExecContext(t.Context(), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		db.Close()
		s := open(t, path)
		got, err := s.AccountAppearance(t.Context(), "a_1")
		if err != nil || got.LogoBytes != fileframe.UnmeasuredImage || got.BackgroundBytes != 0 {
			t.Errorf("appearance after the migration: got %+v, %v; want the logo unmeasured, no background", got, err)
		}
		if keys, err := s.UnmeasuredImages(t.Context(), 10); err != nil || len(keys) != 1 || keys[0] != "logo-key" {
			t.Errorf("UnmeasuredImages: got %q, %v", keys, err)
		}
	})

	t.Run("Open refuses a file that is not a database", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "test.db")
		if err := os.WriteFile(path, bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(t.Context(), path)
		if err == nil {
			s.Close()
			t.Fatalf("Open of a text file: got no error, want one")
		}
	})
}

func TestOpenPathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data dir?x=1#frag%41")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "fileframe.db")
	s := open(t, path)
	if _, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "x@example.com", Plan: fileframe.PlanFree}); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file: %v, want it at %q", err, path)
	}
}

func TestPragmas(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "test.db"))
	for _, c := range []struct {
		writer bool // the writer connection's, else a reader's
		pragma string
		want   string
	}{
		{true, "journal_mode", "wal"},
		{true, "synchronous", "2"}, // FULL
		{true, "foreign_keys", "1"},
		{true, "busy_timeout", strconv.Itoa(int(busyTimeout.Milliseconds()))},
		{false, "journal_mode", "wal"},
		{false, "foreign_keys", "1"},
		{false, "query_only", "1"},
		{false, "busy_timeout", strconv.Itoa(int(busyTimeout.Milliseconds()))},
	} {
		var got string
		var err error
		pool := "reader"
		if c.writer {
			// The writer goroutine holds the writer connection.
			pool = "writer"
			err = s.inTx(t.Context(), func(ctx context.Context, q querier) error {
				return q.QueryRowContext(ctx, "PRAGMA "+c.pragma).Scan(&got)
			})
		} else {
			err = s.read.QueryRowContext(t.Context(), "PRAGMA "+c.pragma).Scan(&got)
		}
		if err != nil {
			t.Fatalf("%s PRAGMA %s: %v", pool, c.pragma, err)
		}
		if got != c.want {
			t.Errorf("%s PRAGMA %s: got %q, want %q", pool, c.pragma, got, c.want)
		}
	}
}

func TestDataSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	ctx := t.Context()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	a, err := s.CreateAccount(ctx, fileframe.Account{Email: "keep@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	f, err := s.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "keep.txt", Size: 4, BlobKey: "k"})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}
	html := []byte("<!doctype html><html><body>kept</body></html>")
	if _, err := s.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: html, Publish: true, At: time.Now()}); err != nil {
		t.Fatalf("SavePage: %v", err)
	}
	secret, err := s.Secret(ctx, "preview", func() []byte { return []byte("0123456789abcdef") })
	if err != nil {
		t.Fatalf("Secret: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s = open(t, path)
	if got, err := s.AccountByEmail(ctx, "keep@example.com"); err != nil || got.ID != a.ID {
		t.Errorf("AccountByEmail after reopen: got %q, %v, want %q, nil", got.ID, err, a.ID)
	}
	if got, err := s.FileBySlug(ctx, f.Slug); err != nil || got.ID != f.ID {
		t.Errorf("FileBySlug after reopen: got %q, %v, want %q, nil", got.ID, err, f.ID)
	}
	r, err := s.Revision(ctx, f.ID, 1)
	if err != nil || !bytes.Equal(r.HTML, html) {
		t.Errorf("Revision after reopen: got %q, %v, want %q, nil", r.HTML, err, html)
	}
	got, err := s.Secret(ctx, "preview", func() []byte { return []byte("another") })
	if err != nil || !bytes.Equal(got, secret) {
		t.Errorf("Secret after reopen: got %q, %v, want %q, nil", got, err, secret)
	}
}

// TestTwoStoresOnOneFile is the server and the admin CLI in one process: two
// Stores, each with its own writer connection, writing to one file at once.
func TestTwoStoresOnOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	server, cli := open(t, path), open(t, path)
	ctx := t.Context()
	a, err := server.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	f, err := cli.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "shared.txt"})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}

	const perStore = 25
	var wg sync.WaitGroup
	for i, s := range []*Store{server, cli} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range perStore {
				html := fmt.Appendf(nil, "<html><body>store %d write %d</body></html>", i, j)
				if _, err := s.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: html, Publish: true, At: time.Now()}); err != nil {
					t.Errorf("store %d: SavePage: %v", i, err)
					return
				}
				if _, err := s.CreateKey(ctx, fileframe.Key{
					AccountID: a.ID, Kind: fileframe.KeyGeneral, Name: "k", Hash: fileframe.HashKey(fmt.Sprint(i, j)),
				}); err != nil {
					t.Errorf("store %d: CreateKey: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()

	for i, s := range []*Store{server, cli} {
		p, err := s.PageByFile(ctx, f.ID)
		if err != nil {
			t.Fatalf("store %d: PageByFile: %v", i, err)
		}
		if p.LatestRevision != 2*perStore {
			t.Errorf("store %d: LatestRevision got %d, want %d", i, p.LatestRevision, 2*perStore)
		}
		keys, err := s.KeysByAccount(ctx, a.ID)
		if err != nil {
			t.Fatalf("store %d: KeysByAccount: %v", i, err)
		}
		if len(keys) != 2*perStore {
			t.Errorf("store %d: got %d keys, want %d", i, len(keys), 2*perStore)
		}
	}
}

// TestWriteLockAtBegin holds the write lock with a write in progress on one
// Store (its writer's BEGIN IMMEDIATE takes the lock at BEGIN) and checks
// that a write through another Store waits for it, gives up when its
// context ends, and succeeds once the lock is free.
func TestWriteLockAtBegin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	holder, waiter := open(t, path), open(t, path)
	began, release, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var once sync.Once
	go func() {
		held <- holder.inTx(context.Background(), func(ctx context.Context, q querier) error {
			once.Do(func() { close(began) })
			<-release
			return nil
		})
	}()
	<-began
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err := waiter.CreateAccount(ctx, fileframe.Account{Email: "x@example.com", Plan: fileframe.PlanFree})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CreateAccount while another Store holds a write transaction: got %v, want context.DeadlineExceeded", err)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatalf("the holding write: %v", err)
	}
	if _, err := waiter.CreateAccount(t.Context(), fileframe.Account{Email: "x@example.com", Plan: fileframe.PlanFree}); err != nil {
		t.Errorf("CreateAccount after the transaction ended: got %v, want nil", err)
	}
}

// helperEnv names the database a child process of TestTwoProcesses writes to.
const helperEnv = "FILEFRAME_SQLITE_TEST_HELPER_DB"

// TestTwoProcesses runs a second process (this test binary, re-executed)
// that writes pages to the same database file while this one does: the
// server and the admin CLI.
func TestTwoProcesses(t *testing.T) {
	if path := os.Getenv(helperEnv); path != "" {
		helperProcess(t, path)
		return
	}
	path := filepath.Join(t.TempDir(), "test.db")
	s := open(t, path)
	ctx := t.Context()
	a, err := s.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	f, err := s.CreateFile(ctx, fileframe.File{ID: "f_shared", AccountID: a.ID, Name: "shared.txt"})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}

	const writes = 40
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestTwoProcesses$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start helper process: %v", err)
	}
	for i := range writes {
		html := fmt.Appendf(nil, "<html><body>parent %d</body></html>", i)
		if _, err := s.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: html, At: time.Now()}); err != nil {
			t.Errorf("parent: SavePage: %v", err)
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper process: %v\n%s", err, out.Bytes())
	}
	p, err := s.PageByFile(ctx, f.ID)
	if err != nil {
		t.Fatalf("PageByFile: %v", err)
	}
	if p.LatestRevision != 2*writes {
		t.Errorf("LatestRevision got %d, want %d (both processes' writes)", p.LatestRevision, 2*writes)
	}
}

// helperProcess is the child of TestTwoProcesses: it opens the database
// itself and writes 40 pages.
func helperProcess(t *testing.T, path string) {
	s := open(t, path)
	for i := range 40 {
		html := fmt.Appendf(nil, "<html><body>child %d</body></html>", i)
		if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: "f_shared", HTML: html, At: time.Now()}); err != nil {
			t.Fatalf("child: SavePage: %v", err)
		}
	}
}

func TestErrors(t *testing.T) {
	t.Run("internal errors are wrapped with the operation and keep their cause", func(t *testing.T) {
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "test.db"))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		s.Close()
		_, err = s.FileByID(context.Background(), "f_x")
		if err == nil {
			t.Fatalf("FileByID on a closed store: got no error, want one")
		}
		if got, want := fileframe.ErrorCode(err), fileframe.EINTERNAL; got != want {
			t.Errorf("FileByID on a closed store: code got %q, want %q", got, want)
		}
		if !strings.HasPrefix(err.Error(), "sqlite: file by id: ") || !errors.Is(err, sql.ErrConnDone) && !strings.Contains(err.Error(), "closed") {
			t.Errorf("FileByID on a closed store: got %q, want it wrapped as %q with its cause", err, "sqlite: file by id: ...")
		}
	})

	t.Run("a value the schema refuses is EINVALID", func(t *testing.T) {
		s := open(t, filepath.Join(t.TempDir(), "test.db"))
		a, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "x@example.com", Plan: fileframe.PlanFree})
		if err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
		_, err = s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: "x", Size: -1})
		if got, want := fileframe.ErrorCode(err), fileframe.EINVALID; got != want {
			t.Errorf("CreateFile(size -1): code got %q (error %v), want %q", got, err, want)
		}
	})

	t.Run("not found messages are safe to show", func(t *testing.T) {
		s := open(t, filepath.Join(t.TempDir(), "test.db"))
		_, err := s.FileBySlug(t.Context(), "nope")
		if got, want := fileframe.ErrorMessage(err), "File not found."; got != want {
			t.Errorf("FileBySlug(missing): message got %q, want %q", got, want)
		}
	})

	t.Run("a canceled context stops a write", func(t *testing.T) {
		s := open(t, filepath.Join(t.TempDir(), "test.db"))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := s.CreateAccount(ctx, fileframe.Account{Email: "x@example.com", Plan: fileframe.PlanFree})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("CreateAccount with a canceled context: got %v, want context.Canceled", err)
		}
	})
}

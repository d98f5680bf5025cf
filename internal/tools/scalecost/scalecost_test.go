package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/migration"
	"github.com/fileframe/fileframe/internal/postgres"
	"github.com/fileframe/fileframe/internal/sqlite"
)

// TestRunSQLite fills a small SQLite store and runs every measurement
// once, briefly: the counts the tool reports are the rows in the store,
// and each figure is printed.
func TestRunSQLite(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	cfg := Config{DB: "sqlite", Dir: dir, Files: 1000, Pages: 100, Revisions: 2, PerAccount: 300, Blobs: 50, Orphans: 5,
		HTMLBytes: 1024, Workers: 16, Lookups: 200, PostTime: 200 * time.Millisecond, PostWorkers: 2,
		Migrate: true, Collect: true, SlugsFile: filepath.Join(dir, "slugs"), DownloadSlugsFile: filepath.Join(dir, "dl"), Out: &out}
	res, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	want := Counts{Accounts: 4, Files: 1000, Pages: 100, Revisions: 200, Blobs: 50}
	if res.Filled != want || res.Stored != want {
		t.Errorf("filled %+v, stored %+v, want %+v", res.Filled, res.Stored, want)
	}
	for _, prefix := range []string{"fill ", "size ", "lookup ", "post ", "upload ", "migrate ", "collect "} {
		if !strings.Contains(out.String(), "\n"+prefix) && !strings.HasPrefix(out.String(), prefix) {
			t.Errorf("no %q line in\n%s", prefix, out.String())
		}
	}
	// One file in 200 has an ended link, left out of the slugs.
	for name, want := range map[string]int{"slugs": 995, "dl": 50} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(string(b), "\n"); got != want {
			t.Errorf("%s: %d lines, want %d", name, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for in, want := range map[string]int{"1e6": 1_000_000, "1000": 1000, "0": 0} {
		var n int
		if err := (count{&n}).Set(in); err != nil || n != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, n, err, want)
		}
	}
	for _, in := range []string{"1.5", "-1", "x", "1e12"} {
		var n int
		if err := (count{&n}).Set(in); err == nil {
			t.Errorf("Set(%q) = nil error, want one", in)
		}
	}
}

// TestReuse measures a store filled by an earlier run again, without
// filling it.
func TestReuse(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DB: "sqlite", Dir: dir, Files: 300, Pages: 30, Revisions: 1, PerAccount: 100, Blobs: 10,
		HTMLBytes: 512, Workers: 8, Out: io.Discard}
	if _, err := Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cfg.Reuse, cfg.Lookups, cfg.PostTime, cfg.PostWorkers, cfg.Migrate, cfg.Out = true, 100, 100*time.Millisecond, 2, true, &out
	if _, err := Run(t.Context(), cfg); err != nil {
		t.Fatalf("Run again: %v\n%s", err, out.String())
	}
	if s := out.String(); strings.Contains(s, "fill ") || strings.Contains(s, "migrate ") || !strings.Contains(s, "lookup ") || !strings.Contains(s, "upload ") {
		t.Errorf("a reuse prints lookups, posts and uploads only, got\n%s", s)
	}
}

// TestUndoStatements undoes each store's newest migration statement by
// statement: function bodies and trigger bodies are one statement each,
// and triggers on tables the migration did not create are dropped.
func TestUndoStatements(t *testing.T) {
	for db, migrations := range map[string]func() ([]migration.Migration, error){
		"sqlite": sqlite.Migrations, "postgres": postgres.Migrations,
	} {
		t.Run(db, func(t *testing.T) {
			ms, err := migrations()
			if err != nil {
				t.Fatal(err)
			}
			m := ms[len(ms)-1]
			undo, err := undoStatements(db, m)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := undo[len(undo)-1], fmt.Sprintf("DELETE FROM schema_migrations WHERE version = %d", m.Version); got != want {
				t.Errorf("last statement: got %q, want %q", got, want)
			}
			for _, stmt := range undo {
				if strings.Contains(stmt, ";") || strings.Contains(stmt, "\n") {
					t.Errorf("%s: undo statement %q is not one statement", m.Name, stmt)
				}
			}
		})
	}
	// Bodies that hold semicolons stay whole.
	m := migration.Migration{Name: "x", Version: 9, SQL: `
CREATE TABLE t (a INTEGER); -- a comment; with a semicolon
CREATE TRIGGER t_ins AFTER INSERT ON files BEGIN
    UPDATE t SET a = a + 1;
    UPDATE t SET a = a - 1;
END;
CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE t SET a = 1;
    RETURN NULL;
END
$$;
CREATE TRIGGER t_pg AFTER INSERT OR UPDATE OF a, b ON accounts FOR EACH ROW EXECUTE FUNCTION f();
INSERT INTO t (a) SELECT 1;
`}
	for db, want := range map[string][]string{
		"sqlite":   {"DROP TRIGGER t_pg", "DROP FUNCTION f", "DROP TRIGGER t_ins", "DROP TABLE t", "DELETE FROM schema_migrations WHERE version = 9"},
		"postgres": {"DROP TRIGGER t_pg ON accounts", "DROP FUNCTION f", "DROP TRIGGER t_ins ON files", "DROP TABLE t", "DELETE FROM schema_migrations WHERE version = 9"},
	} {
		got, err := undoStatements(db, m)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: got %q, %v; want %q", db, got, err, want)
		}
	}
	m.SQL = "CREATE TABLE t (a INTEGER); UPDATE files SET size = 0;"
	if _, err := undoStatements("sqlite", m); err == nil {
		t.Errorf("undoing a change of existing rows: got nil error, want one")
	}
}

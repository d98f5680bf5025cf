package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) fileframe.Store {
		return open(t, newDatabase(t))
	})
}

func TestMigrations(t *testing.T) {
	ms, err := Migrations()
	if err != nil {
		t.Fatalf("migrations: %v", err)
	}

	t.Run("embedded migrations are numbered 1..N", func(t *testing.T) {
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
		db := newDatabase(t)
		var applied time.Time
		for i := range 3 {
			s, err := Open(t.Context(), db)
			if err != nil {
				t.Fatalf("Open #%d: %v", i+1, err)
			}
			v, err := s.SchemaVersion(t.Context())
			if err != nil {
				t.Fatalf("SchemaVersion: %v", err)
			}
			if v != len(ms) {
				t.Errorf("Open #%d: SchemaVersion got %d, want %d", i+1, v, len(ms))
			}
			var rows int
			var first time.Time
			if err := s.pool.QueryRow(t.Context(), `SELECT count(*), min(applied_at) FROM schema_migrations`).Scan(&rows, &first); err != nil {
				t.Fatalf("read schema_migrations: %v", err)
			}
			if rows != len(ms) {
				t.Errorf("Open #%d: schema_migrations got %d rows, want %d", i+1, rows, len(ms))
			}
			if i == 0 {
				applied = first
			} else if !first.Equal(applied) {
				t.Errorf("Open #%d: migration 1 applied at %v, want %v (applied once, by the first Open)", i+1, first, applied)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
		}
	})

	t.Run("instances opening a fresh database at once all succeed and migrate once", func(t *testing.T) {
		db := newDatabase(t)
		const instances = 4
		stores := make([]*Store, instances)
		errs := make([]error, instances)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range instances {
			wg.Go(func() {
				<-start
				stores[i], errs[i] = Open(t.Context(), db)
			})
		}
		close(start)
		wg.Wait()
		for i, s := range stores {
			if errs[i] != nil {
				t.Errorf("Open by instance %d: %v", i, errs[i])
				continue
			}
			t.Cleanup(func() { s.Close() })
		}
		if t.Failed() {
			return
		}
		var rows, distinct int
		if err := stores[0].pool.QueryRow(t.Context(),
			`SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&rows, &distinct); err != nil {
			t.Fatalf("read schema_migrations: %v", err)
		}
		if rows != len(ms) || distinct != len(ms) {
			t.Errorf("schema_migrations: got %d rows (%d versions), want %d, each once", rows, distinct, len(ms))
		}
		for i, s := range stores {
			if v, err := s.SchemaVersion(t.Context()); err != nil || v != len(ms) {
				t.Errorf("instance %d: SchemaVersion got %d, %v, want %d, nil", i, v, err, len(ms))
			}
		}
	})

	t.Run("Open refuses a database whose schema is newer than the binary", func(t *testing.T) {
		db := newDatabase(t)
		s, err := Open(t.Context(), db)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		latest, err := s.SchemaVersion(t.Context())
		if err != nil {
			t.Fatalf("SchemaVersion: %v", err)
		}
		newer := latest + 1
		if _, err := s.pool.Exec(t.Context(), `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, now())`, newer); err != nil {
			t.Fatalf("insert a newer version: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		s, err = Open(t.Context(), db)
		if err == nil {
			s.Close()
			t.Fatalf("Open of a newer database: got no error, want one")
		}
		want := fmt.Sprintf("database schema version %d is newer than this binary (%d); upgrade fileframe", newer, latest)
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open of a newer database: got error %q, want it to say %q", err, want)
		}
	})
}

func TestOpen(t *testing.T) {
	t.Run("pool_max_conns in the URL sets the pool size", func(t *testing.T) {
		s := open(t, withParam(t, newDatabase(t), "pool_max_conns", "3"))
		if got := s.pool.Config().MaxConns; got != 3 {
			t.Errorf("MaxConns got %d, want 3", got)
		}
	})

	t.Run("Open of a database that does not exist fails", func(t *testing.T) {
		u := newDatabase(t)
		u = strings.Replace(u, "/fileframe_test_", "/fileframe_test_missing_", 1)
		s, err := Open(t.Context(), u)
		if err == nil {
			s.Close()
			t.Fatalf("Open(missing database): got no error, want one")
		}
	})

	t.Run("a URL that does not parse is refused without echoing it", func(t *testing.T) {
		s, err := Open(t.Context(), "postgres://user:sekrit@host:notaport/db")
		if err == nil {
			s.Close()
			t.Fatalf("Open(bad URL): got no error, want one")
		}
		if strings.Contains(err.Error(), "sekrit") {
			t.Errorf("Open(bad URL): error %q shows the password", err)
		}
	})
}

// TestTwoInstances is two instances of Fileframe behind a load balancer:
// two Stores on one database. What one writes, the other reads at once.
func TestTwoInstances(t *testing.T) {
	db := newDatabase(t)
	one, two := open(t, db), open(t, db)
	ctx := t.Context()
	a, err := one.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	f, err := two.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "shared.txt"})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}

	t.Run("a key revoked through one is revoked through the other", func(t *testing.T) {
		_, hash, prefix := fileframe.NewKeySecret(fileframe.KeyGeneral)
		k, err := one.CreateKey(ctx, fileframe.Key{AccountID: a.ID, Kind: fileframe.KeyGeneral, Name: "agent", Hash: hash, Prefix: prefix})
		if err != nil {
			t.Fatalf("CreateKey: %v", err)
		}
		if got, err := two.KeyByHash(ctx, hash); err != nil || !got.Usable(time.Now()) {
			t.Fatalf("KeyByHash through the other before revocation: got usable %v, %v, want true, nil", got.Usable(time.Now()), err)
		}
		if err := one.RevokeKey(ctx, a.ID, k.ID, time.Now()); err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		got, err := two.KeyByHash(ctx, hash)
		if err != nil {
			t.Fatalf("KeyByHash through the other: %v", err)
		}
		if got.Usable(time.Now()) || got.RevokedAt.IsZero() {
			t.Errorf("KeyByHash through the other after revocation: Usable got true (RevokedAt %v), want false", got.RevokedAt)
		}
	})

	t.Run("a page saved through one is read through the other", func(t *testing.T) {
		html := []byte("<!doctype html><html><body>from instance one</body></html>")
		p, err := one.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: html, Publish: true, At: time.Now()})
		if err != nil {
			t.Fatalf("SavePage: %v", err)
		}
		got, err := two.PageByFile(ctx, f.ID)
		if err != nil {
			t.Fatalf("PageByFile through the other: %v", err)
		}
		if got.LiveRevision != p.LiveRevision || got.LatestRevision != p.LatestRevision {
			t.Errorf("PageByFile through the other: got %+v, want %+v", got, p)
		}
		r, err := two.Revision(ctx, f.ID, p.LiveRevision)
		if err != nil {
			t.Fatalf("Revision through the other: %v", err)
		}
		if !bytes.Equal(r.HTML, html) {
			t.Errorf("Revision through the other: HTML got %q, want %q", r.HTML, html)
		}
	})

	t.Run("concurrent SavePage through both numbers revisions consecutively", func(t *testing.T) {
		g, err := one.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "busy.txt"})
		if err != nil {
			t.Fatalf("CreateFile: %v", err)
		}
		const perInstance = 20
		var mu sync.Mutex
		var numbers []int
		var wg sync.WaitGroup
		for i, s := range []*Store{one, two} {
			for j := range perInstance {
				wg.Go(func() {
					html := fmt.Appendf(nil, "<html><body>instance %d write %d</body></html>", i, j)
					p, err := s.SavePage(ctx, fileframe.PageWrite{FileID: g.ID, HTML: html, Publish: j%2 == 0, At: time.Now()})
					if err != nil {
						t.Errorf("instance %d: SavePage: %v", i, err)
						return
					}
					mu.Lock()
					numbers = append(numbers, p.LatestRevision)
					mu.Unlock()
				})
			}
		}
		wg.Wait()
		slices.Sort(numbers)
		want := make([]int, 2*perInstance)
		for i := range want {
			want[i] = i + 1
		}
		if !slices.Equal(numbers, want) {
			t.Errorf("revision numbers: got %v, want %v", numbers, want)
		}
	})

	t.Run("concurrent AddDownloads through both add up", func(t *testing.T) {
		var files []fileframe.FileID
		for range 20 {
			g, err := one.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "popular.txt"})
			if err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
			files = append(files, g.ID)
		}
		const flushes = 30
		var wg sync.WaitGroup
		for i, s := range []*Store{one, two, one, two} {
			wg.Go(func() {
				for range flushes {
					counts := map[fileframe.FileID]int64{}
					for _, id := range files {
						counts[id] = 1
					}
					if err := s.AddDownloads(ctx, counts); err != nil {
						t.Errorf("flusher %d: AddDownloads: %v", i, err)
						return
					}
				}
			})
		}
		wg.Wait()
		for _, id := range files {
			got, err := two.FileByID(ctx, id)
			if err != nil {
				t.Fatalf("FileByID: %v", err)
			}
			if got.Downloads != 4*flushes {
				t.Errorf("file %s: Downloads got %d, want %d", id, got.Downloads, 4*flushes)
			}
		}
	})
}

// TestSharedHTMLUnderPruning races one page's pruning of HTML against
// another page's storing of a revision of that same HTML: at each step,
// page A stores a new revision, which prunes A's revision of RevisionsKept
// steps ago, whose HTML nothing else refers to, while page B stores that
// HTML. Every save must succeed (a transaction that loses the race is
// retried), every kept revision must have its HTML, and no HTML may be left
// that nothing refers to.
func TestSharedHTMLUnderPruning(t *testing.T) {
	s := open(t, newDatabase(t))
	ctx := t.Context()
	a, err := s.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	var pageA, pageB fileframe.FileID
	for _, id := range []*fileframe.FileID{&pageA, &pageB} {
		f, err := s.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "x"})
		if err != nil {
			t.Fatalf("CreateFile: %v", err)
		}
		*id = f.ID
	}
	body := func(k int) []byte { return fmt.Appendf(nil, "<html><body>body %d</body></html>", k) }
	const steps = fileframe.RevisionsKept + 200
	for k := range steps {
		var wg sync.WaitGroup
		wg.Go(func() {
			if _, err := s.SavePage(ctx, fileframe.PageWrite{FileID: pageA, HTML: body(k), At: time.Now()}); err != nil {
				t.Errorf("page A: SavePage #%d: %v", k+1, err)
			}
		})
		if k >= fileframe.RevisionsKept {
			wg.Go(func() {
				if _, err := s.SavePage(ctx, fileframe.PageWrite{FileID: pageB, HTML: body(k - fileframe.RevisionsKept), At: time.Now()}); err != nil {
					t.Errorf("page B: SavePage of body %d: %v", k-fileframe.RevisionsKept, err)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
	}
	for _, id := range []fileframe.FileID{pageA, pageB} {
		revs, err := s.Revisions(ctx, id)
		if err != nil {
			t.Fatalf("Revisions: %v", err)
		}
		if len(revs) != fileframe.RevisionsKept {
			t.Errorf("file %s: got %d revisions, want %d", id, len(revs), fileframe.RevisionsKept)
		}
		for _, r := range revs {
			got, err := s.Revision(ctx, id, r.Number)
			if err != nil {
				t.Errorf("Revision(%s, %d): %v", id, r.Number, err)
			} else if sha := fileframe.HashKey(string(got.HTML)); got.SHA256 != r.SHA256 || sha != r.SHA256 {
				t.Errorf("Revision(%s, %d): SHA256 got %s, of its HTML %s, want %s", id, r.Number, got.SHA256, sha, r.SHA256)
			}
		}
	}
	var orphans int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM page_html h
		WHERE NOT EXISTS (SELECT 1 FROM page_revisions r WHERE r.sha256 = h.sha256)`).Scan(&orphans); err != nil {
		t.Fatalf("count orphaned HTML: %v", err)
	}
	if orphans != 0 {
		t.Errorf("page_html: got %d rows no revision refers to, want 0", orphans)
	}
}

func TestErrors(t *testing.T) {
	t.Run("internal errors are wrapped with the operation and keep their cause", func(t *testing.T) {
		s, err := Open(t.Context(), newDatabase(t))
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
		if !strings.HasPrefix(err.Error(), "postgres: file by id: ") || !strings.Contains(err.Error(), "closed") {
			t.Errorf("FileByID on a closed store: got %q, want it wrapped as %q with its cause", err, "postgres: file by id: ...")
		}
	})

	s := open(t, newDatabase(t))
	ctx := t.Context()
	a, err := s.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	f, err := s.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "x"})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}

	t.Run("not found and conflict messages are safe to show", func(t *testing.T) {
		_, slugErr := s.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "y", Slug: f.Slug})
		_, missingErr := s.CreateFile(ctx, fileframe.File{AccountID: "a_missing", Name: "y"})
		_, pageErr := s.SavePage(ctx, fileframe.PageWrite{FileID: "f_missing", HTML: []byte("<html></html>")})
		_, emailErr := s.CreateAccount(ctx, fileframe.Account{Email: "OWNER@example.com", Plan: fileframe.PlanFree})
		_, slugLookupErr := s.FileBySlug(ctx, "nope")
		for _, c := range []struct {
			call       string
			err        error
			code, want string
		}{
			{"CreateFile(taken slug)", slugErr, fileframe.ECONFLICT, "This link is already taken."},
			{"CreateFile(missing account)", missingErr, fileframe.ENOTFOUND, "Account not found."},
			{"SavePage(missing file)", pageErr, fileframe.ENOTFOUND, "File not found."},
			{"CreateAccount(taken email)", emailErr, fileframe.ECONFLICT, "An account with this email already exists."},
			{"FileBySlug(missing)", slugLookupErr, fileframe.ENOTFOUND, "File not found."},
		} {
			if got := fileframe.ErrorCode(c.err); got != c.code {
				t.Errorf("%s: code got %q (error %v), want %q", c.call, got, c.err, c.code)
			}
			if got := fileframe.ErrorMessage(c.err); got != c.want {
				t.Errorf("%s: message got %q, want %q", c.call, got, c.want)
			}
		}
	})

	t.Run("text the database cannot hold is EINVALID", func(t *testing.T) {
		// PostgreSQL text cannot hold a NUL byte, nor invalid UTF-8.
		for _, name := range []string{"nul\x00byte.txt", "bad\xffutf8.txt"} {
			_, err := s.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: name})
			if got := fileframe.ErrorCode(err); got != fileframe.EINVALID {
				t.Errorf("CreateFile(name %q): code got %q (error %v), want %q", name, got, err, fileframe.EINVALID)
			}
		}
	})

	t.Run("lookups by values the database cannot hold are ENOTFOUND", func(t *testing.T) {
		// A slug from a URL path or an ID from a JSON body may be anything;
		// no row can match it, as in internal/sqlite.
		if _, err := s.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: []byte("<html></html>"), Publish: true}); err != nil {
			t.Fatalf("SavePage: %v", err)
		}
		for _, bad := range []string{"nul\x00", "\xff\xfe"} {
			_, err := s.FileBySlug(ctx, bad)
			wantNotFound(t, fmt.Sprintf("FileBySlug(%q)", bad), err)
			_, err = s.FileByID(ctx, fileframe.FileID(bad))
			wantNotFound(t, fmt.Sprintf("FileByID(%q)", bad), err)
			_, err = s.AccountByEmail(ctx, bad)
			wantNotFound(t, fmt.Sprintf("AccountByEmail(%q)", bad), err)
			_, err = s.KeyByHash(ctx, bad)
			wantNotFound(t, fmt.Sprintf("KeyByHash(%q)", bad), err)
			_, err = s.PageByFile(ctx, fileframe.FileID(bad))
			wantNotFound(t, fmt.Sprintf("PageByFile(%q)", bad), err)
			_, err = s.SavePage(ctx, fileframe.PageWrite{FileID: fileframe.FileID(bad), HTML: []byte("x")})
			wantNotFound(t, fmt.Sprintf("SavePage(%q)", bad), err)
			err = s.AddDownloads(ctx, map[fileframe.FileID]int64{fileframe.FileID(bad): 1, f.ID: 1})
			if err != nil {
				t.Errorf("AddDownloads(%q and an existing file): got %v, want nil", bad, err)
			}
		}
		for _, n := range []int{math.MaxInt32 + 1, math.MaxInt64, math.MinInt64} {
			_, err := s.Revision(ctx, f.ID, n)
			wantNotFound(t, fmt.Sprintf("Revision(%d)", n), err)
		}
	})

	t.Run("a canceled context stops a write", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := s.CreateAccount(ctx, fileframe.Account{Email: "x@example.com", Plan: fileframe.PlanFree})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("CreateAccount with a canceled context: got %v, want context.Canceled", err)
		}
		_, err = s.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: []byte("<html></html>")})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("SavePage with a canceled context: got %v, want context.Canceled", err)
		}
	})
}

// wantNotFound fails the test unless err is ENOTFOUND.
func wantNotFound(t *testing.T, call string, err error) {
	t.Helper()
	if got := fileframe.ErrorCode(err); got != fileframe.ENOTFOUND {
		t.Errorf("%s: code got %q (error %v), want %q", call, got, err, fileframe.ENOTFOUND)
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/migration"
	"github.com/fileframe/fileframe/internal/service"
)

// load is the machine's load average over the last minute, as uptime
// prints it, for the figure beside it.
func load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load ?"
	}
	return "load " + strings.Fields(string(b))[0]
}

// percentile returns the p-th percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}

// measureSize prints the database's size per file and per revision.
func measureSize(ctx context.Context, cfg Config, b *backend, c Counts) error {
	tables, total, err := b.sizes(ctx)
	if err != nil {
		return err
	}
	perRev := 0.0
	if c.Revisions > 0 {
		perRev = float64(tables["pages"]+tables["page_revisions"]+tables["page_html"]) / float64(c.Revisions)
	}
	fmt.Fprintf(cfg.Out, "size  database %.1f MB: %.0f B/file in all, files table and its indexes %.0f B/file, pages %.0f B/revision (of which HTML %d B) (%s)\n",
		float64(total)/1e6, float64(total)/float64(c.Files), float64(tables["files"])/float64(c.Files), perRev, cfg.HTMLBytes, load())
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return tables[names[i]] > tables[names[j]] })
	var parts []string
	for _, n := range names[:min(len(names), 8)] {
		parts = append(parts, fmt.Sprintf("%s %.1f MB", n, float64(tables[n])/1e6))
	}
	fmt.Fprintf(cfg.Out, "size  largest tables with their indexes: %s\n", strings.Join(parts, ", "))
	return nil
}

// sizes returns the bytes of each table with its indexes, and of the
// database. SQLite's WAL is checkpointed first, so that the file holds
// everything.
func (b *backend) sizes(ctx context.Context) (map[string]int64, int64, error) {
	var total int64
	var perTable string
	if b.cfg.DB == "sqlite" {
		if _, err := b.raw.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			return nil, 0, err
		}
		if err := b.raw.QueryRowContext(ctx, `SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`).Scan(&total); err != nil {
			return nil, 0, err
		}
		perTable = `SELECT coalesce(m.tbl_name, d.name), sum(d.pgsize)
			FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY 1`
	} else {
		if err := b.raw.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&total); err != nil {
			return nil, 0, err
		}
		perTable = `SELECT relname, pg_total_relation_size(oid) FROM pg_class
			WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`
	}
	rows, err := b.raw.QueryContext(ctx, perTable)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	tables := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return nil, 0, err
		}
		tables[name] = n
	}
	return tables, total, rows.Err()
}

// measureLookups prints the cost of the public path's reads for random
// slugs, on one goroutine, after 1,000 not counted.
func measureLookups(ctx context.Context, cfg Config, b *backend, slugs []string) error {
	rng := rand.New(rand.NewPCG(1, 2))
	lookup := func(slug string) error {
		f, err := b.store.FileBySlug(ctx, slug)
		if err != nil {
			return err
		}
		if _, err := b.store.AccountByID(ctx, f.AccountID); err != nil {
			return err
		}
		if _, err := b.store.PageByFile(ctx, f.ID); err != nil && !fileframe.IsNotFound(err) {
			return err
		}
		return nil
	}
	for _, s := range sample(rng, slugs, 1000) {
		if err := lookup(s); err != nil {
			return err
		}
	}
	took := make([]time.Duration, 0, cfg.Lookups)
	t0 := time.Now()
	for _, s := range sample(rng, slugs, cfg.Lookups) {
		t := time.Now()
		if err := lookup(s); err != nil {
			return err
		}
		took = append(took, time.Since(t))
	}
	all := time.Since(t0)
	slices.Sort(took)
	fmt.Fprintf(cfg.Out, "lookup  FileBySlug+AccountByID+PageByFile, random slugs: %d ns/op, p50 %s, p99 %s (%d lookups, %s)\n",
		all.Nanoseconds()/int64(len(took)), percentile(took, 0.5), percentile(took, 0.99), len(took), load())
	return nil
}

// postQuota is serve's default quota of the Agency plan (cmd/fileframe's
// defaultQuotas): its limits make SavePage and AddFile count the
// account's usage, as they do in serve.
var postQuota = fileframe.Quota{Storage: 1 << 40, File: 50 << 30, Files: 100_000}

// target is a file with its owner, as a handler has them after its key's
// lookup.
type target struct {
	acct fileframe.Account
	file fileframe.File
}

// targets reads up to 1,000 of files, picked at random, with their owners.
func targets(ctx context.Context, b *backend, files []fileframe.FileID) ([]target, error) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ts []target
	for _, id := range sample(rng, files, min(1000, len(files))) {
		f, err := b.store.FileByID(ctx, id)
		if err != nil {
			return nil, err
		}
		a, err := b.store.AccountByID(ctx, f.AccountID)
		if err != nil {
			return nil, err
		}
		ts = append(ts, target{a, f})
	}
	return ts, nil
}

// hammer runs do on random targets from workers goroutines for d, and
// returns how many calls it made per second and their durations, sorted.
func hammer(ctx context.Context, ts []target, workers int, d time.Duration, do func(context.Context, target) error) (float64, []time.Duration, error) {
	var (
		mu   sync.Mutex
		took []time.Duration
	)
	deadline := time.Now().Add(d)
	t0 := time.Now()
	err := parallel(ctx, workers, workers, func(ctx context.Context, w int) error {
		rng := rand.New(rand.NewPCG(uint64(w), 5))
		var mine []time.Duration
		for time.Now().Before(deadline) {
			t := ts[rng.IntN(len(ts))]
			start := time.Now()
			if err := do(ctx, t); err != nil {
				return err
			}
			mine = append(mine, time.Since(start))
		}
		mu.Lock()
		took = append(took, mine...)
		mu.Unlock()
		return nil
	})
	slices.Sort(took)
	return float64(len(took)) / time.Since(t0).Seconds(), took, err
}

// measurePosts prints the rate and latency of 20 KB page revisions saved
// through the service layer on random files with pages, and of 4 KiB
// uploads (service.AddFile, each with its quota checks) into their
// accounts.
func measurePosts(ctx context.Context, cfg Config, b *backend, pageFiles []fileframe.FileID) error {
	if len(pageFiles) == 0 {
		return nil
	}
	svc, err := service.New(service.Config{Store: b.store, Blobs: b.blobs,
		Quotas: map[fileframe.Plan]fileframe.Quota{fileframe.PlanAgency: postQuota}})
	if err != nil {
		return err
	}
	ts, err := targets(ctx, b, pageFiles)
	if err != nil {
		return err
	}
	var seq atomic.Int64
	rate, took, err := hammer(ctx, ts, cfg.PostWorkers, cfg.PostTime, func(ctx context.Context, t target) error {
		doc := pageHTML(int(seq.Add(1)), 0, 20_000)
		_, _, err := svc.SavePage(ctx, t.acct, t.file, doc, service.PageMode{Publish: true})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Out, "post  service.SavePage, 20 KB, %d goroutines: %.0f/s, p50 %s, p99 %s (%d revisions, %s)\n",
		cfg.PostWorkers, rate, percentile(took, 0.5), percentile(took, 0.99), len(took), load())
	rate, took, err = hammer(ctx, ts, cfg.PostWorkers, cfg.PostTime, func(ctx context.Context, t target) error {
		n := int(seq.Add(1))
		_, err := svc.AddFile(ctx, service.NewFile{Account: t.acct, Name: fmt.Sprintf("upload-%d.pdf", n), Size: 4096,
			Body: bytes.NewReader(fileContent(-1_000_000_000 - n))})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Out, "upload  service.AddFile, 4 KiB, %d goroutines: %.0f/s, p50 %s, p99 %s (%d files, %s)\n",
		cfg.PostWorkers, rate, percentile(took, 0.5), percentile(took, 0.99), len(took), load())
	return nil
}

// measureMigrate prints how long Open takes to apply the newest migration
// to the filled database, and to open it once migrated; the store stays
// open.
func measureMigrate(ctx context.Context, cfg Config, b *backend) error {
	if err := b.store.Close(); err != nil {
		return err
	}
	b.store = nil
	name, err := b.undoNewestMigration(ctx)
	if err != nil {
		return err
	}
	t0 := time.Now()
	s, err := b.openStore(ctx)
	if err != nil {
		return err
	}
	migrated := time.Since(t0)
	if err := s.Close(); err != nil {
		return err
	}
	t0 = time.Now()
	if b.store, err = b.openStore(ctx); err != nil {
		return err
	}
	opened := time.Since(t0)
	fmt.Fprintf(cfg.Out, "migrate  Open applying %s: %s; Open of the migrated database: %s (%s)\n",
		name, migrated.Round(time.Millisecond), opened.Round(time.Millisecond), load())
	return nil
}

// Statements of a migration that undoNewestMigration knows how to undo.
var (
	createTable    = regexp.MustCompile(`(?is)^CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)`)
	createIndex    = regexp.MustCompile(`(?is)^CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)`)
	addColumn      = regexp.MustCompile(`(?is)^ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(\w+)`)
	createTrigger  = regexp.MustCompile(`(?is)^CREATE\s+TRIGGER\s+(\w+)\s.*?\sON\s+(\w+)`)
	createFunction = regexp.MustCompile(`(?is)^CREATE\s+FUNCTION\s+(\w+)`)
	insertInto     = regexp.MustCompile(`(?is)^INSERT\s+INTO\s+(\w+)`)
	comment        = regexp.MustCompile(`--[^\n]*`)
	// A SQLite trigger's body is statements between BEGIN and END.
	triggerBody = regexp.MustCompile(`(?is)^CREATE\s+TRIGGER\s.*\sBEGIN\s`)
	triggerEnd  = regexp.MustCompile(`(?is)\sEND\s*;$`)
)

// statements splits a migration, without its comments, at each ";" that
// ends a statement: not those in a PostgreSQL function's body ($$ … $$)
// or in a SQLite trigger's (BEGIN … END).
func statements(sql string) []string {
	var out []string
	var cur strings.Builder
	for _, piece := range strings.SplitAfter(comment.ReplaceAllString(sql, ""), ";") {
		cur.WriteString(piece)
		stmt := strings.TrimSpace(cur.String())
		if strings.Count(stmt, "$$")%2 == 1 || triggerBody.MatchString(stmt) && !triggerEnd.MatchString(stmt) {
			continue
		}
		if stmt = strings.TrimSpace(strings.TrimSuffix(stmt, ";")); stmt != "" {
			out = append(out, stmt)
		}
		cur.Reset()
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		out = append(out, rest)
	}
	return out
}

// undoNewestMigration takes the database back to the schema before its
// newest migration, so that the next Open applies it to the filled data:
// it drops what the migration created (tables, indexes, added columns,
// triggers, functions), in the reverse order, and forgets that it was
// applied; rows it inserted into tables it created go with them. It
// refuses a migration with any other statement (changes of existing data):
// that one's time is then not measured, rather than measured wrong. The
// undo is the tool's, not the store's: the stores have no down migrations.
func (b *backend) undoNewestMigration(ctx context.Context) (string, error) {
	ms, err := b.migrations()
	if err != nil {
		return "", err
	}
	m := ms[len(ms)-1]
	undo, err := undoStatements(b.cfg.DB, m)
	if err != nil {
		return "", err
	}
	tx, err := b.raw.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	for _, stmt := range undo {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return "", fmt.Errorf("undoing %s: %s: %w", m.Name, stmt, err)
		}
	}
	return m.Name, tx.Commit()
}

// undoStatements returns the statements that undo migration m of db
// (sqlite or postgres), as undoNewestMigration runs them.
func undoStatements(db string, m migration.Migration) ([]string, error) {
	var undo []string
	created := map[string]bool{}
	for _, stmt := range statements(m.SQL) {
		switch {
		case createTable.MatchString(stmt):
			table := createTable.FindStringSubmatch(stmt)[1]
			created[strings.ToLower(table)] = true
			undo = append(undo, "DROP TABLE "+table)
		case createIndex.MatchString(stmt):
			undo = append(undo, "DROP INDEX "+createIndex.FindStringSubmatch(stmt)[1])
		case addColumn.MatchString(stmt):
			s := addColumn.FindStringSubmatch(stmt)
			undo = append(undo, "ALTER TABLE "+s[1]+" DROP COLUMN "+s[2])
		case createTrigger.MatchString(stmt):
			s := createTrigger.FindStringSubmatch(stmt)
			if db == "sqlite" {
				undo = append(undo, "DROP TRIGGER "+s[1])
			} else {
				undo = append(undo, "DROP TRIGGER "+s[1]+" ON "+s[2])
			}
		case createFunction.MatchString(stmt):
			undo = append(undo, "DROP FUNCTION "+createFunction.FindStringSubmatch(stmt)[1])
		case insertInto.MatchString(stmt) && created[strings.ToLower(insertInto.FindStringSubmatch(stmt)[1])]:
		default:
			return nil, fmt.Errorf("%s: cannot undo %.60q to time it again", m.Name, stmt)
		}
	}
	slices.Reverse(undo)
	return append(undo, fmt.Sprintf("DELETE FROM schema_migrations WHERE version = %d", m.Version)), nil
}

// measureCollect prints the time of one pass of serve's periodic clean-up
// (cmd/fileframe's startBackground), each part and in all.
func measureCollect(ctx context.Context, cfg Config, b *backend) error {
	svc, err := service.New(service.Config{Store: b.store, Blobs: b.blobs})
	if err != nil {
		return err
	}
	blobs := 0
	if err := b.blobs.Walk(ctx, func(fileframe.BlobInfo) error { blobs++; return nil }); err != nil {
		return err
	}
	now := time.Now()
	var parts []string
	var all time.Duration
	for _, p := range []struct {
		what string
		run  func() (int, error)
	}{
		// Every blob counts as older than BlobGrace (they were all put in
		// the last minutes), so that each one is checked against the store.
		{"orphaned blobs", func() (int, error) {
			return fileframe.CollectOrphanBlobs(ctx, b.store, b.blobs, now.Add(fileframe.BlobGrace))
		}},
		{"ended links", func() (int, error) { return svc.CollectEndedLinks(ctx) }},
		{"sessions", func() (int, error) { return b.store.DeleteExpiredSessions(ctx, now) }},
		{"upload records", func() (int, error) { return b.store.DeleteUploadRecords(ctx, now.Add(-24*time.Hour)) }},
		{"idempotency answers", func() (int, error) { return b.store.DeleteIdempotentBefore(ctx, now.Add(-24*time.Hour)) }},
		{"reservations", func() (int, error) { return b.store.DeleteExpiredReservations(ctx, now) }},
		{"webhook deliveries", func() (int, error) { return b.store.DeleteDeliveriesBefore(ctx, now.Add(-30*24*time.Hour)) }},
		{"temp blobs", func() (int, error) { return b.blobs.CleanTemp(ctx, time.Hour) }},
	} {
		t0 := time.Now()
		n, err := p.run()
		if err != nil {
			return fmt.Errorf("%s: %w", p.what, err)
		}
		took := time.Since(t0)
		all += took
		parts = append(parts, fmt.Sprintf("%s %s (%d removed)", p.what, took.Round(100*time.Microsecond), n))
	}
	fmt.Fprintf(cfg.Out, "collect  one pass %s over %s blobs: %s (%s)\n",
		all.Round(time.Millisecond), num(blobs), strings.Join(parts, ", "), load())
	return nil
}

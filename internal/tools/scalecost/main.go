// Command scalecost measures how Fileframe's costs grow with the size of
// its store (issue 15, "How cost grows"). It fills a fresh store through
// fileframe.Store, the real SQLite store in a data directory or a
// PostgreSQL database, with -files files (in accounts of -per-account
// files), -pages of them with a custom page of -revisions revisions, and
// then measures on it, printing one line per figure:
//
//   - size: the database's bytes per file and per page revision (SQLite:
//     page_count × page_size with the WAL checkpointed, and each table's
//     share from dbstat; PostgreSQL: pg_database_size and each table's
//     pg_total_relation_size), before anything else writes;
//   - lookup: what the public path reads for a link it does not have in
//     its cache (FileBySlug, AccountByID, PageByFile) for random slugs, one
//     goroutine: ns/op and the 50th and 99th percentiles;
//   - post: custom-page revisions of 20 KB saved through the service layer
//     (service.SavePage, what POST /api/campaign/custom-html runs after
//     its key and file lookups, HTML check included) by -post-workers
//     goroutines on random files with pages, for -post-time: rate and p99;
//   - upload: 4 KiB files added through the service layer (service.AddFile,
//     with its reservations and quota checks, under serve's default
//     Agency quota) into the same files' accounts, the same way;
//   - migrate: the time Open takes to apply the newest migration to the
//     filled database (the tool first undoes it: see undoNewestMigration), then
//     to open the database already migrated;
//   - collect: one pass of what serve runs every --cleanup-every: the
//     orphaned blobs (fileframe.CollectOrphanBlobs, with every blob taken as
//     older than BlobGrace), the files of ended links
//     (service.CollectEndedLinks), and the deletions of expired sessions,
//     upload records, idempotency answers, reservations and old webhook
//     deliveries.
//
// With -reuse it measures lookups, posts and uploads again on a store an
// earlier run filled and kept (-dir, -database-url), so that sizes can be
// measured in turns. With -idle URL it measures instead what idle
// keep-alive connections cost a running `fileframe serve` (idle.go).
//
// What is filled, and what is not real: see fill.go. The blobs are 4 KiB
// each and only -blobs of the files have theirs in the blob store (the
// others name a blob that is not there); -orphans blobs no row names are
// added for the collector to find. scripts/bench-scale runs the tool at
// several sizes and the HTTP measurements against `fileframe serve` on
// the data it leaves (-dir, -slugs, -download-slugs).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fileframe/fileframe/internal/postgres/pgtest"
)

// Config is one run of the tool.
type Config struct {
	DB          string // "sqlite" or "postgres"
	Dir         string // the data directory: Dir/fileframe.db (SQLite) and Dir/blobs
	DatabaseURL string // PostgreSQL's database; empty with DB "sqlite"

	Files, Pages, Revisions, PerAccount, Blobs, Orphans int
	HTMLBytes                                           int // a filled revision's HTML
	Workers                                             int // concurrent Store calls while filling

	Lookups     int // lookups measured; 0: none
	PostTime    time.Duration
	PostWorkers int
	Migrate     bool
	Collect     bool
	// Reuse measures the store a run before filled and left in Dir (or
	// DatabaseURL) again, without filling it: lookups, posts and uploads
	// only, so that the sizes can be measured in turns.
	Reuse bool

	// SlugsFile and DownloadSlugsFile, when set, receive the slugs of
	// every file whose link works, and of those whose blob is stored.
	SlugsFile, DownloadSlugsFile string

	Out io.Writer
}

// count is a flag of a count that may be written 1e6.
type count struct{ n *int }

func (c count) String() string {
	if c.n == nil {
		return "0"
	}
	return strconv.Itoa(*c.n)
}

func (c count) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return fmt.Errorf("not a count: %q", s)
	}
	*c.n = int(f)
	return nil
}

func main() {
	cfg := Config{Out: os.Stdout}
	flag.StringVar(&cfg.DB, "db", "sqlite", "sqlite or postgres")
	flag.StringVar(&cfg.Dir, "dir", "", "the data directory, kept (default: a temporary one, removed at the end)")
	flag.StringVar(&cfg.DatabaseURL, "database-url", "", "postgres: the (empty) database to fill, kept (default: a fresh one on $"+pgtest.URLEnv+"'s server, dropped at the end)")
	cfg.Files, cfg.Pages, cfg.Revisions, cfg.PerAccount, cfg.Blobs, cfg.Orphans = 10_000, 100_000, 3, 1_000, 10_000, 100
	flag.Var(count{&cfg.Files}, "files", "files to fill (1e6 is accepted)")
	flag.Var(count{&cfg.Pages}, "pages", "files with a custom page (at most -files)")
	flag.Var(count{&cfg.Revisions}, "revisions", "revisions of each page")
	flag.Var(count{&cfg.PerAccount}, "per-account", "files in each account")
	flag.Var(count{&cfg.Blobs}, "blobs", "files whose 4 KiB blob is stored (at most -files)")
	flag.Var(count{&cfg.Orphans}, "orphans", "blobs stored that no file names")
	flag.IntVar(&cfg.HTMLBytes, "html-bytes", 2048, "bytes of HTML in each filled revision")
	flag.IntVar(&cfg.Workers, "workers", 64, "concurrent Store calls while filling (SQLite commits up to 64 together)")
	flag.Var(count{&cfg.Lookups}, "lookups", "lookups to measure (0: none)")
	cfg.Lookups = 20_000
	flag.DurationVar(&cfg.PostTime, "post-time", 10*time.Second, "how long to measure page POSTs (0: not)")
	flag.IntVar(&cfg.PostWorkers, "post-workers", 16, "concurrent page POSTs")
	flag.BoolVar(&cfg.Migrate, "migrate", true, "measure the newest migration and an open")
	flag.BoolVar(&cfg.Collect, "collect", true, "measure one pass of the collector and clean-up")
	flag.BoolVar(&cfg.Reuse, "reuse", false, "measure lookups, posts and uploads again on the store an earlier run left in -dir or -database-url, without filling")
	flag.StringVar(&cfg.SlugsFile, "slugs", "", "write the slugs of the files whose links work to this file")
	flag.StringVar(&cfg.DownloadSlugsFile, "download-slugs", "", "write the slugs of the files whose blobs are stored to this file")
	idleURL := flag.String("idle", "", "instead: measure idle keep-alive connections to this URL of a running serve (with -pid)")
	idlePID := flag.Int("pid", 0, "-idle: serve's process ID")
	idleConns := flag.String("conns", "1000,5000", "-idle: the numbers of connections to hold, comma-separated")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *idleURL != "" {
		err = runIdle(ctx, os.Stdout, *idleURL, *idlePID, *idleConns)
	} else {
		err = runMain(ctx, cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalecost:", err)
		os.Exit(1)
	}
}

// runMain makes the temporary directory and database the flags leave out,
// runs the measurements and removes what it made.
func runMain(ctx context.Context, cfg Config) error {
	if cfg.DB != "sqlite" && cfg.DB != "postgres" {
		return fmt.Errorf("-db must be sqlite or postgres, not %q", cfg.DB)
	}
	if cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "fileframe-scalecost-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.Dir = dir
	}
	if cfg.DB == "postgres" && cfg.DatabaseURL == "" {
		url, drop, err := pgtest.Create(ctx, "fileframe_scalecost_")
		if err != nil {
			return err
		}
		defer drop(context.Background())
		cfg.DatabaseURL = url
	}
	_, err := Run(ctx, cfg)
	return err
}

// Result is what Run filled and measured (the printed lines, as numbers,
// for the test).
type Result struct {
	Filled Counts // what the fill made
	Stored Counts // what the store holds after the fill, counted in SQL
}

// Run fills a fresh store as cfg says and measures on it.
func Run(ctx context.Context, cfg Config) (Result, error) {
	var res Result
	cfg.Pages = min(cfg.Pages, cfg.Files)
	cfg.Blobs = min(cfg.Blobs, cfg.Files)
	cfg.PerAccount = max(cfg.PerAccount, 1)
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return res, err
	}
	b, err := openBackend(ctx, cfg)
	if err != nil {
		return res, err
	}
	defer func() { b.close() }()
	var f filled
	if cfg.Reuse {
		if f, err = b.filled(ctx); err != nil {
			return res, err
		}
	} else if f, err = fillAndCount(ctx, cfg, b, &res); err != nil {
		return res, err
	}
	if cfg.Lookups > 0 {
		if err := measureLookups(ctx, cfg, b, f.slugs); err != nil {
			return res, fmt.Errorf("lookups: %w", err)
		}
	}
	if cfg.PostTime > 0 {
		if err := measurePosts(ctx, cfg, b, f.pageFiles); err != nil {
			return res, fmt.Errorf("posts: %w", err)
		}
	}
	if cfg.Reuse {
		return res, nil
	}
	if cfg.Migrate {
		if err := measureMigrate(ctx, cfg, b); err != nil {
			return res, fmt.Errorf("migrate: %w", err)
		}
	}
	if cfg.Collect {
		if err := measureCollect(ctx, cfg, b); err != nil {
			return res, fmt.Errorf("collect: %w", err)
		}
	}
	return res, nil
}

// fillAndCount fills the store, checks the rows against what the fill
// made, writes the slug files and measures the size.
func fillAndCount(ctx context.Context, cfg Config, b *backend, res *Result) (filled, error) {
	t0 := time.Now()
	f, err := fill(ctx, cfg, b)
	if err != nil {
		return f, fmt.Errorf("filling: %w", err)
	}
	res.Filled = f.counts
	fmt.Fprintf(cfg.Out, "fill  %s files, %s accounts, %s pages, %s revisions, %s blobs (+%s orphans) in %s\n",
		num(f.counts.Files), num(f.counts.Accounts), num(f.counts.Pages), num(f.counts.Revisions),
		num(f.counts.Blobs), num(cfg.Orphans), time.Since(t0).Round(time.Millisecond))
	if res.Stored, err = b.counts(ctx); err != nil {
		return f, err
	}
	if res.Stored != res.Filled {
		return f, fmt.Errorf("the store holds %+v, not the %+v filled", res.Stored, res.Filled)
	}
	if err := writeLines(cfg.SlugsFile, f.slugs); err != nil {
		return f, err
	}
	if err := writeLines(cfg.DownloadSlugsFile, f.downloadSlugs); err != nil {
		return f, err
	}
	if err := measureSize(ctx, cfg, b, res.Stored); err != nil {
		return f, fmt.Errorf("size: %w", err)
	}
	return f, nil
}

// writeLines writes lines to the file name, when it is not "".
func writeLines(name string, lines []string) error {
	if name == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// num writes n with thousands separators.
func num[T int | int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

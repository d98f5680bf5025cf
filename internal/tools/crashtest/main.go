// Command crashtest is Fileframe's crash harness (package crash): rounds
// of concurrent page POSTs and uploads against `fileframe serve`, killed
// with SIGKILL at a random moment and started again on the same data, with
// every acknowledged write checked after each restart and all of them at
// the end. It prints a line per round and a summary, and exits 1 when
// anything was lost or left behind, or the database fails its check.
// scripts/crashtest builds the binary and runs it.
//
// On -backend postgres it makes a fresh database on the PostgreSQL server
// of $FILEFRAME_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
// and starts versitygw on loopback for the blobs, and removes both at the
// end.
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fileframe/fileframe/internal/blob/s3/s3test"
	"github.com/fileframe/fileframe/internal/postgres/pgtest"
	"github.com/fileframe/fileframe/internal/tools/crashtest/crash"
)

func main() {
	rounds, _ := strconv.Atoi(os.Getenv("ROUNDS"))
	if rounds <= 0 {
		rounds = 5
	}
	backend := os.Getenv("BACKEND")
	if backend == "" {
		backend = "sqlite"
	}
	var cfg crash.Config
	flag.StringVar(&cfg.Bin, "bin", "", "the fileframe binary (required)")
	flag.IntVar(&cfg.Rounds, "rounds", rounds, "kill -9 rounds (default: $ROUNDS, else 5)")
	flag.StringVar(&backend, "backend", backend, "sqlite (SQLite and disk) or postgres (PostgreSQL and S3 on versitygw) (default: $BACKEND, else sqlite)")
	flag.StringVar(&cfg.Dir, "dir", "", "the data directory (default: a temporary one, removed after a run that passed)")
	flag.Uint64Var(&cfg.Seed, "seed", 0, "the seed of the pages, files and kill times (0: random)")
	flag.DurationVar(&cfg.MinLoad, "min-load", time.Second, "the shortest load before a kill")
	flag.DurationVar(&cfg.MaxLoad, "max-load", 4*time.Second, "the longest load before a kill")
	flag.IntVar(&cfg.PageWorkers, "pages", 4, "goroutines posting pages")
	flag.IntVar(&cfg.UploadWorkers, "uploads", 2, "goroutines uploading raw bodies")
	flag.IntVar(&cfg.TusWorkers, "tus", 1, "goroutines uploading over tus")
	flag.Parse()
	if cfg.Bin == "" || (backend != "sqlite" && backend != "postgres") || cfg.Rounds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	cfg.Out = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, backend); err != nil {
		fmt.Fprintln(os.Stderr, "crashtest:", err)
		os.Exit(1)
	}
}

// run sets up the backend, runs the harness and tears the backend down.
func run(ctx context.Context, cfg crash.Config, backend string) (err error) {
	keep := cfg.Dir != ""
	if cfg.Dir == "" {
		if cfg.Dir, err = os.MkdirTemp("", "fileframe-crash-"); err != nil {
			return err
		}
	}
	defer func() {
		if err == nil && !keep {
			os.RemoveAll(cfg.Dir)
		} else {
			fmt.Fprintf(os.Stderr, "crashtest: the data and serve's log stay in %s\n", cfg.Dir)
		}
	}()
	if backend == "postgres" {
		url, drop, err := pgtest.Create(ctx, "fileframe_crash_")
		if err != nil {
			return err
		}
		defer drop(context.Background())
		root, err := os.MkdirTemp("", "fileframe-crash-s3-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(root)
		srv, err := s3test.Start(root)
		if err != nil {
			return fmt.Errorf("%w\n%s", err, s3test.InstallHint)
		}
		defer srv.Stop()
		cfg.DatabaseURL = url
		cfg.S3 = &crash.S3{Endpoint: srv.Endpoint, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
			Bucket: "fileframe-crash-" + strings.ToLower(rand.Text()[:12])}
	}
	sum, err := crash.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if p := sum.Problems(); len(p) > 0 {
		for _, line := range p {
			fmt.Fprintln(os.Stderr, "crashtest:", line)
		}
		return fmt.Errorf("%d problems", len(p))
	}
	return nil
}

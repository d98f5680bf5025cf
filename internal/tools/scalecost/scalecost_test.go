package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

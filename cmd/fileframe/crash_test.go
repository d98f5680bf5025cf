package main

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/tools/crashtest/crash"
)

// TestCrashRounds runs a few rounds of the crash harness (issue 15;
// scripts/crashtest runs many): concurrent page POSTs and uploads, serve
// killed with SIGKILL at a random moment and started again on the same
// data, then every acknowledged write read back byte for byte, the
// database checked and no temp files left; on SQLite and disk, and on
// PostgreSQL and S3, with tus uploads among them (a tus upload cut at any
// point, even in its finish, must resume as the same file, once). A last
// case breaks the data after a kill to show that the harness reports the
// loss.
func TestCrashRounds(t *testing.T) {
	run := func(t *testing.T, cfg crash.Config) *crash.Summary {
		t.Helper()
		cfg.Bin, cfg.Dir, cfg.Out = binPath, t.TempDir(), testWriter{t}
		cfg.PageWorkers, cfg.UploadWorkers, cfg.TusWorkers = 4, 2, 1
		if cfg.MinLoad == 0 {
			cfg.MinLoad, cfg.MaxLoad = time.Second, 2*time.Second
		}
		sum, err := crash.Run(t.Context(), cfg)
		if err != nil {
			if data, rerr := os.ReadFile(filepath.Join(cfg.Dir, "serve.log")); rerr == nil {
				t.Logf("serve.log:\n%s", data)
			}
			t.Fatal(err)
		}
		return sum
	}
	check := func(t *testing.T, sum *crash.Summary, rounds int) {
		t.Helper()
		if len(sum.Rounds) != rounds {
			t.Errorf("%d rounds ran, want %d", len(sum.Rounds), rounds)
		}
		for _, p := range sum.Problems() {
			t.Error(p)
		}
	}

	t.Run("sqlite", func(t *testing.T) {
		check(t, run(t, crash.Config{Rounds: 3}), 3)
	})
	t.Run("postgres+s3", func(t *testing.T) {
		s3srv := startS3(t)
		sum := run(t, crash.Config{Rounds: 2, DatabaseURL: newTestDatabase(t), S3: &crash.S3{
			Endpoint: s3srv.endpoint, AccessKey: s3srv.accessKey, SecretKey: s3srv.secretKey,
			Bucket: "fileframe-crash-" + strings.ToLower(rand.Text()[:12]),
		}})
		check(t, sum, 2)
	})
	t.Run("a loss is reported", func(t *testing.T) {
		// Every blob removed after the kill: each upload is lost.
		sum := run(t, crash.Config{Rounds: 1, MinLoad: 500 * time.Millisecond, MaxLoad: 500 * time.Millisecond,
			AfterKill: func(dir string) error {
				return filepath.WalkDir(filepath.Join(dir, "blobs"), func(path string, d os.DirEntry, err error) error {
					if err == nil && d.Type().IsRegular() {
						err = os.Remove(path)
					}
					return err
				})
			}})
		r := sum.Rounds[0]
		// At least every acknowledged upload; a tus upload cut by the kill
		// and resumed after it makes a file too, lost as well.
		if r.Uploads == 0 || len(r.Lost) < r.Uploads+r.TusUploads || len(sum.Lost) == 0 {
			t.Errorf("with every blob removed: %d uploads and %d tus uploads acknowledged, %d lost in the round, %d in the final check; want all lost",
				r.Uploads, r.TusUploads, len(r.Lost), len(sum.Lost))
		}
		if p := sum.Problems(); len(p) == 0 || !strings.Contains(p[0], "lost") {
			t.Errorf("Problems() = %q, want the losses", p)
		}
	})
}

// testWriter writes the harness's report to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Package crash is the crash harness of Fileframe (issue 15): it runs
// `fileframe serve` on real backends, sends it concurrent custom-page
// POSTs and uploads, kills it with SIGKILL at a random moment, starts it
// again on the same data and checks that every write it acknowledged (a
// 2xx answer received whole) is still there, byte for byte, that the
// database is sound, and that the crash left nothing behind. The program
// internal/tools/crashtest (scripts/crashtest) runs it for many rounds;
// cmd/fileframe's TestCrashRounds runs a few in the test command.
package crash

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Config says what to run.
type Config struct {
	// Bin is the fileframe binary.
	Bin string
	// Dir is the data directory, empty or missing: the SQLite database and
	// the blobs on the embedded backend, serve's log (serve.log) on both.
	Dir string
	// Rounds is how many kill -9 rounds to run.
	Rounds int
	// DatabaseURL is a fresh PostgreSQL database to use instead of SQLite
	// in Dir ("" for SQLite).
	DatabaseURL string
	// S3 is the S3 bucket for the blobs instead of Dir (nil for disk).
	S3 *S3
	// PageWorkers, UploadWorkers and TusWorkers are how many goroutines
	// POST pages, upload raw bodies to POST /api/files and upload over tus
	// (defaults 4, 2 and 1).
	PageWorkers, UploadWorkers, TusWorkers int
	// MinLoad and MaxLoad bound how long the load runs before the kill,
	// drawn at random each round (defaults 1 s and 4 s).
	MinLoad, MaxLoad time.Duration
	// Seed makes the pages, files and kill times of a run repeatable
	// (0: a random seed, printed).
	Seed uint64
	// Out gets a line per round and the summary (nil: discarded).
	Out io.Writer
	// AfterKill, if set, runs after each kill, before the checks: tests
	// break the data there to show that the harness reports a loss.
	AfterKill func(dir string) error
}

// S3 names a bucket on an S3 server (created by serve when missing).
type S3 struct {
	Endpoint, AccessKey, SecretKey, Bucket string
}

// Round is what one kill -9 round did and found.
type Round struct {
	N int
	// Load is how long the load ran before the kill; Duration the whole
	// round, restart and checks included.
	Load, Duration time.Duration
	// Revisions, Uploads and TusUploads are the writes acknowledged
	// before the kill.
	Revisions, Uploads, TusUploads int
	// Cut is the requests in flight when the server died, which got no
	// answer; Resumed the tus uploads the kill interrupted after their
	// creation was acknowledged, finished after the restart.
	Cut, Resumed int
	// Refused counts the answers other than 2xx during the load, by
	// status.
	Refused map[int]int
	// Lost describes each acknowledged write missing or different after
	// the restart.
	Lost []string
	// Unresumable describes each tus upload whose creation was
	// acknowledged before the kill that could not be finished after the
	// restart: unknown to the server (a client starts it anew), or
	// refused.
	Unresumable []string
	// Leftovers and LeftoverBytes are the files in the disk store's
	// blobs/tmp once the restarted server is up (disk only).
	Leftovers     int
	LeftoverBytes int64
	// TusLeft is the unfinished tus uploads in the data directory's
	// uploads/ after the cut ones were resumed (disk only): those whose
	// creation's answer the kill cut, and those that could not be resumed.
	// Serve removes them after a day.
	TusLeft int
	// S3Temp is the temp objects and multipart uploads under tmp/ in the
	// bucket after the restart (S3 only; the store removes them after an
	// hour, as another instance may still be writing them).
	S3Temp int
	// Reservations and ReservedBytes are the upload reservations that the
	// kill left counting against the account's quota after the restart
	// (and after the interrupted tus uploads were finished); Unexplained
	// those of them that no request cut by the kill accounts for, or that
	// would outlive the reservation's lifetime.
	Reservations  int
	ReservedBytes int64
	Unexplained   []string
	// Integrity is "ok", or what SQLite's integrity_check and
	// foreign_key_check (PostgreSQL: amcheck) found in the data the kill
	// left, before the restart; IntegrityTime how long that took.
	Integrity     string
	IntegrityTime time.Duration
	// PeakRSS is the server's peak resident memory before the kill (0
	// where /proc cannot tell).
	PeakRSS int64
	// Errors are the failures of requests before the kill.
	Errors []string
}

// Summary is a whole run.
type Summary struct {
	Backend string
	Seed    uint64
	Rounds  []Round
	// Checked and Lost are the final check, on the last restarted server,
	// of every write acknowledged in the run.
	Checked int
	Lost    []string
	// ExitCode is serve's status after the final SIGTERM.
	ExitCode int
	// Integrity is the database's check after that clean stop.
	Integrity string
	Duration  time.Duration
}

// Run runs cfg.Rounds rounds and the final check. An error means the
// harness could not do its work (a server that does not start, a backend
// that does not answer); what it found is in the Summary, and
// Summary.Problems lists what is wrong.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	start := time.Now()
	h, err := newHarness(cfg)
	if err != nil {
		return nil, err
	}
	defer h.close()
	sum := &Summary{Backend: h.backend(), Seed: h.cfg.Seed}
	h.printf("crashtest: %d rounds on %s, seed %d, data in %s\n", cfg.Rounds, sum.Backend, h.cfg.Seed, h.cfg.Dir)
	if err := h.setup(ctx); err != nil {
		return sum, fmt.Errorf("setting up: %w", err)
	}
	for n := 1; n <= h.cfg.Rounds; n++ {
		r, err := h.round(ctx, n)
		if r != nil {
			sum.Rounds = append(sum.Rounds, *r)
			h.printf("%s\n", r)
		}
		if err != nil {
			return sum, fmt.Errorf("round %d: %w", n, err)
		}
	}
	sum.Checked = len(h.pages) + len(h.uploads)
	sum.Lost = h.verify(ctx, h.pages, h.uploads)
	code, err := h.srv.stop(time.Minute)
	h.srv = nil
	if err != nil {
		return sum, err
	}
	sum.ExitCode = code
	sum.Integrity, _ = h.integrity(ctx)
	sum.Duration = time.Since(start)
	h.printf("%s", sum)
	return sum, nil
}

// Problems lists what the run found wrong: lost writes, leftovers, a
// database that fails its check, failed requests, unexplained
// reservations, a round without load, a server that did not exit 0.
func (s *Summary) Problems() []string {
	var p []string
	for _, r := range s.Rounds {
		where := fmt.Sprintf("round %d: ", r.N)
		for _, l := range r.Lost {
			p = append(p, where+"lost "+l)
		}
		for _, u := range r.Unresumable {
			p = append(p, where+"not resumable: "+u)
		}
		if r.Leftovers > 0 {
			p = append(p, fmt.Sprintf("%s%d temp files (%d bytes) left in blobs/tmp after the restart", where, r.Leftovers, r.LeftoverBytes))
		}
		if r.Integrity != "ok" {
			p = append(p, where+"integrity: "+r.Integrity)
		}
		for _, u := range r.Unexplained {
			p = append(p, where+"reservation "+u)
		}
		for _, e := range r.Errors {
			p = append(p, where+e)
		}
		if r.Refused[http.StatusInternalServerError] > 0 {
			p = append(p, fmt.Sprintf("%s%d answers 500 during the load", where, r.Refused[http.StatusInternalServerError]))
		}
		if r.Revisions+r.Uploads+r.TusUploads == 0 {
			p = append(p, where+"no write was acknowledged before the kill: the round tested nothing")
		}
	}
	for _, l := range s.Lost {
		p = append(p, "final check: lost "+l)
	}
	if s.ExitCode != 0 {
		p = append(p, fmt.Sprintf("serve exited %d after the final SIGTERM, want 0", s.ExitCode))
	}
	if s.Integrity != "ok" {
		p = append(p, "final integrity: "+s.Integrity)
	}
	return p
}

// String is the round's line of the report.
func (r Round) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "round %d: killed after %s; acknowledged %d revisions, %d uploads, %d tus uploads; cut %d; tus resumed %d, not resumable %d; lost %d",
		r.N, r.Load.Round(time.Millisecond), r.Revisions, r.Uploads, r.TusUploads, r.Cut, r.Resumed, len(r.Unresumable), len(r.Lost))
	fmt.Fprintf(&b, "; leftovers %d (%s)", r.Leftovers, mib(r.LeftoverBytes))
	if r.S3Temp > 0 {
		fmt.Fprintf(&b, ", S3 tmp/ %d", r.S3Temp)
	}
	if r.TusLeft > 0 {
		fmt.Fprintf(&b, ", unfinished tus uploads %d", r.TusLeft)
	}
	fmt.Fprintf(&b, "; reservations left %d (%s)", r.Reservations, mib(r.ReservedBytes))
	fmt.Fprintf(&b, "; integrity %s (%s)", r.Integrity, r.IntegrityTime.Round(time.Millisecond))
	if r.PeakRSS > 0 {
		fmt.Fprintf(&b, "; peak RSS %s", mib(r.PeakRSS))
	}
	for status, n := range r.Refused {
		fmt.Fprintf(&b, "; %d× %d", n, status)
	}
	fmt.Fprintf(&b, "; %s", r.Duration.Round(100*time.Millisecond))
	for _, l := range r.Lost {
		fmt.Fprintf(&b, "\n  LOST %s", l)
	}
	for _, u := range r.Unresumable {
		fmt.Fprintf(&b, "\n  NOT RESUMABLE %s", u)
	}
	for _, e := range append(r.Errors, r.Unexplained...) {
		fmt.Fprintf(&b, "\n  %s", e)
	}
	return b.String()
}

// String is the run's summary.
func (s *Summary) String() string {
	var rev, up, tus, cut, resumed, unresumable, lost, left, res, s3tmp, tusLeft int
	var peak int64
	ok := 0
	for _, r := range s.Rounds {
		rev += r.Revisions
		up += r.Uploads
		tus += r.TusUploads
		cut += r.Cut
		resumed += r.Resumed
		unresumable += len(r.Unresumable)
		lost += len(r.Lost)
		left += r.Leftovers
		res += r.Reservations
		s3tmp = r.S3Temp // a state, not a count of new ones
		tusLeft = r.TusLeft
		peak = max(peak, r.PeakRSS)
		if r.Integrity == "ok" {
			ok++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "summary (%s, seed %d): %d rounds in %s\n", s.Backend, s.Seed, len(s.Rounds), s.Duration.Round(time.Second))
	fmt.Fprintf(&b, "  acknowledged: %d revisions, %d uploads, %d tus uploads\n", rev, up, tus)
	fmt.Fprintf(&b, "  cut by the kills: %d requests; tus uploads cut after their creation: %d resumed, %d not resumable\n", cut, resumed, unresumable)
	fmt.Fprintf(&b, "  lost after each restart: %d; in the final check of all %d acknowledged writes: %d\n", lost, s.Checked, len(s.Lost))
	fmt.Fprintf(&b, "  leftovers in blobs/tmp after restarts: %d\n", left)
	if s3tmp > 0 {
		fmt.Fprintf(&b, "  S3 tmp/ objects and multipart uploads after the last restart (removed after an hour): %d\n", s3tmp)
	}
	if tusLeft > 0 {
		fmt.Fprintf(&b, "  unfinished tus uploads in uploads/ after the last restart (removed after a day): %d\n", tusLeft)
	}
	fmt.Fprintf(&b, "  reservations left counting after restarts (sum over rounds): %d\n", res)
	fmt.Fprintf(&b, "  integrity after the kills: ok in %d of %d rounds; after the final stop: %s\n", ok, len(s.Rounds), s.Integrity)
	fmt.Fprintf(&b, "  serve's exit after the final SIGTERM: %d\n", s.ExitCode)
	if peak > 0 {
		fmt.Fprintf(&b, "  peak RSS of serve: %s\n", mib(peak))
	}
	if p := s.Problems(); len(p) > 0 {
		fmt.Fprintf(&b, "  FAILED: %d problems\n", len(p))
	} else {
		b.WriteString("  PASSED\n")
	}
	return b.String()
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// harness is a run in progress.
type harness struct {
	cfg     Config
	log     *os.File
	logPath string
	http    *http.Client
	srv     *server
	key     string   // a general API key of the account
	files   []string // the files whose pages the page workers POST
	// pages and uploads are every write acknowledged so far.
	pages   []pageWrite
	uploads []uploadWrite
	// reserved are the reservations counting after the last restart.
	reserved map[string]bool
}

func newHarness(cfg Config) (*harness, error) {
	if cfg.Bin == "" || cfg.Dir == "" {
		return nil, errors.New("crash: Config needs Bin and Dir")
	}
	if (cfg.DatabaseURL == "") != (cfg.S3 == nil) {
		return nil, errors.New("crash: PostgreSQL and S3 go together (DatabaseURL and S3), or neither")
	}
	if cfg.PageWorkers == 0 && cfg.UploadWorkers == 0 && cfg.TusWorkers == 0 {
		cfg.PageWorkers, cfg.UploadWorkers, cfg.TusWorkers = 4, 2, 1
	}
	if cfg.MinLoad <= 0 {
		cfg.MinLoad = time.Second
	}
	if cfg.MaxLoad < cfg.MinLoad {
		cfg.MaxLoad = max(cfg.MinLoad, 4*time.Second)
	}
	if cfg.Seed == 0 {
		var b [8]byte
		rand.Read(b[:])
		cfg.Seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	logPath := filepath.Join(cfg.Dir, "serve.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &harness{
		cfg:     cfg,
		log:     log,
		logPath: logPath,
		http: &http.Client{
			Timeout:   2 * time.Minute,
			Transport: &http.Transport{MaxIdleConnsPerHost: 32, DisableCompression: true},
		},
		reserved: map[string]bool{},
	}, nil
}

func (h *harness) close() {
	if h.srv != nil {
		h.srv.kill()
	}
	h.http.CloseIdleConnections()
	h.log.Close()
}

func (h *harness) printf(format string, args ...any) {
	fmt.Fprintf(h.cfg.Out, format, args...)
}

func (h *harness) backend() string {
	if h.cfg.DatabaseURL != "" {
		return "PostgreSQL + S3"
	}
	return "SQLite + disk"
}

// env is serve's and the CLI's environment: the harness's own without
// FILEFRAME_* variables, plus the backends'.
func (h *harness) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FILEFRAME_") {
			env = append(env, kv)
		}
	}
	if h.cfg.DatabaseURL != "" {
		env = append(env,
			"FILEFRAME_DATABASE_URL="+h.cfg.DatabaseURL,
			"FILEFRAME_S3_ENDPOINT="+h.cfg.S3.Endpoint,
			"FILEFRAME_S3_BUCKET="+h.cfg.S3.Bucket,
			"FILEFRAME_S3_ACCESS_KEY="+h.cfg.S3.AccessKey,
			"FILEFRAME_S3_SECRET_KEY_FILE="+filepath.Join(h.cfg.Dir, "s3-secret"),
			"FILEFRAME_S3_PATH_STYLE=true")
	}
	return env
}

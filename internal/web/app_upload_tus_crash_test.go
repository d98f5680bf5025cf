package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/tus/tusd/v2/pkg/memorylocker"
)

// crashSwitch stops a server dead at one step of a tus upload's finish:
// the goroutine that reaches the step blocks, as if the process had been
// killed there, and the test goes on with another server on the same data
// directory. When the test ends the blocked call fails, so that the dead
// server can be shut down; by then the test has looked at everything.
type crashSwitch struct {
	at   string
	hit  chan struct{}
	dead chan struct{}
	once sync.Once
}

// newCrashSwitch returns a switch set to step at; the caller releases it
// (close dead) before the dead server is shut down.
func newCrashSwitch(at string) *crashSwitch {
	return &crashSwitch{at: at, hit: make(chan struct{}), dead: make(chan struct{})}
}

// step is called at each step of the finish; it does not return from the
// step the switch is set to until the test ends.
func (c *crashSwitch) step(name string) error {
	if c == nil || name != c.at {
		return nil
	}
	c.once.Do(func() { close(c.hit) })
	<-c.dead
	return errors.New("crash test: the server died here")
}

// crashStore is the store of a server that dies at a step of its
// finish: before or after CreateFileReserved (whose commit stores the
// file and its upload's record), or before ReleaseReservation (which
// Terminate calls once tusd's store removed the upload).
type crashStore struct {
	fileframe.Store
	c *crashSwitch
}

func (s crashStore) CreateFileReserved(ctx context.Context, f fileframe.File, reservation, upload string, q fileframe.Quota, now time.Time) (fileframe.File, error) {
	if err := s.c.step("CreateFileReserved"); err != nil {
		return fileframe.File{}, err
	}
	f, err := s.Store.CreateFileReserved(ctx, f, reservation, upload, q, now)
	if err == nil {
		err = s.c.step("CreateFileReserved done")
	}
	return f, err
}

func (s crashStore) ReleaseReservation(ctx context.Context, id string) error {
	if err := s.c.step("ReleaseReservation"); err != nil {
		return err
	}
	return s.Store.ReleaseReservation(ctx, id)
}

// crashBlobs is the blob store of a server that dies before or after it
// stores an upload's bytes. Without adopt it cannot adopt files, as on S3:
// the finish copies the bytes through Put.
type crashBlobs struct {
	fileframe.Blobs
	c *crashSwitch
}

func (b crashBlobs) Put(ctx context.Context, r io.Reader) (fileframe.BlobInfo, error) {
	if err := b.c.step("Put"); err != nil {
		return fileframe.BlobInfo{}, err
	}
	info, err := b.Blobs.Put(ctx, r)
	if err == nil {
		err = b.c.step("Put done")
	}
	return info, err
}

type adoptingCrashBlobs struct{ crashBlobs }

func (b adoptingCrashBlobs) Adopt(ctx context.Context, path string) (fileframe.BlobInfo, error) {
	if err := b.c.step("Adopt"); err != nil {
		return fileframe.BlobInfo{}, err
	}
	info, err := b.Blobs.(*disk.Store).Adopt(ctx, path)
	if err == nil {
		err = b.c.step("Adopt done")
	}
	return info, err
}

// crashTusQuotas let the Agency plan hold a few test files, and make every
// tus upload reserve its room.
var crashTusQuotas = map[fileframe.Plan]fileframe.Quota{fileframe.PlanAgency: {Storage: 1 << 20, File: 1 << 20}}

// withCrash makes the server's store and blob store die at c's step (adopt:
// the blob store adopts the upload's file, as on disk; else it copies it).
func withCrash(c *crashSwitch, adopt bool) func(*Config) {
	return func(cfg *Config) {
		cfg.Quotas = crashTusQuotas
		cfg.Store = crashStore{Store: cfg.Store, c: c}
		b := crashBlobs{Blobs: cfg.Blobs, c: c}
		if adopt {
			cfg.Blobs = adoptingCrashBlobs{b}
		} else {
			cfg.Blobs = b
		}
	}
}

// crashedTusUpload starts a server that dies at step, creates a tus upload
// on it with an Agency key, sends every byte but the last 1,000 and then
// the rest, whose PATCH gets no answer: the server dies in its finish. It
// returns the upload's path (below the origin), its content, the key and
// the account.
func crashedTusUpload(t *testing.T, dir, uploads, step string, adopt bool) (string, []byte, string, fileframe.Account) {
	t.Helper()
	c := newCrashSwitch(step)
	e := startTestEnv(t, dir, withUploads(uploads), withCrash(c, adopt))
	// Cleanups run last first: the blocked finish fails before the dead
	// server is shut down, which waits for its requests.
	t.Cleanup(func() { close(c.dead) })
	a := e.account(fileframe.PlanAgency)
	key, _ := e.key(a, "")
	tc := keyTus{e: e, key: key}
	content := randomBytes(t, 300<<10)
	url := tc.create("crash.bin", len(content))
	last := len(content) - 1000
	if resp, body := tc.patch(url, 0, content[:last]); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("PATCH: got %d: %s", resp.StatusCode, body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPatch, url, bytes.NewReader(content[last:]))
		req.Header.Set("Tus-Resumable", "1.0.0")
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/offset+octet-stream")
		req.Header.Set("Upload-Offset", strconv.Itoa(last))
		if resp, err := http.DefaultTransport.RoundTrip(req); err == nil {
			resp.Body.Close()
			t.Errorf("the last PATCH was answered %d: the server did not die at %q", resp.StatusCode, step)
			c.once.Do(func() { close(c.hit) })
		}
	}()
	select {
	case <-c.hit:
	case <-time.After(30 * time.Second):
		t.Fatalf("the finish never reached %q", step)
	}
	cancel() // the client's connection is cut
	return strings.TrimPrefix(url, e.app.URL), content, key, a
}

// checkOneFile checks that the account holds exactly one file, the
// upload's, that its reservation no longer counts, and that nothing of the
// upload is left in uploads.
func checkOneFile(t *testing.T, e *testEnv, a fileframe.Account, id fileframe.FileID, content []byte, uploads string) {
	t.Helper()
	files, err := e.store.FilesByAccount(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].ID != id || files[0].Size != int64(len(content)) {
		var ids []string
		for _, f := range files {
			ids = append(ids, string(f.ID))
		}
		t.Fatalf("the account holds files %v, want only %s (%d bytes)", ids, id, len(content))
	}
	f, err := e.store.FileByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.downloadLink(e.app.URL + f.URL()); !bytes.Equal(got, content) {
		t.Errorf("downloaded %d bytes, not the %d uploaded", len(got), len(content))
	}
	// The room left is the quota minus the file: no reservation counts.
	q := crashTusQuotas[fileframe.PlanAgency]
	probe := fileframe.Reservation{ID: "probe", AccountID: a.ID, Bytes: q.Storage - int64(len(content)), ExpiresAt: time.Now().Add(time.Hour)}
	if _, err := e.store.Reserve(context.Background(), probe, q, time.Now()); err != nil {
		t.Errorf("reserving the room left beside the file: %v (the upload's reservation still counts)", err)
	}
	e.store.ReleaseReservation(context.Background(), "probe")
	if left, _ := os.ReadDir(uploads); len(left) != 0 {
		var names []string
		for _, d := range left {
			names = append(names, d.Name())
		}
		t.Errorf("uploads/ keeps %v after the upload became its file", names)
	}
}

// TestTusCrashInFinish kills the server (crashSwitch) at each step of a tus
// upload's finish, starts another on the same data and asks it, as the
// client would, where the upload stands (HEAD, or PATCH of no bytes at the
// client's last offset): the answer names the upload's file, complete,
// and the account holds that one file, once, with nothing of the upload
// left; the same question again gets the same answer.
func TestTusCrashInFinish(t *testing.T) {
	steps := []struct {
		step  string
		adopt bool
	}{
		{"Adopt", true},                    // complete, nothing stored: the finish never ran
		{"Adopt done", true},               // the blob is there, no file
		{"CreateFileReserved", true},       // the same, just before the commit
		{"CreateFileReserved done", true},  // the file and its record committed, the upload not removed
		{"ReleaseReservation", true},       // the upload removed, its reservation released by the commit
		{"Put", false},                     // copied (as on S3): nothing stored
		{"Put done", false},                // the blob copied, no file
		{"CreateFileReserved done", false}, // committed, the upload not removed
	}
	for _, s := range steps {
		for _, method := range []string{http.MethodHead, http.MethodPatch} {
			name := s.step + "/" + map[bool]string{true: "adopted", false: "copied"}[s.adopt] + "/" + method
			t.Run(name, func(t *testing.T) {
				dir, uploads := t.TempDir(), t.TempDir()
				upath, content, key, a := crashedTusUpload(t, dir, uploads, s.step, s.adopt)

				// The restart: a server on the same data, which does not die.
				e := startTestEnv(t, dir, withUploads(uploads), withQuotasOf(crashTusQuotas))
				tc := keyTus{e: e, key: key}
				size := strconv.Itoa(len(content))
				var resp *http.Response
				var body string
				if method == http.MethodHead {
					resp, body = tc.request(http.MethodHead, e.app.URL+upath, nil)
					if resp.StatusCode != http.StatusOK || resp.Header.Get("Upload-Length") != size {
						t.Fatalf("HEAD after the crash: got %d, length %q: %s; log:\n%s", resp.StatusCode, resp.Header.Get("Upload-Length"), body, e.logs)
					}
				} else {
					resp, body = tc.patch(e.app.URL+upath, len(content), nil)
					if resp.StatusCode != http.StatusNoContent {
						t.Fatalf("PATCH after the crash: got %d: %s; log:\n%s", resp.StatusCode, body, e.logs)
					}
				}
				id := fileframe.FileID(resp.Header.Get(headerFileID))
				if resp.Header.Get("Upload-Offset") != size || id == "" {
					t.Fatalf("%s after the crash: offset %q, file %q; want the complete upload's file", method, resp.Header.Get("Upload-Offset"), id)
				}
				checkOneFile(t, e, a, id, content, uploads)

				// Asked again: the same file, still one.
				resp, _ = tc.request(http.MethodHead, e.app.URL+upath, nil)
				if resp.StatusCode != http.StatusOK || resp.Header.Get(headerFileID) != string(id) {
					t.Errorf("HEAD again: got %d, file %q; want 200, %s", resp.StatusCode, resp.Header.Get(headerFileID), id)
				}
				checkOneFile(t, e, a, id, content, uploads)
			})
		}
	}
}

// withQuotasOf sets the plans' quotas.
func withQuotasOf(q map[fileframe.Plan]fileframe.Quota) func(*Config) {
	return func(c *Config) { c.Quotas = q }
}

// TestTusCrashFinishedOnce restarts two instances on the data of a server
// that died in a finish, sharing one tus locker as instances do (on
// PostgreSQL, postgres.TusLocker): asked at once, both answer with the
// same file, made once.
func TestTusCrashFinishedOnce(t *testing.T) {
	dir, uploads := t.TempDir(), t.TempDir()
	upath, content, key, a := crashedTusUpload(t, dir, uploads, "Adopt done", true)
	locker := memorylocker.New()
	shared := func(c *Config) { c.TusLocker = locker }
	e1 := startTestEnv(t, dir, withUploads(uploads), withQuotasOf(crashTusQuotas), shared)
	e2 := startTestEnv(t, dir, withUploads(uploads), withQuotasOf(crashTusQuotas), shared)
	var wg sync.WaitGroup
	ids := make([]string, 2)
	for i, e := range []*testEnv{e1, e2} {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodHead, e.app.URL+upath, nil)
			req.Header.Set("Tus-Resumable", "1.0.0")
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Errorf("HEAD on instance %d: %v", i+1, err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("HEAD on instance %d: got %d", i+1, resp.StatusCode)
			}
			ids[i] = resp.Header.Get(headerFileID)
		})
	}
	wg.Wait()
	if ids[0] == "" || ids[0] != ids[1] {
		t.Fatalf("the instances answered files %q and %q, want one and the same", ids[0], ids[1])
	}
	checkOneFile(t, e1, a, fileframe.FileID(ids[0]), content, uploads)
}

// TestTusFinishFailureKeepsUpload: a finish that fails on the server's side
// (here the store, once) keeps the complete upload whole, and the client's
// next HEAD finishes it; one refused for good (over the quota) removes it.
func TestTusFinishFailureKeepsUpload(t *testing.T) {
	uploads := t.TempDir()
	failing := &failOnce{}
	e := newTestEnv(t, withUploads(uploads), withQuotasOf(crashTusQuotas), func(c *Config) {
		c.Store = failingCreate{Store: c.Store, f: failing}
	})
	a := e.account(fileframe.PlanAgency)
	key, _ := e.key(a, "")
	tc := keyTus{e: e, key: key}
	content := randomBytes(t, 100<<10)
	url := tc.create("kept.bin", len(content))
	failing.arm()
	if resp, body := tc.patch(url, 0, content); resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("PATCH whose finish fails: got %d: %s", resp.StatusCode, body)
	}
	if _, err := os.Stat(filepath.Join(uploads, path.Base(url))); err != nil {
		t.Fatalf("the complete upload is gone after a failed finish: %v", err)
	}
	resp, body := tc.request(http.MethodHead, url, nil)
	id := fileframe.FileID(resp.Header.Get(headerFileID))
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("HEAD after the failed finish: got %d, file %q: %s", resp.StatusCode, id, body)
	}
	checkOneFile(t, e, a, id, content, uploads)

	// Over the quota at the finish (another file took the room meanwhile):
	// refused, removed, its reservation released.
	big := randomBytes(t, 700<<10)
	url = tc.create("big.bin", len(big))
	e.file(a, "meanwhile.bin", randomBytes(t, 300<<10))
	if resp, body := tc.patch(url, 0, big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("PATCH over the quota: got %d: %s", resp.StatusCode, body)
	}
	if resp, _ := tc.request(http.MethodHead, url, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("HEAD of the refused upload: got %d, want 404", resp.StatusCode)
	}
}

// failOnce fails the next call once armed.
type failOnce struct {
	mu    sync.Mutex
	armed bool
}

func (f *failOnce) arm() { f.mu.Lock(); f.armed = true; f.mu.Unlock() }

func (f *failOnce) fail() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	armed := f.armed
	f.armed = false
	return armed
}

type failingCreate struct {
	fileframe.Store
	f *failOnce
}

func (s failingCreate) CreateFileReserved(ctx context.Context, f fileframe.File, reservation, upload string, q fileframe.Quota, now time.Time) (fileframe.File, error) {
	if s.f.fail() {
		return fileframe.File{}, errors.New("test: the store failed")
	}
	return s.Store.CreateFileReserved(ctx, f, reservation, upload, q, now)
}

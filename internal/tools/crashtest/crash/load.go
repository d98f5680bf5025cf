package crash

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fileframe/fileframe/internal/client"
)

// pageWrite is an acknowledged revision of a page.
type pageWrite struct {
	fileID string
	rev    int
	sum    [32]byte // of its HTML
}

// uploadWrite is an acknowledged file.
type uploadWrite struct {
	id, slug string
	size     int64
	sum      [32]byte
}

func (p pageWrite) String() string { return fmt.Sprintf("revision %d of %s", p.rev, p.fileID) }
func (u uploadWrite) String() string {
	return fmt.Sprintf("file %s (/f/%s, %d bytes)", u.id, u.slug, u.size)
}

// pendingTus is a tus upload whose creation was acknowledged but whose
// last byte was not: after the restart it must resume where the server
// stands and end as the same bytes.
type pendingTus struct {
	url  string
	name string
	data []byte
}

const email = "crash@example.com"

// setup makes the account and its key with the CLI, starts the server and
// uploads the files whose pages the page workers POST.
func (h *harness) setup(ctx context.Context) error {
	if h.cfg.S3 != nil {
		if err := os.WriteFile(filepath.Join(h.cfg.Dir, "s3-secret"), []byte(h.cfg.S3.SecretKey+"\n"), 0o600); err != nil {
			return err
		}
	}
	if _, err := h.cli(ctx, "account", "create", "--email", email, "--plan", "agency"); err != nil {
		return err
	}
	out, err := h.cli(ctx, "key", "create", "--email", email)
	if err != nil {
		return err
	}
	if h.key, _ = out["key"].(string); h.key == "" {
		return fmt.Errorf("key create printed no key: %v", out)
	}
	if h.srv, err = h.startServer(ctx); err != nil {
		return err
	}
	if err := h.prepareIntegrity(ctx); err != nil {
		return err
	}
	for i := range h.cfg.PageWorkers {
		data := []byte(fmt.Sprintf("the file of page %d\n", i))
		u, status, err := h.postFile(ctx, h.srv.app, fmt.Sprintf("page-%d.txt", i), data)
		if err != nil || status != http.StatusCreated {
			return fmt.Errorf("uploading the file of page %d: %d %v", i, status, err)
		}
		h.files = append(h.files, u.id)
		h.uploads = append(h.uploads, u)
	}
	return nil
}

// cli runs `fileframe <args> --data Dir --json` and decodes its object.
func (h *harness) cli(ctx context.Context, args ...string) (map[string]any, error) {
	cmd := exec.CommandContext(ctx, h.cfg.Bin, append(args, "--data", h.cfg.Dir, "--json")...)
	cmd.Env = h.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("fileframe %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("fileframe %s printed %q: %w", strings.Join(args, " "), out, err)
	}
	return v, nil
}

// load is the record of one round's load, shared by its workers.
type load struct {
	killed atomic.Bool // set before the SIGKILL: failures after it are cuts

	mu      sync.Mutex
	pages   []pageWrite
	uploads []uploadWrite
	tus     int
	// finished are the IDs of the tus uploads finished in the round.
	finished []string
	pending  []pendingTus
	cut      int
	refused  map[int]int
	errors   []string
}

// failed records a request that got no answer: a cut once the kill is
// sent, else an error of the round.
func (l *load) failed(what string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.killed.Load() {
		l.cut++
		return
	}
	l.errors = append(l.errors, fmt.Sprintf("%s failed before the kill: %v", what, err))
}

// answered records an answer other than the expected 2xx.
func (l *load) answered(status int, what string, body []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused[status]++
	if status >= 500 && status != http.StatusServiceUnavailable && len(l.errors) < 20 {
		l.errors = append(l.errors, fmt.Sprintf("%s: %d %s", what, status, bytes.TrimSpace(body)))
	}
}

// round runs one round: load, kill, checks on the dead server's data,
// restart, the checks of what was acknowledged.
func (h *harness) round(ctx context.Context, n int) (*Round, error) {
	start := time.Now()
	r := &Round{N: n}
	rng := mrand.New(mrand.NewPCG(h.cfg.Seed, uint64(n)))
	r.Load = h.cfg.MinLoad + time.Duration(rng.Int64N(int64(h.cfg.MaxLoad-h.cfg.MinLoad)+1))

	l := &load{refused: map[int]int{}}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	seed := func(kind, w int) *mrand.ChaCha8 {
		var s [32]byte
		copy(s[:], fmt.Sprintf("%d/%d/%d/%d", h.cfg.Seed, n, kind, w))
		return mrand.NewChaCha8(s)
	}
	app := h.srv.app
	for w := range h.cfg.PageWorkers {
		wg.Go(func() { h.postPages(loadCtx, l, app, seed(0, w), h.files[w], fmt.Sprintf("r%d-p%d", n, w)) })
	}
	for w := range h.cfg.UploadWorkers {
		wg.Go(func() { h.postFiles(loadCtx, l, app, seed(1, w), fmt.Sprintf("r%d-u%d", n, w)) })
	}
	for w := range h.cfg.TusWorkers {
		wg.Go(func() { h.tusFiles(loadCtx, l, app, seed(2, w), fmt.Sprintf("r%d-t%d", n, w)) })
	}
	select {
	case <-time.After(r.Load):
	case <-ctx.Done():
	}
	l.killed.Store(true)
	r.PeakRSS = h.srv.peakRSS()
	h.srv.kill()
	killedAt := time.Now()
	h.srv = nil
	stopLoad()
	wg.Wait()
	h.http.CloseIdleConnections()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.Revisions, r.Uploads, r.TusUploads = len(l.pages), len(l.uploads)-l.tus, l.tus
	r.Cut, r.Refused, r.Errors = l.cut, l.refused, l.errors

	if h.cfg.AfterKill != nil {
		if err := h.cfg.AfterKill(h.cfg.Dir); err != nil {
			return r, fmt.Errorf("AfterKill: %w", err)
		}
	}
	t := time.Now()
	r.Integrity, _ = h.integrity(ctx)
	r.IntegrityTime = time.Since(t)
	// The disk store removes a crash's temp files at Open once they are
	// two seconds old and no process holds their lock.
	time.Sleep(time.Until(killedAt.Add(2 * time.Second)))

	var err error
	if h.srv, err = h.startServer(ctx); err != nil {
		r.Duration = time.Since(start)
		return r, fmt.Errorf("restarting after the kill: %w", err)
	}
	if r.Leftovers, r.LeftoverBytes, r.S3Temp, err = h.leftovers(ctx); err != nil {
		return r, err
	}
	resumed, unresumable := h.resume(ctx, l.pending)
	r.Resumed, r.Unresumable = len(resumed), unresumable
	r.Lost = h.verify(ctx, l.pages, append(l.uploads, resumed...))
	if h.cfg.S3 == nil {
		infos, _ := filepath.Glob(filepath.Join(h.cfg.Dir, "uploads", "*.info"))
		r.TusLeft = len(infos)
	}
	h.pages = append(h.pages, l.pages...)
	h.uploads = append(h.uploads, l.uploads...)
	h.uploads = append(h.uploads, resumed...)
	if err := h.checkReservations(ctx, r, l, killedAt); err != nil {
		return r, err
	}
	r.Duration = time.Since(start)
	return r, nil
}

// postPages POSTs pages for fileID until ctx ends or a request fails.
func (h *harness) postPages(ctx context.Context, l *load, app string, src *mrand.ChaCha8, fileID, tag string) {
	rng := mrand.New(src)
	for i := 0; ctx.Err() == nil; i++ {
		html := pageHTML(rng, fmt.Sprintf("%s-%d", tag, i))
		body, _ := json.Marshal(map[string]any{"fileId": fileID, "html": html, "publish": true})
		status, resp, err := h.do(ctx, http.MethodPost, app+"/api/campaign/custom-html", "application/json", body)
		if err != nil {
			l.failed("POST custom-html", err)
			return
		}
		var saved struct {
			Revision int `json:"revision"`
		}
		if status != http.StatusOK || json.Unmarshal(resp, &saved) != nil || saved.Revision < 1 {
			l.answered(status, "POST custom-html", resp)
			continue
		}
		l.mu.Lock()
		l.pages = append(l.pages, pageWrite{fileID: fileID, rev: saved.Revision, sum: sha256.Sum256([]byte(html))})
		l.mu.Unlock()
	}
}

// postFiles uploads raw bodies to POST /api/files until ctx ends or a
// request fails.
func (h *harness) postFiles(ctx context.Context, l *load, app string, src *mrand.ChaCha8, tag string) {
	rng := mrand.New(src)
	for i := 0; ctx.Err() == nil; i++ {
		data := fileBytes(src, rng, 1<<20, 8<<20)
		u, status, err := h.postFile(ctx, app, fmt.Sprintf("%s-%d.bin", tag, i), data)
		switch {
		case err != nil:
			l.failed("POST /api/files", err)
			return
		case status != http.StatusCreated:
			l.answered(status, "POST /api/files", nil)
		default:
			l.mu.Lock()
			l.uploads = append(l.uploads, u)
			l.mu.Unlock()
		}
	}
}

// postFile uploads data to app as a raw body named name.
func (h *harness) postFile(ctx context.Context, app, name string, data []byte) (uploadWrite, int, error) {
	status, resp, err := h.do(ctx, http.MethodPost, app+"/api/files?name="+url.QueryEscape(name), "application/octet-stream", data)
	if err != nil || status != http.StatusCreated {
		return uploadWrite{}, status, err
	}
	var f struct {
		ID   string `json:"id"`
		Slug string `json:"slug"`
		Size int64  `json:"size"`
	}
	if err := json.Unmarshal(resp, &f); err != nil || f.ID == "" || f.Slug == "" || f.Size != int64(len(data)) {
		return uploadWrite{}, status, fmt.Errorf("201 with %s, want the file of %d bytes", resp, len(data))
	}
	return uploadWrite{id: f.ID, slug: f.Slug, size: f.Size, sum: sha256.Sum256(data)}, status, nil
}

// tusFiles uploads files over tus until ctx ends or an upload fails; one
// cut after its creation was acknowledged is kept to resume.
func (h *harness) tusFiles(ctx context.Context, l *load, app string, src *mrand.ChaCha8, tag string) {
	rng := mrand.New(src)
	c, err := client.New(app, h.key, h.http)
	if err != nil {
		l.failed("tus client", err)
		return
	}
	c.MaxRetries = 0
	for i := 0; ctx.Err() == nil; i++ {
		data := fileBytes(src, rng, 2<<20, 8<<20)
		name := fmt.Sprintf("%s-%d.bin", tag, i)
		created := ""
		done, err := c.Upload(ctx, client.Upload{
			Body: bytes.NewReader(data), Size: int64(len(data)), Name: name,
			Created: func(url string) error { created = url; return nil },
		})
		var e *client.Error
		switch {
		case err == nil:
			u, perr := uploaded(done, data)
			if perr != nil {
				l.failed("tus upload", perr)
				return
			}
			l.mu.Lock()
			l.uploads = append(l.uploads, u)
			l.tus++
			l.finished = append(l.finished, path.Base(done.UploadURL))
			l.mu.Unlock()
		case errors.As(err, &e):
			l.answered(e.Status, "tus upload", []byte(e.Error()))
		default:
			if created != "" && l.killed.Load() {
				l.mu.Lock()
				l.pending = append(l.pending, pendingTus{url: created, name: name, data: data})
				l.mu.Unlock()
			}
			l.failed("tus upload", err)
			return
		}
	}
}

// uploaded is the acknowledged write of a finished tus upload.
func uploaded(done client.Uploaded, data []byte) (uploadWrite, error) {
	pub, err := url.Parse(done.PublicURL)
	slug, ok := strings.CutPrefix(pub.EscapedPath(), "/f/")
	if err != nil || !ok || done.FileID == "" {
		return uploadWrite{}, fmt.Errorf("a finished tus upload named file %q at %q", done.FileID, done.PublicURL)
	}
	return uploadWrite{id: done.FileID, slug: slug, size: int64(len(data)), sum: sha256.Sum256(data)}, nil
}

// resume finishes, on the restarted server, the tus uploads the kill cut
// after their creation: the server must still know each one (an
// acknowledged creation) and end it as the same bytes, which verify then
// downloads. It returns those finished and describes the others.
func (h *harness) resume(ctx context.Context, pending []pendingTus) (done []uploadWrite, failed []string) {
	c, err := client.New(h.srv.app, h.key, h.http)
	if err != nil {
		return nil, []string{err.Error()}
	}
	c.MaxRetries = 0
	for _, p := range pending {
		old, err := url.Parse(p.url)
		if err != nil {
			failed = append(failed, fmt.Sprintf("tus upload %s: %v", p.url, err))
			continue
		}
		loc := h.srv.app + old.EscapedPath() // the restarted server listens elsewhere
		up, err := c.Upload(ctx, client.Upload{Body: bytes.NewReader(p.data), Size: int64(len(p.data)), Name: p.name, URL: loc})
		switch {
		case err != nil:
			failed = append(failed, fmt.Sprintf("tus upload %s, created before the kill, cannot be finished: %v", old.EscapedPath(), err))
		case up.UploadURL != loc:
			failed = append(failed, fmt.Sprintf("tus upload %s, created before the kill, is unknown after the restart (started anew)", old.EscapedPath()))
		default:
			u, err := uploaded(up, p.data)
			if err != nil {
				failed = append(failed, err.Error())
				continue
			}
			done = append(done, u)
		}
	}
	return done, failed
}

// do sends a request with the key and returns the status and the whole
// body; an error means no complete answer.
func (h *harness) do(ctx context.Context, method, url, contentType string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+h.key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := h.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	return resp.StatusCode, b, nil
}

// pageHTML is a valid page of 1 to 20 KiB of text, unique by marker.
func pageHTML(rng *mrand.Rand, marker string) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Crash " + marker + "</title>\n" +
		"<style>body { font-family: system-ui, sans-serif; margin: 2rem; }</style>\n</head>\n<body>\n<h1>" + marker + "</h1>\n")
	size := 1<<10 + rng.IntN(19<<10)
	for b.Len() < size {
		b.WriteString("<p>")
		for range 12 {
			for range 2 + rng.IntN(8) {
				b.WriteByte(letters[rng.IntN(len(letters))])
			}
			b.WriteByte(' ')
		}
		b.WriteString("</p>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// fileBytes is random bytes: most files small (up to 64 KiB), a quarter up
// to mid, one in twenty up to big.
func fileBytes(src *mrand.ChaCha8, rng *mrand.Rand, mid, big int) []byte {
	var n int
	switch p := rng.IntN(20); {
	case p == 0:
		n = mid + rng.IntN(big-mid)
	case p < 6:
		n = 64<<10 + rng.IntN(mid-64<<10)
	default:
		n = 1 + rng.IntN(64<<10)
	}
	b := make([]byte, n)
	src.Read(b)
	return b
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// remoteServer is a running `fileframe serve` with an Agency account, a
// general key and a page-bound key made by the admin commands.
type remoteServer struct {
	p          *serveProc
	dir        string
	general    string
	pageKey    string
	pageFileID string
	cache      string // XDG_CACHE_HOME of the client commands
}

func startRemoteServer(t *testing.T) *remoteServer {
	t.Helper()
	dir := t.TempDir()
	p := startServe(t, dir)
	data := []string{"--data", dir}
	mustCLI(t, append([]string{"account", "create", "--email", "agent@example.com", "--plan", "agency"}, data...)...)
	k := cliJSON(t, append([]string{"key", "create", "--email", "agent@example.com", "--name", "cli"}, data...)...)
	src := filepath.Join(t.TempDir(), "seed.txt")
	os.WriteFile(src, []byte("seed"), 0o644)
	f := cliJSON(t, append([]string{"file", "add", src, "--email", "agent@example.com"}, data...)...)
	pk := cliJSON(t, append([]string{"key", "create", "--email", "agent@example.com", "--file", f["fileId"].(string)}, data...)...)
	return &remoteServer{p: p, dir: dir, general: k["key"].(string), pageKey: pk["key"].(string), pageFileID: f["fileId"].(string), cache: t.TempDir()}
}

// env is the client commands' environment with key.
func (s *remoteServer) env(key string) []string {
	return []string{"FILEFRAME_URL=" + s.p.app, "FILEFRAME_KEY=" + key, "XDG_CACHE_HOME=" + s.cache, "HOME=" + s.cache}
}

// remoteRun runs the binary with env and returns what it did, whatever its
// exit status.
func remoteRun(t *testing.T, env []string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = cleanEnv(env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running fileframe %s: %v", strings.Join(args, " "), err)
	}
	return cliResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// remoteJSON runs a client command with --json, wants exit 0 and one JSON
// object with "ok": true, and returns it.
func remoteJSON(t *testing.T, env []string, args ...string) map[string]any {
	t.Helper()
	r := remoteRun(t, env, append(args, "--json")...)
	if r.code != 0 {
		t.Fatalf("fileframe %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&v); err != nil || dec.More() {
		t.Fatalf("fileframe %s: stdout is not one JSON object (%v):\n%s", strings.Join(args, " "), err, r.stdout)
	}
	if v["ok"] != true {
		t.Errorf("fileframe %s: ok is %v, want true", strings.Join(args, " "), v["ok"])
	}
	return v
}

// writeRandom writes n random bytes (from seed) to a new file named name.
func writeRandom(t *testing.T, name string, n int, seed byte) (string, []byte) {
	t.Helper()
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{seed}).Read(b)
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, b
}

// TestRemoteUpload: `remote upload` against a real server stores the file
// and prints it; no progress bar on a stderr that is not a terminal; the
// refusals print the problem's code.
func TestRemoteUpload(t *testing.T) {
	t.Parallel()
	s := startRemoteServer(t)
	env := s.env(s.general)
	src, content := writeRandom(t, "deck.bin", 300<<10, 1)

	r := remoteRun(t, env, "remote", "upload", src, "--name", "Deck 2026.bin", "--json")
	if r.code != 0 {
		t.Fatalf("remote upload: exit %d\nstderr: %s", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("remote upload wrote to a stderr that is not a terminal: %q", r.stderr)
	}
	var up map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &up); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	id, _ := up["id"].(string)
	slug, _ := up["slug"].(string)
	if up["ok"] != true || !strings.HasPrefix(id, "f_") || up["name"] != "Deck 2026.bin" || up["size"] != float64(len(content)) ||
		up["url"] != "/f/"+slug || up["publicUrl"] != s.p.app+"/f/"+slug || up["page"] != "/files/"+id || up["resumedFrom"] != float64(0) {
		t.Errorf("remote upload --json = %v", up)
	}
	store := openTestStore(t, s.dir)
	f, err := store.FileByID(context.Background(), fileframe.FileID(id))
	if err != nil {
		t.Fatalf("the uploaded file: %v", err)
	}
	if f.Name != "Deck 2026.bin" || f.Size != int64(len(content)) || f.Slug != slug {
		t.Errorf("stored file = %+v", f)
	}
	download(t, s.p, slug, content)
	if left, _ := os.ReadDir(filepath.Join(s.cache, "fileframe", "uploads")); len(left) != 0 {
		t.Errorf("state files left after a finished upload: %d", len(left))
	}

	// Human output.
	small, _ := writeRandom(t, "notes.txt", 10, 2)
	if r := remoteRun(t, env, "remote", "upload", small); r.code != 0 || !strings.Contains(r.stdout, "Uploaded notes.txt") || !strings.Contains(r.stdout, s.p.app+"/f/") || r.stderr != "" {
		t.Errorf("remote upload: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// Refusals: the problem's code and detail on stderr, exit 1; usage
	// mistakes exit 2.
	for _, tt := range []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"page-bound key", s.env(s.pageKey), []string{"remote", "upload", small}, 1, "key_scope (403)"},
		{"unknown key", s.env("ffk_" + strings.Repeat("x", 40)), []string{"remote", "upload", small}, 1, "unauthorized (401)"},
		{"no server", []string{"FILEFRAME_KEY=" + s.general}, []string{"remote", "upload", small}, 2, "FILEFRAME_URL"},
		{"no key", []string{"FILEFRAME_URL=" + s.p.app}, []string{"remote", "files"}, 2, "FILEFRAME_KEY"},
		{"--url and --key override", []string{"FILEFRAME_URL=http://127.0.0.1:1", "FILEFRAME_KEY=ffk_nothing"}, []string{"remote", "upload", small, "--url", s.p.app, "--key", s.pageKey}, 1, "key_scope"},
		{"no path", env, []string{"remote", "upload"}, 2, "want PATH"},
		{"missing file", env, []string{"remote", "upload", filepath.Join(t.TempDir(), "none")}, 1, "no such file"},
		{"not a URL", []string{"FILEFRAME_URL=files.example.com", "FILEFRAME_KEY=" + s.general}, []string{"remote", "files"}, 2, "not an http"},
		{"unknown remote command", env, []string{"remote", "frobnicate"}, 2, `unknown command "remote frobnicate"`},
		{"restore without a number", env, []string{"remote", "restore", "f_x", "latest"}, 2, "REV must be"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := remoteRun(t, tt.env, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tt.code, tt.want)
			}
		})
	}

}

// TestRemoteFiles: `remote files` lists what `remote upload` stored (GET
// /api/files, issue 11's endpoint).
func TestRemoteFiles(t *testing.T) {
	t.Parallel()
	s := startRemoteServer(t)
	env := s.env(s.general)
	src, content := writeRandom(t, "deck.bin", 2000, 5)
	id := remoteJSON(t, env, "remote", "upload", src)["id"].(string)
	list := remoteJSON(t, env, "remote", "files")
	files, _ := list["files"].([]any)
	found := false
	for _, f := range files {
		if m, _ := f.(map[string]any); m["id"] == id && m["name"] == "deck.bin" && m["size"] == float64(len(content)) {
			found = true
		}
	}
	if !found || len(files) != 2 {
		t.Errorf("remote files --json = %v, want the seed file and the uploaded %s", list, id)
	}
	all := remoteJSON(t, env, "remote", "files", "--limit", "1", "--all")
	if files, _ := all["files"].([]any); len(files) != 2 {
		t.Errorf("remote files --limit 1 --all = %v, want both files", all)
	}
	if r := remoteRun(t, env, "remote", "files"); r.code != 0 || !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "deck.bin") {
		t.Errorf("remote files: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// A page-bound key sees its one file.
	one := remoteJSON(t, s.env(s.pageKey), "remote", "files")
	if files, _ := one["files"].([]any); len(files) != 1 || files[0].(map[string]any)["id"] != s.pageFileID {
		t.Errorf("remote files with a page-bound key = %v, want only %s", one, s.pageFileID)
	}
}

// TestRemotePublish: a page from an .html file, as a draft and published,
// and the page commands after it (issue 11's endpoints).
func TestRemotePublish(t *testing.T) {
	t.Parallel()
	s := startRemoteServer(t)
	env := s.env(s.general)
	src, _ := writeRandom(t, "report.pdf", 1000, 3)
	id := remoteJSON(t, env, "remote", "upload", src)["id"].(string)
	page := filepath.Join(t.TempDir(), "page.html")
	os.WriteFile(page, []byte(testPage), 0o644)
	bad := filepath.Join(t.TempDir(), "bad.html")
	os.WriteFile(bad, []byte(strings.Replace(testPage, "</body>", `<a href="/f/x" download>Download</a></body>`, 1)), 0o644)

	if c := remoteJSON(t, env, "remote", "check", page); c["valid"] != true || c["code"] != nil {
		t.Errorf("remote check of a valid page = %v", c)
	}
	r := remoteRun(t, env, "remote", "check", bad)
	if r.code != 1 || !strings.Contains(r.stdout, "download.button") {
		t.Errorf("remote check of a bad page: exit %d, stdout %q", r.code, r.stdout)
	}

	draft := remoteJSON(t, env, "remote", "publish", id, page, "--draft")
	if draft["published"] != false || draft["revision"] != float64(1) {
		t.Errorf("remote publish --draft = %v", draft)
	}
	if p := remoteJSON(t, env, "remote", "page", id); p["state"] != "draft" || p["liveRevision"] != nil {
		t.Errorf("remote page after a draft = %v", p)
	}
	pub := remoteJSON(t, env, "remote", "publish", id, page)
	if pub["published"] != true || pub["created"] != false || pub["revision"] != float64(1) {
		t.Errorf("remote publish of the same HTML = %v, want revision 1 published, none created", pub)
	}
	outerPage(t, s.p, pub["url"].(string)[len("/f/"):])

	r = remoteRun(t, env, "remote", "publish", id, bad)
	if r.code != 1 || !strings.Contains(r.stderr, "html_invalid (422)") || !strings.Contains(r.stderr, "download.button") || !strings.Contains(r.stderr, "fix: ") {
		t.Errorf("remote publish of a bad page: exit %d, stderr %q", r.code, r.stderr)
	}
	if p := remoteJSON(t, env, "remote", "unpublish", id); p["state"] != "draft" {
		t.Errorf("remote unpublish = %v", p)
	}
	revs := remoteJSON(t, env, "remote", "revisions", id)
	if list, _ := revs["revisions"].([]any); len(list) != 1 {
		t.Errorf("remote revisions = %v, want 1", revs)
	}
	if res := remoteJSON(t, env, "remote", "restore", id, "1", "--publish"); res["published"] != true || res["revision"] != float64(1) {
		t.Errorf("remote restore 1 --publish = %v", res)
	}
	// The page names no remote images: nothing to fetch again.
	if res := remoteJSON(t, env, "remote", "refetch", id, "1"); res["revision"] != float64(1) || len(res["assets"].([]any)) != 0 {
		t.Errorf("remote refetch 1 = %v", res)
	}
	if f := remoteJSON(t, env, "remote", "rename", id, "Final report.pdf"); f["name"] != "Final report.pdf" {
		t.Errorf("remote rename = %v", f)
	}
	if f := remoteJSON(t, env, "remote", "file", id); f["name"] != "Final report.pdf" || f["size"] != float64(1000) {
		t.Errorf("remote file = %v", f)
	}
	if d := remoteJSON(t, env, "remote", "delete", id); d["deleted"] != true {
		t.Errorf("remote delete = %v", d)
	}
	if r := remoteRun(t, env, "remote", "file", id); r.code != 1 || !strings.Contains(r.stderr, "file_not_found (404)") {
		t.Errorf("remote file of a deleted file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// countingTransport counts the body bytes of the PATCH requests it sends;
// after failAfter of them (when > 0) every read of a PATCH body fails, as a
// connection that drops.
type countingTransport struct {
	failAfter int64
	sent      atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPatch && r.Body != nil && r.Body != http.NoBody {
		r = r.Clone(r.Context())
		r.Body = &countingBody{r: r.Body, t: c}
	}
	return http.DefaultTransport.RoundTrip(r)
}

type countingBody struct {
	r io.ReadCloser
	t *countingTransport
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.t.failAfter > 0 {
		left := b.t.failAfter - b.t.sent.Load()
		if left <= 0 {
			return 0, errors.New("connection dropped (test)")
		}
		p = p[:min(int64(len(p)), left)]
	}
	n, err := b.r.Read(p)
	b.t.sent.Add(int64(n))
	return n, err
}

func (b *countingBody) Close() error { return b.r.Close() }

// TestRemoteUploadResumes: an upload whose connection drops halfway fails
// with a hint; the same command again resumes from the server's offset and
// sends only the rest.
func TestRemoteUploadResumes(t *testing.T) {
	t.Parallel()
	s := startRemoteServer(t)
	src, content := writeRandom(t, "video.bin", 3<<20, 4)
	size := int64(len(content))
	run := func(rt http.RoundTripper) (int, string, string) {
		var stdout, stderr bytes.Buffer
		c := &CLI{
			Stdout: &stdout, Stderr: &stderr,
			Env:        envOf("FILEFRAME_URL", s.p.app, "FILEFRAME_KEY", s.general),
			HTTPClient: &http.Client{Transport: rt},
			CacheDir:   s.cache,
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		code := c.Run(ctx, []string{"remote", "upload", src, "--json"})
		return code, stdout.String(), stderr.String()
	}

	broken := &countingTransport{failAfter: 1 << 20}
	code, stdout, stderr := run(broken)
	if code != 1 || !strings.Contains(stderr, "run the same command again") || stdout != "" {
		t.Fatalf("interrupted upload: exit %d, stdout %q, stderr %q; want 1 and the resume hint", code, stdout, stderr)
	}
	states, _ := filepath.Glob(filepath.Join(s.cache, "fileframe", "uploads", "*.json"))
	if len(states) != 1 {
		t.Fatalf("state files after the interruption: %v, want 1", states)
	}
	var st uploadState
	b, _ := os.ReadFile(states[0])
	if err := json.Unmarshal(b, &st); err != nil || !strings.HasPrefix(st.UploadURL, s.p.app+"/uploads/tus/") || st.Size != size {
		t.Fatalf("state file %s: %v %+v", b, err, st)
	}
	// The server kept what arrived.
	req, _ := http.NewRequest(http.MethodHead, st.UploadURL, nil)
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("Authorization", "Bearer "+s.general)
	resp, _ := httpDo(t, req)
	offset, err := strconv.ParseInt(resp.Header.Get("Upload-Offset"), 10, 64)
	if resp.StatusCode != http.StatusOK || err != nil || offset <= 0 || offset >= size {
		t.Fatalf("HEAD of the interrupted upload: %d, offset %q; want 200 and part of %d", resp.StatusCode, resp.Header.Get("Upload-Offset"), size)
	}

	// The server may still be ending the cut request, whose lock on the
	// upload makes a resumed PATCH fail with upload_interrupted, which the
	// client retries (TestUploadInterruptedIsRetried): wait until an empty
	// PATCH at the offset is taken, so that the count below is of one
	// resumption.
	for i := 0; ; i++ {
		req, _ := http.NewRequest(http.MethodPatch, st.UploadURL, http.NoBody)
		req.Header.Set("Tus-Resumable", "1.0.0")
		req.Header.Set("Content-Type", "application/offset+octet-stream")
		req.Header.Set("Upload-Offset", strconv.FormatInt(offset, 10))
		req.Header.Set("Authorization", "Bearer "+s.general)
		if resp, body := httpDo(t, req); resp.StatusCode == http.StatusNoContent {
			break
		} else if i == 100 {
			t.Fatalf("an empty PATCH at offset %d: %d %q after %d tries", offset, resp.StatusCode, body, i+1)
		}
		time.Sleep(50 * time.Millisecond)
	}

	again := &countingTransport{}
	code, stdout, stderr = run(again)
	if code != 0 {
		t.Fatalf("resumed upload: exit %d, stderr %q", code, stderr)
	}
	if stderr != "" {
		t.Errorf("progress or other output on a stderr that is not a terminal: %q", stderr)
	}
	var up map[string]any
	if err := json.Unmarshal([]byte(stdout), &up); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if up["resumedFrom"] != float64(offset) {
		t.Errorf("resumedFrom = %v, want the server's offset %d", up["resumedFrom"], offset)
	}
	if got := again.sent.Load(); got != size-offset {
		t.Errorf("the second run sent %d bytes, want only the %d after the offset", got, size-offset)
	}
	download(t, s.p, up["slug"].(string), content)
	if left, _ := filepath.Glob(filepath.Join(s.cache, "fileframe", "uploads", "*")); len(left) != 0 {
		t.Errorf("state files left after the upload: %v", left)
	}

	// A file changed in place, its modification time set back (touch -r),
	// after an interruption: a new upload, never the old one's
	// continuation (the outside attack's resume stored old and new bytes
	// mixed).
	fi, _ := os.Stat(src)
	if code, _, _ := run(&countingTransport{failAfter: 1 << 20}); code != 1 {
		t.Fatalf("second interrupted upload: exit %d", code)
	}
	changed := bytes.Clone(content)
	changed[len(changed)-1] ^= 0xff
	changed[2<<20] ^= 0xff
	if err := os.WriteFile(src, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(src, fi.ModTime(), fi.ModTime())
	code, stdout, stderr = run(&countingTransport{})
	if code != 0 || !strings.Contains(stdout, `"resumedFrom":0`) {
		t.Fatalf("upload of the file changed in place: exit %d, %s %s", code, stdout, stderr)
	}
	var changedUp map[string]any
	json.Unmarshal([]byte(stdout), &changedUp)
	download(t, s.p, changedUp["slug"].(string), changed)

	// A changed file is a new upload, never the old one's continuation.
	os.WriteFile(src, content[:1000], 0o644)
	code, stdout, _ = run(&countingTransport{})
	if code != 0 || !strings.Contains(stdout, `"resumedFrom":0`) || !strings.Contains(stdout, `"size":1000`) {
		t.Errorf("upload of the changed file: exit %d, %s", code, stdout)
	}
}

// TestRemoteStatePaths: an upload's state file is its own: another server,
// path, size or modification time is another upload.
func TestRemoteStatePaths(t *testing.T) {
	dir := t.TempDir()
	mod := time.Unix(1700000000, 5)
	a := uploadStatePath(dir, "https://a.example", "/x/f.bin", 10, mod)
	for _, other := range []string{
		uploadStatePath(dir, "https://b.example", "/x/f.bin", 10, mod),
		uploadStatePath(dir, "https://a.example", "/x/g.bin", 10, mod),
		uploadStatePath(dir, "https://a.example", "/x/f.bin", 11, mod),
		uploadStatePath(dir, "https://a.example", "/x/f.bin", 10, mod.Add(time.Nanosecond)),
	} {
		if other == a {
			t.Errorf("two uploads share the state file %s", a)
		}
	}
	want := uploadState{Server: "https://a.example", Path: "/x/f.bin", Size: 10, ModTime: mod}
	st := want
	st.UploadURL = "https://a.example/uploads/tus/a_1.x"
	if err := writeUploadState(a, st); err != nil {
		t.Fatal(err)
	}
	if got := readUploadState(a, want); got != st.UploadURL {
		t.Errorf("readUploadState = %q, want %q", got, st.UploadURL)
	}
	changed := want
	changed.Size = 11
	if got := readUploadState(a, changed); got != "" {
		t.Errorf("readUploadState of a state for another file = %q, want none", got)
	}
}

// TestRemoteRefusesWhatIsNotAFileID: a FILE_ID of another shape is a usage
// error (exit 2) before any request: "." once went out as /api/files/.,
// which the router redirects to the list of files, and `remote file .`
// printed that list read as an empty file, exit 0 (the twenty-first
// outside attack). --limit outside 1 to 100 is refused too, not sent as
// the server's default.
func TestRemoteRefusesWhatIsNotAFileID(t *testing.T) {
	t.Parallel()
	// Nothing listens there: a request would fail with exit 1, not 2.
	env := []string{"FILEFRAME_URL=http://127.0.0.1:1", "FILEFRAME_KEY=ffk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "HOME=" + t.TempDir()}
	for _, id := range []string{".", "..", "f_A/../f_B", "f_A%2F..%2Ff_B", "../files", "f_A?x=1", "f_A#x", "f_A ", "ｆ_A", "F_A", "f_", "f_" + strings.Repeat("A", 65)} {
		for _, args := range [][]string{{"file", id}, {"delete", id}, {"page", id}, {"rename", id, "x.txt"}, {"unpublish", id}, {"revisions", id}, {"restore", id, "1"}} {
			r := remoteRun(t, env, append([]string{"remote"}, args...)...)
			if r.code != 2 || !strings.Contains(r.stderr, "is not a file ID") {
				t.Errorf("remote %q: exit %d, stderr %q; want exit 2, not a file ID", args, r.code, r.stderr)
			}
		}
	}
	for _, args := range [][]string{{"files", "--limit", "0"}, {"files", "--limit", "101"}, {"files", "--limit", "x"}, {"revisions", "f_A", "--limit", "0"}} {
		if r := remoteRun(t, env, append([]string{"remote"}, args...)...); r.code != 2 || !strings.Contains(r.stderr, "from 1 to 100") {
			t.Errorf("remote %q: exit %d, stderr %q; want exit 2, 1 to 100", args, r.code, r.stderr)
		}
	}
}

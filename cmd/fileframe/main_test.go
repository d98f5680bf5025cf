package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binPath is the fileframe binary built once by TestMain; the contract tests
// run it as a real process, the way scripts and operators do.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fileframe-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "fileframe")
	args := []string{"build", "-o", binPath}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building fileframe: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cleanEnv is the test process's environment without FILEFRAME_* variables,
// plus extra.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FILEFRAME_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// cliResult is what one run of the binary did.
type cliResult struct {
	code           int
	stdout, stderr string
}

// runCLI runs the binary with args and returns its exit status and output.
func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = cleanEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running fileframe %s: %v", strings.Join(args, " "), err)
	}
	return cliResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// mustCLI runs the binary and fails the test unless it exits 0.
func mustCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	r := runCLI(t, args...)
	if r.code != 0 {
		t.Fatalf("fileframe %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// cliJSON runs the binary with --json appended and decodes its one object.
func cliJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	r := mustCLI(t, append(args, "--json")...)
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("fileframe %s: stdout is not JSON: %v\n%s", strings.Join(args, " "), err, r.stdout)
	}
	if dec.More() {
		t.Fatalf("fileframe %s: more than one JSON value on stdout:\n%s", strings.Join(args, " "), r.stdout)
	}
	return v
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveProc is a running `fileframe serve`.
type serveProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	app     string // app origin, as printed
	content string // content origin, as printed
	store   string // where the metadata is, as printed
	blobs   string // where the file bytes are, as printed
	ops     string // the operations listener, as printed
	stderr  *lockedBuffer
	done    chan struct{} // closed when the process has exited
	waitErr error
}

// startServe starts `fileframe serve --addr 127.0.0.1:0 --data dir` plus
// args, reads the origins it prints and waits until /healthz answers.
func startServe(t *testing.T, dir string, args ...string) *serveProc {
	t.Helper()
	return startServeEnv(t, nil, dir, args...)
}

// startServeEnv is startServe with extra variables in the environment.
func startServeEnv(t *testing.T, env []string, dir string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", dir}, args...)...)
	cmd.Env = cleanEnv(env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serveProc{t: t, cmd: cmd, stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("serve stderr:\n%s", p.stderr)
		}
	})

	var got []string
	timeout := time.After(time.Minute)
	for len(got) < 6 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("serve exited before printing its addresses; stdout %q\nstderr:\n%s", got, p.stderr)
			}
			got = append(got, line)
		case <-timeout:
			t.Fatalf("serve printed %q in a minute; stderr:\n%s", got, p.stderr)
		}
	}
	go func() {
		for range lines {
		}
	}()
	if got[0] != "Fileframe is serving" {
		t.Fatalf("first line %q, want %q", got[0], "Fileframe is serving")
	}
	for _, l := range got[1:] {
		switch {
		case strings.HasPrefix(l, "  app:     "):
			p.app = strings.TrimPrefix(l, "  app:     ")
		case strings.HasPrefix(l, "  content: "):
			p.content = strings.TrimPrefix(l, "  content: ")
		case strings.HasPrefix(l, "  store:   "):
			p.store = strings.TrimPrefix(l, "  store:   ")
		case strings.HasPrefix(l, "  blobs:   "):
			p.blobs = strings.TrimPrefix(l, "  blobs:   ")
		case strings.HasPrefix(l, "  ops:     "):
			p.ops = strings.TrimPrefix(l, "  ops:     ")
		default:
			t.Fatalf("unexpected line %q in %q", l, got)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.app + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s/healthz: %v, never 200", p.app, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return p
}

// signal sends sig to the server.
func (p *serveProc) signal(sig os.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %v: %v", sig, err)
	}
}

// wait waits for the server to exit and returns its exit status.
func (p *serveProc) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("serve still running %s after the signal; stderr:\n%s", timeout, p.stderr)
	}
	return p.cmd.ProcessState.ExitCode()
}

// stop sends SIGTERM and checks that the server exits 0 within a few
// seconds.
func (p *serveProc) stop() {
	p.t.Helper()
	p.signal(syscall.SIGTERM)
	if code := p.wait(15 * time.Second); code != 0 {
		p.t.Fatalf("serve exited %d after SIGTERM, want 0 (%v); stderr:\n%s", code, p.waitErr, p.stderr)
	}
}

// checkJSONLogs checks that every line the server wrote to stderr is a JSON
// object (log/slog's JSON handler).
func (p *serveProc) checkJSONLogs() {
	p.t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			p.t.Errorf("stderr line is not a JSON object: %q", line)
		}
	}
}

// httpDo sends a request and returns the response with its body read.
func httpDo(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", req.URL, err)
	}
	return resp, body
}

// httpGet fetches url without following redirects; header holds name,
// value pairs.
func httpGet(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return httpDo(t, req)
}

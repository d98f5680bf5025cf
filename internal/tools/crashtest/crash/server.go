package crash

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is a running `fileframe serve`.
type server struct {
	cmd     *exec.Cmd
	app     string // the app origin, as printed
	done    chan struct{}
	waitErr error
}

// startServer starts `fileframe serve` on free loopback ports with the
// harness's data, its standard error appended to log, reads the app origin
// it prints and waits until /healthz answers 200. A server that does not
// come up within a minute is an error: a round that cannot start fails.
func (h *harness) startServer(ctx context.Context) (*server, error) {
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data", h.cfg.Dir,
		"--log-level", "warn",
		// The load is the harness's own: no limit may refuse it.
		"--key-rate", "1000000", "--key-burst", "1000000",
		"--ip-rate", "1000000", "--ip-burst", "1000000"}
	cmd := exec.Command(h.cfg.Bin, args...)
	cmd.Env = h.env()
	cmd.Stderr = h.log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting fileframe serve: %w", err)
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	fail := func(err error) (*server, error) {
		s.kill()
		return nil, fmt.Errorf("%w (serve's log: %s)", err, h.logPath)
	}
	timeout := time.After(time.Minute)
	for s.app == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				<-s.done
				return fail(fmt.Errorf("fileframe serve exited (%v) before printing its app origin", s.waitErr))
			}
			if app, found := strings.CutPrefix(line, "  app:"); found {
				s.app = strings.TrimSpace(app)
			}
		case <-timeout:
			return fail(errors.New("fileframe serve printed no app origin in a minute"))
		case <-ctx.Done():
			return fail(ctx.Err())
		}
	}
	go func() {
		for range lines {
		}
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.app+"/healthz", nil)
		resp, err := h.http.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-s.done:
			return fail(fmt.Errorf("fileframe serve exited (%v) before /healthz answered", s.waitErr))
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("GET %s/healthz: never 200 in a minute (last: %v)", s.app, err))
		}
	}
}

// kill sends SIGKILL and waits until the process is gone.
func (s *server) kill() {
	s.cmd.Process.Kill()
	<-s.done
}

// stop sends SIGTERM and returns serve's exit status; after timeout it
// kills it and says so.
func (s *server) stop(timeout time.Duration) (int, error) {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return s.cmd.ProcessState.ExitCode(), nil
	case <-time.After(timeout):
		s.kill()
		return -1, fmt.Errorf("fileframe serve still running %s after SIGTERM; killed it", timeout)
	}
}

// peakRSS returns the most memory the process has had resident (VmHWM
// in /proc/<pid>/status), in bytes, or 0 where that cannot be read.
func (s *server) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

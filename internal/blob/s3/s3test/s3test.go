// Package s3test runs an S3 server on loopback for the tests and tools that
// need a real one: versitygw (its posix backend), from PATH or from
// $(go env GOPATH)/bin, where go install puts it. Those that use it never
// skip without one: they fail, saying how to get it (InstallHint).
package s3test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// InstallHint says how to get an S3 server for the tests.
const InstallHint = `this needs an S3 server on loopback: install versitygw
	go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
or point the tests at a server with FILEFRAME_TEST_S3_ENDPOINT,
FILEFRAME_TEST_S3_ACCESS_KEY and FILEFRAME_TEST_S3_SECRET_KEY`

// Server is a running S3 server.
type Server struct {
	Endpoint, AccessKey, SecretKey string

	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	waitErr error
	logs    *bytes.Buffer // read only once the process has exited
}

// Find returns the path of versitygw: in PATH, else in $(go env GOPATH)/bin.
func Find() (string, error) {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", "versitygw")
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	return "", errors.New("versitygw not found in PATH nor in $(go env GOPATH)/bin")
}

// Start starts versitygw on a free loopback port with a random secret,
// keeping its buckets in root (an existing directory), and waits until it
// answers. Stop stops it; root is the caller's to remove.
func Start(root string) (*Server, error) {
	bin, err := Find()
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	s := &Server{
		Endpoint:  "http://" + addr,
		AccessKey: "fileframetest",
		SecretKey: rand.Text(),
		done:      make(chan struct{}),
		logs:      &bytes.Buffer{},
	}
	s.cmd = exec.Command(bin,
		"--access", s.AccessKey, "--secret", s.SecretKey,
		"--port", addr, "--keep-alive", "--quiet",
		"posix", root)
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start versitygw: %w", err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.done)
	}()

	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return s, nil // any HTTP answer, even 403, means it is up
		}
		select {
		case <-s.done:
			// Its output is complete: read it.
			return nil, fmt.Errorf("versitygw exited (%v) before answering:\n%s", s.waitErr, s.logs)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("versitygw did not answer on %s within 30s:\n%s", addr, s.logs)
		}
	}
}

// Stop stops the server: SIGTERM, then SIGKILL after 10 seconds.
func (s *Server) Stop() error {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		return errors.New("versitygw ignored SIGTERM for 10s; killed it")
	}
}

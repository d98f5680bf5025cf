package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// runIdle measures what idle keep-alive connections cost a running serve
// (process pid): its resident memory (VmRSS) with no connection (after one
// request on a connection since closed), and then holding each number of
// conns connections, every one of which made one request for url (its
// answer read whole) and stays open, idle.
func runIdle(ctx context.Context, out io.Writer, url string, pid int, conns string) error {
	if pid <= 0 {
		return fmt.Errorf("-idle needs -pid, serve's process ID")
	}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	var levels []int
	for _, s := range strings.Split(conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return fmt.Errorf("-conns: not a number of connections: %q", s)
		}
		levels = append(levels, n)
	}
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	warm, err := oneRequest(ctx, req)
	if err != nil {
		return err
	}
	warm.Close()
	base, err := settledRSS(pid)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "idle  0 connections: serve's RSS %.1f MiB (%s)\n", float64(base)/(1<<20), load())
	for _, n := range levels {
		for len(held) < n {
			c, err := oneRequest(ctx, req)
			if err != nil {
				return fmt.Errorf("connection %d: %w", len(held)+1, err)
			}
			held = append(held, c)
		}
		rss, err := settledRSS(pid)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "idle  %d connections: serve's RSS %.1f MiB, %.1f KiB a connection over none (%s)\n",
			n, float64(rss)/(1<<20), float64(rss-base)/1024/float64(max(n, 1)), load())
	}
	return nil
}

// oneRequest opens a connection, makes req on it, reads the answer whole
// and returns the connection, still open.
func oneRequest(ctx context.Context, req *http.Request) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", req.URL.Host)
	if err != nil {
		return nil, err
	}
	if err := req.Write(c); err != nil {
		c.Close()
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		c.Close()
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s answered %s", req.URL, resp.Status)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// settledRSS returns the process's VmRSS in bytes after 3 s without
// requests (its goroutines parked, the garbage collector's cycle done).
func settledRSS(pid int) (int64, error) {
	time.Sleep(3 * time.Second)
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

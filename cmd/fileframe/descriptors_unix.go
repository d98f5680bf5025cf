//go:build unix

package main

import (
	"log/slog"
	"syscall"
)

// fewDescriptors is the descriptor limit under which serve warns: each
// connection holds one, each download from disk a second, and the store a
// few.
const fewDescriptors = 4096

// logDescriptorLimit says how many file descriptors serve may hold. Go's
// runtime has already raised the soft limit to the hard one at start
// (package os, on Linux and the BSDs); this raises it where that did not
// happen, and warns when the hard limit is low. Running out is not an
// error for visitors either way: blob opens wait for a free descriptor and
// then answer 503 with Retry-After (internal/blob/disk), and the HTTP
// server retries accepting while none is free, leaving connections in the
// listen queue.
func logDescriptorLimit(log *slog.Logger) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		log.Warn("reading the file descriptor limit", "err", err)
		return
	}
	if l.Cur < l.Max {
		raised := l
		raised.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err == nil {
			l = raised
		}
	}
	if l.Cur < fewDescriptors {
		log.Warn("few file descriptors: connections beyond the limit wait, and downloads that find none free answer 503; raise it (ulimit -n, LimitNOFILE= in systemd)",
			"limit", l.Cur, "hard_limit", l.Max, "advised", fewDescriptors)
		return
	}
	log.Info("file descriptors", "limit", l.Cur)
}

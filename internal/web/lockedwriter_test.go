package web

import (
	"io"
	"sync"
)

// lockedWriter serialises writes so a bytes.Buffer can collect logs from
// concurrent handlers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

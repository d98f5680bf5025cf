package web

import (
	"bytes"
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

// logBuffer collects a server's log lines and can be read while handlers
// still write to it (a handler whose client went away may log its access
// line after the test has its answer).
type logBuffer struct {
	lockedWriter
	buf bytes.Buffer
}

func newLogBuffer() *logBuffer {
	l := &logBuffer{}
	l.w = &l.buf
	return l
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Len()
}

package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logBuffer is an io.Writer for the server's JSON log that keeps what is
// written in memory and passes it on to the underlying writer every
// interval, as soon as it holds logBufferMax bytes, on Flush and on Close.
// Writing the access log line by line costs a write system call per
// request, about a tenth of a cached page's time; through the buffer it is
// one per few hundred lines.
//
// Lines are passed on whole and in order. What is buffered when the process
// dies without Close (a crash, SIGKILL) is lost: at most an interval's worth
// of lines. Records at Warn level and above are not held (see Handler), so
// a failure's log lines, and every line before them, are written before the
// call that logged them returns.
type logBuffer struct {
	w io.Writer

	mu  sync.Mutex
	buf []byte
	// spare is the buffer last written out, reused for the next lines.
	spare []byte

	flushMu sync.Mutex // one flush at a time, so that lines stay in order

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// logBufferMax is the size at which a write also writes out the buffer.
const logBufferMax = 64 << 10

// newLogBuffer returns a logBuffer on w that flushes every interval until
// Close.
func newLogBuffer(w io.Writer, interval time.Duration) *logBuffer {
	b := &logBuffer{
		w:     w,
		buf:   make([]byte, 0, logBufferMax),
		spare: make([]byte, 0, logBufferMax),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go b.loop(interval)
	return b
}

func (b *logBuffer) loop(interval time.Duration) {
	defer close(b.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			// A failed write cannot be logged through the log it failed to
			// write; the lines are dropped, as an unbuffered writer would.
			b.Flush()
		}
	}
}

// Write adds p (one log line, from slog's handler) to the buffer; when the
// buffer is full it writes it out first, so that a burst of lines waits for
// the writer rather than growing the buffer.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	if len(b.buf)+len(p) <= logBufferMax || len(b.buf) == 0 {
		b.buf = append(b.buf, p...)
		b.mu.Unlock()
		return len(p), nil
	}
	b.mu.Unlock()
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	// Other writers that found the buffer full wait here too; the first
	// writes it out and the others, finding room, only append: every write
	// to w is of a full buffer, however many goroutines log at once.
	b.mu.Lock()
	if len(b.buf)+len(p) > logBufferMax && len(b.buf) > 0 {
		b.mu.Unlock()
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
		b.mu.Lock()
	}
	b.buf = append(b.buf, p...)
	b.mu.Unlock()
	return len(p), nil
}

// Flush writes out what the buffer holds.
func (b *logBuffer) Flush() error {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	return b.flushLocked()
}

// flushLocked is Flush with flushMu held.
func (b *logBuffer) flushLocked() error {
	b.mu.Lock()
	out := b.buf
	b.buf = b.spare[:0]
	b.mu.Unlock()
	if len(out) == 0 {
		b.spare = out
		return nil
	}
	_, err := b.w.Write(out)
	if cap(out) <= 2*logBufferMax { // a single huge line's buffer is not kept
		b.spare = out[:0]
	} else {
		b.spare = make([]byte, 0, logBufferMax)
	}
	return err
}

// Close stops the periodic flushes and writes out what is left. Lines
// written after Close are still buffered, and written by the next Flush.
// Close may be called more than once.
func (b *logBuffer) Close() error {
	b.closeOnce.Do(func() { close(b.stop) })
	<-b.done
	return b.Flush()
}

// Handler returns h, whose output must go to b, flushing b after each record
// at Warn level or above: warnings and errors (a failed request, a panic, a
// failed shutdown) are written at once, with every line logged before them.
func (b *logBuffer) Handler(h slog.Handler) slog.Handler {
	return flushingHandler{Handler: h, b: b}
}

type flushingHandler struct {
	slog.Handler
	b *logBuffer
}

func (f flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := f.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := f.b.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (f flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{Handler: f.Handler.WithAttrs(attrs), b: f.b}
}

func (f flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{Handler: f.Handler.WithGroup(name), b: f.b}
}

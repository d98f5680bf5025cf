package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// downloadCounter batches download counts in memory, so that serving a file
// never waits for a database write, and adds them to the store every
// interval and once more on Close. Counts whose write fails stay in memory
// and are retried at the next flush.
type downloadCounter struct {
	store    fileframe.Store
	log      *slog.Logger
	interval time.Duration

	mu      sync.Mutex
	pending map[fileframe.FileID]int64

	flushMu   sync.Mutex // one flush at a time, so retried counts are never sent twice
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// flushTimeout bounds one background flush.
const flushTimeout = 10 * time.Second

// newDownloadCounter starts a counter that flushes every interval.
func newDownloadCounter(store fileframe.Store, log *slog.Logger, interval time.Duration) *downloadCounter {
	c := &downloadCounter{
		store:    store,
		log:      log,
		interval: interval,
		pending:  make(map[fileframe.FileID]int64),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go c.loop()
	return c
}

// Add counts one download of the file.
func (c *downloadCounter) Add(id fileframe.FileID) {
	c.mu.Lock()
	c.pending[id]++
	c.mu.Unlock()
}

func (c *downloadCounter) loop() {
	defer close(c.done)
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
			if err := c.Flush(ctx); err != nil {
				c.log.Warn("download counts not written; will retry", "err", err)
			}
			cancel()
		}
	}
}

// Flush writes the counts gathered so far. On failure they are kept (added
// to whatever was counted meanwhile) for the next flush.
func (c *downloadCounter) Flush(ctx context.Context) error {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()

	c.mu.Lock()
	batch := c.pending
	if len(batch) == 0 {
		c.mu.Unlock()
		return nil
	}
	c.pending = make(map[fileframe.FileID]int64, len(batch))
	c.mu.Unlock()

	if err := c.store.AddDownloads(ctx, batch); err != nil {
		c.mu.Lock()
		for id, n := range batch {
			c.pending[id] += n
		}
		c.mu.Unlock()
		return err
	}
	return nil
}

// pendingTotal returns the number of downloads not yet written.
func (c *downloadCounter) pendingTotal() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, v := range c.pending {
		n += v
	}
	return n
}

// Close stops the background flushes and writes the remaining counts. If
// that write fails the error is returned and the counts are logged, as they
// cannot be kept anywhere else. Close may be called more than once.
func (c *downloadCounter) Close(ctx context.Context) error {
	c.closeOnce.Do(func() { close(c.stop) })
	select {
	case <-c.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := c.Flush(ctx); err != nil {
		c.log.Error("download counts lost at shutdown", "downloads", c.pendingTotal(), "err", err)
		return err
	}
	return nil
}

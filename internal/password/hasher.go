package password

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// Defaults of a Budget.
const (
	// DefaultBudgetMemory is 256 MiB: four hashes at the default cost at
	// once, which also keeps two cores busy (each default hash runs two
	// lanes).
	DefaultBudgetMemory = 4 * DefaultMemory // KiB
	// DefaultMaxWait is how long a hash waits in line for memory before
	// ErrBusy. A default hash takes tens of milliseconds, so a wait this
	// long means dozens are queued: the server is saturated, and a quick
	// "try again" serves the person better than a request that hangs.
	DefaultMaxWait = 3 * time.Second
)

// ErrBusy is returned by Hash and Verify when the budget stayed full for the
// whole of its MaxWait: too many passwords are being hashed at once.
var ErrBusy = errors.New("password: too many passwords are being checked at once; try again in a few seconds")

// ErrTooCostly is returned by Verify for a stored hash whose memory cost is
// more than the whole budget: it could never run, so it is refused at once,
// without allocating anything. The fix is a larger budget, or a new hash.
var ErrTooCostly = errors.New("password: the hash needs more memory than the whole password hashing budget")

// Budget bounds the Argon2 computations of a Hasher.
type Budget struct {
	// Memory is how much memory, in KiB, the computations running at once
	// may take in all; each takes its hash's m, the default hash 64 MiB.
	// Zero means DefaultBudgetMemory (256 MiB). It must hold at least one
	// hash of the Hasher's parameters.
	Memory int64
	// MaxWait is the longest a computation waits in line for memory
	// before it gives up with ErrBusy (and never longer than its context
	// allows). Zero means DefaultMaxWait (3s).
	MaxWait time.Duration
}

// Hasher hashes and verifies passwords under a memory budget. Every
// computation first reserves its hash's memory (Params.Memory for Hash, the
// stored hash's own m for Verify) from a weighted semaphore the size of the
// budget, waiting in line, first come first served, for up to MaxWait; so
// the memory held by Argon2 at any moment is at most the budget, whatever
// arrives. One Hasher serves a whole process; it is safe for concurrent use.
type Hasher struct {
	params Params
	budget Budget
	sem    *semaphore.Weighted

	mu    sync.Mutex
	stats Stats
}

// Stats is what a Hasher is doing and has done; tests and metrics read it.
type Stats struct {
	// Running is the number of Argon2 computations running now, and
	// PeakRunning the most that ever ran at once.
	Running, PeakRunning int
	// Memory is the KiB of the budget reserved now, PeakMemory the most
	// ever reserved at once; neither exceeds Budget.Memory.
	Memory, PeakMemory int64
	// Waiting is the number of computations in line for memory.
	Waiting int
	// Computed counts the Argon2 computations started; Busy the ones
	// refused with ErrBusy.
	Computed, Busy uint64
}

// NewHasher returns a Hasher that hashes with p (the zero Params means
// DefaultParams) under budget b.
func NewHasher(p Params, b Budget) (*Hasher, error) {
	if p == (Params{}) {
		p = DefaultParams()
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("password: hashing parameters: %w", err)
	}
	if b.Memory == 0 {
		b.Memory = DefaultBudgetMemory
	}
	if b.MaxWait == 0 {
		b.MaxWait = DefaultMaxWait
	}
	if b.Memory < int64(p.Memory) {
		return nil, fmt.Errorf("password: a budget of %d KiB cannot hold one hash of %d KiB", b.Memory, p.Memory)
	}
	if b.MaxWait < 0 {
		return nil, errors.New("password: MaxWait must not be negative")
	}
	return &Hasher{params: p, budget: b, sem: semaphore.NewWeighted(b.Memory)}, nil
}

// Params returns the parameters h hashes with.
func (h *Hasher) Params() Params { return h.params }

// Budget returns h's budget, defaults filled in.
func (h *Hasher) Budget() Budget { return h.budget }

// Stats returns a snapshot of h's counters.
func (h *Hasher) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stats
}

// Hash returns the PHC string of pw hashed with Argon2id, h's parameters
// and a fresh random salt. It fails with ErrBusy when no memory came free
// within MaxWait, and with ctx's error when ctx ended first.
func (h *Hasher) Hash(ctx context.Context, pw string) (string, error) {
	if pw == "" {
		return "", ErrEmpty
	}
	release, err := h.Reserve(ctx, int64(h.params.Memory))
	if err != nil {
		return "", err
	}
	defer release()
	salt := newSalt()
	return encode(h.params, salt, h.compute(pw, salt, h.params, keyLen)), nil
}

// Verify reports whether pw matches the encoded hash. The comparison takes
// the same time wherever the hashes differ. A hash that cannot be decoded is
// ErrMalformed (wrapped), one whose memory cost exceeds the budget
// ErrTooCostly (wrapped), never a match; both are refused before any memory
// is taken. Otherwise it waits for the hash's own memory cost, as Hash does.
func (h *Hasher) Verify(ctx context.Context, pw, encoded string) (bool, error) {
	p, salt, key, err := decode(encoded)
	if err != nil {
		return false, err
	}
	release, err := h.Reserve(ctx, int64(p.Memory))
	if err != nil {
		return false, err
	}
	defer release()
	got := h.compute(pw, salt, p, len(key))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// NeedsRehash reports whether encoded was made with parameters other than
// h's, so a caller that has just verified the password can store a fresh
// hash.
func (h *Hasher) NeedsRehash(encoded string) bool {
	p, salt, key, err := decode(encoded)
	return err != nil || p != h.params || len(salt) != saltLen || len(key) != keyLen
}

// Decoy returns a hash that no password matches (its key is random), with
// h's parameters: verifying against it costs what verifying against a real
// hash does, so that a sign-in with an unknown email takes as long as one
// with a wrong password. Making it computes nothing.
func (h *Hasher) Decoy() string {
	key := make([]byte, keyLen)
	rand.Read(key)
	return encode(h.params, newSalt(), key)
}

// Reserve takes kib KiB of the budget, waiting in line for at most MaxWait
// and no longer than ctx lasts, and returns the function that gives it back
// (calling it more than once is harmless). It fails with ErrTooCostly
// (wrapped) when kib is more than the whole budget, ErrBusy when the wait
// ran out, and ctx's error when ctx ended first. Hash and Verify reserve
// their hash's memory with it; it is exported for other memory-hungry work
// that must share the budget, and for tests that fill the budget on
// purpose.
func (h *Hasher) Reserve(ctx context.Context, kib int64) (release func(), err error) {
	kib = max(kib, 1)
	if kib > h.budget.Memory {
		return nil, fmt.Errorf("%w: it needs %d KiB, the budget is %d KiB (raise --password-hash-memory or set a new password)",
			ErrTooCostly, kib, h.budget.Memory)
	}
	if !h.sem.TryAcquire(kib) {
		if err := h.wait(ctx, kib); err != nil {
			return nil, err
		}
	}
	h.mu.Lock()
	h.stats.Memory += kib
	h.stats.PeakMemory = max(h.stats.PeakMemory, h.stats.Memory)
	h.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			h.stats.Memory -= kib
			h.mu.Unlock()
			h.sem.Release(kib)
		})
	}, nil
}

// wait queues for kib KiB of the budget, for at most MaxWait.
func (h *Hasher) wait(ctx context.Context, kib int64) error {
	h.mu.Lock()
	h.stats.Waiting++
	h.mu.Unlock()
	wctx, cancel := context.WithTimeout(ctx, h.budget.MaxWait)
	err := h.sem.Acquire(wctx, kib)
	cancel()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stats.Waiting--
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("password: waiting for memory: %w", context.Cause(ctx))
	}
	h.stats.Busy++
	return ErrBusy
}

// compute runs one Argon2id computation, counting it; the caller holds
// p.Memory KiB of the budget.
func (h *Hasher) compute(pw string, salt []byte, p Params, n int) []byte {
	h.mu.Lock()
	h.stats.Computed++
	h.stats.Running++
	h.stats.PeakRunning = max(h.stats.PeakRunning, h.stats.Running)
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.stats.Running--
		h.mu.Unlock()
	}()
	return argonKey(pw, salt, p, n)
}

package password

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// small is a cost that takes a few milliseconds, long enough for
// computations started together to overlap.
var small = Params{Memory: 1024, Time: 1, Threads: 1}

func mustHasher(t *testing.T, p Params, b Budget) *Hasher {
	t.Helper()
	h, err := NewHasher(p, b)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHasherBound runs many hashes and verifications at once through a
// budget of two and checks that no more than two ever ran together, and
// that every one ran.
func TestHasherBound(t *testing.T) {
	h := mustHasher(t, small, Budget{Memory: 2 * int64(small.Memory), MaxWait: time.Minute})
	ctx := context.Background()
	stored, err := h.Hash(ctx, "the right one")
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				_, err = h.Hash(ctx, "a new password")
			} else {
				_, err = h.Verify(ctx, "a wrong one", stored)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("hash or verify: %v", err)
		}
	}
	st := h.Stats()
	if st.Computed != n+1 {
		t.Errorf("computations: got %d, want %d", st.Computed, n+1)
	}
	if st.PeakRunning < 1 || st.PeakRunning > 2 {
		t.Errorf("most computations at once: got %d, want 1 or 2 (the budget holds two)", st.PeakRunning)
	}
	if st.PeakMemory > 2*int64(small.Memory) {
		t.Errorf("most memory at once: got %d KiB, want at most the budget, %d KiB", st.PeakMemory, 2*small.Memory)
	}
	if st.Running != 0 || st.Memory != 0 || st.Waiting != 0 || st.Busy != 0 {
		t.Errorf("after all returned: got %+v, want nothing running, held, waiting or refused", st)
	}
}

// TestHasherVerifyWeighsStoredCost checks that Verify takes the stored
// hash's own memory cost from the budget, not the hasher's.
func TestHasherVerifyWeighsStoredCost(t *testing.T) {
	ctx := context.Background()
	big := Params{Memory: 3 * small.Memory, Time: 1, Threads: 1}
	stored, err := mustHasher(t, big, Budget{}).Hash(ctx, "pw")
	if err != nil {
		t.Fatal(err)
	}
	h := mustHasher(t, small, Budget{Memory: 4 * int64(small.Memory), MaxWait: 20 * time.Millisecond})
	release, err := h.Reserve(ctx, 2*int64(small.Memory))
	if err != nil {
		t.Fatal(err)
	}
	// Half the budget is taken: the big hash (three quarters) must wait,
	// and gives up after MaxWait; a hash of the hasher's cost fits.
	if ok, err := h.Verify(ctx, "pw", stored); ok || !errors.Is(err, ErrBusy) {
		t.Errorf("Verify(3 MiB hash) with 2 MiB free: got %v, %v; want false, ErrBusy", ok, err)
	}
	if _, err := h.Hash(ctx, "pw"); err != nil {
		t.Errorf("Hash (1 MiB) with 2 MiB free: %v", err)
	}
	release()
	release() // harmless
	if ok, err := h.Verify(ctx, "pw", stored); !ok || err != nil {
		t.Errorf("Verify(3 MiB hash) with the budget free: got %v, %v; want true, nil", ok, err)
	}
	if st := h.Stats(); st.PeakMemory != 3*int64(small.Memory) || st.Memory != 0 || st.Busy != 1 {
		t.Errorf("stats: got %+v, want a peak of %d KiB, none held, one refusal", st, 3*small.Memory)
	}
}

// TestHasherTooCostly checks that a stored hash needing more than the whole
// budget (up to the 1 GiB a PHC string may ask for) is refused at once,
// without computing, and that a budget too small for one hash is refused.
func TestHasherTooCostly(t *testing.T) {
	h := mustHasher(t, Params{}, Budget{})
	huge := Params{Memory: maxMemory, Time: 1, Threads: 1}
	stored := encode(huge, make([]byte, saltLen), make([]byte, keyLen))
	start := time.Now()
	ok, err := h.Verify(context.Background(), "pw", stored)
	if ok || !errors.Is(err, ErrTooCostly) {
		t.Fatalf("Verify(1 GiB hash) under a 256 MiB budget: got %v, %v; want false, ErrTooCostly", ok, err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("the refusal took %v: it should not wait nor compute", time.Since(start))
	}
	if st := h.Stats(); st.Computed != 0 || st.PeakMemory != 0 {
		t.Errorf("stats after the refusal: %+v, want nothing computed or held", st)
	}
	if _, err := NewHasher(Params{}, Budget{Memory: DefaultMemory - 1}); err == nil {
		t.Errorf("NewHasher with a budget smaller than one hash: no error")
	}
	if _, err := NewHasher(Params{Memory: 64}, Budget{}); err == nil {
		t.Errorf("NewHasher with t = 0 and p = 0: no error")
	}
}

// TestHasherBusy fills the budget and checks that hashing and verifying
// give up with ErrBusy after MaxWait (not before, and without hanging), that
// a request whose context ends first gets the context's error, and that a
// computation in line runs as soon as memory comes free.
func TestHasherBusy(t *testing.T) {
	const wait = 50 * time.Millisecond
	h := mustHasher(t, cheap, Budget{Memory: 4 * int64(cheap.Memory), MaxWait: wait})
	ctx := context.Background()
	stored, err := h.Hash(ctx, "pw")
	if err != nil {
		t.Fatal(err)
	}
	release, err := h.Reserve(ctx, h.Budget().Memory)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := h.Hash(ctx, "pw"); !errors.Is(err, ErrBusy) {
		t.Errorf("Hash on a full budget: got %v, want ErrBusy", err)
	}
	if ok, err := h.Verify(ctx, "pw", stored); ok || !errors.Is(err, ErrBusy) {
		t.Errorf("Verify on a full budget: got %v, %v, want false, ErrBusy", ok, err)
	}
	if d := time.Since(start); d < 2*wait {
		t.Errorf("two refusals took %v, want each to wait MaxWait (%v)", d, wait)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := h.Hash(canceled, "pw"); !errors.Is(err, context.Canceled) || errors.Is(err, ErrBusy) {
		t.Errorf("Hash with a canceled context: got %v, want context.Canceled", err)
	}
	if st := h.Stats(); st.Busy != 2 || st.Computed != 1 {
		t.Errorf("stats: got %+v, want 2 refusals and only the first hash computed", st)
	}

	// A patient request waits in line and runs once the budget frees.
	patient := mustHasher(t, cheap, Budget{Memory: int64(cheap.Memory), MaxWait: time.Minute})
	hold, err := patient.Reserve(ctx, int64(cheap.Memory))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := patient.Hash(ctx, "pw")
		done <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); patient.Stats().Waiting != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the hash never queued: %+v", patient.Stats())
		}
	}
	hold()
	if err := <-done; err != nil {
		t.Errorf("queued Hash after the budget freed: %v", err)
	}
	release()
}

func TestHasherDecoy(t *testing.T) {
	h := mustHasher(t, cheap, Budget{})
	d := h.Decoy()
	if h.NeedsRehash(d) {
		t.Errorf("Decoy %q is not made with the hasher's parameters", d)
	}
	if d == h.Decoy() {
		t.Errorf("two decoys are equal")
	}
	for _, pw := range []string{"", "pw", "fileframe"} {
		if ok, err := h.Verify(context.Background(), pw, d); ok || err != nil {
			t.Errorf("Verify(%q, decoy) = %v, %v; want false, nil", pw, ok, err)
		}
	}
	if st := h.Stats(); st.Computed != 3 {
		t.Errorf("verifying against the decoy computed %d times, want 3 (it must cost what a real hash does)", st.Computed)
	}
}

package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func testIdempotency(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	s := newStore(t)
	ctx := t.Context()
	a := newAccount(t, s)
	k := newKey(t, s, a.ID, "")
	const stale = time.Hour
	now := time.Now()

	t.Run("the first claim wins, the answer is kept and read back", func(t *testing.T) {
		_, claimed, err := s.ClaimIdempotent(ctx, k.ID, "first", now, stale)
		if err != nil || !claimed {
			t.Fatalf("ClaimIdempotent: claimed %v, %v; want true, nil", claimed, err)
		}
		running, claimed, err := s.ClaimIdempotent(ctx, k.ID, "first", now, stale)
		if err != nil || claimed || running.Done {
			t.Fatalf("second ClaimIdempotent: claimed %v, done %v, %v; want false, false (running), nil", claimed, running.Done, err)
		}
		answer := fileframe.IdempotentRequest{KeyID: k.ID, Key: "first", Fingerprint: "fp1", Status: 201,
			Header: map[string]string{"Content-Type": "application/json", "Location": "/files/f_x"}, Body: []byte(`{"ok":true}`)}
		if err := s.FinishIdempotent(ctx, answer); err != nil {
			t.Fatalf("FinishIdempotent: %v", err)
		}
		got, claimed, err := s.ClaimIdempotent(ctx, k.ID, "first", now.Add(2*stale), stale)
		if err != nil || claimed {
			t.Fatalf("ClaimIdempotent after finish: claimed %v, %v; want false, nil", claimed, err)
		}
		if !got.Done || got.Fingerprint != "fp1" || got.Status != 201 || string(got.Body) != `{"ok":true}` ||
			got.Header["Location"] != "/files/f_x" || got.Header["Content-Type"] != "application/json" {
			t.Errorf("the kept answer: got %+v", got)
		}
		wantRecent(t, "CreatedAt", got.CreatedAt, now)
		if err := s.FinishIdempotent(ctx, answer); fileframe.ErrorCode(err) != fileframe.ENOTFOUND {
			t.Errorf("FinishIdempotent twice: got %v, want ENOTFOUND", err)
		}
	})

	t.Run("keys are per API key", func(t *testing.T) {
		other := newKey(t, s, a.ID, "")
		if _, claimed, err := s.ClaimIdempotent(ctx, other.ID, "first", now, stale); err != nil || !claimed {
			t.Errorf("the same idempotency key under another API key: claimed %v, %v; want true", claimed, err)
		}
		_, _, err := s.ClaimIdempotent(ctx, "k_missing", "x", now, stale)
		wantCode(t, "ClaimIdempotent of a missing API key", err, fileframe.ENOTFOUND)
	})

	t.Run("a released claim can be claimed again", func(t *testing.T) {
		if _, claimed, err := s.ClaimIdempotent(ctx, k.ID, "released", now, stale); err != nil || !claimed {
			t.Fatalf("ClaimIdempotent: %v, %v", claimed, err)
		}
		if err := s.ReleaseIdempotent(ctx, k.ID, "released", now); err != nil {
			t.Fatalf("ReleaseIdempotent: %v", err)
		}
		if err := s.ReleaseIdempotent(ctx, k.ID, "never-claimed", now); err != nil {
			t.Errorf("ReleaseIdempotent of nothing: %v, want nil", err)
		}
		if _, claimed, err := s.ClaimIdempotent(ctx, k.ID, "released", now, stale); err != nil || !claimed {
			t.Errorf("ClaimIdempotent after release: claimed %v, %v; want true", claimed, err)
		}
	})

	t.Run("a late release leaves a newer claim alone", func(t *testing.T) {
		first := now.Add(-time.Minute)
		if _, claimed, err := s.ClaimIdempotent(ctx, k.ID, "late", first, stale); err != nil || !claimed {
			t.Fatalf("ClaimIdempotent: %v, %v", claimed, err)
		}
		if err := s.ReleaseIdempotent(ctx, k.ID, "late", first); err != nil {
			t.Fatalf("ReleaseIdempotent: %v", err)
		}
		// A retry claims the key again; the first request's release, tried
		// again (its answer was lost), must not free the retry's claim.
		if _, claimed, err := s.ClaimIdempotent(ctx, k.ID, "late", now, stale); err != nil || !claimed {
			t.Fatalf("ClaimIdempotent of the retry: %v, %v", claimed, err)
		}
		if err := s.ReleaseIdempotent(ctx, k.ID, "late", first); err != nil {
			t.Fatalf("ReleaseIdempotent, late: %v", err)
		}
		if _, claimed, err := s.ClaimIdempotent(ctx, k.ID, "late", now.Add(time.Second), stale); err != nil || claimed {
			t.Errorf("a third request after the late release: claimed %v, %v; want false (the retry still runs)", claimed, err)
		}
		if err := s.ReleaseIdempotent(ctx, k.ID, "late", now); err != nil {
			t.Fatalf("ReleaseIdempotent of the retry: %v", err)
		}
		if _, claimed, err := s.ClaimIdempotent(ctx, k.ID, "late", now.Add(time.Second), stale); err != nil || !claimed {
			t.Errorf("ClaimIdempotent after the retry's release: claimed %v, %v; want true", claimed, err)
		}
	})

	t.Run("a stale running claim is taken over, a finished one never", func(t *testing.T) {
		if _, claimed, _ := s.ClaimIdempotent(ctx, k.ID, "stale", now, stale); !claimed {
			t.Fatal("first claim failed")
		}
		if _, claimed, _ := s.ClaimIdempotent(ctx, k.ID, "stale", now.Add(stale/2), stale); claimed {
			t.Error("claimed a running request before it was stale")
		}
		if _, claimed, err := s.ClaimIdempotent(ctx, k.ID, "stale", now.Add(stale+time.Minute), stale); err != nil || !claimed {
			t.Errorf("a stale running request: claimed %v, %v; want true", claimed, err)
		}
	})

	t.Run("concurrent claims: exactly one wins", func(t *testing.T) {
		const n = 16
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, claimed, err := s.ClaimIdempotent(ctx, k.ID, "race", now, stale)
				if err != nil {
					t.Errorf("claim %d: %v", i, err)
				}
				if claimed {
					mu.Lock()
					wins++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Errorf("%d of %d concurrent claims won, want exactly 1", wins, n)
		}
	})

	t.Run("DeleteIdempotentBefore forgets old requests", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		k := newKey(t, s, a.ID, "")
		for i, at := range []time.Time{now.Add(-48 * time.Hour), now.Add(-25 * time.Hour), now} {
			if _, claimed, err := s.ClaimIdempotent(ctx, k.ID, fmt.Sprint(i), at, stale); err != nil || !claimed {
				t.Fatalf("claim %d: %v %v", i, claimed, err)
			}
		}
		n, err := s.DeleteIdempotentBefore(ctx, now.Add(-24*time.Hour))
		if err != nil || n != 2 {
			t.Errorf("DeleteIdempotentBefore: %d, %v; want 2, nil", n, err)
		}
		if _, claimed, _ := s.ClaimIdempotent(ctx, k.ID, "2", now, stale); claimed {
			t.Error("the recent request was deleted too")
		}
	})
}

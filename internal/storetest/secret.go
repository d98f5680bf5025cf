package storetest

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// randomSecret generates a new 32-byte secret and counts the calls.
func randomSecret(calls *atomic.Int32) func() []byte {
	return func() []byte {
		calls.Add(1)
		return []byte(fileframe.RandomBase62(32))
	}
}

func testSecrets(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("Secret creates the value once and returns it on every call", func(t *testing.T) {
		s := newStore(t)
		var calls atomic.Int32
		first, err := s.Secret(t.Context(), "preview", randomSecret(&calls))
		if err != nil {
			t.Fatalf("Secret: %v", err)
		}
		if len(first) != 32 {
			t.Errorf("Secret: got %d bytes, want the 32 generated", len(first))
		}
		for range 3 {
			again, err := s.Secret(t.Context(), "preview", randomSecret(&calls))
			if err != nil {
				t.Fatalf("Secret again: %v", err)
			}
			if !bytes.Equal(again, first) {
				t.Errorf("Secret again: got %q, want %q", again, first)
			}
		}
		if got := calls.Load(); got != 1 {
			t.Errorf("generate: called %d times, want once", got)
		}
	})

	t.Run("Secret keeps binary values byte-identical", func(t *testing.T) {
		s := newStore(t)
		want := []byte{0, 1, 2, 0xff, 0xfe, 0, '\n'}
		if _, err := s.Secret(t.Context(), "binary", func() []byte { return want }); err != nil {
			t.Fatalf("Secret: %v", err)
		}
		got, err := s.Secret(t.Context(), "binary", func() []byte { return []byte("other") })
		if err != nil {
			t.Fatalf("Secret again: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("Secret: got %v, want %v", got, want)
		}
	})

	t.Run("different names are different secrets", func(t *testing.T) {
		s := newStore(t)
		var calls atomic.Int32
		a, err := s.Secret(t.Context(), "preview", randomSecret(&calls))
		if err != nil {
			t.Fatalf("Secret(preview): %v", err)
		}
		b, err := s.Secret(t.Context(), "session", randomSecret(&calls))
		if err != nil {
			t.Fatalf("Secret(session): %v", err)
		}
		if bytes.Equal(a, b) {
			t.Errorf("Secret(preview), Secret(session): got %q for both, want different values", a)
		}
	})

	t.Run("concurrent first calls all get the same value", func(t *testing.T) {
		s := newStore(t)
		const callers = 20
		var calls atomic.Int32
		got := make([][]byte, callers)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				v, err := s.Secret(t.Context(), "preview", randomSecret(&calls))
				if err != nil {
					t.Errorf("Secret by caller %d: %v", i, err)
				}
				got[i] = v
			}()
		}
		wg.Wait()
		for i := range got {
			if !bytes.Equal(got[i], got[0]) {
				t.Errorf("Secret by caller %d: got %q, want %q as caller 0 got", i, got[i], got[0])
			}
		}
		if len(got[0]) == 0 {
			t.Errorf("Secret: got an empty value, want a generated one")
		}
	})
}

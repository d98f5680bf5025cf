package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// newSession stores a session of the account, expiring in a day.
func newSession(t *testing.T, s fileframe.Store, account fileframe.AccountID) fileframe.Session {
	t.Helper()
	created := time.Now().UTC()
	sess := fileframe.Session{
		Hash:       fileframe.HashKey(fileframe.RandomBase62(32)),
		AccountID:  account,
		CreatedAt:  created,
		LastSeenAt: created,
		ExpiresAt:  created.Add(24 * time.Hour),
	}
	if err := s.CreateSession(t.Context(), sess); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	return sess
}

// normSession returns sess with its times as the store must at least keep
// them.
func normSession(sess fileframe.Session) fileframe.Session {
	sess.CreatedAt = ms(sess.CreatedAt)
	sess.LastSeenAt = ms(sess.LastSeenAt)
	sess.ExpiresAt = ms(sess.ExpiresAt)
	return sess
}

// sessionGone fails the test unless the session is ENOTFOUND.
func sessionGone(t *testing.T, s fileframe.Store, hash string, why string) {
	t.Helper()
	_, err := s.SessionByHash(t.Context(), hash)
	wantCode(t, "SessionByHash("+why+")", err, fileframe.ENOTFOUND)
}

// sessionThere fails the test unless the session exists.
func sessionThere(t *testing.T, s fileframe.Store, hash string, why string) {
	t.Helper()
	if _, err := s.SessionByHash(t.Context(), hash); err != nil {
		t.Errorf("SessionByHash(%s): got %v, want the session", why, err)
	}
}

func testSessions(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("CreateSession and SessionByHash return every field in UTC", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		want := fileframe.Session{
			Hash:       fileframe.HashKey("token"),
			AccountID:  a.ID,
			CreatedAt:  stamp,
			LastSeenAt: stamp.Add(time.Minute),
			ExpiresAt:  stamp.Add(30 * 24 * time.Hour),
		}
		if err := s.CreateSession(t.Context(), want); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		got, err := s.SessionByHash(t.Context(), want.Hash)
		if err != nil {
			t.Fatalf("SessionByHash: %v", err)
		}
		if got, want := normSession(got), normSession(want); got != want {
			t.Errorf("SessionByHash: got %+v, want %+v", got, want)
		}
		for what, tm := range map[string]time.Time{"CreatedAt": got.CreatedAt, "LastSeenAt": got.LastSeenAt, "ExpiresAt": got.ExpiresAt} {
			if tm.Location() != time.UTC {
				t.Errorf("SessionByHash: %s location got %v, want UTC", what, tm.Location())
			}
		}
	})

	t.Run("SessionByHash returns expired sessions", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		sess := fileframe.Session{Hash: "expired", AccountID: a.ID, CreatedAt: stamp, LastSeenAt: stamp, ExpiresAt: stamp.Add(time.Hour)}
		if err := s.CreateSession(t.Context(), sess); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		got, err := s.SessionByHash(t.Context(), "expired")
		if err != nil {
			t.Fatalf("SessionByHash(expired): %v", err)
		}
		if !got.ExpiresAt.Equal(ms(sess.ExpiresAt)) {
			t.Errorf("SessionByHash(expired): ExpiresAt got %v, want %v", got.ExpiresAt, ms(sess.ExpiresAt))
		}
	})

	t.Run("CreateSession for a missing account is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newAccount(t, s)
		err := s.CreateSession(t.Context(), fileframe.Session{Hash: "h", AccountID: "a_missing", CreatedAt: stamp, LastSeenAt: stamp, ExpiresAt: stamp})
		wantCode(t, "CreateSession(missing account)", err, fileframe.ENOTFOUND)
		sessionGone(t, s, "h", "after a failed create")
	})

	t.Run("SessionByHash of a missing session is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newSession(t, s, newAccount(t, s).ID)
		sessionGone(t, s, fileframe.HashKey("never stored"), "missing")
	})

	t.Run("TouchSession moves LastSeenAt and ExpiresAt", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		sess := newSession(t, s, a.ID)
		seen, expires := stamp.Add(time.Hour), stamp.Add(48*time.Hour)
		if err := s.TouchSession(t.Context(), sess.Hash, seen, expires); err != nil {
			t.Fatalf("TouchSession: %v", err)
		}
		got, err := s.SessionByHash(t.Context(), sess.Hash)
		if err != nil {
			t.Fatalf("SessionByHash: %v", err)
		}
		want := sess
		want.LastSeenAt, want.ExpiresAt = seen, expires
		if got, want := normSession(got), normSession(want); got != want {
			t.Errorf("SessionByHash after TouchSession: got %+v, want %+v", got, want)
		}
	})

	t.Run("TouchSession of a missing session is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		err := s.TouchSession(t.Context(), "missing", stamp, stamp)
		wantCode(t, "TouchSession(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("DeleteSession ends one session; a missing one is not an error", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		one, other := newSession(t, s, a.ID), newSession(t, s, a.ID)
		if err := s.DeleteSession(t.Context(), one.Hash); err != nil {
			t.Fatalf("DeleteSession: %v", err)
		}
		sessionGone(t, s, one.Hash, "deleted")
		sessionThere(t, s, other.Hash, "another session of the account")
		if err := s.DeleteSession(t.Context(), one.Hash); err != nil {
			t.Errorf("DeleteSession(again): got %v, want nil", err)
		}
		if err := s.DeleteSession(t.Context(), "never stored"); err != nil {
			t.Errorf("DeleteSession(missing): got %v, want nil", err)
		}
	})

	t.Run("DeleteAccountSessions ends the account's sessions but the one kept", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		keep, drop1, drop2 := newSession(t, s, a.ID), newSession(t, s, a.ID), newSession(t, s, a.ID)
		others := newSession(t, s, b.ID)
		if err := s.DeleteAccountSessions(t.Context(), a.ID, keep.Hash); err != nil {
			t.Fatalf("DeleteAccountSessions: %v", err)
		}
		sessionThere(t, s, keep.Hash, "kept")
		sessionGone(t, s, drop1.Hash, "ended")
		sessionGone(t, s, drop2.Hash, "ended")
		sessionThere(t, s, others.Hash, "another account's")

		// An empty keep ends them all.
		if err := s.DeleteAccountSessions(t.Context(), a.ID, ""); err != nil {
			t.Fatalf("DeleteAccountSessions(keep none): %v", err)
		}
		sessionGone(t, s, keep.Hash, "keep none")
		sessionThere(t, s, others.Hash, "another account's")

		// Keeping another account's session does not keep it from ending.
		if err := s.DeleteAccountSessions(t.Context(), a.ID, others.Hash); err != nil {
			t.Fatalf("DeleteAccountSessions(keep another's): %v", err)
		}
		sessionThere(t, s, others.Hash, "another account's, named as kept")
		if err := s.DeleteAccountSessions(t.Context(), "a_missing", ""); err != nil {
			t.Errorf("DeleteAccountSessions(missing account): got %v, want nil", err)
		}
	})

	t.Run("DeleteExpiredSessions removes sessions expired before t and counts them", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		cut := stamp
		for i, exp := range []time.Time{cut.Add(-time.Hour), cut.Add(-time.Millisecond), cut, cut.Add(time.Hour)} {
			sess := fileframe.Session{Hash: fmt.Sprintf("s%d", i), AccountID: a.ID, CreatedAt: cut.Add(-2 * time.Hour), LastSeenAt: cut.Add(-2 * time.Hour), ExpiresAt: exp}
			if err := s.CreateSession(t.Context(), sess); err != nil {
				t.Fatalf("CreateSession: %v", err)
			}
		}
		n, err := s.DeleteExpiredSessions(t.Context(), cut)
		if err != nil {
			t.Fatalf("DeleteExpiredSessions: %v", err)
		}
		if n != 2 {
			t.Errorf("DeleteExpiredSessions: got %d, want 2", n)
		}
		sessionGone(t, s, "s0", "expired an hour before")
		sessionGone(t, s, "s1", "expired a millisecond before")
		sessionThere(t, s, "s2", "expiring at t")
		sessionThere(t, s, "s3", "expiring after t")
		if n, err := s.DeleteExpiredSessions(t.Context(), cut); err != nil || n != 0 {
			t.Errorf("DeleteExpiredSessions(again): got %d, %v, want 0, nil", n, err)
		}
	})
}

package storetest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// runApp runs the part of the suite that covers fileframe.AppStore, what
// the web application needs of a store: sessions, account administration,
// file management, appearances and publishing an existing revision.
func runApp(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("Session", func(t *testing.T) { testSessions(t, newStore) })
	t.Run("AccountAdmin", func(t *testing.T) { testAccountAdmin(t, newStore) })
	t.Run("Appearance", func(t *testing.T) { testAppearances(t, newStore) })
	t.Run("FileManagement", func(t *testing.T) { testFileManagement(t, newStore) })
	t.Run("LiveRevision", func(t *testing.T) { testLiveRevision(t, newStore) })
	t.Run("FinishedUpload", func(t *testing.T) { testFinishedUploads(t, newStore) })
}

func testFinishedUploads(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("RecordUpload and UploadFile round trip; again is ECONFLICT", func(t *testing.T) {
		s, as := appStore(t, newStore)
		f := newFile(t, s, newAccount(t, s).ID)
		if _, err := as.UploadFile(t.Context(), "acct.u1"); !fileframe.IsNotFound(err) {
			t.Errorf("UploadFile before RecordUpload: %v, want ENOTFOUND", err)
		}
		if err := as.RecordUpload(t.Context(), "acct.u1", f.ID, stamp); err != nil {
			t.Fatalf("RecordUpload: %v", err)
		}
		if id, err := as.UploadFile(t.Context(), "acct.u1"); err != nil || id != f.ID {
			t.Errorf("UploadFile = %q, %v; want %q", id, err, f.ID)
		}
		if err := as.RecordUpload(t.Context(), "acct.u1", f.ID, stamp); fileframe.ErrorCode(err) != fileframe.ECONFLICT {
			t.Errorf("RecordUpload again: %v, want ECONFLICT", err)
		}
		if err := as.RecordUpload(t.Context(), "acct.u2", "f_missing", stamp); !fileframe.IsNotFound(err) {
			t.Errorf("RecordUpload of a missing file: %v, want ENOTFOUND", err)
		}
	})

	t.Run("deleting the file forgets its upload", func(t *testing.T) {
		s, as := appStore(t, newStore)
		f := newFile(t, s, newAccount(t, s).ID)
		if err := as.RecordUpload(t.Context(), "acct.gone", f.ID, stamp); err != nil {
			t.Fatalf("RecordUpload: %v", err)
		}
		if _, err := as.DeleteFile(t.Context(), f.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		if _, err := as.UploadFile(t.Context(), "acct.gone"); !fileframe.IsNotFound(err) {
			t.Errorf("UploadFile after DeleteFile: %v, want ENOTFOUND", err)
		}
	})

	t.Run("DeleteUploadRecords forgets records older than t", func(t *testing.T) {
		s, as := appStore(t, newStore)
		f := newFile(t, s, newAccount(t, s).ID)
		for i, at := range []time.Time{stamp, stamp.Add(time.Hour), stamp.Add(2 * time.Hour)} {
			if err := as.RecordUpload(t.Context(), fmt.Sprintf("acct.%d", i), f.ID, at); err != nil {
				t.Fatalf("RecordUpload: %v", err)
			}
		}
		n, err := as.DeleteUploadRecords(t.Context(), stamp.Add(90*time.Minute))
		if n != 2 || err != nil {
			t.Errorf("DeleteUploadRecords: %d, %v; want 2, nil", n, err)
		}
		if _, err := as.UploadFile(t.Context(), "acct.1"); !fileframe.IsNotFound(err) {
			t.Errorf("an old record is still there: %v", err)
		}
		if id, err := as.UploadFile(t.Context(), "acct.2"); err != nil || id != f.ID {
			t.Errorf("the newest record: %q, %v; want it kept", id, err)
		}
	})
}

// appStore returns a new store, and the same store as the
// fileframe.AppStore it embeds, so the tests say which part they drive.
func appStore(t *testing.T, newStore func(t *testing.T) fileframe.Store) (fileframe.Store, fileframe.AppStore) {
	t.Helper()
	s := newStore(t)
	return s, s
}

// newSession stores a session of the account, expiring in a day.
func newSession(t *testing.T, s fileframe.AppStore, account fileframe.AccountID) fileframe.Session {
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
func sessionGone(t *testing.T, s fileframe.AppStore, hash string, why string) {
	t.Helper()
	_, err := s.SessionByHash(t.Context(), hash)
	wantCode(t, "SessionByHash("+why+")", err, fileframe.ENOTFOUND)
}

// sessionThere fails the test unless the session exists.
func sessionThere(t *testing.T, s fileframe.AppStore, hash string, why string) {
	t.Helper()
	if _, err := s.SessionByHash(t.Context(), hash); err != nil {
		t.Errorf("SessionByHash(%s): got %v, want the session", why, err)
	}
}

func testSessions(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("CreateSession and SessionByHash return every field in UTC", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		want := fileframe.Session{
			Hash:       fileframe.HashKey("token"),
			AccountID:  a.ID,
			CreatedAt:  stamp,
			LastSeenAt: stamp.Add(time.Minute),
			ExpiresAt:  stamp.Add(30 * 24 * time.Hour),
		}
		if err := as.CreateSession(t.Context(), want); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		got, err := as.SessionByHash(t.Context(), want.Hash)
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
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		sess := fileframe.Session{Hash: "expired", AccountID: a.ID, CreatedAt: stamp, LastSeenAt: stamp, ExpiresAt: stamp.Add(time.Hour)}
		if err := as.CreateSession(t.Context(), sess); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		got, err := as.SessionByHash(t.Context(), "expired")
		if err != nil {
			t.Fatalf("SessionByHash(expired): %v", err)
		}
		if !got.ExpiresAt.Equal(ms(sess.ExpiresAt)) {
			t.Errorf("SessionByHash(expired): ExpiresAt got %v, want %v", got.ExpiresAt, ms(sess.ExpiresAt))
		}
	})

	t.Run("CreateSession for a missing account is ENOTFOUND", func(t *testing.T) {
		s, as := appStore(t, newStore)
		newAccount(t, s)
		err := as.CreateSession(t.Context(), fileframe.Session{Hash: "h", AccountID: "a_missing", CreatedAt: stamp, LastSeenAt: stamp, ExpiresAt: stamp})
		wantCode(t, "CreateSession(missing account)", err, fileframe.ENOTFOUND)
		sessionGone(t, as, "h", "after a failed create")
	})

	t.Run("SessionByHash of a missing session is ENOTFOUND", func(t *testing.T) {
		s, as := appStore(t, newStore)
		newSession(t, as, newAccount(t, s).ID)
		sessionGone(t, as, fileframe.HashKey("never stored"), "missing")
	})

	t.Run("TouchSession moves LastSeenAt and ExpiresAt", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		sess := newSession(t, as, a.ID)
		seen, expires := stamp.Add(time.Hour), stamp.Add(48*time.Hour)
		if err := as.TouchSession(t.Context(), sess.Hash, seen, expires); err != nil {
			t.Fatalf("TouchSession: %v", err)
		}
		got, err := as.SessionByHash(t.Context(), sess.Hash)
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
		_, as := appStore(t, newStore)
		err := as.TouchSession(t.Context(), "missing", stamp, stamp)
		wantCode(t, "TouchSession(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("DeleteSession ends one session; a missing one is not an error", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		one, other := newSession(t, as, a.ID), newSession(t, as, a.ID)
		if err := as.DeleteSession(t.Context(), one.Hash); err != nil {
			t.Fatalf("DeleteSession: %v", err)
		}
		sessionGone(t, as, one.Hash, "deleted")
		sessionThere(t, as, other.Hash, "another session of the account")
		if err := as.DeleteSession(t.Context(), one.Hash); err != nil {
			t.Errorf("DeleteSession(again): got %v, want nil", err)
		}
		if err := as.DeleteSession(t.Context(), "never stored"); err != nil {
			t.Errorf("DeleteSession(missing): got %v, want nil", err)
		}
	})

	t.Run("DeleteAccountSessions ends the account's sessions but the one kept", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a, b := newAccount(t, s), newAccount(t, s)
		keep, drop1, drop2 := newSession(t, as, a.ID), newSession(t, as, a.ID), newSession(t, as, a.ID)
		others := newSession(t, as, b.ID)
		if err := as.DeleteAccountSessions(t.Context(), a.ID, keep.Hash); err != nil {
			t.Fatalf("DeleteAccountSessions: %v", err)
		}
		sessionThere(t, as, keep.Hash, "kept")
		sessionGone(t, as, drop1.Hash, "ended")
		sessionGone(t, as, drop2.Hash, "ended")
		sessionThere(t, as, others.Hash, "another account's")

		// An empty keep ends them all.
		if err := as.DeleteAccountSessions(t.Context(), a.ID, ""); err != nil {
			t.Fatalf("DeleteAccountSessions(keep none): %v", err)
		}
		sessionGone(t, as, keep.Hash, "keep none")
		sessionThere(t, as, others.Hash, "another account's")

		// Keeping another account's session does not keep it from ending.
		if err := as.DeleteAccountSessions(t.Context(), a.ID, others.Hash); err != nil {
			t.Fatalf("DeleteAccountSessions(keep another's): %v", err)
		}
		sessionThere(t, as, others.Hash, "another account's, named as kept")
		if err := as.DeleteAccountSessions(t.Context(), "a_missing", ""); err != nil {
			t.Errorf("DeleteAccountSessions(missing account): got %v, want nil", err)
		}
	})

	t.Run("DeleteExpiredSessions removes sessions expired before t and counts them", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		cut := stamp
		for i, exp := range []time.Time{cut.Add(-time.Hour), cut.Add(-time.Millisecond), cut, cut.Add(time.Hour)} {
			sess := fileframe.Session{Hash: fmt.Sprintf("s%d", i), AccountID: a.ID, CreatedAt: cut.Add(-2 * time.Hour), LastSeenAt: cut.Add(-2 * time.Hour), ExpiresAt: exp}
			if err := as.CreateSession(t.Context(), sess); err != nil {
				t.Fatalf("CreateSession: %v", err)
			}
		}
		n, err := as.DeleteExpiredSessions(t.Context(), cut)
		if err != nil {
			t.Fatalf("DeleteExpiredSessions: %v", err)
		}
		if n != 2 {
			t.Errorf("DeleteExpiredSessions: got %d, want 2", n)
		}
		sessionGone(t, as, "s0", "expired an hour before")
		sessionGone(t, as, "s1", "expired a millisecond before")
		sessionThere(t, as, "s2", "expiring at t")
		sessionThere(t, as, "s3", "expiring after t")
		if n, err := as.DeleteExpiredSessions(t.Context(), cut); err != nil || n != 0 {
			t.Errorf("DeleteExpiredSessions(again): got %d, %v, want 0, nil", n, err)
		}
	})
}

func testAccountAdmin(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("CreateFirstAccount creates exactly one account among concurrent calls", func(t *testing.T) {
		_, as := appStore(t, newStore)
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = as.CreateFirstAccount(t.Context(), fileframe.Account{
					Email: fmt.Sprintf("admin%d@example.com", i), Plan: fileframe.PlanAgency, Admin: true, PasswordHash: "ph",
				})
			})
		}
		wg.Wait()
		created := 0
		for i, err := range errs {
			switch {
			case err == nil:
				created++
			case fileframe.ErrorCode(err) != fileframe.ECONFLICT:
				t.Errorf("CreateFirstAccount #%d: %v, want nil or ECONFLICT", i, err)
			}
		}
		if count, err := as.CountAccounts(t.Context()); created != 1 || count != 1 || err != nil {
			t.Errorf("%d calls created %d accounts; CountAccounts = %d, %v; want exactly 1", n, created, count, err)
		}
		// Once set up, it refuses even a single caller.
		if _, err := as.CreateFirstAccount(t.Context(), fileframe.Account{Email: "late@example.com", Plan: fileframe.PlanAgency, PasswordHash: "ph"}); fileframe.ErrorCode(err) != fileframe.ECONFLICT {
			t.Errorf("CreateFirstAccount after setup: %v, want ECONFLICT", err)
		}
	})

	t.Run("CountAccounts counts accounts, 0 when fresh", func(t *testing.T) {
		s, as := appStore(t, newStore)
		for want := range 4 {
			n, err := as.CountAccounts(t.Context())
			if err != nil {
				t.Fatalf("CountAccounts: %v", err)
			}
			if n != want {
				t.Errorf("CountAccounts: got %d, want %d", n, want)
			}
			newAccount(t, s)
		}
	})

	t.Run("ListAccounts lists oldest first with files and bytes", func(t *testing.T) {
		s, as := appStore(t, newStore)
		list, err := as.ListAccounts(t.Context())
		if err != nil {
			t.Fatalf("ListAccounts(fresh): %v", err)
		}
		if len(list) != 0 {
			t.Errorf("ListAccounts(fresh): got %d accounts, want none", len(list))
		}
		// Created out of order: the list follows CreatedAt.
		var accounts []fileframe.Account
		for _, c := range []struct {
			email string
			at    time.Time
		}{{"b@example.com", stamp.Add(time.Hour)}, {"a@example.com", stamp}, {"c@example.com", stamp.Add(2 * time.Hour)}} {
			a, err := s.CreateAccount(t.Context(), fileframe.Account{Email: c.email, Plan: fileframe.PlanPro, PasswordHash: "ph", CreatedAt: c.at})
			if err != nil {
				t.Fatalf("CreateAccount: %v", err)
			}
			accounts = append(accounts, a)
		}
		b, a, c := accounts[0], accounts[1], accounts[2]
		for _, f := range []struct {
			account fileframe.AccountID
			size    int64
		}{{a.ID, 10}, {a.ID, 1 << 40}, {a.ID, 0}, {c.ID, 7}} {
			if _, err := s.CreateFile(t.Context(), fileframe.File{AccountID: f.account, Name: "x", Size: f.size, BlobKey: "k"}); err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
		}
		list, err = as.ListAccounts(t.Context())
		if err != nil {
			t.Fatalf("ListAccounts: %v", err)
		}
		want := []fileframe.AccountUsage{
			{Account: a, Files: 3, Bytes: 10 + 1<<40},
			{Account: b, Files: 0, Bytes: 0},
			{Account: c, Files: 1, Bytes: 7},
		}
		if len(list) != len(want) {
			t.Fatalf("ListAccounts: got %d accounts, want %d", len(list), len(want))
		}
		for i := range want {
			got := list[i]
			got.CreatedAt = ms(got.CreatedAt)
			want[i].CreatedAt = ms(want[i].CreatedAt)
			if got != want[i] {
				t.Errorf("ListAccounts[%d]: got %+v, want %+v", i, got, want[i])
			}
		}
	})

	t.Run("ListAccounts orders accounts made in one millisecond as they were made", func(t *testing.T) {
		s, as := appStore(t, newStore)
		var ids []fileframe.AccountID
		for i := range 5 {
			// IDs in descending order, so that an order by ID would show.
			a, err := s.CreateAccount(t.Context(), fileframe.Account{ID: fileframe.AccountID(fmt.Sprintf("a_%d", 9-i)), Email: fmt.Sprintf("u%d@example.com", i), Plan: fileframe.PlanFree, CreatedAt: stamp})
			if err != nil {
				t.Fatalf("CreateAccount: %v", err)
			}
			ids = append(ids, a.ID)
		}
		list, err := as.ListAccounts(t.Context())
		if err != nil {
			t.Fatalf("ListAccounts: %v", err)
		}
		var got []fileframe.AccountID
		for _, u := range list {
			got = append(got, u.ID)
		}
		if !slices.Equal(got, ids) {
			t.Errorf("ListAccounts: IDs got %v, want %v", got, ids)
		}
	})

	t.Run("SetAccountPassword replaces the hash", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a, b := newAccount(t, s), newAccount(t, s)
		if err := as.SetAccountPassword(t.Context(), a.ID, "$argon2id$new"); err != nil {
			t.Fatalf("SetAccountPassword: %v", err)
		}
		got, err := s.AccountByID(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("AccountByID: %v", err)
		}
		if got.PasswordHash != "$argon2id$new" {
			t.Errorf("PasswordHash: got %q, want %q", got.PasswordHash, "$argon2id$new")
		}
		if got, err := s.AccountByID(t.Context(), b.ID); err != nil || got.PasswordHash != b.PasswordHash {
			t.Errorf("another account: PasswordHash got %q, %v, want %q", got.PasswordHash, err, b.PasswordHash)
		}
		err = as.SetAccountPassword(t.Context(), "a_missing", "x")
		wantCode(t, "SetAccountPassword(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("SetAccountDisabled disables and re-enables, keeping everything", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		k := newKey(t, s, a.ID, "")
		for _, disabled := range []bool{true, true, false} {
			if err := as.SetAccountDisabled(t.Context(), a.ID, disabled); err != nil {
				t.Fatalf("SetAccountDisabled(%v): %v", disabled, err)
			}
			got, err := s.AccountByID(t.Context(), a.ID)
			if err != nil {
				t.Fatalf("AccountByID: %v", err)
			}
			if got.Disabled != disabled {
				t.Errorf("after SetAccountDisabled(%v): Disabled got %v", disabled, got.Disabled)
			}
			if got.Plan != a.Plan || got.Email != a.Email {
				t.Errorf("after SetAccountDisabled(%v): got %+v, want only Disabled changed from %+v", disabled, got, a)
			}
			if _, err := s.FileByID(t.Context(), f.ID); err != nil {
				t.Errorf("FileByID of a disabled account's file: %v, want it kept", err)
			}
			if _, err := s.KeyByHash(t.Context(), k.Hash); err != nil {
				t.Errorf("KeyByHash of a disabled account's key: %v, want it kept", err)
			}
		}
		err := as.SetAccountDisabled(t.Context(), "a_missing", true)
		wantCode(t, "SetAccountDisabled(missing)", err, fileframe.ENOTFOUND)
	})
}

// fullAppearance returns an appearance with every field set, distinct by n.
func fullAppearance(n int) fileframe.Appearance {
	return fileframe.Appearance{
		Template:   fmt.Sprintf("template-%d", n),
		Headline:   fmt.Sprintf("Headline %d é ✓", n),
		Message:    fmt.Sprintf("A message\nover two lines, %d.", n),
		Accent:     fmt.Sprintf("#12345%d", n%10),
		LogoKey:    fmt.Sprintf("logo-%d", n),
		Background: fmt.Sprintf("background-%d", n),
	}
}

func testAppearances(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("account appearance: zero when none, round trip, replace, zero clears", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a, b := newAccount(t, s), newAccount(t, s)
		got, err := as.AccountAppearance(t.Context(), a.ID)
		if err != nil || !got.IsZero() {
			t.Errorf("AccountAppearance(none set): got %+v, %v, want the zero value, nil", got, err)
		}
		for _, want := range []fileframe.Appearance{fullAppearance(1), fullAppearance(2), {Template: "plain"}} {
			if err := as.SetAccountAppearance(t.Context(), a.ID, want); err != nil {
				t.Fatalf("SetAccountAppearance: %v", err)
			}
			if got, err := as.AccountAppearance(t.Context(), a.ID); err != nil || got != want {
				t.Errorf("AccountAppearance: got %+v, %v, want %+v", got, err, want)
			}
		}
		if got, err := as.AccountAppearance(t.Context(), b.ID); err != nil || !got.IsZero() {
			t.Errorf("AccountAppearance(another account): got %+v, %v, want the zero value", got, err)
		}
		if err := as.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{}); err != nil {
			t.Fatalf("SetAccountAppearance(zero): %v", err)
		}
		if got, err := as.AccountAppearance(t.Context(), a.ID); err != nil || !got.IsZero() {
			t.Errorf("AccountAppearance after clearing: got %+v, %v, want the zero value", got, err)
		}
		if err := as.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{}); err != nil {
			t.Errorf("SetAccountAppearance(zero, again): got %v, want nil", err)
		}
	})

	t.Run("account appearance of a missing account is ENOTFOUND", func(t *testing.T) {
		s, as := appStore(t, newStore)
		newAccount(t, s)
		err := as.SetAccountAppearance(t.Context(), "a_missing", fullAppearance(1))
		wantCode(t, "SetAccountAppearance(missing)", err, fileframe.ENOTFOUND)
		err = as.SetAccountAppearance(t.Context(), "a_missing", fileframe.Appearance{})
		wantCode(t, "SetAccountAppearance(missing, zero)", err, fileframe.ENOTFOUND)
		_, err = as.AccountAppearance(t.Context(), "a_missing")
		wantCode(t, "AccountAppearance(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("file appearance: zero when none, round trip, zero clears, apart from the account's", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		if err := as.SetAccountAppearance(t.Context(), a.ID, fullAppearance(9)); err != nil {
			t.Fatalf("SetAccountAppearance: %v", err)
		}
		got, err := as.FileAppearance(t.Context(), f.ID)
		if err != nil || !got.IsZero() {
			t.Errorf("FileAppearance(none set): got %+v, %v, want the zero value (the account's is not the file's)", got, err)
		}
		for _, want := range []fileframe.Appearance{fullAppearance(1), {Accent: "#ffffff"}} {
			if err := as.SetFileAppearance(t.Context(), f.ID, want); err != nil {
				t.Fatalf("SetFileAppearance: %v", err)
			}
			if got, err := as.FileAppearance(t.Context(), f.ID); err != nil || got != want {
				t.Errorf("FileAppearance: got %+v, %v, want %+v", got, err, want)
			}
		}
		if got, err := as.FileAppearance(t.Context(), g.ID); err != nil || !got.IsZero() {
			t.Errorf("FileAppearance(another file): got %+v, %v, want the zero value", got, err)
		}
		if got, err := as.AccountAppearance(t.Context(), a.ID); err != nil || got != fullAppearance(9) {
			t.Errorf("AccountAppearance after SetFileAppearance: got %+v, %v, want %+v", got, err, fullAppearance(9))
		}
		if err := as.SetFileAppearance(t.Context(), f.ID, fileframe.Appearance{}); err != nil {
			t.Fatalf("SetFileAppearance(zero): %v", err)
		}
		if got, err := as.FileAppearance(t.Context(), f.ID); err != nil || !got.IsZero() {
			t.Errorf("FileAppearance after clearing: got %+v, %v, want the zero value", got, err)
		}
	})

	t.Run("file appearance of a missing file is ENOTFOUND", func(t *testing.T) {
		s, as := appStore(t, newStore)
		newFile(t, s, newAccount(t, s).ID)
		err := as.SetFileAppearance(t.Context(), "f_missing", fullAppearance(1))
		wantCode(t, "SetFileAppearance(missing)", err, fileframe.ENOTFOUND)
		err = as.SetFileAppearance(t.Context(), "f_missing", fileframe.Appearance{})
		wantCode(t, "SetFileAppearance(missing, zero)", err, fileframe.ENOTFOUND)
		_, err = as.FileAppearance(t.Context(), "f_missing")
		wantCode(t, "FileAppearance(missing)", err, fileframe.ENOTFOUND)
	})
}

// listingIDs returns the IDs of the listed files, in order.
func listingIDs(list []fileframe.FileListing) []fileframe.FileID {
	var ids []fileframe.FileID
	for _, l := range list {
		ids = append(ids, l.ID)
	}
	return ids
}

func testFileManagement(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("FilesByAccount lists the account's files newest first with their page state and appearance", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a, b := newAccount(t, s), newAccount(t, s)
		list, err := as.FilesByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("FilesByAccount(no files): %v", err)
		}
		if list == nil || len(list) != 0 {
			t.Errorf("FilesByAccount(no files): got %#v, want an empty, non-nil list", list)
		}
		mk := func(account fileframe.AccountID, at time.Time) fileframe.File {
			f, err := s.CreateFile(t.Context(), fileframe.File{AccountID: account, Name: "n", Size: 3, ContentType: "text/plain", BlobKey: "k", CreatedAt: at})
			if err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
			return f
		}
		// Created out of order: the list follows CreatedAt.
		mid := mk(a.ID, stamp.Add(time.Hour))     // draft page: 2 revisions, none live
		old := mk(a.ID, stamp)                    // no page
		other := mk(b.ID, stamp.Add(3*time.Hour)) // another account's
		last := mk(a.ID, stamp.Add(2*time.Hour))  // published page: 2 revisions, 2 live
		savePage(t, s, mid.ID, pageHTML(1, 100), true)
		savePage(t, s, mid.ID, pageHTML(2, 100), false)
		savePage(t, s, last.ID, pageHTML(1, 100), false)
		savePage(t, s, last.ID, pageHTML(2, 100), true)
		savePage(t, s, other.ID, pageHTML(1, 100), true)
		if err := s.AddDownloads(t.Context(), map[fileframe.FileID]int64{last.ID: 4}); err != nil {
			t.Fatalf("AddDownloads: %v", err)
		}
		last.Downloads = 4
		look := fileframe.Appearance{Template: "bold", Headline: "H", Message: "M", Accent: "#112233", LogoKey: "lk", Background: "bk"}
		if err := as.SetFileAppearance(t.Context(), mid.ID, look); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		list, err = as.FilesByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("FilesByAccount: %v", err)
		}
		want := []fileframe.FileListing{
			{File: last, LatestRevision: 2, LiveRevision: 2},
			{File: mid, LatestRevision: 2, LiveRevision: 0, Appearance: look},
			{File: old, LatestRevision: 0, LiveRevision: 0},
		}
		if len(list) != len(want) {
			t.Fatalf("FilesByAccount: got files %v, want %v", listingIDs(list), listingIDs(want))
		}
		for i := range want {
			got := list[i]
			got.File = normFile(got.File)
			want[i].File = normFile(want[i].File)
			if got != want[i] {
				t.Errorf("FilesByAccount[%d]: got %+v, want %+v", i, got, want[i])
			}
		}
	})

	t.Run("FilesByAccount orders files made in one millisecond as they were made", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		var want []fileframe.FileID
		for i := range 5 {
			// IDs in ascending order, so that an order by ID would show.
			f, err := s.CreateFile(t.Context(), fileframe.File{ID: fileframe.FileID(fmt.Sprintf("f_%d", i)), AccountID: a.ID, Name: "n", CreatedAt: stamp})
			if err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
			want = append([]fileframe.FileID{f.ID}, want...)
		}
		list, err := as.FilesByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("FilesByAccount: %v", err)
		}
		if got := listingIDs(list); !slices.Equal(got, want) {
			t.Errorf("FilesByAccount: IDs got %v, want %v (newest first)", got, want)
		}
	})

	t.Run("FilesByAccount of a missing account is ENOTFOUND", func(t *testing.T) {
		s, as := appStore(t, newStore)
		newFile(t, s, newAccount(t, s).ID)
		_, err := as.FilesByAccount(t.Context(), "a_missing")
		wantCode(t, "FilesByAccount(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("RenameFile changes the name and nothing else", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		for _, name := range []string{"Annual report (final) é ✓.pdf", strings.Repeat("é", 127) + "x", "a"} {
			if err := as.RenameFile(t.Context(), f.ID, name); err != nil {
				t.Fatalf("RenameFile(%q): %v", name, err)
			}
			got, err := s.FileBySlug(t.Context(), f.Slug)
			if err != nil {
				t.Fatalf("FileBySlug: %v", err)
			}
			want := f
			want.Name = name
			if got, want := normFile(got), normFile(want); got != want {
				t.Errorf("after RenameFile(%q): got %+v, want %+v", name, got, want)
			}
		}
		if got, err := s.FileByID(t.Context(), g.ID); err != nil || got.Name != g.Name {
			t.Errorf("another file after RenameFile: Name got %q, %v, want %q", got.Name, err, g.Name)
		}
	})

	t.Run("RenameFile refuses a name that is empty, too long or has control characters", func(t *testing.T) {
		s, as := appStore(t, newStore)
		f := newFile(t, s, newAccount(t, s).ID)
		for _, name := range []string{
			"",
			strings.Repeat("a", 256),
			strings.Repeat("é", 128), // 256 bytes
			"a\x00b",
			"line\nbreak",
			"tab\there",
			"del\x7f",
			"c1\u0085",
			"bad \xff utf-8",
		} {
			err := as.RenameFile(t.Context(), f.ID, name)
			wantCode(t, fmt.Sprintf("RenameFile(%q)", name), err, fileframe.EINVALID)
		}
		if got, err := s.FileByID(t.Context(), f.ID); err != nil || got.Name != f.Name {
			t.Errorf("after refused renames: Name got %q, %v, want %q", got.Name, err, f.Name)
		}
	})

	t.Run("RenameFile of a missing file is ENOTFOUND", func(t *testing.T) {
		s, as := appStore(t, newStore)
		newFile(t, s, newAccount(t, s).ID)
		err := as.RenameFile(t.Context(), "f_missing", "x")
		wantCode(t, "RenameFile(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("DeleteFile removes the file, its page, revisions, appearance and page-bound keys", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		shared := pageHTML(1, 300)
		savePage(t, s, f.ID, shared, true)
		savePage(t, s, f.ID, pageHTML(2, 300), false)
		savePage(t, s, g.ID, shared, true) // the other file's page shares HTML
		if err := as.SetFileAppearance(t.Context(), f.ID, fullAppearance(1)); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		if err := as.SetFileAppearance(t.Context(), g.ID, fullAppearance(2)); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		bound := newKey(t, s, a.ID, f.ID)
		boundG := newKey(t, s, a.ID, g.ID)
		general := newKey(t, s, a.ID, "")

		got, err := as.DeleteFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		if got, want := normFile(got), normFile(f); got != want {
			t.Errorf("DeleteFile: returned %+v, want the deleted file %+v", got, want)
		}
		_, err = s.FileByID(t.Context(), f.ID)
		wantCode(t, "FileByID(deleted)", err, fileframe.ENOTFOUND)
		_, err = s.FileBySlug(t.Context(), f.Slug)
		wantCode(t, "FileBySlug(deleted)", err, fileframe.ENOTFOUND)
		_, err = s.PageByFile(t.Context(), f.ID)
		wantCode(t, "PageByFile(deleted)", err, fileframe.ENOTFOUND)
		_, err = s.Revisions(t.Context(), f.ID)
		wantCode(t, "Revisions(deleted)", err, fileframe.ENOTFOUND)
		for _, n := range []int{1, 2} {
			_, err = s.Revision(t.Context(), f.ID, n)
			wantCode(t, fmt.Sprintf("Revision(deleted, %d)", n), err, fileframe.ENOTFOUND)
		}
		_, err = as.FileAppearance(t.Context(), f.ID)
		wantCode(t, "FileAppearance(deleted)", err, fileframe.ENOTFOUND)
		_, err = s.KeyByHash(t.Context(), bound.Hash)
		wantCode(t, "KeyByHash(page-bound key of the deleted file)", err, fileframe.ENOTFOUND)
		keys, err := s.KeysByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("KeysByAccount: %v", err)
		}
		var kept []fileframe.KeyID
		for _, k := range keys {
			kept = append(kept, k.ID)
		}
		slices.Sort(kept)
		wantKept := []fileframe.KeyID{boundG.ID, general.ID}
		slices.Sort(wantKept)
		if !slices.Equal(kept, wantKept) {
			t.Errorf("KeysByAccount after DeleteFile: got %v, want %v (the general key and the other file's)", kept, wantKept)
		}

		// The other file keeps everything, the shared HTML included.
		if _, err := s.FileByID(t.Context(), g.ID); err != nil {
			t.Errorf("FileByID(other file): %v", err)
		}
		r, err := s.Revision(t.Context(), g.ID, 1)
		if err != nil {
			t.Fatalf("Revision(other file, 1): %v", err)
		}
		if string(r.HTML) != string(shared) {
			t.Errorf("Revision(other file, 1): HTML got %d bytes, want the %d shared bytes", len(r.HTML), len(shared))
		}
		if got, err := as.FileAppearance(t.Context(), g.ID); err != nil || got != fullAppearance(2) {
			t.Errorf("FileAppearance(other file): got %+v, %v, want %+v", got, err, fullAppearance(2))
		}
		list, err := as.FilesByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("FilesByAccount: %v", err)
		}
		if got := listingIDs(list); !slices.Equal(got, []fileframe.FileID{g.ID}) {
			t.Errorf("FilesByAccount after DeleteFile: got %v, want [%s]", got, g.ID)
		}

		// The ID can be used again; the new file starts with nothing.
		again, err := s.CreateFile(t.Context(), fileframe.File{ID: f.ID, AccountID: a.ID, Name: "again"})
		if err != nil {
			t.Fatalf("CreateFile(the deleted file's ID): %v", err)
		}
		if p := savePage(t, s, again.ID, pageHTML(3, 100), false); p.LatestRevision != 1 {
			t.Errorf("SavePage on a file made with a deleted file's ID: LatestRevision got %d, want 1", p.LatestRevision)
		}
		if got, err := as.FileAppearance(t.Context(), again.ID); err != nil || !got.IsZero() {
			t.Errorf("FileAppearance(new file with a deleted file's ID): got %+v, %v, want the zero value", got, err)
		}
	})

	t.Run("DeleteFile of a missing file is ENOTFOUND", func(t *testing.T) {
		s, as := appStore(t, newStore)
		f := newFile(t, s, newAccount(t, s).ID)
		_, err := as.DeleteFile(t.Context(), "f_missing")
		wantCode(t, "DeleteFile(missing)", err, fileframe.ENOTFOUND)
		if _, err := as.DeleteFile(t.Context(), f.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		_, err = as.DeleteFile(t.Context(), f.ID)
		wantCode(t, "DeleteFile(twice)", err, fileframe.ENOTFOUND)
	})

	t.Run("BlobInUse follows files and appearance images", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		inUse := func(key string, want bool, why string) {
			t.Helper()
			got, err := as.BlobInUse(t.Context(), key)
			if err != nil {
				t.Fatalf("BlobInUse(%s): %v", why, err)
			}
			if got != want {
				t.Errorf("BlobInUse(%s): got %v, want %v", why, got, want)
			}
		}
		mk := func(blob string) fileframe.File {
			f, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: "n", BlobKey: blob})
			if err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
			return f
		}
		inUse("never", false, "a key nothing refers to")
		inUse("", false, "the empty key")

		only := mk("only")
		inUse("only", true, "the blob of one file")
		if _, err := as.DeleteFile(t.Context(), only.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		inUse("only", false, "after deleting its only file")

		one, two := mk("shared"), mk("shared")
		if _, err := as.DeleteFile(t.Context(), one.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		inUse("shared", true, "a blob of two files after deleting one")
		if _, err := as.DeleteFile(t.Context(), two.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		inUse("shared", false, "a blob of two files after deleting both")

		// Appearance images: the account's and a file's, logo and background.
		f := mk("file-blob")
		if err := as.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{Template: "t", LogoKey: "acct-logo", Background: "acct-bg"}); err != nil {
			t.Fatalf("SetAccountAppearance: %v", err)
		}
		if err := as.SetFileAppearance(t.Context(), f.ID, fileframe.Appearance{Template: "t", LogoKey: "file-logo", Background: "file-bg"}); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		for _, key := range []string{"acct-logo", "acct-bg", "file-logo", "file-bg"} {
			inUse(key, true, "appearance image "+key)
		}
		if err := as.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{Template: "t", LogoKey: "acct-logo"}); err != nil {
			t.Fatalf("SetAccountAppearance: %v", err)
		}
		inUse("acct-bg", false, "an account background replaced by none")
		inUse("acct-logo", true, "an account logo kept")
		if err := as.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{}); err != nil {
			t.Fatalf("SetAccountAppearance(zero): %v", err)
		}
		inUse("acct-logo", false, "an account logo after clearing the appearance")
		if _, err := as.DeleteFile(t.Context(), f.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		inUse("file-logo", false, "a file's logo after deleting the file")
		inUse("file-bg", false, "a file's background after deleting the file")
		inUse("file-blob", false, "a file's blob after deleting the file")

		// One image used by a file's appearance and as a file's bytes.
		g := mk("both")
		h := mk("h")
		if err := as.SetFileAppearance(t.Context(), h.ID, fileframe.Appearance{Template: "t", Background: "both"}); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		if _, err := as.DeleteFile(t.Context(), g.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		inUse("both", true, "a file's blob that another file's appearance uses")
	})
}

// revisionOf returns the file's revision number n, failing the test when it
// is not kept.
func revisionOf(t *testing.T, s fileframe.Store, id fileframe.FileID, n int) fileframe.Revision {
	t.Helper()
	r, err := s.Revision(t.Context(), id, n)
	if err != nil {
		t.Fatalf("Revision(%d): %v", n, err)
	}
	return r
}

func testLiveRevision(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("SetLiveRevision publishes an older revision without storing one", func(t *testing.T) {
		s, as := appStore(t, newStore)
		f := newFile(t, s, newAccount(t, s).ID)
		for n := 1; n <= 3; n++ {
			savePage(t, s, f.ID, pageHTML(n, 100), false)
		}
		at := stamp
		p, err := as.SetLiveRevision(t.Context(), f.ID, 2, at)
		if err != nil {
			t.Fatalf("SetLiveRevision(2): %v", err)
		}
		want := fileframe.Page{FileID: f.ID, LatestRevision: 3, LiveRevision: 2, UpdatedAt: ms(at)}
		if p.UpdatedAt = ms(p.UpdatedAt); p != want {
			t.Errorf("SetLiveRevision(2): got %+v, want %+v", p, want)
		}
		got, err := s.PageByFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("PageByFile: %v", err)
		}
		if got.UpdatedAt = ms(got.UpdatedAt); got != want {
			t.Errorf("PageByFile: got %+v, want %+v", got, want)
		}
		if r := revisionOf(t, s, f.ID, 2); !ms(r.PublishedAt).Equal(ms(at)) || r.PublishedAt.Location() != time.UTC {
			t.Errorf("Revision(2): PublishedAt got %v, want %v in UTC", r.PublishedAt, ms(at))
		}
		for _, n := range []int{1, 3} {
			if r := revisionOf(t, s, f.ID, n); !r.PublishedAt.IsZero() {
				t.Errorf("Revision(%d): PublishedAt got %v, want zero (never published)", n, r.PublishedAt)
			}
		}
		if got := revisionNumbers(t, s, f.ID); !slices.Equal(got, []int{3, 2, 1}) {
			t.Errorf("Revisions: numbers got %v, want [3 2 1] (no revision stored)", got)
		}
		// The next write numbers after the latest, not the live one.
		if p := savePage(t, s, f.ID, pageHTML(4, 100), false); p.LatestRevision != 4 || p.LiveRevision != 0 {
			t.Errorf("SavePage after SetLiveRevision: LatestRevision, LiveRevision got %d, %d, want 4, 0", p.LatestRevision, p.LiveRevision)
		}
	})

	t.Run("SetLiveRevision of a published revision keeps its first PublishedAt", func(t *testing.T) {
		s, as := appStore(t, newStore)
		f := newFile(t, s, newAccount(t, s).ID)
		if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: pageHTML(1, 100), Publish: true, At: stamp}); err != nil {
			t.Fatalf("SavePage: %v", err)
		}
		savePage(t, s, f.ID, pageHTML(2, 100), true)
		p, err := as.SetLiveRevision(t.Context(), f.ID, 1, stamp.Add(time.Hour))
		if err != nil {
			t.Fatalf("SetLiveRevision(1): %v", err)
		}
		if p.LiveRevision != 1 || p.LatestRevision != 2 {
			t.Errorf("SetLiveRevision(1): LatestRevision, LiveRevision got %d, %d, want 2, 1", p.LatestRevision, p.LiveRevision)
		}
		if r := revisionOf(t, s, f.ID, 1); !ms(r.PublishedAt).Equal(ms(stamp)) {
			t.Errorf("Revision(1): PublishedAt got %v, want the first publication %v", r.PublishedAt, ms(stamp))
		}
	})

	t.Run("SetLiveRevision 0 unpublishes, and again is harmless", func(t *testing.T) {
		s, as := appStore(t, newStore)
		f := newFile(t, s, newAccount(t, s).ID)
		savePage(t, s, f.ID, pageHTML(1, 100), true)
		savePage(t, s, f.ID, pageHTML(2, 100), true)
		for range 2 {
			p, err := as.SetLiveRevision(t.Context(), f.ID, 0, stamp)
			if err != nil {
				t.Fatalf("SetLiveRevision(0): %v", err)
			}
			if p.LiveRevision != 0 || p.LatestRevision != 2 || p.Published() {
				t.Errorf("SetLiveRevision(0): LatestRevision, LiveRevision got %d, %d, want 2, 0", p.LatestRevision, p.LiveRevision)
			}
			got, err := s.PageByFile(t.Context(), f.ID)
			if err != nil {
				t.Fatalf("PageByFile: %v", err)
			}
			if got.LiveRevision != 0 || got.LatestRevision != 2 || !ms(got.UpdatedAt).Equal(ms(stamp)) {
				t.Errorf("PageByFile after SetLiveRevision(0): got %+v, want latest 2, live 0, updated %v", got, ms(stamp))
			}
		}
		// Revisions stay, with their publication times.
		if r := revisionOf(t, s, f.ID, 2); r.PublishedAt.IsZero() {
			t.Errorf("Revision(2) after unpublishing: PublishedAt got zero, want the time it was published")
		}
	})

	t.Run("SetLiveRevision of an unknown revision or page is ENOTFOUND and changes nothing", func(t *testing.T) {
		s, as := appStore(t, newStore)
		a := newAccount(t, s)
		f, bare := newFile(t, s, a.ID), newFile(t, s, a.ID)
		savePage(t, s, f.ID, pageHTML(1, 100), true)
		savePage(t, s, f.ID, pageHTML(2, 100), false)
		for _, n := range []int{3, 100, -1} {
			_, err := as.SetLiveRevision(t.Context(), f.ID, n, stamp)
			wantCode(t, fmt.Sprintf("SetLiveRevision(%d)", n), err, fileframe.ENOTFOUND)
		}
		p, err := s.PageByFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("PageByFile: %v", err)
		}
		if p.LatestRevision != 2 || p.LiveRevision != 0 {
			t.Errorf("PageByFile after refused SetLiveRevision: LatestRevision, LiveRevision got %d, %d, want 2, 0", p.LatestRevision, p.LiveRevision)
		}
		for _, n := range []int{0, 1} {
			_, err := as.SetLiveRevision(t.Context(), bare.ID, n, stamp)
			wantCode(t, fmt.Sprintf("SetLiveRevision(file without a page, %d)", n), err, fileframe.ENOTFOUND)
			_, err = as.SetLiveRevision(t.Context(), "f_missing", n, stamp)
			wantCode(t, fmt.Sprintf("SetLiveRevision(missing file, %d)", n), err, fileframe.ENOTFOUND)
		}
		_, err = s.PageByFile(t.Context(), bare.ID)
		wantCode(t, "PageByFile(file without a page) after SetLiveRevision", err, fileframe.ENOTFOUND)
	})

	t.Run("SetLiveRevision of a pruned revision is ENOTFOUND", func(t *testing.T) {
		s, as := appStore(t, newStore)
		f := newFile(t, s, newAccount(t, s).ID)
		total := fileframe.RevisionsKept + 3
		for n := 1; n <= total; n++ {
			savePage(t, s, f.ID, pageHTML(n, 100), false)
		}
		for _, n := range []int{1, total - fileframe.RevisionsKept} {
			_, err := as.SetLiveRevision(t.Context(), f.ID, n, stamp)
			wantCode(t, fmt.Sprintf("SetLiveRevision(pruned %d)", n), err, fileframe.ENOTFOUND)
		}
		oldest := total - fileframe.RevisionsKept + 1
		if p, err := as.SetLiveRevision(t.Context(), f.ID, oldest, stamp); err != nil || p.LiveRevision != oldest {
			t.Errorf("SetLiveRevision(oldest kept %d): got %+v, %v, want it live", oldest, p, err)
		}
	})

	t.Run("a revision made live by SetLiveRevision survives later pruning", func(t *testing.T) {
		s, as := appStore(t, newStore)
		f := newFile(t, s, newAccount(t, s).ID)
		for n := 1; n <= 3; n++ {
			savePage(t, s, f.ID, pageHTML(n, 100), false)
		}
		if _, err := as.SetLiveRevision(t.Context(), f.ID, 2, stamp); err != nil {
			t.Fatalf("SetLiveRevision(2): %v", err)
		}
		// Unpublished again, it was still published once, so it is kept.
		if _, err := as.SetLiveRevision(t.Context(), f.ID, 0, stamp); err != nil {
			t.Fatalf("SetLiveRevision(0): %v", err)
		}
		total := 3 + fileframe.RevisionsKept + 5
		for n := 4; n <= total; n++ {
			savePage(t, s, f.ID, pageHTML(n, 100), false)
		}
		want := append(span(total, total-fileframe.RevisionsKept+1), 2)
		if got := revisionNumbers(t, s, f.ID); !slices.Equal(got, want) {
			t.Errorf("Revisions: numbers got %v, want %v", got, want)
		}
		r := revisionOf(t, s, f.ID, 2)
		if string(r.HTML) != string(pageHTML(2, 100)) || r.PublishedAt.IsZero() {
			t.Errorf("Revision(2): got %d bytes published at %v, want the stored HTML with its publication time", len(r.HTML), r.PublishedAt)
		}
		if p, err := as.SetLiveRevision(t.Context(), f.ID, 2, stamp.Add(time.Hour)); err != nil || p.LiveRevision != 2 || p.LatestRevision != total {
			t.Errorf("SetLiveRevision(2) after pruning: got %+v, %v, want live 2, latest %d", p, err, total)
		}
	})
}

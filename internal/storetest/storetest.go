// Package storetest is the conformance suite of fileframe.Store: every
// implementation (internal/sqlite, internal/postgres) calls Run from its own
// tests, and must pass it unchanged. The suite drives stores only through the
// interface, so what it checks is the contract the rest of Fileframe relies
// on.
package storetest

import (
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Run runs the conformance suite. newStore must return a new, empty, open
// store for the test it is given, and close it when that test ends (with
// t.Cleanup); every subtest gets its own.
func Run(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	// One file per entity, as in the stores (account.go, file.go, …).
	t.Run("Account", func(t *testing.T) { testAccounts(t, newStore) })
	t.Run("AccountAdmin", func(t *testing.T) { testAccountAdmin(t, newStore) })
	t.Run("Appearance", func(t *testing.T) { testAppearances(t, newStore) })
	t.Run("File", func(t *testing.T) { testFiles(t, newStore) })
	t.Run("ListFiles", func(t *testing.T) { testListFiles(t, newStore) })
	t.Run("SameHTML", func(t *testing.T) { testSameHTML(t, newStore) })
	t.Run("FileManagement", func(t *testing.T) { testFileManagement(t, newStore) })
	t.Run("Key", func(t *testing.T) { testKeys(t, newStore) })
	t.Run("Page", func(t *testing.T) { testPages(t, newStore) })
	t.Run("LiveRevision", func(t *testing.T) { testLiveRevision(t, newStore) })
	t.Run("PageAsset", func(t *testing.T) { testAssets(t, newStore) })
	t.Run("Preview", func(t *testing.T) { testPreviews(t, newStore) })
	t.Run("Session", func(t *testing.T) { testSessions(t, newStore) })
	t.Run("Reservation", func(t *testing.T) { testReservations(t, newStore) })
	t.Run("FinishedUpload", func(t *testing.T) { testFinishedUploads(t, newStore) })
	t.Run("Link", func(t *testing.T) { testLinks(t, newStore) })
	t.Run("Collection", func(t *testing.T) { testCollections(t, newStore) })
	t.Run("Request", func(t *testing.T) { testRequests(t, newStore) })
	t.Run("Webhook", func(t *testing.T) { testWebhooks(t, newStore) })
	t.Run("Stats", func(t *testing.T) { testStats(t, newStore) })
	t.Run("Idempotency", func(t *testing.T) { testIdempotency(t, newStore) })
	t.Run("Secret", func(t *testing.T) { testSecrets(t, newStore) })
	t.Run("Time", func(t *testing.T) { testTimes(t, newStore) })
	t.Run("Ping succeeds", func(t *testing.T) {
		s := newStore(t)
		if err := s.Ping(t.Context()); err != nil {
			t.Errorf("Ping: got %v, want nil", err)
		}
	})
}

// stamp is an instant with sub-millisecond digits in a zone other than UTC:
// stores must return it in UTC and keep at least its milliseconds. Its
// microseconds are far from a millisecond boundary, so a store that rounds to
// the microsecond still has the same millisecond.
var stamp = time.Date(2025, time.March, 14, 15, 9, 26, 535_897_932, time.FixedZone("UTC+05:30", 5*3600+30*60))

// ms returns t as a store must at least keep it: UTC, truncated to the
// millisecond. The zero time stays zero.
func ms(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.Truncate(time.Millisecond).UTC()
}

// wantCode fails the test unless err carries the code (as a *fileframe.Error
// in its chain).
func wantCode(t *testing.T, call string, err error, code string) {
	t.Helper()
	if got := fileframe.ErrorCode(err); got != code {
		t.Errorf("%s: error code got %q (error %v), want %q", call, got, err, code)
	}
}

// wantRecent fails the test unless tm is a time a store set during the test:
// not zero, in UTC, and close to now.
func wantRecent(t *testing.T, what string, tm time.Time, before time.Time) {
	t.Helper()
	if tm.IsZero() {
		t.Errorf("%s: got the zero time, want the time of the call", what)
		return
	}
	if got := tm.Location(); got != time.UTC {
		t.Errorf("%s: location got %v, want UTC", what, got)
	}
	if tm.Before(before.Add(-time.Second)) || tm.After(time.Now().Add(time.Second)) {
		t.Errorf("%s: got %v, want the time of the call (about %v)", what, tm, before.UTC())
	}
}

// newAccount creates an account on the Agency plan with a unique email.
func newAccount(t *testing.T, s fileframe.Store) fileframe.Account {
	t.Helper()
	a, err := s.CreateAccount(t.Context(), fileframe.Account{
		Email: fileframe.RandomBase62(10) + "@example.com",
		Plan:  fileframe.PlanAgency,
	})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

// newFile creates a file of the account.
func newFile(t *testing.T, s fileframe.Store, a fileframe.AccountID) fileframe.File {
	t.Helper()
	f, err := s.CreateFile(t.Context(), fileframe.File{
		AccountID:   a,
		Name:        "report.pdf",
		Size:        1234,
		ContentType: "application/pdf",
		BlobKey:     "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}
	return f
}

// newKey creates an API key of the account: page-bound when file is set,
// general otherwise.
func newKey(t *testing.T, s fileframe.Store, a fileframe.AccountID, file fileframe.FileID) fileframe.Key {
	t.Helper()
	kind := fileframe.KeyGeneral
	if file != "" {
		kind = fileframe.KeyPage
	}
	_, hash, prefix := fileframe.NewKeySecret(kind)
	k, err := s.CreateKey(t.Context(), fileframe.Key{
		AccountID: a, Kind: kind, FileID: file, Name: "agent", Hash: hash, Prefix: prefix,
	})
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	return k
}

package storetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func testFinishedUploads(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("RecordUpload and UploadFile round trip; again is ECONFLICT", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		if _, err := s.UploadFile(t.Context(), "acct.u1"); !fileframe.IsNotFound(err) {
			t.Errorf("UploadFile before RecordUpload: %v, want ENOTFOUND", err)
		}
		if err := s.RecordUpload(t.Context(), "acct.u1", f.ID, stamp); err != nil {
			t.Fatalf("RecordUpload: %v", err)
		}
		if id, err := s.UploadFile(t.Context(), "acct.u1"); err != nil || id != f.ID {
			t.Errorf("UploadFile = %q, %v; want %q", id, err, f.ID)
		}
		if err := s.RecordUpload(t.Context(), "acct.u1", f.ID, stamp); fileframe.ErrorCode(err) != fileframe.ECONFLICT {
			t.Errorf("RecordUpload again: %v, want ECONFLICT", err)
		}
		if err := s.RecordUpload(t.Context(), "acct.u2", "f_missing", stamp); !fileframe.IsNotFound(err) {
			t.Errorf("RecordUpload of a missing file: %v, want ENOTFOUND", err)
		}
	})

	t.Run("CreateFileReserved and CreateRequestFile record their upload in the same step", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		now := time.Date(2026, time.November, 24, 12, 0, 0, 0, time.UTC)
		if _, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "acct.up", AccountID: a.ID, Bytes: 10, ExpiresAt: now.Add(time.Hour)},
			fileframe.Quota{Storage: 100}, now); err != nil {
			t.Fatalf("Reserve: %v", err)
		}
		f, err := s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: "a", Size: 10, BlobKey: "k"}, "acct.up", "acct.up+mp", fileframe.Quota{Storage: 100}, now)
		if err != nil {
			t.Fatalf("CreateFileReserved with an upload: %v", err)
		}
		if id, err := s.UploadFile(t.Context(), "acct.up+mp"); err != nil || id != f.ID {
			t.Errorf("UploadFile = %q, %v; want %q", id, err, f.ID)
		}
		// A second finish of the same upload (another instance, or one
		// after a crash) stores nothing, even where the quota is full,
		// and the reservation it names stays.
		if _, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "acct.other", AccountID: a.ID, Bytes: 90, ExpiresAt: now.Add(time.Hour)},
			fileframe.Quota{Storage: 100}, now); err != nil {
			t.Fatalf("Reserve: %v", err)
		}
		_, err = s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: "a", Size: 10, BlobKey: "k"}, "acct.other", "acct.up+mp", fileframe.Quota{Storage: 100}, now)
		if fileframe.ErrorCode(err) != fileframe.ECONFLICT {
			t.Errorf("CreateFileReserved of a recorded upload: %v, want ECONFLICT", err)
		}
		if list, err := s.FilesByAccount(t.Context(), a.ID); err != nil || len(list) != 1 {
			t.Errorf("files after the second finish: %d, %v; want 1", len(list), err)
		}
		if _, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "acct.third", AccountID: a.ID, Bytes: 1, ExpiresAt: now.Add(time.Hour)},
			fileframe.Quota{Storage: 100}, now); fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
			t.Errorf("Reserve beside the kept reservation: %v, want %s", err, fileframe.CodeQuotaExceeded)
		}
		// A refused file records nothing.
		_, err = s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: "b", Size: 500, BlobKey: "k"}, "", "acct.big", fileframe.Quota{Storage: 100}, now)
		if fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
			t.Errorf("CreateFileReserved over the quota: %v, want %s", err, fileframe.CodeQuotaExceeded)
		}
		if _, err := s.UploadFile(t.Context(), "acct.big"); !fileframe.IsNotFound(err) {
			t.Errorf("UploadFile of a refused upload: %v, want ENOTFOUND", err)
		}

		r := newRequest(t, s, a.ID, 10, 1000)
		rf := fileframe.RequestFile{RequestID: r.ID, VisitID: "v"}
		got, err := s.CreateRequestFile(t.Context(), receivedFile(r, 5), rf, "", "acct.sent", fileframe.Quota{}, now)
		if err != nil {
			t.Fatalf("CreateRequestFile with an upload: %v", err)
		}
		if id, err := s.UploadFile(t.Context(), "acct.sent"); err != nil || id != got.ID {
			t.Errorf("UploadFile = %q, %v; want %q", id, err, got.ID)
		}
		if _, err := s.CreateRequestFile(t.Context(), receivedFile(r, 5), rf, "", "acct.sent", fileframe.Quota{}, now); fileframe.ErrorCode(err) != fileframe.ECONFLICT {
			t.Errorf("CreateRequestFile of a recorded upload: %v, want ECONFLICT", err)
		}
		if files, err := s.ReceivedFiles(t.Context(), r.ID, ""); err != nil || len(files) != 1 {
			t.Errorf("received files after the second finish: %d, %v; want 1", len(files), err)
		}
	})

	t.Run("deleting the file forgets its upload", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		if err := s.RecordUpload(t.Context(), "acct.gone", f.ID, stamp); err != nil {
			t.Fatalf("RecordUpload: %v", err)
		}
		if _, err := s.DeleteFile(t.Context(), f.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		if _, err := s.UploadFile(t.Context(), "acct.gone"); !fileframe.IsNotFound(err) {
			t.Errorf("UploadFile after DeleteFile: %v, want ENOTFOUND", err)
		}
	})

	t.Run("DeleteUploadRecords forgets records older than t", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		for i, at := range []time.Time{stamp, stamp.Add(time.Hour), stamp.Add(2 * time.Hour)} {
			if err := s.RecordUpload(t.Context(), fmt.Sprintf("acct.%d", i), f.ID, at); err != nil {
				t.Fatalf("RecordUpload: %v", err)
			}
		}
		n, err := s.DeleteUploadRecords(t.Context(), stamp.Add(90*time.Minute))
		if n != 2 || err != nil {
			t.Errorf("DeleteUploadRecords: %d, %v; want 2, nil", n, err)
		}
		if _, err := s.UploadFile(t.Context(), "acct.1"); !fileframe.IsNotFound(err) {
			t.Errorf("an old record is still there: %v", err)
		}
		if id, err := s.UploadFile(t.Context(), "acct.2"); err != nil || id != f.ID {
			t.Errorf("the newest record: %q, %v; want it kept", id, err)
		}
	})
}

func testReservations(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	now := time.Date(2026, time.November, 24, 12, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)
	reserve := func(t *testing.T, s fileframe.Store, a fileframe.AccountID, id string, n, limit int64) (int64, error) {
		t.Helper()
		return s.Reserve(t.Context(), fileframe.Reservation{ID: id, AccountID: a, Bytes: n, ExpiresAt: later}, fileframe.Quota{Storage: limit}, now)
	}

	t.Run("Reserve counts files and other reservations against the limit", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		other := newAccount(t, s)
		if _, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: "a", Size: 300, BlobKey: "k"}); err != nil {
			t.Fatal(err)
		}
		if _, err := reserve(t, s, other.ID, "o1", 900, 1000); err != nil {
			t.Fatalf("another account's reservation: %v", err)
		}
		used, err := reserve(t, s, a.ID, "r1", 500, 1000)
		if err != nil || used != 300 {
			t.Fatalf("Reserve 500 of 1000 with 300 used: got used %d, %v; want 300, nil", used, err)
		}
		used, err = reserve(t, s, a.ID, "r2", 201, 1000)
		wantCode(t, "Reserve 201 with 800 used", err, fileframe.CodeQuotaExceeded)
		if used != 800 {
			t.Errorf("Reserve over the limit: used got %d, want 800", used)
		}
		if _, err := reserve(t, s, a.ID, "r2", 200, 1000); err != nil {
			t.Errorf("Reserve 200 with 800 used: %v", err)
		}
		// Growing a reservation replaces it: its own bytes do not count twice.
		if _, err := reserve(t, s, a.ID, "r1", 499, 1000); err != nil {
			t.Errorf("Reserve r1 again, smaller: %v", err)
		}
		if _, err := reserve(t, s, a.ID, "r1", 501, 1000); fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
			t.Errorf("Reserve r1 again, over: got %v, want quota_exceeded", err)
		}
		// A limit ≤ 0 is unlimited.
		if _, err := reserve(t, s, a.ID, "r3", 1<<50, 0); err != nil {
			t.Errorf("Reserve without a limit: %v", err)
		}
	})

	t.Run("released and expired reservations no longer count", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		if _, err := reserve(t, s, a.ID, "r1", 600, 1000); err != nil {
			t.Fatal(err)
		}
		if err := s.ReleaseReservation(t.Context(), "r1"); err != nil {
			t.Fatalf("ReleaseReservation: %v", err)
		}
		if err := s.ReleaseReservation(t.Context(), "r1"); err != nil {
			t.Errorf("ReleaseReservation of a missing one: got %v, want nil", err)
		}
		if _, err := reserve(t, s, a.ID, "r2", 1000, 1000); err != nil {
			t.Fatalf("Reserve after the release: %v", err)
		}
		// At its expiry a reservation stops counting.
		if _, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "r3", AccountID: a.ID, Bytes: 1000, ExpiresAt: later}, fileframe.Quota{Storage: 1000}, later); err != nil {
			t.Errorf("Reserve when the other has expired: %v", err)
		}
		n, err := s.DeleteExpiredReservations(t.Context(), later.Add(time.Millisecond))
		if err != nil || n != 2 {
			t.Errorf("DeleteExpiredReservations: got %d, %v; want 2", n, err)
		}
	})

	t.Run("Reserve refuses what it cannot hold", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		_, err := reserve(t, s, "a_missing", "r", 1, 0)
		wantCode(t, "Reserve for a missing account", err, fileframe.ENOTFOUND)
		_, err = reserve(t, s, a.ID, "", 1, 0)
		wantCode(t, "Reserve without an ID", err, fileframe.EINVALID)
		_, err = reserve(t, s, a.ID, "r", -1, 0)
		wantCode(t, "Reserve of a negative size", err, fileframe.EINVALID)
	})

	t.Run("CreateFileReserved turns a reservation into a file within the limit", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		if _, err := reserve(t, s, a.ID, "r1", 600, 1000); err != nil {
			t.Fatal(err)
		}
		f, err := s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: "a", Size: 550, BlobKey: "k"}, "r1", "", fileframe.Quota{Storage: 1000}, now)
		if err != nil {
			t.Fatalf("CreateFileReserved: %v", err)
		}
		if got, err := s.FileByID(t.Context(), f.ID); err != nil || got.Size != 550 {
			t.Errorf("FileByID: got %+v, %v", got, err)
		}
		// The reservation is gone: 450 bytes are left, not 450-600.
		if used, err := reserve(t, s, a.ID, "r2", 450, 1000); err != nil || used != 550 {
			t.Errorf("Reserve the rest: got used %d, %v; want 550, nil", used, err)
		}
		// With 1000 used, a file over the limit is refused: nothing
		// changes, the reservation it named stays until released.
		_, err = s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: "b", Size: 451, BlobKey: "k"}, "r2", "", fileframe.Quota{Storage: 1000}, now)
		wantCode(t, "CreateFileReserved over the limit", err, fileframe.CodeQuotaExceeded)
		files, err := s.FilesByAccount(t.Context(), a.ID)
		if err != nil || len(files) != 1 {
			t.Errorf("files after the refusal: got %d, %v; want 1", len(files), err)
		}
		if _, err := reserve(t, s, a.ID, "r3", 1, 1000); fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
			t.Errorf("Reserve with r2 still held: got %v, want quota_exceeded", err)
		}
		if err := s.ReleaseReservation(t.Context(), "r2"); err != nil {
			t.Fatal(err)
		}
		// A missing reservation is fine: the check decides.
		if _, err := s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: "c", Size: 450, BlobKey: "k"}, "gone", "", fileframe.Quota{Storage: 1000}, now); err != nil {
			t.Errorf("CreateFileReserved with a missing reservation that fits: %v", err)
		}
		_, err = s.CreateFileReserved(t.Context(), fileframe.File{AccountID: "a_missing", Name: "d", Size: 1, BlobKey: "k"}, "", "", fileframe.Quota{Storage: 0}, now)
		wantCode(t, "CreateFileReserved for a missing account", err, fileframe.ENOTFOUND)
	})

	// The promise of a quota: concurrent uploads never store more than it,
	// whatever the interleaving.
	t.Run("concurrent reservations never exceed the limit", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		const n, size, limit = 20, 800, 1000
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, created := 0, 0
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := fmt.Sprintf("r%d", i)
				_, err := reserve(t, s, a.ID, id, size, limit)
				if fileframe.ErrorCode(err) == fileframe.CodeQuotaExceeded {
					return
				} else if err != nil {
					t.Errorf("Reserve %s: %v", id, err)
					return
				}
				mu.Lock()
				ok++
				mu.Unlock()
				_, err = s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: id, Size: size, BlobKey: "k"}, id, "", fileframe.Quota{Storage: limit}, now)
				if err != nil {
					t.Errorf("CreateFileReserved %s: %v", id, err)
					return
				}
				mu.Lock()
				created++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if ok != 1 || created != 1 {
			t.Errorf("%d concurrent reservations of %d bytes against %d: got %d reserved, %d stored; want 1 and 1", n, size, limit, ok, created)
		}
		// Files created without reservations, at once, are checked the same.
		b := newAccount(t, s)
		created = createdAtOnce(t, n, fileframe.CodeQuotaExceeded, func(i int) error {
			_, err := s.CreateFileReserved(t.Context(), fileframe.File{AccountID: b.ID, Name: fmt.Sprint(i), Size: size, BlobKey: "k"}, "", "", fileframe.Quota{Storage: limit}, now)
			return err
		})
		if created != 1 {
			t.Errorf("%d concurrent files of %d bytes against %d: got %d stored, want 1", n, size, limit, created)
		}
	})

	// The same beside an account's existing files, appearance and page
	// assets, which the stores count from totals they keep: exactly the
	// files that fit are stored.
	t.Run("concurrent uploads fill what is left of a quota exactly", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		const n, size, room = 40, 100, 5
		for i := range n {
			if _, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: fmt.Sprint(i), Size: size, BlobKey: "k"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{Template: "plain", LogoKey: "logo", LogoBytes: 50}, 0, now); err != nil {
			t.Fatal(err)
		}
		f := newFile(t, s, a.ID) // 1234 bytes
		if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: pageHTML(1, 100), At: now,
			Assets: []fileframe.PageAsset{{URL: "https://cdn.example/a.png", Kind: fileframe.AssetImage, SHA256: assetSum, Size: 70, FetchedAt: now}}}); err != nil {
			t.Fatal(err)
		}
		held := int64(n*size + 50 + 1234 + 70)
		q := fileframe.Quota{Storage: held + room*size + size - 1}
		var wg sync.WaitGroup
		var reserved, created atomic.Int32
		for i := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := fmt.Sprintf("r%d", i)
				_, err := s.Reserve(t.Context(), fileframe.Reservation{ID: id, AccountID: a.ID, Bytes: size, ExpiresAt: later}, q, now)
				if fileframe.ErrorCode(err) == fileframe.CodeQuotaExceeded {
					return
				} else if err != nil {
					t.Errorf("Reserve %s: %v", id, err)
					return
				}
				reserved.Add(1)
				if _, err := s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: id, Size: size, BlobKey: "k"}, id, "", q, now); err != nil {
					t.Errorf("CreateFileReserved %s: %v", id, err)
					return
				}
				created.Add(1)
			}()
		}
		wg.Wait()
		if reserved.Load() != room || created.Load() != room {
			t.Errorf("30 uploads of %d bytes with room for %d: got %d reserved, %d stored", size, room, reserved.Load(), created.Load())
		}
		// And the number of files, with files created without reservations.
		files := int64(n + 1 + room)
		q = fileframe.Quota{Files: files + 3}
		if got := createdAtOnce(t, 30, fileframe.CodeFileCountExceeded, func(i int) error {
			_, err := s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: fmt.Sprint(i), Size: size, BlobKey: "k"}, "", "", q, now)
			return err
		}); got != 3 {
			t.Errorf("30 files at once with room for 3: got %d stored", got)
		}
		list, err := s.ListAccounts(t.Context())
		if err != nil || len(list) != 1 {
			t.Fatalf("ListAccounts: %v, %v", list, err)
		}
		if got, want := list[0].Bytes, held+(room+3)*size; list[0].Files != files+3 || got != want {
			t.Errorf("ListAccounts: got %d files, %d bytes; want %d, %d", list[0].Files, got, files+3, want)
		}
	})

	t.Run("Reserve and CreateFileReserved hold the number of files", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		q := fileframe.Quota{Files: 2}
		newFile(t, s, a.ID)
		res := func(id string) error {
			_, err := s.Reserve(t.Context(), fileframe.Reservation{ID: id, AccountID: a.ID, ExpiresAt: later}, q, now)
			return err
		}
		if err := res("r1"); err != nil {
			t.Fatalf("Reserve the second file: %v", err)
		}
		wantCode(t, "Reserve a third file", res("r2"), fileframe.CodeFileCountExceeded)
		if err := res("r1"); err != nil {
			t.Errorf("renewing the reservation of the second file: %v", err)
		}
		_, err := s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: "x", BlobKey: "k"}, "", "", q, now)
		wantCode(t, "a file beside a held reservation", err, fileframe.CodeFileCountExceeded)
		if _, err := s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: "b", BlobKey: "k"}, "r1", "", q, now); err != nil {
			t.Fatalf("CreateFileReserved of the second file: %v", err)
		}
		_, err = s.CreateFileReserved(t.Context(), fileframe.File{AccountID: a.ID, Name: "c", BlobKey: "k"}, "", "", q, now)
		wantCode(t, "a third file", err, fileframe.CodeFileCountExceeded)
		// Empty files count like any other; concurrent ones too.
		b := newAccount(t, s)
		if got := createdAtOnce(t, 20, fileframe.CodeFileCountExceeded, func(i int) error {
			_, err := s.CreateFileReserved(t.Context(), fileframe.File{AccountID: b.ID, Name: fmt.Sprint(i), BlobKey: "k"}, "", "", fileframe.Quota{Files: 3}, now)
			return err
		}); got != 3 {
			t.Errorf("20 empty files at once against a limit of 3: got %d stored", got)
		}
	})
}

// createdAtOnce calls create(0) … create(n-1) at once and returns how many
// succeeded; an error without code (the refusal expected) fails the test.
func createdAtOnce(t *testing.T, n int, code string, create func(i int) error) int {
	t.Helper()
	var wg sync.WaitGroup
	var created atomic.Int32
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := create(i); err == nil {
				created.Add(1)
			} else if fileframe.ErrorCode(err) != code {
				t.Errorf("at once: %v", err)
			}
		}()
	}
	wg.Wait()
	return int(created.Load())
}

package storetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// newRequest creates a request of the account with the limits given.
func newRequest(t *testing.T, s fileframe.Store, a fileframe.AccountID, maxFiles, maxBytes int64) fileframe.Request {
	t.Helper()
	r, err := s.CreateRequest(t.Context(), fileframe.Request{
		AccountID: a, Title: "Send me the photos", Message: "Line one\nline two",
		MaxFiles: maxFiles, MaxBytes: maxBytes,
	})
	if err != nil {
		t.Fatalf("CreateRequest: %v", err)
	}
	return r
}

// receivedFile is a file of size bytes sent through request r in visit.
func receivedFile(r fileframe.Request, size int64) fileframe.File {
	return fileframe.File{
		AccountID: r.AccountID, Name: "photo.jpg", Size: size, ContentType: "image/jpeg",
		BlobKey: fmt.Sprintf("%064x", size),
	}
}

func testRequests(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	now := time.Date(2026, time.November, 24, 12, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)

	t.Run("CreateRequest round trip, by ID, by slug, by account", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		want, err := s.CreateRequest(t.Context(), fileframe.Request{
			AccountID: a.ID, Title: "Contracts", Message: "Please send <b>them</b>", MaxFiles: 3, MaxBytes: 1 << 20,
			ExpiresAt: stamp.Add(24 * time.Hour), PasswordHash: "$argon2id$x", CreatedAt: stamp,
		})
		if err != nil {
			t.Fatalf("CreateRequest: %v", err)
		}
		if !want.ID.Valid() || want.Slug == "" {
			t.Errorf("CreateRequest: ID %q, slug %q; want both set", want.ID, want.Slug)
		}
		want.CreatedAt, want.ExpiresAt = ms(want.CreatedAt), ms(want.ExpiresAt)
		for name, get := range map[string]func() (fileframe.Request, error){
			"RequestByID":   func() (fileframe.Request, error) { return s.RequestByID(t.Context(), want.ID) },
			"RequestBySlug": func() (fileframe.Request, error) { return s.RequestBySlug(t.Context(), want.Slug) },
		} {
			got, err := get()
			if err != nil || got != want {
				t.Errorf("%s: got %+v, %v; want %+v", name, got, err, want)
			}
		}
		second := newRequest(t, s, a.ID, 1, 1)
		newRequest(t, s, newAccount(t, s).ID, 1, 1)
		list, err := s.RequestsByAccount(t.Context(), a.ID)
		if err != nil || len(list) != 2 || list[0].ID != second.ID || list[1].ID != want.ID {
			t.Errorf("RequestsByAccount: got %d requests, %v; want the account's two, newest first", len(list), err)
		}
	})

	t.Run("missing things and bad limits", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		if _, err := s.CreateRequest(t.Context(), fileframe.Request{AccountID: "a_missingmissing12", Title: "x", MaxFiles: 1, MaxBytes: 1}); !fileframe.IsNotFound(err) {
			t.Errorf("CreateRequest of a missing account: %v, want ENOTFOUND", err)
		}
		if _, err := s.CreateRequest(t.Context(), fileframe.Request{AccountID: a.ID, Title: "x", MaxFiles: 0, MaxBytes: 1}); fileframe.ErrorCode(err) != fileframe.EINVALID {
			t.Errorf("CreateRequest of MaxFiles 0: %v, want EINVALID", err)
		}
		r := newRequest(t, s, a.ID, 1, 1)
		if _, err := s.CreateRequest(t.Context(), fileframe.Request{AccountID: a.ID, Slug: r.Slug, Title: "x", MaxFiles: 1, MaxBytes: 1}); fileframe.ErrorCode(err) != fileframe.ECONFLICT {
			t.Errorf("CreateRequest of a taken slug: %v, want ECONFLICT", err)
		}
		for name, err := range map[string]error{
			"RequestByID":       second(s.RequestByID(t.Context(), "r_missingmissing12")),
			"RequestBySlug":     second(s.RequestBySlug(t.Context(), "nosuchslug00")),
			"CloseRequest":      s.CloseRequest(t.Context(), "r_missingmissing12", now),
			"DeleteRequest":     s.DeleteRequest(t.Context(), "r_missingmissing12"),
			"ReceivedFiles":     second(s.ReceivedFiles(t.Context(), "r_missingmissing12", "")),
			"ShareFile":         s.ShareFile(t.Context(), "f_missing"),
			"RequestsByAccount": second(s.RequestsByAccount(t.Context(), "a_missingmissing12")),
		} {
			if !fileframe.IsNotFound(err) {
				t.Errorf("%s of a missing thing: %v, want ENOTFOUND", name, err)
			}
		}
	})

	t.Run("received files are unshared, listed by visit, counted, shared on demand", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		r := newRequest(t, s, a.ID, 10, 1000)
		if f := newFile(t, s, a.ID); !f.Shared || !mustFile(t, s, f.ID).Shared {
			t.Errorf("CreateFile: Shared false, want every uploaded file shared")
		}
		var ids []fileframe.FileID
		for i, visit := range []string{"v1", "v2", "v1"} {
			f, err := s.CreateRequestFile(t.Context(), receivedFile(r, int64(10*(i+1))),
				fileframe.RequestFile{RequestID: r.ID, VisitID: visit, SenderName: "Ann", SenderEmail: "ann@example.com"},
				"", "", fileframe.Quota{}, now)
			if err != nil {
				t.Fatalf("CreateRequestFile: %v", err)
			}
			if f.Shared || mustFile(t, s, f.ID).Shared || mustFileBySlug(t, s, f.Slug).Shared {
				t.Errorf("a received file is shared; want it private until shared")
			}
			ids = append(ids, f.ID)
		}
		got, err := s.RequestByID(t.Context(), r.ID)
		if err != nil || got.Received != 3 || got.ReceivedBytes != 60 {
			t.Errorf("RequestByID: received %d files, %d bytes, %v; want 3, 60", got.Received, got.ReceivedBytes, err)
		}
		all, err := s.ReceivedFiles(t.Context(), r.ID, "")
		if err != nil || len(all) != 3 || all[0].File.ID != ids[0] || all[0].SenderName != "Ann" || all[0].SenderEmail != "ann@example.com" || all[0].CreatedAt.IsZero() {
			t.Errorf("ReceivedFiles(all): %+v, %v; want the three, oldest first, with their sender", all, err)
		}
		v1, err := s.ReceivedFiles(t.Context(), r.ID, "v1")
		if err != nil || len(v1) != 2 || v1[0].File.ID != ids[0] || v1[1].File.ID != ids[2] {
			t.Errorf("ReceivedFiles(v1): %d files, %v; want the visit's two", len(v1), err)
		}
		if none, err := s.ReceivedFiles(t.Context(), r.ID, "v9"); err != nil || len(none) != 0 {
			t.Errorf("ReceivedFiles(v9): %d files, %v; want none", len(none), err)
		}
		if err := s.ShareFile(t.Context(), ids[1]); err != nil {
			t.Fatalf("ShareFile: %v", err)
		}
		if !mustFile(t, s, ids[1]).Shared || mustFile(t, s, ids[0]).Shared {
			t.Errorf("ShareFile shared the wrong files")
		}
		if err := s.ShareFile(t.Context(), ids[1]); err != nil {
			t.Errorf("ShareFile again: %v, want nil", err)
		}
		// Deleting a file forgets it in the request; deleting the request
		// keeps the files.
		if _, err := s.DeleteFile(t.Context(), ids[0]); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		if got, _ := s.RequestByID(t.Context(), r.ID); got.Received != 2 || got.ReceivedBytes != 50 {
			t.Errorf("after DeleteFile: received %d, %d bytes; want 2, 50", got.Received, got.ReceivedBytes)
		}
		if err := s.DeleteRequest(t.Context(), r.ID); err != nil {
			t.Fatalf("DeleteRequest: %v", err)
		}
		if _, err := s.RequestByID(t.Context(), r.ID); !fileframe.IsNotFound(err) {
			t.Errorf("RequestByID after DeleteRequest: %v, want ENOTFOUND", err)
		}
		mustFile(t, s, ids[1])
	})

	t.Run("a closed, deleted or expired request's reservations give their room back", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		q := fileframe.Quota{Storage: 100}
		end := now.Add(30 * time.Minute)
		for i, stop := range []func(r fileframe.Request) error{
			func(r fileframe.Request) error { return s.CloseRequest(t.Context(), r.ID, now) },
			func(r fileframe.Request) error { return s.DeleteRequest(t.Context(), r.ID) },
			nil, // the request's end passes
		} {
			r, err := s.CreateRequest(t.Context(), fileframe.Request{AccountID: a.ID, Title: "x", MaxFiles: 5, MaxBytes: 100, ExpiresAt: end})
			if err != nil {
				t.Fatal(err)
			}
			// An outsider's upload under way holds 80 of the 100 bytes...
			held := fileframe.Reservation{ID: fmt.Sprintf("held.%d", i), AccountID: a.ID, Bytes: 80, ExpiresAt: later, RequestID: r.ID}
			if _, err := s.Reserve(t.Context(), held, q, now); err != nil {
				t.Fatalf("%d: Reserve: %v", i, err)
			}
			own := fileframe.Reservation{ID: fmt.Sprintf("own.%d", i), AccountID: a.ID, Bytes: 30, ExpiresAt: later}
			if _, err := s.Reserve(t.Context(), own, q, now); fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
				t.Fatalf("%d: the owner's 30 bytes beside it: %v, want %s", i, err, fileframe.CodeQuotaExceeded)
			}
			// ... until the request stops taking files: that upload can
			// never finish, so its room is the owner's again.
			at := now
			if stop != nil {
				if err := stop(r); err != nil {
					t.Fatalf("%d: %v", i, err)
				}
			} else {
				at = end.Add(time.Second)
			}
			if _, err := s.Reserve(t.Context(), own, q, at); err != nil {
				t.Fatalf("%d: the owner's 30 bytes once the request took no more: %v", i, err)
			}
			if err := s.ReleaseReservation(t.Context(), own.ID); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("limits: count, bytes, closed, expired, quota, another account", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		r := newRequest(t, s, a.ID, 2, 100)
		rf := fileframe.RequestFile{RequestID: r.ID, VisitID: "v"}
		if _, err := s.CreateRequestFile(t.Context(), receivedFile(r, 101), rf, "", "", fileframe.Quota{}, now); fileframe.ErrorCode(err) != fileframe.CodeRequestTooLarge {
			t.Errorf("a file over MaxBytes: %v, want %s", err, fileframe.CodeRequestTooLarge)
		}
		if _, err := s.CreateRequestFile(t.Context(), receivedFile(r, 60), rf, "", "", fileframe.Quota{Storage: 50}, now); fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
			t.Errorf("a file over the quota: %v, want %s", err, fileframe.CodeQuotaExceeded)
		}
		if _, err := s.CreateRequestFile(t.Context(), receivedFile(r, 60), rf, "", "", fileframe.Quota{}, now); err != nil {
			t.Fatalf("CreateRequestFile: %v", err)
		}
		if _, err := s.CreateRequestFile(t.Context(), receivedFile(r, 41), rf, "", "", fileframe.Quota{}, now); fileframe.ErrorCode(err) != fileframe.CodeRequestTooLarge {
			t.Errorf("a file over what is left: %v, want %s", err, fileframe.CodeRequestTooLarge)
		}
		// A reservation holds the request's room: the second file cannot
		// be reserved while it is, and its own reservation becomes it.
		res := fileframe.Reservation{ID: "u.1", AccountID: a.ID, Bytes: 40, ExpiresAt: later, RequestID: r.ID}
		if _, err := s.Reserve(t.Context(), res, fileframe.Quota{}, now); err != nil {
			t.Fatalf("Reserve: %v", err)
		}
		if _, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "u.2", AccountID: a.ID, Bytes: 1, ExpiresAt: later, RequestID: r.ID}, fileframe.Quota{}, now); fileframe.ErrorCode(err) != fileframe.CodeRequestFull {
			t.Errorf("Reserve beyond MaxFiles: %v, want %s", err, fileframe.CodeRequestFull)
		}
		// A renewal without RequestID keeps counting against the request.
		res.RequestID = ""
		if _, err := s.Reserve(t.Context(), res, fileframe.Quota{}, now); err != nil {
			t.Fatalf("Reserve (renewal): %v", err)
		}
		if _, err := s.CreateRequestFile(t.Context(), receivedFile(r, 1), rf, "", "", fileframe.Quota{}, now); fileframe.ErrorCode(err) != fileframe.CodeRequestFull {
			t.Errorf("a file while the last place is reserved: %v, want %s", err, fileframe.CodeRequestFull)
		}
		if _, err := s.CreateRequestFile(t.Context(), receivedFile(r, 40), rf, "u.1", "", fileframe.Quota{}, now); err != nil {
			t.Fatalf("CreateRequestFile in place of its reservation: %v", err)
		}
		if _, err := s.CreateRequestFile(t.Context(), receivedFile(r, 0), rf, "", "", fileframe.Quota{}, now); fileframe.ErrorCode(err) != fileframe.CodeRequestFull {
			t.Errorf("a third file: %v, want %s", err, fileframe.CodeRequestFull)
		}

		closed := newRequest(t, s, a.ID, 5, 100)
		if err := s.CloseRequest(t.Context(), closed.ID, stamp); err != nil {
			t.Fatalf("CloseRequest: %v", err)
		}
		if err := s.CloseRequest(t.Context(), closed.ID, stamp.Add(time.Hour)); err != nil {
			t.Fatalf("CloseRequest again: %v", err)
		}
		if got, _ := s.RequestByID(t.Context(), closed.ID); !got.ClosedAt.Equal(ms(stamp)) {
			t.Errorf("ClosedAt: got %v, want the first close %v", got.ClosedAt, ms(stamp))
		}
		if _, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "u.3", AccountID: a.ID, Bytes: 1, ExpiresAt: later, RequestID: closed.ID}, fileframe.Quota{}, now); fileframe.ErrorCode(err) != fileframe.CodeRequestClosed {
			t.Errorf("Reserve on a closed request: %v, want %s", err, fileframe.CodeRequestClosed)
		}
		expired, err := s.CreateRequest(t.Context(), fileframe.Request{AccountID: a.ID, Title: "x", MaxFiles: 5, MaxBytes: 100, ExpiresAt: now})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateRequestFile(t.Context(), receivedFile(expired, 1), fileframe.RequestFile{RequestID: expired.ID}, "", "", fileframe.Quota{}, now); fileframe.ErrorCode(err) != fileframe.CodeRequestClosed {
			t.Errorf("a file for an expired request: %v, want %s", err, fileframe.CodeRequestClosed)
		}
		other := newAccount(t, s)
		if _, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "u.4", AccountID: other.ID, Bytes: 1, ExpiresAt: later, RequestID: closed.ID}, fileframe.Quota{}, now); !fileframe.IsNotFound(err) {
			t.Errorf("Reserve against another account's request: %v, want ENOTFOUND", err)
		}
		f := receivedFile(r, 1)
		f.AccountID = other.ID
		if _, err := s.CreateRequestFile(t.Context(), f, fileframe.RequestFile{RequestID: closed.ID}, "", "", fileframe.Quota{}, now); !fileframe.IsNotFound(err) {
			t.Errorf("CreateRequestFile into another account's request: %v, want ENOTFOUND", err)
		}
	})

	t.Run("parallel reservations and files take exactly MaxFiles places", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		const places, tries = 3, 12
		r := newRequest(t, s, a.ID, places, 1<<30)
		var ok atomic.Int32
		var wg sync.WaitGroup
		for i := range tries {
			wg.Go(func() {
				id := fmt.Sprintf("u.%d", i)
				if i%2 == 0 {
					_, err := s.Reserve(t.Context(), fileframe.Reservation{ID: id, AccountID: a.ID, Bytes: 10, ExpiresAt: later, RequestID: r.ID}, fileframe.Quota{Files: 100}, now)
					if err != nil && fileframe.ErrorCode(err) != fileframe.CodeRequestFull {
						t.Errorf("Reserve: %v", err)
					}
					if err != nil {
						return
					}
				}
				_, err := s.CreateRequestFile(t.Context(), receivedFile(r, int64(i)), fileframe.RequestFile{RequestID: r.ID, VisitID: "v"}, id, "", fileframe.Quota{Files: 100}, now)
				if err == nil {
					ok.Add(1)
				} else if fileframe.ErrorCode(err) != fileframe.CodeRequestFull {
					t.Errorf("CreateRequestFile: %v", err)
				}
			})
		}
		wg.Wait()
		got, err := s.RequestByID(t.Context(), r.ID)
		if ok.Load() != places || err != nil || got.Received != places {
			t.Errorf("%d uploads at once: %d stored, request received %d (%v); want exactly %d", tries, ok.Load(), got.Received, err, places)
		}
	})
}

// second returns the error of a two-valued call.
func second[T any](_ T, err error) error { return err }

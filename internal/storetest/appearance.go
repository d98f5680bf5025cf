package storetest

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// fullAppearance returns an appearance with every field set, distinct by n.
func fullAppearance(n int) fileframe.Appearance {
	return fileframe.Appearance{
		Template:   fmt.Sprintf("template-%d", n),
		Headline:   fmt.Sprintf("Headline %d é ✓", n),
		Message:    fmt.Sprintf("A message\nover two lines, %d.", n),
		Accent:     fmt.Sprintf("#12345%d", n%10),
		LogoKey:    fmt.Sprintf("logo-%d", n),
		Background: fmt.Sprintf("background-%d", n),
		LogoBytes:  int64(100 + n), BackgroundBytes: int64(2000 + n),
	}
}

func testAppearances(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("account appearance: zero when none, round trip, replace, zero clears", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		got, err := s.AccountAppearance(t.Context(), a.ID)
		if err != nil || !got.IsZero() {
			t.Errorf("AccountAppearance(none set): got %+v, %v, want the zero value, nil", got, err)
		}
		for _, want := range []fileframe.Appearance{fullAppearance(1), fullAppearance(2), {Template: "plain"}} {
			if err := s.SetAccountAppearance(t.Context(), a.ID, want, 0, time.Now()); err != nil {
				t.Fatalf("SetAccountAppearance: %v", err)
			}
			if got, err := s.AccountAppearance(t.Context(), a.ID); err != nil || got != want {
				t.Errorf("AccountAppearance: got %+v, %v, want %+v", got, err, want)
			}
		}
		if got, err := s.AccountAppearance(t.Context(), b.ID); err != nil || !got.IsZero() {
			t.Errorf("AccountAppearance(another account): got %+v, %v, want the zero value", got, err)
		}
		if err := s.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{}, 0, time.Now()); err != nil {
			t.Fatalf("SetAccountAppearance(zero): %v", err)
		}
		if got, err := s.AccountAppearance(t.Context(), a.ID); err != nil || !got.IsZero() {
			t.Errorf("AccountAppearance after clearing: got %+v, %v, want the zero value", got, err)
		}
		if err := s.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{}, 0, time.Now()); err != nil {
			t.Errorf("SetAccountAppearance(zero, again): got %v, want nil", err)
		}
	})

	t.Run("account appearance of a missing account is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newAccount(t, s)
		err := s.SetAccountAppearance(t.Context(), "a_missing", fullAppearance(1), 0, time.Now())
		wantCode(t, "SetAccountAppearance(missing)", err, fileframe.ENOTFOUND)
		err = s.SetAccountAppearance(t.Context(), "a_missing", fileframe.Appearance{}, 0, time.Now())
		wantCode(t, "SetAccountAppearance(missing, zero)", err, fileframe.ENOTFOUND)
		_, err = s.AccountAppearance(t.Context(), "a_missing")
		wantCode(t, "AccountAppearance(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("file appearance: zero when none, round trip, zero clears, apart from the account's", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		if err := s.SetAccountAppearance(t.Context(), a.ID, fullAppearance(9), 0, time.Now()); err != nil {
			t.Fatalf("SetAccountAppearance: %v", err)
		}
		got, err := s.FileAppearance(t.Context(), f.ID)
		if err != nil || !got.IsZero() {
			t.Errorf("FileAppearance(none set): got %+v, %v, want the zero value (the account's is not the file's)", got, err)
		}
		for _, want := range []fileframe.Appearance{fullAppearance(1), {Accent: "#ffffff"}} {
			if err := s.SetFileAppearance(t.Context(), f.ID, want, 0, time.Now()); err != nil {
				t.Fatalf("SetFileAppearance: %v", err)
			}
			if got, err := s.FileAppearance(t.Context(), f.ID); err != nil || got != want {
				t.Errorf("FileAppearance: got %+v, %v, want %+v", got, err, want)
			}
		}
		if got, err := s.FileAppearance(t.Context(), g.ID); err != nil || !got.IsZero() {
			t.Errorf("FileAppearance(another file): got %+v, %v, want the zero value", got, err)
		}
		if got, err := s.AccountAppearance(t.Context(), a.ID); err != nil || got != fullAppearance(9) {
			t.Errorf("AccountAppearance after SetFileAppearance: got %+v, %v, want %+v", got, err, fullAppearance(9))
		}
		if err := s.SetFileAppearance(t.Context(), f.ID, fileframe.Appearance{}, 0, time.Now()); err != nil {
			t.Fatalf("SetFileAppearance(zero): %v", err)
		}
		if got, err := s.FileAppearance(t.Context(), f.ID); err != nil || !got.IsZero() {
			t.Errorf("FileAppearance after clearing: got %+v, %v, want the zero value", got, err)
		}
	})

	t.Run("file appearance of a missing file is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newFile(t, s, newAccount(t, s).ID)
		err := s.SetFileAppearance(t.Context(), "f_missing", fullAppearance(1), 0, time.Now())
		wantCode(t, "SetFileAppearance(missing)", err, fileframe.ENOTFOUND)
		err = s.SetFileAppearance(t.Context(), "f_missing", fileframe.Appearance{}, 0, time.Now())
		wantCode(t, "SetFileAppearance(missing, zero)", err, fileframe.ENOTFOUND)
		_, err = s.FileAppearance(t.Context(), "f_missing")
		wantCode(t, "FileAppearance(missing)", err, fileframe.ENOTFOUND)
	})

	testAppearanceImages(t, newStore)
}

// testAppearanceImages: appearance images count in the storage quota, and
// images stored before their sizes were kept are measured.
func testAppearanceImages(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	now := time.Date(2026, time.November, 24, 12, 0, 0, 0, time.UTC)
	images := func(logo, background int64) fileframe.Appearance {
		return fileframe.Appearance{Template: "t", LogoKey: fmt.Sprint("logo-", logo), LogoBytes: logo,
			Background: fmt.Sprint("bg-", background), BackgroundBytes: background}
	}
	const limit = 1000

	t.Run("appearance images count in the storage quota", func(t *testing.T) {
		s := newStore(t)
		a, other := newAccount(t, s), newAccount(t, s)
		f, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: "a", Size: 300, BlobKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetAccountAppearance(t.Context(), a.ID, images(250, 150), limit, now); err != nil {
			t.Fatalf("account appearance of 400 bytes with 300 used of %d: %v", limit, err)
		}
		r := fileframe.Reservation{ID: "r", AccountID: a.ID, Bytes: 301, ExpiresAt: now.Add(time.Hour)}
		used, err := s.Reserve(t.Context(), r, fileframe.Quota{Storage: limit}, now)
		wantCode(t, "Reserve 301 with 700 used", err, fileframe.CodeQuotaExceeded)
		if used != 700 {
			t.Errorf("used: got %d, want 700 (a file of 300, images of 400)", used)
		}
		err = s.SetFileAppearance(t.Context(), f.ID, images(301, 0), limit, now)
		wantCode(t, "file appearance of 301 bytes with 700 used", err, fileframe.CodeQuotaExceeded)
		if got, _ := s.FileAppearance(t.Context(), f.ID); !got.IsZero() {
			t.Errorf("a refused appearance was stored: %+v", got)
		}
		if err := s.SetFileAppearance(t.Context(), f.ID, images(0, 300), limit, now); err != nil {
			t.Fatalf("file appearance of 300 bytes with 700 used: %v", err)
		}
		// At the limit: what does not grow the images passes (new words,
		// the same images; smaller ones), what grows them does not.
		same := images(250, 150)
		same.Headline = "New words"
		if err := s.SetAccountAppearance(t.Context(), a.ID, same, limit, now); err != nil {
			t.Errorf("the same images with new words at the limit: %v", err)
		}
		err = s.SetAccountAppearance(t.Context(), a.ID, images(250, 151), limit, now)
		wantCode(t, "one byte more at the limit", err, fileframe.CodeQuotaExceeded)
		if err := s.SetAccountAppearance(t.Context(), a.ID, images(100, 0), limit, now); err != nil {
			t.Errorf("smaller images at the limit: %v", err)
		}
		// 300 + 100 + 300 used; another account's appearance is its own.
		if used, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "r", AccountID: a.ID, Bytes: 300, ExpiresAt: now.Add(time.Hour)},
			fileframe.Quota{Storage: limit}, now); err != nil || used != 700 {
			t.Errorf("Reserve 300 with 700 used: got used %d, %v", used, err)
		}
		if err := s.SetAccountAppearance(t.Context(), other.ID, images(600, 400), limit, now); err != nil {
			t.Errorf("another account's appearance: %v", err)
		}
		// With the reservation held, nothing grows; without a limit, all does.
		err = s.SetFileAppearance(t.Context(), f.ID, images(1, 300), limit, now)
		wantCode(t, "file appearance beside a reservation at the limit", err, fileframe.CodeQuotaExceeded)
		if err := s.SetFileAppearance(t.Context(), f.ID, images(5000, 300), 0, now); err != nil {
			t.Errorf("file appearance without a limit: %v", err)
		}
		// Deleting the file frees its appearance's images with it.
		if _, err := s.DeleteFile(t.Context(), f.ID); err != nil {
			t.Fatal(err)
		}
		if used, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "r2", AccountID: a.ID, Bytes: 1, ExpiresAt: now.Add(time.Hour)},
			fileframe.Quota{Storage: limit}, now); err != nil || used != 400 {
			t.Errorf("after deleting the file: got used %d, %v; want 400 (the account's images and the reservation)", used, err)
		}
	})

	// The quota holds when appearances are set at once, each alone fitting.
	t.Run("concurrent appearances never exceed the limit", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		const n = 12
		files := make([]fileframe.File, n)
		for i := range files {
			f, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: fmt.Sprint(i), Size: 0, BlobKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			files[i] = f
		}
		var wg sync.WaitGroup
		var stored atomic.Int32
		for _, f := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.SetFileAppearance(t.Context(), f.ID, images(200, 200), limit, now)
				if err == nil {
					stored.Add(1)
				} else if fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
					t.Errorf("SetFileAppearance: %v", err)
				}
			}()
		}
		wg.Wait()
		if stored.Load() != 2 {
			t.Errorf("%d appearances of 400 bytes against %d at once: got %d stored, want 2", n, limit, stored.Load())
		}
	})

	t.Run("images stored before sizes were kept are measured", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		old := fileframe.Appearance{Template: "t", LogoKey: "shared", LogoBytes: fileframe.UnmeasuredImage,
			Background: "bg", BackgroundBytes: fileframe.UnmeasuredImage}
		if err := s.SetAccountAppearance(t.Context(), a.ID, old, 0, now); err != nil {
			t.Fatal(err)
		}
		old.Background, old.BackgroundBytes = "", 0
		if err := s.SetFileAppearance(t.Context(), f.ID, old, 0, now); err != nil {
			t.Fatal(err)
		}
		keys, err := s.UnmeasuredImages(t.Context(), 10)
		if err != nil || !slices.Equal(keys, []string{"bg", "shared"}) {
			t.Fatalf("UnmeasuredImages: got %q, %v; want [bg shared]", keys, err)
		}
		if keys, _ := s.UnmeasuredImages(t.Context(), 1); len(keys) != 1 {
			t.Errorf("UnmeasuredImages(1): got %q", keys)
		}
		// Unmeasured, they count nothing.
		if used, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "r", AccountID: a.ID, Bytes: 0, ExpiresAt: now.Add(time.Hour)},
			fileframe.Quota{}, now); err != nil || used != f.Size {
			t.Errorf("used with unmeasured images: got %d, %v; want %d", used, err, f.Size)
		}
		if err := s.SetImageBytes(t.Context(), "shared", 70); err != nil {
			t.Fatal(err)
		}
		if err := s.SetImageBytes(t.Context(), "bg", 30); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "SetImageBytes(-1)", s.SetImageBytes(t.Context(), "bg", -1), fileframe.EINVALID)
		if keys, err := s.UnmeasuredImages(t.Context(), 10); err != nil || len(keys) != 0 {
			t.Errorf("UnmeasuredImages after measuring: got %q, %v", keys, err)
		}
		if got, _ := s.AccountAppearance(t.Context(), a.ID); got.LogoBytes != 70 || got.BackgroundBytes != 30 {
			t.Errorf("account appearance after measuring: %+v", got)
		}
		if got, _ := s.FileAppearance(t.Context(), f.ID); got.LogoBytes != 70 || got.BackgroundBytes != 0 {
			t.Errorf("file appearance after measuring: %+v", got)
		}
		if used, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "r", AccountID: a.ID, Bytes: 0, ExpiresAt: now.Add(time.Hour)},
			fileframe.Quota{}, now); err != nil || used != f.Size+170 {
			t.Errorf("used after measuring: got %d, %v; want %d", used, err, f.Size+170)
		}
	})
}

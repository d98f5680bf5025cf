package storetest

import (
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// normFile returns f with its times as the store must at least keep them.
func normFile(f fileframe.File) fileframe.File {
	f.CreatedAt = ms(f.CreatedAt)
	return f
}

func testFiles(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("CreateFile sets ID, Slug and CreatedAt when empty", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		before := time.Now()
		f, err := s.CreateFile(t.Context(), fileframe.File{
			AccountID: a.ID, Name: "photo.jpg", Size: 5, ContentType: "image/jpeg", BlobKey: "k1",
		})
		if err != nil {
			t.Fatalf("CreateFile: %v", err)
		}
		if f.ID == "" {
			t.Errorf("CreateFile: ID got empty, want a new ID")
		}
		if f.Slug == "" {
			t.Errorf("CreateFile: Slug got empty, want a new slug")
		}
		wantRecent(t, "CreateFile: CreatedAt", f.CreatedAt, before)
		g := newFile(t, s, a.ID)
		if f.ID == g.ID || f.Slug == g.Slug {
			t.Errorf("two CreateFile: got IDs %q, %q and slugs %q, %q, want them different", f.ID, g.ID, f.Slug, g.Slug)
		}
	})

	t.Run("FileByID and FileBySlug return every field", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		want := fileframe.File{
			ID:          "f_given",
			AccountID:   a.ID,
			Name:        "Quarterly report (final) é.pdf",
			Size:        1 << 40,
			ContentType: "application/pdf",
			BlobKey:     "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
			Slug:        "AbCdEf123456",
			CreatedAt:   stamp,
		}
		created, err := s.CreateFile(t.Context(), want)
		if err != nil {
			t.Fatalf("CreateFile: %v", err)
		}
		if got, want := normFile(created), normFile(want); got != want {
			t.Errorf("CreateFile: got %+v, want %+v", got, want)
		}
		got, err := s.FileByID(t.Context(), "f_given")
		if err != nil {
			t.Fatalf("FileByID: %v", err)
		}
		if got, want := normFile(got), normFile(want); got != want {
			t.Errorf("FileByID: got %+v, want %+v", got, want)
		}
		got, err = s.FileBySlug(t.Context(), "AbCdEf123456")
		if err != nil {
			t.Fatalf("FileBySlug: %v", err)
		}
		if got, want := normFile(got), normFile(want); got != want {
			t.Errorf("FileBySlug: got %+v, want %+v", got, want)
		}
	})

	t.Run("FileBySlug is case-sensitive", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: "x", Slug: "abcDEF123456"})
		if err != nil {
			t.Fatalf("CreateFile: %v", err)
		}
		_, err = s.FileBySlug(t.Context(), "ABCdef123456")
		wantCode(t, "FileBySlug(other case)", err, fileframe.ENOTFOUND)
		// Slugs differing only in case are different links.
		if _, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: "y", Slug: "ABCdef123456"}); err != nil {
			t.Errorf("CreateFile(slug %q beside %q): got %v, want nil", "ABCdef123456", f.Slug, err)
		}
	})

	t.Run("CreateFile with a taken slug is ECONFLICT", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		f := newFile(t, s, a.ID)
		_, err := s.CreateFile(t.Context(), fileframe.File{AccountID: b.ID, Name: "other", Slug: f.Slug})
		wantCode(t, "CreateFile(taken slug)", err, fileframe.ECONFLICT)
	})

	t.Run("CreateFile with a taken ID is ECONFLICT", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		_, err := s.CreateFile(t.Context(), fileframe.File{ID: f.ID, AccountID: a.ID, Name: "other"})
		wantCode(t, "CreateFile(taken ID)", err, fileframe.ECONFLICT)
	})

	t.Run("CreateFile for a missing account is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		_, err := s.CreateFile(t.Context(), fileframe.File{AccountID: "a_missing", Name: "x"})
		wantCode(t, "CreateFile(missing account)", err, fileframe.ENOTFOUND)
	})

	t.Run("FileByID and FileBySlug of a missing file are ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newFile(t, s, newAccount(t, s).ID)
		_, err := s.FileByID(t.Context(), "f_missing")
		wantCode(t, "FileByID(missing)", err, fileframe.ENOTFOUND)
		_, err = s.FileBySlug(t.Context(), "missing00000")
		wantCode(t, "FileBySlug(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("AddDownloads adds to several files in one call and skips missing files", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, g, h := newFile(t, s, a.ID), newFile(t, s, a.ID), newFile(t, s, a.ID)
		err := s.AddDownloads(t.Context(), map[fileframe.FileID]int64{f.ID: 3, g.ID: 1, "f_missing": 7})
		if err != nil {
			t.Fatalf("AddDownloads: %v", err)
		}
		if err := s.AddDownloads(t.Context(), map[fileframe.FileID]int64{f.ID: 2}); err != nil {
			t.Fatalf("AddDownloads: %v", err)
		}
		for _, c := range []struct {
			id   fileframe.FileID
			want int64
		}{{f.ID, 5}, {g.ID, 1}, {h.ID, 0}} {
			got, err := s.FileByID(t.Context(), c.id)
			if err != nil {
				t.Fatalf("FileByID: %v", err)
			}
			if got.Downloads != c.want {
				t.Errorf("file %s: Downloads got %d, want %d", c.id, got.Downloads, c.want)
			}
		}
		_, err = s.FileByID(t.Context(), "f_missing")
		wantCode(t, "FileByID(missing) after AddDownloads", err, fileframe.ENOTFOUND)
	})

	t.Run("AddDownloads with no counts succeeds", func(t *testing.T) {
		s := newStore(t)
		if err := s.AddDownloads(t.Context(), nil); err != nil {
			t.Errorf("AddDownloads(nil): got %v, want nil", err)
		}
		if err := s.AddDownloads(t.Context(), map[fileframe.FileID]int64{}); err != nil {
			t.Errorf("AddDownloads(empty): got %v, want nil", err)
		}
	})
}

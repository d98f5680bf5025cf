package storetest

import (
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func testTimes(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	// stamp is in UTC+05:30 with nanoseconds: every time read back must be
	// the same instant, to the millisecond, in UTC.
	t.Run("every stored time reads back in UTC to the millisecond", func(t *testing.T) {
		s := newStore(t)
		a, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "t@example.com", Plan: fileframe.PlanAgency, CreatedAt: stamp})
		if err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
		f, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: "x", CreatedAt: stamp.Add(1)})
		if err != nil {
			t.Fatalf("CreateFile: %v", err)
		}
		_, hash, prefix := fileframe.NewKeySecret(fileframe.KeyGeneral)
		k, err := s.CreateKey(t.Context(), fileframe.Key{
			AccountID: a.ID, Kind: fileframe.KeyGeneral, Name: "x", Hash: hash, Prefix: prefix,
			CreatedAt: stamp.Add(2), ExpiresAt: stamp.Add(365 * 24 * time.Hour),
		})
		if err != nil {
			t.Fatalf("CreateKey: %v", err)
		}
		if err := s.TouchKey(t.Context(), k.ID, stamp.Add(time.Hour)); err != nil {
			t.Fatalf("TouchKey: %v", err)
		}
		if err := s.RevokeKey(t.Context(), a.ID, k.ID, stamp.Add(2*time.Hour)); err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: []byte("<html></html>"), Publish: true, At: stamp.Add(3 * time.Hour)}); err != nil {
			t.Fatalf("SavePage: %v", err)
		}

		ga, err := s.AccountByID(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("AccountByID: %v", err)
		}
		gf, err := s.FileByID(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("FileByID: %v", err)
		}
		gk, err := s.KeyByHash(t.Context(), hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		gp, err := s.PageByFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("PageByFile: %v", err)
		}
		gr, err := s.Revision(t.Context(), f.ID, 1)
		if err != nil {
			t.Fatalf("Revision: %v", err)
		}
		revs, err := s.Revisions(t.Context(), f.ID)
		if err != nil || len(revs) != 1 {
			t.Fatalf("Revisions: got %d revisions, error %v, want 1", len(revs), err)
		}
		for _, c := range []struct {
			what      string
			got, want time.Time
		}{
			{"Account.CreatedAt", ga.CreatedAt, stamp},
			{"File.CreatedAt", gf.CreatedAt, stamp.Add(1)},
			{"Key.CreatedAt", gk.CreatedAt, stamp.Add(2)},
			{"Key.ExpiresAt", gk.ExpiresAt, stamp.Add(365 * 24 * time.Hour)},
			{"Key.LastUsedAt", gk.LastUsedAt, stamp.Add(time.Hour)},
			{"Key.RevokedAt", gk.RevokedAt, stamp.Add(2 * time.Hour)},
			{"Page.UpdatedAt", gp.UpdatedAt, stamp.Add(3 * time.Hour)},
			{"Revision.CreatedAt", gr.CreatedAt, stamp.Add(3 * time.Hour)},
			{"Revision.PublishedAt", gr.PublishedAt, stamp.Add(3 * time.Hour)},
			{"Revisions[0].CreatedAt", revs[0].CreatedAt, stamp.Add(3 * time.Hour)},
			{"Revisions[0].PublishedAt", revs[0].PublishedAt, stamp.Add(3 * time.Hour)},
		} {
			if got, want := c.got.Truncate(time.Millisecond), c.want.Truncate(time.Millisecond); !got.Equal(want) {
				t.Errorf("%s: got %v, want %v", c.what, got, want.UTC())
			}
			if c.got.Location() != time.UTC {
				t.Errorf("%s: location got %v, want UTC", c.what, c.got.Location())
			}
		}
	})

	t.Run("zero times read back as zero", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		k := newKey(t, s, a.ID, "")
		savePage(t, s, f.ID, []byte("<html></html>"), false)
		gk, err := s.KeyByHash(t.Context(), k.Hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		r, err := s.Revision(t.Context(), f.ID, 1)
		if err != nil {
			t.Fatalf("Revision: %v", err)
		}
		for what, tm := range map[string]time.Time{
			"Key.LastUsedAt":       gk.LastUsedAt,
			"Key.ExpiresAt":        gk.ExpiresAt,
			"Key.RevokedAt":        gk.RevokedAt,
			"Revision.PublishedAt": r.PublishedAt,
		} {
			if !tm.IsZero() {
				t.Errorf("%s: got %v, want the zero time", what, tm)
			}
		}
	})
}

package storetest

import (
	"fmt"
	"testing"

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
			if err := s.SetAccountAppearance(t.Context(), a.ID, want); err != nil {
				t.Fatalf("SetAccountAppearance: %v", err)
			}
			if got, err := s.AccountAppearance(t.Context(), a.ID); err != nil || got != want {
				t.Errorf("AccountAppearance: got %+v, %v, want %+v", got, err, want)
			}
		}
		if got, err := s.AccountAppearance(t.Context(), b.ID); err != nil || !got.IsZero() {
			t.Errorf("AccountAppearance(another account): got %+v, %v, want the zero value", got, err)
		}
		if err := s.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{}); err != nil {
			t.Fatalf("SetAccountAppearance(zero): %v", err)
		}
		if got, err := s.AccountAppearance(t.Context(), a.ID); err != nil || !got.IsZero() {
			t.Errorf("AccountAppearance after clearing: got %+v, %v, want the zero value", got, err)
		}
		if err := s.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{}); err != nil {
			t.Errorf("SetAccountAppearance(zero, again): got %v, want nil", err)
		}
	})

	t.Run("account appearance of a missing account is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newAccount(t, s)
		err := s.SetAccountAppearance(t.Context(), "a_missing", fullAppearance(1))
		wantCode(t, "SetAccountAppearance(missing)", err, fileframe.ENOTFOUND)
		err = s.SetAccountAppearance(t.Context(), "a_missing", fileframe.Appearance{})
		wantCode(t, "SetAccountAppearance(missing, zero)", err, fileframe.ENOTFOUND)
		_, err = s.AccountAppearance(t.Context(), "a_missing")
		wantCode(t, "AccountAppearance(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("file appearance: zero when none, round trip, zero clears, apart from the account's", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		if err := s.SetAccountAppearance(t.Context(), a.ID, fullAppearance(9)); err != nil {
			t.Fatalf("SetAccountAppearance: %v", err)
		}
		got, err := s.FileAppearance(t.Context(), f.ID)
		if err != nil || !got.IsZero() {
			t.Errorf("FileAppearance(none set): got %+v, %v, want the zero value (the account's is not the file's)", got, err)
		}
		for _, want := range []fileframe.Appearance{fullAppearance(1), {Accent: "#ffffff"}} {
			if err := s.SetFileAppearance(t.Context(), f.ID, want); err != nil {
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
		if err := s.SetFileAppearance(t.Context(), f.ID, fileframe.Appearance{}); err != nil {
			t.Fatalf("SetFileAppearance(zero): %v", err)
		}
		if got, err := s.FileAppearance(t.Context(), f.ID); err != nil || !got.IsZero() {
			t.Errorf("FileAppearance after clearing: got %+v, %v, want the zero value", got, err)
		}
	})

	t.Run("file appearance of a missing file is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newFile(t, s, newAccount(t, s).ID)
		err := s.SetFileAppearance(t.Context(), "f_missing", fullAppearance(1))
		wantCode(t, "SetFileAppearance(missing)", err, fileframe.ENOTFOUND)
		err = s.SetFileAppearance(t.Context(), "f_missing", fileframe.Appearance{})
		wantCode(t, "SetFileAppearance(missing, zero)", err, fileframe.ENOTFOUND)
		_, err = s.FileAppearance(t.Context(), "f_missing")
		wantCode(t, "FileAppearance(missing)", err, fileframe.ENOTFOUND)
	})
}

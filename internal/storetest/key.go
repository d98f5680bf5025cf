package storetest

import (
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// normKey returns k with its times as the store must at least keep them.
func normKey(k fileframe.Key) fileframe.Key {
	k.CreatedAt = ms(k.CreatedAt)
	k.LastUsedAt = ms(k.LastUsedAt)
	k.ExpiresAt = ms(k.ExpiresAt)
	k.RevokedAt = ms(k.RevokedAt)
	return k
}

func testKeys(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("CreateKey sets ID and CreatedAt when empty", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		_, hash, prefix := fileframe.NewKeySecret(fileframe.KeyGeneral)
		before := time.Now()
		k, err := s.CreateKey(t.Context(), fileframe.Key{
			AccountID: a.ID, Kind: fileframe.KeyGeneral, Name: "ci", Hash: hash, Prefix: prefix,
		})
		if err != nil {
			t.Fatalf("CreateKey: %v", err)
		}
		if k.ID == "" {
			t.Errorf("CreateKey: ID got empty, want a new ID")
		}
		wantRecent(t, "CreateKey: CreatedAt", k.CreatedAt, before)
		for what, tm := range map[string]time.Time{"LastUsedAt": k.LastUsedAt, "ExpiresAt": k.ExpiresAt, "RevokedAt": k.RevokedAt} {
			if !tm.IsZero() {
				t.Errorf("CreateKey: %s got %v, want the zero time", what, tm)
			}
		}
		got, err := s.KeyByHash(t.Context(), hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		if got, want := normKey(got), normKey(k); got != want {
			t.Errorf("KeyByHash: got %+v, want %+v", got, want)
		}
	})

	t.Run("KeyByHash returns every field of a general key", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		_, hash, prefix := fileframe.NewKeySecret(fileframe.KeyGeneral)
		want := fileframe.Key{
			ID:        "k_given",
			AccountID: a.ID,
			Kind:      fileframe.KeyGeneral,
			Name:      "Deploy bot ✓",
			Prefix:    prefix,
			Hash:      hash,
			CreatedAt: stamp,
			ExpiresAt: stamp.Add(90 * 24 * time.Hour),
		}
		if _, err := s.CreateKey(t.Context(), want); err != nil {
			t.Fatalf("CreateKey: %v", err)
		}
		got, err := s.KeyByHash(t.Context(), hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		if got, want := normKey(got), normKey(want); got != want {
			t.Errorf("KeyByHash: got %+v, want %+v", got, want)
		}
	})

	t.Run("CreateKey stores a page-bound key for the account's own file", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		k := newKey(t, s, a.ID, f.ID)
		got, err := s.KeyByHash(t.Context(), k.Hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		if got.Kind != fileframe.KeyPage || got.FileID != f.ID {
			t.Errorf("KeyByHash: Kind, FileID got %q, %q, want %q, %q", got.Kind, got.FileID, fileframe.KeyPage, f.ID)
		}
	})

	t.Run("CreateKey of a page-bound key for another account's file is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		theirs := newFile(t, s, b.ID)
		_, hash, prefix := fileframe.NewKeySecret(fileframe.KeyPage)
		_, err := s.CreateKey(t.Context(), fileframe.Key{
			AccountID: a.ID, Kind: fileframe.KeyPage, FileID: theirs.ID, Name: "x", Hash: hash, Prefix: prefix,
		})
		wantCode(t, "CreateKey(another account's file)", err, fileframe.ENOTFOUND)
		_, err = s.KeyByHash(t.Context(), hash)
		wantCode(t, "KeyByHash(refused key)", err, fileframe.ENOTFOUND)
	})

	t.Run("CreateKey of a page-bound key for a missing file is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		_, hash, prefix := fileframe.NewKeySecret(fileframe.KeyPage)
		_, err := s.CreateKey(t.Context(), fileframe.Key{
			AccountID: a.ID, Kind: fileframe.KeyPage, FileID: "f_missing", Name: "x", Hash: hash, Prefix: prefix,
		})
		wantCode(t, "CreateKey(missing file)", err, fileframe.ENOTFOUND)
	})

	t.Run("CreateKey for a missing account is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		_, hash, prefix := fileframe.NewKeySecret(fileframe.KeyGeneral)
		_, err := s.CreateKey(t.Context(), fileframe.Key{
			AccountID: "a_missing", Kind: fileframe.KeyGeneral, Name: "x", Hash: hash, Prefix: prefix,
		})
		wantCode(t, "CreateKey(missing account)", err, fileframe.ENOTFOUND)
	})

	t.Run("CreateKey with a taken hash is ECONFLICT", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		k := newKey(t, s, a.ID, "")
		_, err := s.CreateKey(t.Context(), fileframe.Key{
			AccountID: a.ID, Kind: fileframe.KeyGeneral, Name: "copy", Hash: k.Hash, Prefix: k.Prefix,
		})
		wantCode(t, "CreateKey(taken hash)", err, fileframe.ECONFLICT)
	})

	t.Run("CreateKey of an inconsistent key is EINVALID", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		for name, k := range map[string]fileframe.Key{
			"unknown kind":               {Kind: "admin"},
			"page-bound key, no file":    {Kind: fileframe.KeyPage},
			"general key bound to file":  {Kind: fileframe.KeyGeneral, FileID: f.ID},
			"general key without a hash": {Kind: fileframe.KeyGeneral},
		} {
			k.AccountID, k.Name = a.ID, "x"
			if name != "general key without a hash" {
				_, k.Hash, k.Prefix = fileframe.NewKeySecret(fileframe.KeyGeneral)
			}
			_, err := s.CreateKey(t.Context(), k)
			wantCode(t, "CreateKey("+name+")", err, fileframe.EINVALID)
		}
	})

	t.Run("KeyByHash of an unknown hash is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newKey(t, s, newAccount(t, s).ID, "")
		_, err := s.KeyByHash(t.Context(), fileframe.HashKey("ffk_unknown"))
		wantCode(t, "KeyByHash(unknown)", err, fileframe.ENOTFOUND)
	})

	t.Run("KeyByHash returns revoked and expired keys", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		revoked := newKey(t, s, a.ID, "")
		if err := s.RevokeKey(t.Context(), a.ID, revoked.ID, stamp); err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		_, hash, prefix := fileframe.NewKeySecret(fileframe.KeyGeneral)
		expired, err := s.CreateKey(t.Context(), fileframe.Key{
			AccountID: a.ID, Kind: fileframe.KeyGeneral, Name: "old", Hash: hash, Prefix: prefix,
			CreatedAt: stamp, ExpiresAt: stamp.Add(time.Hour),
		})
		if err != nil {
			t.Fatalf("CreateKey: %v", err)
		}
		got, err := s.KeyByHash(t.Context(), revoked.Hash)
		if err != nil {
			t.Fatalf("KeyByHash(revoked): %v", err)
		}
		if got, want := ms(got.RevokedAt), ms(stamp); !got.Equal(want) {
			t.Errorf("KeyByHash(revoked): RevokedAt got %v, want %v", got, want)
		}
		got, err = s.KeyByHash(t.Context(), expired.Hash)
		if err != nil {
			t.Fatalf("KeyByHash(expired): %v", err)
		}
		if got.Usable(time.Now()) {
			t.Errorf("KeyByHash(expired): Usable got true, want false (ExpiresAt %v)", got.ExpiresAt)
		}
	})

	t.Run("KeysByAccount lists the account's keys newest first, revoked included", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		// Created out of order: the list follows CreatedAt, not insertion.
		var want []fileframe.KeyID
		for _, age := range []time.Duration{2 * time.Hour, 0, 3 * time.Hour, time.Hour} {
			_, hash, prefix := fileframe.NewKeySecret(fileframe.KeyGeneral)
			k, err := s.CreateKey(t.Context(), fileframe.Key{
				AccountID: a.ID, Kind: fileframe.KeyGeneral, Name: age.String(), Hash: hash, Prefix: prefix,
				CreatedAt: stamp.Add(-age),
			})
			if err != nil {
				t.Fatalf("CreateKey: %v", err)
			}
			want = append(want, k.ID)
		}
		want = []fileframe.KeyID{want[1], want[3], want[0], want[2]}
		if err := s.RevokeKey(t.Context(), a.ID, want[0], stamp); err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		newKey(t, s, b.ID, "")
		keys, err := s.KeysByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("KeysByAccount: %v", err)
		}
		var got []fileframe.KeyID
		for _, k := range keys {
			got = append(got, k.ID)
			if k.AccountID != a.ID {
				t.Errorf("KeysByAccount: key %s has AccountID %q, want %q", k.ID, k.AccountID, a.ID)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("KeysByAccount: got %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("KeysByAccount: got %v, want %v", got, want)
			}
		}
		if keys[0].RevokedAt.IsZero() {
			t.Errorf("KeysByAccount: revoked key %s has RevokedAt zero, want %v", keys[0].ID, ms(stamp))
		}
	})

	t.Run("KeysByAccount of an account without keys is empty", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		keys, err := s.KeysByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("KeysByAccount: %v", err)
		}
		if len(keys) != 0 {
			t.Errorf("KeysByAccount: got %d keys, want 0", len(keys))
		}
	})

	t.Run("KeysByAccount of a missing account is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		_, err := s.KeysByAccount(t.Context(), "a_missing")
		wantCode(t, "KeysByAccount(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("RevokeKey sets RevokedAt, and revoking twice keeps the first time", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		k := newKey(t, s, a.ID, "")
		first := stamp
		if err := s.RevokeKey(t.Context(), a.ID, k.ID, first); err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		if err := s.RevokeKey(t.Context(), a.ID, k.ID, first.Add(time.Hour)); err != nil {
			t.Fatalf("RevokeKey again: got %v, want nil", err)
		}
		got, err := s.KeyByHash(t.Context(), k.Hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		if got, want := ms(got.RevokedAt), ms(first); !got.Equal(want) {
			t.Errorf("RevokedAt got %v, want %v", got, want)
		}
		if got.Usable(time.Now()) {
			t.Errorf("Usable got true for a revoked key, want false")
		}
	})

	t.Run("RevokeKey of another account's key is ENOTFOUND and leaves it usable", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		theirs := newKey(t, s, b.ID, "")
		err := s.RevokeKey(t.Context(), a.ID, theirs.ID, stamp)
		wantCode(t, "RevokeKey(another account's key)", err, fileframe.ENOTFOUND)
		got, err := s.KeyByHash(t.Context(), theirs.Hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		if !got.RevokedAt.IsZero() {
			t.Errorf("RevokedAt got %v, want the zero time", got.RevokedAt)
		}
	})

	t.Run("RevokeKey of a missing key is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		err := s.RevokeKey(t.Context(), a.ID, "k_missing", stamp)
		wantCode(t, "RevokeKey(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("TouchKey records the last use", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		k, other := newKey(t, s, a.ID, ""), newKey(t, s, a.ID, "")
		for _, at := range []time.Time{stamp, stamp.Add(time.Minute)} {
			if err := s.TouchKey(t.Context(), k.ID, at); err != nil {
				t.Fatalf("TouchKey: %v", err)
			}
			got, err := s.KeyByHash(t.Context(), k.Hash)
			if err != nil {
				t.Fatalf("KeyByHash: %v", err)
			}
			if got, want := ms(got.LastUsedAt), ms(at); !got.Equal(want) {
				t.Errorf("after TouchKey(%v): LastUsedAt got %v, want %v", at, got, want)
			}
		}
		got, err := s.KeyByHash(t.Context(), other.Hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		if !got.LastUsedAt.IsZero() {
			t.Errorf("untouched key: LastUsedAt got %v, want the zero time", got.LastUsedAt)
		}
	})

	t.Run("TouchKey of a missing key is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		err := s.TouchKey(t.Context(), "k_missing", stamp)
		wantCode(t, "TouchKey(missing)", err, fileframe.ENOTFOUND)
	})
}

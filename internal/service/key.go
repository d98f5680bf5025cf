package service

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// MaxKeyNameChars is the longest name, in characters, a key may have.
const MaxKeyNameChars = 100

// NewKey is an API key to create.
type NewKey struct {
	Account fileframe.Account
	// File binds the key to that file's page (one of Account's files);
	// empty for a general key.
	File fileframe.FileID
	// Name is how the owner recognises the key; when empty, "General key"
	// or "Page of <file name>".
	Name string
	// Expires is when the key stops working; zero for never.
	Expires time.Time
}

// CreateKey creates an API key and returns its secret, which is shown to
// its owner once and never stored (only its hash is), with the key. The
// account must be on Agency; a page-bound key's file must be one of its
// files (not found otherwise, like a missing one).
func (s *Service) CreateKey(ctx context.Context, nk NewKey) (string, fileframe.Key, error) {
	if err := customPages(nk.Account); err != nil {
		return "", fileframe.Key{}, err
	}
	name := strings.TrimSpace(nk.Name)
	if utf8.RuneCountInString(name) > MaxKeyNameChars {
		return "", fileframe.Key{}, fileframe.Errorf(fileframe.CodeInvalidField, "Names can be at most %d characters long.", MaxKeyNameChars)
	}
	kind := fileframe.KeyGeneral
	if nk.File != "" {
		f, err := s.OwnFile(ctx, nk.Account, nk.File)
		if err != nil {
			return "", fileframe.Key{}, err
		}
		kind = fileframe.KeyPage
		if name == "" {
			name = truncateRunes("Page of "+f.Name, MaxKeyNameChars)
		}
	}
	if name == "" {
		name = "General key"
	}
	secret, hash, prefix := fileframe.NewKeySecret(kind)
	k, err := s.store.CreateKey(ctx, fileframe.Key{
		AccountID: nk.Account.ID, Kind: kind, FileID: nk.File, Name: name,
		Prefix: prefix, Hash: hash, CreatedAt: s.now(), ExpiresAt: nk.Expires,
	})
	if err != nil {
		return "", fileframe.Key{}, err
	}
	return secret, k, nil
}

// RevokeKey revokes one of the account's keys at once, on every instance.
// Another account's key is not found, like a missing one.
func (s *Service) RevokeKey(ctx context.Context, a fileframe.Account, id fileframe.KeyID) error {
	if err := s.store.RevokeKey(ctx, a.ID, id, s.now()); err != nil {
		return err
	}
	s.changed()
	return nil
}

// truncateRunes shortens s to at most n characters, the last an ellipsis.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

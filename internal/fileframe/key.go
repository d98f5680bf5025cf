package fileframe

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// KeyID identifies an API key; it is shown in listings and used to revoke.
type KeyID string

// KeyKind says what a key may act on.
type KeyKind string

// The two kinds of API key.
const (
	KeyGeneral KeyKind = "general" // any file of the account; fileId required
	KeyPage    KeyKind = "page"    // one file's page; fileId omitted
)

// Key prefixes say what a key is when it turns up in a log or a repository.
const (
	GeneralKeyPrefix = "ffk_"
	PageKeyPrefix    = "ffp_"
)

// keyRandomLen is the number of random base62 characters after the prefix
// (40 × log2(62) ≈ 238 bits).
const keyRandomLen = 40

// Key is an API key. Only the SHA-256 of the secret is stored; Prefix is a
// short, non-secret part shown in listings.
type Key struct {
	ID         KeyID
	AccountID  AccountID
	Kind       KeyKind
	FileID     FileID // the bound file for KeyPage, empty for KeyGeneral
	Name       string
	Prefix     string // display prefix, e.g. "ffk_Ab3dE9"
	Hash       string // hex SHA-256 of the whole key
	CreatedAt  time.Time
	LastUsedAt time.Time // zero when never used
	ExpiresAt  time.Time // zero when it never expires
	RevokedAt  time.Time // zero unless revoked
}

// Usable reports whether the key is neither revoked nor expired at now.
func (k Key) Usable(now time.Time) bool {
	if !k.RevokedAt.IsZero() {
		return false
	}
	return k.ExpiresAt.IsZero() || now.Before(k.ExpiresAt)
}

// NewKeySecret returns a new random key of the given kind, its stored hash and
// its display prefix. The secret is shown to its owner once and never stored.
func NewKeySecret(kind KeyKind) (secret, hash, prefix string) {
	p := GeneralKeyPrefix
	if kind == KeyPage {
		p = PageKeyPrefix
	}
	secret = p + RandomBase62(keyRandomLen)
	return secret, HashKey(secret), secret[:len(p)+6]
}

// HashKey returns the stored form of a key: hex SHA-256.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// LooksLikeKey reports whether s has the shape of a Fileframe key, so that
// obviously malformed tokens are refused without a store lookup.
func LooksLikeKey(s string) bool {
	if !strings.HasPrefix(s, GeneralKeyPrefix) && !strings.HasPrefix(s, PageKeyPrefix) {
		return false
	}
	rest := s[len(GeneralKeyPrefix):]
	if len(rest) < 32 || len(rest) > 128 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(base62, rest[i]) < 0 {
			return false
		}
	}
	return true
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomBase62 returns n characters drawn uniformly from [0-9A-Za-z] with
// crypto/rand (rejection sampling, so there is no modulo bias).
func RandomBase62(n int) string {
	out := make([]byte, 0, n)
	var buf [64]byte
	for len(out) < n {
		rand.Read(buf[:]) // never returns an error (crypto/rand docs, Go 1.24+)
		for _, b := range buf {
			if b < 248 { // 248 = 4 × 62
				out = append(out, base62[b%62])
				if len(out) == n {
					break
				}
			}
		}
	}
	return string(out)
}

// NewAccountID, NewFileID, NewKeyID and NewSlug return fresh random
// identifiers. Slugs are unguessable: 12 base62 characters (≈71 bits).
func NewAccountID() AccountID { return AccountID("a_" + RandomBase62(16)) }

// NewFileID returns a fresh random file ID.
func NewFileID() FileID { return FileID("f_" + RandomBase62(16)) }

// LooksLikeFileID reports whether s has the shape of a file ID: "f_" and
// 1 to 64 ASCII letters and digits (NewFileID makes 16). An ID from a
// request of any other shape (dots, slashes, escapes, other scripts) is
// not looked up at all.
func LooksLikeFileID(s string) bool {
	rest, ok := strings.CutPrefix(s, "f_")
	if !ok || len(rest) == 0 || len(rest) > 64 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// NewKeyID returns a fresh random key ID.
func NewKeyID() KeyID { return KeyID("k_" + RandomBase62(16)) }

// NewSlug returns a fresh random public slug.
func NewSlug() string { return RandomBase62(12) }

// Valid reports whether id has the exact shape NewAccountID gives: "a_" and
// 16 base62 characters. Identifiers from a request are checked with it
// before they are used as anything but a database key.
func (id AccountID) Valid() bool { return validID(string(id), "a_", 16) }

// IsBase62 reports whether s is n characters of [0-9A-Za-z].
func IsBase62(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// validID reports whether id is prefix followed by n base62 characters.
func validID(id, prefix string, n int) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	return ok && IsBase62(rest, n)
}

// Check reports whether k can be stored: a known kind, a file exactly when
// it is page-bound, and a hash. Stores call it before writing; its errors
// are EINVALID.
func (k Key) Check() error {
	switch {
	case k.Kind != KeyGeneral && k.Kind != KeyPage:
		return Errorf(EINVALID, "Unknown key kind %q.", k.Kind)
	case k.Kind == KeyPage && k.FileID == "":
		return Errorf(EINVALID, "A page-bound key needs a file.")
	case k.Kind == KeyGeneral && k.FileID != "":
		return Errorf(EINVALID, "A general key is not bound to a file.")
	case k.Hash == "":
		return Errorf(EINVALID, "A key needs a hash.")
	}
	return nil
}

// KeyStore keeps API keys. Errors follow Store's conventions.
type KeyStore interface {
	// CreateKey stores a new API key (its hash, never the secret). ID and
	// CreatedAt are set when empty. A page-bound key's file must exist and
	// belong to the key's account (else ENOTFOUND).
	CreateKey(ctx context.Context, k Key) (Key, error)
	// KeyByHash returns the key whose secret hashes to hash, revoked and
	// expired keys included (the caller decides with Key.Usable).
	KeyByHash(ctx context.Context, hash string) (Key, error)
	// KeysByAccount lists an account's keys, newest first, revoked included.
	KeysByAccount(ctx context.Context, id AccountID) ([]Key, error)
	// RevokeKey revokes one of the account's keys at the given time. A key
	// of another account is ENOTFOUND. Revoking twice keeps the first time.
	RevokeKey(ctx context.Context, account AccountID, id KeyID, at time.Time) error
	// TouchKey records that the key was used at the given time.
	TouchKey(ctx context.Context, id KeyID, at time.Time) error
}

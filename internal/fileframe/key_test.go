package fileframe

import (
	"strings"
	"testing"
	"time"
)

func TestNewKeySecret(t *testing.T) {
	for _, tt := range []struct {
		kind   KeyKind
		prefix string
	}{
		{KeyGeneral, GeneralKeyPrefix},
		{KeyPage, PageKeyPrefix},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			secret, hash, display := NewKeySecret(tt.kind)
			if !strings.HasPrefix(secret, tt.prefix) {
				t.Errorf("secret %q: want prefix %q", secret, tt.prefix)
			}
			if got, want := len(secret), len(tt.prefix)+keyRandomLen; got != want {
				t.Errorf("len(secret) = %d, want %d", got, want)
			}
			if !LooksLikeKey(secret) {
				t.Errorf("LooksLikeKey(%q) = false, want true", secret)
			}
			if got, want := hash, HashKey(secret); got != want {
				t.Errorf("hash = %q, want HashKey(secret) = %q", got, want)
			}
			if strings.Contains(hash, secret[len(tt.prefix):]) {
				t.Errorf("hash contains the secret")
			}
			if !strings.HasPrefix(secret, display) || len(display) != len(tt.prefix)+6 {
				t.Errorf("display prefix %q does not start the secret or has the wrong length", display)
			}
			other, _, _ := NewKeySecret(tt.kind)
			if other == secret {
				t.Errorf("two keys are equal: %q", secret)
			}
		})
	}
}

func TestLooksLikeKey(t *testing.T) {
	ok := "ffk_" + strings.Repeat("a", 40)
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{ok, true},
		{"ffp_" + strings.Repeat("Z9", 20), true},
		{"", false},
		{"ffk_", false},
		{"ffk_" + strings.Repeat("a", 31), false},
		{"ffk_" + strings.Repeat("a", 129), false},
		{"ffx_" + strings.Repeat("a", 40), false},
		{"FFK_" + strings.Repeat("a", 40), false},
		{"ffk_" + strings.Repeat("a", 39) + "-", false},
		{"ffk_" + strings.Repeat("a", 39) + "é", false},
		{" " + ok, false},
	} {
		if got := LooksLikeKey(tt.in); got != tt.want {
			t.Errorf("LooksLikeKey(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRandomBase62(t *testing.T) {
	const n = 62 * 1000
	s := RandomBase62(n)
	if len(s) != n {
		t.Fatalf("len = %d, want %d", len(s), n)
	}
	counts := map[rune]int{}
	for _, c := range s {
		if !strings.ContainsRune(base62, c) {
			t.Fatalf("character %q is not base62", c)
		}
		counts[c]++
	}
	// Every symbol is expected 1000 times; a modulo bias or a missing symbol
	// would push some far outside this band (±30% is > 9 standard deviations).
	for _, c := range base62 {
		if got := counts[c]; got < 700 || got > 1300 {
			t.Errorf("symbol %q drawn %d times in %d, want about 1000", c, got, n)
		}
	}
}

func TestKeyUsable(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		key  Key
		want bool
	}{
		{"fresh", Key{}, true},
		{"expires later", Key{ExpiresAt: now.Add(time.Second)}, true},
		{"expired now", Key{ExpiresAt: now}, false},
		{"expired", Key{ExpiresAt: now.Add(-time.Hour)}, false},
		{"revoked", Key{RevokedAt: now.Add(-time.Hour)}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.key.Usable(now); got != tt.want {
				t.Errorf("Usable = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		for _, id := range []string{string(NewAccountID()), string(NewFileID()), string(NewKeyID()), NewSlug()} {
			if seen[id] {
				t.Fatalf("duplicate id %q", id)
			}
			seen[id] = true
		}
	}
	if got := len(NewSlug()); got != 12 {
		t.Errorf("len(NewSlug()) = %d, want 12", got)
	}
}

func TestKeyAndAccountCheck(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want string // error code, "" for valid
	}{
		{"general key", Key{Kind: KeyGeneral, Hash: "h"}.Check(), ""},
		{"page key", Key{Kind: KeyPage, FileID: "f", Hash: "h"}.Check(), ""},
		{"unknown kind", Key{Kind: "x", Hash: "h"}.Check(), EINVALID},
		{"page key without file", Key{Kind: KeyPage, Hash: "h"}.Check(), EINVALID},
		{"general key with file", Key{Kind: KeyGeneral, FileID: "f", Hash: "h"}.Check(), EINVALID},
		{"key without hash", Key{Kind: KeyGeneral}.Check(), EINVALID},
		{"account", Account{Email: "a@example.com", Plan: PlanFree}.Check(), ""},
		{"account without email", Account{Plan: PlanFree}.Check(), EINVALID},
		{"account without plan", Account{Email: "a@example.com"}.Check(), EINVALID},
	} {
		if got := ErrorCode(tt.err); got != tt.want {
			t.Errorf("%s: error code %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCheckFileName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"report.pdf", true},
		{"Quarterly report (final) é.pdf", true},
		{"گزارش\u200cنهایی.pdf", true}, // Persian with a zero-width non-joiner
		{"family 👨\u200d👩\u200d👧.jpg", true},
		{"", false},
		{"a\r\nb", false},
		{"a\tb", false},
		{"a\u0085b", false},
		{"a\u2028b", false}, // line separator
		{"a\u2029b", false}, // paragraph separator
		{"invoice\u202efdp.exe", false},
		{"a\u202ab", false},
		{"a\u2066b", false},
		{"a\u200eb", false},
		{"a\u061cb", false},
		{"a\u200bb", false},
		{"\ufeffa", false},
		{"a\u00adb", false},
		{string(make([]byte, 256)), false},
		{"\xff", false},
		{"   ", false},          // nothing to see
		{"\u2800\u2800", false}, // Braille blanks
		{"\u3000", false},       // an ideographic space
		{"\u0301", false},       // a combining mark on nothing
		{"a\u3164b", false},     // a Hangul filler, drawn as nothing
		{"a\u034fb", false},     // the combining grapheme joiner
		{"\u115f.pdf", false},   // a Hangul choseong filler
		{".", false},
		{"..", false},
		{"...txt", true},
		{"I \u2764\ufe0f it.png", true}, // a variation selector after a heart
		{" report .pdf", true},          // spaces around a visible name
	} {
		if err := CheckFileName(tt.name); (err == nil) != tt.ok {
			t.Errorf("CheckFileName(%q): got %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

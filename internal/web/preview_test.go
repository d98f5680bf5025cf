package web

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"
)

// previewServer is a Server with just what preview tokens need, on a clock
// that tests set.
func previewServer(now *time.Time) *Server {
	return &Server{
		cfg: Config{PreviewSecret: bytes.Repeat([]byte("k"), 32)},
		now: func() time.Time { return *now },
	}
}

func TestVerifyPreview(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := previewServer(&now)
	exp := now.Add(time.Hour)
	valid := s.previewToken("abcDEF123456", 3, exp)
	other := &Server{cfg: Config{PreviewSecret: bytes.Repeat([]byte("x"), 32)}, now: s.now}
	payload, mac, _ := strings.Cut(valid, ".")
	forged := func(p string) string { return base64.RawURLEncoding.EncodeToString([]byte(p)) + "." + mac }

	tests := []struct {
		name, slug, token string
		wantRev           int
	}{
		{"valid", "abcDEF123456", valid, 3},
		{"other slug", "abcDEF123457", valid, 0},
		{"empty slug", "", valid, 0},
		{"empty token", "abcDEF123456", "", 0},
		{"no dot", "abcDEF123456", payload, 0},
		{"empty mac", "abcDEF123456", payload + ".", 0},
		{"other secret", "abcDEF123456", other.previewToken("abcDEF123456", 3, exp), 0},
		{"revision changed", "abcDEF123456", forged("abcDEF123456.4." + strconv.FormatInt(exp.Unix(), 10)), 0},
		{"expiry extended", "abcDEF123456", forged("abcDEF123456.3." + strconv.FormatInt(exp.Unix()+86400, 10)), 0},
		{"mac flipped", "abcDEF123456", payload + "." + flipFirst(mac), 0},
		{"payload flipped", "abcDEF123456", flipFirst(payload) + "." + mac, 0},
		{"padding", "abcDEF123456", valid + "=", 0},
		{"three parts", "abcDEF123456", valid + ".x", 0},
		{"too long", "abcDEF123456", valid + strings.Repeat("A", 600), 0},
		{"revision 0", "abcDEF123456", s.previewToken("abcDEF123456", 0, exp), 0},
		{"revision -1", "abcDEF123456", s.previewToken("abcDEF123456", -1, exp), 0},
		{"dot in slug", "a.b", s.previewToken("a.b", 1, exp), 0},
		{"expires now", "abcDEF123456", s.previewToken("abcDEF123456", 3, now), 0},
		{"expired", "abcDEF123456", s.previewToken("abcDEF123456", 3, now.Add(-time.Second)), 0},
		{"not yet expired", "abcDEF123456", s.previewToken("abcDEF123456", 3, now.Add(time.Second)), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rev, ok := s.verifyPreview(tt.slug, tt.token)
			if ok != (tt.wantRev > 0) || rev != tt.wantRev {
				t.Errorf("verifyPreview: got %d %v, want %d", rev, ok, tt.wantRev)
			}
		})
	}

	// The clock moves past the expiry.
	now = exp
	if _, ok := s.verifyPreview("abcDEF123456", valid); ok {
		t.Errorf("a token is accepted at its expiry time")
	}
}

func flipFirst(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

// FuzzVerifyPreview checks that verifyPreview never panics and accepts only
// what previewToken signed for that slug: an accepted token must decode to
// the payload and MAC that previewToken makes for the revision and expiry it
// names. (Comparing decoded bytes rather than strings: base64 decoding
// ignores the unused low bits of the last character, so a token has a few
// spellings; they grant exactly the same.)
//
//	go test -run '^$' -fuzz FuzzVerifyPreview ./internal/web
func FuzzVerifyPreview(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	s := previewServer(&now)
	for _, slug := range []string{"abcDEF123456", "x", ""} {
		for _, rev := range []int{1, 2, 50} {
			tok := s.previewToken(slug, rev, now.Add(time.Hour))
			f.Add(slug, tok)
			f.Add(slug, tok[:len(tok)-1])
			f.Add(slug+"x", tok)
		}
		f.Add(slug, s.previewToken(slug, 1, now.Add(-time.Hour)))
	}
	f.Add("abcDEF123456", "")
	f.Add("abcDEF123456", ".")
	f.Add("abcDEF123456", "YWJj.ZGVm")
	f.Add("a.b", s.previewToken("a.b", 1, now.Add(time.Hour)))

	f.Fuzz(func(t *testing.T, slug, token string) {
		rev, ok := s.verifyPreview(slug, token)
		if !ok {
			if rev != 0 {
				t.Errorf("refused token gives revision %d", rev)
			}
			return
		}
		p, m, _ := strings.Cut(token, ".")
		payload, err1 := base64.RawURLEncoding.DecodeString(p)
		mac, err2 := base64.RawURLEncoding.DecodeString(m)
		if err1 != nil || err2 != nil {
			t.Fatalf("accepted a token that does not decode: %q", token)
		}
		parts := strings.Split(string(payload), ".")
		if len(parts) != 3 || parts[0] != slug || parts[1] != strconv.Itoa(rev) {
			t.Fatalf("accepted %q for slug %q revision %d", payload, slug, rev)
		}
		exp, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil || !now.Before(time.Unix(exp, 0)) {
			t.Fatalf("accepted an expired or malformed expiry %q", parts[2])
		}
		want := s.previewToken(slug, rev, time.Unix(exp, 0))
		wp, wm, _ := strings.Cut(want, ".")
		wantPayload, _ := base64.RawURLEncoding.DecodeString(wp)
		wantMAC, _ := base64.RawURLEncoding.DecodeString(wm)
		if !bytes.Equal(payload, wantPayload) || !bytes.Equal(mac, wantMAC) {
			t.Fatalf("accepted %q, which previewToken did not make (it makes %q)", token, want)
		}
	})
}

package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// A preview token lets whoever holds it see one revision of a page (a draft,
// usually) exactly as visitors would, until it expires. It is
// base64url("<slug>.<revision>.<expiry unix>") + "." + base64url(HMAC-SHA256).

// previewToken returns a token for revision rev of the page at slug.
func (s *Server) previewToken(slug string, rev int, expires time.Time) string {
	payload := slug + "." + strconv.Itoa(rev) + "." + strconv.FormatInt(expires.Unix(), 10)
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
		base64.RawURLEncoding.EncodeToString(s.previewMAC(payload))
}

// verifyPreview returns the revision a valid, unexpired token grants for slug.
func (s *Server) verifyPreview(slug, token string) (rev int, ok bool) {
	p, m, found := strings.Cut(token, ".")
	if !found || len(token) > 512 {
		return 0, false
	}
	// Strict: a token has exactly one spelling.
	payload, err1 := base64.RawURLEncoding.Strict().DecodeString(p)
	mac, err2 := base64.RawURLEncoding.Strict().DecodeString(m)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.previewMAC(string(payload))) {
		return 0, false
	}
	parts := strings.Split(string(payload), ".")
	if len(parts) != 3 || parts[0] != slug {
		return 0, false
	}
	rev, err1 = strconv.Atoi(parts[1])
	exp, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || rev < 1 || !s.now().Before(time.Unix(exp, 0)) {
		return 0, false
	}
	return rev, true
}

func (s *Server) previewMAC(payload string) []byte {
	h := hmac.New(sha256.New, s.cfg.PreviewSecret)
	h.Write([]byte("fileframe-preview\x00" + payload))
	return h.Sum(nil)
}

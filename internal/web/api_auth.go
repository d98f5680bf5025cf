package web

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// apiCaller is who an API request acts for: a usable key and its account.
type apiCaller struct {
	key     fileframe.Key
	account fileframe.Account
}

// authenticate finds the caller of an API request from its
// "Authorization: Bearer <key>" header. Every way of failing is an
// unauthorized error whose message tells the caller what to fix; a store
// failure is returned as it is (a 500), never as a 401. It does not check the
// plan: a downgraded account's key authenticates, and the caller answers 403.
func (s *Server) authenticate(r *http.Request) (apiCaller, error) {
	if len(r.Header.Values("Authorization")) > 1 {
		return apiCaller{}, unauthorized("The request has more than one Authorization header. Send exactly one: `Authorization: Bearer <key>`.")
	}
	header := r.Header.Get("Authorization")
	if header == "" {
		return apiCaller{}, unauthorized("The request has no Authorization header. Send the API key as `Authorization: Bearer <key>`; the owner of an Agency account creates keys in the app.")
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(header), " ")
	// Auth schemes are case-insensitive (RFC 9110, section 11.1).
	if !strings.EqualFold(scheme, "Bearer") {
		return apiCaller{}, unauthorized("The Authorization header must use the Bearer scheme: `Authorization: Bearer <key>`.")
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return apiCaller{}, unauthorized("The Authorization header has no key after `Bearer`. Send `Authorization: Bearer <key>`.")
	}
	if !fileframe.LooksLikeKey(token) {
		return apiCaller{}, unauthorized("The bearer token is not a Fileframe API key. A key starts with ffk_ (general) or ffp_ (page-bound) followed by at least 32 letters and digits; check that the whole key was copied.")
	}

	hash := fileframe.HashKey(token)
	key, err := s.store.KeyByHash(r.Context(), hash)
	if fileframe.IsNotFound(err) {
		return apiCaller{}, unknownKey()
	} else if err != nil {
		return apiCaller{}, fmt.Errorf("looking up API key: %w", err)
	}
	// The lookup was by hash already; comparing again in constant time keeps
	// timing from telling anything even if a store matched loosely.
	if subtle.ConstantTimeCompare([]byte(key.Hash), []byte(hash)) != 1 {
		return apiCaller{}, unknownKey()
	}
	now := s.now()
	if !key.RevokedAt.IsZero() {
		return apiCaller{}, unauthorized("This API key was revoked. Ask the account owner for a new key.")
	}
	if !key.Usable(now) {
		return apiCaller{}, unauthorized("This API key expired at %s. Ask the account owner for a new key.",
			key.ExpiresAt.UTC().Format(time.RFC3339))
	}

	account, err := s.store.AccountByID(r.Context(), key.AccountID)
	if fileframe.IsNotFound(err) {
		return apiCaller{}, unknownKey()
	} else if err != nil {
		return apiCaller{}, fmt.Errorf("looking up the account of key %s: %w", key.ID, err)
	}
	if account.Disabled {
		return apiCaller{}, unauthorized("The account that owns this API key is disabled. Its owner has to contact the operator.")
	}
	return apiCaller{key: key, account: account}, nil
}

func unauthorized(format string, args ...any) error {
	return fileframe.Errorf(fileframe.CodeUnauthorized, format, args...)
}

func unknownKey() error {
	return unauthorized("This API key is not known: it may be mistyped, incomplete or deleted. Check the key, or ask the account owner for a new one.")
}

// touchKey records that the caller's key was used, at most once a minute
// per key: the stored last-used time is checked first, and this process
// writes it for a key at most once a minute even when many requests arrive
// before the stored time changes. A failure is logged and otherwise ignored;
// it must not fail the request.
func (s *Server) touchKey(r *http.Request, key fileframe.Key) {
	now := s.now()
	if now.Sub(key.LastUsedAt) < time.Minute {
		return
	}
	if ok, _ := s.touches.allow("touch:"+string(key.ID), 1.0/60, 1); !ok {
		return
	}
	if err := s.store.TouchKey(r.Context(), key.ID, now); err != nil {
		s.logFor(r).Warn("api: recording key use", "key_id", key.ID, "err", err)
	}
}

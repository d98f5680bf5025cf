package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Defaults of the web application's sessions and forms.
const (
	defaultSessionTTL = 30 * 24 * time.Hour
	// sessionTouchEvery is how often a session's activity is written at
	// most: a write per request would queue on the store's one writer
	// with every upload and page save.
	sessionTouchEvery = time.Minute
	// maxFormBody caps the body of the application's forms.
	maxFormBody = 64 << 10
)

// signedIn is the session of a request to the application, with its
// account.
type signedIn struct {
	session fileframe.Session
	account fileframe.Account
	// csrf is the token the session's forms carry.
	csrf string
}

func (s *Server) sessionTTL() time.Duration {
	if s.cfg.SessionTTL > 0 {
		return s.cfg.SessionTTL
	}
	return defaultSessionTTL
}

// secureCookies reports whether the application is served over https; its
// cookies are then Secure and carry the __Host- prefix.
func (s *Server) secureCookies() bool { return s.cfg.BaseURL.Scheme == "https" }

func (s *Server) cookieName(base string) string {
	if s.secureCookies() {
		return "__Host-" + base
	}
	return base
}

func (s *Server) sessionCookieName() string { return s.cookieName("ff_session") }
func (s *Server) csrfCookieName() string    { return s.cookieName("ff_csrf") }

// setCookie sets an application cookie: HttpOnly, SameSite=Lax, Path=/,
// Secure over https. maxAge < 0 deletes it.
func (s *Server) setCookie(w http.ResponseWriter, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.secureCookies(), SameSite: http.SameSiteLaxMode,
	})
}

// startSession creates a session for the account, whose password the
// request has just proven, and sets its cookie and the device cookie
// (trustDevice).
func (s *Server) startSession(ctx context.Context, w http.ResponseWriter, acct fileframe.Account) error {
	token := fileframe.RandomBase62(43) // ≈ 256 bits
	now := s.now()
	err := s.store.CreateSession(ctx, fileframe.Session{
		Hash: fileframe.HashKey(token), AccountID: acct.ID,
		CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(s.sessionTTL()),
	})
	if err != nil {
		return err
	}
	s.setCookie(w, s.sessionCookieName(), token, int(s.sessionTTL().Seconds()))
	// The anonymous forms' cookie has done its work.
	s.setCookie(w, s.csrfCookieName(), "", -1)
	s.trustDevice(w, acct.Email)
	return nil
}

// currentSession returns the request's session, or nil when it has none
// that is valid: no cookie, an unknown, expired or ended session, or a
// disabled account (whose session is then ended). A store failure is its
// error, for the caller to answer (503 while the database is out of reach),
// rather than a signed-out visitor: the cookie is kept, so a passing
// database failure does not end the session, and a browser's upload is not
// told to sign in. An active session's expiry slides forward, with a write
// at most once a minute.
func (s *Server) currentSession(w http.ResponseWriter, r *http.Request) (*signedIn, error) {
	c, err := r.Cookie(s.sessionCookieName())
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return nil, nil
	}
	ctx := r.Context()
	hash := fileframe.HashKey(c.Value)
	sess, err := s.store.SessionByHash(ctx, hash)
	if err != nil {
		if !fileframe.IsNotFound(err) {
			return nil, fmt.Errorf("reading the session: %w", err)
		}
		s.setCookie(w, s.sessionCookieName(), "", -1)
		return nil, nil
	}
	now := s.now()
	if !now.Before(sess.ExpiresAt) {
		s.endSession(r, hash)
		s.setCookie(w, s.sessionCookieName(), "", -1)
		return nil, nil
	}
	acct, err := s.store.AccountByID(ctx, sess.AccountID)
	if err != nil || acct.Disabled {
		if err != nil && !fileframe.IsNotFound(err) {
			return nil, fmt.Errorf("reading the session's account: %w", err)
		}
		s.endSession(r, hash)
		s.setCookie(w, s.sessionCookieName(), "", -1)
		return nil, nil
	}
	if ok, _ := s.touches.allow("session:"+hash, 1/sessionTouchEvery.Seconds(), 1); ok {
		expires := now.Add(s.sessionTTL())
		if err := s.store.TouchSession(ctx, hash, now, expires); err != nil {
			s.logFor(r).Log(ctx, faultLevel(err), "app: touching the session", "err", err)
		} else {
			sess.LastSeenAt, sess.ExpiresAt = now, expires
			s.setCookie(w, s.sessionCookieName(), c.Value, int(s.sessionTTL().Seconds()))
		}
	}
	return &signedIn{session: sess, account: acct, csrf: s.csrfToken("session:" + hash)}, nil
}

// endSession deletes a session, logging a failure.
func (s *Server) endSession(r *http.Request, hash string) {
	if err := s.store.DeleteSession(r.Context(), hash); err != nil {
		s.logFor(r).Error("app: ending the session", "err", err)
	}
}

// csrfKey is the key that signs CSRF tokens, derived from the preview
// secret so that no second secret has to be stored and wired; the label
// keeps a token from ever being a valid preview signature and back.
func (s *Server) csrfKey() []byte {
	m := hmac.New(sha256.New, s.cfg.PreviewSecret)
	m.Write([]byte("fileframe csrf v1"))
	return m.Sum(nil)
}

// csrfToken returns the token of forms bound to binding: "session:<hash>"
// for a signed-in browser, "anon:<nonce of the ff_csrf cookie>" otherwise.
func (s *Server) csrfToken(binding string) string {
	return signCSRF(s.csrfKey(), binding)
}

func signCSRF(key []byte, binding string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(binding))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// verifyCSRF reports whether token is the token of binding, in constant
// time. Anything that is not exactly a token is false.
func verifyCSRF(key []byte, binding, token string) bool {
	if len(token) != 43 || binding == "" {
		return false
	}
	got, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(binding))
	return subtle.ConstantTimeCompare(got, m.Sum(nil)) == 1
}

// anonCSRF returns the token of an anonymous form, setting the double-submit
// cookie with a fresh nonce when the browser has none.
func (s *Server) anonCSRF(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(s.csrfCookieName()); err == nil && validNonce(c.Value) {
		return s.csrfToken("anon:" + c.Value)
	}
	nonce := fileframe.RandomBase62(32)
	s.setCookie(w, s.csrfCookieName(), nonce, 0)
	return s.csrfToken("anon:" + nonce)
}

func validNonce(v string) bool {
	return len(v) == 32 && validBase62(v)
}

// validBase62 reports whether v is made of [0-9a-zA-Z] only.
func validBase62(v string) bool {
	for _, c := range v {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// checkAnonCSRF checks the token of an anonymous form against the
// double-submit cookie.
func (s *Server) checkAnonCSRF(r *http.Request) bool {
	c, err := r.Cookie(s.csrfCookieName())
	if err != nil || !validNonce(c.Value) {
		return false
	}
	return verifyCSRF(s.csrfKey(), "anon:"+c.Value, r.PostFormValue("csrf"))
}

// checkSessionCSRF checks the token of a signed-in form.
func (s *Server) checkSessionCSRF(r *http.Request, user *signedIn) bool {
	return verifyCSRF(s.csrfKey(), "session:"+user.session.Hash, r.PostFormValue("csrf"))
}

// maxEmailBytes is the longest email address a form takes (RFC 5321's
// limit on a path).
const maxEmailBytes = 254

// parseEmail normalises an email address typed into a form and returns the
// message for one that cannot be an address, or "".
func parseEmail(raw string) (string, string) {
	e := strings.ToLower(strings.TrimSpace(raw))
	at := strings.LastIndexByte(e, '@')
	switch {
	case e == "":
		return e, "Enter your email address."
	case len(e) > maxEmailBytes:
		return e, "This email address is too long."
	case at < 1 || at == len(e)-1 || strings.ContainsAny(e, " \t\r\n<>\"\\,;"):
		return e, "Enter an email address like name@example.com."
	}
	return e, ""
}

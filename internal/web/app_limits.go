package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// RateLimit is a token bucket: PerSecond requests a second on average, in
// bursts of up to Burst.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// LoginLimits limit the guessing of passwords in the application, following
// OWASP's advice against online guessing without handing strangers a way to
// lock an account out: a sign-in takes a token from its address's bucket,
// then from the bucket of that address at that account (tight), then from
// the account's own bucket, shared by every address (loose: one address,
// held by the tighter bucket, can never empty it alone). A browser that has
// signed in to the account before carries a device cookie for it (OWASP's
// "device cookies"), and its sign-ins to that account take from its own
// bucket instead, so that not even a guess spread over many addresses,
// which can empty the account's bucket, keeps it out. Sign-up and setup
// are limited per address.
//
// Each is a bucket of Config.RateLimiter, so instances sharing one
// (PostgreSQL) share them; a token is taken before any password is hashed,
// so that requests arriving together cannot all slip through before one is
// counted. A zero RateLimit means its default.
type LoginLimits struct {
	// Address limits one client address (an IPv6 /64) at each form that
	// hashes a password: sign-in, sign-up, setup and password change.
	// Default 10 a minute, in bursts of 10.
	Address RateLimit
	// AddressAccount limits the sign-ins of one address at one account,
	// and the password changes of one session (guesses of its account's
	// current password). Default bursts of 5, then one every 3 minutes.
	AddressAccount RateLimit
	// Account limits the sign-ins at one account from browsers without
	// its device cookie, from all addresses together. Default bursts of
	// 50, then 50 an hour. Keep it above AddressAccount (burst and rate),
	// so that one address never exhausts it.
	Account RateLimit
	// Device limits the sign-ins of one device cookie at its account.
	// Default bursts of 5, then one every 3 minutes.
	Device RateLimit
}

// defaultLoginLimits returns the defaults of LoginLimits.
func defaultLoginLimits() LoginLimits {
	return LoginLimits{
		Address:        RateLimit{PerSecond: 10.0 / 60, Burst: 10},
		AddressAccount: RateLimit{PerSecond: 1.0 / 180, Burst: 5},
		Account:        RateLimit{PerSecond: 50.0 / 3600, Burst: 50},
		Device:         RateLimit{PerSecond: 1.0 / 180, Burst: 5},
	}
}

// withDefaults returns l with every zero limit set to its default.
func (l LoginLimits) withDefaults() LoginLimits {
	d := defaultLoginLimits()
	for _, f := range []struct{ v, def *RateLimit }{
		{&l.Address, &d.Address},
		{&l.AddressAccount, &d.AddressAccount},
		{&l.Account, &d.Account},
		{&l.Device, &d.Device},
	} {
		if f.v.PerSecond <= 0 {
			*f.v = *f.def
		}
		f.v.Burst = max(f.v.Burst, 1)
	}
	return l
}

// limitedBucket is a named bucket of the rate limiter with its limit.
type limitedBucket struct {
	name  string
	limit RateLimit
}

// guard is allow for the buckets that stand between a stranger and a
// password (sign-in, sign-up, setup, password change, link and request
// passwords): a limiter that fails (its shared database out of reach)
// refuses the request, which its caller answers 503 with Retry-After
// (errGuardFailed), rather than letting a guess through unlimited as allow
// does for the API. failed reports that.
func (s *Server) guard(r *http.Request, b limitedBucket) (d fileframe.RateDecision, failed bool) {
	d, err := s.limits.Allow(r.Context(), b.name, b.limit.PerSecond, b.limit.Burst, s.now())
	if err != nil {
		s.logFor(r).Warn("rate limiter failed; refusing the password guess", "bucket", b.name, "err", err)
		return fileframe.RateDecision{}, true
	}
	return d, false
}

// errGuardFailed is the answer to a password guess that guard refused
// because the limiter failed.
var errGuardFailed = fileframe.Errorf(fileframe.CodeUnavailable,
	"The service is out of reach just now, so the password could not be checked. Please try again in a few seconds.")

// rateLimited takes a token from each bucket, in order; when one is empty
// it answers 429 with Retry-After on the form's page (name), keeping what
// was typed, and reports true. The buckets after an empty one are not
// charged. When the limiter fails it answers 503 (guard).
func (s *Server) rateLimited(w http.ResponseWriter, r *http.Request, name string, p appPage, buckets ...limitedBucket) bool {
	for _, b := range buckets {
		d, failed := s.guard(r, b)
		if failed {
			s.appError(w, r, nil, errGuardFailed)
			return true
		}
		if d.Allowed {
			continue
		}
		secs := retryAfterSeconds(d.RetryAfter)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		p.Errors[""] = fmt.Sprintf("Too many attempts. Please wait %d seconds and try again.", secs)
		s.renderApp(w, r, http.StatusTooManyRequests, name, p)
		return true
	}
	return false
}

// addressBucket is the bucket of the request's client address at one form
// (kind: "app-login", "app-setup", ...).
func (s *Server) addressBucket(r *http.Request, kind string) limitedBucket {
	return limitedBucket{kind + ":" + clientBucket(r.RemoteAddr), s.cfg.Login.Address}
}

// passwordChangeBuckets are the buckets of a password change: its address,
// then its session, so a stolen session guesses its account's password no
// faster than an address guesses at the sign-in form, and never limits the
// account's other sessions.
func (s *Server) passwordChangeBuckets(r *http.Request, user *signedIn) []limitedBucket {
	return []limitedBucket{
		s.addressBucket(r, "app-password"),
		{"app-password-session:" + user.session.Hash, s.cfg.Login.AddressAccount},
	}
}

// loginBuckets are the buckets a sign-in at email takes tokens from: its
// device's alone when the browser carries the account's device cookie, else
// its address's, its address's at the account, and the account's.
func (s *Server) loginBuckets(r *http.Request, email string) []limitedBucket {
	if device, ok := s.deviceOf(r, email); ok {
		return []limitedBucket{{"app-login-device:" + device, s.cfg.Login.Device}}
	}
	account := fileframe.HashKey(email)
	ip := clientBucket(r.RemoteAddr)
	return []limitedBucket{
		{"app-login:" + ip, s.cfg.Login.Address},
		{"app-login-pair:" + account + ":" + ip, s.cfg.Login.AddressAccount},
		{"app-login-email:" + account, s.cfg.Login.Account},
	}
}

// deviceCookieTTL is how long a browser is known as a device that signed in
// to its account: each sign-in renews it.
const deviceCookieTTL = 180 * 24 * time.Hour

func (s *Server) deviceCookieName() string { return s.cookieName("ff_device") }

// deviceKey is the key that signs device cookies, derived from the preview
// secret (shared by every instance) as csrfKey is, with its own label.
func (s *Server) deviceKey() []byte {
	m := hmac.New(sha256.New, s.cfg.PreviewSecret)
	m.Write([]byte("fileframe device v1"))
	return m.Sum(nil)
}

// deviceMAC signs a device's nonce for one account's email.
func (s *Server) deviceMAC(email, nonce string) []byte {
	m := hmac.New(sha256.New, s.deviceKey())
	m.Write([]byte(email + "\n" + nonce))
	return m.Sum(nil)
}

// trustDevice sets the device cookie of a browser that has just proven the
// account's password: "<nonce>.<HMAC of email and nonce>". It holds no
// session and signs nobody in; it only lets this browser's later sign-ins
// to this account skip the account's shared bucket. A browser keeps the
// cookie of the last account it signed in to.
func (s *Server) trustDevice(w http.ResponseWriter, email string) {
	nonce := fileframe.RandomBase62(22) // ≈ 131 bits
	value := nonce + "." + base64.RawURLEncoding.EncodeToString(s.deviceMAC(email, nonce))
	s.setCookie(w, s.deviceCookieName(), value, int(deviceCookieTTL.Seconds()))
}

// deviceOf returns the nonce of the request's device cookie when it was
// issued for email, in constant time; anything else is no device.
func (s *Server) deviceOf(r *http.Request, email string) (string, bool) {
	c, err := r.Cookie(s.deviceCookieName())
	if err != nil {
		return "", false
	}
	nonce, mac, ok := strings.Cut(c.Value, ".")
	if !ok || len(nonce) != 22 || !validBase62(nonce) || len(mac) != 43 {
		return "", false
	}
	got, err := base64.RawURLEncoding.Strict().DecodeString(mac)
	if err != nil || subtle.ConstantTimeCompare(got, s.deviceMAC(email, nonce)) != 1 {
		return "", false
	}
	return nonce, true
}

package web

import (
	"fmt"
	"net/http"
	"strconv"
)

// RateLimit is a token bucket: PerSecond requests a second on average, in
// bursts of up to Burst.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// LoginLimits limit the guessing of passwords in the application. Each is a
// bucket of Config.RateLimiter, so instances sharing one (PostgreSQL) share
// them; a token is taken before any password is hashed, so that requests
// arriving together cannot all slip through before one is counted. A zero
// RateLimit means its default.
type LoginLimits struct {
	// Address limits one client address (an IPv6 /64) at each form that
	// hashes a password: sign-in, sign-up, setup and password change.
	// Default 10 a minute, in bursts of 10.
	Address RateLimit
	// AddressAccount limits the password guesses of one address at one
	// account, and of one session at its own current password (the
	// password change form). Default bursts of 5, then one every 3
	// minutes.
	AddressAccount RateLimit
}

// defaultLoginLimits returns the defaults of LoginLimits.
func defaultLoginLimits() LoginLimits {
	return LoginLimits{
		Address:        RateLimit{PerSecond: 10.0 / 60, Burst: 10},
		AddressAccount: RateLimit{PerSecond: 1.0 / 180, Burst: 5},
	}
}

// withDefaults returns l with every zero limit set to its default.
func (l LoginLimits) withDefaults() LoginLimits {
	d := defaultLoginLimits()
	for _, f := range []struct{ v, def *RateLimit }{
		{&l.Address, &d.Address},
		{&l.AddressAccount, &d.AddressAccount},
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

// rateLimited takes a token from each bucket, in order; when one is empty
// it answers 429 with Retry-After on the form's page (name), keeping what
// was typed, and reports true. The buckets after an empty one are not
// charged.
func (s *Server) rateLimited(w http.ResponseWriter, r *http.Request, name string, p appPage, buckets ...limitedBucket) bool {
	for _, b := range buckets {
		ok, wait := s.allow(r, b.name, b.limit.PerSecond, b.limit.Burst)
		if ok {
			continue
		}
		secs := retryAfterSeconds(wait)
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
func (s *Server) passwordChangeBuckets(r *http.Request, si *signedIn) []limitedBucket {
	return []limitedBucket{
		s.addressBucket(r, "app-password"),
		{"app-password-session:" + si.session.Hash, s.cfg.Login.AddressAccount},
	}
}

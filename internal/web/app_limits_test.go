package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/postgres"
	"github.com/fileframe/fileframe/internal/postgres/pgtest"
)

// guesses returns n sign-in posts of a wrong password at email, from the
// browsers in turn, with the CSRF token tok of their anonymous cookie.
func guesses(n int, email, tok string, browsers ...*appBrowser) []formPost {
	posts := make([]formPost, n)
	for i := range posts {
		posts[i] = formPost{browsers[i%len(browsers)], "/login", url.Values{"csrf": {tok}, "email": {email}, "password": {"a wrong guess"}}}
	}
	return posts
}

// anonFrom returns a browser whose requests come from ip, holding the
// anonymous CSRF cookie of src (so src's login token works for it).
func anonFrom(e *testEnv, ip string, src *appBrowser) *appBrowser {
	b := browserFrom(e, ip)
	b.cookies[src.e.srv.csrfCookieName()] = src.cookies[src.e.srv.csrfCookieName()]
	return b
}

// loginStatus posts the right password for email and returns the status.
func (b *appBrowser) loginStatus(email string) int {
	b.e.t.Helper()
	resp, _ := b.post("/login", url.Values{"csrf": {b.token("/login")}, "email": {email}, "password": {testPassword}})
	return resp.StatusCode
}

// logout signs the browser out, keeping its other cookies.
func (b *appBrowser) logout() {
	b.e.t.Helper()
	if resp, _ := b.post("/logout", url.Values{"csrf": {b.token("/account")}}); resp.StatusCode != http.StatusSeeOther {
		b.e.t.Fatalf("logout: got %d", resp.StatusCode)
	}
}

// checkGuesses sends the posts at once and checks how many were checked
// (401) and how many refused (429).
func checkGuesses(t *testing.T, posts []formPost, checked int) {
	t.Helper()
	answers := postAll(posts)
	got := countStatuses(t, answers)
	if got[http.StatusUnauthorized] != checked || got[http.StatusTooManyRequests] != len(posts)-checked {
		t.Errorf("answers to %d guesses at once: got %v, want %d × 401 and %d × 429", len(posts), got, checked, len(posts)-checked)
	}
	check429s(t, answers)
}

// TestAppLoginNoLockout is the lock-out of issue 9, item 4: 60 wrong
// passwords at once for an account from address A stop A at its burst at
// that account (only those are hashed, under the hasher's bound), but the
// right password from address B still signs in.
func TestAppLoginNoLockout(t *testing.T) {
	clock := newFakeClock()
	h := boundedHasher(t, time.Minute)
	e := newTestEnv(t, func(c *Config) { c.Now, c.Passwords = clock.Now, h })
	e.member("a@example.com", fileframe.PlanFree)
	lim := defaultLoginLimits()

	attacker := browserFrom(e, "127.0.0.2")
	tok := attacker.token("/login")
	before := h.Stats().Computed
	checkGuesses(t, guesses(60, "a@example.com", tok, attacker), lim.AddressAccount.Burst)
	if ran := h.Stats().Computed - before; ran != uint64(lim.AddressAccount.Burst) {
		t.Errorf("Argon2 computations: got %d, want %d, one per guess let through", ran, lim.AddressAccount.Burst)
	}
	checkBound(t, h)
	if got := attacker.loginStatus("a@example.com"); got != http.StatusTooManyRequests {
		t.Errorf("the attacker's right password: got %d, want 429", got)
	}
	if got := browserFrom(e, "127.0.0.3").loginStatus("a@example.com"); got != http.StatusSeeOther {
		t.Errorf("the owner's right password from another address: got %d, want 303", got)
	}
}

// TestAppLoginDistributedGuess spreads a guess over many addresses: each
// stays under its own limit at the account, so the account's shared bucket
// stops them, and then any browser that has never signed in to it waits;
// the browser that signed in before (its device cookie) still gets in, and
// is itself limited by its own bucket.
func TestAppLoginDistributedGuess(t *testing.T) {
	clock := newFakeClock()
	lim := LoginLimits{
		AddressAccount: RateLimit{PerSecond: 1.0 / 180, Burst: 2},
		Account:        RateLimit{PerSecond: 50.0 / 3600, Burst: 6},
		Device:         RateLimit{PerSecond: 1.0 / 180, Burst: 2},
	}
	e := newTestEnv(t, func(c *Config) { c.Now, c.Passwords, c.Login = clock.Now, boundedHasher(t, time.Minute), lim })
	e.member("a@example.com", fileframe.PlanFree)
	e.member("b@example.com", fileframe.PlanFree)

	device := browserFrom(e, "127.0.0.9")
	device.login("a@example.com", testPassword) // one token of the account's bucket
	device.logout()
	if device.cookies["ff_device"] == "" {
		t.Fatalf("no device cookie after signing in: %v", device.cookies)
	}
	other := browserFrom(e, "127.0.0.10")
	other.login("b@example.com", testPassword)
	other.logout()

	src := newAppBrowser(e)
	tok := src.token("/login")
	var bots []*appBrowser
	for i := range 8 {
		bots = append(bots, anonFrom(e, "127.0.2."+strconv.Itoa(i+1), src))
	}
	// 8 addresses × 3 guesses: 16 pass their addresses' buckets, and the
	// account's has 5 tokens left.
	checkGuesses(t, guesses(24, "a@example.com", tok, bots...), lim.Account.Burst-1)

	if got := browserFrom(e, "127.0.0.30").loginStatus("a@example.com"); got != http.StatusTooManyRequests {
		t.Errorf("a new browser's right password: got %d, want 429 (the account's bucket is empty)", got)
	}
	// b@'s device cookie is not a@'s.
	if got := other.loginStatus("a@example.com"); got != http.StatusTooManyRequests {
		t.Errorf("another account's device cookie: got %d, want 429", got)
	}
	forged := browserFrom(e, "127.0.0.31")
	forged.cookies["ff_device"] = device.cookies["ff_device"][:22] + "." + strings.Repeat("A", 43)
	if got := forged.loginStatus("a@example.com"); got != http.StatusTooManyRequests {
		t.Errorf("a forged device cookie: got %d, want 429", got)
	}
	if got := device.loginStatus("a@example.com"); got != http.StatusSeeOther {
		t.Fatalf("the device that signed in before: got %d, want 303", got)
	}
	// Each sign-in gives the device a new cookie, with a bucket of its own:
	// guesses with it are limited there.
	device.logout()
	checkGuesses(t, guesses(3, "a@example.com", device.token("/login"), device), lim.Device.Burst)
}

// newPostgresStore opens a Store on a fresh database of the PostgreSQL test
// server (pgtest), closed and dropped when the test ends.
func newPostgresStore(t *testing.T) *postgres.Store {
	t.Helper()
	store, err := postgres.Open(t.Context(), pgtest.NewDatabase(t, "fileframe_web_"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// TestAppLoginLimitsShared runs two instances on one PostgreSQL database,
// which keeps their rate limits: guesses sent to both at once are limited
// as if there were one instance, for the address at the account and for
// the account; the owner from another address still gets in, and so does,
// later, the owner's browser through the other instance (its device
// cookie).
func TestAppLoginLimitsShared(t *testing.T) {
	pg := newPostgresStore(t)
	clock := newFakeClock()
	h := boundedHasher(t, time.Minute)
	lim := LoginLimits{
		AddressAccount: RateLimit{PerSecond: 1.0 / 180, Burst: 3},
		Account:        RateLimit{PerSecond: 50.0 / 3600, Burst: 10},
	}
	// The instances keep everything in PostgreSQL (e.store, their own
	// SQLite, stays unused).
	shared := func(c *Config) { c.Store, c.RateLimiter, c.Now, c.Passwords, c.Login = pg, pg, clock.Now, h, lim }
	one, two := newTestEnv(t, shared), newTestEnv(t, shared)
	hash, err := h.Hash(context.Background(), testPassword)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.CreateAccount(context.Background(), fileframe.Account{Email: "a@example.com", PasswordHash: hash, Plan: fileframe.PlanFree}); err != nil {
		t.Fatal(err)
	}

	// One address, through both instances: 3 checked in all, not 3 each.
	src := newAppBrowser(one)
	tok := src.token("/login")
	checkGuesses(t, guesses(8, "a@example.com", tok, anonFrom(one, "127.0.0.2", src), anonFrom(two, "127.0.0.2", src)), lim.AddressAccount.Burst)
	owner := browserFrom(two, "127.0.0.3")
	if got := owner.loginStatus("a@example.com"); got != http.StatusSeeOther {
		t.Fatalf("the owner from another address: got %d, want 303", got)
	}
	owner.logout()

	// Four more addresses, through both: the account's bucket, 10 less the
	// 3 guesses and the owner's sign-in, lets 6 through.
	var bots []*appBrowser
	for i := range 4 {
		env := []*testEnv{one, two}[i%2]
		bots = append(bots, anonFrom(env, "127.0.3."+strconv.Itoa(i+1), src))
	}
	checkGuesses(t, guesses(12, "a@example.com", tok, bots...), lim.Account.Burst-lim.AddressAccount.Burst-1)
	for _, env := range []*testEnv{one, two} {
		if got := browserFrom(env, "127.0.0.4").loginStatus("a@example.com"); got != http.StatusTooManyRequests {
			t.Errorf("a new browser on %s: got %d, want 429", env.app.URL, got)
		}
	}
	// The owner's device cookie, issued by instance two, works on one.
	owner.e = one
	if got := owner.loginStatus("a@example.com"); got != http.StatusSeeOther {
		t.Errorf("the owner's browser on the other instance: got %d, want 303", got)
	}
}

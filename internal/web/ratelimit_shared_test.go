package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// recordingLimiter is a fileframe.RateLimiter that refuses every bucket
// named in deny and fails with err when it is set, recording every call.
type recordingLimiter struct {
	mu      sync.Mutex
	calls   []string
	deny    map[string]time.Duration
	err     error
	lastNow time.Time
}

func (l *recordingLimiter) Allow(_ context.Context, bucket string, perSecond float64, burst int, now time.Time) (fileframe.RateDecision, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, bucket)
	l.lastNow = now
	if l.err != nil {
		return fileframe.RateDecision{}, l.err
	}
	if d, ok := l.deny[bucket]; ok {
		return fileframe.RateDecision{RetryAfter: d}, nil
	}
	return fileframe.RateDecision{Allowed: true, Remaining: burst - 1}, nil
}

// TestAPIRateLimiterPluggable checks that the API asks Config.RateLimiter,
// with the key's bucket and then the address's, at the server's clock, and
// answers 429 with its Retry-After.
func TestAPIRateLimiterPluggable(t *testing.T) {
	clock := newFakeClock()
	lim := &recordingLimiter{}
	fx := newAPIFixture(t, func(c *Config) { c.RateLimiter = lim; c.Now = clock.Now })
	body := map[string]any{"html": validPage}
	checkSuccess(t, fx, fx.post(t, fx.page, body), fx.file)
	if len(lim.calls) != 2 || !strings.HasPrefix(lim.calls[0], "key:") || !strings.HasPrefix(lim.calls[1], "ip:") {
		t.Fatalf("buckets asked: got %q, want key:… then ip:…", lim.calls)
	}
	if !lim.lastNow.Equal(clock.Now()) {
		t.Errorf("now: got %v, want the server's clock %v", lim.lastNow, clock.Now())
	}

	lim.deny = map[string]time.Duration{lim.calls[0]: 2500 * time.Millisecond}
	res := fx.post(t, fx.page, body)
	checkProblem(t, res, http.StatusTooManyRequests, "rate_limited")
	if got := res.resp.Header.Get("Retry-After"); got != "3" {
		t.Errorf("Retry-After: got %q, want 3", got)
	}
}

// TestAPIRateLimiterFailsOpen checks that a failing limiter lets requests
// pass and logs why.
func TestAPIRateLimiterFailsOpen(t *testing.T) {
	lim := &recordingLimiter{err: errors.New("database unreachable")}
	fx := newAPIFixture(t, func(c *Config) { c.RateLimiter = lim })
	checkSuccess(t, fx, fx.post(t, fx.page, map[string]any{"html": validPage}), fx.file)
	if !strings.Contains(fx.e.logs.String(), "database unreachable") {
		t.Errorf("the limiter's error was not logged:\n%s", fx.e.logs.String())
	}
}

// TestPasswordGuardsFailClosed: where a limiter stands between a stranger
// and a password (the sign-in form, a protected link's password), a failing
// limiter (its database out of reach) refuses the guess with 503 and
// Retry-After, even the right password, rather than letting guesses through
// unlimited as the API does; once it works again, the guess is checked.
func TestPasswordGuardsFailClosed(t *testing.T) {
	lim := &recordingLimiter{err: fileframe.Errorf(fileframe.CodeUnavailable, "database unreachable")}
	e := newTestEnv(t, cheapHashes(t), func(c *Config) { c.RateLimiter = lim })
	e.member("a@example.com", fileframe.PlanFree)
	a, f := e.agencyFile("data.csv", []byte("a,b\n1,2\n"))
	f = e.protect(a, f, linkPassword, fileframe.RevealNothing)
	b := newAppBrowser(e)
	csrf := b.token("/login")

	lim.mu.Lock()
	lim.calls = nil
	lim.mu.Unlock()
	refused := func(what string, resp *http.Response, body string) {
		t.Helper()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "could not be checked") {
			t.Errorf("%s with the limiter failing: %d, Retry-After %q:\n%s\nwant 503 with Retry-After", what, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	resp, body := b.post("/login", url.Values{"csrf": {csrf}, "email": {"a@example.com"}, "password": {testPassword}})
	refused("POST /login", resp, body)
	resp, raw := e.download(http.MethodGet, f, "Fileframe-Password", linkPassword, "Accept", "*/*")
	refused("a download with Fileframe-Password", resp, string(raw))
	lim.mu.Lock()
	asked := len(lim.calls)
	lim.err = nil
	lim.mu.Unlock()
	if asked == 0 {
		t.Fatalf("the limiter was never asked")
	}

	if resp, raw := e.download(http.MethodGet, f, "Fileframe-Password", linkPassword, "Accept", "*/*"); resp.StatusCode != http.StatusOK || string(raw) != "a,b\n1,2\n" {
		t.Errorf("the download with the password once the limiter works: %d %s", resp.StatusCode, raw)
	}
	b.login("a@example.com", testPassword)
}

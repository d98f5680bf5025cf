package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
)

// testHashParams is a cost of a few milliseconds: long enough for hashes
// started together to overlap, short enough for dozens in a test.
var testHashParams = password.Params{Memory: 2048, Time: 1, Threads: 1}

// boundedHasher returns a hasher of testHashParams whose budget holds two
// hashes at once, waiting at most maxWait for room.
func boundedHasher(t *testing.T, maxWait time.Duration) *password.Hasher {
	t.Helper()
	h, err := password.NewHasher(testHashParams, password.Budget{Memory: 2 * int64(testHashParams.Memory), MaxWait: maxWait})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// checkBound checks that the hasher never held more than its budget nor ran
// more hashes at once than the budget holds, and that nothing is left
// running.
func checkBound(t *testing.T, h *password.Hasher) {
	t.Helper()
	st, budget := h.Stats(), h.Budget().Memory
	t.Logf("hasher: %+v", st)
	if st.PeakMemory > budget || int64(st.PeakRunning) > budget/int64(h.Params().Memory) {
		t.Errorf("the hasher went past its budget of %d KiB: %+v", budget, st)
	}
	if st.Running != 0 || st.Memory != 0 || st.Waiting != 0 {
		t.Errorf("hashing left behind: %+v", st)
	}
}

// fromAddress returns a transport whose connections come from ip, a
// loopback address (Linux answers all of 127.0.0.0/8), so that the server
// sees a client address of the test's choosing.
func fromAddress(t *testing.T, ip string) http.RoundTripper {
	t.Helper()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// browserFrom returns a new browser whose requests come from ip.
func browserFrom(e *testEnv, ip string) *appBrowser {
	b := newAppBrowser(e)
	b.rt = fromAddress(e.t, ip)
	return b
}

// formPost is one form post of a parallel batch.
type formPost struct {
	b    *appBrowser
	path string
	form url.Values
}

// answer is what a formPost got.
type answer struct {
	status     int
	retryAfter string
	location   string
	mediaType  string
	body       string
	took       time.Duration
	err        error
}

// postAll sends every post at once, one goroutine each, released together,
// and returns the answers in order. It only reads the browsers' cookies, so
// one browser may send many; a request that takes over a minute fails.
func postAll(posts []formPost) []answer {
	answers := make([]answer, len(posts))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, p := range posts {
		wg.Go(func() {
			<-start
			answers[i] = p.b.tryPost(p.path, p.form)
		})
	}
	close(start)
	wg.Wait()
	return answers
}

// tryPost posts a form without touching the browser's cookies and without
// failing the test, so that goroutines may call it.
func (b *appBrowser) tryPost(path string, form url.Values) answer {
	req, err := http.NewRequest(http.MethodPost, b.e.app.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	c := &http.Client{Transport: b.rt, Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	mt, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	return answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), location: resp.Header.Get("Location"),
		mediaType: mt, body: string(body), took: time.Since(start), err: err}
}

// countStatuses fails the test on a request that failed and counts the
// answers by status.
func countStatuses(t *testing.T, answers []answer) map[int]int {
	t.Helper()
	n := map[int]int{}
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("request %d: %v", i, a.err)
		}
		n[a.status]++
	}
	return n
}

// check429s checks that every 429 says how long to wait, on the form's
// page.
func check429s(t *testing.T, answers []answer) {
	t.Helper()
	for _, a := range answers {
		if a.status == http.StatusTooManyRequests && (a.retryAfter == "" || !strings.Contains(a.body, "Too many attempts")) {
			t.Errorf("429 with Retry-After %q, want a wait and the message:\n%s", a.retryAfter, a.body)
			return
		}
	}
}

// TestAppPasswordChangeParallel sends 60 password changes with a wrong
// current password at once from one session (issue 9, item 3): a token is
// taken per attempt before the current password is hashed, so only the
// session's burst is hashed, the rest are answered 429, and the hashes that
// do run stay under the hasher's budget.
func TestAppPasswordChangeParallel(t *testing.T) {
	h := boundedHasher(t, time.Minute)
	clock := newFakeClock()
	e := newTestEnv(t, func(c *Config) { c.Passwords, c.Now = h, clock.Now })
	e.member("a@example.com", fileframe.PlanFree)
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	tok := b.token("/account")
	before := h.Stats().Computed

	const n = 60
	const next = "a brand new passphrase"
	posts := make([]formPost, n)
	for i := range posts {
		posts[i] = formPost{b, "/account/password", url.Values{"csrf": {tok}, "current": {"not my password"}, "new": {next}}}
	}
	answers := postAll(posts)
	lim := defaultLoginLimits()
	allowed := min(lim.Address.Burst, lim.AddressAccount.Burst)
	got := countStatuses(t, answers)
	if got[http.StatusUnprocessableEntity] != allowed || got[http.StatusTooManyRequests] != n-allowed {
		t.Errorf("answers by status: got %v, want %d × 422 (wrong current password) and %d × 429", got, allowed, n-allowed)
	}
	check429s(t, answers)
	if ran := h.Stats().Computed - before; ran != uint64(allowed) {
		t.Errorf("Argon2 computations: got %d, want %d, one per attempt let through", ran, allowed)
	}
	checkBound(t, h)

	// The session stays limited, right password or not, until its bucket
	// refills.
	form := url.Values{"csrf": {tok}, "current": {testPassword}, "new": {next}}
	if resp, _ := b.post("/account/password", form); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("right password right after: got %d, want 429", resp.StatusCode)
	}
	clock.Advance(time.Duration(float64(time.Second) / lim.AddressAccount.PerSecond))
	if resp, body := b.post("/account/password", form); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("right password once a token is back: got %d:\n%s", resp.StatusCode, body)
	}
}

// TestAppLoginParallelBound sends 60 sign-ins at once from 60 addresses at
// 60 accounts, so that no rate limit stops any: all 60 passwords are
// checked, never more than the budget's two at a time.
func TestAppLoginParallelBound(t *testing.T) {
	h := boundedHasher(t, time.Minute)
	e := newTestEnv(t, func(c *Config) { c.Passwords = h })
	e.member("a@example.com", fileframe.PlanFree)
	first := newAppBrowser(e)
	tok := first.token("/login")

	const n = 60
	posts := make([]formPost, n)
	for i := range posts {
		b := browserFrom(e, "127.0.1."+strconv.Itoa(i+1))
		b.cookies = cloneCookies(first.cookies)
		// One guess at each account, half of them unknown (checked
		// against the decoy hash), so no limit stops any.
		email := "member" + strconv.Itoa(i) + "@example.com"
		if i%2 == 0 {
			e.member(email, fileframe.PlanFree)
		}
		posts[i] = formPost{b, "/login", url.Values{"csrf": {tok}, "email": {email}, "password": {"not the password"}}}
	}
	before := h.Stats().Computed
	answers := postAll(posts)
	if got := countStatuses(t, answers); got[http.StatusUnauthorized] != n {
		t.Errorf("answers by status: got %v, want %d × 401", got, n)
	}
	if ran := h.Stats().Computed - before; ran != n {
		t.Errorf("Argon2 computations: got %d, want %d", ran, n)
	}
	checkBound(t, h)
}

// TestAppPasswordHashBusy fills the hashing budget and checks that every
// form that hashes a password (sign-in, sign-up, setup, password change)
// answers 503 with Retry-After on the application's error page once the
// wait runs out, instead of hanging, and works again once it is free.
func TestAppPasswordHashBusy(t *testing.T) {
	const wait = 100 * time.Millisecond
	h := boundedHasher(t, wait)
	e := newTestEnv(t, func(c *Config) { c.Passwords, c.Signup = h, true })
	e.member("a@example.com", fileframe.PlanFree)
	signed := newAppBrowser(e)
	signed.login("a@example.com", testPassword)
	login, signup := newAppBrowser(e), newAppBrowser(e)
	// setup needs an instance without accounts; it shares the hasher.
	fresh := newTestEnv(t, func(c *Config) { c.Passwords = h })
	setup := newAppBrowser(fresh)
	posts := []formPost{
		{login, "/login", url.Values{"csrf": {login.token("/login")}, "email": {"a@example.com"}, "password": {testPassword}}},
		{signup, "/signup", url.Values{"csrf": {signup.token("/signup")}, "email": {"new@example.com"}, "password": {testPassword}}},
		{signed, "/account/password", url.Values{"csrf": {signed.token("/account")}, "current": {testPassword}, "new": {"a brand new passphrase"}}},
		{setup, "/setup", url.Values{"csrf": {setup.token("/setup")}, "email": {"admin@example.com"}, "password": {testPassword}}},
	}
	release, err := h.Reserve(context.Background(), h.Budget().Memory)
	if err != nil {
		t.Fatal(err)
	}
	busy := h.Stats().Busy
	for i, a := range postAll(posts) {
		if a.err != nil {
			t.Fatalf("POST %s: %v", posts[i].path, a.err)
		}
		if a.status != http.StatusServiceUnavailable || a.retryAfter != "1" || a.mediaType != "text/html" ||
			!strings.Contains(a.body, "Too many sign-ins are being checked right now") {
			t.Errorf("POST %s on a full budget: got %d, Retry-After %q, %s, want 503, Retry-After 1 and the error page:\n%s",
				posts[i].path, a.status, a.retryAfter, a.mediaType, a.body)
		}
		if a.took < wait {
			t.Errorf("POST %s answered 503 after %v, before the wait of %v ran out", posts[i].path, a.took, wait)
		}
	}
	if got := h.Stats().Busy - busy; got != uint64(len(posts)) {
		t.Errorf("refusals counted: got %d, want %d", got, len(posts))
	}
	_, metrics := e.opsGet("/metrics")
	if !strings.Contains(string(metrics), "fileframe_password_hashes_busy_total 4") {
		t.Errorf("/metrics does not count the 4 refusals:\n%s", metrics)
	}
	if n, _ := fresh.store.CountAccounts(context.Background()); n != 0 {
		t.Errorf("a refused setup made %d accounts", n)
	}
	release()
	newAppBrowser(e).login("a@example.com", testPassword)
	checkBound(t, h)
}

package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestHealthz(t *testing.T) {
	e := newTestEnv(t)
	resp, body := e.appGet("/healthz")
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Errorf("got %d %q, want 200 ok", resp.StatusCode, body)
	}
}

func TestReadyz(t *testing.T) {
	fs := &failingPageStore{}
	e := newTestEnv(t, func(c *Config) { fs.Store = c.Store; c.Store = fs })

	resp, body := e.opsGet("/readyz")
	if resp.StatusCode != 200 {
		t.Fatalf("status: got %d, want 200", resp.StatusCode)
	}
	if got, want := strings.TrimSpace(string(body)), `{"status":"ok","checks":{"store":"ok","blobs":"ok"}}`; got != want {
		t.Errorf("body: got %s, want %s", got, want)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type: got %q", ct)
	}

	fs.fail.Store(true)
	resp, body = e.opsGet("/readyz")
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status with a failing store: got %d, want 503", resp.StatusCode)
	}
	var got readiness
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if want := (readiness{Status: "unavailable", Checks: readinessChecks{Store: "unavailable", Blobs: "ok"}}); got != want {
		t.Errorf("body: got %+v, want %+v", got, want)
	}
	if bytes.Contains(body, []byte("secret internal detail")) {
		t.Errorf("readyz shows the internal error: %s", body)
	}
	if !strings.Contains(e.logs.String(), "secret internal detail") {
		t.Errorf("the cause was not logged")
	}
}

func TestReadyzClosedStore(t *testing.T) {
	e := newTestEnv(t)
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	resp, body := e.opsGet("/readyz")
	if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(body, []byte(`"store":"unavailable"`)) {
		t.Errorf("got %d %s, want 503 with the store unavailable", resp.StatusCode, body)
	}
}

func TestMetrics(t *testing.T) {
	e := newTestEnv(t)
	e.appGet("/f/nosuchslug")
	e.contentGet("/p/nosuchslug/1", "Sec-Fetch-Dest", "iframe")
	e.appGet("/no/such/path")
	resp, body := e.opsGet("/metrics")
	if resp.StatusCode != 200 {
		t.Fatalf("status: got %d", resp.StatusCode)
	}
	for _, want := range []string{
		`fileframe_http_requests_total{code="404",origin="app",route="GET /f/{slug}"} 1`,
		`fileframe_http_requests_total{code="404",origin="content",route="GET /p/{slug}/{revision}"} 1`,
		`fileframe_http_requests_total{code="404",origin="app",route="/"} 1`,
		`fileframe_http_request_duration_seconds_bucket{origin="app",route="GET /f/{slug}",le="+Inf"} 1`,
		"fileframe_downloads_total 0",
		"go_goroutines",
		"process_cpu_seconds_total",
	} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if bytes.Contains(body, []byte("nosuchslug")) {
		t.Errorf("a path made it into a metric label")
	}
}

func TestNewMetricsSharedRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	a, b := newMetrics(reg), newMetrics(reg)
	if a.requests != b.requests || a.downloads != b.downloads {
		t.Errorf("a second Server on one registry does not share the collectors")
	}
}

// accessLines returns the access log lines in logs.
func accessLines(t *testing.T, logs string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		if m["msg"] == "http request" {
			lines = append(lines, m)
		}
	}
	return lines
}

func TestAccessLog(t *testing.T) {
	e := newTestEnv(t)
	_, f := e.agencyFile("a.txt", []byte("x"))
	e.savePage(f, customHTML("draft"), false)
	token := e.srv.previewToken(f.Slug, 1, e.srv.now().Add(time.Hour))
	e.appGet("/f/x?preview=secret-token")
	e.appGet("/f/" + f.Slug + "?preview=" + token)
	e.contentGet("/p/" + f.Slug + "/1?preview=" + token)

	logs := e.logs.String()
	for _, secret := range []string{"secret-token", token, "preview="} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log contains %q:\n%s", secret, logs)
		}
	}
	lines := accessLines(t, logs)
	if len(lines) != 3 {
		t.Fatalf("got %d access lines, want 3:\n%s", len(lines), logs)
	}
	want := []struct{ origin, path, route string }{
		{"app", "/f/x", "GET /f/{slug}"},
		{"app", "/f/" + f.Slug, "GET /f/{slug}"},
		{"content", "/p/" + f.Slug + "/1", "GET /p/{slug}/{revision}"},
	}
	for i, l := range lines {
		if l["origin"] != want[i].origin || l["path"] != want[i].path || l["route"] != want[i].route || l["method"] != "GET" {
			t.Errorf("line %d: got %v, want %+v", i, l, want[i])
		}
		if id, _ := l["request_id"].(string); len(id) != 16 {
			t.Errorf("line %d: request_id %q", i, id)
		}
		for _, k := range []string{"status", "bytes", "duration_us", "remote"} {
			if _, ok := l[k]; !ok {
				t.Errorf("line %d: no %s", i, k)
			}
		}
	}
	if lines[0]["status"] != float64(404) || lines[1]["status"] != float64(200) {
		t.Errorf("statuses: got %v and %v", lines[0]["status"], lines[1]["status"])
	}
}

func TestRequestID(t *testing.T) {
	e := newTestEnv(t)
	tests := []struct {
		name, incoming string
		honoured       bool
	}{
		{"sane", "abc-123.X_y", true},
		{"64 characters", strings.Repeat("a", 64), true},
		{"65 characters", strings.Repeat("a", 65), false},
		{"space", "abc 123", false},
		{"injection", `a"b`, false},
		{"unicode", "abcé", false},
		{"none", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var header []string
			if tt.incoming != "" {
				header = []string{"X-Request-ID", tt.incoming}
			}
			before := e.logs.Len()
			resp, _ := e.appGet("/healthz", header...)
			got := resp.Header.Get("X-Request-ID")
			if tt.honoured && got != tt.incoming {
				t.Errorf("X-Request-ID: got %q, want %q", got, tt.incoming)
			}
			if !tt.honoured && (len(got) != 16 || strings.Trim(got, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != "") {
				t.Errorf("X-Request-ID: got %q, want 16 generated base62 characters", got)
			}
			lines := accessLines(t, e.logs.String()[before:])
			if len(lines) != 1 || lines[0]["request_id"] != got {
				t.Errorf("log request_id: got %v, want %q", lines, got)
			}
		})
	}
	// The content origin gives IDs too.
	resp, _ := e.contentGet("/")
	if len(resp.Header.Get("X-Request-ID")) != 16 {
		t.Errorf("content origin: no X-Request-ID")
	}
}

// opsServer is a Server with just what observe needs.
func opsServer(logs *bytes.Buffer) *Server {
	return &Server{
		cfg:     Config{BaseURL: &url.URL{Scheme: "http", Host: "app.test"}, ContentOrigin: &url.URL{Scheme: "http", Host: "content.test"}},
		log:     slog.New(slog.NewJSONHandler(&lockedWriter{w: logs}, nil)),
		metrics: newMetrics(prometheus.NewRegistry()),
	}
}

func TestObservePanic(t *testing.T) {
	var logs bytes.Buffer
	s := opsServer(&logs)
	h := s.observe("app", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", "attachment; filename=x")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		panic("secret internal detail")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/boom?preview=tok", nil))
	if rec.Code != 500 {
		t.Fatalf("status: got %d, want 500", rec.Code)
	}
	if strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "goroutine") {
		t.Errorf("body shows internals: %q", rec.Body.String())
	}
	if rec.Header().Get("Content-Disposition") != "" {
		t.Errorf("the panicking handler's Content-Disposition was kept")
	}
	if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("security headers were dropped")
	}
	if rec.Header().Get("X-Request-ID") == "" {
		t.Errorf("no X-Request-ID")
	}
	out := logs.String()
	if !strings.Contains(out, "secret internal detail") || !strings.Contains(out, "goroutine") {
		t.Errorf("the panic and its stack were not logged:\n%s", out)
	}
	lines := accessLines(t, out)
	if len(lines) != 1 || lines[0]["status"] != float64(500) || lines[0]["route"] != "unmatched" {
		t.Errorf("access line: got %v", lines)
	}
	if strings.Contains(out, "tok") {
		t.Errorf("the query was logged")
	}
}

func TestObservePanicAfterResponseStarted(t *testing.T) {
	var logs bytes.Buffer
	s := opsServer(&logs)
	h := s.observe("app", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.Write([]byte("partial"))
		panic("late")
	}))
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler so the connection is aborted", p)
		}
		if lines := accessLines(t, logs.String()); len(lines) != 1 {
			t.Errorf("got %d access lines, want 1", len(lines))
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

func TestObservePanicOverTheNetwork(t *testing.T) {
	var logs bytes.Buffer
	s := opsServer(&logs)
	srv := httptest.NewServer(s.observe("content", s.sandboxHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("boom")
	}))))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "sandbox allow-scripts;") {
		t.Errorf("got %d with CSP %q, want 500 with the sandbox CSP", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
}

// TestOpsEndpointsPrivate: /readyz and /metrics are not for strangers on
// the app origin: 404 there unless an operations token is set, and then
// 401 without it (issue 9). /healthz stays open for load balancers. The
// operations listener serves all three and nothing else.
func TestOpsEndpointsPrivate(t *testing.T) {
	e := newTestEnv(t)
	for _, path := range []string{"/readyz", "/metrics"} {
		if resp, body := e.appGet(path); resp.StatusCode != http.StatusNotFound || bytes.Contains(body, []byte("go_goroutines")) {
			t.Errorf("app origin %s without a token set: got %d, want 404", path, resp.StatusCode)
		}
		if resp, _ := e.opsGet(path); resp.StatusCode != http.StatusOK {
			t.Errorf("ops listener %s: got %d, want 200", path, resp.StatusCode)
		}
	}
	if resp, _ := e.appGet("/healthz"); resp.StatusCode != http.StatusOK {
		t.Errorf("app origin /healthz: got %d, want 200", resp.StatusCode)
	}
	for _, path := range []string{"/", "/f/x", "/api/files", "/login"} {
		if resp, _ := e.opsGet(path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("ops listener %s: got %d, want 404", path, resp.StatusCode)
		}
	}

	const token = "ops-token-0123456789abcdef0123456789"
	e = newTestEnv(t, func(c *Config) { c.OpsToken = token })
	for _, path := range []string{"/readyz", "/metrics"} {
		for _, auth := range []string{"", "Bearer wrong", "Bearer " + token + "x", "Basic " + token, token} {
			resp, body := e.appGet(path, "Authorization", auth)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" || bytes.Contains(body, []byte("go_goroutines")) {
				t.Errorf("app origin %s with Authorization %q: got %d, want 401", path, auth, resp.StatusCode)
			}
		}
		for _, auth := range []string{"Bearer " + token, "bearer " + token} {
			if resp, _ := e.appGet(path, "Authorization", auth); resp.StatusCode != http.StatusOK {
				t.Errorf("app origin %s with the token (%q): got %d, want 200", path, auth[:6], resp.StatusCode)
			}
		}
	}
}

// TestHSTS: over https both origins tell browsers to keep to https; over
// http nothing is said (a browser would ignore it).
func TestHSTS(t *testing.T) {
	e := newTestEnv(t)
	if resp, _ := e.appGet("/healthz"); resp.Header.Get("Strict-Transport-Security") != "" {
		t.Errorf("http base URL: got Strict-Transport-Security %q, want none", resp.Header.Get("Strict-Transport-Security"))
	}
	e = newTestEnv(t, func(c *Config) {
		c.BaseURL, _ = url.Parse("https://files.example.com")
		c.ContentOrigin, _ = url.Parse("https://usercontent.example.net")
	})
	for _, get := range []func(string, ...string) (*http.Response, []byte){e.appGet, e.contentGet} {
		resp, _ := get("/healthz")
		if got := resp.Header.Get("Strict-Transport-Security"); got != "max-age=31536000" {
			t.Errorf("https: got Strict-Transport-Security %q, want max-age=31536000", got)
		}
	}
}

// TestTrustedProxies: behind a trusted reverse proxy, the client is the
// rightmost address of X-Forwarded-For that is not a trusted proxy;
// entries left of it, which the client may have written itself, are
// ignored, and so is the header from anyone but a trusted proxy.
func TestTrustedProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	s := &Server{cfg: Config{TrustedProxies: trusted}}
	for _, tt := range []struct {
		peer string
		xff  []string
		want string
	}{
		{"10.0.0.5:4000", []string{"203.0.113.7"}, "203.0.113.7:0"},
		{"10.0.0.5:4000", []string{"6.6.6.6, 203.0.113.7"}, "203.0.113.7:0"},             // forged left part
		{"10.0.0.5:4000", []string{"6.6.6.6", "203.0.113.7, 10.0.0.9"}, "203.0.113.7:0"}, // two lines, a chain of proxies
		{"10.0.0.5:4000", []string{"2001:db8::1"}, "[2001:db8::1]:0"},                    // IPv6 client
		{"10.0.0.5:4000", nil, "10.0.0.5:0"},                                             // no header: the proxy itself
		{"10.0.0.5:4000", []string{"203.0.113.7, garbage"}, "10.0.0.5:0"},                // not an address: stop
		{"10.0.0.5:4000", []string{"10.0.0.7, 10.0.0.8"}, "10.0.0.7:0"},                  // only proxies: the leftmost
		{"198.51.100.9:4000", []string{"203.0.113.7"}, "198.51.100.9:4000"},              // untrusted peer: ignored
		{"[::1]:4000", []string{"[2001:db8::2]:5555"}, "[2001:db8::2]:0"},                // with a port
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tt.peer
		for _, v := range tt.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		s.clientAddr(r)
		if r.RemoteAddr != tt.want {
			t.Errorf("peer %s, X-Forwarded-For %q: got %s, want %s", tt.peer, tt.xff, r.RemoteAddr, tt.want)
		}
	}
	// Without trusted proxies nothing changes.
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "10.0.0.5:4000"
	r.Header.Set("X-Forwarded-For", "203.0.113.7")
	(&Server{}).clientAddr(r)
	if r.RemoteAddr != "10.0.0.5:4000" {
		t.Errorf("no trusted proxies: got %s", r.RemoteAddr)
	}
}

// TestTrustedProxyRateLimits: through a trusted proxy, each client has its
// own sign-in bucket; a client that names another address in
// X-Forwarded-For does not escape its own.
func TestTrustedProxyRateLimits(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} })
	e.member("owner@example.com", "free")
	login := func(xff string) int {
		b := newAppBrowser(e)
		token := b.token("/login")
		form := url.Values{"csrf": {token}, "email": {"owner@example.com"}, "password": {"wrong password!"}}
		req, _ := http.NewRequest(http.MethodPost, e.app.URL+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", xff)
		resp, _ := b.send(req)
		return resp.StatusCode
	}
	// The attacker at 203.0.113.7 exhausts its own limits, even when it
	// puts other addresses first.
	limited := false
	for i := range 15 {
		if login(fmt.Sprintf("198.51.100.%d, 203.0.113.7", i)) == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Fatalf("the attacker behind the proxy was never limited")
	}
	// Another client behind the same proxy is not.
	if got := login("203.0.113.8"); got == http.StatusTooManyRequests {
		t.Errorf("another client behind the proxy: got 429, want its own bucket")
	}
}

// TestAppHostOnly: the app origin answers only under its own name. A page
// that DNS rebinding points at the server under another name cannot set
// up a fresh instance: its GET is redirected to the app origin (so its
// script reads nothing) and its POST refused (421), whatever token it
// holds. The same name in another case, with a final dot or the default
// port, is the same origin; the operations endpoints answer under any name.
func TestAppHostOnly(t *testing.T) {
	e := newTestEnv(t)
	appHost := strings.TrimPrefix(e.app.URL, "http://")
	send := func(method, path, host string, form url.Values) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, e.app.URL+path, strings.NewReader(form.Encode()))
		req.Host = host
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	evil := "rebind.evil.test:" + e.app.Listener.Addr().(*net.TCPAddr).AddrPort().String()[len("127.0.0.1:"):]
	resp := send(http.MethodGet, "/setup?x=1", evil, nil)
	if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != e.app.URL+"/setup?x=1" {
		t.Errorf("GET /setup under another name: got %d to %q, want 308 to the app origin", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp = send(http.MethodPost, "/setup", evil, url.Values{"email": {"attacker@evil.test"}, "password": {"attacker-password-1"}})
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("POST /setup under another name: got %d, want 421", resp.StatusCode)
	}
	if n, _ := e.store.CountAccounts(context.Background()); n != 0 {
		t.Errorf("accounts after the rebinding attempt: %d, want 0", n)
	}
	for _, host := range []string{appHost, strings.ToUpper(appHost), strings.Replace(appHost, ":", ".:", 1)} {
		if resp := send(http.MethodGet, "/setup", host, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("GET /setup with Host %q: got %d, want 200", host, resp.StatusCode)
		}
	}
	if resp := send(http.MethodGet, "/healthz", "10.0.0.11:8080", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz under the instance's own address: got %d, want 200", resp.StatusCode)
	}
}

// TestHostHandlerNames: with both origins on one listener, the content
// origin's name in another case, with a final dot or its default port is
// the content origin, and no spelling of it reaches the app.
func TestHostHandlerNames(t *testing.T) {
	e := newTestEnv(t, func(c *Config) {
		c.BaseURL, _ = url.Parse("https://files.example.com")
		c.ContentOrigin, _ = url.Parse("https://usercontent.example.net")
	})
	h := e.srv.HostHandler()
	for _, host := range []string{"usercontent.example.net", "USERCONTENT.example.net", "usercontent.example.net.", "usercontent.example.net:443"} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/login", nil)
		r.Host = host
		h.ServeHTTP(w, r)
		if w.Code != http.StatusNotFound || w.Header().Get("Set-Cookie") != "" || !strings.HasPrefix(w.Header().Get("Content-Security-Policy"), "sandbox") {
			t.Errorf("GET /login with Host %q: got %d %q, want the content origin's 404", host, w.Code, w.Header().Get("Content-Security-Policy"))
		}
	}
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/login", nil)
	r.Host = "other.example.org"
	h.ServeHTTP(w, r)
	if w.Code != http.StatusPermanentRedirect {
		t.Errorf("GET /login under an unknown name: got %d, want 308 to the app origin", w.Code)
	}
}

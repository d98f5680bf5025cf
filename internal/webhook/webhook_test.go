package webhook_test

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fetch"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/sqlite"
	"github.com/fileframe/fileframe/internal/webhook"
	"github.com/fileframe/fileframe/internal/webhook/webhooktest"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// env is a store with an Agency account and a file, and a worker that
// sends to loopback (--webhook-private) on a short retry schedule.
type env struct {
	store   *sqlite.Store
	account fileframe.Account
	worker  *webhook.Worker
}

var shortSchedule = []time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond}

func newEnv(t *testing.T, client *webhook.Client) *env {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "fileframe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	a, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "hooks@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatal(err)
	}
	if client == nil {
		client = webhook.NewClient(webhook.ClientConfig{AllowPrivate: true})
	}
	w, err := webhook.NewWorker(webhook.WorkerConfig{Store: s, Client: client, BaseURL: &url.URL{Scheme: "https", Host: "files.example.com"},
		Schedule: shortSchedule})
	if err != nil {
		t.Fatal(err)
	}
	return &env{store: s, account: a, worker: w}
}

func (e *env) endpoint(t *testing.T, target string, types ...fileframe.EventType) fileframe.Webhook {
	t.Helper()
	w, err := e.store.CreateWebhook(t.Context(), fileframe.Webhook{AccountID: e.account.ID, URL: target, Secret: webhook.NewSecret(), Events: types})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (e *env) file(t *testing.T, name string) fileframe.File {
	t.Helper()
	f, err := e.store.CreateFile(t.Context(), fileframe.File{AccountID: e.account.ID, Name: name, Size: 42, ContentType: "text/plain", BlobKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// deliverUntil runs the worker until every delivery is delivered or
// failed, waiting for retries to come due.
func (e *env) deliverUntil(t *testing.T, w fileframe.WebhookID) []fileframe.Delivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := e.worker.DeliverDue(t.Context()); err != nil {
			t.Fatalf("DeliverDue: %v", err)
		}
		list, err := e.store.Deliveries(t.Context(), w, 100)
		if err != nil {
			t.Fatal(err)
		}
		pending := false
		for _, d := range list {
			pending = pending || d.State == fileframe.DeliveryPending
		}
		if !pending {
			return list
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries still pending: %+v", list)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSignatureInterop: a signature of Sign verifies with the Standard
// Webhooks library and with crypto/hmac alone (docs/webhooks.md's
// example), and fails with another secret or body.
func TestSignatureInterop(t *testing.T) {
	secret := webhook.NewSecret()
	if !strings.HasPrefix(secret, "whsec_") || len(secret) != len("whsec_")+44 {
		t.Errorf("NewSecret = %q, want whsec_ and 32 bytes of base64", secret)
	}
	body := []byte(`{"type":"file.created","timestamp":"2026-01-02T03:04:05Z","data":{"fileId":"f_x"}}`)
	now := time.Now()
	sig, err := webhook.Sign(secret, "msg_abc", now, body)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("webhook-id", "msg_abc")
	h.Set("webhook-timestamp", itoa(now.Unix()))
	h.Set("webhook-signature", sig)
	if err := webhooktest.Verify(secret, h, body, now); err != nil {
		t.Errorf("crypto/hmac verification: %v", err)
	}
	lib, _ := standardwebhooks.NewWebhook(secret)
	if err := lib.Verify(body, h); err != nil {
		t.Errorf("the library's verification: %v", err)
	}
	if err := webhooktest.Verify(webhook.NewSecret(), h, body, now); err == nil {
		t.Error("another secret verifies")
	}
	if err := webhooktest.Verify(secret, h, append(body, ' '), now); err == nil {
		t.Error("another body verifies")
	}
	if err := webhooktest.Verify(secret, h, body, now.Add(10*time.Minute)); err == nil {
		t.Error("an old timestamp verifies")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestDeliveryRetriesThenSucceeds: a receiver on loopback answers 500
// twice, then 200: the worker retries on the schedule with the same
// webhook-id and body, every signature verifies, the log shows 3 attempts.
func TestDeliveryRetriesThenSucceeds(t *testing.T) {
	rcv := webhooktest.NewReceiver(t)
	rcv.Respond(func(d webhooktest.Delivery, n int) int {
		if n < 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	e := newEnv(t, nil)
	w := e.endpoint(t, rcv.At("/hook"), fileframe.EventFileCreated)
	rcv.SetSecret("/hook", w.Secret)
	f := e.file(t, "report.pdf")
	list := e.deliverUntil(t, w.ID)
	if len(list) != 1 {
		t.Fatalf("deliveries: %+v, want 1", list)
	}
	d := list[0]
	if d.State != fileframe.DeliveryDelivered || d.Attempts != 3 || d.LastStatus != 200 || d.LastError != "" || d.FinishedAt.IsZero() {
		t.Errorf("delivery: %+v, want delivered after 3 attempts", d)
	}
	got := rcv.Deliveries()
	if len(got) != 3 {
		t.Fatalf("receiver got %d requests, want 3", len(got))
	}
	for _, g := range got {
		if g.ID != string(d.EventID) || string(g.Body) != string(got[0].Body) {
			t.Errorf("attempt with id %s body %s, want id %s and the first body", g.ID, g.Body, d.EventID)
		}
	}
	p := got[0].Payload
	if p.Type != "file.created" || p.Data["fileId"] != string(f.ID) || p.Data["slug"] != f.Slug ||
		p.Data["publicUrl"] != "https://files.example.com/f/"+f.Slug || p.Data["name"] != "report.pdf" || !p.Timestamp.Equal(f.CreatedAt) {
		t.Errorf("payload: %+v", p)
	}
	if pr := rcv.Problems(); len(pr) > 0 {
		t.Errorf("signatures that did not verify: %q", pr)
	}
}

// TestDeliveryFailsAfterSchedule: an endpoint that always answers 500
// gets every attempt of the schedule, then the delivery has failed; send
// again delivers it once the endpoint is fixed.
func TestDeliveryFailsAfterSchedule(t *testing.T) {
	rcv := webhooktest.NewReceiver(t)
	var mu sync.Mutex
	status := http.StatusInternalServerError
	rcv.Respond(func(webhooktest.Delivery, int) int {
		mu.Lock()
		defer mu.Unlock()
		return status
	})
	e := newEnv(t, nil)
	w := e.endpoint(t, rcv.At("/hook"), fileframe.EventFileCreated)
	rcv.SetSecret("/hook", w.Secret)
	e.file(t, "a.txt")
	list := e.deliverUntil(t, w.ID)
	d := list[0]
	if d.State != fileframe.DeliveryFailed || d.Attempts != len(shortSchedule) || d.LastStatus != 500 || !strings.HasPrefix(d.LastError, "HTTP 500") {
		t.Errorf("delivery: %+v, want failed after %d attempts with HTTP 500", d, len(shortSchedule))
	}
	mu.Lock()
	status = http.StatusNoContent
	mu.Unlock()
	if _, err := e.store.RetryDelivery(t.Context(), d.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	list = e.deliverUntil(t, w.ID)
	if d := list[0]; d.State != fileframe.DeliveryDelivered || d.Attempts != len(shortSchedule)+1 {
		t.Errorf("after send again: %+v", d)
	}
	if pr := rcv.Problems(); len(pr) > 0 {
		t.Errorf("signatures that did not verify: %q", pr)
	}
}

// testNet makes loopback addresses look like the internet for a client
// without --webhook-private: 127.0.0.2 is "public", names resolve as the
// test says, and every dial is recorded.
type testNet struct {
	mu    sync.Mutex
	names map[string][]netip.Addr
	dials []netip.AddrPort
}

func (n *testNet) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if a, ok := n.names[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (n *testNet) answer(host string, addrs ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.names[host] = nil
	for _, a := range addrs {
		n.names[host] = append(n.names[host], netip.MustParseAddr(a))
	}
}

func (n *testNet) dialled() []netip.AddrPort {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]netip.AddrPort(nil), n.dials...)
}

// publicTLS starts an https server on 127.0.0.2 (the test's public
// address) and returns it with a client that trusts it.
func publicTLS(t *testing.T, h http.Handler) (*httptest.Server, *webhook.Client, *testNet) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 is not a loopback address here: %v", err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	n := &testNet{names: map[string][]netip.Addr{}}
	c := webhook.NewClient(webhook.ClientConfig{RootCAs: pool, Resolver: n.resolve, Timeout: 3 * time.Second,
		Test: &fetch.TestPolicy{Public: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}, Dialing: func(ap netip.AddrPort) error {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.dials = append(n.dials, ap)
			if !ap.Addr().IsLoopback() {
				return errors.New("the test dials loopback only")
			}
			return nil
		}}})
	return srv, c, n
}

// TestSSRFRefused: without --webhook-private, endpoint URLs that are not
// https or reach loopback, private or link-local addresses (literally, or
// by a name that resolves to one) are refused when the endpoint is made;
// at delivery, a name that now resolves to loopback is refused before any
// connection, and a redirect to loopback is a failed attempt, never
// followed.
func TestSSRFRefused(t *testing.T) {
	var hits sync.Map
	srv, client, n := publicTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Store(r.URL.Path, true)
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "https://127.0.0.1:1/steal", http.StatusTemporaryRedirect)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	n.answer("hooks.example.com", "127.0.0.2")
	n.answer("rebind.example.com", "127.0.0.2")
	n.answer("local.example.com", "127.0.0.1")
	n.answer("mixed.example.com", "127.0.0.2", "10.1.2.3")
	n.answer("metadata.example.com", "169.254.169.254")
	public := "https://hooks.example.com:" + itoa(int64(port))

	for _, tc := range []struct{ url, code string }{
		{"http://hooks.example.com/x", fileframe.CodeWebhookURLRefused},
		{"ftp://hooks.example.com/x", fileframe.CodeWebhookURLRefused},
		{"https://127.0.0.1/hook", fileframe.CodeWebhookURLRefused},
		{"https://[::1]/hook", fileframe.CodeWebhookURLRefused},
		{"https://10.0.0.8/hook", fileframe.CodeWebhookURLRefused},
		{"https://192.168.1.1/hook", fileframe.CodeWebhookURLRefused},
		{"https://169.254.169.254/latest/meta-data", fileframe.CodeWebhookURLRefused},
		{"https://[::ffff:169.254.169.254]/", fileframe.CodeWebhookURLRefused},
		{"https://local.example.com/hook", fileframe.CodeWebhookURLRefused},
		{"https://mixed.example.com/hook", fileframe.CodeWebhookURLRefused},
		{"https://metadata.example.com/hook", fileframe.CodeWebhookURLRefused},
		{"https://nowhere.example.com/hook", fileframe.CodeWebhookURLRefused},
		{"https://user:pass@hooks.example.com/hook", fileframe.CodeWebhookURLRefused},
		{"https://hooks.example.com/hook#frag", fileframe.CodeWebhookURLRefused},
		{"hooks.example.com/hook", fileframe.CodeInvalidField},
		{"", fileframe.CodeInvalidField},
		{public + "/hook", ""},
	} {
		_, err := client.CheckURL(t.Context(), tc.url)
		if got := fileframe.ErrorCode(err); err != nil && got != tc.code || err == nil && tc.code != "" {
			t.Errorf("CheckURL(%q) = %v (code %s), want code %q", tc.url, err, got, tc.code)
		}
	}
	if d := n.dialled(); len(d) != 0 {
		t.Errorf("checking URLs dialled %v, want nothing", d)
	}

	e := newEnv(t, client)
	ok := e.endpoint(t, public+"/ok", fileframe.EventFileCreated)
	redirect := e.endpoint(t, public+"/redirect", fileframe.EventFileCreated)
	rebind := e.endpoint(t, "https://rebind.example.com:"+itoa(int64(port))+"/rebind", fileframe.EventFileCreated)
	// The name answered 127.0.0.2 when the endpoint was made; now it
	// answers loopback (DNS rebinding).
	n.answer("rebind.example.com", "127.0.0.1")
	e.file(t, "a.txt")
	if _, err := e.worker.DeliverDue(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		w      fileframe.Webhook
		state  fileframe.DeliveryState
		status int
		err    string
	}{
		{ok, fileframe.DeliveryDelivered, 204, ""},
		{redirect, fileframe.DeliveryPending, 307, "redirect"},
		{rebind, fileframe.DeliveryPending, 0, "refused"},
	} {
		list, err := e.store.Deliveries(t.Context(), tc.w.ID, 10)
		if err != nil || len(list) != 1 {
			t.Fatalf("Deliveries(%s): %v, %v", tc.w.URL, list, err)
		}
		d := list[0]
		if d.State != tc.state || d.LastStatus != tc.status || !strings.Contains(d.LastError, tc.err) {
			t.Errorf("%s: state %s, status %d, error %q; want %s, %d, %q", tc.w.URL, d.State, d.LastStatus, d.LastError, tc.state, tc.status, tc.err)
		}
	}
	if _, ok := hits.Load("/rebind"); ok {
		t.Error("the rebound name was requested")
	}
	for _, d := range n.dialled() {
		if d.Addr() != netip.MustParseAddr("127.0.0.2") {
			t.Errorf("dialled %s, want only the public test address", d)
		}
	}
}

// TestResponseCapAndTimeout: an endpoint that answers 200 with an endless
// body, or never answers, costs at most the cap and the timeout.
func TestResponseCapAndTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			io.ReadAll(r.Body) // so that the server notices the client going
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		w.WriteHeader(http.StatusBadGateway)
		chunk := []byte(strings.Repeat("x", 1<<10))
		for i := 0; i < 1<<14; i++ { // 16 MiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c := webhook.NewClient(webhook.ClientConfig{AllowPrivate: true, Timeout: 500 * time.Millisecond, MaxResponseBytes: 4 << 10})
	secret := webhook.NewSecret()
	start := time.Now()
	r := c.Send(t.Context(), srv.URL+"/big", "msg_1", secret, time.Now(), []byte(`{}`))
	if r.OK() || r.Status != http.StatusBadGateway || !strings.HasPrefix(r.Err.Error(), "HTTP 502: xxx") || len(r.Err.Error()) > 220 {
		t.Errorf("big answer: %+v", r)
	}
	r = c.Send(t.Context(), srv.URL+"/slow", "msg_2", secret, time.Now(), []byte(`{}`))
	if r.OK() || r.Status != 0 || !strings.Contains(r.Err.Error(), "no answer within 500ms") {
		t.Errorf("slow answer: %+v", r)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the two attempts took %s", d)
	}
}

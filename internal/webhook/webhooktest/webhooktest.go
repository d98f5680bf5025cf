// Package webhooktest is a receiver of webhooks on loopback for tests: it
// checks the Standard Webhooks signature of every delivery it gets with
// crypto/hmac alone (Verify, the example of docs/webhooks.md), apart from
// the library that signs them, and records what came.
package webhooktest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tolerance is how far a delivery's webhook-timestamp may be from the
// receiver's clock.
const Tolerance = 5 * time.Minute

// Verify checks a delivery as a receiver should: the webhook-id,
// webhook-timestamp and webhook-signature headers are there, the
// timestamp is within Tolerance of now, and one of the signatures is "v1,"
// and the base64 HMAC-SHA256 of "id.timestamp.body" under the key of
// secret ("whsec_" and its base64).
func Verify(secret string, h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("missing webhook-id, webhook-timestamp or webhook-signature")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("webhook-timestamp %q is not a number", ts)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("webhook-timestamp %s is %s from now", ts, d)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return fmt.Errorf("the secret is not base64: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(sigs) {
		if version, s, ok := strings.Cut(sig, ","); ok && version == "v1" && hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return fmt.Errorf("no signature of %q matches", sigs)
}

// Delivery is one request the receiver got.
type Delivery struct {
	Path      string
	ID        string // webhook-id
	Timestamp string // webhook-timestamp
	Header    http.Header
	Body      []byte
	// Payload is Body decoded.
	Payload struct {
		Type      string         `json:"type"`
		Timestamp time.Time      `json:"timestamp"`
		Data      map[string]any `json:"data"`
	}
	// Status is what the receiver answered.
	Status int
}

// Receiver is an HTTP server on 127.0.0.1 that verifies and records every
// delivery. Each path has its secret (SetSecret); Respond decides the
// status of each answer.
type Receiver struct {
	*httptest.Server
	mu         sync.Mutex
	secrets    map[string]string
	deliveries []Delivery
	problems   []string
	respond    func(d Delivery, n int) int
	arrived    chan struct{}
}

// NewReceiver starts a Receiver that answers 204 until Respond says
// otherwise; it stops when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	r := &Receiver{secrets: map[string]string{}, arrived: make(chan struct{}, 1)}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

// At returns the address of path on the receiver.
func (r *Receiver) At(path string) string { return r.Server.URL + path }

// SetSecret sets the secret the deliveries to path are signed with.
func (r *Receiver) SetSecret(path, secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets[path] = secret
}

// Respond makes f decide the status of each answer: d is the delivery, n
// how many requests with its webhook-id came before it.
func (r *Receiver) Respond(f func(d Delivery, n int) int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.respond = f
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	d := Delivery{Path: req.URL.Path, ID: req.Header.Get("webhook-id"), Timestamp: req.Header.Get("webhook-timestamp"),
		Header: req.Header.Clone(), Body: body, Status: http.StatusNoContent}
	r.mu.Lock()
	defer func() {
		r.mu.Unlock()
		select {
		case r.arrived <- struct{}{}:
		default:
		}
	}()
	bad := func(format string, a ...any) {
		r.problems = append(r.problems, fmt.Sprintf("%s %s: ", d.Path, d.ID)+fmt.Sprintf(format, a...))
	}
	switch secret, ok := r.secrets[d.Path]; {
	case err != nil:
		bad("reading the body: %v", err)
	case req.Method != http.MethodPost:
		bad("method %s, want POST", req.Method)
	case req.Header.Get("Content-Type") != "application/json":
		bad("Content-Type %q", req.Header.Get("Content-Type"))
	case !ok:
		bad("no secret for this path")
	default:
		if err := Verify(secret, req.Header, body, time.Now()); err != nil {
			bad("signature: %v", err)
		}
		if err := json.Unmarshal(body, &d.Payload); err != nil {
			bad("payload: %v", err)
		}
	}
	n := 0
	for _, p := range r.deliveries {
		if p.ID == d.ID && p.Path == d.Path {
			n++
		}
	}
	if r.respond != nil {
		d.Status = r.respond(d, n)
	}
	r.deliveries = append(r.deliveries, d)
	w.WriteHeader(d.Status)
}

// Deliveries returns what came so far, in order.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.deliveries...)
}

// Problems returns every delivery that failed verification, or had no
// secret, or was not a JSON POST.
func (r *Receiver) Problems() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.problems...)
}

// WaitFor waits until done says yes about the deliveries so far, or fails
// the test after timeout.
func (r *Receiver) WaitFor(t testing.TB, timeout time.Duration, what string, done func([]Delivery) bool) []Delivery {
	t.Helper()
	deadline := time.After(timeout)
	for {
		ds := r.Deliveries()
		if done(ds) {
			return ds
		}
		select {
		case <-r.arrived:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("waited %s for %s; got %d deliveries", timeout, what, len(ds))
		}
	}
}

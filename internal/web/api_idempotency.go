package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// idempotencyHeader is the header that makes a POST safe to retry
// (draft-ietf-httpapi-idempotency-key-header), canonical as in r.Header.
const idempotencyHeader = "Idempotency-Key"

const (
	// IdempotencyKeep is how long the answer of a request with an
	// Idempotency-Key is kept at least: a retry within it gets that
	// answer. serve forgets older ones.
	IdempotencyKeep = 24 * time.Hour
	// idempotencyStale is how long a request may run before a retry with
	// its key takes it over: its process must have died (a slow upload
	// of many gigabytes is the longest request there is).
	idempotencyStale = 6 * time.Hour
	// maxIdempotencyKey is the longest key taken.
	maxIdempotencyKey = 255
)

// replayedHeaders are the headers of an answer kept with it and sent
// again on a replay; the others (RateLimit, X-Request-ID) belong to the
// retry.
var replayedHeaders = []string{"Content-Type", "Location"}

// parseIdempotencyKey returns the key of the Idempotency-Key header: one
// value, 1 to 255 visible ASCII characters, written as a structured-field
// string ("…", as the draft says) or bare, as many clients send it.
func parseIdempotencyKey(values []string) (string, error) {
	bad := func(why string) error {
		return fileframe.Errorf(fileframe.CodeIdempotencyKeyInvalid,
			"The Idempotency-Key header %s. Send one key of 1 to %d visible ASCII characters, e.g. a UUID, the same on every retry of one request and new for every other request.",
			why, maxIdempotencyKey)
	}
	if len(values) != 1 {
		return "", bad("appears more than once")
	}
	key := strings.TrimSpace(values[0])
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		key = key[1 : len(key)-1]
	}
	switch {
	case key == "":
		return "", bad("is empty")
	case len(key) > maxIdempotencyKey:
		return "", bad("is longer than 255 characters")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", bad("has a character that is not visible ASCII")
		}
	}
	return key, nil
}

// requestFingerprint identifies a request with a body read whole: its
// method, path, query and body, hashed. A retry is the same request when
// its fingerprint is the same.
func requestFingerprint(r *http.Request, body []byte) string {
	h := sha256.New()
	io.WriteString(h, r.Method+" "+r.URL.EscapedPath()+"?"+r.URL.RawQuery+"\n")
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// idempotent runs a POST that has an Idempotency-Key: the first request
// with a key runs and its answer is kept (a 2xx or 4xx; a 5xx, 408, 409 or
// 429 is not, so that a retry runs again); a retry of the same request
// gets the kept answer again with Idempotent-Replayed: true; a different
// request with the same key is idempotency_key_reused (422); a retry while
// the first still runs is idempotency_in_progress (409). Keys are per API
// key and shared by every instance (the store).
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, e apiEndpoint, c *apiCall, values []string) (int, any, error) {
	key, err := parseIdempotencyKey(values)
	if err != nil {
		return 0, nil, err
	}
	keyID := c.caller.key.ID
	claimedAt := s.now()
	prev, claimed, err := s.store.ClaimIdempotent(r.Context(), keyID, key, claimedAt, idempotencyStale)
	if err != nil {
		return 0, nil, err
	}
	if !claimed {
		return s.replay(w, r, e, c, prev)
	}

	// The store calls after the run outlive a client that went away, or a
	// claim would stay "running" until it is stale.
	settle := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(r.Context()), 10*time.Second)
	}
	rec := &recordingWriter{ResponseWriter: w}
	settled := false
	defer func() {
		if !settled { // a panic: let a retry run again
			ctx, cancel := settle()
			defer cancel()
			s.releaseIdempotent(ctx, r, keyID, key, claimedAt)
		}
	}()
	status, resp, err := e.run(rec, r, c)
	if err != nil {
		s.apiError(rec, r, err)
	} else if status != 0 {
		s.writeAPIJSON(rec, "application/json", status, resp)
	}
	settled = true
	ctx, cancel := settle()
	defer cancel()
	if !keepAnswer(rec.status) || c.fingerprint == "" || r.Context().Err() != nil {
		s.releaseIdempotent(ctx, r, keyID, key, claimedAt)
		return 0, nil, nil
	}
	kept := fileframe.IdempotentRequest{KeyID: keyID, Key: key, Fingerprint: c.fingerprint,
		Status: rec.status, Header: map[string]string{}, Body: rec.body.Bytes()}
	for _, name := range replayedHeaders {
		if v := w.Header().Get(name); v != "" {
			kept.Header[name] = v
		}
	}
	if err := s.store.FinishIdempotent(ctx, kept); err != nil {
		// The answer went out; a retry will find the key running until it
		// is stale, and be told to wait (409) rather than run twice.
		s.logFor(r).Log(ctx, faultLevel(err), "api: keeping the answer of an idempotent request", "key_id", keyID, "err", err)
	}
	return 0, nil, nil
}

// releaseIdempotent releases the claim of (keyID, key) made at claimedAt,
// so that a retry of the request runs again. When the store cannot (the
// database out of reach), it is tried again in the background
// (tryAgainLater): else the retry would be told the request still runs
// (409) until the claim is stale, hours later. Since the release names its
// claim, one tried again late never frees a newer request's.
func (s *Server) releaseIdempotent(ctx context.Context, r *http.Request, keyID fileframe.KeyID, key string, claimedAt time.Time) {
	release := func(ctx context.Context) error { return s.store.ReleaseIdempotent(ctx, keyID, key, claimedAt) }
	if err := release(ctx); err != nil {
		s.tryAgainLater(s.logFor(r).With("key_id", keyID), "api: releasing an idempotency key", err, release)
	}
}

// replay answers a request whose Idempotency-Key another request holds.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, e apiEndpoint, c *apiCall, prev fileframe.IdempotentRequest) (int, any, error) {
	if !prev.Done {
		w.Header().Set("Retry-After", "1")
		if e.body == bodyStream {
			w.Header().Set("Connection", "close") // its body is not read
		}
		return 0, nil, fileframe.Errorf(fileframe.CodeIdempotencyKeyInProgress,
			"A request with this Idempotency-Key is still running. Wait a second (Retry-After) and send the same request again: you will get its answer.")
	}
	fp := c.fingerprint
	if e.body == bodyStream {
		var err error
		if fp, err = e.fingerprint(w, r, c); err != nil {
			return 0, nil, err
		}
	}
	if fp != prev.Fingerprint {
		return 0, nil, fileframe.Errorf(fileframe.CodeIdempotencyKeyReused,
			"This Idempotency-Key was used on %s for a different request (another path, query or body). Use a new key for every new request, and the same key only to retry the very same request.",
			prev.CreatedAt.UTC().Format(time.RFC3339))
	}
	h := w.Header()
	for _, name := range replayedHeaders {
		if v, ok := prev.Header[name]; ok {
			h.Set(name, v)
		}
	}
	h.Set("Idempotent-Replayed", "true")
	h.Set("Cache-Control", "no-store")
	setDataHeaders(h)
	h.Set("Content-Length", strconv.Itoa(len(prev.Body)))
	w.WriteHeader(prev.Status)
	w.Write(prev.Body)
	return 0, nil, nil
}

// keepAnswer reports whether an answer of this status is kept for
// retries: answers that say what the request did or why it is wrong are;
// those that say "not now" (408, 409, 429, 5xx) are not, and nor is no
// answer at all (a client that went away).
func keepAnswer(status int) bool {
	switch {
	case status == 0, status >= 500:
		return false
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status == http.StatusTooManyRequests:
		return false
	}
	return true
}

// recordingWriter passes an answer through to the client and keeps a
// copy of its status and body.
type recordingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recordingWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (deadlines of
// a streamed upload).
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

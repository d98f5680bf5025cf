// Package client is a small typed client of Fileframe's REST API (docs/api.md):
// files, their custom pages and revisions, the HTML check, and resumable
// uploads over tus (upload.go). It is what `fileframe remote …` runs.
//
// Every request carries the API key as `Authorization: Bearer <key>`; every
// POST an Idempotency-Key, random per call and the same on the call's own
// retries. A 429 (and a 503 or 409 that says when to come back) is retried
// after its Retry-After, a few times; a request that cannot have changed
// anything twice (GET, HEAD, PATCH of a name, DELETE, a POST with its
// Idempotency-Key) is also retried after a connection error. A refusal is
// an *Error decoded from the problem+json body.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Client talks to one Fileframe server with one API key. Its zero value is
// not usable: make one with New.
type Client struct {
	base *url.URL
	key  string
	http *http.Client
	// MaxRetries is how many times a request is sent again after a 429 or
	// a connection error (default 3).
	MaxRetries int
	// MaxWait is the longest Retry-After that is waited for; a longer one
	// is returned as the error (default one minute).
	MaxWait time.Duration
	// UserAgent names the program in requests.
	UserAgent string
	// sleep waits d or until ctx ends (tests shorten it).
	sleep func(ctx context.Context, d time.Duration) error
}

// New returns a client of the server at baseURL (its app origin, e.g.
// https://files.example.com) with key; hc nil means a client with no
// overall timeout (uploads are long), whose transport is
// http.DefaultTransport.
func New(baseURL, key string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(baseURL), "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the server's URL %q is not an http:// or https:// URL", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("the server's URL %q must be only its origin and path, without user, query or fragment", baseURL)
	}
	if key == "" {
		return nil, errors.New("no API key")
	}
	if hc == nil {
		hc = &http.Client{}
	}
	// The API answers its calls; it never redirects one. So no redirect
	// is followed. One to another origin (a hostile or misconfigured
	// server, another port of the same host) would carry the key there;
	// one within the origin names another resource than the one asked
	// for (the router sends /api/files/. to the list of files), whose
	// answer would be read as this call's.
	own := *hc
	own.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if !sameOrigin(r.URL, u) {
			return redirectError{fmt.Sprintf("the server redirected to %s, another origin than %s; the key is not sent there", r.URL.Redacted(), originOf(u))}
		}
		return redirectError{fmt.Sprintf("the server redirected %s to %s instead of answering; is %s the server's app origin?", via[len(via)-1].URL.Path, r.URL.Path, originOf(u))}
	}
	own.Transport = capped{base: hc.Transport}
	return &Client{base: u, key: key, http: &own, MaxRetries: 3, MaxWait: time.Minute, UserAgent: "fileframe-client", sleep: sleepCtx}, nil
}

// redirectError is a redirect the client refused: the server's answer,
// not a fault of the connection, so it is not tried again.
type redirectError struct{ msg string }

func (e redirectError) Error() string { return e.msg }

// sameOrigin reports whether a and b have the same scheme, host and port
// (a default port written or not).
func sameOrigin(a, b *url.URL) bool {
	return originOf(a) == originOf(b)
}

// originOf is u's origin with its port always written.
func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// MaxAnswer is the largest answer body the client reads (a revision's
// HTML, JSON-escaped, is at most 8 MiB); a larger one is an error, not
// memory spent on a hostile server's stream.
const MaxAnswer = 32 << 20

// CappedTransport returns base (http.DefaultTransport when nil) with
// every answer's body failing past MaxAnswer: `fileframe mcp` reads the
// server's MCP answers through it.
func CappedTransport(base http.RoundTripper) http.RoundTripper { return capped{base: base} }

// SameOrigin reports whether a and b are one origin (scheme, host, port).
func SameOrigin(a, b *url.URL) bool { return sameOrigin(a, b) }

// capped is a RoundTripper whose answers' bodies fail past MaxAnswer.
type capped struct{ base http.RoundTripper }

func (c capped) RoundTrip(r *http.Request) (*http.Response, error) {
	rt := c.base
	if rt == nil {
		rt = http.DefaultTransport
	}
	resp, err := rt.RoundTrip(r)
	if err == nil {
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: MaxAnswer}
	}
	return resp, err
}

// cappedBody reads at most left bytes, then fails.
type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the server's answer is larger than %d MiB; stopped reading it", MaxAnswer>>20)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// BaseURL returns the server's URL as the client uses it (no trailing
// slash).
func (c *Client) BaseURL() string { return c.base.String() }

// url returns the absolute URL of an API path (and query).
func (c *Client) url(path string, q url.Values) string {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	u.RawPath = ""
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Error is a refusal from the server: the problem+json body's members
// (docs/api.md, "Errors"), or what could be read of another body.
type Error struct {
	// Status is the HTTP status; Code the problem's stable code
	// ("html_invalid", "key_scope", …; a tus refusal's ERR_… in lower case
	// without the prefix; "" when the body said none).
	Status int
	Code   string
	Title  string
	Detail string
	// Findings are the problem's "errors" (why HTML was refused), each
	// with a hint; Warnings its "warnings".
	Findings  []Finding
	Warnings  []Finding
	RequestID string
	// RetryAfter is the answer's Retry-After, when it had one.
	RetryAfter time.Duration
}

// Error returns the code and the detail.
func (e *Error) Error() string {
	code := e.Code
	if code == "" {
		code = "http_" + strconv.Itoa(e.Status)
	}
	detail := e.Detail
	if detail == "" {
		detail = e.Title
	}
	if detail == "" {
		detail = http.StatusText(e.Status)
	}
	return fmt.Sprintf("%s (%d): %s", code, e.Status, detail)
}

// IsCode reports whether err is an *Error with code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Finding is one finding of the HTML rules: where and what, and how to fix
// it.
type Finding struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Excerpt string `json:"excerpt,omitempty"`
	Hint    string `json:"hint,omitempty"`
	// URL names the remote image, font or media of an asset.* finding.
	URL string `json:"url,omitempty"`
}

// problemBody is the problem+json body.
type problemBody struct {
	Title     string    `json:"title"`
	Status    int       `json:"status"`
	Detail    string    `json:"detail"`
	Code      string    `json:"code"`
	Errors    []Finding `json:"errors"`
	Warnings  []Finding `json:"warnings"`
	RequestID string    `json:"requestId"`
}

// tusErrorBody is tusd's plain-text refusal: "ERR_CODE: message".
var tusErrorBody = regexp.MustCompile(`^ERR_([A-Z0-9_]+): (?s:(.*))$`)

// readError turns a refusal into an *Error, reading at most 64 KiB of its
// body, and closes the body.
func readError(resp *http.Response) *Error {
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &Error{Status: resp.StatusCode}
	e.RetryAfter, _ = RetryAfter(resp.Header.Get("Retry-After"), time.Now())
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var p problemBody
	if (mediaType == "application/problem+json" || mediaType == "application/json") && json.Unmarshal(raw, &p) == nil {
		e.Code, e.Title, e.Detail, e.RequestID = p.Code, p.Title, p.Detail, p.RequestID
		e.Findings, e.Warnings = p.Errors, p.Warnings
		return e
	}
	text := strings.TrimSpace(string(raw))
	if m := tusErrorBody.FindStringSubmatch(text); m != nil {
		e.Code, text = strings.ToLower(m[1]), strings.TrimSpace(m[2])
	}
	if len(text) > 500 {
		text = text[:500] + "…"
	}
	e.Detail = text
	return e
}

// RetryAfter parses a Retry-After value: seconds, or an HTTP date.
func RetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// newIdempotencyKey returns a fresh random Idempotency-Key.
func newIdempotencyKey() string {
	b := make([]byte, 18)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// request is one API request, sent as many times as it takes.
type request struct {
	method string
	url    string
	header http.Header
	body   []byte // nil: no body
	// retryConn: a connection error may be retried (the request changes
	// nothing twice).
	retryConn bool
}

// send sends req, retrying as the package says, and returns the last
// response, whatever its status, with its body unread.
func (c *Client) send(ctx context.Context, req request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		var body io.Reader
		if req.body != nil {
			body = bytes.NewReader(req.body)
		}
		hr, err := http.NewRequestWithContext(ctx, req.method, req.url, body)
		if err != nil {
			return nil, err
		}
		for k, v := range req.header {
			hr.Header[k] = v
		}
		c.authorize(hr)
		resp, err := c.http.Do(hr)
		if err != nil {
			if ctx.Err() != nil || !req.retryConn || attempt >= c.MaxRetries || errors.As(err, new(redirectError)) {
				return nil, err
			}
			if err := c.sleep(ctx, backoff(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		wait, ok := c.retryable(resp)
		if !ok || attempt >= c.MaxRetries {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if err := c.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// authorize sets the headers every request carries.
func (c *Client) authorize(r *http.Request) {
	r.Header.Set("Authorization", "Bearer "+c.key)
	if c.UserAgent != "" {
		r.Header.Set("User-Agent", c.UserAgent)
	}
}

// retryable says whether a response asks to be retried, and after how
// long: a 429 (Retry-After, else one second), or a 503 or 409 with a
// Retry-After (busy; the same Idempotency-Key still running), each only
// while the wait is at most MaxWait.
func (c *Client) retryable(resp *http.Response) (time.Duration, bool) {
	wait, has := RetryAfter(resp.Header.Get("Retry-After"), time.Now())
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		if !has {
			wait = time.Second
		}
	case (resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusConflict) && has:
	default:
		return 0, false
	}
	return wait, wait <= c.MaxWait
}

// backoff is the wait before the retry after attempt (0-based) failed to
// connect: 0.5 s, 1 s, 2 s, … at most 8 s.
func backoff(attempt int) time.Duration {
	return min(500*time.Millisecond<<attempt, 8*time.Second)
}

// call sends a JSON API request (in is marshalled as the body unless
// nil) and decodes a 2xx answer into out; anything else is an *Error.
func (c *Client) call(ctx context.Context, method, path string, q url.Values, in, out any) error {
	req := request{method: method, url: c.url(path, q), header: http.Header{}}
	req.header.Set("Accept", "application/json")
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		req.body = b
		req.header.Set("Content-Type", "application/json")
	}
	switch method {
	case http.MethodPost:
		// The same key on every retry of this call: the server answers a
		// retry of a POST it already did with its first answer.
		req.header.Set("Idempotency-Key", newIdempotencyKey())
		req.retryConn = true
	case http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodDelete:
		// A rename sets the name (twice is once); a delete twice is a
		// 404 the second time, the file gone either way.
		req.retryConn = true
	}
	resp, err := c.send(ctx, req)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return readError(resp)
	}
	defer resp.Body.Close()
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: the answer (%d) is not the JSON expected: %w", method, path, resp.StatusCode, err)
	}
	return nil
}

// pathID escapes one path segment (an ID the user typed).
func pathID(s string) string { return url.PathEscape(s) }

package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"code.dny.dev/ssrf"
	"github.com/fileframe/fileframe/internal/fetch"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// ClientConfig is a Client's policy. The zero value is production's:
// public https addresses only, 10 s per attempt.
type ClientConfig struct {
	// AllowPrivate (the operator flag --webhook-private) lets endpoints be
	// http: URLs and reach loopback, private and other special-use
	// addresses: for development and tests only.
	AllowPrivate bool
	// RootCAs are the certificate authorities trusted; nil means the
	// system's roots.
	RootCAs *x509.CertPool
	// Resolver answers the addresses of a host name (fetch.DialerConfig);
	// nil means the system's.
	Resolver func(ctx context.Context, host string) ([]netip.Addr, error)
	// Timeout bounds one attempt: connection, request and answer.
	// Default 10 s.
	Timeout time.Duration
	// MaxResponseBytes is how much of an answer's body is read (the rest
	// is dropped with the connection). Default 64 KiB.
	MaxResponseBytes int64
	// Test is for tests only (fetch.TestPolicy): addresses taken as
	// public, and the dials seen.
	Test *fetch.TestPolicy
}

// Defaults of ClientConfig.
const (
	DefaultTimeout          = 10 * time.Second
	DefaultMaxResponseBytes = 64 << 10
	// MaxURLLen is the longest endpoint URL.
	MaxURLLen = 2000
	// userAgent names the sender to receivers.
	userAgent = "Fileframe-Webhooks/1"
	// excerptLen is how much of a refusing answer's body the delivery log
	// keeps.
	excerptLen = 200
)

// Client sends deliveries under the SSRF rules. It is safe for concurrent
// use; one serves the process.
type Client struct {
	cfg    ClientConfig
	dialer *fetch.Dialer
	http   *http.Client
}

// NewClient returns a Client with cfg's policy.
func NewClient(cfg ClientConfig) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	// Public addresses on any port: a receiver may listen on 8443; the
	// special-use ranges are what a request forged from inside must not
	// reach, whatever the port.
	d := fetch.NewDialer(fetch.DialerConfig{AllowPrivate: cfg.AllowPrivate, AnyPort: true, Resolver: cfg.Resolver, Test: cfg.Test})
	c := &Client{cfg: cfg, dialer: d}
	c.http = &http.Client{
		Transport: &http.Transport{
			Proxy:               nil, // never HTTPS_PROXY from the environment: it would dial for us, unchecked
			DialContext:         d.DialContext,
			TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: cfg.RootCAs},
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     30 * time.Second,
			// A connection kept alive was checked when it was dialled; it
			// stays with the address it was checked for.
			ResponseHeaderTimeout:  cfg.Timeout,
			MaxResponseHeaderBytes: 16 << 10,
		},
		// No redirect is followed: a 3xx is a failed attempt (a redirect to
		// loopback would otherwise be a way in).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

// CheckURL checks an endpoint URL against the rules and returns it as it
// will be requested: https (http too with AllowPrivate), no user name or
// password, no fragment, a host that is, or resolves only to, addresses
// the policy allows. Refusals are CodeWebhookURLRefused with the reason;
// malformed URLs CodeInvalidField.
func (c *Client) CheckURL(ctx context.Context, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	invalid := func(format string, a ...any) error {
		return fileframe.Errorf(fileframe.CodeInvalidField, format, a...)
	}
	switch {
	case raw == "":
		return "", invalid("url is required: the https:// address that receives the events.")
	case len(raw) > MaxURLLen:
		return "", invalid("url is %d bytes; the limit is %d.", len(raw), MaxURLLen)
	case !utf8.ValidString(raw) || strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "", invalid("url must be an address without spaces or control characters.")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" {
		return "", invalid("url %q is not an absolute URL such as https://hooks.example.com/fileframe.", truncate(raw, 100))
	}
	refuse := func(format string, a ...any) error {
		return fileframe.Errorf(fileframe.CodeWebhookURLRefused, "The webhook URL is refused: "+format, a...)
	}
	switch {
	case u.Scheme == "http" && c.cfg.AllowPrivate:
	case u.Scheme != "https":
		return "", refuse("it uses %s:, and endpoints must use https:.", u.Scheme)
	}
	if u.User != nil {
		return "", refuse("it carries a user name or password; put credentials in the path or use the signature.")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "", refuse("it has a #fragment, which is never sent.")
	}
	host := u.Hostname()
	if host == "" {
		return "", invalid("url %q has no host.", truncate(raw, 100))
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.ParseUint(p, 10, 16); err != nil || n == 0 {
			return "", invalid("url's port %q is not a port number.", p)
		}
	}
	check, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := c.dialer.Resolve(check, host); err != nil {
		var p *fetch.Problem
		if errors.As(err, &p) {
			return "", refuse("%s.", p.Reason)
		}
		return "", refuse("its host %s could not be resolved (%v).", host, err)
	}
	return u.String(), nil
}

// Result is the outcome of one attempt.
type Result struct {
	// Status is the HTTP status of the answer; 0 when there was none.
	Status   int
	Duration time.Duration
	// Err says why the attempt failed (a status other than 2xx, a
	// redirect, a refused address, a time-out); nil on success.
	Err error
}

// OK reports whether the endpoint took the delivery (2xx).
func (r Result) OK() bool { return r.Err == nil }

// Send POSTs body, event id signed at ts with secret, to target, and
// reads at most MaxResponseBytes of the answer. Only a 2xx is success.
func (c *Client) Send(ctx context.Context, target, id, secret string, ts time.Time, body []byte) Result {
	start := time.Now()
	res := c.send(ctx, target, id, secret, ts, body)
	res.Duration = time.Since(start)
	return res
}

func (c *Client) send(ctx context.Context, target, id, secret string, ts time.Time, body []byte) Result {
	sig, err := Sign(secret, id, ts, body)
	if err != nil {
		return Result{Err: fmt.Errorf("the endpoint's secret cannot sign: %w", err)}
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return Result{Err: fmt.Errorf("the URL cannot be requested: %w", err)}
	}
	if req.URL.Scheme != "https" && !(c.cfg.AllowPrivate && req.URL.Scheme == "http") {
		return Result{Err: fmt.Errorf("refused: %s: URLs are never requested", req.URL.Scheme)}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", userAgent)
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, sig)
	resp, err := c.http.Do(req)
	if err != nil {
		return Result{Err: c.failure(ctx, err)}
	}
	defer resp.Body.Close()
	head := make([]byte, excerptLen)
	n, _ := io.ReadFull(resp.Body, head)
	// The rest, up to the cap, so that a kept-alive connection is reused;
	// an answer longer than that is dropped with its connection.
	io.Copy(io.Discard, io.LimitReader(resp.Body, c.cfg.MaxResponseBytes-int64(n)))
	res := Result{Status: resp.StatusCode}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		res.Err = fmt.Errorf("HTTP %d: a redirect (to %s), which is never followed; give the final URL", resp.StatusCode, truncate(resp.Header.Get("Location"), 200))
	default:
		res.Err = fmt.Errorf("HTTP %d%s", resp.StatusCode, excerpt(head[:n]))
	}
	return res
}

// failure says why a request got no answer.
func (c *Client) failure(ctx context.Context, err error) error {
	var p *fetch.Problem
	var certErr *tls.CertificateVerificationError
	var ne net.Error
	switch {
	case errors.As(err, &p) && p.Refused:
		return fmt.Errorf("refused: %s", p.Reason)
	case errors.As(err, &p):
		return errors.New(p.Reason)
	case errors.Is(err, ssrf.ErrProhibitedIP), errors.Is(err, ssrf.ErrProhibitedPort), errors.Is(err, ssrf.ErrProhibitedNetwork):
		return fmt.Errorf("refused by the address policy (%v)", err)
	case ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("no answer within %s", c.cfg.Timeout)
	case errors.As(err, &certErr):
		return fmt.Errorf("its TLS certificate is not valid (%v)", certErr.Err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("the request failed (%v)", err)
}

// excerpt is ": " and the start of a refusing answer's body, as one line
// of printable text, or "".
func excerpt(b []byte) string {
	s := strings.ToValidUTF8(string(b), "?")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }), " ")
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	return ": " + s
}

// truncate shortens s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"code.dny.dev/ssrf"
	whatwgurl "github.com/nlnwa/whatwg-url/url"
	"golang.org/x/sync/semaphore"
)

// Kind is what a page loads a resource as; it decides the caps and what
// the bytes must be.
type Kind string

// The kinds of resource, as the page's elements load them.
const (
	Image Kind = "image" // <img>, CSS images, <video poster>
	Font  Kind = "font"  // @font-face src
	Media Kind = "media" // <audio>, <video>, <source>
	Track Kind = "track" // <track src>
)

// Config is a Fetcher's configuration. The zero value of every field but
// AllowPrivate, RootCAs and Test means its default.
type Config struct {
	// AllowPrivate (the operator flag --fetch-private) lets URLs reach
	// loopback, private and other special-use addresses, on any port: for
	// development and tests only.
	AllowPrivate bool
	// RootCAs are the certificate authorities trusted; nil means the
	// system's roots.
	RootCAs *x509.CertPool
	// Resolver answers the addresses of a host name; nil means
	// net.DefaultResolver.LookupNetIP(ctx, "ip", host).
	Resolver func(ctx context.Context, host string) ([]netip.Addr, error)
	// Timeout is the budget of one resource: connection, redirects and
	// the whole body. Default 10s.
	Timeout time.Duration
	// MaxConcurrent is how many fetches run at once in the Fetcher; more
	// callers wait. Default 8.
	MaxConcurrent int
	// MaxImageBytes caps an image's body. Default 8 MiB.
	MaxImageBytes int64
	// MaxImagePixels caps an image's width times height. Default 16
	// megapixels (16 × 2²⁰, so 4096×4096 fits).
	MaxImagePixels int64
	// MaxImageSide caps an image's width and its height. Default 16384.
	MaxImageSide int
	// MaxFontBytes caps a font's body. Default 4 MiB.
	MaxFontBytes int64
	// MaxMediaBytes caps an audio or video body. Default 32 MiB.
	MaxMediaBytes int64
	// MaxTrackBytes caps a text track's body. Default 1 MiB.
	MaxTrackBytes int64
	// MaxRedirects is how many redirects one fetch follows. Default 5.
	MaxRedirects int
	// MaxHeaderBytes caps the response headers. Default 64 KiB.
	MaxHeaderBytes int64
	// UserAgent is sent with every request. Default
	// "Fileframe (+page resources)".
	UserAgent string
	// Test is for tests only and nil in production: it lets tests that
	// keep AllowPrivate off run against servers on loopback.
	Test *TestPolicy
}

// TestPolicy widens the address rules for tests only, so that a test can
// treat some loopback addresses as public servers while every other rule
// (and every other special-use address, such as 127.0.0.1) stays as in
// production.
type TestPolicy struct {
	Public []netip.Prefix // special-use prefixes taken as public, e.g. 127.0.0.2/32
	Ports  []uint16       // ports allowed besides 443
	// Dialing, if set, is called with every address about to be dialled,
	// after the checks; an error stops that dial. Tests use it to see
	// what is connected and to keep all traffic on loopback.
	Dialing func(netip.AddrPort) error
}

// Defaults of Config.
const (
	DefaultTimeout        = 10 * time.Second
	DefaultMaxConcurrent  = 8
	DefaultMaxImageBytes  = 8 << 20
	DefaultMaxImagePixels = 16 << 20
	DefaultMaxImageSide   = 16384
	DefaultMaxFontBytes   = 4 << 20
	DefaultMaxMediaBytes  = 32 << 20
	DefaultMaxTrackBytes  = 1 << 20
	DefaultMaxRedirects   = 5
	DefaultMaxHeaderBytes = 64 << 10
	DefaultUserAgent      = "Fileframe (+page resources)"
)

// imageDecodes is how many images are decoded at once: a 16-megapixel
// decode holds 64 MB.
const imageDecodes = 2

// Resource is a fetched resource whose bytes are what its kind needs.
type Resource struct {
	URL    string // as given to Fetch
	Final  string // the URL the bytes came from, after redirects, as a browser writes it
	Type   string // the Content-Type to serve it with, from its bytes (never the remote header)
	Ext    string // png jpg gif webp bmp woff woff2 ttf otf ttc mp4 m4a webm ogg mp3 wav flac vtt
	Body   []byte
	SHA256 string // of Body, lower-case hex
}

// Problem is why a resource was not fetched.
type Problem struct {
	// Refused means the URL or its bytes are refused: fetching it again
	// will not help. Otherwise the resource is unavailable now (no DNS
	// answer, connection refused, HTTP error, time-out) and a later
	// fetch may succeed.
	Refused bool
	// Reason is one plain sentence a person or an agent can act on,
	// naming the address or the type found.
	Reason string
}

// Error returns the reason.
func (p *Problem) Error() string { return p.Reason }

func refused(format string, a ...any) *Problem {
	return &Problem{Refused: true, Reason: fmt.Sprintf(format, a...)}
}

func unavailable(format string, a ...any) *Problem {
	return &Problem{Reason: fmt.Sprintf(format, a...)}
}

// Fetcher fetches page resources. It is safe for concurrent use; one
// Fetcher should serve the whole process, since its limit on concurrent
// fetches is its own.
type Fetcher struct {
	cfg     Config
	guard   *ssrf.Guardian
	dialer  *Dialer
	client  *http.Client
	parser  whatwgurl.Parser
	slots   *semaphore.Weighted // fetches in flight
	decodes *semaphore.Weighted // image decodes in progress
}

// New returns a Fetcher for cfg, its zero fields set to their defaults.
func New(cfg Config) *Fetcher {
	cfg = withDefaults(cfg)
	d := NewDialer(DialerConfig{AllowPrivate: cfg.AllowPrivate, Resolver: cfg.Resolver, Test: cfg.Test})
	f := &Fetcher{
		cfg:     cfg,
		guard:   d.guard,
		dialer:  d,
		parser:  whatwgurl.NewParser(),
		slots:   semaphore.NewWeighted(int64(cfg.MaxConcurrent)),
		decodes: semaphore.NewWeighted(imageDecodes),
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true) // one protocol to reason about; HTTP/2 buys nothing for one request per connection
	f.client = &http.Client{
		Transport: &http.Transport{
			Proxy:       nil, // never HTTPS_PROXY from the environment
			DialContext: f.dial,
			TLSClientConfig: &tls.Config{
				MinVersion: tls.VersionTLS12,
				RootCAs:    cfg.RootCAs,
			},
			Protocols:              &protocols,
			DisableKeepAlives:      true, // every connection is dialled, and so checked, afresh
			DisableCompression:     true,
			MaxResponseHeaderBytes: cfg.MaxHeaderBytes,
		},
		// Redirects are followed by Fetch, each checked as the first URL is.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return f
}

func withDefaults(c Config) Config {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxImageBytes, DefaultMaxImageBytes)
	def(&c.MaxImagePixels, DefaultMaxImagePixels)
	def(&c.MaxFontBytes, DefaultMaxFontBytes)
	def(&c.MaxMediaBytes, DefaultMaxMediaBytes)
	def(&c.MaxTrackBytes, DefaultMaxTrackBytes)
	def(&c.MaxHeaderBytes, DefaultMaxHeaderBytes)
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	if c.MaxImageSide <= 0 {
		c.MaxImageSide = DefaultMaxImageSide
	}
	if c.MaxRedirects <= 0 {
		c.MaxRedirects = DefaultMaxRedirects
	}
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.Resolver == nil {
		c.Resolver = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	return c
}

// maxBytes is the cap on the body of a resource of kind k.
func (f *Fetcher) maxBytes(k Kind) int64 {
	switch k {
	case Image:
		return f.cfg.MaxImageBytes
	case Font:
		return f.cfg.MaxFontBytes
	case Media:
		return f.cfg.MaxMediaBytes
	default:
		return f.cfg.MaxTrackBytes
	}
}

// accept is the Accept header for kind k (what Fetch can keep, so that a
// server that negotiates does not answer with AVIF or SVG), and whether k
// is a kind at all.
func accept(k Kind) (string, bool) {
	switch k {
	case Image:
		return "image/png, image/jpeg, image/gif, image/webp, image/bmp", true
	case Font:
		return "font/woff2, font/woff, font/ttf, font/otf, font/collection", true
	case Media:
		return "video/mp4, video/webm, audio/mp4, audio/webm, audio/ogg, video/ogg, audio/mpeg, audio/wav, audio/flac", true
	case Track:
		return "text/vtt", true
	}
	return "", false
}

// Fetch fetches rawURL, an absolute URL a page loads as kind, and checks
// its bytes. Its error is a *Problem, or ctx's error when ctx ends first
// (while waiting for a slot or during the fetch). The budget
// (Config.Timeout) starts once a slot is free and ends with the body;
// decoding an image comes after it, bounded by ctx alone.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string, kind Kind) (Resource, error) {
	if _, ok := accept(kind); !ok {
		return Resource{}, refused("the kind %q is none of image, font, media or track", kind)
	}
	if err := f.slots.Acquire(ctx, 1); err != nil {
		return Resource{}, err
	}
	defer f.slots.Release(1)

	budget, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	final, body, err := f.get(budget, rawURL, kind)
	if err == nil {
		var c content
		c, err = f.check(ctx, kind, body)
		if err == nil {
			sum := sha256.Sum256(body)
			return Resource{URL: rawURL, Final: final, Type: c.typ, Ext: c.ext, Body: body, SHA256: hex.EncodeToString(sum[:])}, nil
		}
	}
	if ctx.Err() != nil {
		return Resource{}, ctx.Err()
	}
	return Resource{}, err
}

// maxURLSlashes bounds the slashes of a URL given to the parser:
// github.com/nlnwa/whatwg-url (v0.6.1 and v0.6.2) joins a path's segments
// one by one, in time quadratic in their number (a 1 MiB URL of "f/."
// segments took minutes). No image address in use has this many.
const maxURLSlashes = 256

// tooManySlashes reports whether u has more than maxURLSlashes slashes or
// backslashes, which a browser reads as slashes.
func tooManySlashes(u string) bool {
	return strings.Count(u, "/")+strings.Count(u, `\`) > maxURLSlashes
}

// get follows rawURL's redirects within budget and returns the final URL
// and the body, at most the kind's cap.
func (f *Fetcher) get(budget context.Context, rawURL string, kind Kind) (string, []byte, error) {
	if tooManySlashes(rawURL) {
		return "", nil, refused("the URL has more than %d slashes", maxURLSlashes)
	}
	u, err := f.parser.Parse(rawURL)
	if err != nil {
		return "", nil, refused("the URL does not parse as a browser reads it (%v)", err)
	}
	for hop := 0; ; hop++ {
		resp, err := f.request(budget, u, kind)
		if err != nil {
			return "", nil, onHop(hop, u, err)
		}
		if isRedirect(resp.StatusCode) {
			resp.Body.Close()
			loc := resp.Header.Get("Location")
			if loc == "" {
				return "", nil, onHop(hop, u, unavailable("the server answered %s without a Location", resp.Status))
			}
			if hop == f.cfg.MaxRedirects {
				return "", nil, refused("it redirects more than %d times", f.cfg.MaxRedirects)
			}
			if tooManySlashes(loc) {
				return "", nil, onHop(hop, u, refused("it redirects to a URL with more than %d slashes", maxURLSlashes))
			}
			next, err := u.Parse(loc)
			if err != nil {
				return "", nil, onHop(hop, u, refused("it redirects to %q, which does not parse as a URL", loc))
			}
			u = next
			continue
		}
		defer resp.Body.Close()
		body, err := f.body(budget, resp, kind)
		if err != nil {
			return "", nil, onHop(hop, u, err)
		}
		return u.Href(true), body, nil
	}
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// onHop says that a problem of a redirect's target is the redirect's.
func onHop(hop int, u *whatwgurl.Url, err error) error {
	var p *Problem
	if hop == 0 || !errors.As(err, &p) {
		return err
	}
	return &Problem{Refused: p.Refused, Reason: fmt.Sprintf("it redirects to %s, and %s", u.Href(true), p.Reason)}
}

// request checks u and sends the GET for it, returning a response whose
// status and headers are still to be judged.
func (f *Fetcher) request(budget context.Context, u *whatwgurl.Url, kind Kind) (*http.Response, error) {
	target, err := f.checkURL(u)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(budget, http.MethodGet, "https://fetch.invalid/", nil)
	if err != nil {
		return nil, err
	}
	req.URL = target
	req.Host = ""
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	a, _ := accept(kind)
	req.Header.Set("Accept", a)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.failure(budget, err, "the server did not answer", "the request failed")
	}
	return resp, nil
}

// body judges a response that is not a redirect and reads its body.
func (f *Fetcher) body(budget context.Context, resp *http.Response, kind Kind) ([]byte, error) {
	if resp.StatusCode != http.StatusOK {
		return nil, unavailable("the server answered %s", resp.Status)
	}
	for _, enc := range resp.Header.Values("Content-Encoding") {
		for _, e := range strings.Split(enc, ",") {
			if e = strings.TrimSpace(e); e != "" && !strings.EqualFold(e, "identity") {
				return nil, refused("the response is compressed (Content-Encoding: %s); it must be sent as it is", e)
			}
		}
	}
	limit := f.maxBytes(kind)
	if resp.ContentLength > limit {
		return nil, refused("the response is %d bytes; %s may be at most %s", resp.ContentLength, plural(kind), size(limit))
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	if err == nil && budget.Err() != nil {
		// net/http can end a body the deadline cut with io.EOF, as if it
		// were whole (seen with a chunked body): trust no body that ends
		// as the budget does.
		err = budget.Err()
	}
	if err != nil {
		return nil, f.failure(budget, err, fmt.Sprintf("the body did not arrive in full (%d bytes read)", n), fmt.Sprintf("the body broke off after %d bytes", n))
	}
	if n > limit {
		return nil, refused("the response is more than %s; %s may be at most %s", size(limit), plural(kind), size(limit))
	}
	if n == 0 {
		return nil, refused("the response is empty")
	}
	return buf.Bytes(), nil
}

// failure turns the error of a request or a body read into a Problem:
// what the dialer found, the budget running out (timedOut, "within 10s"),
// a TLS failure, or else what failed, with the error.
func (f *Fetcher) failure(budget context.Context, err error, timedOut, failed string) error {
	var (
		p         *Problem
		certErr   *tls.CertificateVerificationError
		alert     tls.AlertError
		recordErr tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &p):
		return p
	case errors.Is(err, ssrf.ErrProhibitedIP), errors.Is(err, ssrf.ErrProhibitedPort), errors.Is(err, ssrf.ErrProhibitedNetwork):
		// The pre-dial check passed but the socket's did not: refuse,
		// whatever the disagreement.
		return refused("its connection was refused by the address policy (%v)", err)
	case budget.Err() != nil:
		return unavailable("%s within %s", timedOut, f.cfg.Timeout)
	case errors.As(err, &certErr):
		return unavailable("its TLS certificate is not valid (%v)", certErr.Err)
	case errors.As(err, &alert), errors.As(err, &recordErr):
		return unavailable("the TLS handshake with its server failed (%v)", plainError(err))
	}
	return unavailable("%s (%v)", failed, plainError(err))
}

// plural names kind's resources in a sentence.
func plural(k Kind) string {
	switch k {
	case Image:
		return "images"
	case Font:
		return "fonts"
	case Media:
		return "audio and video files"
	default:
		return "text tracks"
	}
}

// size writes a cap for people: 8 MiB, 64 KiB, 1000 bytes.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

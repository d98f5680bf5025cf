package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/blob/s3"
	"github.com/fileframe/fileframe/internal/password"
	"github.com/fileframe/fileframe/internal/web"
)

// ServeConfig is the configuration of `fileframe serve`, parsed once from
// flags and FILEFRAME_* variables (a flag wins over its variable, a variable
// over the default) and validated before anything starts.
type ServeConfig struct {
	// Addr is the app origin's listen address, host:port; port 0 picks a
	// free port.
	Addr string
	// Data is the absolute data directory: DIR/fileframe.db and DIR/blobs.
	Data string
	// BaseURL is the public app origin; nil means http://<app listener>.
	BaseURL *url.URL
	// ContentOrigin is the public content origin; nil means
	// web.DefaultContentOrigin: the content listener's port under a host
	// name of another site than the app origin's (http://localhost:8081
	// beside http://127.0.0.1:8080).
	ContentOrigin *url.URL
	// ContentAddr is the content origin's listen address. It is empty when
	// both origins share the app listener and are told apart by Host (a
	// content origin was given without a content address).
	ContentAddr string

	LogLevel          slog.Level
	ShutdownTimeout   time.Duration
	ReadHeaderTimeout time.Duration
	// UploadIdleTimeout is how long a request's body (an upload, a form,
	// an API request) may send nothing before it is answered 408.
	UploadIdleTimeout time.Duration
	PreviewTTL        time.Duration
	// CleanupEvery is how often serve removes what is no longer needed:
	// expired sessions, orphaned blobs, stale unfinished uploads.
	CleanupEvery time.Duration
	// FetchPrivate lets the fetcher of custom pages' remote images, fonts
	// and media reach loopback, private and special-use addresses on any
	// port (development and tests); FetchCA is a PEM file of certificates
	// it trusts besides the system's.
	FetchPrivate bool
	FetchCA      string
	// WebhookPrivate lets webhook endpoints be http: URLs on loopback,
	// private and special-use addresses (development and tests).
	WebhookPrivate bool
	// Stats counts views, clicks and downloads (--stats); StatsRetentionDays
	// is how long daily figures are kept.
	Stats              bool
	StatsRetentionDays int

	KeyRate, IPRate   float64
	KeyBurst, IPBurst int
	// RequestUploadRate is how many files a minute one client address may
	// send to one file request, after a burst of RequestUploadBurst.
	RequestUploadRate  float64
	RequestUploadBurst int

	// DatabaseURL and S3 choose PostgreSQL and S3 over SQLite and disk in
	// Data; see Storage. DatabaseURL and S3.SecretKey are secrets.
	DatabaseURL string
	S3          s3.Config
	// DownloadRedirect sends downloads to presigned S3 URLs (S3 only).
	DownloadRedirect bool
	// Signup opens /signup to anyone (--signup open); closed by default.
	Signup bool
	// Quotas limit each plan's uploads (--quota-*).
	Quotas Quotas
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client (--trusted-proxies).
	TrustedProxies []netip.Prefix
	// OpsAddr is the listen address of the operations listener (/healthz,
	// /readyz, /metrics without a token); empty for none.
	OpsAddr string
	// OpsToken lets /readyz and /metrics answer on the app origin to
	// requests that carry it as a Bearer token. It is a secret.
	OpsToken string
	// PasswordHashMemory is the memory, in bytes, that the Argon2 password
	// hashes running at once may take in all (--password-hash-memory).
	PasswordHashMemory int64
}

// Storage returns where cfg keeps its data.
func (cfg ServeConfig) Storage() Storage {
	return Storage{Data: cfg.Data, DatabaseURL: cfg.DatabaseURL, S3: cfg.S3}
}

// Defaults of serve, also quoted by the README's table.
const (
	defaultAddr               = "127.0.0.1:8080"
	defaultStatsRetentionDays = 400
	defaultData               = "./data"
	defaultShutdownTimeout    = 30 * time.Second
	defaultReadHeaderTimeout  = 10 * time.Second
	defaultPreviewTTL         = 24 * time.Hour
	defaultUploadIdleTimeout  = time.Minute
	defaultCleanupEvery       = time.Hour
	defaultKeyRate            = 5
	defaultKeyBurst           = 100
	defaultIPRate             = 10
	defaultIPBurst            = 200
	// defaultSignup is closed: a self-hosted instance is set up by its
	// operator on the setup screen, and strangers should not be able to
	// create accounts (and store files) until the operator opens it.
	defaultSignup = "closed"
	// defaultPasswordHashMemory is password's default budget: four
	// sign-ins hashed at once, 64 MiB each.
	defaultPasswordHashMemory = password.DefaultBudgetMemory * 1024
	// minPasswordHashMemory holds one hash of the default cost.
	minPasswordHashMemory = password.DefaultMemory * 1024
)

// lookupEnv is os.LookupEnv, injected so tests control the environment.
type lookupEnv func(string) (string, bool)

// serveFlags binds serve's flags to cfg and returns them with the variable
// that backs each flag.
func serveFlags(fs *flag.FlagSet, cfg *ServeConfig, raw *rawServe) map[string]string {
	fs.StringVar(&cfg.Addr, "addr", defaultAddr, "listen address of the app origin (host:port; port 0 picks a free one)")
	fs.StringVar(&raw.data, "data", defaultData, "data directory: the SQLite database and the blobs")
	fs.StringVar(&raw.baseURL, "base-url", "", "public URL of the app origin (default http://<addr>)")
	fs.StringVar(&raw.contentOrigin, "content-origin", "", "public URL of the content origin that serves custom pages (default http://localhost:<content-addr's port>, another site than the app's)")
	fs.StringVar(&raw.contentAddr, "content-addr", "", "listen address of the content origin (default: the next port after --addr's)")
	fs.StringVar(&raw.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "how long a shutdown waits for requests in flight, downloads included")
	fs.DurationVar(&cfg.ReadHeaderTimeout, "read-header-timeout", defaultReadHeaderTimeout, "how long a client may take to send a request's headers")
	fs.DurationVar(&cfg.UploadIdleTimeout, "upload-idle-timeout", defaultUploadIdleTimeout, "how long a request's body (an upload, a form, an API request) may send nothing before it is answered 408 (a tus upload then resumes from what arrived)")
	fs.DurationVar(&cfg.PreviewTTL, "preview-ttl", defaultPreviewTTL, "how long a draft's preview link works")
	fs.DurationVar(&cfg.CleanupEvery, "cleanup-every", defaultCleanupEvery, "how often to remove expired sessions, orphaned blobs and stale unfinished uploads")
	fs.Float64Var(&cfg.KeyRate, "key-rate", defaultKeyRate, "API requests per second allowed per key, on average")
	fs.IntVar(&cfg.KeyBurst, "key-burst", defaultKeyBurst, "API requests allowed per key in a burst")
	fs.Float64Var(&cfg.IPRate, "ip-rate", defaultIPRate, "API requests per second allowed per client address, on average")
	fs.IntVar(&cfg.IPBurst, "ip-burst", defaultIPBurst, "API requests allowed per client address in a burst")
	fs.Float64Var(&cfg.RequestUploadRate, "request-upload-rate", 1, "files a minute one client address may send to one file request, on average")
	fs.IntVar(&cfg.RequestUploadBurst, "request-upload-burst", 20, "files one client address may send to one file request in a burst")
	fs.BoolVar(&cfg.DownloadRedirect, "download-redirect", false, "answer downloads with a redirect to a short-lived presigned S3 URL instead of streaming them (S3 only)")
	fs.StringVar(&raw.signup, "signup", defaultSignup, "open lets anyone create a Free account at /signup; closed leaves account creation to the operator")
	fs.StringVar(&raw.trustedProxies, "trusted-proxies", "", "addresses or networks of the reverse proxies in front of serve, comma-separated (10.0.0.0/8,::1): their X-Forwarded-For names the client")
	fs.BoolVar(&cfg.FetchPrivate, "fetch-private", false, "let the fetcher of custom pages' remote images, fonts and media reach loopback, private and special-use addresses on any port (development and tests only: a page could then make the server fetch from its own network)")
	fs.BoolVar(&cfg.WebhookPrivate, "webhook-private", false, "let webhook endpoints be http: URLs and reach loopback, private and special-use addresses (development and tests only: an owner could then make the server post to its own network)")
	fs.BoolVar(&cfg.Stats, "stats", true, "count views, clicks and downloads of public links for their owners' statistics and A/B tests (no cookies, no addresses stored; false counts nothing)")
	fs.IntVar(&cfg.StatsRetentionDays, "stats-retention-days", defaultStatsRetentionDays, "how many days daily statistics are kept (hourly ones: 31 at most); 1 to 3650")
	fs.StringVar(&cfg.FetchCA, "fetch-ca", "", "PEM file of CA certificates the fetcher of custom pages' remote images trusts besides the system's (a private CA, tests)")
	fs.StringVar(&cfg.OpsAddr, "ops-addr", "", "listen address of the operations listener: /healthz, /readyz and /metrics for a private network (default: none)")
	fs.StringVar(&raw.opsToken, "ops-token", "", "a token that lets /readyz and /metrics answer on the app origin to 'Authorization: Bearer TOKEN' (default: they answer 404 there)")
	fs.StringVar(&raw.opsTokenFile, "ops-token-file", "", "file holding the operations token (instead of --ops-token)")
	cfg.PasswordHashMemory = defaultPasswordHashMemory
	fs.Var(byteSize{&cfg.PasswordHashMemory}, "password-hash-memory", "memory the password hashes running at once may take in all, 64MiB each (a `size`: 256MiB, 1GiB; at least 64MiB); more wait in line, up to 3s, then get 503")
	vars := addBackendFlags(fs, &raw.backend)
	for k, v := range quotaFlags(fs, &cfg.Quotas) {
		vars[k] = v
	}
	for k, v := range map[string]string{
		"addr":                 "FILEFRAME_ADDR",
		"data":                 "FILEFRAME_DATA",
		"base-url":             "FILEFRAME_BASE_URL",
		"content-origin":       "FILEFRAME_CONTENT_ORIGIN",
		"content-addr":         "FILEFRAME_CONTENT_ADDR",
		"log-level":            "FILEFRAME_LOG_LEVEL",
		"shutdown-timeout":     "FILEFRAME_SHUTDOWN_TIMEOUT",
		"read-header-timeout":  "FILEFRAME_READ_HEADER_TIMEOUT",
		"upload-idle-timeout":  "FILEFRAME_UPLOAD_IDLE_TIMEOUT",
		"preview-ttl":          "FILEFRAME_PREVIEW_TTL",
		"cleanup-every":        "FILEFRAME_CLEANUP_EVERY",
		"key-rate":             "FILEFRAME_KEY_RATE",
		"key-burst":            "FILEFRAME_KEY_BURST",
		"ip-rate":              "FILEFRAME_IP_RATE",
		"ip-burst":             "FILEFRAME_IP_BURST",
		"request-upload-rate":  "FILEFRAME_REQUEST_UPLOAD_RATE",
		"request-upload-burst": "FILEFRAME_REQUEST_UPLOAD_BURST",
		"download-redirect":    "FILEFRAME_DOWNLOAD_REDIRECT",
		"signup":               "FILEFRAME_SIGNUP",
		"password-hash-memory": "FILEFRAME_PASSWORD_HASH_MEMORY",
		"fetch-private":        "FILEFRAME_FETCH_PRIVATE",
		"fetch-ca":             "FILEFRAME_FETCH_CA",
		"webhook-private":      "FILEFRAME_WEBHOOK_PRIVATE",
		"stats":                "FILEFRAME_STATS",
		"stats-retention-days": "FILEFRAME_STATS_RETENTION_DAYS",
		"trusted-proxies":      "FILEFRAME_TRUSTED_PROXIES",
		"ops-addr":             "FILEFRAME_OPS_ADDR",
		"ops-token":            "FILEFRAME_OPS_TOKEN",
		"ops-token-file":       "FILEFRAME_OPS_TOKEN_FILE",
	} {
		vars[k] = v
	}
	return vars
}

// rawServe holds the flags that are checked and converted after parsing.
type rawServe struct {
	data, baseURL, contentOrigin, contentAddr, logLevel, signup string
	opsToken, opsTokenFile, trustedProxies                      string
	backend                                                     backendFlags
}

// parseServeConfig parses serve's arguments and environment. Errors are
// usage errors: the message names the flag or variable at fault.
func parseServeConfig(fs *flag.FlagSet, args []string, env lookupEnv) (ServeConfig, error) {
	var cfg ServeConfig
	var raw rawServe
	vars := serveFlags(fs, &cfg, &raw)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return cfg, err
	}
	if len(rest) > 0 {
		return cfg, usagef("unexpected argument %q", rest[0])
	}
	if err := applyEnv(fs, vars, env); err != nil {
		return cfg, err
	}
	return cfg, cfg.finish(raw)
}

// applyEnv sets every flag that was not given on the command line from its
// variable, when that is set and not empty.
func applyEnv(fs *flag.FlagSet, vars map[string]string, env lookupEnv) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		name, ok := vars[f.Name]
		if !ok || given[f.Name] {
			return
		}
		v, ok := env(name)
		if !ok || v == "" {
			return
		}
		if err := f.Value.Set(v); err != nil {
			want := "true or false" // UnquoteUsage names no kind for a bool
			if kind, _ := flag.UnquoteUsage(f); kind != "" {
				want = "a " + kind
			}
			errs = append(errs, usagef("%s: invalid value %q: want %s", name, v, want))
		}
	})
	return errors.Join(errs...)
}

// finish validates cfg and fills what is derived from other values.
func (cfg *ServeConfig) finish(raw rawServe) error {
	if _, _, err := splitAddr("--addr", cfg.Addr); err != nil {
		return err
	}
	if raw.data == "" {
		return usagef("--data must not be empty")
	}
	data, err := filepath.Abs(raw.data)
	if err != nil {
		return fmt.Errorf("resolving --data: %w", err)
	}
	cfg.Data = data
	st, err := raw.backend.storage(data)
	if err != nil {
		return err
	}
	cfg.DatabaseURL, cfg.S3 = st.DatabaseURL, st.S3
	if cfg.DownloadRedirect && cfg.S3.Bucket == "" {
		return usagef("--download-redirect (FILEFRAME_DOWNLOAD_REDIRECT) needs the files in S3: set --s3-bucket")
	}
	if raw.baseURL != "" {
		if cfg.BaseURL, err = parseOrigin("--base-url", raw.baseURL); err != nil {
			return err
		}
	}
	if raw.contentOrigin != "" {
		if cfg.ContentOrigin, err = parseOrigin("--content-origin", raw.contentOrigin); err != nil {
			return err
		}
	}
	if cfg.BaseURL != nil && cfg.ContentOrigin != nil && origin(cfg.BaseURL) == origin(cfg.ContentOrigin) {
		return usagef("--base-url and --content-origin are the same origin (%s); custom pages need an origin of their own", origin(cfg.BaseURL))
	}
	switch {
	case raw.contentAddr != "":
		if _, _, err := splitAddr("--content-addr", raw.contentAddr); err != nil {
			return err
		}
		cfg.ContentAddr = raw.contentAddr
	case cfg.ContentOrigin != nil:
		// One listener for both origins; the Host header tells them apart.
		cfg.ContentAddr = ""
	default:
		if cfg.ContentAddr, err = nextPort(cfg.Addr); err != nil {
			return err
		}
	}
	if cfg.ContentAddr != "" && sameAddr(cfg.ContentAddr, cfg.Addr) {
		return usagef("--content-addr %s is the same as --addr; the content origin needs its own port", cfg.ContentAddr)
	}
	for _, f := range strings.Split(raw.trustedProxies, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return usagef("--trusted-proxies (FILEFRAME_TRUSTED_PROXIES): %q is not an address or a network like 10.0.0.0/8", f)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		cfg.TrustedProxies = append(cfg.TrustedProxies, p.Masked())
	}
	if cfg.OpsAddr != "" {
		if _, _, err := splitAddr("--ops-addr", cfg.OpsAddr); err != nil {
			return err
		}
		if sameAddr(cfg.OpsAddr, cfg.Addr) || (cfg.ContentAddr != "" && sameAddr(cfg.OpsAddr, cfg.ContentAddr)) {
			return usagef("--ops-addr %s is the address of an origin; the operations listener needs its own port", cfg.OpsAddr)
		}
	}
	if cfg.OpsToken, err = secretValue("ops-token", raw.opsToken, raw.opsTokenFile); err != nil {
		return err
	}
	if cfg.OpsToken != "" && len(cfg.OpsToken) < 16 {
		return usagef("--ops-token (FILEFRAME_OPS_TOKEN) is too short: use at least 16 random characters (openssl rand -hex 16)")
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(raw.logLevel)); err != nil {
		return usagef("--log-level %q: use debug, info, warn or error", raw.logLevel)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"--shutdown-timeout", cfg.ShutdownTimeout},
		{"--read-header-timeout", cfg.ReadHeaderTimeout},
		{"--upload-idle-timeout", cfg.UploadIdleTimeout},
		{"--preview-ttl", cfg.PreviewTTL},
		{"--cleanup-every", cfg.CleanupEvery},
	} {
		if d.v <= 0 {
			return usagef("%s must be positive, got %s", d.name, d.v)
		}
	}
	// A rate is a positive number: NaN passed "<= 0" and turned the
	// limit off, and Inf is no limit at all.
	if !positiveRate(cfg.KeyRate) || !positiveRate(cfg.IPRate) {
		return usagef("--key-rate and --ip-rate must be positive numbers")
	}
	if !positiveRate(cfg.RequestUploadRate) || cfg.RequestUploadBurst < 1 {
		return usagef("--request-upload-rate must be a positive number and --request-upload-burst at least 1")
	}
	if cfg.KeyBurst < 1 || cfg.IPBurst < 1 {
		return usagef("--key-burst and --ip-burst must be at least 1")
	}
	if cfg.StatsRetentionDays < 1 || cfg.StatsRetentionDays > 3650 {
		return usagef("--stats-retention-days must be 1 to 3650, got %d", cfg.StatsRetentionDays)
	}
	if cfg.PasswordHashMemory < minPasswordHashMemory {
		return usagef("--password-hash-memory %s is less than one password hash takes (64MiB)", byteSize{&cfg.PasswordHashMemory})
	}
	switch raw.signup {
	case "open":
		cfg.Signup = true
	case "closed":
		cfg.Signup = false
	default:
		return usagef("--signup %q: use open or closed", raw.signup)
	}
	return nil
}

// splitAddr checks a host:port listen address.
func splitAddr(flagName, addr string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, usagef("%s %q: want host:port, e.g. 127.0.0.1:8080", flagName, addr)
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, usagef("%s %q: port must be a number from 0 to 65535", flagName, addr)
	}
	return host, port, nil
}

// nextPort returns the address one port above addr's, or host:0 when addr
// asks for any free port.
func nextPort(addr string) (string, error) {
	host, port, err := splitAddr("--addr", addr)
	if err != nil {
		return "", err
	}
	switch port {
	case 0:
		return net.JoinHostPort(host, "0"), nil
	case 65535:
		return "", usagef("--addr %q: no next port for the content origin; set --content-addr", addr)
	}
	return net.JoinHostPort(host, strconv.Itoa(port+1)), nil
}

// sameAddr reports whether two listen addresses name one fixed port on one
// host. Port 0 is never the same as anything.
func sameAddr(a, b string) bool {
	ha, pa, _ := net.SplitHostPort(a)
	hb, pb, _ := net.SplitHostPort(b)
	return pa != "0" && pa == pb && ha == hb
}

// parseOrigin parses an http(s) origin: scheme, host and optional port, with
// no path, query, fragment or user info.
func parseOrigin(flagName, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, usagef("%s %q is not a URL", flagName, raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, usagef("%s %q: the scheme must be http or https", flagName, raw)
	}
	if u.Hostname() == "" {
		return nil, usagef("%s %q has no host", flagName, raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, usagef("%s %q: port must be from 1 to 65535", flagName, raw)
		}
		// Browsers write a port without leading zeros and leave out the
		// scheme's own; an origin written otherwise would never equal the
		// Origin and Host they send (and the app's redirect to its own
		// name would loop).
		if p[0] == '0' || p == defaultPort[u.Scheme] {
			return nil, usagef("%s %q: write the port as browsers do, without leading zeros and without the scheme's default port (%s)", flagName, raw, defaultPort[u.Scheme])
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, usagef("%s %q: empty port", flagName, raw)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, usagef("%s %q must be an origin only, like https://files.example.com (no path, query or user)", flagName, raw)
	}
	if strings.Trim(strings.ToLower(u.Hostname()), "abcdefghijklmnopqrstuvwxyz0123456789.-_:") != "" {
		// Browsers map other characters (full-width digits, the
		// ideographic full stop) onto these or encode them as punycode.
		return nil, usagef("%s %q: write the host in ASCII letters, digits, dots and hyphens, as browsers write it (an internationalised name in its xn-- form)", flagName, raw)
	}
	if advice, ok := canonicalIP(u.Hostname()); !ok {
		return nil, usagef("%s %q: browsers read the host %q as an IP address; %s, so that Fileframe compares origins as browsers do", flagName, raw, u.Hostname(), advice)
	}
	return &url.URL{Scheme: u.Scheme, Host: strings.ToLower(u.Host)}, nil
}

// canonicalIP reports whether host, when browsers read it as an IP address,
// is written as they write that address; if not, it says how to write it.
// The WHATWG URL standard reads a host whose last label is a number
// (127.1, 2130706433, 0x7f.0.0.1, 127.0.0.1.) as an IPv4 address, and
// writes IPv6 addresses compressed ([::1], not [0:0::1]). A host written
// otherwise would make the origins' comparisons (one site or two,
// loopback or not) differ from the browser's. Such hosts are refused rather
// than parsed here: only the canonical forms are taken.
func canonicalIP(host string) (string, bool) {
	if strings.Contains(host, ":") { // an IPv6 literal
		a, err := netip.ParseAddr(host)
		if err != nil || a.Zone() != "" {
			return "write an IPv6 address without a zone", false
		}
		if a.Is4In6() { // browsers write it in hex ([::ffff:7f00:1])
			return "write the IPv4 address itself, " + a.Unmap().String(), false
		}
		return "write it as [" + a.String() + "]", a.String() == strings.ToLower(host)
	}
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	last := strings.ToLower(labels[len(labels)-1])
	hex := strings.HasPrefix(last, "0x") && strings.Trim(last[2:], "0123456789abcdef") == ""
	if last == "" || !hex && strings.Trim(last, "0123456789") != "" {
		return "", true // a domain name
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		return host, true
	}
	return "write an IPv4 address as four decimal numbers, like 127.0.0.1", false
}

// defaultPort is each scheme's port, which browsers leave out of an origin.
var defaultPort = map[string]string{"http": "80", "https": "443"}

// origin returns scheme://host[:port] of u.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// originWarnings returns what the operator should be told at start about
// the two origins: when they are one site, which gives custom pages the
// app's cookies and, in browsers, the app's renderer process (a busy loop
// in a page then freezes the download control); and when the content
// origin is plain http on a host other than loopback, to which browsers
// send no Sec-Fetch-Dest, so that every custom page is refused.
func originWarnings(app, content *url.URL) []string {
	var w []string
	if web.SameSite(app, content) {
		w = append(w, fmt.Sprintf("the app origin %s and the content origin %s are one site (%s): custom pages share the app's cookies and may share its browser process, where a busy loop freezes the download control; give the content origin a registrable domain of its own (docs/deploy.md)",
			origin(app), origin(content), web.Site(app)))
	}
	if content.Scheme == "http" && !loopbackHost(content.Hostname()) {
		w = append(w, fmt.Sprintf("the content origin %s is plain http on a host other than loopback: browsers send it no Sec-Fetch-Dest, so they are shown no custom page; serve it over https",
			origin(content)))
	}
	return w
}

// loopbackHost reports whether browsers treat host as loopback: localhost,
// a name under .localhost, or a loopback address.
func loopbackHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// listenURL returns http://<addr> for a bound listener's address; an
// unspecified host (0.0.0.0, ::) becomes loopback, the only address sure to
// reach it.
func listenURL(addr net.Addr) *url.URL {
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return &url.URL{Scheme: "http", Host: net.JoinHostPort(host, port)}
}

// positiveRate reports whether r is a rate a limiter can keep: a finite
// number above zero.
func positiveRate(r float64) bool { return r > 0 && !math.IsInf(r, 1) }

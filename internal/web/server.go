// Package web is Fileframe's HTTP surface: the API, the public download
// pages, the content origin that serves custom-page bytes, and the
// operational endpoints. routes.go lists every route.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fileframe/fileframe/internal/fetch"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
	"github.com/fileframe/fileframe/internal/service"
	"github.com/fileframe/fileframe/internal/thumb"
	"github.com/fileframe/fileframe/internal/webhook"
	"github.com/prometheus/client_golang/prometheus"
	tusd "github.com/tus/tusd/v2/pkg/handler"
	"golang.org/x/sync/singleflight"
)

// Config is everything a Server needs; cmd/fileframe builds it from flags.
type Config struct {
	Store fileframe.Store
	Blobs fileframe.Blobs
	// Logger receives JSON access and error logs. Required.
	Logger *slog.Logger
	// AccessLog, when set, receives the access lines (Info records)
	// instead of Logger's handler: cmd/fileframe gives it Logger's JSON
	// handler without the layer that flushes after warnings, which access
	// lines never need and whose frame made every request's stack grow
	// past 8 KiB (docs/performance.md).
	AccessLog slog.Handler
	// Registry receives the server's metrics and is served at /metrics.
	Registry *prometheus.Registry

	// BaseURL is the public app origin, e.g. http://127.0.0.1:8080; API
	// responses prefix their url with it.
	BaseURL *url.URL
	// ContentOrigin is the origin that serves custom-page bytes, e.g.
	// http://127.0.0.1:8081 or https://usercontent.example.net. It must
	// differ from BaseURL's origin.
	ContentOrigin *url.URL

	// PreviewSecret signs preview links of drafts (at least 32 bytes).
	PreviewSecret []byte
	// PreviewTTL is how long a preview link works; default 24h.
	PreviewTTL time.Duration

	// KeyRate and KeyBurst limit API requests per key: KeyRate requests a
	// second on average with bursts of KeyBurst. IPRate/IPBurst do the same
	// per client address. Zero means the defaults (5/s burst 100 per key,
	// 10/s burst 200 per address).
	KeyRate, IPRate   float64
	KeyBurst, IPBurst int
	// RateLimiter keeps the buckets of KeyRate and IPRate; nil means one in
	// this process's memory, right for a single instance. Instances behind a
	// load balancer share one (internal/postgres's Store), so that a limit
	// hit on one is felt on all. When it fails, requests pass and the error
	// is logged (fail open).
	RateLimiter fileframe.RateLimiter

	// Signup lets anyone create a Free account at /signup; when false only
	// the setup screen (the first account) and operators create accounts.
	Signup bool
	// SessionTTL is how long a web application session lasts without use
	// (it slides with activity); default 30 days.
	SessionTTL time.Duration
	// Login limits the guessing of passwords (sign-in, sign-up, setup,
	// password change) through RateLimiter; see LoginLimits. Zero fields
	// mean the defaults.
	Login LoginLimits
	// RequestUploads limits the files one client address sends to one
	// file request (public_request.go), through RateLimiter: each new
	// upload takes a token. Zero means the default: bursts of 20, then
	// one a minute.
	RequestUploads RateLimit
	// Passwords hashes and checks every password of the application
	// (sign-in, setup, sign-up, password change) under its memory budget:
	// a form that finds no room within the budget's wait is answered 503.
	// nil means a Hasher with password's defaults (256 MiB, that is four
	// default hashes at once, and a 3s wait).
	Passwords *password.Hasher

	// DownloadRedirect answers a download GET with a 302 to a presigned URL
	// of the blob store instead of streaming the bytes through this process.
	// It needs Blobs that can presign (see presigner); HEAD stays streamed.
	DownloadRedirect bool

	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client (clientAddr); from any other peer it is ignored.
	TrustedProxies []netip.Prefix

	// Fetcher fetches custom pages' remote images, fonts and media when
	// they are stored (zero egress); nil means one with fetch's defaults,
	// which refuses private and special-use addresses.
	Fetcher *fetch.Fetcher
	// Webhooks checks webhook endpoint URLs against the SSRF rules (the
	// same client serve's delivery worker sends with); nil means one
	// with production's rules: public https addresses only.
	Webhooks *webhook.Client

	// OpsToken, when set, lets /readyz and /metrics on the app origin
	// answer requests that carry it as a Bearer token; without it they are
	// only on OpsHandler (404 on the app origin).
	OpsToken string

	// StoreKind and BlobsKind name the backends ("sqlite", "postgres",
	// "disk", "s3") in /readyz's answer; empty ones are left out.
	StoreKind, BlobsKind string

	// CountFlushInterval is how often batched download counts and
	// statistics are written; default 1s.
	CountFlushInterval time.Duration

	// StatsOff turns statistics off: no event is counted (stats.go).
	StatsOff bool
	// StatsRetention is how long daily statistics are kept; default
	// DefaultStatsRetention. Hourly ones are kept 31 days at most.
	StatsRetention time.Duration

	// Now is the clock; default time.Now.
	Now func() time.Time

	// TusStore keeps the bytes of unfinished resumable (tus) uploads, e.g.
	// a tusd s3store in the blob bucket. When it is nil, UploadDir names
	// the directory of a tusd filestore; with neither, the tus endpoint is
	// not mounted and uploads are plain only.
	TusStore  TusStore
	UploadDir string
	// TusStoreError gives an error of TusStore the code that says what
	// it means (CodeUnavailable for an S3 server out of reach:
	// s3.WrapError); nil leaves such errors without one (a 500).
	TusStoreError func(error) error
	// TusLocker locks an unfinished upload while a request works on it;
	// nil means locks in this process's memory, right for one instance.
	// Instances sharing unfinished uploads share one (postgres.TusLocker).
	TusLocker tusd.Locker
	// UploadIdleTimeout is how long a request's body (an upload, a form,
	// the API's JSON) may send nothing before it is answered 408; default
	// a minute.
	UploadIdleTimeout time.Duration
	// Quotas are the upload limits of each plan; a plan without one is
	// unlimited.
	Quotas map[fileframe.Plan]fileframe.Quota
	// Thumbnails makes the thumbnails of image previews under its budget
	// of pixels (public_preview.go); nil means one with thumb's defaults.
	Thumbnails *thumb.Maker
}

// Server serves the app origin and the content origin.
type Server struct {
	cfg Config
	// store is cfg.Store, for reads and for the writes no visitor sees
	// (sessions, key use). Every write that changes what visitors see goes
	// through svc, which tells the public cache (ownWrites).
	store   fileframe.Store
	blobs   fileframe.Blobs
	log     *slog.Logger
	access  slog.Handler // the access lines' handler (Config.AccessLog), or nil for log's
	now     func() time.Time
	metrics *metrics
	// limits holds the API's rate-limit buckets (Config.RateLimiter);
	// touches, this process's own, only spares the store repeated writes of
	// a key's last-used time.
	limits  fileframe.RateLimiter
	touches *limiter
	// passwords is Config.Passwords; decoy, a hash of its cost that no
	// password matches, is checked when an email is unknown (login).
	passwords *password.Hasher
	decoy     string
	// presign is Blobs as a presigner when Config.DownloadRedirect is set.
	presign presigner
	counts  *downloadCounter
	// stats counts views, clicks and downloads (stats.go); nil when
	// Config.StatsOff.
	stats *statsRecorder
	pages *pageRenderer
	// blobCache holds the bytes of small blobs (blobcache.go).
	blobCache *blobCache
	// pageHTML holds the HTML of live revisions by SHA-256, for the
	// content origin (content_page.go).
	pageHTML *blobCache
	// cards draws and caches link preview cards (public_card.go).
	cards *cards
	// Previews (public_preview.go): the kinds of blobs sniffed, the
	// thumbnails being made in this process, and their maker.
	sniffs     sniffCache
	thumbs     singleflight.Group
	thumbMaker *thumb.Maker

	// changes watches the store for commits of any process; nil when the
	// store cannot, and then nothing is cached. ownWrites counts this
	// process's writes that visitors can see (service.Config.Changed). See
	// public_cache.go.
	changes   fileframe.ChangeWatcher
	ownWrites atomic.Uint64
	cache     *publicCache
	// fills reads each missing public entry once for all the requests
	// that miss it at the same time (publicRecord).
	fills singleflight.Group
	hdr   headerValues
	// tus is the resumable upload endpoint; nil without a TusStore or
	// UploadDir.
	tus *tusUploads
	// svc runs the use cases that the CLI shares (internal/service).
	svc *service.Service
	// closing is closed by Close: background work stops (releaseLater).
	closing chan struct{}
	// cuttingOff is closed by CuttingOff: requests that end from then on
	// were cut off by the shutdown (clientGone).
	cuttingOff     chan struct{}
	cuttingOffOnce sync.Once
	closeOnce      sync.Once
}

// New checks cfg, fills defaults and returns a Server. Call Close when done.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Blobs == nil || cfg.Logger == nil {
		return nil, errors.New("web: Store, Blobs and Logger are required")
	}
	if cfg.BaseURL == nil || cfg.ContentOrigin == nil {
		return nil, errors.New("web: BaseURL and ContentOrigin are required")
	}
	if origin(cfg.BaseURL) == origin(cfg.ContentOrigin) {
		return nil, errors.New("web: the content origin must differ from the app origin")
	}
	if len(cfg.PreviewSecret) < 32 {
		return nil, errors.New("web: PreviewSecret must be at least 32 bytes")
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.PreviewTTL <= 0 {
		cfg.PreviewTTL = 24 * time.Hour
	}
	if cfg.KeyRate <= 0 {
		cfg.KeyRate, cfg.KeyBurst = 5, 100
	}
	if cfg.IPRate <= 0 {
		cfg.IPRate, cfg.IPBurst = 10, 200
	}
	if cfg.CountFlushInterval <= 0 {
		cfg.CountFlushInterval = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.UploadIdleTimeout <= 0 {
		cfg.UploadIdleTimeout = defaultUploadIdleTimeout
	}
	cfg.Login = cfg.Login.withDefaults()
	if cfg.RequestUploads.PerSecond <= 0 {
		cfg.RequestUploads = RateLimit{PerSecond: 1.0 / 60, Burst: 20}
	}
	cfg.RequestUploads.Burst = max(cfg.RequestUploads.Burst, 1)
	if cfg.Passwords == nil {
		h, err := password.NewHasher(password.DefaultParams(), password.Budget{})
		if err != nil {
			return nil, err
		}
		cfg.Passwords = h
	}
	var presign presigner
	if cfg.DownloadRedirect {
		p, ok := cfg.Blobs.(presigner)
		if !ok {
			return nil, errors.New("web: DownloadRedirect needs a blob store that presigns URLs (S3)")
		}
		presign = p
	}
	pages, err := newPageRenderer()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, blobs: cfg.Blobs, log: cfg.Logger, access: cfg.AccessLog, now: cfg.Now, pages: pages, closing: make(chan struct{}), cuttingOff: make(chan struct{})}
	s.passwords, s.decoy = cfg.Passwords, cfg.Passwords.Decoy()
	s.store = cfg.Store
	s.cache = newPublicCache(publicCacheSize)
	s.blobCache = newBlobCache(blobCacheMax)
	s.pageHTML = newBlobCache(pageHTMLCacheMax)
	if s.cards, err = newCards(); err != nil { // link previews: public_card.go
		return nil, err
	}
	s.hdr = newHeaderValues(s.ContentOrigin())
	if s.thumbMaker = cfg.Thumbnails; s.thumbMaker == nil {
		if s.thumbMaker, err = thumb.New(0, 0); err != nil {
			return nil, err
		}
	}
	s.svc, err = service.New(service.Config{
		Store: cfg.Store, Blobs: cfg.Blobs, Quotas: cfg.Quotas, Now: cfg.Now,
		// The writes that change what visitors see tell this process's
		// public cache at once (public_cache.go).
		Changed:      func() { s.ownWrites.Add(1) },
		ServiceHosts: []string{cfg.BaseURL.Host, cfg.ContentOrigin.Host},
		Passwords:    cfg.Passwords,
		Fetcher:      cfg.Fetcher,
		Webhooks:     cfg.Webhooks,
		Later: func(what string, err error, fn func(context.Context) error) {
			s.tryAgainLater(s.log, what, err, fn)
		},
	})
	if err != nil {
		return nil, err
	}
	if s.tus, err = s.newTusUploads(); err != nil {
		return nil, fmt.Errorf("web: resumable uploads: %w", err)
	}
	if cw, ok := cfg.Store.(fileframe.ChangeWatchingStore); ok {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s.changes, err = cw.WatchChanges(ctx)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	s.metrics = newMetrics(cfg.Registry)
	register(cfg.Registry, newHasherCollector(s.passwords))
	s.touches = newLimiter(cfg.Now)
	s.limits = cfg.RateLimiter
	if s.limits == nil {
		s.limits = newLimiter(cfg.Now)
	}
	s.presign = presign
	if !cfg.StatsOff {
		if cfg.StatsRetention <= 0 {
			cfg.StatsRetention = DefaultStatsRetention
		}
		s.stats = newStatsRecorder(cfg.Store, cfg.Logger, cfg.Now, cfg.StatsRetention,
			strings.ToLower(cfg.BaseURL.Hostname()), strings.ToLower(cfg.ContentOrigin.Hostname()))
		s.stats.start(statsFlushEvery * cfg.CountFlushInterval)
	}
	// Last: it starts the goroutine that Close stops.
	s.counts = newDownloadCounter(cfg.Store, cfg.Logger, cfg.CountFlushInterval)
	return s, nil
}

// CuttingOff tells the server that the shutdown ran out of time and the
// connections of the requests still running are about to be closed: a
// request that ends so is logged as cut off by the shutdown, not as ended
// by its client.
func (s *Server) CuttingOff() {
	s.cuttingOffOnce.Do(func() { close(s.cuttingOff) })
}

// Close stops background work (the store's change watcher among it) and
// writes the download counts still in memory; call it after the HTTP
// servers have shut down.
func (s *Server) Close(ctx context.Context) error {
	s.closeOnce.Do(func() { close(s.closing) })
	var err error
	if cerr := s.counts.Close(ctx); cerr != nil {
		err = fmt.Errorf("writing download counts: %w", cerr)
	}
	if cerr := s.stats.close(ctx); cerr != nil {
		err = errors.Join(err, fmt.Errorf("writing statistics: %w", cerr))
	}
	if s.changes != nil {
		if cerr := s.changes.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing the change watcher: %w", cerr))
		}
	}
	return err
}

// origin returns scheme://host[:port] of u.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// AppOrigin returns the app origin, e.g. http://127.0.0.1:8080.
func (s *Server) AppOrigin() string { return origin(s.cfg.BaseURL) }

// ContentOrigin returns the content origin, e.g. http://127.0.0.1:8081.
func (s *Server) ContentOrigin() string { return origin(s.cfg.ContentOrigin) }

// publicURL returns the absolute address of a path on the app origin.
func (s *Server) publicURL(path string) string {
	u := *s.cfg.BaseURL
	return u.JoinPath(path).String()
}

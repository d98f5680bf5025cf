package main

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/fileframe/fileframe/internal/fetch"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
	"github.com/fileframe/fileframe/internal/service"
	"github.com/fileframe/fileframe/internal/web"
	"github.com/fileframe/fileframe/internal/webhook"
	"github.com/prometheus/client_golang/prometheus"
)

// Server timeouts against slow or stuck clients. The download handler
// extends its own write deadline, so large downloads are not cut at
// writeTimeout.
const (
	readTimeout    = 2 * time.Minute
	writeTimeout   = 2 * time.Minute
	idleTimeout    = 2 * time.Minute
	maxHeaderBytes = 64 << 10
	// closeTimeout bounds the final flush of download counts.
	closeTimeout = 10 * time.Second
	// logFlushInterval is how often the log buffer (logBuffer) writes
	// out the access log lines it holds.
	logFlushInterval = 100 * time.Millisecond
)

func runServe(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	cfg, err := parseServeConfig(fs, args, c.Env)
	if err != nil {
		return err
	}
	m := NewMain(cfg, c.Stdout, c.Stderr)
	defer m.Close()
	return m.Run(ctx)
}

// Main is a running `fileframe serve`: the store, the blob store, the web
// server and its listeners.
type Main struct {
	cfg    ServeConfig
	stdout io.Writer
	log    *slog.Logger
	// access is log's JSON handler without the flush after warnings: the
	// access lines' (web.Config.AccessLog).
	access slog.Handler
	// logs holds the log's lines between flushes; Close writes it out.
	logs *logBuffer

	store   appStore
	blobs   fileframe.Blobs
	uploads uploadStorage
	srv     *web.Server
	// hooks sends webhook deliveries (startBackground's worker) and checks
	// endpoint URLs (the web server's use cases), under the same rules;
	// baseURL is the app origin the payloads' publicUrl names.
	hooks   *webhook.Client
	baseURL *url.URL
	// stopBackground stops the hourly clean-up of S3 temp objects, and
	// background waits for it.
	stopBackground context.CancelFunc
	background     sync.WaitGroup
	listeners      []net.Listener
	servers        []*http.Server
	closeOnce      sync.Once
}

// NewMain returns a Main for cfg that prints its addresses to stdout and
// logs JSON to logs. Info lines (the access log) reach logs within
// logFlushInterval and at Close; warnings and errors at once. Call Close.
func NewMain(cfg ServeConfig, stdout, logs io.Writer) *Main {
	return newMain(cfg, stdout, logs, logFlushInterval)
}

// newMain is NewMain with the log buffer flushed every flushEvery.
func newMain(cfg ServeConfig, stdout, logs io.Writer, flushEvery time.Duration) *Main {
	buf := newLogBuffer(logs, flushEvery)
	h := slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: cfg.LogLevel})
	return &Main{cfg: cfg, stdout: stdout, log: slog.New(buf.Handler(h)), access: h, logs: buf}
}

// Run opens the data, listens, and serves until ctx is done; then it shuts
// down gracefully: it stops accepting, lets requests in flight (downloads
// included) finish for up to the shutdown timeout, writes the batched
// download counts and closes the store.
func (m *Main) Run(ctx context.Context) error {
	if err := m.open(ctx); err != nil {
		return err
	}
	m.startBackground()
	errc := make(chan error, len(m.servers))
	for i, s := range m.servers {
		go func() {
			if err := s.Serve(web.Listener(m.listeners[i])); !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}
	var serveErr error
	select {
	case <-ctx.Done():
		m.log.Info("shutting down", "timeout", m.cfg.ShutdownTimeout.String())
	case serveErr = <-errc:
		m.log.Error("server failed, shutting down", "err", serveErr)
	}
	if err := m.shutdown(); err != nil {
		return errors.Join(serveErr, err)
	}
	if serveErr != nil {
		return fmt.Errorf("serving: %w", serveErr)
	}
	m.log.Info("stopped")
	return nil
}

// open opens the store and blobs, binds the listeners and builds the web
// server. Listeners are bound first so that port 0 can be resolved into the
// base URL and the content origin.
func (m *Main) open(ctx context.Context) error {
	logDescriptorLimit(m.log)
	st := m.cfg.Storage()
	store, err := openStore(ctx, st, true)
	if err != nil {
		return err
	}
	m.store = store
	blobs, err := openBlobs(ctx, st, func(msg string) { m.log.Warn(msg) })
	if err != nil {
		return err
	}
	m.blobs = blobs
	if m.uploads, err = openUploads(ctx, st, store, blobs, m.log); err != nil {
		return fmt.Errorf("opening the store of unfinished uploads: %w", err)
	}
	// Instances sharing a PostgreSQL database share its rate limits; alone,
	// a process keeps them in memory (web's default).
	var limiter fileframe.RateLimiter
	if rl, ok := store.(fileframe.RateLimiter); ok && st.StoreKind() == "postgres" {
		limiter = rl
	}
	secret, err := store.Secret(ctx, "preview-links", func() []byte {
		b := make([]byte, 32)
		rand.Read(b) // never returns an error (crypto/rand docs, Go 1.24+)
		return b
	})
	if err != nil {
		return fmt.Errorf("reading the preview secret: %w", err)
	}

	app, err := net.Listen("tcp", m.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on --addr %s: %w", m.cfg.Addr, err)
	}
	m.listeners = append(m.listeners, app)
	var content net.Listener
	if m.cfg.ContentAddr != "" {
		if content, err = net.Listen("tcp", m.cfg.ContentAddr); err != nil {
			return fmt.Errorf("listening on the content origin's address %s: %w (set --content-addr)", m.cfg.ContentAddr, err)
		}
		m.listeners = append(m.listeners, content)
	}
	baseURL, contentOrigin := m.cfg.BaseURL, m.cfg.ContentOrigin
	if baseURL == nil {
		baseURL = listenURL(app.Addr())
	}
	var content6 net.Listener
	if contentOrigin == nil {
		contentOrigin = web.DefaultContentOrigin(baseURL, listenURL(content.Addr()))
		if contentOrigin.Hostname() == "localhost" {
			if content6, err = listenOtherLoopback(content); err != nil {
				return err
			}
			if content6 != nil {
				m.listeners = append(m.listeners, content6)
			}
		}
	}
	// The operations listener comes last: m.servers are made in the order
	// of m.listeners, below.
	var ops net.Listener
	if m.cfg.OpsAddr != "" {
		if ops, err = net.Listen("tcp", m.cfg.OpsAddr); err != nil {
			return fmt.Errorf("listening on --ops-addr %s: %w", m.cfg.OpsAddr, err)
		}
		m.listeners = append(m.listeners, ops)
	}
	if host, _, _ := net.SplitHostPort(m.cfg.Addr); (m.cfg.BaseURL == nil || m.cfg.ContentOrigin == nil) && (host == "" || net.ParseIP(host).IsUnspecified()) {
		m.log.Warn("listening on all interfaces, but the derived URLs name loopback; set --base-url and --content-origin to the addresses visitors use")
	}
	if origin(baseURL) == origin(contentOrigin) {
		return usagef("the app origin and the content origin are both %s; set --base-url or --content-origin", origin(baseURL))
	}

	// Every password hash of this process (sign-in, setup, sign-up,
	// password change) runs under one memory budget.
	passwords, err := password.NewHasher(password.DefaultParams(), password.Budget{Memory: m.cfg.PasswordHashMemory / 1024})
	if err != nil {
		return err
	}
	fetcher, err := newFetcher(m.cfg.FetchPrivate, m.cfg.FetchCA)
	if err != nil {
		return err
	}
	m.hooks, m.baseURL = webhook.NewClient(webhook.ClientConfig{AllowPrivate: m.cfg.WebhookPrivate}), baseURL
	if m.cfg.WebhookPrivate {
		m.log.Warn("--webhook-private: webhook endpoints may be http: URLs on loopback and private addresses, so an owner can make this server post to its own network; for development and tests only")
	}
	if m.cfg.FetchPrivate {
		m.log.Warn("--fetch-private: custom pages' images may be fetched from loopback and private addresses on any port, so a page can make this server fetch from its own network; for development and tests only")
	}
	srv, err := web.New(web.Config{
		Fetcher:           fetcher,
		Webhooks:          m.hooks,
		Store:             store,
		Blobs:             blobs,
		Logger:            m.log,
		AccessLog:         m.access,
		Registry:          prometheus.NewRegistry(), // web adds the Go and process collectors
		BaseURL:           baseURL,
		ContentOrigin:     contentOrigin,
		PreviewSecret:     secret,
		PreviewTTL:        m.cfg.PreviewTTL,
		UploadIdleTimeout: m.cfg.UploadIdleTimeout,
		KeyRate:           m.cfg.KeyRate,
		KeyBurst:          m.cfg.KeyBurst,
		IPRate:            m.cfg.IPRate,
		IPBurst:           m.cfg.IPBurst,
		RateLimiter:       limiter,
		RequestUploads:    web.RateLimit{PerSecond: m.cfg.RequestUploadRate / 60, Burst: m.cfg.RequestUploadBurst},

		DownloadRedirect: m.cfg.DownloadRedirect,
		Signup:           m.cfg.Signup,
		Passwords:        passwords,
		StoreKind:        st.StoreKind(),
		BlobsKind:        st.BlobsKind(),

		OpsToken:       m.cfg.OpsToken,
		TrustedProxies: m.cfg.TrustedProxies,
		StatsOff:       !m.cfg.Stats,
		StatsRetention: time.Duration(m.cfg.StatsRetentionDays) * 24 * time.Hour,

		TusStore:      m.uploads.store,
		TusStoreError: m.uploads.storeError,
		UploadDir:     m.uploads.dir,
		TusLocker:     m.uploads.tusLocker(),
		Quotas:        m.cfg.Quotas.byPlan(),
	})
	if err != nil {
		return fmt.Errorf("starting the web server: %w", err)
	}
	m.srv = srv
	// One server per listener, in the same order: app, content (and its
	// other loopback), ops.
	if content != nil {
		ch := srv.ContentHandler()
		m.servers = append(m.servers, m.httpServer(srv.AppHandler()), m.httpServer(ch))
		if content6 != nil {
			m.servers = append(m.servers, m.httpServer(ch))
		}
	} else {
		m.servers = append(m.servers, m.httpServer(srv.HostHandler()))
	}
	opsAt := "none: /readyz and /metrics answer 404 (set --ops-addr or --ops-token)"
	if ops != nil {
		m.servers = append(m.servers, m.httpServer(srv.OpsHandler()))
	}
	if len(m.servers) != len(m.listeners) {
		return fmt.Errorf("serve: %d servers for %d listeners", len(m.servers), len(m.listeners))
	}
	if ops != nil {
		opsAt = "http://" + ops.Addr().String() + " (/healthz, /readyz, /metrics)"
	} else if m.cfg.OpsToken != "" {
		opsAt = "/readyz and /metrics on the app origin, with the token"
	}

	storeAt, blobsAt := st.describe()
	fmt.Fprintf(m.stdout, "Fileframe is serving\n  app:     %s\n  content: %s\n  store:   %s\n  blobs:   %s\n  ops:     %s\n",
		origin(baseURL), origin(contentOrigin), storeAt, blobsAt, opsAt)
	attrs := []any{"app", origin(baseURL), "content", origin(contentOrigin), "listen", app.Addr().String(),
		"store", storeAt, "blobs", blobsAt, "download_redirect", m.cfg.DownloadRedirect}
	if content != nil {
		listen := content.Addr().String()
		if content6 != nil {
			listen += " " + content6.Addr().String()
		}
		attrs = append(attrs, "content_listen", listen)
	}
	m.log.Info("serving", attrs...)
	for _, w := range originWarnings(baseURL, contentOrigin) {
		fmt.Fprintf(m.stdout, "  warning: %s\n", w)
		m.log.Warn(w, "app", origin(baseURL), "content", origin(contentOrigin))
	}
	return nil
}

// listenOtherLoopback binds the other loopback address (::1 beside
// 127.0.0.1, and the reverse) on l's port, so that a content origin named
// localhost reaches this server whichever address a browser tries first,
// and never another program listening there. It returns nil when l is not
// on a loopback address or the system has no such address; a port already
// taken there is an error.
func listenOtherLoopback(l net.Listener) (net.Listener, error) {
	a, ok := l.Addr().(*net.TCPAddr)
	if !ok || !a.IP.IsLoopback() {
		return nil, nil
	}
	other := "::1"
	if a.IP.To4() == nil {
		other = "127.0.0.1"
	}
	addr := net.JoinHostPort(other, strconv.Itoa(a.Port))
	l2, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EAFNOSUPPORT) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listening on %s, which http://localhost:%d also reaches: %w (set --content-addr or --content-origin)", addr, a.Port, err)
	}
	return l2, nil
}

// staleTempAge is how old a temp object of the S3 bucket must be for the
// clean-up to remove it: older than any upload in progress could leave it.
// The disk store removes a crash's temp files sooner, by their locks
// (disk.Store.CleanTemp), and uses this age only for those still locked.
const staleTempAge = time.Hour

// webhookLogKeep is how long delivered and failed webhook deliveries stay
// in their endpoint's log.
const webhookLogKeep = 30 * 24 * time.Hour

// startBackground starts the periodic work of a running server, every
// --cleanup-every (an hour by default): the removal of expired sessions, of
// blobs no row refers to (fileframe.CollectOrphanBlobs), of resumable
// uploads unfinished for a day (staleUploadAge) and of the records of those
// finished a day ago (web's tusHead), of expired upload reservations
// (service.AddFile; they no longer count), and of the blob store's temp
// files that crashes left (disk.Store.CleanTemp: those no process writes;
// s3.Store.CleanTemp: objects older than staleTempAge; both stores' Open
// also does it at start); and, once, the measuring of appearance
// images stored before their sizes were kept (measureImages); and of the
// answers kept for retries with an Idempotency-Key (web.IdempotencyKeep), and
// of webhook deliveries finished webhookLogKeep ago. Every instance may do
// it: all of it is idempotent. It also starts the webhook delivery worker
// (webhook.Worker: due deliveries every second, ended links every 30 s),
// which Close waits for, up to an attempt's 10 s.
func (m *Main) startBackground() {
	ctx, cancel := context.WithCancel(context.Background())
	m.stopBackground = cancel
	m.every(ctx, "expired sessions", func(ctx context.Context) (int, error) {
		return m.store.DeleteExpiredSessions(ctx, time.Now())
	})
	m.every(ctx, "orphaned blobs", func(ctx context.Context) (int, error) {
		return fileframe.CollectOrphanBlobs(ctx, m.store, m.blobs, time.Now())
	})
	m.every(ctx, "unfinished uploads older than a day", func(ctx context.Context) (int, error) {
		return m.uploads.clean(ctx, staleUploadAge)
	})
	m.every(ctx, "records of uploads finished over a day ago", func(ctx context.Context) (int, error) {
		return m.store.DeleteUploadRecords(ctx, time.Now().Add(-staleUploadAge))
	})
	m.every(ctx, "answers kept for Idempotency-Key retries over a day ago", func(ctx context.Context) (int, error) {
		return m.store.DeleteIdempotentBefore(ctx, time.Now().Add(-web.IdempotencyKeep))
	})
	// The public caches of every instance see the removals through the
	// store's change signal, as they see any other instance's writes.
	if links, err := service.New(service.Config{Store: m.store, Blobs: m.blobs}); err != nil {
		m.log.Warn("collecting ended links", "err", err)
	} else {
		m.every(ctx, "files of ended links their owners chose to remove", func(ctx context.Context) (int, error) {
			return links.CollectEndedLinks(ctx)
		})
	}
	m.every(ctx, "expired upload reservations", func(ctx context.Context) (int, error) {
		return m.store.DeleteExpiredReservations(ctx, time.Now())
	})
	m.every(ctx, "webhook deliveries finished over "+webhookLogKeep.String()+" ago", func(ctx context.Context) (int, error) {
		return m.store.DeleteDeliveriesBefore(ctx, time.Now().Add(-webhookLogKeep))
	})
	// Webhook deliveries, on every instance: the store's claims keep two
	// instances off one delivery (webhook.Worker).
	if w, err := webhook.NewWorker(webhook.WorkerConfig{Store: m.store, Client: m.hooks, BaseURL: m.baseURL, Logger: m.log}); err != nil {
		m.log.Warn("delivering webhooks", "err", err)
	} else {
		m.background.Go(func() { w.Run(ctx) })
	}
	m.background.Go(func() { m.measureImages(ctx) })
	if cleaner, ok := m.blobs.(interface {
		CleanTemp(ctx context.Context, olderThan time.Duration) (int, error)
	}); ok {
		m.every(ctx, "temp blobs left by crashes", func(ctx context.Context) (int, error) {
			return cleaner.CleanTemp(ctx, staleTempAge)
		})
	}
}

// measureImages measures the appearance images stored before Fileframe
// kept their sizes (service.MeasureImages), so that they count in their
// accounts' storage: at start, and again every --cleanup-every until it
// has succeeded.
func (m *Main) measureImages(ctx context.Context) {
	svc, err := service.New(service.Config{Store: m.store, Blobs: m.blobs})
	if err != nil {
		m.log.Warn("measuring appearance images", "err", err)
		return
	}
	t := time.NewTicker(m.cfg.CleanupEvery)
	defer t.Stop()
	for {
		n, err := svc.MeasureImages(ctx)
		if n > 0 {
			m.log.Info("measured appearance images stored before their sizes were kept", "images", n)
		}
		if err == nil || ctx.Err() != nil {
			return
		}
		m.log.Warn("measuring appearance images", "err", err, "measured", n)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// every runs clean every --cleanup-every until ctx ends, logging what it
// removed (what) and its failures.
func (m *Main) every(ctx context.Context, what string, clean func(context.Context) (int, error)) {
	m.background.Go(func() {
		t := time.NewTicker(m.cfg.CleanupEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			n, err := clean(ctx)
			if err != nil && ctx.Err() == nil {
				m.log.Warn("removing "+what, "err", err, "removed", n)
			} else if n > 0 {
				m.log.Info("removed "+what, "removed", n)
			}
		}
	})
}

// httpServer returns an http.Server for h with the timeouts against slow
// clients.
func (m *Main) httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: m.cfg.ReadHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
		ConnContext:       web.ConnContext, // answers from memory are held on it (internal/web/hold.go)
	}
}

// shutdown stops the HTTP servers, waiting up to the shutdown timeout for
// requests in flight and then cutting those still running (a warning: the
// timeout is the operator's choice, and nothing stored is lost); then it
// flushes the web server's batched writes, whose failure (download counts
// lost) is the error it returns, and makes serve exit 1.
func (m *Main) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.ShutdownTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(func() {
			if err := s.Shutdown(ctx); err != nil {
				// Out of time: cut the connections still open.
				if m.srv != nil {
					m.srv.CuttingOff()
				}
				s.Close()
				m.log.Warn("shutdown timed out: requests still running were cut off", "timeout", m.cfg.ShutdownTimeout.String(), "err", err)
			}
		})
	}
	wg.Wait()
	m.servers = nil
	return m.closeServer()
}

// closeServer flushes and stops the web server once.
func (m *Main) closeServer() error {
	if m.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := m.srv.Close(ctx)
	m.srv = nil
	if err != nil {
		return fmt.Errorf("closing the web server: %w", err)
	}
	return nil
}

// Close releases everything Run opened and writes out the buffered log; it
// is safe to call after Run returned, or if Run failed half way.
func (m *Main) Close() error {
	var err error
	m.closeOnce.Do(func() {
		for _, s := range m.servers {
			s.Close()
		}
		for _, l := range m.listeners {
			l.Close()
		}
		if m.stopBackground != nil {
			m.stopBackground()
			m.background.Wait()
		}
		err = m.closeServer()
		err = errors.Join(err, m.uploads.close())
		if m.store != nil {
			err = errors.Join(err, m.store.Close())
		}
		// Last, so that it writes out every line logged before.
		if m.logs != nil {
			err = errors.Join(err, m.logs.Close())
		}
	})
	return err
}

// newFetcher returns the fetcher of custom pages' remote resources, with
// private targets allowed when allowPrivate and the certificates of the
// PEM file caFile trusted besides the system's.
func newFetcher(allowPrivate bool, caFile string) (*fetch.Fetcher, error) {
	cfg := fetch.Config{AllowPrivate: allowPrivate}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("--fetch-ca: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--fetch-ca: %s holds no PEM certificate", caFile)
		}
		cfg.RootCAs = pool
	}
	return fetch.New(cfg), nil
}

package web

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// healthz answers 200 while the process serves HTTP at all.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	setDataHeaders(h)
	io.WriteString(w, "ok")
}

// readyCheckTimeout bounds each dependency check of /readyz.
const readyCheckTimeout = 2 * time.Second

// readiness is the body of /readyz.
type readiness struct {
	Status string          `json:"status"`
	Checks readinessChecks `json:"checks"`
	// Backends names what each check talks to: sqlite or postgres, disk or
	// s3.
	Backends readinessChecks `json:"backends,omitzero"`
}

type readinessChecks struct {
	Store string `json:"store,omitempty"`
	Blobs string `json:"blobs,omitempty"`
}

// readyz answers 200 when the store and the blob store answer a ping, and
// 503 naming the check that failed. The cause is logged, never shown.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	check := func(name string, ping func(context.Context) error, result *string) {
		ctx, cancel := context.WithTimeout(r.Context(), readyCheckTimeout)
		defer cancel()
		if err := ping(ctx); err != nil {
			s.logFor(r).Warn("readiness check failed", "check", name, "err", err)
			*result = "unavailable"
			if fileframe.ErrorCode(err) == fileframe.CodeStorageFull {
				// Reachable, but its disk has no room for new data.
				*result = "full"
			}
			return
		}
		*result = "ok"
	}
	body := readiness{Backends: readinessChecks{Store: s.cfg.StoreKind, Blobs: s.cfg.BlobsKind}}
	var wg sync.WaitGroup
	wg.Go(func() { check("store", s.store.Ping, &body.Checks.Store) })
	wg.Go(func() { check("blobs", s.blobs.Ping, &body.Checks.Blobs) })
	wg.Wait()

	status := http.StatusOK
	body.Status = "ok"
	h := w.Header()
	if body.Checks.Store != "ok" || body.Checks.Blobs != "ok" {
		status = http.StatusServiceUnavailable
		body.Status = "unavailable"
		if body.Checks.Store == "unavailable" || body.Checks.Blobs == "unavailable" {
			setBusyRetry(h) // out of reach for now; a full disk waits for the operator
		}
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	setDataHeaders(h)
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// opsOnly lets a request to an operational endpoint on the app origin
// through only with Config.OpsToken as its Bearer token: 404 when no token
// is set (the endpoint is then only on OpsHandler's listener), 401 when the
// request lacks it. /readyz pings the database and the blob store on every
// request and /metrics tells the traffic: neither is for strangers.
func (s *Server) opsOnly(h http.Handler) http.Handler {
	want := []byte("Bearer " + s.cfg.OpsToken)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.OpsToken == "" {
			s.publicNotFound(w, r)
			return
		}
		got := []byte(r.Header.Get("Authorization"))
		if len(got) > 7 && strings.EqualFold(string(got[:7]), "bearer ") {
			copy(got, "Bearer ")
		}
		if subtle.ConstantTimeCompare(got, want) != 1 {
			h := w.Header()
			h.Set("WWW-Authenticate", `Bearer realm="fileframe operations"`)
			h.Set("Cache-Control", "no-store")
			s.textError(w, r, fileframe.Errorf(fileframe.CodeUnauthorized, "This endpoint needs the operations token (--ops-token)."))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// metricsHandler serves the registry in the Prometheus exposition format.
func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.cfg.Registry, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(s.log.Handler(), slog.LevelError),
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// metrics are the server's Prometheus collectors.
type metrics struct {
	requests  *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	downloads prometheus.Counter
}

// newMetrics registers the server's collectors, and the Go runtime and
// process collectors, with reg. Collectors already registered (a second
// Server on the same registry) are shared rather than refused.
func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fileframe_http_requests_total",
			Help: "HTTP requests served, by origin, route pattern and status code.",
		}, []string{"origin", "route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "fileframe_http_request_duration_seconds",
			Help:    "Time to serve HTTP requests, by origin and route pattern.",
			Buckets: prometheus.DefBuckets,
		}, []string{"origin", "route"}),
		downloads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fileframe_downloads_total",
			Help: "Downloads counted (responses that start at byte 0).",
		}),
	}
	m.requests = register(reg, m.requests)
	m.duration = register(reg, m.duration)
	m.downloads = register(reg, m.downloads)
	register(reg, collectors.NewGoCollector())
	register(reg, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// register registers c with reg and returns it, or the equal collector that
// is already registered.
func register[C prometheus.Collector](reg *prometheus.Registry, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}

// maxRequestIDLen bounds an incoming X-Request-ID that is honoured.
const maxRequestIDLen = 64

// validRequestID reports whether an incoming X-Request-ID is safe to reuse
// in logs and headers: 1 to 64 characters of [A-Za-z0-9._-].
func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// observe wraps an origin's handler: it gives every request an ID (the
// client's X-Request-ID when sane), turns a panic into a generic 500, writes
// one JSON access log line and records the request metrics. The log has the
// path but never the query, which may hold preview tokens. The route label is
// the ServeMux pattern, which keeps the metrics' cardinality bounded.
func (s *Server) observe(originLabel string, h http.Handler) http.Handler {
	ids := newRequestIDs()
	metrics := &routeMetrics{m: s.metrics, origin: originLabel}
	// Over https, browsers are told to keep to https (policy.go).
	https := s.cfg.BaseURL.Scheme == "https" && originLabel != "ops"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// The work before and after the handler is in methods of their
		// own: their frames are not on the stack while the handler runs,
		// and the access line's encoding starts from a shallow stack
		// (publicFile says why that matters).
		r, sw, id := s.beginRequest(w, r, ids, https)
		defer func() {
			p := recover()
			started := sw.wroteHeader
			if p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.answerPanic(w, sw, r, id, p)
			}
			s.finishRequest(metrics, originLabel, r, id, sw, start)
			if p != nil && started {
				// The response had started: abort it so that the client sees
				// a broken response, not a complete-looking one.
				panic(http.ErrAbortHandler)
			}
		}()
		h.ServeHTTP(sw, r)
	})
}

// routeMetrics are the request metrics of one origin, by route and status:
// WithLabelValues hashes its label values and takes a lock in each of the
// two vectors, for every request; here a request makes one lookup in a
// sync.Map. The keys are bounded as the labels are (routes are ServeMux
// patterns, statuses three-digit codes). The metrics' vectors are never
// reset, so the children kept stay theirs.
type routeMetrics struct {
	m      *metrics
	origin string
	byKey  sync.Map // routeStatus -> *routeChildren
}

type routeStatus struct {
	route  string
	status int
}

type routeChildren struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// of returns the metrics of requests of route answered with status.
func (rm *routeMetrics) of(route string, status int) *routeChildren {
	k := routeStatus{route, status}
	if c, ok := rm.byKey.Load(k); ok {
		return c.(*routeChildren)
	}
	c, _ := rm.byKey.LoadOrStore(k, &routeChildren{
		requests: rm.m.requests.WithLabelValues(rm.origin, route, strconv.Itoa(status)),
		duration: rm.m.duration.WithLabelValues(rm.origin, route),
	})
	return c.(*routeChildren)
}

// requestIDHeader is X-Request-ID in the canonical form of http.Header's
// keys.
const requestIDHeader = "X-Request-Id"

// beginRequest gives r its ID (the client's X-Request-ID when sane) and
// returns r with the ID in its context, the status writer that wraps w and
// the ID.
func (s *Server) beginRequest(w http.ResponseWriter, r *http.Request, ids *requestIDs, https bool) (*http.Request, *statusWriter, string) {
	// The header's canonical key, spelled out: Get and Set would
	// canonicalise "X-Request-ID" into a new string on every request.
	var id string
	if v := r.Header[requestIDHeader]; len(v) > 0 {
		id = v[0]
	}
	if !validRequestID(id) {
		id = ids.id()
	}
	w.Header()[requestIDHeader] = []string{id}
	if https {
		setHSTS(w.Header())
	}
	s.clientAddr(r)
	sw := &statusWriter{ResponseWriter: w}
	if r.Body != http.NoBody && r.Body != nil || r.Method != http.MethodGet && r.Method != http.MethodHead {
		// A request with a body may be answered long after its last byte
		// arrived (an upload stored in S3 while the server takes its
		// tries), when the write deadline that reading it moved
		// (readDeadlineReader, tusd's) has passed, and so may any request
		// that writes (a tus creation waiting for S3): the answer would be
		// lost and the client see an empty reply. Its answer gets the same
		// time again when it starts. The public paths (GET, HEAD) keep
		// the server's.
		sw.answerTime = 2 * s.cfg.UploadIdleTimeout
	}
	return r.WithContext(withRequestID(r.Context(), id)), sw, id
}

// answerPanic logs the panic p of the handler of r and, when the response
// has not started, answers 500 with no trace of what the handler meant to
// send.
func (s *Server) answerPanic(w http.ResponseWriter, sw *statusWriter, r *http.Request, id string, p any) {
	s.log.LogAttrs(r.Context(), slog.LevelError, "panic serving request",
		slog.String("request_id", id),
		slog.Any("panic", p),
		slog.String("stack", string(debug.Stack())))
	if sw.wroteHeader {
		return
	}
	// Drop what the handler meant to send about its own response; the
	// security headers (CSP, nosniff) stay.
	hdr := w.Header()
	for _, k := range []string{"Content-Disposition", "Content-Length", "Content-Range",
		"Content-Encoding", "Content-Type", "ETag", "Last-Modified", "Cache-Control", "Location"} {
		hdr.Del(k)
	}
	hdr.Set("Cache-Control", "no-store")
	http.Error(sw, "Internal error.", http.StatusInternalServerError)
}

// finishRequest records the metrics of r, answered through sw, and writes
// its access line.
func (s *Server) finishRequest(metrics *routeMetrics, originLabel string, r *http.Request, id string, sw *statusWriter, start time.Time) {
	route := r.Pattern
	if route == "" {
		route = "unmatched"
	}
	status := sw.status
	if status == 0 {
		// A handler that wrote nothing gets net/http's implicit 200.
		status = http.StatusOK
	}
	elapsed := time.Since(start)
	m := metrics.of(route, status)
	m.requests.Inc()
	m.duration.Observe(elapsed.Seconds())
	s.accessLog(r.Context(), start.Add(elapsed), "http request",
		slog.String("request_id", id),
		slog.String("origin", originLabel),
		slog.String("method", r.Method),
		slog.String("path", logPath(r.URL.Path)),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Int64("bytes", sw.bytes),
		// An integer: slog's JSON handler writes floats through
		// json.Marshal, whose reflection cost 2% of a request and 1.5 KiB of
		// its stack.
		slog.Int64("duration_us", elapsed.Microseconds()),
		slog.String("remote", r.RemoteAddr))
}

// accessLog logs an Info record with attrs to the access log, as
// s.log.LogAttrs would but without the record's source: LogAttrs walks the
// stack for it on every call (runtime.Callers, about 6% of the
// middleware), and the access line, always written from here, does not
// show it.
func (s *Server) accessLog(ctx context.Context, at time.Time, msg string, attrs ...slog.Attr) {
	h := s.access
	if h == nil {
		h = s.log.Handler()
	}
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	rec := slog.NewRecord(at, slog.LevelInfo, msg, 0)
	rec.AddAttrs(attrs...)
	h.Handle(ctx, rec)
}

// logPath bounds the path written to the access log.
func logPath(p string) string {
	const max = 512
	if len(p) > max {
		return p[:max] + "…"
	}
	return p
}

// statusWriter records the status and the body size of a response. It
// passes ReadFrom through (sendfile) and unwraps for http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
	// answerTime, when not 0, is the write deadline the answer gets from
	// when its status is written (beginRequest).
	answerTime time.Duration
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		if code >= 200 {
			w.status, w.wroteHeader = code, true
			if w.answerTime > 0 {
				// A writer that cannot set deadlines (a recorder) has none.
				_ = http.NewResponseController(w.ResponseWriter).SetWriteDeadline(time.Now().Add(w.answerTime))
			}
		} else if w.status == 0 {
			w.status = code // a 1xx stays until a final status is written
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) ReadFrom(src io.Reader) (int64, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(writerOnly{w.ResponseWriter}, src)
	}
	w.bytes += n
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

package web

import (
	"context"
	"crypto/rand"
	"hash/maphash"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/mileusna/useragent"
	"github.com/x-way/crawlerdetect"
)

// Statistics (issue 14; fileframe/stats.go says what is counted). The
// public paths call statsRecorder.visit once per request to learn whether
// it counts and as what, then add each event; events are gathered in
// memory and written every statsFlushEvery download-count intervals, as
// one batch per instance (AddStats), so that no visitor waits for the
// store. A day's salt comes from the store once per instance and day; the
// rollup, run by every instance once an hour (it is idempotent), deletes
// the salts and hashes of past days and applies retention.

// statsAgents bounds the user agents whose class is remembered.
const statsAgents = 4096

// statsMaxVisitors bounds the visitor hashes held between flushes: past
// it (a store that stays down), hashes are dropped and only counts kept.
const statsMaxVisitors = 200_000

// Bounds on what anonymous visitors can make the store keep (each
// instance applies them, per UTC day): a source dimension of a file keeps
// statsValuesPerDim distinct values (referrer hosts, UTM values), further
// ones count as "(other)", and statsTrackedValues in all; one client
// address counts as at most statsAgentsPerAddress visitors, a further
// user agent from it joining one shared visitor, so that a client cycling
// its User-Agent cannot fill the store with visitors.
const (
	statsValuesPerDim     = 100
	statsTrackedValues    = 200_000
	statsAgentsPerAddress = 16
	statsTrackedAddresses = 100_000
)

// statsSaltRetry is how long after a failed salt read counting goes on
// without unique visitors before the store is asked again.
const statsSaltRetry = 5 * time.Second

// agentClass is what a user agent says of its visitor.
type agentClass struct {
	bot    bool
	device string
}

// daySalt is the salt of one day.
type daySalt struct {
	day    int64
	salt   []byte
	failed time.Time // set when the store could not give one
}

// statsRecorder gathers and writes the statistics of one server.
type statsRecorder struct {
	store     fileframe.StatsStore
	log       *slog.Logger
	now       func() time.Time
	keepHours time.Duration
	keepDays  time.Duration
	// ownHosts are the app's and the content origin's host names: a
	// Referer from them is a visitor moving within the service.
	ownHosts []string

	agentsMu sync.RWMutex
	agents   map[string]agentClass

	saltMu sync.Mutex
	salt   atomic.Pointer[daySalt]

	mu    sync.Mutex
	batch *fileframe.StatBatch

	flushMu sync.Mutex
	dropped atomic.Int64 // visitor hashes dropped past statsMaxVisitors

	// The day's bounds (statsValuesPerDim, statsAgentsPerAddress), under
	// mu and capsMu respectively, cleared when the day changes.
	valuesDay int64
	values    map[fileframe.StatSourceKey]struct{}
	perDim    map[fileframe.StatSourceKey]int // Value empty
	capsMu    sync.Mutex
	agentsDay int64
	byAddress map[string][]uint64 // user agents' hashes seen per address
	// clicked are the visitors who started a download of a file today
	// (under capsMu): a range that ends at the file's last byte completes
	// a download only for one of them (resumed), not for a request of the
	// last byte alone.
	clicked map[clickKey]struct{}

	stop, done chan struct{}
	closeOnce  sync.Once
}

func newStatsRecorder(store fileframe.StatsStore, log *slog.Logger, now func() time.Time, retention time.Duration, ownHosts ...string) *statsRecorder {
	return &statsRecorder{
		store: store, log: log, now: now, keepHours: min(retention, statsHourlyRetention), keepDays: retention, ownHosts: ownHosts,
		agents: make(map[string]agentClass), batch: fileframe.NewStatBatch(),
	}
}

// DefaultStatsRetention is how long daily statistics are kept unless the
// operator says otherwise: 400 days, so that a year can be compared with
// the one before.
const DefaultStatsRetention = 400 * 24 * time.Hour

// statsHourlyRetention is how long hourly rows are kept; daily rows are
// kept for the retention setting.
const statsHourlyRetention = 31 * 24 * time.Hour

// statVisit is what one request counts as; the zero value counts
// nothing.
type statVisit struct {
	counted    bool
	file       fileframe.FileID
	variant    fileframe.Variant
	test       fileframe.TestID
	hour, day  int64
	visitor    uint64
	hasVisitor bool
	device     string
}

// classify returns the class of a user agent, from memory when it was
// seen before.
func (r *statsRecorder) classify(ua string) agentClass {
	r.agentsMu.RLock()
	c, ok := r.agents[ua]
	r.agentsMu.RUnlock()
	if ok {
		return c
	}
	c = agentClass{device: fileframe.DeviceOther}
	if ua == "" || crawlerdetect.IsCrawler(ua) {
		c.bot = true
	} else {
		// mileusna/useragent parses without a table in memory: a parser
		// that keeps one (go-useragent's trie, 166,000 objects) made every
		// garbage collection mark it, which cost every path's p99
		// (docs/performance.md).
		switch a := useragent.Parse(ua); {
		case a.Bot:
			c.bot = true
		case a.Tablet:
			c.device = fileframe.DeviceTablet
		case a.Mobile && !a.Desktop:
			c.device = fileframe.DevicePhone
		case a.Desktop && !a.Mobile:
			c.device = fileframe.DeviceDesktop
		}
	}
	r.agentsMu.Lock()
	if len(r.agents) >= statsAgents {
		clear(r.agents)
	}
	r.agents[ua] = c
	r.agentsMu.Unlock()
	return c
}

// prefetch reports whether req is a prefetch or prerender, which no
// person asked for (yet).
func prefetch(req *http.Request) bool {
	h := req.Header
	for _, name := range []string{"Sec-Purpose", "Purpose", "X-Purpose", "X-Moz"} {
		for _, v := range h.Values(name) {
			v = strings.ToLower(v)
			if strings.Contains(v, "prefetch") || strings.Contains(v, "preview") || strings.Contains(v, "prerender") {
				return true
			}
		}
	}
	return false
}

// visit returns what req counts as for file f showing variant (during test
// when not empty), and nil when it does not count: a HEAD, a prefetch, a
// crawler, or statistics turned off.
func (r *statsRecorder) visit(req *http.Request, f fileframe.FileID, variant fileframe.Variant, test fileframe.TestID) statVisit {
	if r == nil || req.Method != http.MethodGet || prefetch(req) {
		return statVisit{}
	}
	ua := req.UserAgent()
	c := r.classify(ua)
	if c.bot {
		return statVisit{}
	}
	now := r.now()
	v := statVisit{counted: true, file: f, variant: variant, test: test, hour: fileframe.HourStart(now), day: fileframe.DayStart(now), device: c.device}
	if salt := r.saltOf(v.day); salt != nil {
		host, _, err := net.SplitHostPort(req.RemoteAddr)
		if err != nil {
			host = req.RemoteAddr
		}
		v.visitor, v.hasVisitor = fileframe.VisitorHash(salt, f, host, r.agentOf(v.day, host, ua)), true
	}
	return v
}

// agentOf returns ua, or "(many)" when the address has shown
// statsAgentsPerAddress other user agents today.
func (r *statsRecorder) agentOf(day int64, addr, ua string) string {
	h := maphash.String(statsSeed, ua)
	r.capsMu.Lock()
	defer r.capsMu.Unlock()
	if r.agentsDay != day || len(r.byAddress) >= statsTrackedAddresses {
		r.agentsDay, r.byAddress = day, make(map[string][]uint64)
	}
	seen := r.byAddress[addr]
	if slices.Contains(seen, h) {
		return ua
	}
	if len(seen) >= statsAgentsPerAddress {
		return "(many)"
	}
	r.byAddress[addr] = append(seen, h)
	return ua
}

// statsSeed seeds agentOf's hashes.
var statsSeed = maphash.MakeSeed()

// bounded returns k, or k with Value "(other)" when its dimension of its
// file has statsValuesPerDim values today, or statsTrackedValues are
// tracked. Called with mu held.
func (r *statsRecorder) bounded(k fileframe.StatSourceKey) fileframe.StatSourceKey {
	if k.Dim == fileframe.DimDevice {
		return k // four values
	}
	if r.valuesDay != k.Day {
		r.valuesDay = k.Day
		r.values, r.perDim = make(map[fileframe.StatSourceKey]struct{}), make(map[fileframe.StatSourceKey]int)
	}
	if _, ok := r.values[k]; ok {
		return k
	}
	dim := k
	dim.Value = ""
	if r.perDim[dim] >= statsValuesPerDim || len(r.values) >= statsTrackedValues {
		k.Value = fileframe.ReferrerOther
		return k
	}
	r.values[k] = struct{}{}
	r.perDim[dim]++
	return k
}

// saltOf returns the salt of day, asking the store on the first request
// of the day (and again statsSaltRetry after a failure); nil when there is
// none to be had, and then visitors are not told apart.
func (r *statsRecorder) saltOf(day int64) []byte {
	if s := r.salt.Load(); s != nil && s.day == day && s.salt != nil {
		return s.salt
	}
	r.saltMu.Lock()
	defer r.saltMu.Unlock()
	s := r.salt.Load()
	if s != nil && s.day == day && (s.salt != nil || r.now().Sub(s.failed) < statsSaltRetry) {
		return s.salt
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	salt, err := r.store.StatsSalt(ctx, day, func() []byte {
		b := make([]byte, 32)
		rand.Read(b)
		return b
	})
	if err != nil {
		r.log.Warn("statistics: no salt for today; counting without unique visitors for now", "err", err)
		r.salt.Store(&daySalt{day: day, failed: r.now()})
		return nil
	}
	r.salt.Store(&daySalt{day: day, salt: salt})
	return salt
}

// view counts a view of v's page, with the request's sources.
func (r *statsRecorder) view(req *http.Request, v statVisit) {
	if !v.counted {
		return
	}
	var sources [5]fileframe.StatSourceKey
	n := 0
	src := func(dim, value string) {
		sources[n] = fileframe.StatSourceKey{File: v.file, Day: v.day, Dim: dim, Value: value}
		n++
	}
	src(fileframe.DimReferrer, r.referrer(req))
	src(fileframe.DimDevice, v.device)
	if req.URL.RawQuery != "" {
		q := req.URL.Query()
		for _, d := range []string{fileframe.DimUTMSource, fileframe.DimUTMMedium, fileframe.DimUTMCampaign} {
			if val := sourceValue(q.Get(d)); val != "" {
				src(d, val)
			}
		}
	}
	r.add(&v, fileframe.StatView, sources[:n])
}

// click counts a download started at byte 0; download one that reached
// the file's end. Each also counts for the visitor's device.
func (r *statsRecorder) click(v *statVisit) {
	r.event(v, fileframe.StatClick)
	if r == nil || v == nil || !v.counted || !v.hasVisitor {
		return
	}
	r.capsMu.Lock()
	if r.clicked == nil || len(r.clicked) >= statsMaxVisitors || r.agentsDay != v.day {
		r.clicked = make(map[clickKey]struct{})
	}
	r.clicked[clickKey{v.file, v.day, v.visitor}] = struct{}{}
	r.capsMu.Unlock()
}

func (r *statsRecorder) download(v *statVisit) { r.event(v, fileframe.StatDownload) }

// clickKey is a visitor's started download of a file on a day.
type clickKey struct {
	file    fileframe.FileID
	day     int64
	visitor uint64
}

// resumes reports whether v's visitor started a download of the file
// today on this instance, so that a range ending at its last byte finishes
// that download.
func (r *statsRecorder) resumes(v *statVisit) bool {
	if r == nil || v == nil || !v.hasVisitor {
		return false
	}
	r.capsMu.Lock()
	defer r.capsMu.Unlock()
	_, ok := r.clicked[clickKey{v.file, v.day, v.visitor}]
	return ok
}

func (r *statsRecorder) event(v *statVisit, e fileframe.StatEvent) {
	if r == nil || v == nil || !v.counted {
		return
	}
	r.add(v, e, []fileframe.StatSourceKey{{File: v.file, Day: v.day, Dim: fileframe.DimDevice, Value: v.device}})
}

func (r *statsRecorder) add(v *statVisit, e fileframe.StatEvent, sources []fileframe.StatSourceKey) {
	k := fileframe.StatKey{File: v.file, Hour: v.hour, Variant: v.variant, Test: v.test}
	r.mu.Lock()
	b := r.batch
	c := b.Hours[k]
	c.Count(e)
	b.Hours[k] = c
	for _, sk := range sources {
		sk = r.bounded(sk)
		c := b.Sources[sk]
		c.Count(e)
		b.Sources[sk] = c
	}
	if v.hasVisitor {
		vk := fileframe.StatVisitorKey{File: v.file, Day: v.day, Variant: v.variant, Test: v.test, Visitor: v.visitor}
		if old, ok := b.Visitors[vk]; ok || len(b.Visitors) < statsMaxVisitors {
			b.Visitors[vk] = old | e
		} else {
			r.dropped.Add(1)
		}
	}
	r.mu.Unlock()
}

// referrer returns the host of req's Referer, "(none)" without one; the
// service's own origins are "(none)" too (a visitor moving within it).
func (r *statsRecorder) referrer(req *http.Request) string {
	ref := req.Referer()
	if ref == "" {
		return fileframe.ReferrerNone
	}
	u, err := url.Parse(ref)
	if err != nil || u.Hostname() == "" {
		return fileframe.ReferrerOther
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if slices.Contains(r.ownHosts, host) {
		return fileframe.ReferrerNone
	}
	return sourceValue(host)
}

// sourceValue is v as kept: valid UTF-8 without control characters,
// trimmed, at most MaxSourceValue bytes.
func sourceValue(v string) string {
	v = strings.TrimSpace(strings.ToValidUTF8(v, ""))
	v = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, v)
	for len(v) > fileframe.MaxSourceValue {
		_, size := utf8.DecodeLastRuneInString(v)
		v = v[:len(v)-size]
	}
	return v
}

// flush writes what was gathered; on failure it is kept, merged with what
// came meanwhile, for the next flush.
func (r *statsRecorder) flush(ctx context.Context) error {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	b := r.batch
	if b.Empty() {
		r.mu.Unlock()
		return nil
	}
	r.batch = fileframe.NewStatBatch()
	r.mu.Unlock()
	if err := r.store.AddStats(ctx, b); err != nil {
		r.mu.Lock()
		b.Merge(r.batch)
		r.batch = b
		r.mu.Unlock()
		return err
	}
	return nil
}

// pending is how many events are not written yet.
func (r *statsRecorder) pending() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.batch.Events()
}

// rollup rolls up past days and applies retention (RollupStats). A day is
// rolled up ten minutes after it ends, so that the last flushes of every
// instance are in.
func (r *statsRecorder) rollup(ctx context.Context) error {
	now := r.now()
	n, err := r.store.RollupStats(ctx, now.Add(-10*time.Minute),
		now.Add(-r.keepHours).Unix(), now.Add(-r.keepDays).Unix())
	if err == nil && n > 0 {
		r.log.Info("statistics: past days rolled up; their visitor hashes and salts are deleted", "hashes", n)
	}
	return err
}

// statsFlushEvery is how many download-count intervals (a second by
// default) pass between two writes of the statistics. On SQLite every
// commit makes the public cache refill (public_cache.go), and a write
// every second cost the outer page a tenth of its rate and half again of
// its p99 (docs/performance.md); every five seconds it costs neither,
// and a crash loses at most five seconds of counts.
const statsFlushEvery = 5

// statsRollupEvery is how often each instance runs the rollup.
const statsRollupEvery = time.Hour

// start begins the background flushes (every interval) and rollups
// (a minute after start, then every statsRollupEvery).
func (r *statsRecorder) start(interval time.Duration) {
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.done)
		flush := time.NewTicker(interval)
		defer flush.Stop()
		roll := time.NewTimer(time.Minute)
		defer roll.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-flush.C:
				ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
				if err := r.flush(ctx); err != nil {
					r.log.Warn("statistics not written; will retry", "events", r.pending(), "err", err)
				}
				cancel()
			case <-roll.C:
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				if err := r.rollup(ctx); err != nil {
					r.log.Warn("statistics: rollup failed; will retry", "err", err)
				}
				cancel()
				roll.Reset(statsRollupEvery)
			}
		}
	}()
}

// close stops the background work and writes what is left; what cannot
// be written is lost, and said so.
func (r *statsRecorder) close(ctx context.Context) error {
	if r == nil || r.stop == nil {
		return nil
	}
	r.closeOnce.Do(func() { close(r.stop) })
	select {
	case <-r.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := r.flush(ctx); err != nil {
		r.log.Error("statistics lost at shutdown", "events", r.pending(), "err", err)
		return err
	}
	return nil
}

package web

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/netip"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Browsers' user agents, one per device class.
const (
	uaDesktop = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	uaPhone   = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)

// behindProxy makes loopback a trusted proxy, so that X-Forwarded-For
// stands for many visitors' addresses.
func behindProxy(c *Config) {
	c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
}

// simVisitor is a simulated visitor: an address and a user agent.
type simVisitor struct{ addr, ua string }

func visitorN(i int) simVisitor {
	ua := uaDesktop
	if i%2 == 1 {
		ua = uaPhone
	}
	return simVisitor{fmt.Sprintf("198.51.%d.%d", i/250, i%250+1), ua}
}

// visit fetches path of the app origin as v, with extra headers.
func (e *testEnv) visit(v simVisitor, method, path string, header ...string) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.app.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", v.addr)
	req.Header.Set("User-Agent", v.ua)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return e.do(req)
}

// fileStats flushes the server's statistics and reads f's figures
// through the API.
func (e *testEnv) fileStats(key string, f fileframe.File, query string) apiStats {
	e.t.Helper()
	if err := e.srv.stats.flush(context.Background()); err != nil {
		e.t.Fatalf("flush: %v", err)
	}
	var st apiStats
	if got := e.apiJSON(key, http.MethodGet, "/api/files/"+string(f.ID)+"/stats"+query, "", &st); got != http.StatusOK {
		e.t.Fatalf("GET stats: %d", got)
	}
	return st
}

// fileStatsOnce is fileStats once ok holds, or after 5 seconds: a
// download counts when its handler has written the last byte, a moment
// after the client has read it.
func (e *testEnv) fileStatsOnce(key string, f fileframe.File, ok func(apiStats) bool) apiStats {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		st := e.fileStats(key, f, "")
		if ok(st) || time.Now().After(deadline) {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func n64(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func source(st apiStats, dim, value string) int64 {
	for _, r := range st.Sources[dim] {
		if r.Value != nil && *r.Value == value {
			return r.Views
		}
	}
	return 0
}

// TestStatsCountExactlyUnderConcurrency: 100 visitors view a page ten
// times each in parallel; half of them download the file, a quarter only
// start to. Every event is counted once, each visitor once a day.
func TestStatsCountExactlyUnderConcurrency(t *testing.T) {
	e := newTestEnv(t, behindProxy)
	a, f := e.agencyFile("report.pdf", []byte(strings.Repeat("r", 4096)))
	key, _ := e.key(a, "")
	e.savePage(f, customHTML("stats"), true)

	var wg sync.WaitGroup
	for i := range 100 {
		v := visitorN(i)
		wg.Go(func() {
			for range 10 {
				query := ""
				if i < 30 {
					query = "?utm_source=newsletter&utm_campaign=launch"
				}
				hdr := []string{"Referer", "https://news.example.org/item?id=1"}
				if i >= 60 {
					hdr = nil
				}
				if resp, _ := e.visit(v, http.MethodGet, "/f/"+f.Slug+query, hdr...); resp.StatusCode != http.StatusOK {
					t.Errorf("view: %d", resp.StatusCode)
				}
			}
			switch {
			case i < 50:
				e.visit(v, http.MethodGet, "/f/"+f.Slug+"/download")
			case i < 75:
				// Only the first bytes: a click, not a download.
				e.visit(v, http.MethodGet, "/f/"+f.Slug+"/download", "Range", "bytes=0-99")
			}
		})
	}
	wg.Wait()
	st := e.fileStatsOnce(key, f, func(st apiStats) bool { return st.Totals.Downloads >= 50 })
	tot := st.Totals
	if tot.Views != 1000 || n64(tot.Visitors) != 100 || tot.Clicks != 75 || tot.Downloads != 50 || n64(tot.Converted) != 50 {
		t.Errorf("totals: %d views, %d visitors, %d clicks, %d downloads, %d converted; want 1000, 100, 75, 50, 50",
			tot.Views, n64(tot.Visitors), tot.Clicks, tot.Downloads, n64(tot.Converted))
	}
	if tot.Conversion == nil || *tot.Conversion != 0.5 {
		t.Errorf("conversion %v, want 0.5", tot.Conversion)
	}
	if len(st.Variants) != 1 || st.Variants[0].Variant != "page:1" || *st.Variants[0].Revision != 1 {
		t.Errorf("variants: %+v", st.Variants)
	}
	if got := source(st, fileframe.DimReferrer, "news.example.org"); got != 600 {
		t.Errorf("referrer news.example.org: %d views, want 600", got)
	}
	if got := source(st, fileframe.DimReferrer, "(none)"); got != 400 {
		t.Errorf("no referrer: %d views, want 400", got)
	}
	if source(st, fileframe.DimUTMSource, "newsletter") != 300 || source(st, fileframe.DimUTMCampaign, "launch") != 300 {
		t.Errorf("UTM: %+v", st.Sources)
	}
	if source(st, fileframe.DimDevice, fileframe.DevicePhone) != 500 || source(st, fileframe.DimDevice, fileframe.DeviceDesktop) != 500 {
		t.Errorf("devices: %+v", st.Sources[fileframe.DimDevice])
	}
	// The overview needs a general key and has the file.
	var all apiStats
	if got := e.apiJSON(key, http.MethodGet, "/api/stats", "", &all); got != http.StatusOK || all.Files == nil || len(*all.Files) != 1 || (*all.Files)[0].FileID != f.ID || all.Totals.Views != 1000 {
		t.Errorf("GET /api/stats: %d %+v", got, all.Files)
	}
}

// TestStatsSkipWhatNoPersonAskedFor: HEADs, prefetches, crawlers and link
// preview bots, and requests without a user agent count nothing.
func TestStatsSkipWhatNoPersonAskedFor(t *testing.T) {
	e := newTestEnv(t)
	a, f := e.agencyFile("deck.pdf", []byte("deck"))
	key, _ := e.key(a, "")
	person := simVisitor{"127.0.0.1", uaDesktop}
	e.visit(person, http.MethodHead, "/f/"+f.Slug)
	e.visit(person, http.MethodGet, "/f/"+f.Slug, "Sec-Purpose", "prefetch;prerender")
	e.visit(person, http.MethodGet, "/f/"+f.Slug, "Purpose", "prefetch")
	e.visit(person, http.MethodHead, "/f/"+f.Slug+"/download")
	for _, ua := range []string{
		"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"WhatsApp/2.23.20.0",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_10_1) AppleWebKit/600.2.5 (KHTML, like Gecko) Version/8.0.2 Safari/600.2.5 (Applebot/0.1)",
		"Twitterbot/1.0",
		"Discordbot/2.0; +https://discordapp.com",
		"curl/8.5.0",
		"",
	} {
		bot := simVisitor{"127.0.0.1", ua}
		e.visit(bot, http.MethodGet, "/f/"+f.Slug)
		e.visit(bot, http.MethodGet, "/f/"+f.Slug+"/download")
	}
	st := e.fileStats(key, f, "")
	if st.Totals.Views+st.Totals.Clicks+st.Totals.Downloads != 0 {
		t.Fatalf("counted %+v; want nothing", st.Totals)
	}
	e.visit(person, http.MethodGet, "/f/"+f.Slug)
	st = e.fileStats(key, f, "")
	if st.Totals.Views != 1 || n64(st.Totals.Visitors) != 1 || len(st.Variants) != 1 || st.Variants[0].Variant != fileframe.VariantDefault {
		t.Errorf("one person's view: %+v %+v", st.Totals, st.Variants)
	}
}

// TestStatsDownloadCompletes: a download counts when the file's last byte
// is sent, also by a range that resumes it; not when the visitor leaves
// before.
func TestStatsDownloadCompletes(t *testing.T) {
	e := newTestEnv(t)
	content := []byte(strings.Repeat("0123456789", 1000))
	a, f := e.agencyFile("data.bin", content)
	big := e.file(a, "big.bin", []byte(strings.Repeat("b", 64<<20)))
	key, _ := e.key(a, "")
	me := simVisitor{"127.0.0.1", uaDesktop}
	e.visit(me, http.MethodGet, "/f/"+f.Slug+"/download", "Range", "bytes=0-4999")
	if st := e.fileStats(key, f, ""); st.Totals.Clicks != 1 || st.Totals.Downloads != 0 {
		t.Fatalf("half: %+v", st.Totals)
	}
	e.visit(me, http.MethodGet, "/f/"+f.Slug+"/download", "Range", "bytes=5000-")
	if st := e.fileStatsOnce(key, f, func(st apiStats) bool { return st.Totals.Downloads > 0 }); st.Totals.Clicks != 1 || st.Totals.Downloads != 1 {
		t.Fatalf("resumed to the end: %+v", st.Totals)
	}
	// Another visitor asks for the last byte alone: no download of theirs
	// was started, so none is completed.
	e.visit(simVisitor{"127.0.0.1", uaPhone}, http.MethodGet, "/f/"+f.Slug+"/download", "Range", "bytes=9999-")
	time.Sleep(100 * time.Millisecond)
	if st := e.fileStats(key, f, ""); st.Totals.Clicks != 1 || st.Totals.Downloads != 1 {
		t.Fatalf("the last byte alone: %+v", st.Totals)
	}
	// A visitor who leaves after the first bytes of a big file.
	req, _ := http.NewRequest(http.MethodGet, e.app.URL+"/f/"+big.Slug+"/download", nil)
	req.Header.Set("User-Agent", uaDesktop)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadFull(resp.Body, make([]byte, 1024))
	resp.Body.Close()
	time.Sleep(200 * time.Millisecond)
	if st := e.fileStats(key, big, ""); st.Totals.Clicks != 1 || st.Totals.Downloads != 0 {
		t.Errorf("left early: %+v", st.Totals)
	}
}

// TestStatsRollupAcrossHourAndDay: views before and after midnight land in
// their hours and days; the rollup keeps each day's visitors while it
// deletes the past day's hashes and salt.
func TestStatsRollupAcrossHourAndDay(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 24, 23, 59, 30, 0, time.UTC)}
	e := newTestEnv(t, behindProxy, func(c *Config) { c.Now = clock.Now })
	a, f := e.agencyFile("a.txt", []byte("a"))
	key, _ := e.key(a, "")
	for i := range 3 {
		e.visit(visitorN(i), http.MethodGet, "/f/"+f.Slug)
	}
	e.visit(visitorN(0), http.MethodGet, "/f/"+f.Slug) // again: one visitor
	clock.Advance(time.Minute)                         // 00:00:30 the next day
	for i := range 2 {
		e.visit(visitorN(i), http.MethodGet, "/f/"+f.Slug)
	}
	check := func(when string) {
		t.Helper()
		st := e.fileStats(key, f, "?from=2026-11-24&to=2026-11-25")
		if len(st.Series) != 2 || st.Series[0].Views != 4 || n64(st.Series[0].Visitors) != 3 || st.Series[1].Views != 2 || n64(st.Series[1].Visitors) != 2 {
			t.Errorf("%s: days %+v", when, st.Series)
		}
		h := e.fileStats(key, f, "?interval=hour&from=2026-11-24T23:00:00Z&to=2026-11-25T01:00:00Z")
		if len(h.Series) != 2 || h.Series[0].Views != 4 || h.Series[1].Views != 2 || h.Series[0].Visitors != nil {
			t.Errorf("%s: hours %+v", when, h.Series)
		}
	}
	check("before the rollup")
	clock.Advance(10*time.Minute + 30*time.Second) // 00:11 the next day
	if err := e.srv.stats.rollup(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("after the rollup")
	day := fileframe.DayStart(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	if _, err := e.store.StatsSalt(context.Background(), day, func() []byte { return []byte("x") }); !fileframe.IsNotFound(err) {
		t.Errorf("the past day's salt: %v; want it deleted", err)
	}
}

var frameRevision = regexp.MustCompile(`/p/[^/"]+/(\d+)`)

// TestABTestSplitsEvenly: two revisions in a test are shown to 2,000
// simulated visitors within 7% of half each (5.6 standard deviations of
// the binomial), every visitor always the same one, and each variant's
// figures come back apart; promoting publishes the revision.
func TestABTestSplitsEvenly(t *testing.T) {
	e := newTestEnv(t, behindProxy)
	a, f := e.agencyFile("offer.pdf", []byte("offer"))
	key, _ := e.key(a, "")
	other, _ := e.agencyFile("other.pdf", []byte("x"))
	otherKey, _ := e.key(other, "")
	e.savePage(f, customHTML("one"), false)

	var p struct{ Code string }
	if got := e.apiJSON(key, http.MethodPost, "/api/files/"+string(f.ID)+"/tests", `{"revisions": [1, 2]}`, &p); got != http.StatusConflict || p.Code != "page_not_published" {
		t.Errorf("a test of a draft: %d %s", got, p.Code)
	}
	e.savePage(f, customHTML("two"), false)
	if _, err := e.store.SetLiveRevision(context.Background(), f.ID, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]string{
		`{"revisions": [1]}`:            "invalid_field",
		`{"revisions": [1, 1]}`:         "invalid_field",
		`{"revisions": [1, 9]}`:         "revision_not_found",
		`{"revisions": ["1", "2"]}`:     "invalid_field",
		`{"revisions": [1, 2], "x": 1}`: "invalid_field",
	} {
		if got := e.apiJSON(key, http.MethodPost, "/api/files/"+string(f.ID)+"/tests", body, &p); p.Code != want {
			t.Errorf("%s: %d %s; want %s", body, got, p.Code, want)
		}
	}
	if got := e.apiJSON(otherKey, http.MethodPost, "/api/files/"+string(f.ID)+"/tests", `{"revisions": [1, 2]}`, &p); got != http.StatusNotFound || p.Code != "file_not_found" {
		t.Errorf("another account's file: %d %s", got, p.Code)
	}
	var started testAnswer
	if got := e.apiJSON(key, http.MethodPost, "/api/files/"+string(f.ID)+"/tests", `{"revisions": [2, 1]}`, &started); got != http.StatusCreated || !started.Test.Running || started.Test.Verdict != "collecting" {
		t.Fatalf("start: %d %+v", got, started)
	}
	if got := e.apiJSON(key, http.MethodPost, "/api/files/"+string(f.ID)+"/tests", `{"revisions": [1, 2]}`, &p); got != http.StatusConflict || p.Code != "test_running" {
		t.Errorf("a second test: %d %s", got, p.Code)
	}

	const visitors = 2000
	seen := make([]int, visitors)
	var shown [3]atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range visitors {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			v := visitorN(i)
			for range 3 {
				_, body := e.visit(v, http.MethodGet, "/f/"+f.Slug)
				m := frameRevision.FindSubmatch(body)
				if m == nil {
					t.Errorf("no frame in %s", body)
					return
				}
				rev, _ := strconv.Atoi(string(m[1]))
				if seen[i] != 0 && seen[i] != rev {
					t.Errorf("visitor %d saw revision %d, then %d", i, seen[i], rev)
				}
				seen[i] = rev
			}
			shown[seen[i]].Add(1)
			// Visitors of revision 2 download twice as often.
			if i%3 == 0 || seen[i] == 2 && i%3 == 1 {
				e.visit(v, http.MethodGet, "/f/"+f.Slug+"/download")
			}
		})
	}
	wg.Wait()
	for rev := 1; rev <= 2; rev++ {
		if n := shown[rev].Load(); math.Abs(float64(n)-visitors/2) > 0.07*visitors/2 {
			t.Errorf("revision %d shown to %d of %d visitors; want %d ± 7%%", rev, n, visitors, visitors/2)
		}
	}
	// The content origin serves both revisions while the test runs.
	for _, rev := range []string{"1", "2"} {
		if resp, _ := e.contentGet("/p/"+f.Slug+"/"+rev, "Sec-Fetch-Dest", "iframe"); resp.StatusCode != http.StatusOK {
			t.Errorf("/p/%s/%s during the test: %d", f.Slug, rev, resp.StatusCode)
		}
	}
	e.srv.stats.flush(context.Background())
	var got testAnswer
	if code := e.apiJSON(key, http.MethodGet, "/api/files/"+string(f.ID)+"/tests/"+string(started.Test.ID), "", &got); code != http.StatusOK {
		t.Fatalf("GET test: %d", code)
	}
	var total int64
	for _, v := range got.Test.Variants {
		total += v.Visitors
		if v.Visitors != shown[v.Revision].Load() || v.Views != 3*v.Visitors {
			t.Errorf("variant %d: %d visitors, %d views; shown to %d", v.Revision, v.Visitors, v.Views, shown[v.Revision].Load())
		}
	}
	if total != visitors || got.Test.Verdict != "winner" || *got.Test.Winner != 2 || got.Test.Confidence < 0.99 {
		t.Errorf("report: %+v", got.Test)
	}
	// Its figures are the file's too, per variant and test.
	st := e.fileStats(key, f, "")
	if st.Totals.Views != 3*visitors || len(st.Variants) != 2 || st.Variants[0].TestID == nil || *st.Variants[0].TestID != started.Test.ID {
		t.Errorf("file stats: %+v %+v", st.Totals, st.Variants)
	}

	if code := e.apiJSON(key, http.MethodGet, "/api/files/"+string(f.ID)+"/tests/ab_nope", "", &p); code != http.StatusNotFound || p.Code != "test_not_found" {
		t.Errorf("unknown test: %d %s", code, p.Code)
	}
	if code := e.apiJSON(key, http.MethodPost, "/api/files/"+string(f.ID)+"/tests/"+string(started.Test.ID)+"/end", `{"promote": 3}`, &p); code != http.StatusBadRequest || p.Code != "invalid_field" {
		t.Errorf("promoting a revision outside the test: %d %s", code, p.Code)
	}
	var ended testAnswer
	if code := e.apiJSON(key, http.MethodPost, "/api/files/"+string(f.ID)+"/tests/"+string(started.Test.ID)+"/end", `{"promote": 2}`, &ended); code != http.StatusOK || ended.Test.Running || *ended.Test.Promoted != 2 {
		t.Fatalf("end: %d %+v", code, ended)
	}
	if pg := e.page(f); pg.LiveRevision != 2 {
		t.Errorf("after promoting 2, live revision %d", pg.LiveRevision)
	}
	if resp, _ := e.contentGet("/p/"+f.Slug+"/1", "Sec-Fetch-Dest", "iframe"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/p/%s/1 after the test: %d", f.Slug, resp.StatusCode)
	}
	for i := range 20 {
		_, body := e.visit(visitorN(i), http.MethodGet, "/f/"+f.Slug)
		if m := frameRevision.FindSubmatch(body); m == nil || string(m[1]) != "2" {
			t.Fatalf("after the test a visitor got %s", m)
		}
	}
	if code := e.apiJSON(key, http.MethodPost, "/api/files/"+string(f.ID)+"/tests/"+string(started.Test.ID)+"/end", ``, &p); code != http.StatusConflict || p.Code != "test_ended" {
		t.Errorf("ending it again: %d %s", code, p.Code)
	}
	var list testList
	if code := e.apiJSON(key, http.MethodGet, "/api/files/"+string(f.ID)+"/tests", "", &list); code != http.StatusOK || len(list.Tests) != 1 {
		t.Errorf("list: %d %+v", code, list)
	}
}

// TestStatsAPIRefusals: ranges, formats, keys.
func TestStatsAPIRefusals(t *testing.T) {
	e := newTestEnv(t)
	a, f := e.agencyFile("x.txt", []byte("x"))
	general, _ := e.key(a, "")
	bound, _ := e.key(a, f.ID)
	g := e.file(a, "y.txt", []byte("y"))
	var p struct{ Code string }
	for q, want := range map[string]string{
		"?interval=week":                 "invalid_field",
		"?from=2026-13-01":               "invalid_field",
		"?from=2026-11-02&to=2026-11-01": "invalid_field",
		"?from=2020-01-01&to=2026-01-01": "invalid_field",
		"?format=xml":                    "invalid_field",
		"?to=9999-12-31":                 "invalid_field",
		"?from=0001-01-01":               "invalid_field",
	} {
		if got := e.apiJSON(general, http.MethodGet, "/api/files/"+string(f.ID)+"/stats"+q, "", &p); got != http.StatusBadRequest || p.Code != want {
			t.Errorf("%s: %d %s", q, got, p.Code)
		}
	}
	var none apiStats
	if got := e.apiJSON(general, http.MethodGet, "/api/stats", "", &none); got != http.StatusOK || none.Files == nil || len(*none.Files) != 0 {
		t.Errorf("the overview of an account without visits: %d, files %v; want []", got, none.Files)
	}
	if got := e.apiJSON(bound, http.MethodGet, "/api/stats", "", &p); got != http.StatusForbidden || p.Code != "key_scope" {
		t.Errorf("overview with a page-bound key: %d %s", got, p.Code)
	}
	if got := e.apiJSON(bound, http.MethodGet, "/api/files/"+string(g.ID)+"/stats", "", &p); got != http.StatusNotFound || p.Code != "file_not_found" {
		t.Errorf("another file with a page-bound key: %d %s", got, p.Code)
	}
	var st apiStats
	if got := e.apiJSON(bound, http.MethodGet, "/api/files/"+string(f.ID)+"/stats", "", &st); got != http.StatusOK || st.FileID != f.ID {
		t.Errorf("its own file with a page-bound key: %d", got)
	}
	req, _ := http.NewRequest(http.MethodGet, e.app.URL+"/api/files/"+string(f.ID)+"/stats?format=csv&from=2026-11-01&to=2026-11-02", nil)
	req.Header.Set("Authorization", "Bearer "+general)
	resp, body := e.do(req)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
		!strings.HasPrefix(string(body), "section,time,key,value,views,clicks,downloads,visitors,converted,conversion\n") ||
		!strings.Contains(string(body), "series,2026-11-02T00:00:00Z") {
		t.Errorf("CSV: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// TestStatsBoundWhatVisitorsMakeKept: one address cycling its user agent
// counts as at most 17 visitors (16 and the rest together), and a file's
// UTM campaign keeps 100 values a day, the rest counted as "(other)".
func TestStatsBoundWhatVisitorsMakeKept(t *testing.T) {
	e := newTestEnv(t)
	a, f := e.agencyFile("x.txt", []byte("x"))
	key, _ := e.key(a, "")
	for i := range 150 {
		v := simVisitor{"127.0.0.1", uaDesktop + fmt.Sprintf(" Build/%d", i)}
		e.visit(v, http.MethodGet, fmt.Sprintf("/f/%s?utm_campaign=c%03d", f.Slug, i))
	}
	st := e.fileStats(key, f, "")
	if st.Totals.Views != 150 || n64(st.Totals.Visitors) != statsAgentsPerAddress+1 {
		t.Errorf("150 user agents from one address: %d views, %d visitors; want 150 and %d", st.Totals.Views, n64(st.Totals.Visitors), statsAgentsPerAddress+1)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(e.dir, "fileframe.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var kept int
	if err := db.QueryRow(`SELECT count(*) FROM stat_sources WHERE dim = 'utm_campaign'`).Scan(&kept); err != nil || kept != statsValuesPerDim+1 {
		t.Errorf("campaign values kept: %d (%v), want %d and (other)", kept, err, statsValuesPerDim)
	}
	if got := source(st, fileframe.DimUTMCampaign, fileframe.ReferrerOther); got != 150-statsValuesPerDim {
		t.Errorf("(other) campaigns: %d views, want %d", got, 150-statsValuesPerDim)
	}
}

// TestABTestEndRace: requests racing to end a test with different
// promotions: one ends it and publishes its revision, the rest are
// test_ended and publish nothing.
func TestABTestEndRace(t *testing.T) {
	e := newTestEnv(t)
	a, f := e.agencyFile("race.pdf", []byte("race"))
	key, _ := e.key(a, "")
	for i := range 4 {
		e.savePage(f, customHTML(fmt.Sprintf("v%d", i+1)), false)
	}
	if _, err := e.store.SetLiveRevision(context.Background(), f.ID, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		var started testAnswer
		if got := e.apiJSON(key, http.MethodPost, "/api/files/"+string(f.ID)+"/tests", `{"revisions": [1, 2, 3, 4]}`, &started); got != http.StatusCreated {
			t.Fatalf("round %d: start: %d", round, got)
		}
		codes := make([]int, 4)
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				var out testAnswer
				codes[i] = e.apiJSON(key, http.MethodPost, "/api/files/"+string(f.ID)+"/tests/"+string(started.Test.ID)+"/end",
					fmt.Sprintf(`{"promote": %d}`, i+1), &out)
			})
		}
		wg.Wait()
		winner := 0
		for i, c := range codes {
			switch c {
			case http.StatusOK:
				if winner != 0 {
					t.Fatalf("round %d: two ends succeeded: %v", round, codes)
				}
				winner = i + 1
			case http.StatusConflict:
			default:
				t.Fatalf("round %d: answers %v", round, codes)
			}
		}
		var got testAnswer
		e.apiJSON(key, http.MethodGet, "/api/files/"+string(f.ID)+"/tests/"+string(started.Test.ID), "", &got)
		if live := e.page(f).LiveRevision; winner == 0 || live != winner || got.Test.Promoted == nil || *got.Test.Promoted != winner {
			t.Fatalf("round %d: answers %v, live revision %d, test promoted %v", round, codes, live, got.Test.Promoted)
		}
	}
}

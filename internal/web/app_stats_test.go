package web

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// statsVisits is what statsBatch puts in: per variant (and test), the
// views of one hour, and visitors of whom the first converted complete a
// download.
type statsVisits struct {
	variant          fileframe.Variant
	test             fileframe.TestID
	views, downloads int64
	visitors         int
	converted        int
}

// statsBatch is a batch of f's counts in the hour at, with a referrer, a
// UTM source and a device for every view.
func statsBatch(f fileframe.FileID, at time.Time, visits ...statsVisits) *fileframe.StatBatch {
	b := fileframe.NewStatBatch()
	day := fileframe.DayStart(at)
	for _, v := range visits {
		b.Hours[fileframe.StatKey{File: f, Hour: fileframe.HourStart(at), Variant: v.variant, Test: v.test}] =
			fileframe.StatCounts{Views: v.views, Clicks: v.downloads, Downloads: v.downloads}
		for i := range v.visitors {
			ev := fileframe.StatView
			if i < v.converted {
				ev |= fileframe.StatClick | fileframe.StatDownload
			}
			b.Visitors[fileframe.StatVisitorKey{File: f, Day: day, Variant: v.variant, Test: v.test, Visitor: uint64(i + 1)}] = ev
		}
		for dim, value := range map[string]string{fileframe.DimReferrer: "news.example.com", fileframe.DimUTMSource: "newsletter", fileframe.DimDevice: fileframe.DevicePhone} {
			k := fileframe.StatSourceKey{File: f, Day: day, Dim: dim, Value: value}
			c := b.Sources[k]
			c.Add(fileframe.StatCounts{Views: v.views, Downloads: v.downloads})
			b.Sources[k] = c
		}
	}
	return b
}

func (e *testEnv) addStats(b *fileframe.StatBatch) {
	e.t.Helper()
	if err := e.store.AddStats(context.Background(), b); err != nil {
		e.t.Fatalf("AddStats: %v", err)
	}
}

// publishPages stores and publishes n revisions of f's page (the last one
// live), through the service.
func (e *testEnv) publishPages(a fileframe.Account, f fileframe.File, n int) {
	e.t.Helper()
	for i := range n {
		doc := strings.Replace(validPage, "Spring launch</h1>", "Spring launch, take "+string(rune('1'+i))+"</h1>", 1)
		if _, _, err := e.srv.svc.SavePage(context.Background(), a, f, []byte(doc), service.PageMode{Publish: true}); err != nil {
			e.t.Fatalf("SavePage: %v", err)
		}
	}
}

// testsSection is the A/B tests section of a stats page.
func testsSection(body string) string {
	_, s, _ := strings.Cut(body, `id="tests"`)
	return s
}

func TestStatsFilePage(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanFree)
	e := fx.e
	at := time.Now().Add(-40 * time.Hour)
	e.addStats(statsBatch(fx.file.ID, at,
		statsVisits{variant: fileframe.VariantDefault, views: 1234, downloads: 30, visitors: 40, converted: 10},
		statsVisits{variant: fileframe.PageVariant(3), views: 16, downloads: 2, visitors: 8, converted: 2},
	))

	resp, body := fx.b.get(filePath(fx.file) + "/stats")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stats: %d\n%s", resp.StatusCode, body)
	}
	assertAppHeaders(t, resp)
	for _, want := range []string{
		`<dd>1,250</dd>`,                      // views
		`<dd>48</dd>`,                         // visitors
		`<dd>25.0%</dd>`,                      // conversion: 12 of 48
		"Default page", "Revision 3", "25.0%", // a variant's conversion: 10 of 40
		"news.example.com", "newsletter", "Phone",
		`<polyline class="chart-line chart-views"`, `<polyline class="chart-line chart-visitors"`, `<polyline class="chart-line chart-downloads"`,
		`href="/files/` + string(fx.file.ID) + `/stats.csv"`, "Download CSV",
		"A/B tests of custom pages come with the Agency plan",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("stats page lacks %q", want)
		}
	}
	if strings.Contains(body, "No visits in this range") {
		t.Errorf("a range with visits says it has none")
	}

	// The hourly range: views and downloads, no visitors line.
	resp, body = fx.b.get(filePath(fx.file) + "/stats?interval=hour")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `aria-current="page">Last 48 hours`) ||
		strings.Contains(body, "chart-line chart-visitors") || !strings.Contains(body, "chart-line chart-views") {
		t.Errorf("hourly stats: %d, want the 48 hours' chart without visitors", resp.StatusCode)
	}

	// The CSV of the same range.
	resp, body = fx.b.get(filePath(fx.file) + "/stats.csv")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		!strings.HasPrefix(resp.Header.Get("Content-Disposition"), `attachment; filename=stats-`+string(fx.file.ID)+"-") {
		t.Fatalf("CSV: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"))
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("CSV: %v\n%s", err, body)
	}
	found := map[string]bool{}
	for _, r := range rows {
		switch {
		case r[0] == "total":
			found["total"] = r[4] == "1250" && r[6] == "32" && r[7] == "48" && r[8] == "12"
		case r[0] == "variant" && r[3] == "page:3":
			found["variant"] = r[4] == "16" && r[7] == "8"
		case r[0] == "source" && r[2] == "referrer":
			found["source"] = r[3] == "news.example.com" && r[4] == "1250"
		}
	}
	for _, k := range []string{"total", "variant", "source"} {
		if !found[k] {
			t.Errorf("CSV: no right %s row:\n%s", k, body)
		}
	}
}

func TestStatsEmptyRangeAndErrors(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	resp, body := fx.b.get(filePath(fx.file) + "/stats?from=2026-01-01&to=2026-01-07")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("empty range: %d", resp.StatusCode)
	}
	if !strings.Contains(body, "No visits in this range") || strings.Contains(body, "<polyline") {
		t.Errorf("an empty range draws lines or does not say it is empty:\n%s", body)
	}
	if !strings.Contains(body, "1 Jan 2026 to 7 Jan 2026") {
		t.Errorf("the range is not named")
	}

	for _, q := range []string{"interval=week", "from=yesterday", "from=2026-02-01&to=2026-01-01", "from=2020-01-01&to=2026-01-01"} {
		for _, path := range []string{filePath(fx.file) + "/stats", "/stats", filePath(fx.file) + "/stats.csv", "/stats.csv"} {
			resp, body := fx.b.get(path + "?" + q)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `class="alert alert-error"`) && !strings.Contains(path, ".csv") {
				t.Errorf("GET %s?%s: %d, want 400 with the message", path, q, resp.StatusCode)
			}
		}
	}
	_, body = fx.b.get("/stats?interval=week")
	if !strings.Contains(body, "interval is &#34;day&#34; or &#34;hour&#34;") {
		t.Errorf("the range's error is not shown:\n%s", body)
	}
}

func TestStatsOtherAccount(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	e := fx.e
	other := e.member("b@example.com", fileframe.PlanAgency)
	theirs := e.file(other, "their-secret-plans.pdf", []byte("%PDF theirs"))
	e.addStats(statsBatch(theirs.ID, time.Now(), statsVisits{variant: fileframe.VariantDefault, views: 7, visitors: 3}))
	for _, path := range []string{filePath(theirs) + "/stats", filePath(theirs) + "/stats.csv", "/files/f_NoSuchFile00000/stats"} {
		if resp, _ := fx.b.get(path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
	for _, path := range []string{filePath(theirs) + "/tests", filePath(theirs) + "/tests/ab_AAAAAAAAAAAAAAAA/end"} {
		if resp, _ := fx.post(path, url.Values{"revision": {"1", "2"}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", path, resp.StatusCode)
		}
	}
	// The overview lists the account's files only.
	e.addStats(statsBatch(fx.file.ID, time.Now(), statsVisits{variant: fileframe.VariantDefault, views: 5, visitors: 2, converted: 1}))
	resp, body := fx.b.get("/stats")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, fx.file.Name) || strings.Contains(body, theirs.Name) {
		t.Errorf("overview: %d, want %s and not %s:\n%s", resp.StatusCode, fx.file.Name, theirs.Name, body)
	}
	if !strings.Contains(body, `href="`+filePath(fx.file)+`/stats"`) || !strings.Contains(body, `<a href="/stats" aria-current="page">Stats</a>`) {
		t.Errorf("overview: no link to the file's stats, or Stats is not the current page")
	}
	resp, body = fx.b.get("/stats.csv")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "file,,,"+string(fx.file.ID)+",5,") || strings.Contains(body, string(theirs.ID)) {
		t.Errorf("overview CSV: %d\n%s", resp.StatusCode, body)
	}
	// The file page and the list link to the stats.
	for _, path := range []string{"/files", filePath(fx.file)} {
		if _, body := fx.b.get(path); !strings.Contains(body, `href="`+filePath(fx.file)+`/stats"`) {
			t.Errorf("%s does not link to the file's stats", path)
		}
	}
}

func TestStatsPageTests(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanAgency)
	e := fx.e
	statsPath := filePath(fx.file) + "/stats"

	// No page yet: the panel says what a test needs.
	if _, body := fx.b.get(statsPath); !strings.Contains(testsSection(body), "This file has no custom page yet") {
		t.Errorf("a file without a page: the tests panel does not say so")
	}
	e.publishPages(fx.acct, fx.file, 2)

	// A draft-only page of another file is refused by the service.
	draft := e.file(fx.acct, "draft.pdf", []byte("%PDF draft"))
	for range 2 {
		if _, _, err := e.srv.svc.SavePage(context.Background(), fx.acct, draft, []byte(strings.Replace(validPage, "Thanks", "Hi"+draft.Name+time.Now().String(), 1)), service.PageMode{}); err != nil {
			t.Fatal(err)
		}
	}
	resp, body := fx.post(filePath(draft)+"/tests", url.Values{"revision": {"1", "2"}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "Publish the page first") {
		t.Errorf("a test of a draft: %d, want 409 with the message", resp.StatusCode)
	}

	for _, c := range []struct {
		name   string
		revs   []string
		status int
		msg    string
	}{
		{"one revision", []string{"1"}, http.StatusBadRequest, "2 to 4 different revisions"},
		{"none", nil, http.StatusBadRequest, "2 to 4 different revisions"},
		{"not a number", []string{"1", "two"}, http.StatusBadRequest, "Tick revisions"},
		{"missing revision", []string{"1", "9"}, http.StatusNotFound, "The page has no revision 9."},
	} {
		resp, body := fx.post(filePath(fx.file)+"/tests", url.Values{"revision": c.revs})
		if resp.StatusCode != c.status || !strings.Contains(testsSection(body), c.msg) {
			t.Errorf("%s: %d, want %d with %q", c.name, resp.StatusCode, c.status, c.msg)
		}
	}

	resp, _ = fx.post(filePath(fx.file)+"/tests", url.Values{"revision": {"1", "2"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != statsPath+"?done=test-started#tests" {
		t.Fatalf("start: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body = fx.post(filePath(fx.file)+"/tests", url.Values{"revision": {"1", "2"}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "already has a running test") {
		t.Errorf("a second test: %d, want 409 with the message", resp.StatusCode)
	}

	_, body = fx.b.get(statsPath + "?done=test-started")
	tests := testsSection(body)
	for _, want := range []string{"The test is running", "Collecting data", "Collecting: every variant needs 100 visitors", "Promote revision 1", "Promote revision 2", "End test"} {
		if !strings.Contains(body, want) {
			t.Errorf("running test: the page lacks %q", want)
		}
	}
	if strings.Contains(strings.ToLower(tests), ">winner") {
		t.Errorf("a collecting test names a winner")
	}
	running, err := e.store.RunningPageTest(context.Background(), fx.file.ID)
	if err != nil {
		t.Fatal(err)
	}

	// Enough visitors for a verdict: revision 1 converts 30%, revision 2 10%.
	e.addStats(statsBatch(fx.file.ID, time.Now(),
		statsVisits{variant: fileframe.PageVariant(1), test: running.ID, views: 500, downloads: 150, visitors: 500, converted: 150},
		statsVisits{variant: fileframe.PageVariant(2), test: running.ID, views: 500, downloads: 50, visitors: 500, converted: 50},
	))
	_, body = fx.b.get(statsPath)
	tests = testsSection(body)
	for _, want := range []string{"Winner: revision 1", "Revision 1 converts better", "30.0%", "10.0%", `class="btn btn-primary">Promote revision 1`} {
		if !strings.Contains(tests, want) {
			t.Errorf("a test with a winner: the panel lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`(\d+\.\d)% – (\d+\.\d)%`).FindStringSubmatch(tests); m == nil || m[1] >= "30.0" || m[2] <= "30.0" {
		t.Errorf("the interval of revision 1: %v, want one around 30%%", m)
	}

	// A promote that names no revision of the test is refused.
	end := filePath(fx.file) + "/tests/" + string(running.ID) + "/end"
	resp, body = fx.post(end, url.Values{"promote": {"7"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "promote names one of the test") {
		t.Errorf("promote 7: %d, want 400 with the message", resp.StatusCode)
	}
	// During the test /f/<slug> frames the visitor's variant; the page's
	// live revision is still 2.
	if p := e.page(fx.file); p.LatestRevision != 2 || p.LiveRevision != 2 {
		t.Errorf("before promoting: page %+v, want latest r2, live r2", p)
	}
	resp, _ = fx.post(end, url.Values{"promote": {"1"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != statsPath+"?done=test-promoted#tests" {
		t.Fatalf("promote: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	e.wantPage("after promoting revision 1", fx.file, 2, 1)
	_, body = fx.b.get(statsPath + "?done=test-promoted")
	if !strings.Contains(body, "revision 1 is published") || !strings.Contains(body, "Past tests") || !strings.Contains(body, "revision 1 promoted") {
		t.Errorf("after promoting: no notice or no past test:\n%s", testsSection(body))
	}
	resp, body = fx.post(end, url.Values{})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "The test ended at") {
		t.Errorf("ending an ended test: %d, want 409 with the message", resp.StatusCode)
	}
	resp, body = fx.post(filePath(fx.file)+"/tests/ab_AAAAAAAAAAAAAAAA/end", url.Values{})
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "The file has no test") {
		t.Errorf("ending an unknown test: %d, want 404 with the message", resp.StatusCode)
	}
}

func TestStatsTestsNeedAgency(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanFree)
	resp, _ := fx.post(filePath(fx.file)+"/tests", url.Values{"revision": {"1", "2"}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a Free account starts a test: %d, want 403", resp.StatusCode)
	}
}

func TestStatsChart(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var series []fileframe.StatRow
	for i := range 30 {
		series = append(series, fileframe.StatRow{At: day.AddDate(0, 0, i)})
	}
	c := statsChartOf(series, false, chartWide)
	if !c.Empty || len(c.Lines) != 0 || len(c.XTicks) == 0 || c.Summary != "No visits in this range." {
		t.Errorf("empty series: %+v, want Empty with x labels and no lines", c)
	}
	series[10].Views, series[10].Visitors, series[10].Downloads = 1234, 800, 90
	c = statsChartOf(series, false, chartWide)
	if c.Empty || len(c.Lines) != 3 {
		t.Fatalf("a series with views: %+v", c)
	}
	if got, want := c.YTicks[len(c.YTicks)-1].Label, "1.5k"; got != want {
		t.Errorf("top y label %q, want %q", got, want)
	}
	for _, tk := range c.YTicks {
		if tk.Pos < float64(c.Top)-0.01 || tk.Pos > float64(c.Bottom)+0.01 {
			t.Errorf("y tick %+v outside the plot %d..%d", tk, c.Top, c.Bottom)
		}
	}
	if n := len(c.XTicks); n < 2 || n > chartWide.xLabels || c.XTicks[0].Label != "1 Mar" {
		t.Errorf("x labels %+v", c.XTicks)
	}
	if !strings.Contains(c.Summary, "1,234 views") || !strings.Contains(c.Summary, "11 Mar") {
		t.Errorf("summary %q", c.Summary)
	}
	hourly := statsChartOf(series, true, chartNarrow)
	if len(hourly.Lines) != 2 || hourly.Lines[1].Name != "Downloads" {
		t.Errorf("hourly lines %+v, want views and downloads", hourly.Lines)
	}
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1k"}, {1260, "1.3k"}, {35000, "35k"}, {1_500_000, "1.5M"}} {
		if got := compactCount(c.n); got != c.want {
			t.Errorf("compactCount(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if got := formatCount(1234567); got != "1,234,567" {
		t.Errorf("formatCount: %q", got)
	}
}

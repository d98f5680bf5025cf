package service

import (
	"context"
	"crypto/rand"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Statistics and A/B tests of pages (issue 14), for the web app
// (app_stats.go), the API (api_stats.go) and MCP alike. The events
// themselves are counted by the web server (internal/web/stats.go) and
// written by the store.

// StatsRange is the time a report covers.
type StatsRange struct {
	From, To time.Time
	Hourly   bool
}

// Longest ranges of a report.
const (
	MaxStatsDays  = 400
	MaxHourlyDays = 31
	// DefaultStatsDays is the range of a report that names none.
	DefaultStatsDays = 30
)

// ParseStatsRange reads a report's range: from and to are dates
// (2026-11-01, whole UTC days, to included) or RFC 3339 times (to
// excluded); interval is "day" (the default) or "hour". Without from the
// range is the DefaultStatsDays days up to today, or the last 48 hours
// hourly.
func ParseStatsRange(from, to, interval string, now time.Time) (StatsRange, error) {
	var r StatsRange
	switch interval {
	case "", "day":
	case "hour":
		r.Hourly = true
	default:
		return r, fileframe.Errorf(fileframe.CodeInvalidField, `interval is "day" or "hour", not %q.`, interval)
	}
	var err error
	if r.To, err = parseStatsTime("to", to, true); err != nil {
		return r, err
	}
	if r.To.IsZero() {
		r.To = time.Unix(fileframe.DayStart(now)+86400, 0).UTC()
		if r.Hourly {
			r.To = time.Unix(fileframe.HourStart(now)+3600, 0).UTC()
		}
	}
	if r.From, err = parseStatsTime("from", from, false); err != nil {
		return r, err
	}
	if r.From.IsZero() {
		r.From = r.To.AddDate(0, 0, -DefaultStatsDays)
		if r.Hourly {
			r.From = r.To.Add(-48 * time.Hour)
		}
	}
	if !r.From.Before(r.To) {
		return r, fileframe.Errorf(fileframe.CodeInvalidField, "from must be before to.")
	}
	limit := MaxStatsDays
	if r.Hourly {
		limit = MaxHourlyDays
	}
	if r.To.Sub(r.From) > time.Duration(limit)*24*time.Hour {
		return r, fileframe.Errorf(fileframe.CodeInvalidField, "A report covers at most %d days (%s figures).", limit, map[bool]string{false: "daily", true: "hourly"}[r.Hourly])
	}
	return r, nil
}

func parseStatsTime(name, v string, end bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	bad := fileframe.Errorf(fileframe.CodeInvalidField, "%s is a date (2026-11-01) or an RFC 3339 time between the years 2000 and 2999, not %q.", name, v)
	t, err := time.Parse(time.DateOnly, v)
	if err == nil && end {
		t = t.AddDate(0, 0, 1)
	} else if err != nil {
		t, err = time.Parse(time.RFC3339, v)
	}
	if err != nil || t.Year() < 2000 || t.Year() > 2999 {
		return time.Time{}, bad
	}
	return t.UTC(), nil
}

// statsReportsAtOnce is how many statistics reports are read at once; a
// report of a long range over many files reads many rows, and the store's
// readers also serve the public pages. statsReportWait is how long a
// report waits for its turn before it is refused as busy.
const (
	statsReportsAtOnce = 2
	statsReportWait    = 10 * time.Second
)

// stats reads the report of q under the bound on reports at once.
func (s *Service) stats(ctx context.Context, q fileframe.StatQuery) (fileframe.StatReport, error) {
	wait, cancel := context.WithTimeout(ctx, statsReportWait)
	defer cancel()
	if err := s.reports.Acquire(wait, 1); err != nil {
		if ctx.Err() != nil {
			return fileframe.StatReport{}, ctx.Err()
		}
		return fileframe.StatReport{}, fileframe.Errorf(fileframe.CodeBusy,
			"The server is reading as many statistics reports as it may at once; try again in a few seconds.")
	}
	defer s.reports.Release(1)
	return s.store.Stats(ctx, q)
}

// FileStats returns the report of one of the account's files.
func (s *Service) FileStats(ctx context.Context, a fileframe.Account, id fileframe.FileID, r StatsRange) (fileframe.StatReport, error) {
	if !fileframe.LooksLikeFileID(string(id)) {
		return fileframe.StatReport{}, fileNotFound(id)
	}
	if _, err := s.OwnFile(ctx, a, id); err != nil {
		return fileframe.StatReport{}, err
	}
	return s.stats(ctx, fileframe.StatQuery{Account: a.ID, File: id, From: r.From, To: r.To, Hourly: r.Hourly})
}

// AccountStats returns the overview of all the account's files.
func (s *Service) AccountStats(ctx context.Context, a fileframe.Account, r StatsRange) (fileframe.StatReport, error) {
	return s.stats(ctx, fileframe.StatQuery{Account: a.ID, From: r.From, To: r.To, Hourly: r.Hourly})
}

// WriteStatsCSV writes a report as CSV: one row per bucket of its series,
// then one per variant, per source and per file, each naming its section
// in the first column, so that one file holds the whole report and a
// spreadsheet can filter it.
func WriteStatsCSV(w io.Writer, rep fileframe.StatReport) error {
	c := csv.NewWriter(w)
	num := func(n int64) string {
		if n < 0 {
			return ""
		}
		return strconv.FormatInt(n, 10)
	}
	row := func(section, at, key, value string, r fileframe.StatRow) []string {
		return []string{section, at, key, value, num(r.Views), num(r.Clicks), num(r.Downloads), num(r.Visitors), num(r.Converted), rateText(r)}
	}
	rows := [][]string{{"section", "time", "key", "value", "views", "clicks", "downloads", "visitors", "converted", "conversion"}}
	rows = append(rows, row("total", "", "", "", rep.Totals))
	for _, r := range rep.Series {
		rows = append(rows, row("series", r.At.Format(time.RFC3339), "", "", r))
	}
	for _, r := range rep.Variants {
		rows = append(rows, row("variant", "", string(r.Test), string(r.Variant), r))
	}
	for _, r := range rep.Sources {
		rows = append(rows, row("source", "", r.Dim, csvSafe(r.Value), r))
	}
	for _, r := range rep.Files {
		rows = append(rows, row("file", "", "", string(r.File), r))
	}
	if err := c.WriteAll(rows); err != nil {
		return err
	}
	return c.Error()
}

// csvSafe keeps a value a visitor chose (a referrer's host, a UTM value)
// from being read as a formula by a spreadsheet (CWE-1236).
func csvSafe(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

// rateText is the conversion of r as a fraction with four decimals, or ""
// without visitors.
func rateText(r fileframe.StatRow) string {
	if r.Visitors <= 0 {
		return ""
	}
	return strconv.FormatFloat(float64(r.Converted)/float64(r.Visitors), 'f', 4, 64)
}

// A/B tests.

// MinTestVisitors is how many visitors every variant needs before a test's
// variants are compared at all.
const MinTestVisitors = 100

// WinnerConfidence is the confidence (1 - p, adjusted for the number of
// comparisons) at which a test names a winner: 99%, stricter than the
// usual 95% because owners look at a running test again and again, and
// every look is another chance for noise to cross a line.
const WinnerConfidence = 0.99

// TestReport is a test with its variants' figures and what they support.
type TestReport struct {
	Test     fileframe.PageTest
	Variants []VariantResult
	// Leader is the revision converting best so far (0 before any
	// visitor); Winner is set only when the data supports it (Verdict
	// "winner").
	Leader, Winner int
	// Confidence is 1 minus the adjusted p-value of the leader against
	// its closest rival; 0 while collecting.
	Confidence float64
	// Verdict is "collecting" (a variant has fewer than MinTestVisitors),
	// "no_winner_yet" or "winner".
	Verdict   string
	Statement string
}

// VariantResult is one revision's figures during a test.
type VariantResult struct {
	Revision int
	fileframe.StatCounts
	Visitors, Converted int64
	// Rate is Converted/Visitors; Low and High its 95% Wilson interval.
	Rate, Low, High float64
}

// StartPageTest starts an A/B test of revisions (2 to MaxTestVariants, each
// a stored revision of the file's page) on one of the account's files, whose
// page must be published: visitors of the link then see one of them each.
func (s *Service) StartPageTest(ctx context.Context, a fileframe.Account, id fileframe.FileID, revisions []int) (fileframe.PageTest, error) {
	if err := customPages(a); err != nil {
		return fileframe.PageTest{}, err
	}
	if !fileframe.LooksLikeFileID(string(id)) {
		return fileframe.PageTest{}, fileNotFound(id)
	}
	f, err := s.OwnFile(ctx, a, id)
	if err != nil {
		return fileframe.PageTest{}, err
	}
	revs := slices.Clone(revisions)
	slices.Sort(revs)
	revs = slices.Compact(revs)
	if len(revs) != len(revisions) || len(revs) < 2 || len(revs) > fileframe.MaxTestVariants {
		return fileframe.PageTest{}, fileframe.Errorf(fileframe.CodeInvalidField,
			"revisions names 2 to %d different revisions of the page.", fileframe.MaxTestVariants)
	}
	page, err := s.store.PageByFile(ctx, f.ID)
	if fileframe.IsNotFound(err) {
		return fileframe.PageTest{}, fileframe.Errorf(fileframe.CodeRevisionNotFound, "The file has no custom page to test.")
	} else if err != nil {
		return fileframe.PageTest{}, err
	}
	if !page.Published() {
		return fileframe.PageTest{}, fileframe.Errorf(fileframe.CodeTestNeedsLivePage,
			"Publish the page first: a test shows its variants in place of the live page.")
	}
	for _, n := range revs {
		r, err := s.store.Revision(ctx, f.ID, n)
		if fileframe.IsNotFound(err) {
			return fileframe.PageTest{}, fileframe.Errorf(fileframe.CodeRevisionNotFound, "The page has no revision %d.", n)
		} else if err != nil {
			return fileframe.PageTest{}, err
		}
		// Every variant is shown to visitors: it must pass the page rules
		// as they are now, as publishing it would.
		if _, err := s.CheckPage(ctx, r.HTML); err != nil {
			return fileframe.PageTest{}, fileframe.Errorf(fileframe.CodeHTMLInvalid,
				"Revision %d breaks the page rules as they are now, so it cannot be shown; save it again as a new revision.", n)
		}
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	t := fileframe.PageTest{
		ID: fileframe.NewTestID(), FileID: f.ID, AccountID: a.ID, Revisions: revs, Secret: secret, StartedAt: s.now().UTC(),
	}
	if err := s.store.CreatePageTest(ctx, t); err != nil {
		if fileframe.ErrorCode(err) == fileframe.ECONFLICT {
			return fileframe.PageTest{}, fileframe.Errorf(fileframe.CodeTestRunning,
				"The file already has a running test; end it first.")
		}
		return fileframe.PageTest{}, err
	}
	s.changed()
	return t, nil
}

// PageTests returns the reports of the file's tests, newest first.
func (s *Service) PageTests(ctx context.Context, a fileframe.Account, id fileframe.FileID) ([]TestReport, error) {
	if !fileframe.LooksLikeFileID(string(id)) {
		return nil, fileNotFound(id)
	}
	f, err := s.OwnFile(ctx, a, id)
	if err != nil {
		return nil, err
	}
	tests, err := s.store.PageTests(ctx, f.ID)
	if err != nil {
		return nil, err
	}
	reports := make([]TestReport, 0, len(tests))
	for _, t := range tests {
		rep, err := s.testReport(ctx, a, t)
		if err != nil {
			return nil, err
		}
		reports = append(reports, rep)
	}
	return reports, nil
}

// PageTest returns the report of one of the file's tests.
func (s *Service) PageTest(ctx context.Context, a fileframe.Account, id fileframe.FileID, test fileframe.TestID) (TestReport, error) {
	reports, err := s.PageTests(ctx, a, id)
	if err != nil {
		return TestReport{}, err
	}
	for _, r := range reports {
		if r.Test.ID == test {
			return r, nil
		}
	}
	return TestReport{}, testNotFound(test)
}

func testNotFound(id fileframe.TestID) error {
	return fileframe.Errorf(fileframe.CodeTestNotFound, "The file has no test %q.", id)
}

// EndPageTest ends the file's test. With promote (one of its revisions) it
// first publishes that revision, exactly as publishing it would
// (PublishRevision: checked against the page rules, page.published sent);
// without, the live revision is shown again as before the test.
func (s *Service) EndPageTest(ctx context.Context, a fileframe.Account, id fileframe.FileID, test fileframe.TestID, promote int) (TestReport, error) {
	rep, err := s.PageTest(ctx, a, id, test)
	if err != nil {
		return TestReport{}, err
	}
	if !rep.Test.Running() {
		return TestReport{}, fileframe.Errorf(fileframe.CodeTestEnded, "The test ended at %s.", rep.Test.EndedAt.Format(time.RFC3339))
	}
	var f fileframe.File
	if promote != 0 {
		if !slices.Contains(rep.Test.Revisions, promote) {
			return TestReport{}, fileframe.Errorf(fileframe.CodeInvalidField, "promote names one of the test's revisions (%s), not %d.",
				fileframe.FormatRevisions(rep.Test.Revisions), promote)
		}
		if err := customPages(a); err != nil {
			return TestReport{}, err
		}
		if f, err = s.OwnFile(ctx, a, id); err != nil {
			return TestReport{}, err
		}
		// What publishing checks, first: a revision that cannot be
		// published ends nothing.
		r, err := s.store.Revision(ctx, f.ID, promote)
		if fileframe.IsNotFound(err) {
			return TestReport{}, fileframe.Errorf(fileframe.CodeRevisionNotFound, "The page has no revision %d any more.", promote)
		} else if err != nil {
			return TestReport{}, err
		}
		if _, err := s.CheckPage(ctx, r.HTML); err != nil {
			return TestReport{}, err
		}
	}
	// Ending is the one atomic step: of requests racing to end the test,
	// one ends it and only that one publishes its revision; the others
	// are test_ended and change nothing.
	t, err := s.store.EndPageTest(ctx, test, promote, s.now())
	if fileframe.IsNotFound(err) {
		return TestReport{}, fileframe.Errorf(fileframe.CodeTestEnded, "The test has ended already.")
	} else if err != nil {
		return TestReport{}, err
	}
	s.changed()
	if promote != 0 {
		if _, err := s.PublishRevision(ctx, a, f, promote); err != nil {
			return TestReport{}, fmt.Errorf("the test ended, but publishing revision %d failed: %w", promote, err)
		}
	}
	return s.testReport(ctx, a, t)
}

// testReport adds the figures of t's time to it.
func (s *Service) testReport(ctx context.Context, a fileframe.Account, t fileframe.PageTest) (TestReport, error) {
	to := t.EndedAt
	if to.IsZero() {
		to = s.now()
	}
	// Days are the unit of unique visitors: the report covers every day
	// the test ran; only events counted under this test are in it.
	stats, err := s.stats(ctx, fileframe.StatQuery{
		Account: a.ID, File: t.FileID, Test: t.ID,
		From: t.StartedAt, To: time.Unix(fileframe.DayStart(to)+86400, 0),
	})
	if err != nil {
		return TestReport{}, err
	}
	rep := TestReport{Test: t}
	for _, n := range t.Revisions {
		v := VariantResult{Revision: n}
		for _, r := range stats.Variants {
			if r.Variant.Revision() == n {
				v.StatCounts.Add(r.StatCounts)
				v.Visitors += r.Visitors
				v.Converted += r.Converted
			}
		}
		v.Rate, v.Low, v.High = wilson(v.Converted, v.Visitors)
		rep.Variants = append(rep.Variants, v)
	}
	judge(&rep)
	return rep, nil
}

// wilson returns c/n and its 95% Wilson score interval.
func wilson(c, n int64) (rate, low, high float64) {
	if n <= 0 {
		return 0, 0, 0
	}
	const z = 1.959963984540054
	p, nf := float64(c)/float64(n), float64(n)
	d := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / d
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	return p, math.Max(0, mid-half), math.Min(1, mid+half)
}

// twoProportionP is the two-sided p-value of the pooled two-proportion z
// test of c1/n1 against c2/n2.
func twoProportionP(c1, n1, c2, n2 int64) float64 {
	p := float64(c1+c2) / float64(n1+n2)
	se := math.Sqrt(p * (1 - p) * (1/float64(n1) + 1/float64(n2)))
	if se == 0 {
		return 1
	}
	z := math.Abs(float64(c1)/float64(n1)-float64(c2)/float64(n2)) / se
	return math.Erfc(z / math.Sqrt2)
}

// judge sets what rep's figures support: the leader is compared with every
// other variant, each p-value multiplied by the number of comparisons
// (Bonferroni), and named the winner only when every comparison reaches
// WinnerConfidence.
func judge(rep *TestReport) {
	vs := rep.Variants
	pct := func(v VariantResult) string { return strconv.FormatFloat(v.Rate*100, 'f', 1, 64) + "%" }
	leader := -1
	for i, v := range vs {
		if v.Visitors > 0 && (leader < 0 || v.Rate > vs[leader].Rate) {
			leader = i
		}
	}
	if leader >= 0 {
		rep.Leader = vs[leader].Revision
	}
	var short []string
	for _, v := range vs {
		if v.Visitors < MinTestVisitors {
			short = append(short, fmt.Sprintf("revision %d has %d", v.Revision, v.Visitors))
		}
	}
	if len(short) > 0 {
		rep.Verdict = "collecting"
		rep.Statement = fmt.Sprintf("Collecting: every variant needs %d visitors before they are compared (%s).",
			MinTestVisitors, strings.Join(short, ", "))
		return
	}
	worst, rival := 0.0, -1
	for i, v := range vs {
		if i == leader {
			continue
		}
		p := math.Min(1, twoProportionP(vs[leader].Converted, vs[leader].Visitors, v.Converted, v.Visitors)*float64(len(vs)-1))
		if rival < 0 || p > worst {
			worst, rival = p, i
		}
	}
	rep.Confidence = 1 - worst
	conf := strconv.FormatFloat(rep.Confidence*100, 'f', 1, 64) + "%"
	if rep.Confidence >= WinnerConfidence && vs[leader].Rate > vs[rival].Rate {
		rep.Verdict, rep.Winner = "winner", vs[leader].Revision
		rep.Statement = fmt.Sprintf("Revision %d converts better: %s against %s for revision %d (confidence %s). Promote it to publish it.",
			vs[leader].Revision, pct(vs[leader]), pct(vs[rival]), vs[rival].Revision, conf)
		return
	}
	rep.Verdict = "no_winner_yet"
	rep.Statement = fmt.Sprintf("No winner yet: revision %d leads with %s against %s for revision %d, but a difference this size arises by chance %.0f%% of the time (a winner needs %.0f%% confidence). Keep the test running.",
		vs[leader].Revision, pct(vs[leader]), pct(vs[rival]), vs[rival].Revision, worst*100, WinnerConfidence*100)
}

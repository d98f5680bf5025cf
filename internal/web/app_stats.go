package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// The owner's view of statistics (issue 14): a file's stats page with its
// A/B tests, the account's overview, and both as CSV. Every plan sees its
// figures; starting a test needs custom pages (Agency), as publishing does.
// The figures come from the service's use cases (service/stats.go), the
// same the API and MCP call; the chart is drawn on the server
// (app_stats_chart.go).

// statsPage is the data of app_stats.html (a file, File set) and of
// app_stats_overview.html (the account).
type statsPage struct {
	appPage
	File *fileRow
	// Ranges are the range links; From, To and Hourly fill the custom
	// range form; Range says in words what the figures cover.
	Ranges []statsRangeLink
	From   string
	To     string
	Hourly bool
	Range  string
	CSV    string
	// Shown: the range was read and the figures are loaded (not after a
	// refused range, whose message is Errors["range"]).
	Shown  bool
	Totals statsTotals
	// Charts are the same chart drawn wide and narrow (chartLayout).
	Charts   []statsChart
	Variants statsTable
	Sources  []statsSourceGroup
	Files    statsTable
	Tests    *testsPanel
}

// statsRangeLink is one of the preset ranges.
type statsRangeLink struct {
	Label, URL string
	Current    bool
}

// statsTotals are a report's totals, ready to show.
type statsTotals struct {
	Views, Visitors, Clicks, Downloads, Conversion string
}

// statsTable is the table of variants or of files; ID names its heading.
type statsTable struct {
	ID, Head string
	Rows     []statsRow
}

// statsRow is a variant, a file or a source with its figures.
type statsRow struct {
	Name, URL                                      string
	Views, Visitors, Clicks, Downloads, Conversion string
}

// statsSourceGroup is one source dimension's top values.
type statsSourceGroup struct {
	Dim, Title string
	Rows       []statsRow
}

// statsDimTitles name the source dimensions (fileframe.StatDims).
var statsDimTitles = map[string]string{
	fileframe.DimReferrer:    "Referrers",
	fileframe.DimUTMSource:   "UTM sources",
	fileframe.DimUTMMedium:   "UTM mediums",
	fileframe.DimUTMCampaign: "UTM campaigns",
	fileframe.DimDevice:      "Devices",
}

// statsNotices are the sentences shown after a test form, by the "done"
// query parameter; %d is the revision the store says was promoted.
var statsNotices = map[string]string{
	"test-started":  "The test is running: each visitor of the link now sees one of the revisions, always the same one.",
	"test-ended":    "The test has ended. Visitors see the published revision again.",
	"test-promoted": "The test has ended and revision %d is published: every visitor of the link sees it now.",
}

// variantName is how the pages name a variant.
func variantName(v fileframe.Variant) string {
	if n := v.Revision(); n > 0 {
		return "Revision " + strconv.Itoa(n)
	}
	if name, ok := strings.CutPrefix(string(v), "template:"); ok {
		return "Template " + name
	}
	if v == fileframe.VariantDefault {
		return "Default page"
	}
	return string(v)
}

// sourceName is how the pages name a value of a source dimension.
func sourceName(dim, value string) string {
	switch {
	case value == fileframe.ReferrerNone && dim == fileframe.DimReferrer:
		return "Direct or unknown"
	case value == fileframe.ReferrerOther:
		return "Others"
	case value == "":
		return "(none)"
	case dim == fileframe.DimDevice && value != "":
		return strings.ToUpper(value[:1]) + value[1:]
	}
	return value
}

// conversion is converted/visitors as a percentage, "—" without visitors.
func conversion(converted, visitors int64) string {
	if visitors <= 0 {
		return "—"
	}
	return percent(float64(converted) / float64(visitors))
}

func percent(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + "%" }

// visitorCount shows a count of visitors; hourly rows have none (-1).
func visitorCount(n int64) string {
	if n < 0 {
		return "—"
	}
	return formatCount(n)
}

func statsRowOf(name, u string, r fileframe.StatRow) statsRow {
	return statsRow{Name: name, URL: u, Views: formatCount(r.Views), Visitors: visitorCount(r.Visitors), Clicks: formatCount(r.Clicks),
		Downloads: formatCount(r.Downloads), Conversion: conversion(r.Converted, r.Visitors)}
}

// statsQuery is the range's query string, read back in a canonical form
// (only from, to and interval), for the CSV link and the range links.
func statsQuery(from, to, interval string) string {
	v := url.Values{}
	for k, s := range map[string]string{"from": from, "to": to, "interval": interval} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// newStatsPage reads the range of the request into a page whose links go
// to base (the page's path): the preset links, the form's values, and the
// range itself. A refused range is the page's Errors["range"].
func (s *Server) newStatsPage(r *http.Request, user *signedIn, title, base string) (statsPage, service.StatsRange, bool) {
	p := statsPage{appPage: s.newAppPage(title, user)}
	p.Styles = append(p.Styles, appAssetURL("app_stats.css"))
	now := s.now()
	q := r.URL.Query()
	from, to, interval := q.Get("from"), q.Get("to"), q.Get("interval")
	rng, err := service.ParseStatsRange(from, to, interval, now)
	today := time.Unix(fileframe.DayStart(now), 0).UTC()
	days := func(n int) (string, string) {
		return today.AddDate(0, 0, 1-n).Format(time.DateOnly), today.Format(time.DateOnly)
	}
	for _, l := range []struct {
		label, from, to, interval string
	}{
		{label: "Last 48 hours", interval: "hour"},
		{label: "Last 7 days"},
		{label: "Last 30 days"},
		{label: "Last 90 days"},
	} {
		switch l.label {
		case "Last 7 days":
			l.from, l.to = days(7)
		case "Last 90 days":
			l.from, l.to = days(90)
		}
		preset, _ := service.ParseStatsRange(l.from, l.to, l.interval, now)
		p.Ranges = append(p.Ranges, statsRangeLink{Label: l.label, URL: base + statsQuery(l.from, l.to, l.interval),
			Current: err == nil && preset == rng})
	}
	if err != nil {
		p.Errors["range"] = fileframe.ErrorMessage(err)
		p.From, p.To, p.Hourly = from, to, interval == "hour"
		return p, rng, false
	}
	p.Shown, p.Hourly = true, rng.Hourly
	p.From, p.To = rng.From.Format(time.DateOnly), rng.To.Add(-time.Second).Format(time.DateOnly)
	p.CSV = base + ".csv" + statsQuery(from, to, interval)
	if rng.Hourly {
		p.Range = "Hourly, " + rng.From.Format("2 Jan 15:04") + " to " + rng.To.Format("2 Jan 2006 15:04") + " UTC"
	} else {
		p.Range = statsDay(rng.From) + " to " + statsDay(rng.To.Add(-time.Second)) + " (UTC days)"
	}
	return p, rng, true
}

// fill puts a report's figures into the page.
func (p *statsPage) fill(rep fileframe.StatReport, hourly bool) {
	t := rep.Totals
	p.Totals = statsTotals{Views: formatCount(t.Views), Visitors: visitorCount(t.Visitors), Clicks: formatCount(t.Clicks),
		Downloads: formatCount(t.Downloads), Conversion: conversion(t.Converted, t.Visitors)}
	p.Charts = []statsChart{statsChartOf(rep.Series, hourly, chartWide), statsChartOf(rep.Series, hourly, chartNarrow)}
	p.Variants = statsTable{ID: "variants-title", Head: "Page"}
	p.Files = statsTable{ID: "files-title", Head: "File"}
	// One row per variant: the report keeps a variant's figures during a
	// test apart from the rest; the tests panel shows those.
	byVariant := map[fileframe.Variant]*fileframe.StatRow{}
	var order []fileframe.Variant
	for _, r := range rep.Variants {
		v := byVariant[r.Variant]
		if v == nil {
			v = &fileframe.StatRow{Variant: r.Variant}
			byVariant[r.Variant] = v
			order = append(order, r.Variant)
		}
		v.StatCounts.Add(r.StatCounts)
		v.Visitors += r.Visitors
		v.Converted += r.Converted
	}
	for _, v := range order {
		p.Variants.Rows = append(p.Variants.Rows, statsRowOf(variantName(v), "", *byVariant[v]))
	}
	for _, dim := range fileframe.StatDims {
		g := statsSourceGroup{Dim: dim, Title: statsDimTitles[dim]}
		for _, r := range rep.Sources {
			if r.Dim == dim {
				g.Rows = append(g.Rows, statsRowOf(sourceName(dim, r.Value), "", r))
			}
		}
		if len(g.Rows) > 0 {
			p.Sources = append(p.Sources, g)
		}
	}
}

// statsURL is the address of f's stats page with a query (and fragment).
func statsURL(f fileframe.File, query string) string { return fileURL(f, "/stats"+query) }

// fileStats serves GET /files/{id}/stats.
func (s *Server) fileStats(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.ownFile(w, r, user)
	if !ok {
		return
	}
	s.renderFileStats(w, r, user, f, nil, nil)
}

// renderFileStats renders f's stats page; testErr, when not nil, is a
// refusal of a test form, shown in the tests panel with its status, and
// sent the revisions that form ticked.
func (s *Server) renderFileStats(w http.ResponseWriter, r *http.Request, user *signedIn, f fileframe.File, sent []string, testErr error) {
	ctx := r.Context()
	p, rng, ok := s.newStatsPage(r, user, "Stats: "+f.Name, statsURL(f, ""))
	p.Styles = append([]string{appAssetURL("app_files.css")}, p.Styles...)
	row := s.newFileRow(f)
	p.File = &row
	status := http.StatusOK
	if ok {
		rep, err := s.svc.FileStats(ctx, user.account, f.ID, rng)
		if s.failed(w, r, user, err, fileGone) {
			return
		}
		p.fill(rep, rng.Hourly)
	} else {
		status = http.StatusBadRequest
	}
	var err error
	if p.Tests, err = s.testsPanelFor(r, user, f, sent); err != nil {
		s.appError(w, r, user, err)
		return
	}
	if testErr != nil {
		_, k := kindOf(testErr)
		status = k.status
		p.Errors["test"] = fileframe.ErrorMessage(testErr)
	}
	if msg, ok := statsNotices[r.URL.Query().Get("done")]; ok && testErr == nil {
		p.Notice = msg
		if strings.Contains(msg, "%d") {
			promoted := 0
			if len(p.Tests.Past) > 0 {
				promoted = p.Tests.Past[0].Promoted
			}
			p.Notice = fmt.Sprintf(msg, promoted)
		}
	}
	s.renderApp(w, r, status, "app_stats.html", p)
}

// fileStatsCSV serves GET /files/{id}/stats.csv: the report of the same
// range as CSV (service.WriteStatsCSV).
func (s *Server) fileStatsCSV(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.ownFile(w, r, user)
	if !ok {
		return
	}
	rng, ok := s.statsCSVRange(w, r, user)
	if !ok {
		return
	}
	rep, err := s.svc.FileStats(r.Context(), user.account, f.ID, rng)
	if s.failed(w, r, user, err, fileGone) {
		return
	}
	if err := s.writeStatsCSV(w, r, "stats-"+string(f.ID), rng, rep); err != nil {
		s.appError(w, r, user, err)
	}
}

// accountStats serves GET /stats: the account's overview.
func (s *Server) accountStats(w http.ResponseWriter, r *http.Request, user *signedIn) {
	ctx := r.Context()
	p, rng, ok := s.newStatsPage(r, user, "Stats", "/stats")
	if !ok {
		s.renderApp(w, r, http.StatusBadRequest, "app_stats_overview.html", p)
		return
	}
	rep, err := s.svc.AccountStats(ctx, user.account, rng)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	p.fill(rep, rng.Hourly)
	files, err := s.store.FilesByAccount(ctx, user.account.ID)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	names := make(map[fileframe.FileID]fileframe.File, len(files))
	for _, f := range files {
		names[f.ID] = f.File
	}
	q := r.URL.Query()
	query := statsQuery(q.Get("from"), q.Get("to"), q.Get("interval"))
	for _, row := range rep.Files {
		f, ok := names[row.File]
		if !ok {
			// Deleted while the report was read: its counts go with it.
			continue
		}
		p.Files.Rows = append(p.Files.Rows, statsRowOf(f.Name, statsURL(f, query), row))
	}
	s.renderApp(w, r, http.StatusOK, "app_stats_overview.html", p)
}

// accountStatsCSV serves GET /stats.csv.
func (s *Server) accountStatsCSV(w http.ResponseWriter, r *http.Request, user *signedIn) {
	rng, ok := s.statsCSVRange(w, r, user)
	if !ok {
		return
	}
	rep, err := s.svc.AccountStats(r.Context(), user.account, rng)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	if err := s.writeStatsCSV(w, r, "stats", rng, rep); err != nil {
		s.appError(w, r, user, err)
	}
}

// statsCSVRange reads a CSV's range; a refused one gets the error page.
func (s *Server) statsCSVRange(w http.ResponseWriter, r *http.Request, user *signedIn) (service.StatsRange, bool) {
	q := r.URL.Query()
	rng, err := service.ParseStatsRange(q.Get("from"), q.Get("to"), q.Get("interval"), s.now())
	if err != nil {
		s.appError(w, r, user, err)
		return rng, false
	}
	return rng, true
}

package web

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// Statistics and A/B tests in the REST API (docs/api.md, "Statistics" and
// "A/B tests of pages"): each operation is its service use case, as the
// web app's (app_stats.go) and MCP's. A file's figures and tests are for
// any key that reaches the file (a page-bound key: its own); the account's
// overview needs a general key.

// apiStatRow is one row of a report. Visitors, converted and conversion
// are null where they are not kept (hourly buckets) or have no visitors.
type apiStatRow struct {
	At         *time.Time        `json:"at,omitempty"`
	Variant    fileframe.Variant `json:"variant,omitempty"`
	Revision   *int              `json:"revision,omitempty"`
	TestID     *fileframe.TestID `json:"testId,omitempty"`
	Value      *string           `json:"value,omitempty"`
	FileID     fileframe.FileID  `json:"fileId,omitempty"`
	Views      int64             `json:"views"`
	Clicks     int64             `json:"clicks"`
	Downloads  int64             `json:"downloads"`
	Visitors   *int64            `json:"visitors"`
	Converted  *int64            `json:"converted"`
	Conversion *float64          `json:"conversion"`
}

func apiStatRowOf(r fileframe.StatRow) apiStatRow {
	out := apiStatRow{Views: r.Views, Clicks: r.Clicks, Downloads: r.Downloads, FileID: r.File}
	if !r.At.IsZero() {
		at := r.At.UTC()
		out.At = &at
	}
	if r.Visitors >= 0 {
		v, c := r.Visitors, r.Converted
		out.Visitors, out.Converted = &v, &c
		if v > 0 {
			rate := float64(c) / float64(v)
			out.Conversion = &rate
		}
	}
	return out
}

// apiStats is the answer of the statistics endpoints.
type apiStats struct {
	OK       bool             `json:"ok"`
	FileID   fileframe.FileID `json:"fileId,omitempty"`
	From     time.Time        `json:"from"`
	To       time.Time        `json:"to"`
	Interval string           `json:"interval"`
	Totals   apiStatRow       `json:"totals"`
	Series   []apiStatRow     `json:"series"`
	Variants []apiStatRow     `json:"variants"`
	// Sources are the top values of each dimension (fileframe.StatDims),
	// most viewed first.
	Sources map[string][]apiStatRow `json:"sources"`
	// Files is the account overview's per-file figures ([] without any);
	// absent for a file.
	Files *[]apiStatRow `json:"files,omitempty"`
}

func apiStatsOf(id fileframe.FileID, rg service.StatsRange, rep fileframe.StatReport) apiStats {
	out := apiStats{OK: true, FileID: id, From: rg.From.UTC(), To: rg.To.UTC(), Interval: "day",
		Totals: apiStatRowOf(rep.Totals), Series: []apiStatRow{}, Variants: []apiStatRow{}, Sources: map[string][]apiStatRow{}}
	if rg.Hourly {
		out.Interval = "hour"
	}
	for _, r := range rep.Series {
		out.Series = append(out.Series, apiStatRowOf(r))
	}
	for _, r := range rep.Variants {
		row := apiStatRowOf(r)
		row.Variant = r.Variant
		if n := r.Variant.Revision(); n > 0 {
			row.Revision = &n
		}
		if r.Test != "" {
			t := r.Test
			row.TestID = &t
		}
		out.Variants = append(out.Variants, row)
	}
	for _, d := range fileframe.StatDims {
		out.Sources[d] = []apiStatRow{}
	}
	for _, r := range rep.Sources {
		row := apiStatRowOf(r)
		row.Visitors, row.Converted, row.Conversion = nil, nil, nil
		v := r.Value
		row.Value = &v
		out.Sources[r.Dim] = append(out.Sources[r.Dim], row)
	}
	if id == "" {
		files := []apiStatRow{}
		for _, r := range rep.Files {
			files = append(files, apiStatRowOf(r))
		}
		out.Files = &files
	}
	return out
}

// statsQuery reads a report's range and format from the query string.
func (s *Server) statsQuery(r *http.Request) (service.StatsRange, bool, error) {
	q := r.URL.Query()
	rg, err := service.ParseStatsRange(q.Get("from"), q.Get("to"), q.Get("interval"), s.cfg.Now())
	if err != nil {
		return rg, false, err
	}
	switch q.Get("format") {
	case "", "json":
		return rg, false, nil
	case "csv":
		return rg, true, nil
	default:
		return rg, false, fileframe.Errorf(fileframe.CodeInvalidField, `format is "json" (the default) or "csv", not %q.`, truncate(q.Get("format"), 20))
	}
}

// writeStatsCSV answers with rep as a CSV attachment named after name and
// the range (stats-f_…-20261101-20261130.csv), for the app and the API
// alike. It writes nothing when the CSV cannot be made, and returns why.
func (s *Server) writeStatsCSV(w http.ResponseWriter, r *http.Request, name string, rng service.StatsRange, rep fileframe.StatReport) error {
	var buf bytes.Buffer
	if err := service.WriteStatsCSV(&buf, rep); err != nil {
		return err
	}
	name += "-" + rng.From.Format("20060102") + "-" + rng.To.Add(-time.Second).Format("20060102") + ".csv"
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", contentDisposition(name))
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
	return nil
}

// apiFileStats is GET /api/files/{id}/stats: one file's figures.
func (s *Server) apiFileStats(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	rg, csv, err := s.statsQuery(r)
	if err != nil {
		return 0, nil, err
	}
	rep, err := s.svc.FileStats(r.Context(), c.caller.account, f.ID, rg)
	if err != nil {
		return 0, nil, err
	}
	if csv {
		return 0, nil, s.writeStatsCSV(w, r, "stats-"+string(f.ID), rg, rep)
	}
	return http.StatusOK, apiStatsOf(f.ID, rg, rep), nil
}

// apiAccountStats is GET /api/stats: the overview of every file.
func (s *Server) apiAccountStats(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	rg, csv, err := s.statsQuery(r)
	if err != nil {
		return 0, nil, err
	}
	rep, err := s.svc.AccountStats(r.Context(), c.caller.account, rg)
	if err != nil {
		return 0, nil, err
	}
	if csv {
		return 0, nil, s.writeStatsCSV(w, r, "stats", rg, rep)
	}
	return http.StatusOK, apiStatsOf("", rg, rep), nil
}

// apiVariant is one revision's figures in a test.
type apiVariant struct {
	Revision   int      `json:"revision"`
	Views      int64    `json:"views"`
	Clicks     int64    `json:"clicks"`
	Downloads  int64    `json:"downloads"`
	Visitors   int64    `json:"visitors"`
	Converted  int64    `json:"converted"`
	Conversion *float64 `json:"conversion"`
	// Low and High bound the conversion's 95% interval (Wilson).
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
}

// apiTest is a test with its report.
type apiTest struct {
	ID         fileframe.TestID `json:"testId"`
	FileID     fileframe.FileID `json:"fileId"`
	Revisions  []int            `json:"revisions"`
	Running    bool             `json:"running"`
	StartedAt  time.Time        `json:"startedAt"`
	EndedAt    *time.Time       `json:"endedAt"`
	Promoted   *int             `json:"promoted"`
	Verdict    string           `json:"verdict"`
	Statement  string           `json:"statement"`
	Confidence float64          `json:"confidence"`
	Leader     *int             `json:"leader"`
	Winner     *int             `json:"winner"`
	Variants   []apiVariant     `json:"variants"`
}

func apiTestOf(rep service.TestReport) apiTest {
	t := rep.Test
	out := apiTest{ID: t.ID, FileID: t.FileID, Revisions: t.Revisions, Running: t.Running(), StartedAt: t.StartedAt.UTC(),
		Verdict: rep.Verdict, Statement: rep.Statement, Confidence: rep.Confidence, Variants: []apiVariant{}}
	opt := func(n int) *int {
		if n == 0 {
			return nil
		}
		return &n
	}
	if !t.EndedAt.IsZero() {
		e := t.EndedAt.UTC()
		out.EndedAt = &e
	}
	out.Promoted, out.Leader, out.Winner = opt(t.Promoted), opt(rep.Leader), opt(rep.Winner)
	for _, v := range rep.Variants {
		av := apiVariant{Revision: v.Revision, Views: v.Views, Clicks: v.Clicks, Downloads: v.Downloads, Visitors: v.Visitors, Converted: v.Converted}
		if v.Visitors > 0 {
			rate, low, high := v.Rate, v.Low, v.High
			av.Conversion, av.Low, av.High = &rate, &low, &high
		}
		out.Variants = append(out.Variants, av)
	}
	return out
}

// testAnswer is the answer about one test.
type testAnswer struct {
	OK   bool    `json:"ok"`
	Test apiTest `json:"test"`
}

// testList is the answer of GET /api/files/{id}/tests.
type testList struct {
	OK    bool      `json:"ok"`
	Tests []apiTest `json:"tests"`
}

// apiStartTest is POST /api/files/{id}/tests with {"revisions": [3, 5]}.
func (s *Server) apiStartTest(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	o, err := parseJSONObject(c.body, false)
	if err != nil {
		return 0, nil, err
	}
	o.only("revisions")
	revs := o.positives("revisions", fileframe.MaxTestVariants+1)
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	t, err := s.svc.StartPageTest(r.Context(), c.caller.account, f.ID, revs)
	if err != nil {
		return 0, nil, err
	}
	rep, err := s.svc.PageTest(r.Context(), c.caller.account, f.ID, t.ID)
	if err != nil {
		return 0, nil, err
	}
	w.Header().Set("Location", "/api/files/"+string(f.ID)+"/tests/"+string(t.ID))
	return http.StatusCreated, testAnswer{OK: true, Test: apiTestOf(rep)}, nil
}

// apiListTests is GET /api/files/{id}/tests: the file's tests, newest first.
func (s *Server) apiListTests(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	reps, err := s.svc.PageTests(r.Context(), c.caller.account, f.ID)
	if err != nil {
		return 0, nil, err
	}
	out := testList{OK: true, Tests: []apiTest{}}
	for _, rep := range reps {
		out.Tests = append(out.Tests, apiTestOf(rep))
	}
	return http.StatusOK, out, nil
}

// pathTest is the file of the path's {id} (pathFile) and its {testId},
// checked for its shape.
func (s *Server) pathTest(r *http.Request, c apiCaller) (fileframe.File, fileframe.TestID, error) {
	f, err := s.pathFile(r, c)
	if err != nil {
		return f, "", err
	}
	id := fileframe.TestID(r.PathValue("testId"))
	if !id.Valid() {
		return f, "", fileframe.Errorf(fileframe.CodeTestNotFound, "There is no test %q.", truncate(string(id), 40))
	}
	return f, id, nil
}

// apiGetTest is GET /api/files/{id}/tests/{testId}.
func (s *Server) apiGetTest(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	f, id, err := s.pathTest(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	rep, err := s.svc.PageTest(r.Context(), c.caller.account, f.ID, id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, testAnswer{OK: true, Test: apiTestOf(rep)}, nil
}

// apiEndTest is POST /api/files/{id}/tests/{testId}/end with an optional
// {"promote": 5}.
func (s *Server) apiEndTest(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	f, id, err := s.pathTest(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	promote := 0
	if len(c.body) > 0 {
		o, err := parseJSONObject(c.body, true)
		if err != nil {
			return 0, nil, err
		}
		o.only("promote")
		promote = o.positive("promote")
		if err := o.err(); err != nil {
			return 0, nil, err
		}
	}
	rep, err := s.svc.EndPageTest(r.Context(), c.caller.account, f.ID, id, promote)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, testAnswer{OK: true, Test: apiTestOf(rep)}, nil
}

package web

import (
	"context"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// The statistics and A/B test tools of MCP (issue 14), registered in
// newMCPServer: thin adapters over the service's use cases
// (service/stats.go), as the app's stats page (app_stats.go) is.

type mcpStatsInput struct {
	FileID   string `json:"fileId" jsonschema:"The file whose statistics to read."`
	From     string `json:"from,omitempty" jsonschema:"First day (2026-11-01, UTC) or an RFC 3339 time; left out: 30 days before to (48 hours with interval hour)."`
	To       string `json:"to,omitempty" jsonschema:"Last day, included (2026-11-30), or an RFC 3339 time, excluded; left out: today (this hour with interval hour)."`
	Interval string `json:"interval,omitempty" jsonschema:"day (the default) or hour: the series' buckets; hourly reports cover at most 31 days and have no visitors."`
}

type mcpAccountStatsInput struct {
	From     string `json:"from,omitempty" jsonschema:"First day (2026-11-01, UTC) or an RFC 3339 time; left out: 30 days before to."`
	To       string `json:"to,omitempty" jsonschema:"Last day, included, or an RFC 3339 time, excluded; left out: today."`
	Interval string `json:"interval,omitempty" jsonschema:"day (the default) or hour."`
}

type mcpStartTestInput struct {
	FileID    string `json:"fileId" jsonschema:"The file whose custom page to test; its page must be published."`
	Revisions []int  `json:"revisions" jsonschema:"2 to 4 different revision numbers of the page (see list_revisions); each visitor sees one of them."`
}

type mcpEndTestInput struct {
	FileID  string `json:"fileId" jsonschema:"The file whose test this is."`
	TestID  string `json:"testId" jsonschema:"The test's id (ab_…, from start_page_test or page_tests)."`
	Promote int    `json:"promote,omitempty" jsonschema:"A revision of the test to publish as it ends; left out: the page's live revision is shown again."`
}

// mcpStatRow is one row of a report: a bucket of the series (at), a
// variant, a source (dim, value) or a file. visitors, converted and
// conversion are null where they are not kept (hourly buckets).
type mcpStatRow struct {
	At         *time.Time `json:"at,omitempty"`
	Variant    string     `json:"variant,omitempty"`
	TestID     string     `json:"testId,omitempty"`
	Dim        string     `json:"dim,omitempty"`
	Value      *string    `json:"value,omitempty"`
	FileID     string     `json:"fileId,omitempty"`
	Views      int64      `json:"views"`
	Clicks     int64      `json:"clicks"`
	Downloads  int64      `json:"downloads"`
	Visitors   *int64     `json:"visitors"`
	Converted  *int64     `json:"converted"`
	Conversion *float64   `json:"conversion"`
}

// mcpStatsAnswer is file_stats' and account_stats' answer.
type mcpStatsAnswer struct {
	OK       bool         `json:"ok"`
	From     time.Time    `json:"from"`
	To       time.Time    `json:"to"`
	Interval string       `json:"interval"`
	Totals   mcpStatRow   `json:"totals"`
	Series   []mcpStatRow `json:"series"`
	Variants []mcpStatRow `json:"variants,omitempty"`
	Sources  []mcpStatRow `json:"sources"`
	Files    []mcpStatRow `json:"files,omitempty"`
}

func mcpStatRowOf(r fileframe.StatRow, source bool) mcpStatRow {
	out := mcpStatRow{Variant: string(r.Variant), TestID: string(r.Test), Dim: r.Dim, FileID: string(r.File),
		Views: r.Views, Clicks: r.Clicks, Downloads: r.Downloads}
	if !r.At.IsZero() {
		at := r.At
		out.At = &at
	}
	if source {
		v := r.Value
		out.Value = &v
	}
	// Sources have no visitors of their own: only counts.
	if r.Visitors >= 0 && !source {
		v, c := r.Visitors, r.Converted
		out.Visitors, out.Converted = &v, &c
		if v > 0 {
			rate := float64(c) / float64(v)
			out.Conversion = &rate
		}
	}
	return out
}

func mcpStatsAnswerOf(rng service.StatsRange, rep fileframe.StatReport) mcpStatsAnswer {
	a := mcpStatsAnswer{OK: true, From: rng.From, To: rng.To, Interval: "day", Totals: mcpStatRowOf(rep.Totals, false),
		Series: []mcpStatRow{}, Sources: []mcpStatRow{}}
	if rng.Hourly {
		a.Interval = "hour"
	}
	for _, r := range rep.Series {
		a.Series = append(a.Series, mcpStatRowOf(r, false))
	}
	for _, r := range rep.Variants {
		a.Variants = append(a.Variants, mcpStatRowOf(r, false))
	}
	for _, r := range rep.Sources {
		a.Sources = append(a.Sources, mcpStatRowOf(r, true))
	}
	for _, r := range rep.Files {
		a.Files = append(a.Files, mcpStatRowOf(r, false))
	}
	return a
}

// fileStatsOp is file_stats.
func (s *Server) fileStatsOp(ctx context.Context, c apiCaller, in mcpStatsInput) (mcpStatsAnswer, error) {
	rng, err := service.ParseStatsRange(in.From, in.To, in.Interval, s.now())
	if err != nil {
		return mcpStatsAnswer{}, err
	}
	f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
	if err != nil {
		return mcpStatsAnswer{}, err
	}
	rep, err := s.svc.FileStats(ctx, c.account, f.ID, rng)
	if err != nil {
		return mcpStatsAnswer{}, err
	}
	return mcpStatsAnswerOf(rng, rep), nil
}

// accountStatsOp is account_stats.
func (s *Server) accountStatsOp(ctx context.Context, c apiCaller, in mcpAccountStatsInput) (mcpStatsAnswer, error) {
	if err := needGeneralKey(c, "The account's statistics"); err != nil {
		return mcpStatsAnswer{}, err
	}
	rng, err := service.ParseStatsRange(in.From, in.To, in.Interval, s.now())
	if err != nil {
		return mcpStatsAnswer{}, err
	}
	rep, err := s.svc.AccountStats(ctx, c.account, rng)
	if err != nil {
		return mcpStatsAnswer{}, err
	}
	return mcpStatsAnswerOf(rng, rep), nil
}

// mcpPageTest is a test with its figures and verdict (service.TestReport).
type mcpPageTest struct {
	ID        string             `json:"id"`
	FileID    string             `json:"fileId"`
	Revisions []int              `json:"revisions"`
	Running   bool               `json:"running"`
	StartedAt time.Time          `json:"startedAt"`
	EndedAt   *time.Time         `json:"endedAt"`
	Promoted  int                `json:"promoted,omitempty"`
	Variants  []mcpVariantResult `json:"variants"`
	// Leader converts best so far; Winner is set only with verdict winner.
	Leader     int     `json:"leader,omitempty"`
	Winner     int     `json:"winner,omitempty"`
	Confidence float64 `json:"confidence"`
	Verdict    string  `json:"verdict"`
	Statement  string  `json:"statement"`
}

// mcpVariantResult is one revision's figures in a test; low and high
// bound the 95% interval of rate.
type mcpVariantResult struct {
	Revision  int     `json:"revision"`
	Views     int64   `json:"views"`
	Clicks    int64   `json:"clicks"`
	Downloads int64   `json:"downloads"`
	Visitors  int64   `json:"visitors"`
	Converted int64   `json:"converted"`
	Rate      float64 `json:"rate"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
}

// mcpTestAnswer is start_page_test's and end_page_test's answer.
type mcpTestAnswer struct {
	OK bool `json:"ok"`
	mcpPageTest
}

// mcpTestList is page_tests' answer.
type mcpTestList struct {
	OK    bool          `json:"ok"`
	Tests []mcpPageTest `json:"tests"`
}

func mcpPageTestOf(r service.TestReport) mcpPageTest {
	t := r.Test
	out := mcpPageTest{ID: string(t.ID), FileID: string(t.FileID), Revisions: t.Revisions, Running: t.Running(),
		StartedAt: t.StartedAt, EndedAt: timeOrNil(t.EndedAt), Promoted: t.Promoted, Variants: []mcpVariantResult{},
		Leader: r.Leader, Winner: r.Winner, Confidence: r.Confidence, Verdict: r.Verdict, Statement: r.Statement}
	for _, v := range r.Variants {
		out.Variants = append(out.Variants, mcpVariantResult{Revision: v.Revision, Views: v.Views, Clicks: v.Clicks, Downloads: v.Downloads,
			Visitors: v.Visitors, Converted: v.Converted, Rate: v.Rate, Low: v.Low, High: v.High})
	}
	return out
}

// startTestOp is start_page_test.
func (s *Server) startTestOp(ctx context.Context, c apiCaller, in mcpStartTestInput) (mcpTestAnswer, error) {
	f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
	if err != nil {
		return mcpTestAnswer{}, err
	}
	t, err := s.svc.StartPageTest(ctx, c.account, f.ID, in.Revisions)
	if err != nil {
		return mcpTestAnswer{}, err
	}
	rep, err := s.svc.PageTest(ctx, c.account, f.ID, t.ID)
	return mcpTestAnswer{OK: true, mcpPageTest: mcpPageTestOf(rep)}, err
}

// pageTestsOp is page_tests.
func (s *Server) pageTestsOp(ctx context.Context, c apiCaller, in mcpFileInput) (mcpTestList, error) {
	f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
	if err != nil {
		return mcpTestList{}, err
	}
	reports, err := s.svc.PageTests(ctx, c.account, f.ID)
	out := mcpTestList{OK: true, Tests: []mcpPageTest{}}
	for _, r := range reports {
		out.Tests = append(out.Tests, mcpPageTestOf(r))
	}
	return out, err
}

// endTestOp is end_page_test.
func (s *Server) endTestOp(ctx context.Context, c apiCaller, in mcpEndTestInput) (mcpTestAnswer, error) {
	if in.Promote < 0 {
		return mcpTestAnswer{}, fileframe.Errorf(fileframe.CodeInvalidField, "promote is one of the test's revisions, or left out; got %d.", in.Promote)
	}
	f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
	if err != nil {
		return mcpTestAnswer{}, err
	}
	rep, err := s.svc.EndPageTest(ctx, c.account, f.ID, fileframe.TestID(in.TestID), in.Promote)
	if err != nil {
		return mcpTestAnswer{}, err
	}
	return mcpTestAnswer{OK: true, mcpPageTest: mcpPageTestOf(rep)}, nil
}

package web

import (
	"context"

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

// The answers are the REST API's (api_stats.go), so that an agent reads
// the same figures in the same shape on either surface.

// fileStatsOp is file_stats.
func (s *Server) fileStatsOp(ctx context.Context, c apiCaller, in mcpStatsInput) (apiStats, error) {
	rng, err := service.ParseStatsRange(in.From, in.To, in.Interval, s.now())
	if err != nil {
		return apiStats{}, err
	}
	f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
	if err != nil {
		return apiStats{}, err
	}
	rep, err := s.svc.FileStats(ctx, c.account, f.ID, rng)
	if err != nil {
		return apiStats{}, err
	}
	return apiStatsOf(f.ID, rng, rep), nil
}

// accountStatsOp is account_stats.
func (s *Server) accountStatsOp(ctx context.Context, c apiCaller, in mcpAccountStatsInput) (apiStats, error) {
	if err := needGeneralKey(c, "Reading the account's statistics"); err != nil {
		return apiStats{}, err
	}
	rng, err := service.ParseStatsRange(in.From, in.To, in.Interval, s.now())
	if err != nil {
		return apiStats{}, err
	}
	rep, err := s.svc.AccountStats(ctx, c.account, rng)
	if err != nil {
		return apiStats{}, err
	}
	return apiStatsOf("", rng, rep), nil
}

// startTestOp is start_page_test.
func (s *Server) startTestOp(ctx context.Context, c apiCaller, in mcpStartTestInput) (testAnswer, error) {
	f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
	if err != nil {
		return testAnswer{}, err
	}
	t, err := s.svc.StartPageTest(ctx, c.account, f.ID, in.Revisions)
	if err != nil {
		return testAnswer{}, err
	}
	rep, err := s.svc.PageTest(ctx, c.account, f.ID, t.ID)
	return testAnswer{OK: true, Test: apiTestOf(rep)}, err
}

// pageTestsOp is page_tests.
func (s *Server) pageTestsOp(ctx context.Context, c apiCaller, in mcpFileInput) (testList, error) {
	f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
	if err != nil {
		return testList{}, err
	}
	reports, err := s.svc.PageTests(ctx, c.account, f.ID)
	out := testList{OK: true, Tests: []apiTest{}}
	for _, r := range reports {
		out.Tests = append(out.Tests, apiTestOf(r))
	}
	return out, err
}

// endTestOp is end_page_test.
func (s *Server) endTestOp(ctx context.Context, c apiCaller, in mcpEndTestInput) (testAnswer, error) {
	if in.Promote < 0 {
		return testAnswer{}, fileframe.Errorf(fileframe.CodeInvalidField, "promote is one of the test's revisions, or left out; got %d.", in.Promote)
	}
	f, err := s.reachFile(ctx, c, fileframe.FileID(in.FileID))
	if err != nil {
		return testAnswer{}, err
	}
	rep, err := s.svc.EndPageTest(ctx, c.account, f.ID, fileframe.TestID(in.TestID), in.Promote)
	if err != nil {
		return testAnswer{}, err
	}
	return testAnswer{OK: true, Test: apiTestOf(rep)}, nil
}

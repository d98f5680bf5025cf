package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// A/B tests of a file's custom page, on its stats page (app_stats.html,
// section "tests"): the form that starts one, the running test's report
// with End and Promote, and the tests that ended. The verdict and its
// sentence are the service's (service.TestReport): the page never calls a
// revision better than the figures support.

// testsPanel is the tests section of the stats page.
type testsPanel struct {
	// Agency: the account may start tests (custom pages).
	Agency bool
	// Page is "none", "draft" or "published"; Live its live revision.
	Page    string
	Live    int
	Choices []revisionChoice
	Running *testView
	Past    []testView
	Max     int
	Min     int // visitors each variant needs before a comparison
}

// revisionChoice is a revision in the form that starts a test.
type revisionChoice struct {
	Number  int
	Saved   string
	Live    bool
	Checked bool
}

// testView is one test, ready to show.
type testView struct {
	ID               string
	Started, Ended   string
	Revisions        string // "r2, r3"
	Variants         []testVariantView
	Verdict          string // service.TestReport's
	VerdictLabel     string
	Statement        string
	Confidence       string
	Winner, Promoted int
	End              string // the End and Promote form's action
	ScaleMax         string // the interval chart's right end, "20%"
	ScaleW           int
}

// testVariantView is one revision's figures in a test.
type testVariantView struct {
	Revision                                  int
	Views, Visitors, Converted, Rate, Low, Hi string
	Winner, Live                              bool
	// X, XLow and XHigh place the rate and its interval on the interval
	// chart, in its user units (0 to intervalW).
	X, XLow, XHigh float64
}

// intervalW is the width of a variant's interval chart, in user units.
const intervalW = 200

var verdictLabels = map[string]string{
	"collecting":    "Collecting data",
	"no_winner_yet": "No winner yet",
	"winner":        "Winner",
}

// testViewOf shows a test's report; live is the page's live revision.
func testViewOf(f fileframe.File, rep service.TestReport, live int) testView {
	t := rep.Test
	v := testView{
		ID: string(t.ID), Started: appTime(t.StartedAt), Ended: appTime(t.EndedAt),
		Verdict: rep.Verdict, VerdictLabel: verdictLabels[rep.Verdict], Statement: rep.Statement,
		Winner: rep.Winner, Promoted: t.Promoted,
		End: fileURL(f, "/tests/"+url.PathEscape(string(t.ID))+"/end"), ScaleW: intervalW,
	}
	if rep.Verdict != "collecting" {
		v.Confidence = percent(rep.Confidence)
	}
	revs := make([]string, len(t.Revisions))
	for i, n := range t.Revisions {
		revs[i] = "r" + strconv.Itoa(n)
	}
	v.Revisions = strings.Join(revs, ", ")
	// The scale ends at the next 5% above the highest interval, so that
	// small rates do not sit squeezed at the left.
	top := 0.05
	for _, r := range rep.Variants {
		top = max(top, r.High)
	}
	top = min(1, float64(int(top*20+0.999))/20)
	v.ScaleMax = strconv.Itoa(int(top*100+0.5)) + "%"
	x := func(f float64) float64 { return float64(int(f/top*intervalW*10+0.5)) / 10 }
	for _, r := range rep.Variants {
		vv := testVariantView{Revision: r.Revision, Views: formatCount(r.Views), Visitors: formatCount(r.Visitors),
			Converted: formatCount(r.Converted), Winner: rep.Verdict == "winner" && r.Revision == rep.Winner, Live: r.Revision == live}
		if r.Visitors > 0 {
			vv.Rate, vv.Low, vv.Hi = percent(r.Rate), percent(r.Low), percent(r.High)
			vv.X, vv.XLow, vv.XHigh = x(r.Rate), x(r.Low), x(r.High)
		}
		v.Variants = append(v.Variants, vv)
	}
	return v
}

// testsPanelFor loads f's tests and page; sent are the revisions a
// refused form ticked, which it ticks again.
func (s *Server) testsPanelFor(r *http.Request, user *signedIn, f fileframe.File, sent []string) (*testsPanel, error) {
	ctx := r.Context()
	p := &testsPanel{Agency: user.account.Plan.CustomPages(), Page: "none", Max: fileframe.MaxTestVariants, Min: service.MinTestVisitors}
	page, err := s.store.PageByFile(ctx, f.ID)
	switch {
	case fileframe.IsNotFound(err):
	case err != nil:
		return nil, err
	default:
		p.Page, p.Live = "draft", page.LiveRevision
		if page.Published() {
			p.Page = "published"
		}
		revs, err := s.store.Revisions(ctx, f.ID)
		if err != nil {
			return nil, err
		}
		for _, rev := range revs {
			n := strconv.Itoa(rev.Number)
			checked := slices.Contains(sent, n)
			if sent == nil {
				checked = rev.Number == page.LiveRevision || rev.Number == page.LatestRevision
			}
			p.Choices = append(p.Choices, revisionChoice{Number: rev.Number, Saved: appTime(rev.CreatedAt), Live: rev.Number == page.LiveRevision, Checked: checked})
		}
	}
	reports, err := s.svc.PageTests(ctx, user.account, f.ID)
	if err != nil {
		return nil, err
	}
	for _, rep := range reports {
		v := testViewOf(f, rep, p.Live)
		if rep.Test.Running() {
			p.Running = &v
		} else {
			p.Past = append(p.Past, v)
		}
	}
	return p, nil
}

// testRefusals are the codes of the test forms' refusals that the stats
// page shows as a message; any other error gets the error page.
var testRefusals = []string{
	fileframe.CodeTestRunning, fileframe.CodeTestNeedsLivePage, fileframe.CodeRevisionNotFound,
	fileframe.CodeInvalidField, fileframe.CodeTestEnded, fileframe.CodeTestNotFound,
	fileframe.CodeHTMLInvalid, fileframe.CodeHTMLTooLarge, fileframe.CodePlanRequired,
}

// testRefused answers a test form's error: the stats page with the
// service's message in the tests panel, or the error page.
func (s *Server) testRefused(w http.ResponseWriter, r *http.Request, user *signedIn, f fileframe.File, err error, sent []string) {
	if !slices.Contains(testRefusals, fileframe.ErrorCode(err)) {
		s.failed(w, r, user, err, fileGone)
		return
	}
	if sent == nil {
		sent = []string{}
	}
	s.renderFileStats(w, r, user, f, sent, err)
}

// startTest serves POST /files/{id}/tests: the ticked revisions
// ("revision", 2 to fileframe.MaxTestVariants) become a running test.
func (s *Server) startTest(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	sent := r.PostForm["revision"]
	var revs []int
	for _, v := range sent {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			s.testRefused(w, r, user, f, fileframe.Errorf(fileframe.CodeInvalidField, "Tick revisions of the list to test."), sent)
			return
		}
		revs = append(revs, n)
	}
	if _, err := s.svc.StartPageTest(r.Context(), user.account, f.ID, revs); err != nil {
		s.testRefused(w, r, user, f, err, sent)
		return
	}
	appRedirect(w, r, statsURL(f, "?done=test-started#tests"))
}

// endTest serves POST /files/{id}/tests/{testId}/end: "End test" (promote
// empty) or "Promote revision N" (promote=N), which publishes N first.
func (s *Server) endTest(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	promote := 0
	if v := r.PostFormValue("promote"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			s.testRefused(w, r, user, f, fileframe.Errorf(fileframe.CodeInvalidField, "promote names one of the test's revisions, not %q.", v), nil)
			return
		}
		promote = n
	}
	if _, err := s.svc.EndPageTest(r.Context(), user.account, f.ID, fileframe.TestID(r.PathValue("testId")), promote); err != nil {
		s.testRefused(w, r, user, f, err, nil)
		return
	}
	done := "test-ended"
	if promote != 0 {
		done = "test-promoted"
	}
	appRedirect(w, r, statsURL(f, "?done="+done+"#tests"))
}

package web

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestMCPStats reads a file's and the account's figures through
// file_stats and account_stats, as the stats pages show them.
func TestMCPStats(t *testing.T) {
	fx := newAPIFixture(t)
	e := fx.e
	cs := mustConnect(t, e, fx.general)
	e.addStats(statsBatch(fx.file.ID, time.Now(),
		statsVisits{variant: fileframe.PageVariant(2), views: 40, downloads: 6, visitors: 20, converted: 5}))
	e.addStats(statsBatch(fx.file2.ID, time.Now(), statsVisits{variant: fileframe.VariantDefault, views: 3, visitors: 1}))

	got := toolOK(t, "file_stats", callTool(t, cs, "file_stats", map[string]any{"fileId": string(fx.file.ID)}))
	totals := got["totals"].(map[string]any)
	if totals["views"] != float64(40) || totals["visitors"] != float64(20) || totals["converted"] != float64(5) || totals["conversion"] != 0.25 {
		t.Errorf("file_stats totals: %v", totals)
	}
	if series := got["series"].([]any); len(series) != 30 || got["interval"] != "day" {
		t.Errorf("file_stats: %d buckets of %v, want the 30 days", len(series), got["interval"])
	}
	if v := got["variants"].([]any); len(v) != 1 || v[0].(map[string]any)["variant"] != "page:2" {
		t.Errorf("file_stats variants: %v", v)
	}
	if s := got["sources"].(map[string]any); len(s[fileframe.DimReferrer].([]any)) != 1 || s[fileframe.DimReferrer].([]any)[0].(map[string]any)["value"] != "news.example.com" {
		t.Errorf("file_stats sources: %v", s)
	}
	hourly := toolOK(t, "file_stats", callTool(t, cs, "file_stats", map[string]any{"fileId": string(fx.file.ID), "interval": "hour"}))
	if s := hourly["series"].([]any); len(s) != 48 || s[0].(map[string]any)["visitors"] != nil {
		t.Errorf("hourly file_stats: %d buckets, first %v; want 48 without visitors", len(s), s[0])
	}
	toolProblem(t, "file_stats", callTool(t, cs, "file_stats", map[string]any{"fileId": string(fx.file.ID), "interval": "week"}), http.StatusBadRequest, fileframe.CodeInvalidField)
	toolProblem(t, "file_stats", callTool(t, cs, "file_stats", map[string]any{"fileId": "f_NoSuchFile00000"}), http.StatusNotFound, fileframe.CodeFileNotFound)

	acct := toolOK(t, "account_stats", callTool(t, cs, "account_stats", map[string]any{"from": time.Now().AddDate(0, 0, -6).Format(time.DateOnly)}))
	files := acct["files"].([]any)
	if len(files) != 2 || files[0].(map[string]any)["fileId"] != string(fx.file.ID) || acct["totals"].(map[string]any)["views"] != float64(43) {
		t.Errorf("account_stats: files %v, totals %v", files, acct["totals"])
	}
	if s := acct["series"].([]any); len(s) != 7 {
		t.Errorf("account_stats from 6 days ago: %d buckets, want 7", len(s))
	}
	page := mustConnect(t, e, fx.page)
	toolProblem(t, "account_stats", callTool(t, page, "account_stats", nil), http.StatusForbidden, fileframe.CodeKeyScope)
	toolOK(t, "file_stats", callTool(t, page, "file_stats", map[string]any{"fileId": string(fx.file.ID)}))
	toolProblem(t, "file_stats", callTool(t, page, "file_stats", map[string]any{"fileId": string(fx.file2.ID)}), http.StatusNotFound, fileframe.CodeFileNotFound)
}

// TestMCPPageTests runs an A/B test through start_page_test, page_tests
// and end_page_test: the refusals, the report, and the promoted revision
// going live.
func TestMCPPageTests(t *testing.T) {
	fx := newAPIFixture(t)
	e := fx.e
	cs := mustConnect(t, e, fx.general)
	file := map[string]any{"fileId": string(fx.file.ID)}

	toolProblem(t, "start_page_test", callTool(t, cs, "start_page_test", map[string]any{"fileId": string(fx.file.ID), "revisions": []int{1, 2}}),
		http.StatusNotFound, fileframe.CodeRevisionNotFound)
	e.publishPages(fx.agency, fx.file, 3)
	toolProblem(t, "start_page_test", callTool(t, cs, "start_page_test", map[string]any{"fileId": string(fx.file.ID), "revisions": []int{2}}),
		http.StatusBadRequest, fileframe.CodeInvalidField)
	toolProblem(t, "start_page_test", callTool(t, cs, "start_page_test", map[string]any{"fileId": string(fx.file.ID), "revisions": []int{2, 8}}),
		http.StatusNotFound, fileframe.CodeRevisionNotFound)

	started := toolOK(t, "start_page_test", callTool(t, cs, "start_page_test", map[string]any{"fileId": string(fx.file.ID), "revisions": []int{3, 2}}))["test"].(map[string]any)
	id, _ := started["testId"].(string)
	if !fileframe.TestID(id).Valid() || started["running"] != true || started["verdict"] != "collecting" || len(started["variants"].([]any)) != 2 {
		t.Fatalf("start_page_test: %v", started)
	}
	toolProblem(t, "start_page_test", callTool(t, cs, "start_page_test", map[string]any{"fileId": string(fx.file.ID), "revisions": []int{1, 2}}),
		http.StatusConflict, fileframe.CodeTestRunning)

	e.addStats(statsBatch(fx.file.ID, time.Now(),
		statsVisits{variant: fileframe.PageVariant(2), test: fileframe.TestID(id), views: 300, downloads: 90, visitors: 300, converted: 90},
		statsVisits{variant: fileframe.PageVariant(3), test: fileframe.TestID(id), views: 300, downloads: 30, visitors: 300, converted: 30}))
	list := toolOK(t, "page_tests", callTool(t, cs, "page_tests", file))
	tests := list["tests"].([]any)
	if len(tests) != 1 {
		t.Fatalf("page_tests: %v", list)
	}
	rep := tests[0].(map[string]any)
	if rep["verdict"] != "winner" || rep["winner"] != float64(2) || rep["confidence"].(float64) < 0.99 {
		t.Errorf("page_tests: verdict %v, winner %v, confidence %v; want revision 2 at 99%%+", rep["verdict"], rep["winner"], rep["confidence"])
	}
	v := rep["variants"].([]any)[0].(map[string]any)
	if v["revision"] != float64(2) || v["conversion"] != 0.3 || v["low"].(float64) >= 0.3 || v["high"].(float64) <= 0.3 {
		t.Errorf("page_tests: revision 2's figures %v", v)
	}

	toolProblem(t, "end_page_test", callTool(t, cs, "end_page_test", map[string]any{"fileId": string(fx.file.ID), "testId": id, "promote": 1}),
		http.StatusBadRequest, fileframe.CodeInvalidField)
	ended := toolOK(t, "end_page_test", callTool(t, cs, "end_page_test", map[string]any{"fileId": string(fx.file.ID), "testId": id, "promote": 2}))["test"].(map[string]any)
	if ended["running"] != false || ended["promoted"] != float64(2) || ended["endedAt"] == nil {
		t.Errorf("end_page_test: %v", ended)
	}
	if p, err := e.store.PageByFile(context.Background(), fx.file.ID); err != nil || p.LiveRevision != 2 {
		t.Errorf("after promoting revision 2: live revision %d (%v)", p.LiveRevision, err)
	}
	toolProblem(t, "end_page_test", callTool(t, cs, "end_page_test", map[string]any{"fileId": string(fx.file.ID), "testId": id}),
		http.StatusConflict, fileframe.CodeTestEnded)
	toolProblem(t, "end_page_test", callTool(t, cs, "end_page_test", map[string]any{"fileId": string(fx.file.ID), "testId": "ab_AAAAAAAAAAAAAAAA"}),
		http.StatusNotFound, fileframe.CodeTestNotFound)
}

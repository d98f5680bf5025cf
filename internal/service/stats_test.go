package service

import (
	"encoding/csv"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestJudge: no verdict before every variant has MinTestVisitors, no
// winner while the difference could be chance at 99% after correcting for
// the comparisons, and a winner once it cannot.
func TestJudge(t *testing.T) {
	variant := func(rev int, visitors, converted int64) VariantResult {
		v := VariantResult{Revision: rev, Visitors: visitors, Converted: converted}
		v.Rate, v.Low, v.High = wilson(converted, visitors)
		return v
	}
	for _, c := range []struct {
		name     string
		variants []VariantResult
		verdict  string
		winner   int
		says     string
	}{
		{"too few visitors", []VariantResult{variant(1, 99, 90), variant(2, 500, 5)}, "collecting", 0, "revision 1 has 99"},
		{"a small difference", []VariantResult{variant(1, 1000, 100), variant(2, 1000, 110)}, "no_winner_yet", 0, "No winner yet: revision 2 leads"},
		// 10% against 14%: p ≈ 0.006 alone, below 1%, but with three
		// comparisons ≈ 0.018: not yet.
		{"significant alone, not among four", []VariantResult{variant(1, 1000, 100), variant(2, 1000, 140), variant(3, 1000, 100), variant(4, 1000, 100)}, "no_winner_yet", 0, "No winner yet"},
		{"significant alone", []VariantResult{variant(1, 1000, 100), variant(2, 1000, 140)}, "winner", 2, "Revision 2 converts better"},
		{"a clear winner", []VariantResult{variant(3, 800, 240), variant(5, 800, 80)}, "winner", 3, "Revision 3 converts better: 30.0% against 10.0%"},
	} {
		rep := TestReport{Variants: c.variants}
		judge(&rep)
		if rep.Verdict != c.verdict || rep.Winner != c.winner || !strings.Contains(rep.Statement, c.says) {
			t.Errorf("%s: %s, winner %d, %q", c.name, rep.Verdict, rep.Winner, rep.Statement)
		}
	}
}

// TestWilson: the interval of 30 in 100 is the textbook one, and the
// interval stays in [0, 1] at the edges.
func TestWilson(t *testing.T) {
	p, lo, hi := wilson(30, 100)
	if p != 0.3 || math.Abs(lo-0.2189) > 0.0005 || math.Abs(hi-0.3958) > 0.0005 {
		t.Errorf("wilson(30, 100) = %v, %v, %v; want 0.3, 0.2189, 0.3958", p, lo, hi)
	}
	if _, lo, hi := wilson(0, 10); lo != 0 || hi <= 0 || hi >= 1 {
		t.Errorf("wilson(0, 10): %v – %v", lo, hi)
	}
	if _, lo, hi := wilson(10, 10); hi != 1 || lo <= 0 {
		t.Errorf("wilson(10, 10): %v – %v", lo, hi)
	}
}

// TestParseStatsRange: the defaults, dates with their last day included,
// and the refusals.
func TestParseStatsRange(t *testing.T) {
	now := time.Date(2026, 11, 26, 15, 4, 5, 0, time.UTC)
	r, err := ParseStatsRange("", "", "", now)
	if err != nil || !r.To.Equal(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)) || !r.From.Equal(time.Date(2026, 10, 28, 0, 0, 0, 0, time.UTC)) || r.Hourly {
		t.Errorf("defaults: %+v %v", r, err)
	}
	r, err = ParseStatsRange("", "", "hour", now)
	if err != nil || !r.To.Equal(time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC)) || r.To.Sub(r.From) != 48*time.Hour || !r.Hourly {
		t.Errorf("hourly defaults: %+v %v", r, err)
	}
	r, err = ParseStatsRange("2026-11-01", "2026-11-30", "day", now)
	if err != nil || !r.To.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("dates: %+v %v", r, err)
	}
	for _, bad := range [][3]string{
		{"2026-11-30", "2026-11-01", ""}, {"yesterday", "", ""}, {"", "", "week"},
		{"2020-01-01", "2026-01-01", ""}, {"2026-01-01", "2026-03-01", "hour"}, {"0001-01-01T00:00:00Z", "", ""},
	} {
		if _, err := ParseStatsRange(bad[0], bad[1], bad[2], now); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestWriteStatsCSV: the sections, and values a visitor chose that a
// spreadsheet would run as a formula made inert.
func TestWriteStatsCSV(t *testing.T) {
	rep := fileframe.StatReport{
		Totals: fileframe.StatRow{StatCounts: fileframe.StatCounts{Views: 3, Downloads: 1}, Visitors: 2, Converted: 1},
		Series: []fileframe.StatRow{{At: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), StatCounts: fileframe.StatCounts{Views: 3}, Visitors: -1, Converted: -1}},
		Sources: []fileframe.StatRow{
			{Dim: fileframe.DimUTMCampaign, Value: `=HYPERLINK("https://evil.example","x")`, StatCounts: fileframe.StatCounts{Views: 1}},
			{Dim: fileframe.DimUTMSource, Value: "+cmd|' /C calc'!A0", StatCounts: fileframe.StatCounts{Views: 1}},
			{Dim: fileframe.DimReferrer, Value: "@SUM(1+1)", StatCounts: fileframe.StatCounts{Views: 1}},
			{Dim: fileframe.DimUTMMedium, Value: "\t=1+1", StatCounts: fileframe.StatCounts{Views: 1}},
		},
	}
	var b strings.Builder
	if err := WriteStatsCSV(&b, rep); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 || rows[1][0] != "total" || rows[1][9] != "0.5000" || rows[2][0] != "series" || rows[2][7] != "" {
		t.Fatalf("rows: %q", rows)
	}
	for _, r := range rows[3:] {
		if c := r[3][0]; c != '\'' {
			t.Errorf("source value %q is not made inert", r[3])
		}
	}
}

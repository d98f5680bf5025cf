package htmlcheck

import (
	"strings"
	"testing"
)

// TestDeepForeignContent checks that SVG and MathML content is followed
// the same way whether its elements are nested less or more deeply than
// foreignScan (past which their names are counted) and maxForeign. A
// <textarea> tells which: in HTML its content is raw text, in SVG or
// MathML it is markup, so <a download> in it is a download button only
// in foreign content.
func TestDeepForeignContent(t *testing.T) {
	const probe = `<textarea><a download>Download</a></textarea>`
	for _, depth := range []int{1, foreignScan - 1, foreignScan, foreignScan + 1, 40, maxForeign + 10} {
		gs := strings.Repeat("<g>", depth)
		rows := []rowsByName{
			{"all closed", "<svg>" + gs + strings.Repeat("</g>", depth) + "</svg>" + probe, false},
			{"closed by </svg>", "<svg>" + gs + "</svg>" + probe, false},
			{"end tags of no open element", "<svg>" + gs + strings.Repeat("</x>", 5) + probe, true},
			{"one <g> left", "<svg>" + gs + strings.Repeat("</g>", depth-1) + probe, true},
			{"only <svg> left", "<svg>" + gs + strings.Repeat("</g>", depth) + probe, true},
			{"closed twice over", "<svg>" + gs + strings.Repeat("</g>", 2*depth) + "</svg></svg>" + probe, false},
			{"reopened", "<svg>" + gs + "</svg><svg>" + gs + probe, true},
			{"breakout", "<svg>" + gs + "<div>" + probe, false},
			{"breakout then </svg>", "<svg>" + gs + "<div></svg>" + probe, false},
			{"integration point", "<svg>" + gs + "<foreignObject>" + probe, false},
			{"integration point closed", "<svg>" + gs + "<foreignObject></foreignObject>" + probe, true},
			{"math annotation-xml", "<math>" + strings.Repeat("<mrow>", depth) + `<annotation-xml encoding="text/html">` + probe, false},
			{"svg annotation-xml", "<svg>" + gs + `<annotation-xml encoding="text/html">` + probe, true},
			{"svg in math", "<math>" + strings.Repeat("<mrow>", depth) + "<svg>" + gs + `<annotation-xml encoding="text/html">` + probe, true},
			{"math in svg", "<svg>" + gs + "<math>" + strings.Repeat("<mrow>", depth) + `<annotation-xml encoding="text/html">` + probe, false},
			{"math in svg closed", "<svg>" + gs + "<math>" + strings.Repeat("<mrow>", depth) + "</math>" + `<annotation-xml encoding="text/html">` + probe, true},
		}
		for _, row := range rows {
			// Past maxForeign the stack is not followed further: only
			// the rows that close nothing deep are exact there.
			if depth > maxForeign && row.name != "end tags of no open element" && row.name != "breakout" {
				continue
			}
			r := Check([]byte(page(row.body)), testOptions)
			got := false
			for _, f := range r.Errors {
				got = got || f.Rule == RuleDownloadButton
			}
			if got != row.want {
				t.Errorf("depth %d, %s: download.button %v, want %v", depth, row.name, got, row.want)
			}
		}
	}
}

type rowsByName struct {
	name string
	body string
	want bool
}

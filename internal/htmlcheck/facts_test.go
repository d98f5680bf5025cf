package htmlcheck

import (
	"slices"
	"testing"
)

// TestFileFactsInClickables: an element the service fills with the file's
// name or type (data-fileframe) may not be, or be inside, anything
// clickable, by any of the means the download.button rule knows: the name
// is unknown when the page is checked, and a file renamed "Download now"
// would label the page's own button (the fourth outside attack, row 68).
func TestFileFactsInClickables(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		refused    bool
	}{
		{"a heading", `<h1><span data-fileframe="name">Report</span></h1>`, false},
		{"size in a button", `<button type="button">Save <span data-fileframe="size"></span></button>`, false},
		{"a paragraph beside a link", `<p><span data-fileframe="name"></span> · <a href="https://example.com/">About us</a></p>`, false},
		{"in a link", `<a href="https://example.com/"><span data-fileframe="name">x</span></a>`, true},
		{"on a button", `<button type="button" data-fileframe="name">x</button>`, true},
		{"type in a button", `<button type="button"><b data-fileframe="TYPE">x</b></button>`, true},
		{"btn class and a mousedown handler", `<div class="btn" onmousedown="location.hash=1"><span data-fileframe="name">Our report</span></div>`, true},
		{"cta class", `<div class="cta"><span data-fileframe=" name ">x</span></div>`, true},
		{"a key handler", `<div onkeydown="go()"><span data-fileframe="name">x</span></div>`, true},
		{"a role", `<div role="link"><i data-fileframe="name">x</i></div>`, true},
		{"a label", `<label><span data-fileframe="name">x</span><input type="checkbox"></label>`, true},
		{"a summary", `<details><summary data-fileframe="name">x</summary><p>y</p></details>`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Check([]byte(page(tt.body)), Options{})
			got := slices.Contains(ruleNames(r.Errors), RuleDownloadButton)
			if got != tt.refused {
				t.Errorf("download.button: got %v, want %v (errors %v)", got, tt.refused, ruleNames(r.Errors))
			}
		})
	}
}

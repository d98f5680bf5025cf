package htmlcheck

import (
	"strings"
	"testing"
)

// TestFindingsCappedInOrder repeats, one to a line, markup that each
// place reporting a finding with a built message reports, more often than
// its rule's cap: the findings must be the first ones, one a line, up to
// the cap. (Those places build their message only while the rule is
// still reported.)
func TestFindingsCappedInOrder(t *testing.T) {
	for _, tt := range []struct {
		rule, line string
	}{
		{RuleDownloadButton, `<a download>x</a>`},
		{RuleDownloadButton, `<a href="data:text/plain,x">x</a>`},
		{RuleDownloadButton, `<a href="/f/abc">x</a>`},
		{RuleDownloadButton, `<a href="https://example.com/setup.exe">x</a>`},
		{RuleDownloadButton, `<form action="/f/abc"></form>`},
		{RuleDownloadButton, `<style>p::after{content:attr(data-x)}</style><p data-x="Download now">x</p>`},
		{RuleSandboxFrame, `<iframe></iframe>`},
		{RuleSandboxFrame, `<portal></portal>`},
		{RuleSandboxTopNavigation, `<a href="#" target="_top">x</a>`},
		{RuleSandboxWindowOpen, `<a href="#" target="_blank">x</a>`},
		{RuleSandboxResourceHint, `<meta http-equiv="Link" content="<https://a.example>; rel=preconnect">`},
		{RuleSandboxResourceHint, `<link rel="preconnect" href="https://a.example">`},
		{RuleInlineScript, `<script>import "https://a.example/m.js"</script>`},
		{RuleInlineScript, `<script>import("https://a.example/m.js")</script>`},
		{RuleSandboxTopNavigation, `<script>top.location = "x"</script>`},
		{RuleInlineStyle, `<style>@import "x.css";</style>`},
		{RuleImageSource, `<style>p{background:url(x.png)}</style>`},
		{RuleSandboxExternalMedia, `<style>@font-face{src:url(x.woff)}</style>`},
	} {
		n := ruleLimit(tt.rule)
		body := strings.Repeat(tt.line+"\n", n+5)
		r := Check([]byte(page(body)), testOptions)
		var lines []int
		for _, f := range append(r.Errors, r.Warnings...) {
			if f.Rule == tt.rule {
				lines = append(lines, f.Line)
			}
		}
		if len(lines) != n {
			t.Errorf("%s ×%d: got %d %s findings, want %d", tt.line, n+5, len(lines), tt.rule, n)
			continue
		}
		for i, l := range lines {
			if want := pageLines + 1 + i; l != want {
				t.Errorf("%s: finding %d of %s on line %d, want %d", tt.line, i+1, tt.rule, l, want)
				break
			}
		}
	}
}

package htmlcheck

import (
	"slices"
	"testing"
)

// In quirks mode (no doctype) a unitless length is in pixels:
// font-size:1 is 1px (the 30th outside attack, docs/security.md).
func TestQuirksUnitlessSizes(t *testing.T) {
	doc := `<html lang="en"><head><meta charset="utf-8"><title>t</title></head><body><a href="#">Down<span style="font-size:1">xyz</span>load</a></body></html>`
	if r := Check([]byte(doc), testOptions); !slices.Contains(ruleNames(r.Errors), RuleDownloadButton) {
		t.Errorf("%s: got errors %v, want %s", doc, ruleNames(r.Errors), RuleDownloadButton)
	}
}

package htmlcheck

import "testing"

// TestSrcdocAndClosedShadowRoots: a srcdoc frame and a closed declarative
// shadow root are errors (content the prelude cannot reach, which in
// Firefox can connect to other hosts); an open shadow root and a plain
// frame are not.
func TestSrcdocAndClosedShadowRoots(t *testing.T) {
	page := func(body string) []byte {
		return []byte(`<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>t</title></head><body><p>x</p>` + body + `</body></html>`)
	}
	for _, tt := range []struct {
		body string
		rule string // "" for none of the two
	}{
		{`<iframe srcdoc="&lt;img src=https://example.com/x.png&gt;"></iframe>`, RuleSandboxSrcdoc},
		{`<IFRAME SRCDOC=x></IFRAME>`, RuleSandboxSrcdoc},
		{`<iframe src="https://example.com/"></iframe>`, ""},
		{`<div><template shadowrootmode="closed"><a href="https://example.com/">x</a></template></div>`, RuleSandboxShadowRoot},
		{`<div><template shadowrootmode=" CLOSED "><p>y</p></template></div>`, RuleSandboxShadowRoot},
		{`<div><template shadowroot="closed"><p>y</p></template></div>`, RuleSandboxShadowRoot},
		{`<div><template shadowrootmode="open"><p>y</p></template></div>`, ""},
		{`<template><p>y</p></template>`, ""},
	} {
		res := Check(page(tt.body), Options{})
		var got string
		for _, f := range res.Errors {
			if f.Rule == RuleSandboxSrcdoc || f.Rule == RuleSandboxShadowRoot {
				got = f.Rule
			}
		}
		if got != tt.rule {
			t.Errorf("%s: rule %q, want %q (errors %+v)", tt.body, got, tt.rule, res.Errors)
		}
	}
}

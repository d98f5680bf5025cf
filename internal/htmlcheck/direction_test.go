package htmlcheck

import (
	"slices"
	"testing"
)

// boxesLTR are inline boxes of Hebrew letters that spell "הורדה" only
// when drawn in a left-to-right paragraph.
const boxesLTR = `<a href="#"><b style="display:inline-block">דה</b><b style="display:inline-block">הור</b></a>`

func dirDoc(htmlAttrs, head, body string) string {
	return `<!doctype html><html` + htmlAttrs + `><head><meta charset="utf-8"><title>x</title>` + head + `</head><body>` + body + `</body></html>`
}

// Where HTML alone sets the direction of a label, its boxes are read in
// that direction only (direction.go; docs/security.md, rows 979, 983).
func TestBoxDirectionKeepsLabelsAllowed(t *testing.T) {
	const ar = `<a href="#stats"><span style="display:inline-block">2 مليون</span> تنزيل</a>`
	for _, doc := range []string{
		dirDoc(` dir="rtl"`, "", boxesLTR),
		dirDoc(` DIR="RTL"`, "", `<p>`+boxesLTR+`</p>`),
		dirDoc("", "", `<div dir="rtl"><p>`+boxesLTR+`</p></div>`),
		dirDoc("", "", `<div dir="rtl"><span dir="ltr"></span>`+boxesLTR+`</div>`),
		dirDoc("", "", `<div dir="rtl"><div dir="ltr"></div>`+boxesLTR+`</div>`),
		dirDoc(` dir="rtl" lang="ar"`, "", `<section><p>`+ar+`</p></section>`),
		dirDoc(` lang="ar"`, "", `<main dir="rtl"><p>`+ar+`</p></main>`),
		dirDoc(` lang="ar"`, "", `<a href="#stats" dir="rtl"><span style="display:inline-block">2 مليون</span> تنزيل</a>`),
		dirDoc(` lang="ar"`, `<style>.num{display:inline-block}</style>`, `<div dir="rtl"><a href="#stats"><span class="num">+2M</span> تنزيل</a></div>`),
	} {
		if r := Check([]byte(doc), testOptions); len(r.Errors) > 0 {
			t.Errorf("%s: got errors %v, want none", doc, ruleNames(r.Errors))
		}
	}
}

// Where the direction is not surely the one HTML sets, both are read.
func TestDownloadEvasionsBoxDirection(t *testing.T) {
	for _, tt := range []struct{ name, doc string }{
		{"no direction", dirDoc("", "", boxesLTR)},
		{"a paragraph closed before", dirDoc("", "", `<p dir="rtl">x</p>`+boxesLTR)},
		{"a paragraph closed by a block", dirDoc("", "", `<p dir="rtl">x<div>`+boxesLTR+`</div>`)},
		{"a list item closed by another", dirDoc("", "", `<ul><li dir="rtl">x<li>`+boxesLTR+`</ul>`)},
		{"an end tag out of scope", dirDoc("", "", `<div dir="rtl"><table><tr><td></div>`+boxesLTR+`</td></tr></table></div>`)},
		{"an end tag out of scope, the other way", dirDoc(` dir="rtl"`, "", `<div dir="ltr"><table><tr><td></div>`+boxesLTR+`</td></tr></table></div>`)},
		{"a link closed by another", dirDoc("", "", `<a href="/x" dir="rtl">x`+boxesLTR)},
		{"auto", dirDoc(` dir="rtl"`, "", `<div dir="auto">x`+boxesLTR+`</div>`)},
		{"a direction by CSS", dirDoc(` dir="rtl"`, `<style>a{direction:ltr}</style>`, boxesLTR)},
		{"unicode-bidi by CSS", dirDoc(``, `<style>a{unicode-bidi:normal}</style>`, `<a href="#" dir="rtl"><b style="display:inline-block">דה</b><b style="display:inline-block">הור</b></a>`)},
		{"contents by CSS", dirDoc(``, `<style>a{display:contents}</style>`, `<a href="#" dir="rtl"><b style="display:inline-block">דה</b><b style="display:inline-block">הור</b></a>`)},
		{"all by CSS", dirDoc(``, `<style>a{all : initial;display:inline}</style>`, `<a href="#" dir="rtl"><b style="display:inline-block">דה</b><b style="display:inline-block">הור</b></a>`)},
		{"all by an inline style", dirDoc(``, ``, `<a href="#" dir="rtl" style="all&#58;unset"><b style="display:inline-block">דה</b><b style="display:inline-block">הור</b></a>`)},
		{"in SVG", dirDoc(` dir="rtl"`, "", `<svg><foreignObject dir="ltr">`+boxesLTR+`</foreignObject></svg>`)},
		{"an invalid direction", dirDoc("", "", `<div dir="rtl"><div dir="x">`+boxesLTR+`</div></div>`)},
	} {
		if r := Check([]byte(tt.doc), testOptions); !slices.Contains(ruleNames(r.Errors), RuleDownloadButton) {
			t.Errorf("%s: %s: got errors %v, want %s", tt.name, tt.doc, ruleNames(r.Errors), RuleDownloadButton)
		}
	}
}

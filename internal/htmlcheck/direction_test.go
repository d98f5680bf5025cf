package htmlcheck

import (
	"slices"
	"strings"
	"testing"
)

// latinBoxes are inline boxes of Latin letters that spell "Download"
// only when drawn from right to left.
const latinBoxes = `<a href="#x"><b style="display:inline-block">d</b><b style="display:inline-block">a</b><b style="display:inline-block">o</b><b style="display:inline-block">l</b><b style="display:inline-block">n</b><b style="display:inline-block">w</b><b style="display:inline-block">o</b><b style="display:inline-block">D</b></a>`

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

// Elements drawn as boxes that the checker did not take for boxes (the
// 29th outside attack): five boxes of ה ד ר ו ה read "הורדה" from a
// left-to-right paragraph.
func TestDownloadEvasionsOtherBoxes(t *testing.T) {
	five := func(open, close string) string {
		var b strings.Builder
		b.WriteString(`<a href="#x">`)
		for _, l := range []string{"ה", "ד", "ר", "ו", "ה"} {
			b.WriteString(open + l + close)
		}
		return b.String() + `</a>`
	}
	for _, tt := range []struct{ name, doc string }{
		{"MathML", dirDoc("", "", five(`<math><mi>`, `</mi></math>`))},
		{"ruby", dirDoc("", "", five(`<ruby>`, `</ruby>`))},
		{"fieldset", dirDoc("", "", five(`<fieldset style="display:inline;border:0;padding:0;margin:0;min-width:0">`, `</fieldset>`))},
		{"table cells", dirDoc("", "", five(`<span style="display:table-cell">`, `</span>`))},
		{"marquee", dirDoc("", "", five(`<marquee scrollamount="0" style="width:1em">`, `</marquee>`))},
		{"a rule !important over the style attribute", dirDoc("", `<style>a span{display:inline-block!important}</style>`, five(`<span style="display:inline">`, `</span>`))},
	} {
		if r := Check([]byte(tt.doc), testOptions); !slices.Contains(ruleNames(r.Errors), RuleDownloadButton) {
			t.Errorf("%s: %s: got errors %v, want %s", tt.name, tt.doc, ruleNames(r.Errors), RuleDownloadButton)
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
		// The 29th outside attack (docs/security.md, rows 989-).
		{"a direction with a space", dirDoc("", "", `<div dir="rtl "><a href="#x"><b style="display:inline-block">ה</b><b style="display:inline-block">ד</b><b style="display:inline-block">ר</b><b style="display:inline-block">ו</b><b style="display:inline-block">ה</b></a></div>`)},
		{"a direction with a space before", dirDoc("", "", `<div dir=" rtl"><a href="#x"><b style="display:inline-block">زيل</b><b style="display:inline-block">تن</b></a></div>`)},
		{"a direction by an escaped property", dirDoc("", `<style>.r{d\69 rection:rtl}</style>`, `<div class="r">`+latinBoxes+`</div>`)},
		{"a direction by an entity in SVG's sheet", dirDoc("", "", `<svg width="0" height="0"><style>.r{&#100;irection:rtl}</style></svg><div class="r">`+latinBoxes+`</div>`)},
		{"an isolate drawn before", dirDoc("", `<style>a::before{content:"\2067"}</style>`, latinBoxes)},
		{"an isolate in quotes", dirDoc("", `<style>q{quotes:"\2067" "\2069"}</style>`, `<a href="#x"><q>`+strings.TrimPrefix(strings.TrimSuffix(latinBoxes, `</a>`), `<a href="#x">`)+`</q></a>`)},
		{"a left-to-right isolate drawn before, in rtl", dirDoc("", `<style>a::before{content:"\2066"}</style>`, `<div dir="rtl">`+boxesLTR+`</div>`)},
		{"hidden Hebrew letters around", dirDoc("", "", `<a href="#x"><span style="font-size:0">א</span>`+strings.TrimPrefix(strings.TrimSuffix(latinBoxes, `</a>`), `<a href="#x">`)+`<span style="font-size:0">א</span></a>`)},
		{"Latin letters around, in rtl", dirDoc("", "", `<a href="#x" dir="rtl">a<b style="display:inline-block">ה</b><b style="display:inline-block">ד</b><b style="display:inline-block">ר</b><b style="display:inline-block">ו</b><b style="display:inline-block">ה</b>b</a>`)},
		{"an isolate by attr()", dirDoc("", `<style>a::before{content:attr(data-x)}</style>`, strings.Replace(latinBoxes, `<a href="#x">`, `<a href="#x" data-x="&#x2067;">`, 1))},
		{"an isolate left open in the text before", dirDoc("", "", `<p>&#x2067;`+latinBoxes+`</p>`)},
		{"an embedding left open in the text before", dirDoc("", "", `<p>&#x202B;`+latinBoxes+`</p>`)},
		{"hidden Hebrew letters drawn by CSS around", dirDoc("", `<style>a::before,a::after{content:"\5d0";font-size:0}</style>`, latinBoxes)},
		{"an invalid direction", dirDoc("", "", `<div dir="rtl"><div dir="x">`+boxesLTR+`</div></div>`)},
	} {
		if r := Check([]byte(tt.doc), testOptions); !slices.Contains(ruleNames(r.Errors), RuleDownloadButton) {
			t.Errorf("%s: %s: got errors %v, want %s", tt.name, tt.doc, ruleNames(r.Errors), RuleDownloadButton)
		}
	}
}

package htmlcheck

import (
	"strings"
	"testing"
)

// sheetEvasions hide the letters between two halves of "Download" with a
// rule of a style sheet, not an inline style (docs/security.md, rows 903,
// 906, 939 and 943-): each was published before the style sheets were
// read.
var sheetEvasions = []evasion{
	{"class display none", `<style>.h{display:none}</style><a href="#">Down<span class="h">x</span>load</a>`},
	{"class font size zero", `<style>.z{font-size:0}</style><a href="#">Down<span class="z">xyz</span>load</a>`},
	{"class too small to read", `<style>.z{font-size:2px}</style><a href="#">Down<span class="z">xyz</span>load</a>`},
	{"screen reader only class", `<style>.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)}</style><a href="#">Down<span class="sr-only">the guide, </span>load</a>`},
	{"transparent class", `<style>.t{color:transparent;letter-spacing:-1em}</style><a href="#">Down<span class="t">xyz</span>load</a>`},
	{"one of several classes", `<style>.a{color:red}.h{visibility:hidden;position:absolute}</style><a href="#">Down<span class="a h">xyz</span>load</a>`},
	{"selector list", `<style>.a,.b .h{display:none}</style><div class="b"><a href="#">Down<span class="h">xyz</span>load</a></div>`},
	{"id", `<style>#gap{display:none}</style><a href="#">Down<span id="gap">xyz</span>load</a>`},
	{"attribute", `<style>[data-gap]{opacity:0;position:absolute}</style><a href="#">Down<span data-gap>xyz</span>load</a>`},
	{"attribute with a value", `<style>span[data-gap="1" i]{display:none}</style><a href="#">Down<span data-gap="1">xyz</span>load</a>`},
	{"element name", `<style>s{display:none}</style><a href="#">Down<s>xyz</s>load</a>`},
	{"descendant combinator", `<style>body main a .h{display:none}</style><main><a href="#">Down<span class="h">xyz</span>load</a></main>`},
	{"pseudo-class", `<style>.h:not(:hover){font-size:0}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"any element", `<style>a :is(.h){display:none}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"media query", `<style>@media screen and (min-width:1px){.h{display:none}}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"supports and layer", `<style>@layer base{@supports (display:grid){.h{display:none}}}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"nested rule", `<style>a{.h{display:none}}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"nested ampersand", `<style>.h{color:red;&:not(.x){display:none}}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"media in a rule", `<style>.h{@media screen{display:none}}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"escaped class", `<style>.\68 {display:none}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"escaped property", `<style>.h{disp\6c ay:none}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"comment in the value", `<style>.h{display:/**/none}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"important", `<style>.h{display:none!important}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"upper case class", `<style>.H{display:none}</style><a href="#">Down<span class="H">xyz</span>load</a>`},
	{"style sheet after the link", `<a href="#">Down<span class="h">xyz</span>load</a><style>.h{display:none}</style>`},
	{"style sheet in SVG", `<svg width="0" height="0"><style>.h{display:none}</style></svg><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"a style tag in an attribute before the sheet", `<p title="<style>">x</p><style>.h{display:none}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"a style tag in a comment before the sheet", `<!-- <style> --><style>.h{display:none}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"a style tag in a CSS string", `<style>.q::after{content:"<style>"} .h{display:none}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"SVG style in CDATA", `<svg width="0" height="0"><style><![CDATA[.h{display:none}]]></style></svg><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"SVG style with a character reference", `<svg width="0" height="0"><style>&#46;h{display:none}</style></svg><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"two style sheets", `<style>.a{color:red}</style><style media="screen">.h{display:none}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"keyframes", `<style>@keyframes z{to{font-size:0}}.h{animation:z 1ms forwards}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"keyframes by name", `<style>.h{animation-name:gone;animation-duration:1ms;animation-fill-mode:forwards}@keyframes gone{from{opacity:0}to{opacity:0}}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"keyframes run by an inline style", `<style>@keyframes z{to{font-size:0}}</style><a href="#">Down<span style="animation:z 1ms forwards">xyz</span>load</a>`},
	{"custom element not defined", `<style>:not(:defined){visibility:hidden}</style><a href="#">Down<x-gap>xyz</x-gap>load</a>`},
	{"button", `<style>.h{display:none}</style><button>Down<span class="h">xyz</span>load</button>`},
	{"right-to-left letter by class (row 903)", `<style>.z{font-size:0}</style><a href="#" dir="rtl">load<span class="z">א</span>Down</a>`},
	{"right-to-left letter, small (row 939)", `<style>.z{font-size:2px}</style><a href="#" dir="rtl">load<span class="z">א</span>Down</a>`},
	// A box that isolates nothing, by a class (row 898).
	{"display contents by class", `<style>.c{display:contents}</style><div>&#x202E;<p class="c"><a href="#">daolnwoD</a></p></div>`},
	// Inline boxes made by a rule of any selector, not only a class.
	{"boxes by element name", `<style>b{display:inline-block}</style><a href="#"><b>דה</b><b>הור</b></a>`},
	{"boxes by id", `<style>#x,#y{display:inline-block}</style><a href="#"><span id="x">דה</span><span id="y">הור</span></a>`},
	{"boxes by attribute", `<style>[data-b]{display:inline flex}</style><a href="#"><span data-b>דה</span><span data-b>הור</span></a>`},
	{"boxes by an escaped value", `<style>b{display:inline-bl\6f ck}</style><a href="#"><b>דה</b><b>הור</b></a>`},
	// Letters drawn in another order by a rule (security.md's "Still
	// possible": reordering and placement by class selectors).
	{"order by class", `<style>.a{order:2}.b{order:1}</style><a href="#" style="display:inline-flex"><span class="a">load</span><span class="b">Down</span></a>`},
	{"floats by class", `<style>.r{float:right}</style><a href="#"><span class="r">load</span><span class="r">Down</span></a>`},
	{"float by element name and pseudo-class", `<style>a span:first-child{float:right}</style><a href="#"><span>load</span>Down</a>`},
	{"reversed flex by class", `<style>.f{display:inline-flex;flex-direction:row-reverse}</style><a href="#" class="f"><span>load</span><span>Down</span></a>`},
	{"reversed flex flow by class", `<style>.f{display:inline-flex;flex-flow:row-reverse wrap}</style><a href="#" class="f"><span>load</span><span>Down</span></a>`},
	{"grid areas by class", `<style>.g{display:inline-grid}.x{grid-area:1/2}.y{grid-area:1/1}</style><a href="#" class="g"><span class="x">load</span><span class="y">Down</span></a>`},
	{"grid rows and columns by class", `<style>.x{grid-row:1;grid-column:2}.y{grid-row:1;grid-column:1}</style><a href="#" style="display:inline-grid"><span class="x">load</span><span class="y">Down</span></a>`},
	{"order in a media query", `<style>@media screen{.b{order:-1}}</style><a href="#" style="display:inline-flex"><span>load</span><span class="b">Down</span></a>`},
	{"right-to-left direction by class", `<style>.d{direction:rtl}</style><a href="#" class="d">load&rlm;Down</a>`},
	// Each flex box orders its own items: pieces of two boxes are not
	// sorted together.
	{"order in two flex boxes", `<a href="#"><span style="display:inline-flex"><b style="order:1">x</b><b>y</b></span> <span style="display:inline-flex"><b style="order:2">load</b><b style="order:1">Down</b></span></a>`},
	{"order in two flex boxes by class", `<style>.f{display:inline-flex}.a{order:1}.b{order:2}</style><a href="#"><span class="f"><b class="b">wn</b><b class="a">Do</b></span><span class="f"><b class="b">ad</b><b class="a">lo</b></span></a>`},
	{"order in nested flex boxes", `<a href="#" style="display:inline-flex"><span style="order:2;display:inline-flex"><b style="order:2">ad</b><b style="order:1">lo</b></span><span style="order:1;display:inline-flex"><b style="order:2">wn</b><b style="order:1">Do</b></span></a>`},
	// Scaled to nothing on one axis, or after another transform.
	{"scaleX zero", `<a href="#">Down<b style="display:inline-block;transform:scaleX(0);width:0">xyz</b>load</a>`},
	{"scale after a rotation by class", `<style>.s{display:inline-block;transform:rotate(1deg) scale(0.01);position:absolute}</style><a href="#">Down<b class="s">xyz</b>load</a>`},
	// Rules that do apply: an ancestor class on the page, a state
	// under :not(), an animation that hides long or without end.
	{"ancestor class on the page", `<style>.dark .h{color:transparent;letter-spacing:-1em}</style><div class="dark"><a href="#">Down<span class="h">xyz</span>load</a></div>`},
	{"not hovered", `<style>a:not(:hover) .h{display:none}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"a long fade", `<style>@keyframes f{from{opacity:0}to{opacity:1}}.h{animation:f 10s}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"a long delay", `<style>@keyframes f{from{opacity:0}}.h{animation:f .5s 3000ms both}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"a fade without end", `<style>@keyframes f{50%{opacity:0}}.h{animation:f 1s infinite}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"last frame at 100%", `<style>@keyframes f{0%{opacity:1}100%{opacity:0}}.h{animation:f 1ms forwards}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	{"print and screen", `<style>@media print,screen{.h{display:none}}</style><a href="#">Down<span class="h">xyz</span>load</a>`},
	// Masks and colour mixes (row 930), inline and by a class.
	{"clear mask", `<a href="#">Down<span style="mask-image:linear-gradient(#0000,#0000);letter-spacing:-1em">xyz</span>load</a>`},
	{"webkit mask by class", `<style>.m{-webkit-mask:linear-gradient(transparent,transparent);letter-spacing:-1em}</style><a href="#">Down<span class="m">xyz</span>load</a>`},
	{"colour mixed with transparent", `<a href="#">Down<span style="color:color-mix(in srgb, red 0%, transparent);letter-spacing:-1em">xyz</span>load</a>`},
	{"colour mixed with a clear colour", `<style>.c{color:color-mix(in oklab,#0000 100%,red)}</style><a href="#">Down<span class="c">xyz</span>load</a>`},
	{"long hidden prefix (row 906)", `<style>.h{display:none}</style><a href="#"><span class="h">` + strings.Repeat("x", 2000) + `</span>Download</a>`},
}

func TestDownloadEvasionsStyleSheets(t *testing.T) { wantDownloadButton(t, sheetEvasions) }

// Rules that hide nothing of a label, or hide elements that are not in
// it, leave ordinary pages allowed.
func TestStyleSheetsKeepLabelsAllowed(t *testing.T) {
	for _, body := range []string{
		`<style>.sr-only{position:absolute;width:1px;height:1px;clip:rect(0,0,0,0)}.hidden{display:none}</style><a href="/pricing">Get started <span class="sr-only">with the free plan</span></a>`,
		`<style>.h{display:none}</style><p class="h">Download</p><a href="/a">2M <b>downloads</b> so far</a>`,
		// A pseudo-element's rule styles its own box, not the text.
		`<style>.icon::before{font-size:0;content:""}.icon:after{display:none}</style><a href="/a">Down<span class="icon">xyz</span>load</a>`,
		// :empty selects elements without letters; :not(:defined), the
		// custom elements only.
		`<style>:empty{display:none}</style><a href="/a"><b>2M</b> downloads</a>`,
		`<style>:not(:defined){visibility:hidden}</style><a href="/a"><b>2M</b> downloads</a>`,
		// Keyframes that hide, run by no rule of the label; and a reset
		// that stops every animation.
		`<style>@keyframes fade{to{opacity:0}}.toast{animation:fade 1s}@media (prefers-reduced-motion){*{animation:none!important}}</style><a href="/a"><b>2M</b> downloads</a>`,
		// Declarations that hide, in rules that style no element.
		`<style>@font-face{font-family:x;src:local(Arial);font-display:block}@page{margin:0}</style><a href="/a">2M <b>downloads</b> so far</a>`,
		// Layout that keeps the order written: a float to the left
		// first, order 0, a direction without reverse.
		`<style>.l{float:left}.o{order:0}.f{display:inline-flex;flex-direction:row}</style><a href="/a" class="f"><span class="l">Down</span><span class="o">stream</span> load</a>`,
		// A count that fades in, or that a rule hides only in a state
		// the page is not first drawn in (the 25th attack's false
		// positives, docs/security.md).
		`<style>.stat .num{font-weight:700}@keyframes fadeIn{from{opacity:0;transform:translateY(8px)}to{opacity:1;transform:none}}.fade-in{animation:fadeIn .6s ease-out both}</style><a class="stat" href="#stats"><span class="num fade-in">1.2M</span> downloads</a>`,
		`<style>@keyframes fadeIn{from{opacity:0}}.fade-in{animation:fadeIn 600ms}</style><a href="#stats" dir="rtl" lang="ar"><span class="fade-in">2 مليون</span> تنزيل</a>`,
		`<style>.fade{transition:opacity .15s linear}.fade:not(.show){opacity:0}</style><a href="#stats"><span class="num fade show">1.2M</span> downloads</a>`,
		`<style>.is-loading .num{visibility:hidden}.dark .num{color:transparent}#app.no-js .num{display:none}</style><a class="stat" href="#stats"><span class="num">1.2M</span> downloads</a>`,
		`<style>@media print{.num{display:none}}.stat:hover .num,.num:focus{visibility:hidden}</style><a class="stat" href="#stats"><span class="num">1.2M</span> downloads</a>`,
		`<style media="print">.num{display:none}</style><a href="#stats"><span class="num">1.2M</span> downloads</a>`,
		// The second round's false positives: a page that says it is
		// left to right, an Arabic count on a page with inline boxes,
		// gradient text, a transition's starting style.
		`<style>.stat{display:inline-block}</style><div dir="ltr"><a class="stat" href="#stats"><span class="num">1.2M</span> downloads</a></div>`,
		`<style>.btn{display:inline-block}</style><div dir="rtl" lang="ar"><a class="stat" href="#stats"><span class="num">2 مليون</span> تنزيل</a></div>`,
		`<style>.btn{display:inline-block}</style><div dir="rtl" lang="fa"><a href="#stats">أكثر من <b class="num">2 مليون</b> تنزيل</a></div>`,
		`<style>.num{background:linear-gradient(90deg,#f0f,#0ff);-webkit-background-clip:text;background-clip:text;color:transparent}</style><a href="#stats"><span class="num">1.2M</span> downloads</a>`,
		`<style>.bg-clip-text{-webkit-background-clip:text;background-clip:text}.text-transparent{color:transparent}</style><a href="#stats"><span class="bg-clip-text text-transparent">1.2M</span> downloads</a>`,
		`<style>@starting-style{.num{opacity:0}}.num{transition:opacity .6s}</style><a href="#stats"><span class="num">1.2M</span> downloads</a>`,
		// A slight turn, a matrix that only moves.
		`<a href="/a">Get <span style="display:inline-block;transform:rotateY(30deg)">the</span> report</a>`,
		`<a href="/a">Get <span style="display:inline-block;transform:matrix(1,0,0,1,10,10)">the</span> report</a>`,
		// A drop cap; a first letter hidden in an element without one.
		`<style>.f::first-letter{font-size:3em;float:left}</style><a href="/a">Get the <span class="f">report</span></a>`,
		`<style>.f::first-letter{font-size:0}</style><a href="/a">Read <span class="f"></span>the guide</a>`,
		// Smaller words nested are still read.
		`<style>.small{font-size:.8em}</style><a href="/x">Get the <span class="small">free <span class="small">report</span></span></a>`,
		// A larger word inside a link is not read alone.
		`<a href="/fonts">Free <span style="font-size:20px">Download</span>able fonts</a>`,
		// Text in strings and comments is not a rule.
		`<style>/* .h{display:none} */ .q::after{content:".h{display:none}"}</style><a href="/a">Down<span class="h">xyz</span>load</a>`,
	} {
		if r := Check([]byte(page(body)), testOptions); len(r.Errors) > 0 {
			t.Errorf("%s: got errors %v, want none", body, ruleNames(r.Errors))
		}
	}
}

// The subject of each selector is kept by its most telling simple
// selector.
func TestSelectorSubjects(t *testing.T) {
	for _, tt := range []struct {
		sel  string
		want string
	}{
		{".a", "class a"},
		{"div.a#b[c]", "id b"},
		{"div > p + span ~ em.x", "class x"},
		{"a[href$='.pdf' i] span", "tag span"},
		{"[data-x=\"a b\"]", "attr data-x"},
		{".a:not(.b)", "class a"},
		{":not(.b)", "all"},
		{"*", "all"},
		{".a::before", ""},
		{".a:after", ""},
		{"p:empty", ""},
		{":not(:defined)", "custom"},
		{`.\31 23`, "class 123"},
		{"svg|text", "tag text"},
		{".a, .b::marker, #c", "class a,id c"},
	} {
		var got []string
		own, _ := selectorSubjects([]byte(tt.sel), false, nil)
		for _, s := range own {
			got = append(got, subjectName(s))
		}
		if g := strings.Join(got, ","); g != tt.want {
			t.Errorf("%q: got %q, want %q", tt.sel, g, tt.want)
		}
	}
}

func subjectName(s sheetSubject) string {
	switch s.kind {
	case subjectAll:
		return "all"
	case subjectCustom:
		return "custom"
	case subjectTag:
		return "tag " + s.name
	case subjectAttr:
		return "attr " + s.name
	case subjectClass:
		return "class " + s.name
	}
	return "id " + s.name
}

// Colours are clear when their alpha is zero, also in a mix.
func TestClearColour(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"transparent", true},
		{"#0000", true},
		{"#12345600", true},
		{"rgb(1 2 3/0)", true},
		{"color-mix(insrgb,red0%,transparent)", true},
		{"color-mix(inoklab,#0000100%,red)", true},
		{"color-mix(inoklab,#0000,red)", true},
		{"color-mix(insrgb,red50%,blue)", false},
		{"color-mix(insrgb,#000000ff50%,red)", false},
		{"color-mix(", false},
		{"color-mix()", false},
		{"#000", false},
		{"red", false},
	} {
		if got := clearColour([]byte(tc.v)); got != tc.want {
			t.Errorf("clearColour(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// The 25th outside attack's ways through (docs/security.md, rows from
// 943), each drawn "Download" by Chromium.
var attack25Evasions = []evasion{
	{"rules nested 32 deep", `<style>` + strings.Repeat("@media all{", 32) + `.h{display:none}` + strings.Repeat("}", 32) + `</style>` + gapLink},
	{"ampersands nested 32 deep", `<style>.h{` + strings.Repeat("&{", 32) + `display:none` + strings.Repeat("}", 33) + `</style>` + gapLink},
	{"calc of a difference", `<style>.h{font-size:calc(1px - 1px)}</style>` + gapLink},
	{"calc of a product", `<style>.h{font-size:calc(16px * 0)}</style>` + gapLink},
	{"calc of a quotient", `<style>.h{font-size:calc(1px/100)}</style>` + gapLink},
	{"max of small sizes", `<style>.h{font-size:max(0px,0.1px)}</style>` + gapLink},
	{"abs", `<style>.h{font-size:abs(0px)}</style>` + gapLink},
	{"var from an ancestor", `<style>a{--z:0px}.h{font-size:var(--z)}</style>` + gapLink},
	{"var fallback", `<style>.h{font-size:var(--nope,0px)}</style>` + gapLink},
	{"property initial value", `<style>@property --z{syntax:"<length>";inherits:true;initial-value:0px}.h{font-size:var(--z)}</style>` + gapLink},
	{"var chain", `<style>:root{--v0:0px;--v1:var(--v0);--v2:var(--v1)}.h{font-size:var(--v2)}</style>` + gapLink},
	{"page var in an inline style", `<style>:root{--z:0px}</style><a href="#">Down<span style="font-size:var(--z)">xyz</span>load</a>`},
	{"translate property", `<style>.h{position:absolute;translate:-9999px}</style>` + gapLink},
	{"translate on the second axis", `<style>.h{position:absolute;translate:0 -9999px}</style>` + gapLink},
	{"translateX", `<style>.h{position:absolute;transform:translateX(-9999px)}</style>` + gapLink},
	{"near transparent", `<style>.h{color:rgba(0,0,0,0.001);letter-spacing:-1em}</style>` + gapLink},
	{"near transparent hex", `<style>.h{color:#00000001;letter-spacing:-1em}</style>` + gapLink},
	{"canvas colour", `<style>.h{color:Canvas;letter-spacing:-1em}</style>` + gapLink},
	{"transparent by a custom property", `<style>a{--t:transparent}.h{color:var(--t);letter-spacing:-1em}</style>` + gapLink},
	{"transparent fill by a custom property", `<style>a{--c:transparent}.h{-webkit-text-fill-color:var(--c);letter-spacing:-1em}</style>` + gapLink},
	{"transparent by an inline custom property", `<a href="#">Down<span style="--t:#0000;color:var(--t);letter-spacing:-1em">x</span>load</a>`},
	{"light-dark", `<style>.h{color:light-dark(transparent,transparent);letter-spacing:-1em}</style>` + gapLink},
	{"SVG style with a comment", `<svg width="0" height="0"><style>.h{disp<!---->lay:none}</style></svg>` + gapLink},
	{"SVG style with a child element", `<svg width="0" height="0"><style>.h{display:<g>zz</g>none}</style></svg>` + gapLink},
	{"shadow root without a slot", `<a href="#">Down<span><template shadowrootmode="open"></template>x</span>load</a>`},
	{"closed dialog", `<a href="#">Down<dialog>x</dialog>load</a>`},
	{"SVG unitless font size", `<a href="#"><svg width="200" height="40"><text y="30" font-size="30">Down<tspan font-size=".5">x</tspan>load</text></svg></a>`},
	{"SVG without fill", `<a href="#"><svg width="200" height="40"><text y="30" font-size="30">Down<tspan fill="none" font-size="1">x</tspan>load</text></svg></a>`},
	{"SVG fill opacity zero", `<a href="#"><svg width="200" height="40"><text y="30" font-size="30">Down<tspan fill-opacity="0">x</tspan>load</text></svg></a>`},
	{"keyframes with calc", `<style>@keyframes k{to{font-size:calc(1px - 1px)}}.h{animation:k 1ms forwards}</style>` + gapLink},
	{"webkit keyframes and animation", `<style>@-webkit-keyframes k{to{font-size:0}}.h{-webkit-animation:k 1ms forwards}</style>` + gapLink},
	{"keyframes with var", `<style>@keyframes k{to{font-size:var(--z)}}.h{--z:0px;animation:k 1ms forwards}</style>` + gapLink},
	{"keyframes that translate", `<style>@keyframes k{to{translate:-9999px}}.h{position:absolute;animation:k 1ms forwards}</style>` + gapLink},
	{"slotted children hidden", `<a href="#">Down<span><template shadowrootmode="open"><style>::slotted(*){display:none}</style><slot></slot></template><b>x</b></span>load</a>`},
	{"first letter hidden", `<style>.f{display:inline-block}.f::first-letter{font-size:0}</style><a href="#">Down<span class="f">xload</span></a>`},
	{"first letter with its quote hidden", `<style>.f::first-letter{color:transparent;letter-spacing:-1em}</style><a href="#">Down<span class="f">"xload</span></a>`},
	{"the link's first letter hidden", `<style>a::first-letter{font-size:0}</style><a href="#">xDownload</a>`},
	{"first letter of a child hidden, old spelling", `<style>.f:first-letter{visibility:hidden}</style><a href="#"><b class="f"> <i>x</i>Download</b></a>`},
	{"first letter hidden by an animation", `<style>@keyframes z{to{font-size:0}}.f::first-letter{animation:z 1ms forwards}</style><a href="#">Down<span class="f">xload</span></a>`},
	{"first letter, escaped and in capitals", `<style>.f::FIRST-L\65 TTER{font-size:0}</style><a href="#">Down<span class="f" style="display:inline-block">xload</span></a>`},
	{"the link's first letter hidden, by class", `<style>.b{display:inline-block}.b::first-letter{font-size:0}</style><a class="b" href="#">xDownload</a>`},
	{"first line hidden", `<style>.f::first-line{font-size:0}</style><a href="#">Down<span class="f" style="display:inline-block">xyz</span>load</a>`},
	{"turned edge-on", `<a href="#">Down<span style="display:inline-block;transform:rotateY(90deg)">xyz</span>load</a>`},
	{"turned edge-on about x", `<a href="#">Down<span style="display:inline-block;transform:rotateX(-90deg)">xyz</span>load</a>`},
	{"turned edge-on by rotate3d", `<a href="#">Down<span style="display:inline-block;transform:rotate3d(0,1,0,.25turn)">xyz</span>load</a>`},
	{"turned edge-on by rotate", `<a href="#">Down<span style="display:inline-block;rotate:y 90deg">xyz</span>load</a>`},
	{"turned edge-on by a rule", `<style>.e{display:inline-block;transform:perspective(100px) rotateY(89deg)}</style><a href="#">Down<span class="e">xyz</span>load</a>`},
	{"squashed by a matrix", `<a href="#">Down<span style="display:inline-block;transform:matrix(0,0,0,1,0,0)">xyz</span>load</a>`},
	{"squashed by a 3D matrix", `<a href="#">Down<span style="display:inline-block;transform:matrix3d(0,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1)">xyz</span>load</a>`},
	{"first line hidden, then a break", `<style>.f::first-line{font-size:0}</style><a href="#x">Down<span class="f" style="display:inline-block">zz<br>load</span></a>`},
	{"slots assigned by a script", `<a href="#x">Down<span><template shadowrootmode="open" shadowrootslotassignment="manual"><slot></slot></template>xyz</span>load</a>`},
	{"a shadow root on an element that cannot host one", `<a href="#x">Down<data><template shadowrootmode="open">xyz</template>load</data></a>`},
	{"a shadow root on <b>", `<a href="#x">Down<b><template shadowrootmode="open">xyz</template>load</b></a>`},
	{"a second shadow root", `<a href="#x">Down<span><template shadowrootmode="open"><slot></slot></template><template shadowrootmode="open">xyz</template>load</span></a>`},
	{"slot hidden by a rule", `<a href="#">Down<span><template shadowrootmode="open"><style>slot{display:none}</style><slot></slot></template>xyz</span>load</a>`},
	{"slot shrunk by a rule", `<a href="#">Down<span><template shadowrootmode="open"><style>slot{font-size:0}</style><slot></slot></template>xyz</span>load</a>`},
	{"slot hidden by its style", `<a href="#">Down<span><template shadowrootmode="open"><slot style="display:none"></slot></template>xyz</span>load</a>`},
	{"slot hidden", `<a href="#">Down<span><template shadowrootmode="open"><slot hidden></slot></template>xyz</span>load</a>`},
	{"named slot hidden by a rule", `<a href="#">Down<span><template shadowrootmode="open"><style>slot[name=g]{display:none}</style><slot name="g"></slot></template><b slot="g">xyz</b></span>load</a>`},
	{"part hidden from the page", `<style>x-p::part(p){display:none}</style><a href="#">Down<x-p><template shadowrootmode="open"><span part="p">x</span></template></x-p>load</a>`},
	{"font size adjusted to nothing", `<style>.h{font-size-adjust:0}</style>` + gapLink},
	{"font size by a condition", `<style>.h{font-size:if(media(width > 0): 0px; else: 16px)}</style>` + gapLink},
	{"font size from an attribute", `<style>.h{font-size:attr(data-s type(<length>))}</style><a href="#">Down<span class="h" data-s="0px">x</span>load</a>`},
	// A hidden parent whose children show their letters again.
	{"children of a link of size 0", `<style>.z{font-size:0}.z .n{font-size:32px}</style><a class="z" href="#"><span class="n">Down</span>x<span class="n">load</span></a>`},
	{"children of a link of size 0, inline", `<a style="font-size:0" href="#"><span style="font-size:16px">Down</span>x<span style="font-size:16px">load</span></a>`},
	{"visible children of a hidden link", `<style>.v{visibility:hidden;letter-spacing:-1em}.v .s{visibility:visible;letter-spacing:normal}</style><a class="v" href="#"><span class="s">Down</span>x<span class="s">load</span></a>`},
	{"coloured children of a transparent link", `<style>.t{color:transparent;letter-spacing:-1em}.t .n{color:#00e;letter-spacing:normal}</style><a class="t" href="#"><span class="n">Down</span>x<span class="n">load</span></a>`},
	{"children of a link an animation shrinks", `<style>@keyframes k{to{font-size:0}}a{animation:k 1ms forwards}a b{font-size:32px}</style><a href="#"><b>Down</b>x<b>load</b></a>`},
	// Sizes and opacities that multiply through nesting (row 946).
	{"nested em sizes", `<style>.s{font-size:.3em}</style><a href="#">Down<span class="s"><span class="s"><span class="s">x</span></span></span>load</a>`},
	{"nested percentages inline", `<a href="#">Down<span style="font-size:40%"><span style="font-size:40%"><span style="font-size:40%"><span style="font-size:40%">x</span></span></span></span>load</a>`},
	{"nested opacities", `<style>.o{opacity:.1;letter-spacing:-1em}</style><a href="#">Down<span class="o"><span class="o">x</span></span>load</a>`},
	{"right-to-left nested em", `<style>.s{font-size:.3em}</style><a dir="rtl" href="#">load<span class="s"><span class="s"><span class="s">א</span></span></span>Down</a>`},
	// Gradient text voids only a clear colour.
	{"size zero beside gradient text", `<style>.c{background-clip:text}.t{color:transparent}.z{font-size:0}</style><a href="#">Down<span class="c t z">x</span>load</a>`},
	{"size zero in gradient text inline", `<a href="#">Down<span style="background-clip:text;color:transparent;font-size:0">x</span>load</a>`},
	{"gradient text with no background drawn", `<style>.t{color:transparent;letter-spacing:-1em}</style><a href="#">Down<span class="t">x</span>load</a>`},
	{"right-to-left calc", `<style>.z{font-size:calc(1px - 1px)}</style><a dir="rtl" href="#">load<span class="z">א</span>Down</a>`},
	{"right-to-left near transparent", `<style>.z{color:rgba(0,0,0,.001);letter-spacing:-1em}</style><a dir="rtl" href="#">load<span class="z">א</span>Down</a>`},
	{"right-to-left var", `<style>a{--q:0px}.z{font-size:var(--q)}</style><a dir="rtl" href="#">load<span class="z">א</span>Down</a>`},
}

const gapLink = `<a href="#">Down<span class="h">x</span>load</a>`

func TestDownloadEvasionsAttack25(t *testing.T) { wantDownloadButton(t, attack25Evasions) }

// FuzzStyleSheet checks pages whose style sheets and labels are arbitrary:
// reading the sheets (sheet.go), sizes and colours (hidestyle.go) and what
// children show again (reshow.go) must not panic, and the check gives the
// same errors twice (nothing is left over from one check to the next).
func FuzzStyleSheet(f *testing.F) {
	for _, rows := range [][]evasion{sheetEvasions, attack25Evasions, fadeEvasions} {
		for _, e := range rows {
			css, body, ok := strings.Cut(strings.TrimPrefix(e.body, "<style>"), "</style>")
			if !ok {
				css, body = "", e.body
			}
			f.Add(css, body)
		}
	}
	f.Fuzz(func(t *testing.T, css, body string) {
		doc := []byte(page("<style>" + css + "</style>" + body))
		first := len(Check(doc, testOptions).Errors)
		if again := len(Check(doc, testOptions).Errors); again != first {
			t.Fatalf("%q: %d errors, then %d", doc, first, again)
		}
	})
}

// Parentheses left open in a selector or a size end the sheet's reading
// there (they panicked once, slicing past the end).
func TestStyleSheetsUnclosed(t *testing.T) {
	for _, css := range []string{`a:not({display:none}`, `a::slotted({display:none}`, `x::part({display:none}`, `.h{font-size:calc((}`, `.h{font-size:calc(1px*(}`, `:not(`} {
		Check([]byte(page("<style>"+css+"</style><a href=#>Do<b class=h>x</b>wn</a>")), testOptions)
	}
}

// The second round of the 25th outside attack (docs/security.md, rows
// from 970): each was published and drawn as a call to download.
const (
	ldLink  = `<a class="c" href="#"><span class="l">load</span><span class="d">Down</span></a>`
	mirLink = `<a class="c" href="#"><i>d</i><i>a</i><i>o</i><i>l</i><i>n</i><i>w</i><i>o</i><i>D</i></a>`
	grow    = `@keyframes k{from{font-size:0}to{font-size:32px}}`
)

var attack25SecondEvasions = []evasion{
	{"animation in reverse", `<style>` + grow + `.h{animation:k 1s reverse forwards}</style>` + gapLink},
	{"animation alternating", `<style>` + grow + `.h{animation:k 1s 2 alternate forwards}</style>` + gapLink},
	{"animation paused", `<style>` + grow + `.h{animation:k 1s paused both}</style>` + gapLink},
	{"animation stopped mid-way", `<style>@keyframes k{0%,100%{font-size:32px}50%{font-size:0}}.h{animation:k 1s .5 forwards}</style>` + gapLink},
	{"animation duration in a rule of its own", `<style>` + grow + `.h{animation:k .6s both}a .h{animation-duration:1e9s}</style>` + gapLink},
	{"animation paused by a rule of its own", `<style>` + grow + `.h{animation:k .6s both}a .h{animation-play-state:paused}</style>` + gapLink},
	{"animation duration in upper case", `<style>` + grow + `.h{animation:both k 1E9S}</style>` + gapLink},
	{"animation duration by calc", `<style>` + grow + `.h{animation:k calc(1e9 * 1s) both}</style>` + gapLink},
	{"fade paused", `<style>@keyframes k{from{opacity:0}to{opacity:1}}.h{animation:k .6s both paused;letter-spacing:-.6em}</style>` + gapLink},
	{"wrapped in reverse", `<style>.c{display:inline-flex;flex-direction:column;flex-wrap:wrap-reverse;height:1.2em}</style>` + ldLink},
	{"vertical writing", `<style>.c{display:inline-block;writing-mode:vertical-rl}.c span{display:block;writing-mode:horizontal-tb}</style>` + ldLink},
	{"flex direction by a custom property", `<style>.c{display:inline-flex;flex-direction:var(--fd)}a{--fd:row-reverse}</style>` + ldLink},
	{"order by a custom property", `<style>.c{display:inline-flex}.d{order:var(--o)}a{--o:-1}</style>` + ldLink},
	{"order by calc", `<style>.c{display:inline-flex}.d{order:calc(0 - 1)}</style>` + ldLink},
	{"mirrored box", `<style>.c{display:inline-flex;transform:scaleX(-1)}.c i{display:inline-block;transform:scaleX(-1);font-style:normal}</style>` + mirLink},
	{"mirrored by scale", `<style>.c{display:inline-flex;scale:-1 1}.c i{display:inline-block;scale:-1 1;font-style:normal}</style>` + mirLink},
	{"mirrored by rotation", `<style>.c{display:inline-flex;rotate:y 180deg}.c i{display:inline-block;rotate:y 180deg;font-style:normal}</style>` + mirLink},
	{"display by a custom property", `<style>a{--d:none}.h{display:var(--d)}</style>` + gapLink},
	{"display by a fallback", `<style>.h{display:var(--nope, none)}</style>` + gapLink},
	{"opacity by a custom property", `<style>a{--o:0}.h{opacity:var(--o);letter-spacing:-.6em}</style>` + gapLink},
	{"visibility by a custom property", `<style>a{--v:hidden}.h{visibility:var(--v);letter-spacing:-.6em}</style>` + gapLink},
	{"font by a custom property", `<style>a{--f:0/0 a}.h{font:var(--f)}</style>` + gapLink},
	{"colour by a property rule", `<style>@property --t{syntax:"<color>";inherits:true;initial-value:transparent}.h{color:var(--t);letter-spacing:-.6em}</style>` + gapLink},
	{"colour by a fallback", `<style>.h{color:var(--nope,transparent);letter-spacing:-.6em}</style>` + gapLink},
	{"size from an ancestor's style attribute", `<style>.h{font-size:var(--s)}</style><a href="#" style="--s:0px">Down<span class="h">x</span>load</a>`},
	{"size from its own style attribute", `<style>.h{font-size:var(--s)}</style><a href="#">Down<span class="h" style="--s:0px">x</span>load</a>`},
	{"inline display by a custom property", `<a href="#" style="--d:none">Down<span style="display:var(--d)">x</span>load</a>`},
	{"transform by a custom property", `<style>a{--x:translate(-9999px)}.h{position:absolute;transform:var(--x)}</style>` + gapLink},
	{"size by sin", `<style>.h{font-size:calc(32px * sin(0deg))}</style>` + gapLink},
	{"size by mod", `<style>.h{font-size:mod(4px,2px)}</style>` + gapLink},
	{"opacity by calc", `<style>.h{opacity:calc(0.001);letter-spacing:-.6em}</style>` + gapLink},
	{"opacity by a difference", `<style>.h{opacity:calc(1 - 1);letter-spacing:-.6em}</style>` + gapLink},
	{"filter opacity by calc", `<style>.h{filter:opacity(calc(0));letter-spacing:-.6em}</style>` + gapLink},
	{"contained size", `<style>.h{display:inline-block;contain:size;overflow:hidden}</style>` + gapLink},
	{"inline size zero", `<style>.h{display:inline-block;inline-size:0;overflow:clip}</style>` + gapLink},
	{"width under a pixel", `<style>.h{display:inline-block;width:0.1px;overflow:hidden}</style>` + gapLink},
	{"a viewport away by calc", `<style>.h{position:absolute;left:calc(-100vw)}</style>` + gapLink},
	{"fixed off the right edge", `<style>.h{position:fixed;left:100vw}</style>` + gapLink},
	{"zoom by calc", `<style>.h{display:inline-block;zoom:calc(0.01)}</style>` + gapLink},
	{"alpha by calc", `<style>.h{color:rgb(0 0 0 / calc(1 - 1));letter-spacing:-.6em}</style>` + gapLink},
	{"alpha none", `<style>.h{color:rgb(0 0 0 / none);letter-spacing:-.6em}</style>` + gapLink},
	{"relative colour from transparent", `<style>.h{color:rgb(from transparent r g b);letter-spacing:-.6em}</style>` + gapLink},
	{"relative colour with a computed alpha", `<style>.h{color:rgb(from #000 r g b / calc(alpha - 1));letter-spacing:-.6em}</style>` + gapLink},
	{"blurred", `<style>.h{filter:blur(100px);letter-spacing:-.6em}</style>` + gapLink},
}

func TestDownloadEvasionsAttack25Second(t *testing.T) { wantDownloadButton(t, attack25SecondEvasions) }

// fadeEvasions hide letters with a rule and a fade-in that does not, or
// may not, show them again (fade.go): each must still be refused.
var fadeEvasions = []evasion{
	{"no fill mode", `<style>.h{opacity:0;animation:f .5s}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"fill backwards", `<style>.h{opacity:0;animation:f .5s backwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"long", `<style>.h{opacity:0;animation:f 5s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"long delay", `<style>.h{opacity:0;animation:f .5s 3s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"in ms", `<style>.h{opacity:0;animation:f 2000ms forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"three times", `<style>.h{opacity:0;animation:f .1s .1s .1s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"never runs", `<style>.h{opacity:0;animation:f .5s 0 forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"paused", `<style>.h{opacity:0;animation:f .5s forwards paused}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"reversed", `<style>.h{opacity:0;animation:f .5s reverse forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"duration by calc", `<style>.h{opacity:0;animation:f calc(1s * 1e9) forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"important", `<style>.h{opacity:0!important;animation:f .5s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"shows another property", `<style>.h{clip-path:inset(50%);animation:f .5s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"shows one of two", `<style>.h{opacity:0;transform:scale(0);animation:f .5s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"last frame hides too", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}100%{opacity:0}}</style>` + gapLink},
	{"last frame by a custom property", `<style>:root{--o:0}.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:var(--o)}}</style>` + gapLink},
	{"keyframes defined again", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}}@keyframes f{to{color:red}}</style>` + gapLink},
	{"keyframes of another case", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes F{to{opacity:1}}</style>` + gapLink},
	{"keyframes escaped", `<style>.h{opacity:0;animation:\66 .5s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"keyframes in a media query", `<style>.h{opacity:0;animation:f .5s forwards}@media (min-width:2000px){@keyframes f{to{opacity:1}}}</style>` + gapLink},
	{"animation in a media query", `<style>.h{opacity:0}@media (min-width:2000px){.h{animation:f .5s forwards}}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"animation under an ancestor", `<style>.h{opacity:0}.x .h{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><p class="x">x</p>` + gapLink},
	{"animation by attribute", `<style>.h{opacity:0}.h[data-x="1"]{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h" data-x="2">x</span>load</a>`},
	{"animation nested", `<style>.h{opacity:0;&.h{animation:f .5s forwards}}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"animation by a pseudo-class", `<style>.h{opacity:0}.h:nth-child(9){animation:f .5s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"animation stopped by another rule", `<style>.h{opacity:0}.a{animation:f .5s forwards}.a.n{animation:none}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h a n">x</span>load</a>`},
	{"animation replaced by another rule", `<style>.h{opacity:0;animation:f .5s forwards}.s{animation:spin 1s linear}@keyframes f{to{opacity:1}}@keyframes spin{to{transform:rotate(1turn)}}</style><a href="#">Down<span class="h s">x</span>load</a>`},
	{"animation stopped inline", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h" style="animation:none">x</span>load</a>`},
	{"animation stopped inline, escaped", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h" style="anim\61tion:none">x</span>load</a>`},
	{"animation lengthened inline", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h" style="animation-duration:1e9s">x</span>load</a>`},
	{"fill mode by another rule", `<style>.h{opacity:0;animation:f .5s forwards}.z{animation-fill-mode:none}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h z">x</span>load</a>`},
	{"scroll timeline", `<style>.h{opacity:0;animation:f .5s forwards}.z{animation-timeline:view()}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h z">x</span>load</a>`},
	{"stopped after a comment", `<style>.h{opacity:0;animation:f .5s forwards;/**/animation:none}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"stopped by an escaped name", `<style>.h{opacity:0;animation:f .5s forwards;anim\61tion:none}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"stopped in capitals", `<style>.h{opacity:0;animation:f .5s forwards;ANIMATION:none}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"two declarations", `<style>.h{opacity:0;animation:none!important;animation:f .5s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"two animations, the other without fill", `<style>.h{opacity:0;animation:g .1s forwards,f .5s}@keyframes f{to{opacity:1}}@keyframes g{to{color:red}}</style>` + gapLink},
	{"two names in one", `<style>.h{opacity:0;animation:f g .5s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a fade-in that starts hidden, paused", `<style>.h{animation:f .5s forwards paused}@keyframes f{from{opacity:0}to{opacity:1}}</style>` + gapLink},
	{"a wipe that stops half-way", `<style>.h{clip-path:inset(0 100% 0 0);animation:w .5s forwards}@keyframes w{to{clip-path:inset(0 50% 0 0)}}</style>` + gapLink},
	{"a scale-in to nothing", `<style>.h{transform:scale(0);animation:p .3s forwards}@keyframes p{to{transform:scale(.01)}}</style>` + gapLink},
	{"animation reset by all", `<style>.a{animation:f .5s forwards}.a.n{all:unset}.h.h.h{opacity:0}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h a n">x</span>load</a>`},
	{"animation of a shadow tree's sheet", `<style>.h{opacity:0}</style><div><template shadowrootmode="open"><style>.a{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><slot></slot></template>` + `<a href="#">Down<span class="h a">x</span>load</a></div>`},
	{"animation in a template", `<style>.h{opacity:0}</style><template><style>.a{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style></template><a href="#">Down<span class="h a">x</span>load</a>`},
	{"keyframes in a template", `<style>.h{opacity:0;animation:f .5s forwards}</style><template><style>@keyframes f{to{opacity:1}}</style></template>` + gapLink},
	{"animation in a sheet of another type", `<style>.h{opacity:0}</style><style type="text/plain">.a{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h a">x</span>load</a>`},
	{"animation in a sheet for wide screens", `<style>.h{opacity:0}</style><style media="(min-width:3000px)">.a{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h a">x</span>load</a>`},
	{"animation in an SVG sheet of another type", `<style>.h{opacity:0}</style><svg><style type="text/x">.a{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style></svg><a href="#">Down<span class="h a">x</span>load</a>`},
	{"a fade-in drawn by scrolling", `<style>.h{animation:f .5s}.z{animation-timeline:view()}@keyframes f{from{opacity:0}}</style><a href="#">Down<span class="h z">x</span>load</a>`},
	{"a fade-in drawn by scrolling, inline", `<style>.h{animation:f .5s}@keyframes f{from{opacity:0}}</style><a href="#">Down<span class="h" style="animation-range:exit">x</span>load</a>`},
	{"a fade-in lengthened inline, escaped", `<style>.h{animation:f .5s}@keyframes f{from{opacity:0}}</style><a href="#">Down<span class="h" style="anim\61tion-duration:1e9s">x</span>load</a>`},
	// The 28th outside attack (docs/security.md, rows 989-).
	{"important in the last frame", `<style>.h{position:absolute;opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1!important}}</style>` + gapLink},
	{"important transform in the last frame", `<style>.h{display:inline-block;transform:scale(0);animation:f .5s forwards}@keyframes f{to{transform:none !important}}</style>` + gapLink},
	{"an invalid opacity in the last frame", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1px}}</style>` + gapLink},
	{"an invalid opacity hack in the last frame", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1\9}}</style>` + gapLink},
	{"an invalid inset in the last frame", `<style>.h{clip-path:inset(50%);animation:f .5s forwards}@keyframes f{to{clip-path:inset(0) x}}</style>` + gapLink},
	{"an invalid transform in the last frame", `<style>.h{display:inline-block;transform:scale(0);animation:f .5s forwards}@keyframes f{to{transform:none none}}</style>` + gapLink},
	{"the last frame past 100%", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{100.5%{opacity:1}}</style>` + gapLink},
	{"the last frame's list invalid", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to,{opacity:1}}</style>` + gapLink},
	{"the last frame at 99%", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{99%{opacity:1}}</style>` + gapLink},
	{"two fill modes", `<style>.h{opacity:0;animation:f .5s forwards forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a trailing comma", `<style>.h{opacity:0;animation:f .5s forwards,}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"two counts", `<style>.h{opacity:0;animation:f .5s 1 1 forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"two timing functions and a name", `<style>.h{opacity:0;animation:f .5s ease linear forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"steps that cannot jump none", `<style>.h{opacity:0;animation:f .5s steps(1,jump-none) forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a cubic-bezier of three", `<style>.h{opacity:0;animation:f .5s cubic-bezier(0,0,1) forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a cubic-bezier out of range", `<style>.h{opacity:0;animation:f .5s cubic-bezier(2,0,1,1) forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a reserved name", `<style>.h{opacity:0;animation:default .5s forwards}@keyframes default{to{opacity:1}}</style>` + gapLink},
	{"linear() that ends at 0", `<style>.h{opacity:0;animation:f .5s linear(0,0) forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"linear() that ends at 0, a fade-in on its own", `<style>.h{animation:f .5s linear(0, 0) forwards}@keyframes f{from{opacity:0}}</style>` + gapLink},
	{"linear() in a keyframe", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{from{animation-timing-function:linear(0,0)}to{opacity:1}}</style>` + gapLink},
	{"linear() by a longhand", `<style>.h{opacity:0;animation:f .5s forwards}.z{animation-timing-function:linear(0,0)}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h z">x</span>load</a>`},
	{"keyframes defined again, escaped", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}}@\6b eyframes f{to{opacity:0}}</style>` + gapLink},
	{"hidden by keyframes escaped", `<style>@\6b eyframes z{to{font-size:0}}.h{animation:z 1ms forwards}</style>` + gapLink},
	{"scale shown by transform", `<style>.h{display:inline-block;scale:0;animation:f .5s forwards}@keyframes f{to{transform:none}}</style>` + gapLink},
	{"transform shown by scale", `<style>.h{display:inline-block;transform:scale(0);animation:f .5s forwards}@keyframes f{to{scale:1}}</style>` + gapLink},
	{"translate shown by transform", `<style>.h{position:relative;translate:-9999px;animation:f .5s forwards}@keyframes f{to{transform:none}}</style>` + gapLink},
	{"a class split where HTML does not", "<style>.x{position:absolute;opacity:0}.h{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href=\"#\">Down<span class=\"x h\vq\">xyz</span>load</a>"},
	{"a class split at a no-break space", "<style>.x{position:absolute;opacity:0}.h{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href=\"#\">Down<span class=\"x h\u00a0q\">xyz</span>load</a>"},
	{"a class in capitals", `<style>.x{position:absolute;opacity:0}.h{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="x H">xyz</span>load</a>`},
	{"an id with a space", `<style>.x{position:absolute;opacity:0}#h{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="x" id=" h">xyz</span>load</a>`},
	{"a sheet of type text/css after a space", `<style>.x{opacity:0}</style><style type=" text/css">.h{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="x h">xyz</span>load</a>`},
	{"a sheet in MathML", `<style>.x{opacity:0}</style><math><style>.h{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style></math><a href="#">Down<span class="x h">xyz</span>load</a>`},
	{"an invalid animation inline", `<style>.h{opacity:0}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h" style="animation:f .5s linear(0,0) forwards">xyz</span>load</a>`},
	{"a starting style with a long delay", `<style>.h{position:absolute;transition:opacity 1s 100000s}@starting-style{.h{opacity:0}}</style>` + gapLink},
	{"a starting style, nested, with a long transition", `<style>.h{font-size:16px;transition:font-size 9s;@starting-style{font-size:0}}</style>` + gapLink},
	{"a starting style with a long transition inline", `<style>@starting-style{.h{display:none}}</style><a href="#">Down<span class="h" style="transition:display 5s allow-discrete">xyz</span>load</a>`},
	{"scaled flat on one axis", `<a href="#">Down<span style="display:inline-block;transform:scale(1,0)">xyz</span>load</a>`},
	{"its own animation stopped by another rule", `<style>.stats .h{opacity:0;animation:f .5s forwards}.h.n{animation:none}@keyframes f{to{opacity:1}}</style><div class="stats"><a href="#">Down<span class="h n">xyz</span>load</a></div>`},
	{"its own animation stopped inline", `<style>.stats .h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><div class="stats"><a href="#">Down<span class="h" style="animation:none">xyz</span>load</a></div>`},
	{"another rule's fade not shown by a rule's own animation", `<style>.x{opacity:0}.stats .h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><p class="stats"></p><a href="#">Down<span class="x h">xyz</span>load</a>`},
	// The 30th outside attack (docs/security.md, rows 1008-).
	{"a no-break space in the shorthand", "<style>.h{position:absolute;opacity:0;animation:f\u00a0.5s forwards}@keyframes f{to{opacity:1}}</style>" + gapLink},
	{"a no-break space in the value", "<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1\u00a0}}</style>" + gapLink},
	{"a no-break space after the frame", "<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to\u00a0{opacity:1}}</style>" + gapLink},
	{"a no-break space after the name", "<style>.h{opacity:0;animation:f .5s forwards}@keyframes f\u00a0{to{opacity:1}}</style>" + gapLink},
	{"a no-break space after the property", "<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity\u00a0:1}}</style>" + gapLink},
	{"an opacity of 1.", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1.}}</style>` + gapLink},
	{"an escaped last frame after it", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}t\6f{opacity:0}}</style>` + gapLink},
	{"a last frame after a comment", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}/**/to{opacity:0}}</style>` + gapLink},
	{"auto as the duration", `<style>.h{opacity:0;animation:auto .5s forwards}@keyframes auto{to{opacity:1}}</style>` + gapLink},
	{"a starting style with an escaped unit", `<style>.h{position:absolute;transition:opacity .5s 100000\73}@starting-style{.h{opacity:0}}</style>` + gapLink},
	{"a scale property", `<style>.h{position:absolute;display:inline-block;scale:.01}</style>` + gapLink},
	{"a scale property in percent", `<style>.h{display:inline-block;scale:1%}</style>` + gapLink},
	{"pushed behind a perspective", `<style>.h{display:inline-block;transform:perspective(1px) translateZ(-100px)}</style>` + gapLink},
	{"a long fade-in on its own", `<style>.h{animation:f .5s forwards}.z{animation-delay:5s}@keyframes f{from{opacity:0}to{opacity:1}}</style><a href="#">Down<span class="h z">x</span>load</a>`},
	// var() in the shorthand: every value the page gives the property,
	// and its fallback where the root may not give one (row 1014).
	{"a var() given on another element only", `<style>.x{--a:f .5s forwards}.h{opacity:0;animation:var(--a)}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a var() given a long value elsewhere", `<style>:root{--a:f .5s forwards}.y{--a:f 60s forwards}.h{opacity:0;animation:var(--a)}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a var() given in a style attribute", `<style>:root{--a:f .5s forwards}.h{opacity:0;animation:var(--a)}@keyframes f{to{opacity:1}}</style><b style="--a:f 9s forwards"></b>` + gapLink},
	{"a var() given on the root for some screens", `<style>@media (min-width:1px){:root{--a:f .5s forwards}}.h{opacity:0;animation:var(--a)}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a var() of an @property", `<style>:root{--a:f .5s forwards}@property --a{syntax:'*';inherits:false;initial-value:x}.h{opacity:0;animation:var(--a)}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a var() given through another", `<style>:root{--a:var(--b)}.h{opacity:0;animation:var(--a)}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a var() given in :where() of another element", `<style>:where(.x){--a:f .5s forwards}.h{opacity:0;animation:var(--a)}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a var() given on :root with another", `<style>:root .y{--a:f .5s forwards}.h{opacity:0;animation:var(--a)}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a var() of another case", `<style>:root{--a:f .5s forwards}.h{opacity:0;animation:var(--A)}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a var() with a fallback that runs long", `<style>.x{--a:f .5s forwards}.h{opacity:0;animation:var(--a, f 9s forwards)}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"a var() joined to a name", `<style>:root{--a:f}.h{opacity:0;animation:var(--a)in .5s forwards}@keyframes fin{to{opacity:1}}</style>` + gapLink},
	{"a var() in capitals", `<style>:root{--a:f .5s forwards}.h{opacity:0;animation:VAR(--a)}@keyframes f{to{opacity:1}}</style>` + gapLink},
	// Escaped classes, decoded as CSS decodes them (row 1015).
	{"an escaped capital", `<style>.h{opacity:0}.\41{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h a">x</span>load</a>`},
	{"an escaped space", `<style>.h{opacity:0}.a\ b{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h a b">x</span>load</a>`},
	{"an escaped newline", "<style>.h{opacity:0}.a\\\nb{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href=\"#\">Down<span class=\"h ab\">x</span>load</a>"},
	{"an escaped zero", `<style>.h{opacity:0}.a\0{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style><a href="#">Down<span class="h a">x</span>load</a>`},
	// The 31st outside attack (rows 1016-).
	{"an @property in capitals", `<style>@PROPERTY --a{syntax:"*";inherits:false}.h{opacity:0;animation:var(--a)}:root{--a:f .5s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"an @property after a comment", `<style>@property/**/--a{syntax:"*";inherits:false}.h{opacity:0;animation:var(--a)}:root{--a:f .5s forwards}@keyframes f{to{opacity:1}}</style>` + gapLink},
	{"an escaped @property in another sheet", `<style>.h{opacity:0;animation:var(--a)}:root{--a:f .5s forwards}@keyframes f{to{opacity:1}}</style><style>@\50 ROPERTY --a{syntax:"*";inherits:false}</style>` + gapLink},
	{"a second @keyframes after a comment", `<style>.h{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}}@keyframes/**/f{to{opacity:0}}</style>` + gapLink},
	{"an animation named by var() that hides", `<style>.h{animation:var(--a)}:root{--a:k 1s forwards}@keyframes k{to{font-size:0}}</style>` + gapLink},
	{"an animation named by var() with a duration", `<style>.h{animation:var(--a) 1s forwards}:root{--a:k}@keyframes k{to{font-size:0}}</style>` + gapLink},
	{"an animation named by VAR()", `<style>.h{animation:VAR(--a)}:root{--a:k 1s forwards}@keyframes k{to{font-size:0}}</style>` + gapLink},
	{"an animation named by an escaped var()", `<style>.h{animation:v\61r(--a)}:root{--a:k 1s forwards}@keyframes k{to{font-size:0}}</style>` + gapLink},
	{"an animation named by var() in a style attribute", `<style>:root{--a:k 1s forwards}@keyframes k{to{font-size:0}}</style><a href="#">Down<span style="animation:var(--a)">x</span>load</a>`},
	// Fade-ins written in the style attribute (row 1017).
	{"an inline fade-in that runs long", `<style>@keyframes f{to{opacity:1}}</style><a href="#">Down<span style="opacity:0;animation:f 5s forwards">x</span>load</a>`},
	{"an inline fade-in without keyframes", `<a href="#">Down<span style="opacity:0;animation:f .5s forwards">x</span>load</a>`},
	{"an inline fade-in with !important", `<style>@keyframes f{to{opacity:1}}</style><a href="#">Down<span style="opacity:0!important;animation:f .5s forwards">x</span>load</a>`},
	{"an inline fade-in a rule may stop", `<style>@keyframes f{to{opacity:1}}span{animation:none!important}</style><a href="#">Down<span style="opacity:0;animation:f .5s forwards">x</span>load</a>`},
	{"an inline fade-in and another hiding", `<style>@keyframes f{to{opacity:1}}</style><a href="#">Down<span style="opacity:0;font-size:0;animation:f .5s forwards">x</span>load</a>`},
	{"an inline fade-in without a fill mode", `<style>@keyframes f{to{opacity:1}}</style><a href="#">Down<span style="opacity:0;animation:f .5s">x</span>load</a>`},
	{"an inline fade-in paused", `<style>@keyframes f{to{opacity:1}}</style><a href="#">Down<span style="opacity:0;animation:f .5s forwards;animation-play-state:paused">x</span>load</a>`},
	{"an inline fade-in to a faint frame", `<style>@keyframes f{to{opacity:.1}}</style><a href="#">Down<span style="opacity:0;animation:f .5s forwards">x</span>load</a>`},
	// The 32nd outside attack (rows 1022-): values the checker does not
	// compute, and CSS the browser drops.
	{"an animation named by a custom function", `<style>@keyframes k{to{opacity:0}}@function --n(){result:k}.h{animation:--n() .1s forwards}</style>` + gapLink},
	{"an animation named by a typed attr()", `<style>@keyframes k{to{opacity:0}}.h{animation:attr(data-a type(<custom-ident>)) .1s forwards}</style><a href="#">Down<span class="h" data-a="k">x</span>load</a>`},
	{"an animation named through var() by a custom function", `<style>@keyframes k{to{opacity:0}}@function --n(){result:k}:root{--a:--n()}.h{animation:var(--a) .1s forwards}</style>` + gapLink},
	{"an opacity by a custom function", `<style>@function --z(){result:0}.h{opacity:--z()}</style>` + gapLink},
	{"a size by a custom function", `<style>@function --z(){result:0px}.h{font-size:--z()}</style>` + gapLink},
	{"an opacity by a custom function in a style attribute", `<a href="#">Down<span style="opacity:--z()">x</span>load</a>`},
	{"a display by a typed attr()", `<style>.h{display:attr(data-d type(<custom-ident>))}</style><a href="#">Down<span class="h" data-d="none">x</span>load</a>`},
	{"a direction by a custom function", `<style>@function --d(){result:rtl}.r{direction:--d();unicode-bidi:bidi-override}</style><a href="#"><span class="r">daolnwoD</span></a>`},
	{"keyframes nested in a style rule", `<style>.zz{@keyframes in{to{opacity:1}}}</style><a href="#">Down<span style="opacity:0;animation:in .5s forwards">x</span>load</a>`},
	{"keyframes after a stray brace", `<style>.x{color:red}}@keyframes in{to{opacity:1}}</style><a href="#">Down<span style="opacity:0;animation:in .5s forwards">x</span>load</a>`},
	{"keyframes after a stray brace, by a rule", `<style>.h{opacity:0;animation:in .5s forwards}.x{color:red}}@keyframes in{to{opacity:1}}</style>` + gapLink},
	{"an animation after an open bracket in a style attribute", `<style>@keyframes in{to{opacity:1}}</style><a href="#">Down<span style="opacity:0;--s:(;animation:in .5s forwards">x</span>load</a>`},
	{"an animation after an open string in a style attribute", `<style>@keyframes in{to{opacity:1}}</style><a href="#">Down<span style="opacity:0;--s:'\';animation:in .5s forwards">x</span>load</a>`},
	{"an animation after an open bracket in a rule", `<style>.h{opacity:0;--s:[;animation:in .5s forwards}@keyframes in{to{opacity:1}}</style>` + gapLink},
	{"keyframes after an open bracket", `<style>.h{opacity:0;animation:in .5s forwards}.q{--s:(}@keyframes in{to{opacity:1}}</style>` + gapLink},
	{"keyframes that hide by a visibility from var()", `<style>@keyframes k{to{visibility:var(--v)}}:root{--v:hidden}.h{animation:k .5s forwards}</style>` + gapLink},
	{"keyframes that hide by a display from var()", `<style>@keyframes k{to{display:var(--v)}}.x{--v:none}.h{animation:k .5s forwards}</style>` + gapLink},
	// The 33rd outside attack (rows 1028-): more values not computed,
	// and more of CSS's error recovery.
	{"an opacity by if()", `<style>.h{opacity:if(media(width>0):0;else:1)}</style>` + gapLink},
	{"a display by if()", `<style>.h{display:if(else:none)}</style>` + gapLink},
	{"an opacity by env()", `<style>.h{opacity:env(nope,0)}</style>` + gapLink},
	{"a size by env()", `<style>.h{font-size:env(safe-area-inset-top)}</style>` + gapLink},
	{"a width by calc-size()", `<style>.h{display:inline-block;overflow:hidden;vertical-align:top;width:calc-size(auto,0px)}</style>` + gapLink},
	{"a width by anchor-size()", `<style>.h{display:inline-block;overflow:hidden;vertical-align:top;width:anchor-size(--nope width,0px)}</style>` + gapLink},
	{"an opacity by round()", `<style>.h{opacity:round(down,0.9,1)}</style>` + gapLink},
	{"an opacity of minus infinity", `<style>.h{opacity:calc(-infinity)}</style>` + gapLink},
	{"a prefixed filter", `<style>.h{-webkit-filter:opacity(0)}</style>` + gapLink},
	{"a rule between <!-- and -->", `<style><!--.h{opacity:0}--></style>` + gapLink},
	{"a fade-in in a sheet of another namespace", `<style>.h{opacity:0}</style><style>@namespace url(http://www.w3.org/2000/svg);@keyframes f{to{opacity:1}}.h{animation:f .5s forwards}</style>` + gapLink},
	{"a fade-in after a ';' in the selector", `<style>.h{opacity:0}@keyframes f{to{opacity:1}}x;.h{animation:f .5s forwards}</style>` + gapLink},
	{"a fade-in in a @layer of two names", `<style>.h{opacity:0}@keyframes f{to{opacity:1}}@layer a b{.h{animation:f .5s forwards}}</style>` + gapLink},
	{"keyframes after a stray ';'", `<style>.x{};@keyframes f{to{opacity:1}}</style><a href="#">Down<span style="opacity:0;animation:f .5s forwards">x</span>load</a>`},
	{"a var() with an escaped name", `<style>:root{--\61:f .5s forwards}.h{opacity:0;animation:var(--a)}@keyframes f{to{opacity:1}}</style>` + gapLink},
}

func TestDownloadEvasionsFades(t *testing.T) { wantDownloadButton(t, fadeEvasions) }

// Letters that a rule hides and the page's own fade-in, wipe-in or
// scale-in shows again within a moment are read (docs/security.md, rows
// 959 and 979).
func TestFadeInsKeepLabelsAllowed(t *testing.T) {
	const stat = `<a href="#stats"><span class="%s">1.2M</span> downloads</a>`
	for _, tt := range []struct{ css, class string }{
		{`.fade-in{opacity:0;animation:fadeIn .6s ease-out forwards}@keyframes fadeIn{to{opacity:1}}`, "num fade-in"},
		{`.opacity-0{opacity:0}.animate-fade-in{animation:fade-in .5s ease-out forwards}@keyframes fade-in{0%{opacity:0}100%{opacity:1}}`, "opacity-0 animate-fade-in"},
		{`@layer utilities{.opacity-0{opacity:0}.animate-fade-in{animation:fade-in .5s forwards}}@keyframes fade-in{to{opacity:1}}`, "opacity-0 animate-fade-in"},
		{`.wipe{clip-path:inset(0 100% 0 0);animation:wipe .8s forwards}@keyframes wipe{to{clip-path:inset(0 0 0 0)}}`, "wipe"},
		{`.reveal{opacity:0;transform:translateY(20px);animation:up .7s cubic-bezier(.2, .8, .2, 1) .2s forwards}@keyframes up{to{opacity:1;transform:none}}`, "reveal"},
		{`.fade{opacity:0;animation:f .5s both}@keyframes f{from{opacity:0}to{opacity:1}}`, "fade"},
		{`.pop{transform:scale(0);-webkit-animation:pop .4s steps(4, end) forwards;animation:pop .4s steps(4, end) forwards}@keyframes pop{to{transform:scale(1)}}`, "pop"},
		{`.d1{animation-delay:.2s}.fade{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}}`, "fade d1"},
		{`@media (prefers-reduced-motion:reduce){*{animation-duration:.01ms!important;animation-iteration-count:1!important}}.fade{opacity:0;animation:f .5s forwards}@keyframes f{to{opacity:1}}`, "fade"},
		{`.clip{clip-path:none}`, "clip"},
		{`.fade-in{opacity:0;animation:fadeIn .6s ease-out;animation-fill-mode:forwards}@keyframes fadeIn{from{opacity:0}to{opacity:1}}`, "num fade-in"},
		// The 28th outside attack's false positives (rows 989-).
		{`.fade-in{opacity:0;animation:fadeIn .6s ease-out forwards}@keyframes fadeIn{to{opacity:1}}</style><style>`, "fade-in\" style=\"animation-delay:.2s"},
		{`.stats .num{opacity:0;animation:fadeIn .6s ease-out forwards}@keyframes fadeIn{to{opacity:1}}</style><style>`, "num"},
		{`.stat{& .num{opacity:0;animation:fadeIn .6s ease-out forwards}}@keyframes fadeIn{to{opacity:1}}`, "num"},
		{`.fade-in{opacity:0;animation:fadeIn .6s;animation-fill-mode:forwards}@keyframes fadeIn{to{opacity:1}}`, "fade-in"},
		{`.fade-in{opacity:0;animation:fadeIn .6s forwards,float 3s infinite 1s}@keyframes fadeIn{to{opacity:1}}@keyframes float{50%{transform:translateY(-4px)}}`, "fade-in"},
		{`.fade-in{opacity:0;animation:fadeIn .6s forwards}@keyframes fadeIn{from{opacity:0}to{opacity:1;transform:translateY(0)}}`, "fade-in"},
		{`.fade{opacity:0;animation:f .5s forwards !important}@keyframes f{to{opacity:1}}`, "fade"},
		{`.h{opacity:0}</style><style media="all">.a{animation:f .5s forwards}@keyframes f{to{opacity:1}}`, "h a"},
		{`.h{opacity:0}</style><svg width="0" height="0"><style>.a{animation:f .5s forwards}@keyframes f{to{opacity:1}}</style></svg><style>`, "h a"},
		// The hiding rule's own animation, under a class of an
		// ancestor, which the element surely matches where it hides.
		{`.stats .num{opacity:0;animation:fadeIn .6s ease-out forwards}@keyframes fadeIn{to{opacity:1}}</style><div class="stats"><style>`, "num"},
		// var() in the shorthand, given on the root (Tailwind v4's
		// theme) or by its fallback (row 1014).
		{`@layer theme{:root,:host{--animate-fade-in:fade-in .5s ease-out forwards}}@layer utilities{.opacity-0{opacity:0%}.animate-fade-in{animation:var(--animate-fade-in)}}@keyframes fade-in{to{opacity:1}}`, "opacity-0 animate-fade-in"},
		{`:root{--fade:fadeIn .6s ease-out forwards}.fade-in{opacity:0;animation:var(--fade)}@keyframes fadeIn{to{opacity:1}}`, "fade-in"},
		{`.fade-in{opacity:0;animation:var(--fade, fadeIn .6s forwards)}@keyframes fadeIn{to{opacity:1}}`, "fade-in"},
		{`html{--d:.6s}.fade-in{opacity:0;animation:fadeIn var(--d) ease-out forwards}@keyframes fadeIn{to{opacity:1}}`, "fade-in"},
		// Escaped classes of the animation's rule: Tailwind's arbitrary
		// values (row 1015).
		{`.opacity-0{opacity:0}.animate-\[fade_\.5s_ease-out_forwards\]{animation:fade .5s ease-out forwards}@keyframes fade{to{opacity:1}}`, "opacity-0 animate-[fade_.5s_ease-out_forwards]"},
		{`.opacity-0{opacity:0}.\61 nim{animation:fade .5s forwards}@keyframes fade{to{opacity:1}}`, "opacity-0 anim"},
		{`.opacity-0{opacity:0}.\31 23{animation:fade .5s forwards}@keyframes fade{to{opacity:1}}`, "opacity-0 123"},
		{`.opacity-0{opacity:0}.a\62{animation:fade .5s forwards}@keyframes fade{to{opacity:1}}`, "opacity-0 ab"},
		// The 31st attack's false positives: var() beside a first
		// frame that hides (rows 1016-).
		{`:root{--dur:.6s}.fade-in{opacity:0;animation:fade-in var(--dur) forwards}@keyframes fade-in{from{opacity:0}to{opacity:1}}`, "fade-in"},
		{`:root{--ease:cubic-bezier(.2,.8,.2,1)}.fade-in{opacity:0;animation:fade-in .5s var(--ease) forwards}@keyframes fade-in{from{opacity:0}to{opacity:1}}`, "fade-in"},
		{`.fade-in{opacity:0;animation:var(--x,fade-in .5s forwards)}@keyframes fade-in{from{opacity:0}to{opacity:1}}`, "fade-in"},
		{`:root{--x:fade-in .5s forwards}.fade-in{opacity:0;animation:var(--x)}@keyframes fade-in{0%{opacity:0}100%{opacity:1}}`, "fade-in"},
		{`:where(html){--ease-3:cubic-bezier(.25,0,.3,1);--animation-fade-in:fade-in .5s var(--ease-3)}.fade-in{opacity:0;animation:var(--animation-fade-in) forwards}@keyframes fade-in{from{opacity:0}to{opacity:1}}`, "fade-in"},
		{`:root{--dur:.6s}@media (prefers-reduced-motion:reduce){:root{--dur:0s}}.fade-in{opacity:0;animation:fade-in var(--dur) forwards}@keyframes fade-in{from{opacity:0}to{opacity:1}}`, "fade-in"},
		// tailwindcss-animate (shadcn/ui): a custom property whose name
		// ends in "opacity" is not an opacity (the 32nd attack).
		{`@keyframes enter{from{opacity:var(--tw-enter-opacity,1)}}.animate-in{animation:enter .15s;--tw-enter-opacity:initial}.fade-in-0{--tw-enter-opacity:0}`, "animate-in fade-in-0"},
	} {
		body := `<style>` + tt.css + `</style>` + strings.Replace(stat, "%s", tt.class, 1)
		if r := Check([]byte(page(body)), testOptions); len(r.Errors) > 0 {
			t.Errorf("%s: got errors %v, want none", body, ruleNames(r.Errors))
		}
	}
}

// Fade-ins written in the style attribute show the letters again too
// (row 1017): the style's own animation of the page's @keyframes, read
// as a rule's is.
func TestInlineFadeInsKeepLabelsAllowed(t *testing.T) {
	for _, body := range []string{
		`<style>@keyframes fadeIn{to{opacity:1}}</style><a href="#stats"><span style="opacity:0;animation:fadeIn .6s .2s forwards">1.2M</span> downloads</a>`,
		`<style>@keyframes fadeIn{from{opacity:0}to{opacity:1}}</style><a href="#stats"><span style="opacity:0;animation:fadeIn .6s ease-out both">1.2M</span> downloads</a>`,
		`<style>:root{--in:fadeIn .6s forwards}@keyframes fadeIn{to{opacity:1}}</style><a href="#stats"><span style="opacity:0;animation:var(--in)">1.2M</span> downloads</a>`,
		`<style>@keyframes up{to{opacity:1;transform:none}}</style><a href="#stats"><span style="display:inline-block;opacity:0;transform:translateY(4000px);animation:up .5s forwards">1.2M</span> downloads</a>`,
	} {
		if r := Check([]byte(page(body)), testOptions); len(r.Errors) > 0 {
			t.Errorf("%s: got errors %v, want none", body, ruleNames(r.Errors))
		}
	}
}

// attr() that draws text, and brackets closed in a custom property, are
// read as before (rows 1022-).
func TestUnreadValuesKeepPagesAllowed(t *testing.T) {
	for _, body := range []string{
		`<style>[data-tip]::after{content:attr(data-tip)}</style><a href="#stats" data-tip="Figures">See the stats</a>`,
		`<style>@keyframes in{to{opacity:1}}</style><a href="#stats"><span style="opacity:0;--s:(a);animation:in .5s forwards">2M</span> downloads</a>`,
		`<style>.x{--grid:[a] 1fr [b]}.h{opacity:0;animation:in .5s forwards}@keyframes in{to{opacity:1}}</style><a href="#stats"><span class="h">2M</span> downloads</a>`,
		`<style>.c{padding-inline:attr(data-p type(<length>),4px)}</style><a href="/stats"><span class="c" data-p="6px">Our</span> download stats</a>`,
		`<style>@layer theme, base, utilities;@layer utilities{.o{opacity:0}.a{animation:in .5s forwards}}@keyframes in{to{opacity:1}}</style><a href="/stats"><span class="o a">2M</span> downloads</a>`,
		`<style>@layer a.b{.o{opacity:0}.a{animation:in .5s forwards}}@keyframes in{to{opacity:1}}</style><a href="/stats"><span class="o a">2M</span> downloads</a>`,
		`<style>@charset "utf-8";.o{opacity:0}.a{animation:in .5s forwards}@keyframes in{to{opacity:1}}</style><a href="/stats"><span class="o a">2M</span> downloads</a>`,
	} {
		if r := Check([]byte(page(body)), testOptions); len(r.Errors) > 0 {
			t.Errorf("%s: got errors %v, want none", body, ruleNames(r.Errors))
		}
	}
}

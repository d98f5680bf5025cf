package web

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/htmlcheck"
)

// TestBrowserStyleSheetHidingDrawnAsRead proves, in Chromium and Firefox,
// that letters hidden by a rule of a style sheet, which the page checker
// reads as hidden (htmlcheck's sheet.go; docs/security.md, rows 903, 906,
// 939 and 943-), leave a call to download drawn, so that the checker
// refuses what a visitor sees as a download button; and that the rules it
// does not read as hiding the label's letters leave them drawn.
func TestBrowserStyleSheetHidingDrawnAsRead(t *testing.T) {
	const gap = `<a href="#">Down<span class="h">xyz</span>load</a>`
	cases := []drawnCase{
		{`<style>.h{display:none}</style>` + gap, true},
		{`<style>.h{font-size:0}</style>` + gap, true},
		{`<style>.h{font-size:0!important}</style><a href="#">Down<span class="a h">xyz</span>load</a>`, true},
		{`<style>#g{display:none}</style><a href="#">Down<span id="g">xyz</span>load</a>`, true},
		{`<style>span[data-g]{display:none}</style><a href="#">Down<span data-g>xyz</span>load</a>`, true},
		{`<style>s{display:none}</style><a href="#">Down<s>xyz</s>load</a>`, true},
		{`<style>body a .h{display:none}</style>` + gap, true},
		{`<style>.h:not(:hover){font-size:0}</style>` + gap, true},
		{`<style>@media screen{@supports (display:grid){.h{display:none}}}</style>` + gap, true},
		{`<style>a{.h{display:none}}</style>` + gap, true},
		{`<style>.h{color:red;&:not(.x){display:none}}</style>` + gap, true},
		{`<style>.h{@media screen{display:none}}</style>` + gap, true},
		{`<style>.\68 {disp\6c ay:/**/none}</style>` + gap, true},
		{gap + `<style>.h{display:none}</style>`, true},
		{`<p title="<style>">x</p><style>.h{display:none}</style>` + gap, true},
		{`<style>.q::after{content:"<style>"} .h{display:none}</style>` + gap, true},
		{`<svg width="0" height="0"><style><![CDATA[.h{display:none}]]></style></svg>` + gap, true},
		{`<svg width="0" height="0"><style>&#46;h{display:none}</style></svg>` + gap, true},
		{`<svg width="0" height="0"><style>.h{display:none}</style></svg>` + gap, true},
		{`<style>@keyframes z{to{font-size:0}}.h{animation:z 1ms forwards}</style>` + gap, true},
		{`<style>@keyframes z{to{font-size:0}}</style><a href="#">Down<span style="animation:z 1ms forwards">xyz</span>load</a>`, true},
		{`<style>:not(:defined){font-size:0}</style><a href="#">Down<x-gap>xyz</x-gap>load</a>`, true},
		{`<style>.z{font-size:0}</style><a href="#" dir="rtl">load<span class="z">א</span>Down</a>`, true},
		{`<style>.c{display:contents}</style><div>&#x202E;<p class="c"><a href="#">daolnwoD</a></p></div>`, true},
		{`<style>b{display:inline-block}</style><a href="#"><b>דה</b><b>הור</b></a>`, true},
		{`<style>[data-b]{display:inline flex}</style><a href="#"><span data-b>דה</span><span data-b>הור</span></a>`, true},
		// Drawn in another order by a rule.
		{`<style>.a{order:2}.b{order:1}</style><a href="#" style="display:inline-flex"><span class="a">load</span><span class="b">Down</span></a>`, true},
		{`<style>.r{float:right}</style><a href="#"><span class="r">load</span><span class="r">Down</span></a>`, true},
		{`<style>a span:first-child{float:right}</style><a href="#"><span>load</span>Down</a>`, true},
		{`<style>.f{display:inline-flex;flex-flow:row-reverse wrap}</style><a href="#" class="f"><span>load</span><span>Down</span></a>`, true},
		{`<style>.g{display:inline-grid}.x{grid-area:1/2}.y{grid-area:1/1}</style><a href="#" class="g"><span class="x">load</span><span class="y">Down</span></a>`, true},
		{`<style>@media screen{.b{order:-1}}</style><a href="#" style="display:inline-flex"><span>load</span><span class="b">Down</span></a>`, true},
		{`<a href="#"><span style="display:inline-flex"><b style="order:1">x</b><b>y</b></span> <span style="display:inline-flex"><b style="order:2">load</b><b style="order:1">Down</b></span></a>`, true},
		{`<style>.f{display:inline-flex}.a{order:1}.b{order:2}</style><a href="#"><span class="f"><b class="b">wn</b><b class="a">Do</b></span><span class="f"><b class="b">ad</b><b class="a">lo</b></span></a>`, true},
		{`<a href="#" style="display:inline-flex"><span style="order:2;display:inline-flex"><b style="order:2">ad</b><b style="order:1">lo</b></span><span style="order:1;display:inline-flex"><b style="order:2">wn</b><b style="order:1">Do</b></span></a>`, true},
		{`<a href="#">Down<b style="display:inline-block;transform:scaleX(0);width:0">xyz</b>load</a>`, true},
		{`<style>.l{float:left}.o{order:0}.f{display:inline-flex;flex-direction:row}</style><a href="/a" class="f"><span class="l">Down</span><span class="o">stream</span> load</a>`, false},
		// The 25th outside attack (docs/security.md, rows from 943).
		{`<style>` + strings.Repeat("@media all{", 32) + `.h{display:none}` + strings.Repeat("}", 32) + `</style>` + gap, true},
		{`<style>.h{font-size:calc(1px - 1px)}</style>` + gap, true},
		{`<style>.h{font-size:max(0px,0.1px)}</style>` + gap, true},
		{`<style>a{--z:0px}.h{font-size:var(--z)}</style>` + gap, true},
		{`<style>.h{font-size:var(--nope,0px)}</style>` + gap, true},
		{`<style>@property --z{syntax:"<length>";inherits:true;initial-value:0px}.h{font-size:var(--z)}</style>` + gap, true},
		{`<a href="#">Down<span><template shadowrootmode="open"></template>x</span>load</a>`, true},
		{`<a href="#">Down<dialog>x</dialog>load</a>`, true},
		{`<style>.f::first-line{font-size:0}</style><a href="#">Down<span class="f" style="display:inline-block">zz<br>load</span></a>`, true},
		{`<a href="#">Down<span><template shadowrootmode="open" shadowrootslotassignment="manual"><slot></slot></template>xyz</span>load</a>`, true},
		{`<a href="#">Down<data><template shadowrootmode="open">xyz</template>load</data></a>`, true},
		{`<a href="#">Down<span><template shadowrootmode="open"><slot></slot></template><template shadowrootmode="open">xyz</template>load</span></a>`, true},
		{`<a href="#">Down<span style="display:inline-block;transform:rotateY(90deg)">xyz</span>load</a>`, true},
		{`<a href="#">Down<span style="display:inline-block;rotate:x 90deg">xyz</span>load</a>`, true},
		{`<style>.e{display:inline-block;transform:matrix(0,0,0,1,0,0)}</style><a href="#">Down<span class="e">xyz</span>load</a>`, true},
		{`<a href="/a">Get <span style="display:inline-block;transform:rotateY(30deg)">the</span> report</a>`, false},
		{`<style>.f{display:inline-block}.f::first-letter{font-size:0}</style><a href="#">Down<span class="f">xload</span></a>`, true},
		{`<style>a::first-letter{font-size:0}</style><a href="#" style="display:inline-block">xDownload</a>`, true},
		{`<style>.f:first-letter{font-size:0}</style><a href="#" style="display:inline-block"><b class="f" style="display:inline-block"> <i>x</i>Download</b></a>`, true},
		{`<style>.f{display:inline-block}.f::first-line{font-size:0}</style><a href="#">Down<span class="f">xyz</span>load</a>`, true},
		{`<style>.f{display:inline-block}.f::first-letter{font-size:3em}</style><a href="/a">Get the <span class="f">report</span></a>`, false},
		{`<a href="#">Down<span><template shadowrootmode="open"><style>slot{display:none}</style><slot></slot></template>xyz</span>load</a>`, true},
		{`<a href="#">Down<span><template shadowrootmode="open"><style>slot{font-size:0}</style><slot></slot></template>xyz</span>load</a>`, true},
		{`<a href="#">Down<span><template shadowrootmode="open"><slot hidden></slot></template>xyz</span>load</a>`, true},
		{`<a href="#">Down<span><template shadowrootmode="open"><style>slot[name=g]{display:none}</style><slot name="g"></slot></template><b slot="g">xyz</b></span>load</a>`, true},
		{`<a href="#">Down<span><template shadowrootmode="open"><style>slot{color:red}</style><slot></slot></template>xyz</span>load</a>`, false},
		{`<style>@keyframes k{to{font-size:calc(1px - 1px)}}.h{animation:k 1ms forwards}</style>` + gap, true},
		{`<style>@-webkit-keyframes k{to{font-size:0}}.h{-webkit-animation:k 1ms forwards}</style>` + gap, true},
		{`<svg width="0" height="0"><style>.h{display:<g>zz</g>none}</style></svg>` + gap, true},
		{`<style>.z{font-size:0}.z .n{font-size:32px}</style><a class="z" href="#"><span class="n">Down</span>x<span class="n">load</span></a>`, true},
		{`<a style="font-size:0" href="#"><span style="font-size:16px">Down</span>x<span style="font-size:16px">load</span></a>`, true},
		{`<style>@keyframes k{to{font-size:0}}a{animation:k 1ms forwards}a b{font-size:32px}</style><a href="#"><b>Down</b>x<b>load</b></a>`, true},
		{`<style>.s{font-size:.3em}</style><a href="#">Down<span class="s"><span class="s"><span class="s">x</span></span></span>load</a>`, true},
		{`<a href="#">Down<span style="font-size:40%"><span style="font-size:40%"><span style="font-size:40%"><span style="font-size:40%">x</span></span></span></span>load</a>`, true},
		{`<style>.small{font-size:.8em}</style><a href="/x">Get the <span class="small">free <span class="small">report</span></span></a>`, false},
		{`<a href="/fonts">Free <span style="font-size:20px">download</span>able fonts</a>`, false},
		// Its false positives: a count that fades in, or that a rule
		// hides only where the page is not.
		{`<style>@keyframes fadeIn{from{opacity:0}to{opacity:1}}.fade-in{animation:fadeIn .6s ease-out both}</style><a href="#stats"><span class="fade-in">1.2M</span> downloads</a>`, false},
		{`<style>.fade{transition:opacity .15s linear}.fade:not(.show){opacity:0}</style><a href="#stats"><span class="fade show">1.2M</span> downloads</a>`, false},
		{`<style>.dark .num{color:transparent}@media print{.num{display:none}}</style><a href="#stats"><span class="num">1.2M</span> downloads</a>`, false},
		// Not hidden: a pseudo-element's box, :empty, a comment, a string.
		{`<style>.h::before{font-size:0;content:"q"}.h:after{display:none}</style>` + gap, false},
		{`<style>:empty{display:none}</style><a href="#"><b>2M</b> downloads</a>`, false},
		{`<style>/* .h{display:none} */ .q::after{content:".h{display:none}"}</style>` + gap, false},
	}
	wantDrawnAsRead(t, "sheet", cases, func(t *testing.T, b *browserEnv, tc drawnCase) string {
		// An animation ends a frame or two after the load: the text is
		// read until it says "Download", for a second.
		for deadline := time.Now().Add(time.Second); ; time.Sleep(50 * time.Millisecond) {
			drawn := eval[string](t, b.tab, drawnText)
			if !tc.drawn || readsAsCall(drawn) || time.Now().After(deadline) {
				return drawn
			}
		}
	})
}

// drawnCase is a page's body, and whether it is drawn as a call to
// download (see readsAsCall), which the page checker must then refuse.
type drawnCase struct {
	html  string
	drawn bool
}

// wantDrawnAsRead opens each case's page (its files named name-N.html)
// in Chromium and Firefox, reads what it draws with read, and fails where
// that is not drawn as the case says, or where the page checker's
// download.button finding does not say the same.
func wantDrawnAsRead(t *testing.T, name string, cases []drawnCase, read func(*testing.T, *browserEnv, drawnCase) string) {
	t.Helper()
	for _, e := range []engine{chromium, firefox} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			b := newBrowserEnvWith(t, envConfig{engine: e, variant: published})
			for i, tc := range cases {
				page := `<!doctype html><html lang="en"><meta charset="utf-8"><title>` + name + `</title>` +
					`<meta name="viewport" content="width=device-width"><body style="font: 20px sans-serif">` + tc.html + `</body></html>`
				b.navigate(t, b.evil.host(fmt.Sprintf("%s-%d.html", name, i), []byte(page)))
				drawn := read(t, b, tc)
				refused := slices.ContainsFunc(htmlcheck.Check([]byte(page), htmlcheck.Options{}).Errors,
					func(f htmlcheck.Finding) bool { return f.Rule == htmlcheck.RuleDownloadButton })
				if got := readsAsCall(drawn); got != tc.drawn {
					t.Errorf("%s is drawn %q; drawn as Download: %v, want %v", tc.html, drawn, got, tc.drawn)
				}
				if refused != tc.drawn {
					t.Errorf("%s, drawn %q: the checker refuses it: %v, want %v", tc.html, drawn, refused, tc.drawn)
				}
			}
		})
	}
}

// readsAsCall reports whether the drawn text (see drawnText) reads
// "Download", or "הורדה" from right to left.
func readsAsCall(drawn string) bool {
	r := []rune(drawn)
	slices.Reverse(r)
	return strings.Contains(drawn, "Download") || strings.Contains(string(r), "הורדה")
}

// drawnSeenText is drawnText (see browser_bidi_test.go) without the
// letters of an element that its own or an ancestor's opacity, or a
// clip-path other than none or a zero inset, keeps out of sight: what
// getClientRects alone does not tell.
const drawnSeenText = `(` + drawnTextOf + `)(el => {
  let o = 1;
  for (; el && el.nodeType === 1; el = el.parentElement) {
    const s = getComputedStyle(el);
    o *= parseFloat(s.opacity);
    const c = s.clipPath || 'none';
    if (c !== 'none' && !/^inset\((0(px|%)?\s*)+\)$/.test(c)) return true;
  }
  return o < 0.05;
})`

// TestBrowserFadeInsDrawnAsRead proves, in Chromium and Firefox, that
// letters a rule hides by opacity, clip-path or transform and the page's
// own quick fade-in, wipe-in or scale-in shows again are drawn once the
// animations end, which the page checker allows (htmlcheck's fade.go;
// docs/security.md, row 981), and that where such an animation does not
// surely show them again they stay hidden and leave "Download" drawn,
// which it refuses.
func TestBrowserFadeInsDrawnAsRead(t *testing.T) {
	const fade = `@keyframes f{to{opacity:1}}`
	link := func(class string) string {
		return `<a href="#">Down<span class="` + class + `">xyz</span>load</a>`
	}
	cases := []drawnCase{ // drawn: after the animations end
		{`<style>.h{opacity:0;animation:f .3s ease-out forwards}` + fade + `</style>` + link("h"), false},
		{`<style>.opacity-0{opacity:0}.animate-fade-in{animation:fade-in .3s ease-out forwards}@keyframes fade-in{0%{opacity:0}100%{opacity:1}}</style>` + link("opacity-0 animate-fade-in"), false},
		{`<style>@layer utilities{.opacity-0{opacity:0}.animate-in{animation:f .3s both}}` + fade + `</style>` + link("opacity-0 animate-in"), false},
		{`<style>.h{clip-path:inset(0 100% 0 0);animation:w .3s forwards}@keyframes w{to{clip-path:inset(0 0 0 0)}}</style>` + link("h"), false},
		{`<style>.h{opacity:0;transform:translateY(8px);animation:up .3s cubic-bezier(.2, .8, .2, 1) .1s forwards}@keyframes up{to{opacity:1;transform:none}}</style>` + link("h"), false},
		{`<style>.h{display:inline-block;transform:scale(0);animation:p .3s steps(3, end) forwards}@keyframes p{to{transform:scale(1)}}</style>` + link("h"), false},
		{`<style>.h{opacity:0;animation:f .3s forwards}` + fade + `</style><a href="#">Down<span class="h" style="animation-delay:.2s">xyz</span>load</a>`, false},
		{`<style>.stats .h{opacity:0;animation:f .3s forwards}` + fade + `</style><div class="stats">` + link("h") + `</div>`, false},
		{`<style>.h{opacity:0;animation:f .3s;animation-fill-mode:forwards}` + fade + `</style>` + link("h"), false},
		// var() in the shorthand (docs/security.md, row 1014).
		{`<style>@layer theme{:root,:host{--animate-in:f .3s ease-out forwards}}@layer utilities{.opacity-0{opacity:0%}.animate-in{animation:var(--animate-in)}}` + fade + `</style>` + link("opacity-0 animate-in"), false},
		{`<style>.h{opacity:0;animation:var(--a, f .3s forwards)}` + fade + `</style>` + link("h"), false},
		{`<style>.x{--a:f .3s forwards}.h{opacity:0;animation:var(--a)}` + fade + `</style>` + link("h"), true},
		{`<style>:root{--a:f}.h{opacity:0;animation:var(--a)in .3s forwards}@keyframes fin{to{opacity:1}}</style>` + link("h"), true},
		// The 31st outside attack (rows 1016-), and fade-ins written
		// in the style attribute (row 1017).
		{`<style>@PROPERTY --a{syntax:"*";inherits:false}.h{opacity:0;animation:var(--a)}:root{--a:f .3s forwards}` + fade + `</style>` + link("h"), true},
		{`<style>.h{opacity:0;animation:f .3s forwards}` + fade + `@keyframes/**/f{to{opacity:0}}</style>` + link("h"), true},
		{`<style>.h{animation:var(--a)}:root{--a:k .3s forwards}@keyframes k{to{font-size:0}}</style>` + link("h"), true},
		{`<style>:root{--d:.3s}.h{opacity:0;animation:f var(--d) forwards}@keyframes f{from{opacity:0}to{opacity:1}}</style>` + link("h"), false},
		{`<style>` + fade + `</style><a href="#">Down<span style="opacity:0;animation:f .3s .1s forwards">xyz</span>load</a>`, false},
		{`<style>` + fade + `span{animation:none!important}</style><a href="#">Down<span style="opacity:0;animation:f .3s forwards">xyz</span>load</a>`, true},
		// CSS the browser drops (the 32nd attack, rows 1022-).
		{`<style>.zz{@keyframes f{to{opacity:1}}}</style><a href="#">Down<span style="opacity:0;animation:f .3s forwards">xyz</span>load</a>`, true},
		{`<style>.x{color:red}}` + fade + `</style><a href="#">Down<span style="opacity:0;animation:f .3s forwards">xyz</span>load</a>`, true},
		{`<style>` + fade + `</style><a href="#">Down<span style="opacity:0;--s:(;animation:f .3s forwards">xyz</span>load</a>`, true},
		{`<style>` + fade + `</style><a href="#">Down<span style="opacity:0;--s:(a);animation:f .3s forwards">xyz</span>load</a>`, false},

		{`<style>@keyframes enter{from{opacity:var(--tw-enter-opacity,1)}}.animate-in{animation:enter .15s;--tw-enter-opacity:initial}.fade-in-0{--tw-enter-opacity:0}</style>` + link("animate-in fade-in-0"), false},
		// CSS's error recovery (the 33rd attack, rows 1028-).
		{`<style><!--.h{opacity:0}--></style>` + link("h"), true},
		{`<style>.h{opacity:0}` + fade + `x;.h{animation:f .3s forwards}</style>` + link("h"), true},
		{`<style>.h{opacity:0}` + fade + `@layer a b{.h{animation:f .3s forwards}}</style>` + link("h"), true},
		{`<style>.x{};` + fade + `</style><a href="#">Down<span style="opacity:0;animation:f .3s forwards">xyz</span>load</a>`, true},
		{`<style>@layer base, utilities;@layer utilities{.h{opacity:0;animation:f .3s forwards}}` + fade + `</style>` + link("h"), false},
		// Escaped classes (row 1015).
		{`<style>.opacity-0{opacity:0}.animate-\[f_\.3s_forwards\]{animation:f .3s forwards}` + fade + `</style>` + link("opacity-0 animate-[f_.3s_forwards]"), false},
		{`<style>.h{opacity:0}.\41{animation:f .3s forwards}` + fade + `</style>` + link("h a"), true},

		// Hidden for good once the animation ends, or never run.
		{`<style>.h{position:absolute;opacity:0;animation:f .3s forwards}@keyframes f{to{opacity:1!important}}</style>` + link("h"), true},
		{`<style>.h{opacity:0;animation:f .3s forwards}@keyframes f{99%{opacity:1}}</style>` + link("h"), true},
		{`<style>.h{opacity:0;animation:f .3s forwards forwards}` + fade + `</style>` + link("h"), true},
		{`<style>.h{display:inline-block;scale:0;animation:f .3s forwards}@keyframes f{to{transform:none}}</style>` + link("h"), true},
		{`<style>.x{opacity:0}.h{animation:f .3s forwards}` + fade + `</style>` + link("x H"), true},
		{`<style>.h{transition:opacity 1s 100000s}@starting-style{.h{opacity:0}}</style>` + link("h"), true},
		{`<style>.h{opacity:0;animation:f .3s}` + fade + `</style>` + link("h"), true},
		{`<style>.h{opacity:0;animation:f .3s forwards}.h.n{animation:none}` + fade + `</style>` + link("h n"), true},
		{`<style>.h{opacity:0;animation:f .3s forwards}.z{animation-fill-mode:none}` + fade + `</style>` + link("h z"), true},
		{`<style>.h{opacity:0;animation:f .3s forwards}` + fade + `@keyframes f{to{color:red}}</style>` + link("h"), true},
		{`<style>.h{opacity:0;animation:f .3s forwards}@keyframes F{to{opacity:1}}</style>` + link("h"), true},
		{`<style>.a{animation:f .3s forwards}.a.n{all:unset}.h.h.h{opacity:0}` + fade + `</style>` + link("h a n"), true},
		{`<style>.h{opacity:0}</style><style type="text/plain">.a{animation:f .3s forwards}` + fade + `</style>` + link("h a"), true},
		{`<style>.h{clip-path:inset(50%);animation:f .3s forwards}` + fade + `</style>` + link("h"), true},
		{`<style>.h{opacity:0;animation:f .3s forwards}` + fade + `</style><a href="#">Down<span class="h" style="animation:none">xyz</span>load</a>`, true},
	}
	wantDrawnAsRead(t, "fade", cases, func(t *testing.T, b *browserEnv, _ drawnCase) string {
		// Read once every animation has ended, as a visitor a second
		// after the load.
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if eval[bool](t, b.tab, `document.getAnimations().every(a => a.playState === 'finished')`) || time.Now().After(deadline) {
				return eval[string](t, b.tab, drawnSeenText)
			}
		}
	})
}

// TestBrowserBoxDirectionDrawnAsRead proves, in Chromium and Firefox,
// that inline boxes of Hebrew letters are drawn in the direction the dir
// attributes around their link set, which the page checker now reads
// alone where HTML sets it (htmlcheck's direction.go; docs/security.md,
// row 983): boxes that spell "הורדה" only from a left-to-right paragraph
// are drawn so there, and refused, and not in a right-to-left one.
func TestBrowserBoxDirectionDrawnAsRead(t *testing.T) {
	const boxes = `<a href="#"><b style="display:inline-block">דה</b><b style="display:inline-block">הור</b></a>`
	const latin = `<a href="#"><b style="display:inline-block">d</b><b style="display:inline-block">a</b><b style="display:inline-block">o</b><b style="display:inline-block">l</b><b style="display:inline-block">n</b><b style="display:inline-block">w</b><b style="display:inline-block">o</b><b style="display:inline-block">D</b></a>`
	wantDrawnAsRead(t, "boxes", []drawnCase{
		{boxes, true},
		{`<p dir="rtl">x</p>` + boxes, true},
		{`<div dir="rtl"><span dir="ltr">x</span></div>` + boxes, true},
		{`<div dir="rtl"><p>` + boxes + `</p></div>`, false},
		{`<div dir="rtl"><span dir="ltr">x</span>` + boxes + `</div>`, false},
		{`<section dir="rtl"><div dir="ltr">x</div><p>` + boxes + `</p></section>`, false},
		{`<a href="#" dir="rtl"><b style="display:inline-block">דה</b><b style="display:inline-block">הור</b></a>`, false},
		// The 29th outside attack (docs/security.md, rows 989-).
		{`<div dir="rtl ">` + boxes + `</div>`, true},
		{`<style>.r{d\69 rection:rtl}</style><div class="r">` + latin + `</div>`, true},
		{`<style>a::before{content:"\2067"}</style>` + latin, true},
		{strings.Replace(strings.Replace(latin, `<a href="#">`, `<a href="#"><span style="font-size:0">א</span>`, 1), `</a>`, `<span style="font-size:0">א</span></a>`, 1), true},
		{`<a href="#"><math><mi>ה</mi></math><math><mi>ד</mi></math><math><mi>ר</mi></math><math><mi>ו</mi></math><math><mi>ה</mi></math></a>`, true},
	}, func(t *testing.T, b *browserEnv, _ drawnCase) string {
		return eval[string](t, b.tab, drawnText)
	})
}

package htmlcheck

import (
	"strconv"
	"strings"
	"testing"
)

// fill repeats unit between prefix and suffix up to about MaxSize bytes.
func fill(prefix, unit, suffix string) []byte {
	n := (MaxSize - len(prefix) - len(suffix)) / len(unit)
	return []byte(prefix + strings.Repeat(unit, n) + suffix)
}

// distinct appends unit(0), unit(1), … to prefix up to about MaxSize bytes.
func distinct(prefix string, unit func(int) string) []byte {
	b := []byte(prefix)
	for i := 0; len(b) < MaxSize-100; i++ {
		b = append(b, unit(i)...)
	}
	return b
}

// labelWithElement is a link whose label has an element, for which the
// page's style sheets are read (see readSheets).
const labelWithElement = `<a href="#">Go <b>on</b></a>`

// hostileInputs are 1 MiB inputs built to make some part of the check
// quadratic. BenchmarkHostileInputs measures them; quadratic behaviour on
// 1 MiB shows as seconds per op instead of milliseconds:
//
//	go test ./internal/htmlcheck -run '^$' -bench HostileInputs -benchtime 3x
func hostileInputs() []struct {
	name string
	doc  []byte
} {
	clip := `<script>navigator.clipboard.writeText("x")</script>`
	tests := []struct {
		name string
		doc  []byte
	}{
		{"many attributes then many tags", []byte(page(`<a ` + strings.Repeat("a ", 200000) + `>x</a>` + strings.Repeat("<b>", 150000)))},
		{"many distinct attributes", fill(page("<p>x</p>")+`<a `, "b12345= ", `>`)},
		{"nested clickables", fill(page("<p>x</p>"), `<span onclick="f()">`, "Download")},
		{"nested svg", fill(page("<p>x</p>"), `<svg>`, "")},
		{"nested foreign end tags", fill(page("<p>x</p>")+strings.Repeat("<svg>", 300), `</g>`, "")},
		{"nested math then many tags", fill(page("<p>x</p>")+"<math>"+strings.Repeat("<mrow>", 250), `<x></x>`, "")},
		{"import braces", fill(page("<p>x</p>")+"<script>", "\nimport {", "</script>")},
		{"import stars", fill(page("<p>x</p>")+"<script>", "\nimport * as ", "</script>")},
		{"paste", fill(page("<p>x</p>")+clip+"<p>", "paste ", "</p>")},
		{"human", fill(page("<p>x</p>")+clip+"<p>", "verify you are human ", "</p>")},
		{"curl", fill(page("<p>x</p>")+clip+"<p>", "curl ", "</p>")},
		{"ctrl+v", fill(page("<p>x</p>")+clip+"<p>", "ctrl+v ", "</p>")},
		{"many findings on one line", fill(page("<p>x</p>"), `<img src="a.png"><a href="/f/x">Download</a>`, "")},
		{"css urls", fill(page("<p>x</p>")+"<style>", "a{b:url(", "</style>")},
		{"css comments", fill(page("<p>x</p>")+"<style>", "/*", "</style>")},
		{"srcset commas", fill(page("<p>x</p>")+`<img srcset="`, ",", `">`)},
		{"long label", fill(page("<p>x</p>")+`<button>`, "word ", `</button>`)},
		{"many buttons", fill(page("<p>x</p>"), `<button>Go</button>`, "")},
		{"many non-ASCII buttons", fill(page("<p>x</p>"), `<button>Далее</button>`, "")},
		{"many spaced-letter buttons", fill(page("<p>x</p>"), `<a href="#">S H O P N O W</a>`, "")},
		{"many css strings", fill(page("<p>x</p>")+"<style>", `a::after{content:"Далее"}`, "</style>")},
		{"many css attr", fill(page("<p>x</p>")+"<style>a::after{content:attr(data-x)}</style>", `<p data-x="Далее">x</p>`, "")},
		{"distinct non-ASCII labels", distinct(page("<p>x</p>"), func(i int) string { return `<a href="#">Далее ` + strconv.Itoa(i) + `</a>` })},
		{"distinct links side by side", distinct(page("<p>x</p>"), func(i int) string { return `<a href="#">Д` + strconv.Itoa(i) + `</a>` })},
		// Labels the bidirectional algorithm reorders (bidi.go): each
		// is ordered and read again.
		{"distinct mixed-direction labels", distinct(page("<p>x</p>"), func(i int) string { return `<a href="#">a` + strconv.Itoa(i) + `א b</a>` })},
		{"distinct labels with an override", distinct(page("<p>x</p>"), func(i int) string { return `<a href="#">&#x202E;ab` + strconv.Itoa(i) + `</a>` })},
		{"distinct hebrew labels after an override", distinct(page("<p>x</p><p>&#x202E;"), func(i int) string { return `<a href="#">א` + strconv.Itoa(i) + `</a>` })},
		{"distinct labels after an override", distinct(page("<p>x</p><p>&#x202E;"), func(i int) string { return `<a href="#">ab` + strconv.Itoa(i) + `</a>` })},
		// Right-to-left labels of several elements, also read with
		// their pieces in reverse order and without their hidden
		// letters (reorder.go).
		{"distinct hebrew labels of pieces", distinct(page("<p>x</p>"), func(i int) string {
			return `<a href="#"><b>א</b><b>ב` + strconv.Itoa(i) + `</b><i hidden>ג</i></a>`
		})},
		{"hebrew labels of many pieces, some hidden", fill(page("<p>x</p>"), `<a href="#">`+strings.Repeat(`<b>א</b><i style="font-size:0">x</i>`, 64)+`</a>`, "")},
		// Pages with shadow roots and slots are also parsed into a tree,
		// composed and read again (shadow.go).
		{"many shadow roots with slots", fill(page("<p>x</p>"), `<div><template shadowrootmode="open"><a href="#"><slot></slot></a></template>Go</div>`, "")},
		{"a shadow root with a slot, then deep nesting", fill(page("<p>x</p>")+`<div><template shadowrootmode="open"><slot></slot></template></div>`, "<div>", "")},
		{"hebrew labels of many boxes", fill(page("<p>x</p>"), `<a href="#">`+strings.Repeat(`<b style="display:inline-block">א</b>ב`, 64)+`</a>`, "")},
		// Long labels of short words, read in each of their orders (an
		// outside tester's: half a second before maxWordsRead).
		{"long labels of short words in rtl links", fill(page("<p>x</p>"), `<a href="#" dir="rtl">`+strings.Repeat("Do ١ wn ا ", 100)+`</a>`, "")},
		{"many open isolating elements then end tags", fill(page("<p>x</p>")+strings.Repeat("<div dir=rtl>", 2000), `</i><a href="#">x</a>`, "")},
		// Links of many path segments, which the URL parser joins in
		// quadratic time (maxLinkSegments): one over the bound, and
		// many just under it.
		{"one link of a million path segments", fill(page("<p>x</p>")+`<a href="https://example.com/`, "f/.", `x">Go</a>`)},
		{"many links of 60 path segments", fill(page("<p>x</p>"), `<a href="https://example.com/`+strings.Repeat("f/.", 60)+`x">Go</a>`, "")},
		{"base64 slashes", fill(page("<p>x</p>")+`<img src="data:image/png;base64,`, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/", `">`)},
		{"base64 markers", fill(page("<p>x</p>"), "base64,", "")},
		// Remote URLs (Refs): one per few bytes, in every kind of place.
		{"many remote images", fill(page("<p>x</p>"), `<img src=https://i.example/a.png>`, "")},
		{"many srcset candidates", fill(page("<p>x</p>")+`<img srcset="`, "https://i.example/a.png 1x,", `">`)},
		{"many css urls with references", fill(page("<p>x</p>")+`<div style="`, "background:url(&quot;https://i.example/a.png&quot;);", `">x</div>`)},
		// Style sheets whose rules hide (sheet.go), read because a label
		// has an element: blocks nested past the bound, long selector
		// lists nested with "&", many hiding classes on many elements,
		// many animations.
		{"css blocks nested a million deep", fill(page(labelWithElement)+"<style>", "{", "</style>")},
		{"css selector lists nested with ampersands", fill(page(labelWithElement)+"<style>"+strings.Repeat(".a,", 20000)+".h{", "&,&{display:none;", "</style>")},
		{"many hiding classes on many labels", distinct(page("<p>x</p>")+"<style>"+strings.Repeat(".h{display:none}", 100)+"</style>", func(i int) string {
			return `<a href="#">Do<span class="x` + strconv.Itoa(i) + ` h">` + strconv.Itoa(i) + `</span>wn</a>`
		})},
		{"many distinct hiding classes", distinct(page(labelWithElement)+"<style>", func(i int) string { return ".c" + strconv.Itoa(i) + "{font-size:0}" })},
		{"many layout rules", distinct(page(labelWithElement)+"<style>", func(i int) string { return ".c" + strconv.Itoa(i) + "{float:right;order:" + strconv.Itoa(i) + "}" })},
		{"css selector lists nested with floats", fill(page(labelWithElement)+"<style>"+strings.Repeat(".a,", 20000)+".h{", "&{float:right}", "</style>")},
		{"many labels of floated pieces", distinct(page("<p>x</p>")+"<style>.r{float:right}.s{order:2}</style>", func(i int) string {
			return `<a href="#"><b class="r">` + strconv.Itoa(i) + `</b><b class="s">Д</b><b class="r">x</b></a>`
		})},
		{"many labels of nested ordered boxes", distinct(page("<p>x</p>"), func(i int) string {
			return `<a href="#">` + strings.Repeat(`<b style="display:inline-flex;order:2">x<i style="order:1">y</i>`, 32) + strconv.Itoa(i) + strings.Repeat(`</b>`, 32) + `</a>`
		})},
		{"custom properties of many references", distinct(page(labelWithElement)+"<style>", func(i int) string {
			return ":root{--v" + strconv.Itoa(i) + ":calc(" + strings.Repeat("var(--v"+strconv.Itoa(i+1)+") + ", 20) + "0px)}"
		})},
		{"calc nested deep", fill(page(labelWithElement)+"<style>.h{font-size:calc(", "(", "1px)}</style>")},
		{"many rules of many custom properties", distinct(page(labelWithElement)+"<style>:root{"+strings.Repeat("--a:0px;--a:none;--a:1px;--a:2px;", 50)+"}", func(i int) string {
			return ".c" + strconv.Itoa(i) + "{display:" + strings.Repeat("var(--a) ", 20) + "}"
		})},
		{"many style attributes with custom properties", distinct(page("<p>x</p>"), func(i int) string {
			return `<a href="#" style="--v` + strconv.Itoa(i) + `:none">Do<b style="display:var(--v` + strconv.Itoa(i) + `,var(--w))">x</b>wn</a>`
		})},
		{"many hiding animations", distinct(page(labelWithElement)+"<style>", func(i int) string {
			return "@keyframes k" + strconv.Itoa(i) + "{to{opacity:0}}.a" + strconv.Itoa(i) + "{animation:k" + strconv.Itoa(i) + " 1s}"
		})},
		// Rules that hide and the fade-ins that show again (fade.go).
		{"many fade-ins on many labels", distinct(page("<p>x</p>")+"<style>"+strings.Repeat(".o{opacity:0}.w{clip-path:inset(0 100% 0 0)}", 50)+"</style>", func(i int) string {
			n := strconv.Itoa(i)
			return "<style>.f" + n + "{animation:k" + n + " .5s forwards}@keyframes k" + n + "{to{opacity:1;clip-path:inset(0)}}</style>" +
				`<a href="#">Do<span class="o w f` + n + `">` + n + `</span>wn</a>`
		})},
		// Fade-ins through custom properties, each given many long
		// values, in distinct shorthands (animVars.variants).
		{"many fade-ins through custom properties", distinct(page("<p>x</p>")+"<style>:root{"+strings.Repeat("--a:k"+strings.Repeat(" ", 3000)+".5s forwards;", 15)+"}</style>", func(i int) string {
			n := strconv.Itoa(i)
			return "<style>.f" + n + "{opacity:0;animation:var(--a),k" + n + " .5s forwards}@keyframes k" + n + "{to{opacity:1}}</style>" +
				`<a href="#">Do<span class="f` + n + `">` + n + `</span>wn</a>`
		})},
		{"many svg css urls with references", fill(page("<p>x</p>")+"<svg><style>", "a{b:url(https://i.example/a.png?&amp;)}", "</style></svg>")},
	}
	for i := range tests {
		if len(tests[i].doc) > MaxSize {
			tests[i].doc = tests[i].doc[:MaxSize]
		}
	}
	return tests
}

func BenchmarkHostileInputs(b *testing.B) {
	for _, tt := range hostileInputs() {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.doc)))
			for b.Loop() {
				Check(tt.doc, testOptions)
			}
		})
	}
}

// BenchmarkRewriteHostileInputs rewrites the Refs of the hostile inputs
// that have some.
func BenchmarkRewriteHostileInputs(b *testing.B) {
	for _, tt := range hostileInputs() {
		refs := Check(tt.doc, testOptions).Refs
		if len(refs) == 0 {
			continue
		}
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.doc)))
			for b.Loop() {
				Rewrite(tt.doc, refs, func(Ref) string { return "https://content.example/a/0123456789abcdef.png" })
			}
		})
	}
}

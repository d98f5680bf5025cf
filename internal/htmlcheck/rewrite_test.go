package htmlcheck

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// numbered returns a function for Rewrite that replaces the nth Ref it is
// called with by fmt.Sprintf(format, n), n from 1.
func numbered(format string) func(Ref) string {
	n := 0
	return func(Ref) string {
		n++
		return fmt.Sprintf(format, n)
	}
}

func TestRewrite(t *testing.T) {
	const odd = `/a/x y,"'&<>\.png,` // every character that needs escaping somewhere
	tests := []struct {
		name string
		body string
		to   string // the replacement, "%d" numbered
		want string
	}{
		{"quoted", `<img src="https://img.example.com/a.png" alt="a">`, "/a/%d.png",
			`<img src="/a/1.png" alt="a">`},
		{"single-quoted", `<img src='https://img.example.com/a.png'>`, "/a/%d.png",
			`<img src='/a/1.png'>`},
		{"unquoted gets quotes", `<IMG SRC=https://img.example.com/a.png ALT=a><img src=https://img.example.com/b.png>`, "/a/%d.png",
			`<IMG SRC="/a/1.png" ALT=a><img src="/a/2.png">`},
		{"white space kept", "<img src=\" https://img.example.com/a.png\n\">", "/a/%d.png",
			"<img src=\" /a/1.png\n\">"},
		{"references: the value re-encoded", `<img src="https://img.example.com/a.png?x=1&amp;y=2&#x26;z" alt="&amp;">`, "/a/%d.png?b=&c",
			`<img src="/a/1.png?b=&amp;c" alt="&amp;">`},
		{"attribute escapes", `<img src="https://img.example.com/a.png"><img src='https://img.example.com/b.png'><img src=https://img.example.com/c.png>`, odd,
			`<img src="/a/x y,&quot;'&amp;<>\.png,"><img src='/a/x y,"&#39;&amp;<>\.png,'><img src="/a/x y,&quot;'&amp;<>\.png,">`},
		{"srcset", `<img srcset="data:image/png;base64,iVBORw0KGgo=,x 1x, https://img.example.com/a.png 2x,https://img.example.com/b.png 480w , https://img.example.com/c.png">`, "/a/%d.png",
			`<img srcset="data:image/png;base64,iVBORw0KGgo=,x 1x, /a/1.png 2x,/a/2.png 480w , /a/3.png">`},
		{"srcset escapes", `<img srcset="https://img.example.com/a.png 1x,https://img.example.com/b.png 2x">`, ",a b\t,c,,",
			`<img srcset="%2Ca%20b%09,c%2C%2C 1x,%2Ca%20b%09,c%2C%2C 2x">`},
		{"srcset attribute escapes", `<img srcset='https://img.example.com/a.png 1x'>`, odd,
			`<img srcset='/a/x%20y,"&#39;&amp;<>\.png%2C 1x'>`},
		{"srcset with references", `<img srcset="https://img.example.com/a.png?x&amp;y 1x, data:,a&#x2c;b 2x">`, "/a/%d.png",
			`<img srcset="/a/1.png 1x, data:,a,b 2x">`},
		{"unquoted srcset", `<img srcset=https://img.example.com/a.png>`, "/a/%d.png",
			`<img srcset="/a/1.png">`},
		{"css url forms", `<style>.a{background:url(https://img.example.com/a.png)} .b{background:URL( 'https://img.example.com/b.png' )} .c{background:url("https://img.example.com/c.png")}</style>`, "/a/%d.png",
			`<style>.a{background:url("/a/1.png")} .b{background:URL( "/a/2.png" )} .c{background:url("/a/3.png")}</style>`},
		{"css escapes", `<style>.a{background:url(\68ttps://img.example.com/a.png)} .b{background:url("\68 ttps://img.example.com/\"b\".png")}</style>`, "/a/%d.png",
			`<style>.a{background:url("/a/1.png")} .b{background:url("/a/2.png")}</style>`},
		{"several urls and image-set", `<style>.a{background:url(https://img.example.com/a.png),url(data:image/gif;base64,R0lGODlh),image-set("https://img.example.com/b.png" 1x,'https://img.example.com/c.png' 2x)}</style>`, "/a/%d.png",
			`<style>.a{background:url("/a/1.png"),url(data:image/gif;base64,R0lGODlh),image-set("/a/2.png" 1x,"/a/3.png" 2x)}</style>`},
		{"font-face", `<style>@font-face{font-family:A;src:url(https://fonts.example.com/a.woff2) format("woff2"),url('https://fonts.example.com/a.woff') format("woff")}</style>`, "/a/%d.woff2",
			`<style>@font-face{font-family:A;src:url("/a/1.woff2") format("woff2"),url("/a/2.woff2") format("woff")}</style>`},
		{"css escapes in a style element", `<style>.a{background:url(https://img.example.com/a.png)}</style>`, odd,
			`<style>.a{background:url("/a/x y,\22 \27 \26 \3c \3e \5c .png,")}</style>`},
		{"css in attributes", `<div style="background:url(https://img.example.com/a.png)"></div><div style='background:url("https://img.example.com/b.png")'></div>`, "/a/%d.png",
			`<div style="background:url('/a/1.png')"></div><div style='background:url("/a/2.png")'></div>`},
		{"css in an attribute with &quot;", `<div style="font-family:&quot;A B&quot;;background:url(&quot;https://img.example.com/a.png&quot;), url(https://img.example.com/b.png)"></div>`, "/a/%d.png",
			`<div style="font-family:&quot;A B&quot;;background:url('/a/1.png'), url('/a/2.png')"></div>`},
		{"css in an unquoted attribute", `<div style=background:url(https://img.example.com/a.png)></div>`, "/a/%d.png",
			`<div style="background:url('/a/1.png')"></div>`},
		{"css escapes in an attribute", `<div style="background:url(https://img.example.com/a.png)"></div>`, odd,
			`<div style="background:url('/a/x y,\22 \27 \26 \3c \3e \5c .png,')"></div>`},
		{"svg style with references", `<svg><style>.a::after{content:&quot;&lt;&amp;&#34;} .b{background:url(https://img.example.com/a.png?x&amp;y)}</style></svg>`, "/a/%d.png",
			`<svg><style>.a::after{content:"&lt;&amp;"} .b{background:url("/a/1.png")}</style></svg>`},
		{"media and tracks", `<video poster=https://img.example.com/p.jpg><source src="https://media.example.com/v.webm"><track src='https://media.example.com/v.vtt'></video>`, "/a/%d",
			`<video poster="/a/1"><source src="/a/2"><track src='/a/3'></video>`},
		{"inert", `<img src="https://img.example.com/a.png" srcset="https://img.example.com/b.png 2x"><div style="background:url(https://img.example.com/c.png)"></div><style>@font-face{src:url(https://fonts.example.com/a.woff)}</style>`, "",
			`<img src="data:," srcset="data:%2C 2x"><div style="background:url('data:,')"></div><style>@font-face{src:url("data:,")}</style>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := []byte(tt.body)
			r := Check(doc, testOptions)
			to := func(Ref) string { return tt.to }
			if strings.Contains(tt.to, "%d") {
				to = numbered(tt.to)
			}
			if got := string(Rewrite(doc, r.Refs, to)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestRewriteRoundTrip rewrites the Refs of refCases and checks the
// result again.
func TestRewriteRoundTrip(t *testing.T) {
	for _, tt := range refCases {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkRewrite([]byte(page(tt.body))); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestRewriteMismatched gives Rewrite Refs that are not of its document.
func TestRewriteMismatched(t *testing.T) {
	var bodies []string
	for _, tt := range refCases {
		bodies = append(bodies, page(tt.body))
	}
	var all []Ref
	for _, b := range bodies {
		all = append(all, Check([]byte(b), testOptions).Refs...)
	}
	for _, b := range append(bodies, "", "<p>", strings.Repeat("x", 20000)) {
		out := Rewrite([]byte(b), all, numbered("https://content.test/a/%d.png"))
		if len(b) > 0 && len(out) == 0 {
			t.Errorf("%q: got nothing", b)
		}
	}

	doc := []byte(page(`<img src="https://img.example.com/a.png"><img srcset="https://img.example.com/b.png?&amp; 1x">`))
	refs := Check(doc, testOptions).Refs
	if len(refs) != 2 {
		t.Fatalf("got %d Refs, want 2", len(refs))
	}
	want := string(Rewrite(doc, refs, numbered("/a/%d")))
	for _, tt := range []struct {
		name string
		refs []Ref
		want string
	}{
		{"no refs", nil, string(doc)},
		{"zero refs", []Ref{{}, {URL: "https://img.example.com/a.png", Kind: RefImage}}, string(doc)},
		{"reversed", []Ref{refs[1], refs[0]}, want},
		{"repeated", []Ref{refs[0], refs[1], refs[0], refs[1]}, want},
	} {
		if got := string(Rewrite(doc, tt.refs, numbered("/a/%d"))); got != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
	for _, e := range []refEdit{
		{enc: encURL, u0: -1, u1: 3},
		{enc: encURL, u0: 5, u1: 3},
		{enc: encURL, u0: 0, u1: len(doc) + 1},
		{enc: encCSS, whole: true, t0: 0, t1: len(doc) + 1},
		{enc: encCSS, whole: true, t0: 10, t1: 5},
		{enc: encSrcset, attr: true, whole: true, t0: 0, t1: 10, u0: 5, u1: 100},
	} {
		got := Rewrite(doc, []Ref{{edit: e}}, numbered("/a/%d"))
		if !bytes.Equal(got, doc) {
			t.Errorf("edit %+v: got a changed document", e)
		}
	}
	if got, want := string(Rewrite(doc, refs, nil)), string(Rewrite(doc, refs, func(Ref) string { return "" })); got != want {
		t.Errorf("nil to: got\n%s\nwant\n%s", got, want)
	}
}

// rewriteFragments are the pieces of the documents that
// TestRewriteGenerated puts together.
var rewriteFragments = func() []string {
	f := []string{
		"<video>", "</video>", "<audio>", "<picture>", "</picture>", "<svg>", "</svg>", "<style>", "</style>",
		"<!--", "-->", "<![CDATA[", "]]>", "&amp;", "&quot;", "&#104;", "&copy", `"`, "'", ">", "<", " ", "\n", "\r\n", "\t",
		"url(", ")", "(", "image-set(", "@font-face{", "{", "}", "src:", ";", ",", " 1x", " 2x, ", "\\", "\\68 ", "\\22",
		"https://g.example/a.png", "HTTPS://G.EXAMPLE/B", "https://g.example/c?x=1&y=2", "http://g.example/d", "#f", "/e.png",
		"data:image/png;base64," + strings.Repeat("QUJDREVG", 8), "data:,a,b",
		"<img src=", "<img src=\"", "<img srcset=\"", "<img srcset='", "<div style=\"background:", "<div style=",
		"<source src=", "<source srcset=", "<track src=", "<image href=", "<link rel=icon href=", "<td background=",
		"<input type=image src=", "<video poster=", "<feImage href=", "<p>", "</p>",
		"url(https://g.example/u.png)", "url( 'https://g.example/v.png' )", `url("https://g.example/w\"x.png")`,
		`image-set("https://g.example/i.png" 1x, 'https://g.example/j.png' 2x)`, "url(&quot;https://g.example/q.png&quot;)",
		"https://g.example/s.png 1x, https://g.example/t.png 2x", `url(\68ttps://g.example/e.png)`,
	}
	for _, tt := range refCases {
		f = append(f, tt.body)
	}
	for _, tt := range refNone {
		f = append(f, tt.body)
	}
	return f
}()

// TestRewriteGenerated checks Rewrite's properties (see checkRewrite) on
// documents made of random pieces, as a short fuzzing run that every test
// run does.
func TestRewriteGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2026))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		var b strings.Builder
		for range 1 + rng.IntN(16) {
			b.WriteString(rewriteFragments[rng.IntN(len(rewriteFragments))])
		}
		doc := b.String()
		if i%2 == 0 {
			doc = page(doc)
		}
		if err := checkRewrite([]byte(doc)); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
	}
}

// FuzzRewrite checks Rewrite's properties (see checkRewrite) on arbitrary
// input, seeded with the corpus and the Ref tests.
func FuzzRewrite(f *testing.F) {
	for _, b := range corpus(f, "testdata/*/*.html") {
		f.Add(b)
	}
	for _, tt := range refCases {
		f.Add([]byte(page(tt.body)))
	}
	for _, tt := range refNone {
		f.Add([]byte(page(tt.body)))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if err := checkRewrite(doc); err != nil {
			t.Fatal(err)
		}
	})
}

// checkRewrite returns an error unless the Refs of doc are well formed
// (see checkRef) and Rewrite has its properties: with https: replacements
// the result lists the same Refs, of the same kinds in the same order,
// each with its replacement as URL; with markers that are not https: URLs
// or "", it lists none; it is doc outside the edits, and not much longer
// than doc and the replacements.
func checkRewrite(doc []byte) error {
	r := Check(doc, testOptions)
	for _, ref := range r.Refs {
		if err := checkRef(doc, ref); err != nil {
			return err
		}
	}
	var repl []string
	out := Rewrite(doc, r.Refs, func(ref Ref) string {
		u := fmt.Sprintf("https://content.test/a/%d.png", len(repl))
		repl = append(repl, u)
		return u
	})
	if len(repl) != len(r.Refs) {
		return fmt.Errorf("Rewrite replaced %d of %d Refs", len(repl), len(r.Refs))
	}
	if err := sameOutside(doc, out, r.Refs); err != nil {
		return err
	}
	growth := 0
	for _, u := range repl {
		growth += 6*len(u) + 10
	}
	for _, c := range doc {
		if c == '&' || c == '<' || c == '"' || c == '\'' || c == 0 { // written whole: &amp; &lt; &quot; &#39; U+FFFD
			growth += 5
		}
	}
	if len(out) > len(doc)+growth {
		return fmt.Errorf("Rewrite made %d bytes of %d", len(out), len(doc))
	}
	if len(out) > MaxSize {
		return nil
	}
	again := Check(out, testOptions).Refs
	var kinds, kindsAgain, urlsAgain []string
	for i := range r.Refs {
		kinds = append(kinds, r.Refs[i].Kind)
	}
	for _, ref := range again {
		kindsAgain = append(kindsAgain, ref.Kind)
		urlsAgain = append(urlsAgain, ref.URL)
	}
	if !slices.Equal(kinds, kindsAgain) || !slices.Equal(repl, urlsAgain) {
		return fmt.Errorf("rewritten to\n%s\nit has the Refs %q %q, want %q %q", out, kindsAgain, urlsAgain, kinds, repl)
	}
	for _, to := range []func(Ref) string{nil, func(Ref) string { return "/a/x.png" }} {
		out := Rewrite(doc, r.Refs, to)
		if again := Check(out, testOptions).Refs; len(out) <= MaxSize && len(again) > 0 {
			return fmt.Errorf("rewritten to\n%s\nit has the Refs %q, want none", out, refStrings(again))
		}
	}
	return nil
}

// sameOutside returns an error unless out, doc rewritten at refs, has the
// bytes of doc outside the places Rewrite edits, in order.
func sameOutside(doc, out []byte, refs []Ref) error {
	type span struct{ s0, s1 int }
	var spans []span
	for _, r := range refs {
		s0, s1 := r.edit.span()
		spans = append(spans, span{s0, s1})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.s0 - b.s0 })
	spans = slices.Compact(spans)
	prev, at := 0, 0
	for i, s := range spans {
		gap := doc[prev:s.s0]
		switch j := bytes.Index(out[at:], gap); {
		case i == 0 && !bytes.HasPrefix(out, gap), j < 0:
			return fmt.Errorf("rewritten to\n%s\nit lacks %q of the document", out, gap)
		default:
			at += j + len(gap)
		}
		prev = s.s1
	}
	if !bytes.HasSuffix(out[at:], doc[prev:]) {
		return fmt.Errorf("rewritten to\n%s\nit does not end with %q", out, doc[prev:])
	}
	return nil
}

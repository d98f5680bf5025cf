package htmlcheck

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// refCases are bodies with the Refs that Check lists for them, as
// "kind url", in order: every kind and spelling.
var refCases = []struct {
	name string
	body string
	want []string
}{
	{"img src", `<img src="https://img.example.com/a.png" alt="">`,
		[]string{"image https://img.example.com/a.png"}},
	{"single-quoted and unquoted", `<img src='https://img.example.com/a.png'><img src=https://img.example.com/b.png alt=b>`,
		[]string{"image https://img.example.com/a.png", "image https://img.example.com/b.png"}},
	{"upper case", `<IMG SRC="HTTPS://IMG.EXAMPLE.COM/A.PNG"><Img Src=Https://img.example.com/b.png>`,
		[]string{"image HTTPS://IMG.EXAMPLE.COM/A.PNG", "image Https://img.example.com/b.png"}},
	{"white space trimmed", "<img src=\" \n\thttps://img.example.com/a\t.png \f\">",
		[]string{"image https://img.example.com/a.png"}},
	{"entities", `<img src="https://img.example.com/a.png?w=1&amp;h=2&#38;x&#x3d;y&copy=3&notify=1">`,
		[]string{"image https://img.example.com/a.png?w=1&h=2&x=y&copy=3&notify=1"}},
	{"entity in the scheme", `<img src="&#104;ttps://img.example.com/a.png">`,
		[]string{"image https://img.example.com/a.png"}},
	{"srcset", `<img src="https://img.example.com/a.png" srcset="https://img.example.com/a.png 1x, https://img.example.com/a@2x.png 2x">`,
		[]string{"image https://img.example.com/a.png", "image https://img.example.com/a.png", "image https://img.example.com/a@2x.png"}},
	{"srcset with a data: URI and widths", `<img srcset="data:image/gif;base64,R0lGODlhAQABAAAAACw=, https://img.example.com/s.png 480w,https://img.example.com/m.png 800w , https://img.example.com/l.png" sizes="50vw">`,
		[]string{"image https://img.example.com/s.png", "image https://img.example.com/m.png", "image https://img.example.com/l.png"}},
	{"srcset data: URI with commas", `<img srcset="data:image/svg+xml,%3Csvg%3E,x,y 1x,https://img.example.com/b.png 2x">`,
		[]string{"image https://img.example.com/b.png"}},
	{"srcset with entities", `<img srcset="https://img.example.com/a.png?x=1&amp;y=2 1x, https://img.example.com/b.png 2x">`,
		[]string{"image https://img.example.com/a.png?x=1&y=2", "image https://img.example.com/b.png"}},
	{"picture", `<picture><source srcset="https://img.example.com/a.avif" type="image/avif"><source srcset='https://img.example.com/a.webp 1x'><img src="https://img.example.com/a.jpg"></picture>`,
		[]string{"image https://img.example.com/a.avif", "image https://img.example.com/a.webp", "image https://img.example.com/a.jpg"}},
	{"picture in a video", `<video><picture><source srcset="https://img.example.com/a.webp"><img src="https://img.example.com/a.jpg"></picture></video>`,
		[]string{"image https://img.example.com/a.webp", "image https://img.example.com/a.jpg"}},
	{"svg image", `<svg><image href="https://img.example.com/a.png"/><image xlink:href="https://img.example.com/b.png"/><IMAGE HREF="https://img.example.com/c.png" XLINK:HREF="https://img.example.com/d.png"/></svg>`,
		[]string{"image https://img.example.com/a.png", "image https://img.example.com/b.png", "image https://img.example.com/c.png", "image https://img.example.com/d.png"}},
	{"svg feImage", `<svg><filter id="f"><feImage href="https://img.example.com/t.png"/></filter></svg>`,
		[]string{"image https://img.example.com/t.png"}},
	{"html image is img", `<image src="https://img.example.com/a.png">`,
		[]string{"image https://img.example.com/a.png"}},
	{"video poster and src", `<video poster="https://img.example.com/p.jpg" src="https://media.example.com/v.mp4" controls></video>`,
		[]string{"image https://img.example.com/p.jpg", "media https://media.example.com/v.mp4"}},
	{"audio and video sources and tracks", `<audio controls><source src="https://media.example.com/a.ogg" type="audio/ogg"><source src="https://media.example.com/a.mp3"></audio><video><source src="https://media.example.com/v.webm"><track kind="captions" src="https://media.example.com/v.vtt" srclang="en"></video>`,
		[]string{"media https://media.example.com/a.ogg", "media https://media.example.com/a.mp3", "media https://media.example.com/v.webm", "track https://media.example.com/v.vtt"}},
	{"audio src", `<audio src="https://media.example.com/a.mp3"></audio>`,
		[]string{"media https://media.example.com/a.mp3"}},
	{"input image", `<input type="IMAGE" src="https://img.example.com/go.png" alt="Go">`,
		[]string{"image https://img.example.com/go.png"}},
	{"icon links", `<link rel="icon" href="https://img.example.com/favicon.ico"><link rel="apple-touch-icon" href="https://img.example.com/touch.png"><link rel="shortcut icon" href="https://img.example.com/s.ico"><p>x</p>`,
		[]string{"image https://img.example.com/favicon.ico", "image https://img.example.com/touch.png", "image https://img.example.com/s.ico"}},
	{"background attribute", `<table background="https://img.example.com/bg.gif"><tr><td background=https://img.example.com/td.gif>x</td></tr></table>`,
		[]string{"image https://img.example.com/bg.gif", "image https://img.example.com/td.gif"}},
	{"css in style element", `<style>.a{background:url(https://img.example.com/a.png)} .b{background:URL( "https://img.example.com/b.png" )} .c{background-image:url('https://img.example.com/c.png'),url(https://img.example.com/d.png)}</style><p>x</p>`,
		[]string{"image https://img.example.com/a.png", "image https://img.example.com/b.png", "image https://img.example.com/c.png", "image https://img.example.com/d.png"}},
	{"css image-set", `<style>.a{background:image-set("https://img.example.com/a.png" 1x, 'https://img.example.com/a2.png' 2x, url(https://img.example.com/a3.png) 3x)} .b{background:-webkit-image-set("https://img.example.com/b.avif" type("image/avif") 1x)}</style><p>x</p>`,
		[]string{"image https://img.example.com/a.png", "image https://img.example.com/a2.png", "image https://img.example.com/a3.png", "image https://img.example.com/b.avif"}},
	{"css escapes", `<style>.a{background:url(\68ttps://img.example.com/a.png)} .b{background:url("\000068ttps://img.example.com/\62 .png")} .c{background:url('https://img.example.com/c\'.png')}</style><p>x</p>`,
		[]string{"image https://img.example.com/a.png", "image https://img.example.com/b.png", "image https://img.example.com/c'.png"}},
	{"font-face", `<style>@font-face{font-family:"A";src:url(https://fonts.example.com/a.woff2) format("woff2"),url("https://fonts.example.com/a.woff") format("woff"),local("A")} @font-face{font-family:B;src:url('https://fonts.example.com/b.ttf')} .x{background:url(https://img.example.com/after.png)}</style><p>x</p>`,
		[]string{"font https://fonts.example.com/a.woff2", "font https://fonts.example.com/a.woff", "font https://fonts.example.com/b.ttf", "image https://img.example.com/after.png"}},
	{"style attributes", `<div style="background:url(https://img.example.com/a.png) no-repeat, url('https://img.example.com/b.png')">x</div><div style='background:url("https://img.example.com/c.png")'>y</div>`,
		[]string{"image https://img.example.com/a.png", "image https://img.example.com/b.png", "image https://img.example.com/c.png"}},
	{"style attribute with &quot;", `<div style="font-family:&quot;A&quot;;background:url(&quot;https://img.example.com/a.png?x=1&amp;y=2&quot;)">x</div>`,
		[]string{"image https://img.example.com/a.png?x=1&y=2"}},
	{"unquoted style attribute", `<div style=background:url(https://img.example.com/a.png)>x</div>`,
		[]string{"image https://img.example.com/a.png"}},
	{"svg style", `<svg><style>.a{fill:url(#g)} .b{background:url(https://img.example.com/s.png)}</style><rect class="a" style="mask:url(https://img.example.com/m.png)"/></svg>`,
		[]string{"image https://img.example.com/s.png", "image https://img.example.com/m.png"}},
	{"svg style with references", `<svg><style>.b{background:url(https://img.example.com/s.png?x=1&amp;y=2)} .c{background:url(&quot;https://img.example.com/t.png&quot;)}</style></svg>`,
		[]string{"image https://img.example.com/s.png?x=1&y=2", "image https://img.example.com/t.png"}},
	{"svg style cdata", `<svg><style><![CDATA[.b{background:url(https://img.example.com/s.png?x=1&amp;y=2)}]]></style></svg>`,
		[]string{"image https://img.example.com/s.png?x=1&amp;y=2"}},
	{"template content", `<template><img src="https://img.example.com/later.png"></template><p>x</p>`,
		[]string{"image https://img.example.com/later.png"}},
	{"duplicates", `<img src="https://img.example.com/a.png"><img src="https://img.example.com/a.png">`,
		[]string{"image https://img.example.com/a.png", "image https://img.example.com/a.png"}},
	{"first of repeated attributes", `<img src="https://img.example.com/a.png" src="https://img.example.com/b.png">`,
		[]string{"image https://img.example.com/a.png"}},
}

// refNone are bodies with no Refs: other URLs, and places that load
// nothing or that the page may not have.
var refNone = []struct{ name, body string }{
	{"data uri", `<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" srcset="data:image/png;base64,AAAA 1x">`},
	{"relative and http", `<img src="a.png"><img src="http://img.example.com/a.png"><img src="//img.example.com/a.png"><img src="/a.png">`},
	{"https without slashes", `<img src="https:img.example.com/a.png"><img src="https:/img.example.com/a.png">`},
	{"fragments", `<svg><rect fill="url(#g)" style="fill:url(#g)"/><image href="#sprite"/></svg><style>.a{mask:url(#m)}</style>`},
	{"links and frames", `<a href="https://example.com/a.png">a</a><iframe src="https://example.com/"></iframe><object data="https://example.com/x.svg"></object><embed src="https://example.com/x.swf"><form action="https://example.com/"></form>`},
	{"lazy loading data attributes", `<img data-src="https://img.example.com/a.png" alt="">`},
	{"resource hints", `<link rel="preload" as="image" href="https://img.example.com/a.png"><link rel="preload icon" href="https://img.example.com/b.png"><link rel="preload" as="font" href="https://fonts.example.com/a.woff2" crossorigin>`},
	{"stylesheet and script", `<link rel="stylesheet" href="https://cdn.example.com/a.css"><script src="https://cdn.example.com/a.js"></script><style>@import url(https://cdn.example.com/b.css);</style>`},
	{"namespace", `<style>@namespace svg url(https://www.w3.org/2000/svg);</style>`},
	{"source outside picture, audio and video", `<source src="https://media.example.com/a.mp3" srcset="https://img.example.com/a.png"><track src="https://media.example.com/a.vtt">`},
	{"src of a picture source, srcset of a video source", `<picture><source src="https://img.example.com/a.png"><img alt=""></picture><video><source srcset="https://img.example.com/b.png"></video>`},
	{"svg elements named like html ones", `<svg><video src="https://media.example.com/a.mp4"></video><input type="image" src="https://img.example.com/i.png"/><link rel="icon" href="https://img.example.com/a.ico"/><g background="https://img.example.com/b.png"/></svg>`},
	{"feimage in html", `<feimage href="https://img.example.com/a.png">`},
	{"text and raw text", `<p>https://img.example.com/a.png url(https://img.example.com/b.png)</p><textarea><img src="https://img.example.com/c.png"></textarea><noscript><img src="https://img.example.com/d.png"></noscript><!-- <img src="https://img.example.com/e.png"> --><title>url(https://img.example.com/f.png)</title>`},
	{"css strings, comments and bad urls", `<style>.a::after{content:"url(https://img.example.com/a.png)"} /* url(https://img.example.com/b.png) */ .c{background:url(https://img.example.com/c .png)} .d{background:url(https://img.example.com/"d".png)} .e{background:image-set("https://img.example.com/e.png
 1x)}</style>`},
	{"script", `<script>new Image().src = "https://img.example.com/a.png"; document.body.style.background = "url(https://img.example.com/b.png)";</script>`},
	{"image-set type", `<style>.a{background:image-set("data:image/png;base64,AAAA" type("https://img.example.com/not-a-url"))}</style>`},
}

func refStrings(refs []Ref) []string {
	var s []string
	for _, r := range refs {
		s = append(s, r.Kind+" "+r.URL)
	}
	return s
}

// wantRefs checks that Check lists the Refs want ("kind url") in doc, well
// formed.
func wantRefs(t *testing.T, doc []byte, want []string) {
	t.Helper()
	r := Check(doc, testOptions)
	if got := refStrings(r.Refs); !slices.Equal(got, want) {
		t.Errorf("got Refs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, ref := range r.Refs {
		if err := checkRef(doc, ref); err != nil {
			t.Error(err)
		}
	}
}

func TestRefs(t *testing.T) {
	for _, tt := range refCases {
		t.Run(tt.name, func(t *testing.T) {
			wantRefs(t, []byte(page(tt.body)), tt.want)
		})
	}
	for _, tt := range refNone {
		t.Run(tt.name, func(t *testing.T) {
			r := Check([]byte(page(tt.body)), testOptions)
			if len(r.Refs) != 0 {
				t.Errorf("got Refs %q, want none", refStrings(r.Refs))
			}
		})
	}
}

func TestRefPositions(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		line, col int
		excerpt   string
	}{
		{"attribute", `<p>x</p><img alt="" src="https://img.example.com/a.png">`, pageLines + 1, 26, `<img alt="" src="https://img.example.com/a.png">`},
		{"srcset candidate", `<img srcset="https://img.example.com/a.png 1x, https://img.example.com/b.png 2x" alt="a long alternative text for the picture">`, pageLines + 1, 48, "https://img.example.com/b.png"},
		{"css on a later line", "<style>\n.a { color: red }\n.b { background: url( 'https://img.example.com/b.png' ) }\n</style><p>x</p>", pageLines + 3, 18, "url( 'https://img.example.com/b.png' )"},
		{"image-set string", `<div style="background:image-set('https://img.example.com/a.png' 1x)">x</div>`, pageLines + 1, 34, "'https://img.example.com/a.png'"},
		{"decoded style attribute", `<p>ñ</p><div style="background:url(&quot;https://img.example.com/a.png&quot;)">x</div>`, pageLines + 1, 21, `<div style="background:url(&quot;https://img.example.com/a.png&quot;)">`},
		{"after a long data uri", `<img src="data:image/png;base64,` + strings.Repeat("QUJD", 100) + `"><img src="https://img.example.com/a.png">`, pageLines + 1, 10 + 22 + 400 + 2 + 10 + 1, `<img src="https://img.example.com/a.png">`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Check([]byte(page(tt.body)), testOptions)
			if len(r.Refs) == 0 {
				t.Fatal("got no Refs")
			}
			ref := r.Refs[len(r.Refs)-1]
			if ref.Line != tt.line || ref.Column != tt.col {
				t.Errorf("got %d:%d, want %d:%d (%s)", ref.Line, ref.Column, tt.line, tt.col, ref.Excerpt)
			}
			if ref.Excerpt != tt.excerpt {
				t.Errorf("got excerpt %q, want %q", ref.Excerpt, tt.excerpt)
			}
		})
	}
}

// TestRefsShortened checks that shortening base64 changes no Ref: URLs
// are read from the document, and base64 in them or next to them does not
// move them.
func TestRefsShortened(t *testing.T) {
	b64 := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkw", 3)
	long := "https://img.example.com/x;base64," + b64 + ".png"
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"url with base64", `<img src="` + long + `"><img src=` + long + `>`, []string{"image " + long, "image " + long}},
		{"srcset after a data uri", `<img srcset="data:image/png;base64,` + b64 + ` 1x, ` + long + ` 2x">`, []string{"image " + long}},
		{"srcset with references after a data uri", `<img srcset="data:image/png;base64,` + b64 + ` 1x, https://img.example.com/a.png?x&amp;y 2x">`, []string{"image https://img.example.com/a.png?x&y"}},
		{"style attribute", `<div style="background:url(data:image/png;base64,` + b64 + `),url(` + long + `),url('https://img.example.com/a.png?&quot;')">x</div>`,
			[]string{"image " + long, `image https://img.example.com/a.png?"`}},
		{"style element", `<style>.a{background:url(data:image/png;base64,` + b64 + `),url("` + long + `")}</style><p>x</p>`, []string{"image " + long}},
		{"svg style with references", `<svg><style>.a{background:url(data:image/png;base64,` + b64 + `),url("` + long + `&amp;")}</style></svg>`, []string{"image " + long + "&"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := []byte(page(tt.body))
			if _, cuts := shorten(doc); len(cuts) == 0 {
				t.Fatal("nothing is shortened")
			}
			wantRefs(t, doc, tt.want)
		})
	}
}

// checkRef returns an error unless ref, from Check of doc, is well formed
// and its edit spans the URL: what Rewrite replaces reads as ref.URL.
func checkRef(doc []byte, ref Ref) error {
	switch {
	case !hasPrefixFold([]byte(ref.URL), "https://"):
		return fmt.Errorf("Ref %q is not an https: URL", ref.URL)
	case !slices.Contains([]string{RefImage, RefFont, RefMedia, RefTrack}, ref.Kind):
		return fmt.Errorf("Ref %q has the kind %q", ref.URL, ref.Kind)
	case ref.Line < 1 || ref.Column < 1:
		return fmt.Errorf("Ref %q is at %d:%d", ref.URL, ref.Line, ref.Column)
	case !utf8.ValidString(ref.Excerpt) || utf8.RuneCountInString(ref.Excerpt) > maxExcerpt || ref.Excerpt == "":
		return fmt.Errorf("Ref %q has the excerpt %q", ref.URL, ref.Excerpt)
	}
	e := ref.edit
	if !e.valid(len(doc)) {
		return fmt.Errorf("Ref %q: edit %+v is not in the document of %d bytes", ref.URL, e, len(doc))
	}
	text := doc
	if e.whole {
		switch {
		case e.attr:
			text = decodeAttr(doc[e.t0:e.t1])
		default:
			text = decodeText(doc[e.t0:e.t1])
		}
		if e.u1 > len(text) {
			return fmt.Errorf("Ref %q: edit %+v is not in its text %q", ref.URL, e, text)
		}
	}
	if got := string(refURL(e.enc, text[e.u0:e.u1])); got != ref.URL {
		return fmt.Errorf("Ref %q: its edit %+v spans %q, which reads as %q", ref.URL, e, text[e.u0:e.u1], got)
	}
	return nil
}

// TestRefExcerptsShared checks the excerpts of Refs in a row that share
// one (those of a value not spelt as it reads) and of the Refs between
// and after them, which resolveRefs writes once for a run.
func TestRefExcerptsShared(t *testing.T) {
	div := `<div style="background:url(&quot;https://img.example.com/1.png&quot;), url(&quot;https://img.example.com/2.png&quot;)">x</div>`
	img := `<img src="https://img.example.com/3.png">`
	div2 := strings.Replace(div, "1.png", "4.png", 1)
	r := Check([]byte(page(div+img+div2+img)), testOptions)
	// The tags are too long to quote whole: the excerpt is the attribute.
	ex1 := `style="background:url(&quot;https://img.example.com/1.png&quot;), url(&quot;htt…`
	ex2 := strings.Replace(ex1, "1.png", "4.png", 1)
	want := []string{ex1, ex1, img, ex2, ex2, img}
	if len(r.Refs) != len(want) {
		t.Fatalf("got %d Refs %q, want %d", len(r.Refs), refStrings(r.Refs), len(want))
	}
	for i, ref := range r.Refs {
		if ref.Excerpt != want[i] {
			t.Errorf("Ref %d (%s): got excerpt %q, want %q", i, ref.URL, ref.Excerpt, want[i])
		}
	}
}

package htmlcheck

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// page wraps body in a complete document that passes every rule.
func page(body string) string {
	return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Test page</title>\n</head>\n<body>\n" +
		body + "\n</body>\n</html>\n"
}

// pageLines is how many lines page puts before body.
const pageLines = 8

func TestPageTemplateIsClean(t *testing.T) {
	r := Check([]byte(page("<p>Hello.</p>")), Options{})
	if len(r.Errors)+len(r.Warnings) != 0 {
		t.Fatalf("got errors %v warnings %v, want none", ruleNames(r.Errors), ruleNames(r.Warnings))
	}
}

func TestSize(t *testing.T) {
	base := page("<p>Big.</p><!--")
	tail := "-->"
	atMax := base + strings.Repeat("x", MaxSize-len(base)-len(tail)) + tail
	if len(atMax) != MaxSize {
		t.Fatalf("test document is %d bytes, want %d", len(atMax), MaxSize)
	}
	r := Check([]byte(atMax), Options{})
	if got := ruleNames(r.Errors); len(got) != 0 {
		t.Errorf("at MaxSize: got errors %v, want none", got)
	}

	over := atMax + "x"
	r = Check([]byte(over), Options{})
	if got, want := len(r.Errors), 1; got != want {
		t.Fatalf("at MaxSize+1: got %d errors %v, want %d", got, ruleNames(r.Errors), want)
	}
	f := r.Errors[0]
	if f.Rule != RuleSize || f.Line != 1 || f.Column != 1 || f.Severity != SeverityError {
		t.Errorf("at MaxSize+1: got %s at %d:%d (%v), want %s at 1:1 (error)", f.Rule, f.Line, f.Column, f.Severity, RuleSize)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("at MaxSize+1: got warnings %v, want none", ruleNames(r.Warnings))
	}
	if f.Message == "" || f.Hint == "" || utf8.RuneCountInString(f.Excerpt) > maxExcerpt {
		t.Errorf("at MaxSize+1: incomplete finding %+v", f)
	}
}

func TestPositions(t *testing.T) {
	longData := "data:image/png;base64," + strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkw", 200)
	tests := []struct {
		name      string
		doc       string
		rule      string
		line, col int
		excerpt   string // in the excerpt
	}{
		{"img src value", page(`<p>x</p><img alt="" src="a.png">`), RuleImageSource, pageLines + 1, 26, `src="a.png"`},
		{"runes before", page(`<p>ñandú 🦤</p><img src="a.png">`), RuleImageSource, pageLines + 1, 25, `src="a.png"`},
		{"second line", page("<p>one</p>\n  <script src=\"x.js\"></script>"), RuleInlineScript, pageLines + 2, 11, `src="x.js"`},
		{"css in style element", page("<style>\n.a { color: red; }\n.b { background: url(b.png) }\n</style><p>x</p>"), RuleImageSource, pageLines + 3, 18, "url(b.png)"},
		{"css in style attribute", page(`<div style="color: red; background: url('c.png')">x</div>`), RuleImageSource, pageLines + 1, 37, "url('c.png')"},
		{"css in escaped attribute", page(`<div style="font-family: &quot;A&quot;; background: url(c.png)">x</div>`), RuleImageSource, pageLines + 1, 13, "style="},
		{"srcset candidate", page(`<img src="https://a/x.png" srcset="https://a/x.png 1x, x2.png 2x">`), RuleImageSource, pageLines + 1, 56, "x2.png"},
		{"after long data uri", page(`<img src="` + longData + `"><img src="after.png">`), RuleImageSource, pageLines + 1, 10 + len(longData) + 2 + 10 + 1, `src="after.png"`},
		{"script import", page("<script type=module>\n  const x = 1;\n  import('https://esm.sh/y');\n</script>"), RuleInlineScript, pageLines + 3, 3, "import('https://esm.sh/y')"},
		{"clickable text", page(`<p>x</p>  <button type="button">Download</button>`), RuleDownloadButton, pageLines + 1, 11, `<button type="button">Download</button>`},
		{"link href", page(`<p><a class="x" href="/f/abc">the file</a></p>`), RuleDownloadButton, pageLines + 1, 23, `href="/f/abc"`},
		{"download attribute", page(`<a href="#" download="x.pdf">x</a>`), RuleDownloadButton, pageLines + 1, 13, `download="x.pdf"`},
		{"tab counts as one column", page("\t<img src=\"t.png\">"), RuleImageSource, pageLines + 1, 12, `src="t.png"`},
		{"fragment", "<div>hi</div>", RuleDocumentComplete, 1, 1, "<div>hi</div>"},
		{"stray text before", "```html\n" + page("<p>x</p>"), RuleDocumentComplete, 1, 1, "```html"},
		{"second html", page("<p>x</p>") + "<html><body><p>y</p></body></html>", RuleDocumentSingle, pageLines + 4, 1, "<html>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Check([]byte(tt.doc), testOptions)
			i := slices.IndexFunc(r.Errors, func(f Finding) bool { return f.Rule == tt.rule })
			if i < 0 {
				t.Fatalf("got errors %v, want %s", ruleNames(r.Errors), tt.rule)
			}
			f := r.Errors[i]
			if f.Line != tt.line || f.Column != tt.col {
				t.Errorf("got %d:%d, want %d:%d (%s)", f.Line, f.Column, tt.line, tt.col, f.Excerpt)
			}
			if !strings.Contains(f.Excerpt, tt.excerpt) {
				t.Errorf("got excerpt %q, want it to contain %q", f.Excerpt, tt.excerpt)
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		name string
		doc  string
	}{
		{"long line", page(`<img src="` + strings.Repeat("é", 500) + `.png">`)},
		{"invalid utf-8", page("<img src=\"\xff\xfe\xc3.png\" alt=\"\x80\x81\">")},
		{"control characters", page("<img src=\"a\x01\x02\x7f.png\">")},
		{"cut in the middle of a rune", page(`<script src="` + strings.Repeat("字", 300) + `"></script>`)},
		{"newlines", page("<img\n\n   src=\"a.png\"\n\n   alt=\"\">")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Check([]byte(tt.doc), testOptions)
			if len(r.Errors) == 0 {
				t.Fatalf("got no errors, want one")
			}
			for _, f := range r.Errors {
				if n := utf8.RuneCountInString(f.Excerpt); n > maxExcerpt || n == 0 {
					t.Errorf("%s: excerpt has %d runes, want 1-%d: %q", f.Rule, n, maxExcerpt, f.Excerpt)
				}
				if !utf8.ValidString(f.Excerpt) {
					t.Errorf("%s: excerpt is not valid UTF-8: %q", f.Rule, f.Excerpt)
				}
				if strings.ContainsAny(f.Excerpt, "\n\r\t\x00\x01") {
					t.Errorf("%s: excerpt has control characters: %q", f.Rule, f.Excerpt)
				}
				if !utf8.ValidString(f.Message) {
					t.Errorf("%s: message is not valid UTF-8: %q", f.Rule, f.Message)
				}
			}
		})
	}
}

// TestPlainExcerpt checks that the excerpts excerpt takes as they are
// are what appendCleanExcerpt makes of them.
func TestPlainExcerpt(t *testing.T) {
	doc := []byte(" <img src=\"https://img.example.com/a.png\"  alt=x>\n" + strings.Repeat("abc ", 30) + "é\x01~\x7f")
	for start := range len(doc) {
		for end := start; end <= len(doc)+2; end++ {
			if got, want := excerpt(doc, start, end), string(appendCleanExcerpt(nil, doc, start, end)); got != want {
				t.Fatalf("[%d:%d]: got %q, want %q", start, end, got, want)
			}
		}
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		rule string
		doc  string
	}{
		{RuleSandboxForm, page(`<form><input name="q"><button>Search</button></form>`)},
		{RuleSandboxExternalMedia, page(`<video src="clip.mp4" controls></video>`)},
		{RuleSandboxExternalMedia, page(`<audio><source src="http://a.example/x.mp3"></audio>`)},
		{RuleSandboxExternalMedia, page(`<style>@font-face { font-family: X; src: url(fonts/x.woff2) }</style><p>x</p>`)},
		{RuleSandboxFrame, page(`<iframe src="https://www.youtube.com/embed/x"></iframe>`)},
		{RuleSandboxFrame, page(`<object data="https://a.example/x.pdf"></object>`)},
		{RuleSandboxFrame, page(`<embed src="https://a.example/x.swf">`)},
		{RuleSandboxMetaRefresh, page(`<meta http-equiv="Refresh" content="5; url=https://example.com"><p>x</p>`)},
		{RuleSandboxBase, page(`<base href="https://example.com/"><p>x</p>`)},
		{RuleSandboxWindowOpen, page(`<button onclick="window.open('https://example.com')">Open</button>`)},
		{RuleSandboxWindowOpen, page(`<a href="https://example.com" target="_blank">Docs</a>`)},
		{RuleSandboxTopNavigation, page(`<script>if (window.top !== window) { window.top.location.href = location.href; }</script><p>x</p>`)},
		{RuleSandboxTopNavigation, page(`<script>parent.location = "https://example.com";</script><p>x</p>`)},
		{RuleSandboxTopNavigation, page(`<a href="https://example.com" target="_top">Home</a>`)},
		{RuleHygieneDoctype, strings.TrimPrefix(page("<p>x</p>"), "<!DOCTYPE html>\n")},
		{RuleHygieneTitle, strings.Replace(page("<p>x</p>"), "<title>Test page</title>", "<title>  </title>", 1)},
		{RuleHygieneTitle, strings.Replace(page("<p>x</p>"), "<title>Test page</title>", "", 1)},
		{RuleHygieneViewport, strings.Replace(page("<p>x</p>"), `<meta name="viewport" content="width=device-width, initial-scale=1">`, "", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			r := Check([]byte(tt.doc), testOptions)
			if got := ruleNames(r.Errors); len(got) != 0 {
				t.Errorf("got errors %v, want none", got)
			}
			if got := ruleNames(r.Warnings); !slices.Contains(got, tt.rule) {
				t.Errorf("got warnings %v, want %s", got, tt.rule)
			}
			for _, f := range r.Warnings {
				if f.Severity != SeverityWarning {
					t.Errorf("%s: got severity %v, want warning", f.Rule, f.Severity)
				}
			}
		})
	}
}

func TestAllowed(t *testing.T) {
	tests := []struct {
		name string
		doc  string
	}{
		{"https font", page(`<style>@font-face { font-family: X; src: url(https://fonts.example.com/x.woff2) }</style><p>x</p>`)},
		{"fragment urls", page(`<svg><defs><linearGradient id="g"/></defs><rect fill="url(#g)" style="fill:url(#g);mask:url(#m)"/></svg>`)},
		{"empty src", page(`<img src="" data-src="https://a.example/x.png" alt="">`)},
		{"svg image fragment", page(`<svg><image href="#sprite"/></svg>`)},
		{"link to another site", page(`<a href="https://files.example.org/f/abc">elsewhere</a>`)},
		{"download in prose", page(`<p>Download speeds up to 1 Gbps. Over 2M downloads.</p><h2>Download</h2>`)},
		{"read the download guide", page(`<a href="https://docs.example.com/guide">Read the download guide</a>`)},
		{"count in a link", page(`<a href="#stats">2M downloads</a>`)},
		{"indirim is not indir", page(`<button>İndirim kodunu kopyala</button>`)},
		{"import in prose string", page(`<script>const msg = "Don't forget to import your contacts from Gmail";</script>`)},
		{"import.meta", page(`<script type="module">console.log(import.meta.url)</script>`)},
		{"html page link", page(`<a href="https://example.com/setup.html">Setup guide</a>`)},
		{"json script", page(`<script type="application/ld+json">{"@context":"https://schema.org","import":"https://x"}</script>`)},
		{"noscript content", page(`<noscript><img src="tracker.gif"></noscript><p>x</p>`)},
		{"coupon copy", page(`<button onclick="navigator.clipboard.writeText('SAVE10')">Copy</button><p>Paste it at checkout.</p>`)},
		{"svg title in button", page(`<button aria-label="Share"><svg><title>Share</title></svg></button>`)},
		// Prose and labels that the normalised reading of issue 9 must
		// keep accepting.
		{"download button below, in prose", page(`<p>The download button is below. Once you have downloaded the report, open it in any PDF reader.</p>`)},
		{"download heading", page(`<h1>Download</h1><h2>Ｄｏｗｎｌｏａｄ ｓｐｅｅｄｓ</h2><h3>D o w n l o a d</h3>`)},
		{"downloaded in a link", page(`<a href="#faq">Once you have downloaded the report</a>`)},
		{"img alt outside a link", page(`<img alt="Download" src="https://img.example.com/arrow.png"><p>Use the download button at the bottom right.</p>`)},
		{"img alt in a link", page(`<a href="https://example.com/team"><img alt="Our team at the 2M downloads party" src="https://img.example.com/t.png"></a>`)},
		{"question summary", page(`<details><summary>How do I download the file on a phone?</summary><p>Use the download button at the bottom right.</p></details>`)},
		{"summary", page(`<details><summary>System requirements</summary><p>Any browser.</p></details>`)},
		{"label", page(`<label><input type="checkbox"> I have downloaded the app before</label>`)},
		{"placeholder of a field", page(`<input type="email" placeholder="Email to get your copy">`)},
		{"title outside a clickable", page(`<span title="Download">⬇</span>`)},
		{"spaced logo", page(`<a href="/" class="logo">S T U D I O</a><a href="#">A B C</a>`)},
		{"alphabet index", page(`<nav><a href="#a">A</a> <a href="#b">B</a> <a href="#d">D</a> <a href="#o">O</a> <a href="#w">W</a> <a href="#n">N</a></nav>`)},
		{"soft hyphen in a long word", page(`<button>Bedienungs&shy;anleitung lesen</button>`)},
		{"persian zwnj", page("<a href=\"#\">می\u200cخواهم بیشتر بدانم</a>")},
		{"emoji zwj sequence", page("<button>\U0001F469\u200D\U0001F4BB Contact us</button>")},
		{"greek link", page(`<a href="#">Περισσότερα</a> <button>ΕΠΟΜΕΝΟ</button>`)},
		{"cyrillic buttons", page(`<button>Далее</button><button>Подробнее</button><a href="#">Контакты</a>`)},
		{"full-width japanese", page(`<a href="#">ｶﾀﾛｸﾞを見る</a> <button>次へ</button>`)},
		{"chinese load next", page(`<button>加载下一页</button>`)},
		{"turkish discount", page(`<a href="#">İNDİRİMİ GÖR</a>`)},
		{"css content", page(`<style>.q::before{content:"“"} .step::before{content:counter(s) ". "} .new::after{content:"New"} li::marker{content:"→ "} .a::after{content:attr(data-n)}</style><p class="a" data-n="2M downloads">x</p>`)},
		{"css font and grid", page(`<style>@font-face{font-family:"Download Sans";src:local("Download Sans")} .g{grid-template-areas:"hero download"} a[title="Download"]{color:red}</style><p>x</p>`)},
		{"css prose", page(`<style>.note::after{content:" (2M downloads so far)"}</style><p class="note">x</p>`)},
		{"css statistic label", page(`<style>.n::before{content:"Downloads: "} .m::after{content:attr(data-label)}</style><p class="n">2M</p><p class="m" data-label="Downloading…">x</p>`)},
		{"hidden text in a link", page(`<a href="#">Read more<span hidden> about downloads</span></a><a href="#">Our <span style="font-size:0.9em">download</span> stats</a>`)},
		{"nav links side by side", page(`<nav><a href="#a">Home</a> <a href="#b">Pricing</a><a href="#c">Docs</a> <a href="#d">Free</a> <a href="#e">trial</a></nav>`)},
		{"language select", page(`<select aria-label="Language"><option>English</option><option>Deutsch</option></select>`)},
		// Prose and labels that the second round's readings (hidden
		// elements, reordered items, shadow roots) must keep accepting.
		{"icon hidden from screen readers", page(`<a href="#faq">Read more <span aria-hidden="true">→</span></a><button><span style="position:absolute;left:-9999px">Menu</span>☰</button>`)},
		{"reordered nav", page(`<nav style="display:flex;flex-direction:row-reverse"><a href="#a" style="order:2">Pricing</a><a href="#b" style="order:1">Docs</a></nav><a href="#c" style="display:flex;flex-direction:row-reverse"><span>Downloads</span><span>2M</span></a>`)},
		{"rtl link", page(`<a href="#" dir="rtl">קרא עוד על ההורדות</a><a href="#" style="direction:rtl">Once you have downloaded the report</a>`)},
		{"ruby in a link", page(`<a href="#"><ruby>漢<rt>かん</rt>字<rt>じ</rt></ruby>を学ぶ</a>`)},
		{"shadow root card", page(`<a href="#"><template shadowrootmode="open"><slot></slot> and more</template>Read the download guide</a>`)},
		{"svg data images", page(`<a href="#"><img src="data:image/svg+xml,%3Csvg%3E%3Ctext%3EOur logo%3C/text%3E%3C/svg%3E"></a><img src="data:image/svg+xml,%3Csvg%3E%3Ctext%3EDownload%3C/text%3E%3C/svg%3E"><p style="background:url('data:image/svg+xml,<svg><text>Downloads: 2M</text></svg>')">x</p>`)},
		{"tracking click handler", page(`<div class="hero"><h1>Download</h1><p>Use the download button at the bottom right.</p></div><div>2M downloads</div><span>Once you have downloaded the report, open it.</span><div class="card" tabindex="0">Pricing</div><section class="download-info"><h2>Download</h2><p>The file is scanned.</p></section><script>document.addEventListener('click', e => track(e.target))</script>`)},
		// Feature lists on pages with a click script (fourth outside
		// attack, row 38): short spans and divs are not buttons.
		{"spec spans with a click listener", page(`<div class="stats"><span>2M downloads</span> <span>Download speed: 1 Gbps</span></div><script>document.addEventListener("click",function(e){console.log(e.target)});</script>`)},
		{"pricing features with a toggle", page(`<button id="toggle" class="btn">Yearly</button><ul class="features"><li><span>Unlimited downloads</span></li><li><span>Fast downloads</span></li><li><span>Download history</span></li></ul><script>document.getElementById("toggle").addEventListener("click",()=>{});</script>`)},
		{"menu and spec list", page(`<button class="menu-btn">Menu</button><ul><li><span>Download speed</span> <span>1 Gbps</span></li></ul><script>document.querySelector(".menu-btn").onclick = () => {};</script>`)},
		{"feature cards with click toggles", page(`<div class="grid"><div class="feature">Offline mode</div><div class="feature">Download queue</div></div><script>document.querySelectorAll(".feature").forEach(f=>f.addEventListener("click",()=>f.classList.toggle("on")));</script>`)},
		{"svg presentation attributes", page(`<a href="#"><svg><text y="20">Pricing<tspan opacity="0.6" font-size="0.8em"> from $5</tspan><tspan display="inline"> a month</tspan></text></svg></a><video poster="data:image/svg+xml,%3Csvg%3E%3Ctext%3EDownloads: 2M%3C/text%3E%3C/svg%3E"></video>`)},
		{"css strings side by side", page(`<style>.price::before{content:"$"} .price::after{content:"/mo"} .n::before{content:"Downloads"} .n::after{content:": 2M so far"} .q::before{content:"Read"} .q::after{content:" more"}</style><p class="price">5</p><p class="n">x</p>`)},
		{"ordinary inline styles", page(`<a href="#">Read<span style="opacity:0.5;font-size:0.8em;margin-left:-20px;color:rgba(0,0,0,0.6)"> the download guide</span></a><a href="#">Down<span style="color:#0000ff;zoom:1.2;filter:opacity(0.8);left:50%;position:relative;top:100px">stream</span> news</a><button>Get<span style="color:#000;text-indent:999px;font-size:1px"> started</span></button>`)},
		{"media fallback and alt in links", page(`<a href="#tour"><video width="320" height="180">Your browser does not play this video.</video> Watch the tour</a><a href="#team"><img alt="The team" src="https://img.example.com/t.png"> Meet us</a><a href="#c"><canvas width="10" height="10">chart</canvas> Stats</a>`)},
		{"css escapes in urls", page(`<style>.a{background:url(\68ttps://img.example.com/a.png)} .b{background:url("\68 ttps://img.example.com/b.png")} .c{background:image-set("ht\74ps://img.example.com/c.png" 1x)}</style><p>x</p>`)},
		{"image-set types", page(`<div style="background-image:image-set('https://img.example.com/a.avif' type('image/avif') 1x, 'https://img.example.com/a.jpg' type('image/jpeg') 1x)">x</div>`)},
		{"css namespace", page(`<svg><style>@namespace svg url(http://www.w3.org/2000/svg); svg|rect{fill:red}</style><rect/></svg><style>@namespace url(http://www.w3.org/1999/xhtml);</style><p>x</p>`)},
		{"small margins", page(`<a href="#">Stats<span style="margin-left:-2px;min-width:0;border-width:0;opacity:0.8">: 2M downloads</span></a>`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Check([]byte(tt.doc), testOptions)
			for _, f := range r.Errors {
				t.Errorf("got %s at %d:%d: %s", f.Rule, f.Line, f.Column, f.Message)
			}
		})
	}
}

func TestRejected(t *testing.T) {
	tests := []struct {
		rule string
		doc  string
	}{
		{RuleDownloadButton, page(`<svg><a href="/f/abc"><text>x</text></a></svg>`)},
		{RuleDownloadButton, page(`<svg><title><a download href="#">x</a></title></svg>`)},
		{RuleDownloadButton, page(`<button><svg><title>Download</title><path d="M0 0"/></svg></button>`)},
		{RuleDownloadButton, page(`<a href="#">Click here to download</a>`)},
		{RuleDownloadButton, page(`<a href="#">डाउनलोड करें</a>`)},
		{RuleDownloadButton, page(`<button>Şimdi İndir</button>`)},
		{RuleDownloadButton, page(`<a href="#">Pobierz</a>`)},
		{RuleDownloadButton, page(`<a href="#">Ladda ner</a>`)},
		{RuleDownloadButton, page(`<a href="#">Downloaden</a>`)},
		{RuleDownloadButton, page(`<a href="#">다운로드</a>`)},
		{RuleDownloadButton, page(`<a href="#">下載</a>`)},
		{RuleDownloadButton, page(`<a href="#">Scarica</a>`)},
		{RuleDownloadButton, page(`<a href="#">Baixar agora</a>`)},
		{RuleDownloadButton, page(`<a href="#">T&eacute;l&eacute;charger</a>`)},
		{RuleDownloadButton, page(`<div class="btn">Download</div>`)},
		{RuleDownloadButton, page(`<a href="HTTPS://FILES.EXAMPLE.COM/f/abc">x</a>`)},
		{RuleDownloadButton, page(`<a href="//files.example.com/f/abc">x</a>`)},
		{RuleDownloadButton, page(`<a href="../../f/abc">x</a>`)},
		{RuleDownloadButton, page(`<a href="https://cdn.example.com/a/Tool%2Eexe">x</a>`)},
		{RuleDownloadButton, page(`<a href=" DATA:text/html,x">x</a>`)},
		{RuleDownloadButton, page(`<button formaction="/f/abc/download">Go</button>`)},
		{RuleImageSource, page(`<div style="background: image-set('a.png' 1x, 'https://a/b.png' 2x)">x</div>`)},
		{RuleImageSource, page(`<table background="bg.gif"><tr><td>x</td></tr></table>`)},
		{RuleImageSource, page(`<svg><filter id="f"><feImage href="tex.png"/></filter></svg>`)},
		{RuleImageSource, page(`<img src="javascript:alert(1)">`)},
		{RuleImageSource, page(`<image src="a.png">`)},
		{RuleImageSource, page(`<div style="background:url(\2f\2f img.example.com/a.png)">x</div>`)},
		{RuleImageSource, page(`<style>.a{background:url("\68ttp://img.example.com/a.png")}</style><p>x</p>`)},
		{RuleInlineStyle, page(`<style>/* @import "no.css"; */ @IMPORT "yes.css";</style><p>x</p>`)},
		{RuleInlineScript, page(`<link rel="modulepreload" href="https://esm.sh/x"><p>x</p>`)},
		{RuleInlineScript, page("<script>\nimport {a,\n  b} from './lib.js'\n</script><p>x</p>")},
		{RuleDocumentSingle, page("<p>x</p>") + "\n<!DOCTYPE html>\n"},
		{RuleDocumentComplete, ""},
		{RuleDocumentComplete, page("<p>x</p>") + "\n```\n"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			r := Check([]byte(tt.doc), testOptions)
			if got := ruleNames(r.Errors); !slices.Contains(got, tt.rule) {
				t.Errorf("%s: got errors %v, want %s", tt.doc[strings.Index(tt.doc, "<body>")+1:], got, tt.rule)
			}
		})
	}
}

func TestServiceHostsOption(t *testing.T) {
	doc := []byte(page(`<a href="https://files.example.com/f/abc">the file</a>`))
	if r := Check(doc, Options{}); !r.OK() {
		t.Errorf("without ServiceHosts: got errors %v, want none", ruleNames(r.Errors))
	}
	if r := Check(doc, Options{ServiceHosts: []string{"FILES.example.com:443"}}); r.OK() {
		t.Errorf("with the host and the default https port: got OK, want download.button")
	}
	if r := Check(doc, Options{ServiceHosts: []string{"files.example.com:8443"}}); !r.OK() {
		t.Errorf("with the host and another port: got errors %v, want none", ruleNames(r.Errors))
	}
}

// isDownloadLabel reports whether label, as a whole, is a call to download.
func isDownloadLabel(label []byte, truncated bool) bool {
	_, ok := downloadReading(string(label), labelOpts{truncated: truncated}, nil)
	return ok
}

func TestIsDownloadLabel(t *testing.T) {
	tests := []struct {
		label string
		want  bool
	}{
		{"Download", true},
		{"download now", true},
		{"Download the report (PDF)", true},
		{"⬇ Download", true},
		{"📥 Free download", true},
		{"Get the file", true},
		{"Click here to get the file", true},
		{"Télécharger maintenant", true},
		{"Jetzt kostenlos herunterladen", true},
		{"PDF herunterladen (2 MB)", true},
		{"Descargar gratis", true},
		{"Скачать", true},
		{"今すぐダウンロード", true},
		{"立即下载", true},
		{"تحميل", true},
		{"Şimdi İndir", true},
		{"Downloads", true},
		{"Start download", true},
		{"", false},
		{"Read the download guide", false},
		{"2M downloads", false},
		{"Over 2 million downloads", false},
		{"Download speeds up to 1 Gbps and more", true},
		{"See pricing", false},
		{"İndirim", false},
		{"Downloadable templates", false},
		{"Get started", false},
		{"How do I download it?", false},
		{"How do I download the file?", false},
		{"Learn more about our downloading policy and what it means for you and your team members today", false},
		// Read as a visitor reads them (issue 9).
		{"Dοwnload", true},
		{"ＤＯＷＮＬＯＡＤ", true},
		{"Down\u200bload", true},
		{"D o w n l o a d", true},
		{"Do wn lo ad", true},
		{"Down load now", true},
		{"TELECHARGER", true},
		{"Get your copy", true},
		{"下 载", true},
		{"S T U D I O", false},
		{"Slow down, load less", false},
		{"加载下一页", false},
		{"Scarica\u0301", true},
		{"ΕΠΟΜΕΝΟ", false},
	}
	for _, tt := range tests {
		if got := isDownloadLabel([]byte(tt.label), false); got != tt.want {
			t.Errorf("isDownloadLabel(%q) = %v, want %v", tt.label, got, tt.want)
		}
	}
}

// TestFindingsWellFormed checks every finding of the corpus: a known rule
// with the right severity, a position, a short valid excerpt, a message
// and a hint.
func TestFindingsWellFormed(t *testing.T) {
	docs := corpus(t, "testdata/*/*.html")
	for name, doc := range docs {
		r := Check(doc, testOptions)
		for _, f := range append(r.Errors, r.Warnings...) {
			if err := checkFinding(doc, f); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		for _, f := range r.Errors {
			if f.Severity != SeverityError {
				t.Errorf("%s: error %s has severity %v", name, f.Rule, f.Severity)
			}
		}
		for _, f := range r.Warnings {
			if f.Severity != SeverityWarning {
				t.Errorf("%s: warning %s has severity %v", name, f.Rule, f.Severity)
			}
		}
	}
}

// checkFinding returns what is wrong with a finding about doc.
func checkFinding(doc []byte, f Finding) error {
	switch {
	case !knownRule(f.Rule):
		return fmt.Errorf("unknown rule %q", f.Rule)
	case f.Line < 1 || f.Column < 1:
		return fmt.Errorf("%s: position %d:%d", f.Rule, f.Line, f.Column)
	case f.Line > bytes.Count(doc, []byte("\n"))+1:
		return fmt.Errorf("%s: line %d is past the end", f.Rule, f.Line)
	case utf8.RuneCountInString(f.Excerpt) > maxExcerpt:
		return fmt.Errorf("%s: excerpt of %d runes", f.Rule, utf8.RuneCountInString(f.Excerpt))
	case !utf8.ValidString(f.Excerpt) || !utf8.ValidString(f.Message):
		return fmt.Errorf("%s: invalid UTF-8 in %q / %q", f.Rule, f.Excerpt, f.Message)
	case f.Message == "" || f.Hint == "":
		return fmt.Errorf("%s: empty message or hint", f.Rule)
	case f.Severity != SeverityError && f.Severity != SeverityWarning:
		return fmt.Errorf("%s: severity %v", f.Rule, f.Severity)
	}
	return nil
}

// TestAttrsMatchTokenizer checks that readAttrs, which reads attributes from
// the source, agrees with the tokenizer's TagAttr on the corpus.
func TestAttrsMatchTokenizer(t *testing.T) {
	docs := corpus(t, "testdata/*/*.html")
	docs["tricky"] = []byte(`<a b=c d = 'e' f="g" =h i/j k=l/ m="n"/ HREF=x href=y><p a ><br/><x y=/><img src="a&amp;b" alt=&lt;>`)
	docs["references"] = []byte(`<img src="https://a.example/x?a=1&copy=2&notify=1&copyx;&amp&ampx&AMP;&fjlig;&semi;&#x41;&#65&#;&;&" ` +
		`alt='&lt&gt=&quot;&hellip&hellip;&notin;&notit;' title=&copy2&not&frac12x&frac12;>`)
	for name, doc := range docs {
		if err := compareAttrs(doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// compareAttrs tokenizes doc twice, once with Tokenizer.TagAttr and once
// with readAttrs, and returns the first difference.
func compareAttrs(doc []byte) error {
	z := html.NewTokenizer(bytes.NewReader(doc))
	c := newChecker(doc, Options{})
	c.src = doc
	off := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return nil
		}
		start := off
		off += len(z.Raw())
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		c.readAttrs(start, off)
		var want []string
		for {
			k, v, more := z.TagAttr()
			if k == nil {
				break
			}
			want = append(want, string(k)+"="+string(v))
			if !more {
				break
			}
		}
		var got []string
		for _, a := range c.attrs {
			got = append(got, string(a.key)+"="+string(a.val))
		}
		if !slices.Equal(got, want) && !bytes.ContainsAny(doc[start:off], "\x00\r") {
			return fmt.Errorf("tag %q: got attributes %q, want %q", doc[start:off], got, want)
		}
		if len(got) != len(want) {
			return fmt.Errorf("tag %q: got %d attributes, want %d", doc[start:off], len(got), len(want))
		}
	}
}

// TestConcurrent runs Check from many goroutines at once; with -race it
// shows that Check shares no mutable state.
func TestConcurrent(t *testing.T) {
	docs := corpus(t, "testdata/*/*.html")
	want := map[string]Result{}
	for name, doc := range docs {
		want[name] = Check(doc, testOptions)
	}
	done := make(chan error)
	for range 4 {
		go func() {
			for name, doc := range docs {
				if got := Check(doc, testOptions); !slices.EqualFunc(got.Errors, want[name].Errors, func(a, b Finding) bool { return a == b }) {
					done <- fmt.Errorf("%s: got %v, want %v", name, got.Errors, want[name].Errors)
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

package htmlcheck

import (
	"slices"
	"strings"
	"testing"
)

// downloadEvasions are fake download buttons found by an outside tester
// (security issue 9, item 5) that Check accepted before the label was
// normalised and read from every place a page shows text. Every row was
// checked to pass the old checker, so each one is a regression test.
var downloadEvasions = []evasion{
	// Look-alike letters.
	{"greek omicron", `<a href="#">Dοwnload</a>`},
	{"cyrillic o and a", `<button>Dоwnlоаd now</button>`},
	{"full-width", `<button>Ｄｏｗｎｌｏａｄ</button>`},
	{"mathematical bold", `<a href="#">𝐃𝐨𝐰𝐧𝐥𝐨𝐚𝐝</a>`},
	{"circled letters", `<a href="#">ⒹⓄⓌⓃⓁⓄⒶⒹ</a>`},
	{"capital I for l", `<a href="#">DownIoad</a>`},
	{"digit zero for o", `<button>D0wnl0ad</button>`},
	{"roman numeral D", `<button>Ⅾownload</button>`},
	{"combining underline", "<button>D\u0332o\u0332w\u0332n\u0332l\u0332o\u0332a\u0332d\u0332</button>"},
	{"greek capitals without accent", `<button>ΛΗΨΗ</button>`},
	{"accent on a latin letter", `<button>Dównload</button>`},
	// Hidden characters.
	{"zero-width space reference", `<a href="#">Down&#8203;load</a>`},
	{"soft hyphen", `<a href="#">Down&shy;load</a>`},
	{"zero-width joiner", "<button>Down\u200dload</button>"},
	{"zero-width non-joiner", "<button>Down\u200cload</button>"},
	{"word joiner", `<button>Down&#x2060;load</button>`},
	{"byte order mark", `<button>Down&#xFEFF;load</button>`},
	{"bidi embedding", "<button>\u202aDown\u202cload\u200e</button>"},
	{"bidi isolate", "<button>Down\u2066load\u2069</button>"},
	{"right-to-left override", "<button>\u202edaolnwoD</button>"},
	{"bdo rtl", `<a href="#"><bdo dir="rtl">daolnwoD</bdo></a>`},
	{"hangul filler", "<button>Down\u3164load</button>"},
	{"variation selector", "<button>Down\ufe0fload</button>"},
	{"zero-width in aria-label", `<a href="#" aria-label="Down&#8203;load">⬇</a>`},
	{"soft hyphen in value", `<input type="submit" value="Down&shy;load">`},
	// Spaced letters and split words.
	{"spaced letters", `<button>D o w n l o a d</button>`},
	{"hyphenated letters", `<button>D-o-w-n-l-o-a-d</button>`},
	{"dotted letters", `<button>D.o.w.n.l.o.a.d</button>`},
	{"spaced letters with more", `<a href="#">F R E E &nbsp; D O W N L O A D</a>`},
	{"letters in spans", `<a href="#"><span>D</span> <span>o</span> <span>w</span> <span>n</span> <span>l</span> <span>o</span> <span>a</span> <span>d</span></a>`},
	{"split word", `<button>Down load</button>`},
	{"split word in blocks", `<a href="#"><div>Down</div><div>load</div></a>`},
	{"split word in title", `<a href="#" title="Down-load">⬇</a>`},
	{"hidden letters between", `<a href="#">Do<span hidden>x</span>wn<span style="display: NONE">y</span>lo<b style="font-size:0px">z</b>ad</a>`},
	{"transparent letter between", `<button>Down<span style="opacity:0;position:absolute">x</span>load</button>`},
	{"links side by side", `<a class="l" href="#">Down</a><a class="r" href="#">load</a>`},
	{"a letter a link", `<p><a href="#">D</a><a href="#">o</a><a href="#">w</a><a href="#">n</a><a href="#">l</a><a href="#">o</a><a href="#">a</a><a href="#">d</a></p>`},
	{"korean with a space", `<a href="#">다운 로드</a>`},
	{"chinese with a dot", `<button>下·载</button>`},
	// CSS generated content.
	{"css before", `<style>.cta::before { content: "Download now" }</style><a class="cta" href="#"></a>`},
	{"css after", `<style>a.x::after{content:'Download'}</style><a class="x" href="#"></a>`},
	{"css escape", `<style>.go:after { content: "\44 ownload" }</style><span class="go" onclick="go()"></span>`},
	{"css long escape", `<style>.go:after { content: "\000044ownload" }</style><a class="go" href="#"></a>`},
	{"css concatenated strings", `<style>#b::before { content: "Down" "load" }</style><div id="b"></div>`},
	{"css escaped property", `<style>.b::before { c\6f ntent: "Download" }</style><div class="b"></div>`},
	{"css custom property", `<style>:root { --label: "Download"; } .b::after { content: var(--label) }</style><div class="b"></div>`},
	{"css quotes", `<style>q.b { quotes: "Download" ""; }</style><a href="#"><q class="b"></q></a>`},
	{"css marker", `<style>li.b { list-style-type: "Download " }</style><ul><li class="b"><a href="#">now</a></li></ul>`},
	{"css in nested rule", `<style>.card { & .b::after { content: "Télécharger" } }</style><div class="card"><a class="b" href="#"></a></div>`},
	{"css custom property in a style attribute", `<a class="b" href="#" style="--x:'Download'"></a>`},
	{"css comment between strings", `<style>.b::after { content: "Down" /* ; font-family: x */ "load" }</style><a class="b" href="#"></a>`},
	// SVG text.
	{"svg tspans", `<a href="#"><svg viewBox="0 0 100 20"><text x="0" y="15"><tspan>Down</tspan><tspan>load</tspan></text></svg></a>`},
	{"svg text in clickable svg", `<svg onclick="go()" viewBox="0 0 100 20"><text x="0" y="15"><tspan>D</tspan><tspan>ownload</tspan></text></svg>`},
	{"svg textPath", `<svg><a href="#"><text><textPath href="#p">Down</textPath><tspan>load</tspan></text></a></svg>`},
	// Other text sources and clickable elements.
	{"img alt in link", `<a href="#"><img alt="Download" src="https://img.example.com/arrow.png"></a>`},
	{"input image alt", `<input type="image" alt="Download" src="https://img.example.com/arrow.png">`},
	{"area alt", `<map name="m"><area href="#" alt="Download" coords="0,0,10,10"></map>`},
	{"aria-label of a descendant", `<a href="#"><span aria-label="Download"></span></a>`},
	{"summary", `<details><summary>Download</summary><p>x</p></details>`},
	{"label", `<label for="dl">Download</label><input type="checkbox" id="dl" hidden>`},
	{"role tab", `<div role="tab">Download</div>`},
	{"role menuitemradio", `<div role="menuitemradio">Download</div>`},
	{"onkeydown handler", `<div tabindex="0" onkeydown="go(event)">Download</div>`},
	{"placeholder of a clickable input", `<input readonly onclick="go()" placeholder="Download">`},
	{"select option", `<select onchange="go()"><option>Download PDF</option></select>`},
	{"css attr", `<style>.b::after { content: attr(data-label) }</style><p class="b" data-label="Download now"></p>`},
	{"css attr before its style", `<p class="b" data-label="Download now"></p><style>.b::after { content: attr(data-label) }</style>`},
	// Other wording.
	{"save file", `<button>Save file</button>`},
	{"save to device", `<a href="#">Save to device</a>`},
	{"get your copy", `<a href="#">Get your copy</a>`},
	{"get a copy", `<button>Get a free copy</button>`},
	{"romanian", `<a href="#">Descarcă acum</a>`},
	{"bulgarian", `<button>Изтегли</button>`},
	{"croatian", `<button>Preuzmi</button>`},
	{"bengali", `<button>ডাউনলোড করুন</button>`},
	{"dutch bestand", `<button>Bestand opslaan</button>`},
	{"german datei speichern", `<button>Datei speichern</button>`},
}

func TestDownloadEvasions(t *testing.T) { wantDownloadButton(t, downloadEvasions) }

// evasion is a page body that must be rejected as a download button.
type evasion struct {
	name string
	body string
}

// wantDownloadButton checks that each body is rejected by download.button.
func wantDownloadButton(t *testing.T, rows []evasion) {
	t.Helper()
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			r := Check([]byte(page(tt.body)), testOptions)
			if got := ruleNames(r.Errors); !slices.Contains(got, RuleDownloadButton) {
				t.Errorf("%s: got errors %v, want %s", tt.body, got, RuleDownloadButton)
			}
		})
	}
}

// secondRoundEvasions are fake download buttons found by a second outside
// tester that the checker of the first round (downloadEvasions) accepted.
// Every row was checked to pass that checker (commit fd5af59), so each one
// is a regression test.
var secondRoundEvasions = []evasion{
	// Letters hidden between others, by more means than the first round read.
	{"aria-hidden letters", `<a href="#">Down<span aria-hidden="true">qq</span>load</a>`},
	{"zero width letters", `<a href="#">Down<span style="width:0;overflow:hidden;display:inline-block">qq</span>load</a>`},
	{"off-screen letters", `<a href="#">Down<span style="position:absolute;left:-9999px">qq</span>load</a>`},
	{"clipped letters", `<a href="#">Down<span style="clip-path:inset(50%)">qq</span>load</a>`},
	{"transparent colour letters", `<a href="#">Down<span style="color: Transparent">qq</span>load</a>`},
	{"indented away letters", `<a href="#">Down<span style="display:inline-block;text-indent:-999px;overflow:hidden;width:1px">qq</span>load</a>`},
	{"scaled to nothing", `<a href="#">Down<span style="transform:scale(0);position:absolute">qq</span>load</a>`},
	{"template letters", `<a href="#">Down<template>xyz</template>load</a>`},
	{"ruby annotation between", `<a href="#">Do<ruby>wn<rt>zz</rt></ruby>load</a>`},
	{"ruby parenthesis between", `<a href="#">Down<rp>zz</rp>load</a>`},
	// Declarative shadow DOM draws the template instead of the light DOM.
	{"shadow root hides the rest", `<a href="#">Read <template shadowrootmode="open">Download</template> the guide about it</a>`},
	// CSS that draws items in another order.
	{"flex order", `<a href="#"><span style="order:2">load</span><span style="order:1">Down</span></a>`},
	{"flex order per letter", `<a href="#" style="display:flex"><span style="order:8">d</span><span style="order:1">D</span><span style="order:2">o</span><span style="order:3">w</span><span style="order:4">n</span><span style="order:5">l</span><span style="order:6">o</span><span style="order:7">a</span></a>`},
	{"negative order", `<button style="display:flex"><b>load</b><b style="order: -1">Down</b></button>`},
	{"row-reverse", `<a href="#" style="display:flex;flex-direction:row-reverse"><span>load</span><span>Down</span></a>`},
	{"row-reverse nested", `<button style="display:flex;flex-direction:row-reverse"><span><b>lo</b>ad</span><span>Down</span></button>`},
	{"row-reverse inside", `<a href="#"><div style="display:flex;flex-flow:row-reverse wrap"><i>load</i><i>Down</i></div></a>`},
	{"direction rtl words", `<a href="#" style="direction:rtl"><span>load</span> <span>Down</span></a>`},
	// Text drawn by SVG images in data: URLs.
	{"img svg data percent-encoded", `<a href="#"><img src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'%3E%3Ctext%3EDownload%3C/text%3E%3C/svg%3E"></a>`},
	{"img svg data base64", `<a href="#"><img alt="" src="data:image/svg+xml;base64,PHN2ZyB4bWxucz0naHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmcnIHdpZHRoPScxMjAnIGhlaWdodD0nMzAnPjxyZWN0IHdpZHRoPScxMjAnIGhlaWdodD0nMzAnIGZpbGw9JyMwYTAnLz48dGV4dCB4PScxMCcgeT0nMjAnIGZpbGw9JyNmZmYnPkRvd25sb2FkPC90ZXh0Pjwvc3ZnPg=="></a>`},
	{"img svg data title", `<button><img src="data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg'><title>Download</title></svg>"></button>`},
	{"input image svg data", `<input type="image" alt="" src="data:image/svg+xml,%3Csvg%3E%3Ctext%3EDownload%3C/text%3E%3C/svg%3E">`},
	{"svg image svg data", `<a href="#"><svg><image href="data:image/svg+xml,%3Csvg%3E%3Ctext%3EDownload%3C/text%3E%3C/svg%3E"/></svg></a>`},
	{"svg data inside svg data", `<a href="#"><img src="data:image/svg+xml,%3Csvg%3E%3Cimage href='data:image/svg+xml;base64,PHN2ZyB4bWxucz0naHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmcnPjx0ZXh0PkRvd25sb2FkIG5vdzwvdGV4dD48L3N2Zz4='/%3E%3C/svg%3E"></a>`},
	{"css background svg data", `<a href="#" style="background:url(&quot;data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg'><text>Download</text></svg>&quot;)"></a>`},
	{"css background svg data base64", `<style>.b { background-image: url(data:image/svg+xml;base64,PHN2ZyB4bWxucz0naHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmcnIHdpZHRoPScxMjAnIGhlaWdodD0nMzAnPjxyZWN0IHdpZHRoPScxMjAnIGhlaWdodD0nMzAnIGZpbGw9JyMwYTAnLz48dGV4dCB4PScxMCcgeT0nMjAnIGZpbGw9JyNmZmYnPkRvd25sb2FkPC90ZXh0Pjwvc3ZnPg==) }</style><a class="b" href="#"></a>`},
	// Click handlers attached by script.
	{"script listener on a div", `<div class="dl" style="cursor:pointer">Download</div><script>document.querySelector('.dl').addEventListener('click', go)</script>`},
	{"script onclick on a span", `<span id="get">Download now</span><script>document.getElementById('get').onclick = go</script>`},
	{"script pointerdown, tabindex", `<div tabindex="0">Get the file</div><script>document.body.addEventListener("pointerdown", go)</script>`},
	{"script listener, download id", `<p id="download-link">Save file</p><script>window.addEventListener('touchstart', go)</script>`},
	// A plain <div> that $("div").on("click", …) reaches is no longer
	// read as a button: short div and span labels made feature lists
	// buttons on any page with a click script (fourth outside attack,
	// row 38). An id the script looks up still counts.
	{"jquery click by id", `<div id="free">Free download</div><script>$("#free").on("click", go)</script>`},
}

func TestDownloadEvasionsSecondRound(t *testing.T) { wantDownloadButton(t, secondRoundEvasions) }

// fourthRoundEvasions are fake download buttons from the fourth outside
// attack that the checker before it accepted (each row was checked to
// pass that checker).
var fourthRoundEvasions = []evasion{
	// SVG presentation attributes hide letters as styles do (row 29).
	{"svg tspan display none", `<a href="https://ok.example/"><svg width="120" height="30"><text y="20">Down<tspan display="none">qq</tspan>load</text></svg></a>`},
	{"svg tspan visibility and font-size", `<a href="https://ok.example/"><svg width="120" height="30"><text y="20">Down<tspan visibility="hidden" font-size="0">qq</tspan>load</text></svg></a>`},
	{"svg tspan opacity", `<a href="https://ok.example/"><svg width="120" height="30"><text y="20">Down<tspan opacity="0">qq</tspan>load</text></svg></a>`},
	{"svg data tspan font-size", `<a href="https://ok.example/"><img src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='120' height='30'%3E%3Ctext y='20'%3EDown%3Ctspan font-size='0'%3Eqq%3C/tspan%3Eload%3C/text%3E%3C/svg%3E" alt=""></a>`},
	{"svg data tspan display style", `<a href="https://ok.example/"><img src="data:image/svg+xml,%3Csvg%3E%3Ctext%3EDown%3Ctspan style='display:none'%3Eqq%3C/tspan%3Eload%3C/text%3E%3C/svg%3E" alt=""></a>`},
	// Inline styles that hide letters without a zero (row 26).
	{"style font-size:0.01px", `<a href="https://ok.example/">Down<span style="font-size:0.01px">qq</span>load</a>`},
	{"style font-size:0.01em", `<a href="https://ok.example/">Down<span style="font-size:0.01em">qq</span>load</a>`},
	{"style color:#0000;position:absolute", `<a href="https://ok.example/">Down<span style="color:#0000;position:absolute">qq</span>load</a>`},
	{"style color:#ffffff00", `<a href="https://ok.example/">Down<span style="color:#ffffff00">qq</span>load</a>`},
	{"style position:absolute;opacity:0.001", `<a href="https://ok.example/">Down<span style="position:absolute;opacity:0.001">qq</span>load</a>`},
	{"style opacity:1%", `<a href="https://ok.example/">Down<span style="opacity:1%">qq</span>load</a>`},
	{"style zoom:0.001", `<a href="https://ok.example/">Down<span style="zoom:0.001">qq</span>load</a>`},
	{"style position:absolute;filter:opacity(0)", `<a href="https://ok.example/">Down<span style="position:absolute;filter:opacity(0)">qq</span>load</a>`},
	{"style filter:blur(0) opacity(0.01)", `<a href="https://ok.example/">Down<span style="filter:blur(0) opacity(0.01)">qq</span>load</a>`},
	{"style position:absolute;left:99999px", `<a href="https://ok.example/">Down<span style="position:absolute;left:99999px">qq</span>load</a>`},
	{"style position:absolute;margin-left:-99999px", `<a href="https://ok.example/">Down<span style="position:absolute;margin-left:-99999px">qq</span>load</a>`},
	{"style position:relative;top:5000px", `<a href="https://ok.example/">Down<span style="position:relative;top:5000px">qq</span>load</a>`},
	{"style text-indent:2000px;overflow:hidden;display:inline-block;width:1px", `<a href="https://ok.example/">Down<span style="text-indent:2000px;overflow:hidden;display:inline-block;width:1px">qq</span>load</a>`},
	{"style color:rgba(0,0,0,0)", `<a href="https://ok.example/">Down<span style="color:rgba(0,0,0,0)">qq</span>load</a>`},
	{"style color:hsla(0, 0%, 0%, 0)", `<a href="https://ok.example/">Down<span style="color:hsla(0, 0%, 0%, 0)">qq</span>load</a>`},
	{"style color:rgb(0 0 0 / 0%)", `<a href="https://ok.example/">Down<span style="color:rgb(0 0 0 / 0%)">qq</span>load</a>`},
	// Content browsers do not draw (row 27).
	{"audio fallback", `<a href="https://ok.example/">Down<audio>qq</audio>load</a>`},
	{"video fallback", `<a href="https://ok.example/">Down<video>qq</video>load</a>`},
	{"datalist options", `<a href="https://ok.example/">Down<datalist><option>qq</option></datalist>load</a>`},
	{"canvas fallback", `<a href="https://ok.example/">Down<canvas width="0" height="0">qq</canvas>load</a>`},
	{"object fallback", `<a href="https://ok.example/">Down<object data="https://ok.example/x.png" type="image/png">qq</object>load</a>`},
	{"zero-size svg", `<a href="https://ok.example/">Down<svg width="0" height="0"><text>qq</text></svg>load</a>`},
	{"alt of a loaded image", `<a href="https://ok.example/">Down<img alt="qq" width="0" height="0" src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7">load</a>`},
	// One word in ::before and ::after (row 28).
	{"css before and after", `<style>.x::before{content:"Down"}.x::after{content:"load"}</style><a class="x" href="https://ok.example/"></a>`},
	{"css before and after, escaped", `<style>.x:before { content: "D\6f wn" } .x:after { content: 'load now' }</style><span class="x" onclick="go()"></span>`},
	// A video's poster is drawn like an image (row 30).
	{"video poster svg data", `<a href="https://ok.example/"><video width="120" height="30" poster="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='120' height='30'%3E%3Ctext y='20'%3EDownload%3C/text%3E%3C/svg%3E"></video></a>`},
}

func TestDownloadEvasionsFourthRound(t *testing.T) { wantDownloadButton(t, fourthRoundEvasions) }

// twentySecondAttackEvasions are fake download buttons from the
// twenty-second outside attack that the checker before it accepted (each
// row was checked to pass that checker, 42099df).
var twentySecondAttackEvasions = []evasion{
	// The tatweel lengthens a stroke and draws no letter (row 838).
	{"tatweel in arabic", `<a href="#">تحـميل</a>`},
	{"tatweels in arabic", `<a href="#">تـحـمـيـل</a>`},
	{"tatweel in an aria-label", `<a href="#" aria-label="تحـميل">→</a>`},
	{"tatweel in css content", `<style>.b::after{content:"\62A\62D\640\645\64A\644"}</style><a class="b" href="#"></a>`},
	{"tatweel in latin", `<a href="#">Dow&#x0640;nload</a>`},
	// Latin letters standing for Cyrillic ones whose capitals they look
	// like (row 839).
	{"latin capitals among cyrillic", `<a href="#">CKAЧATЬ</a>`},
	{"latin letters among cyrillic", `<a href="#">Ckачать</a>`},
	// Katakana's long vowel mark drawn as a dash (row 840).
	{"hyphen for the long vowel mark", `<a href="#">ダウンロ-ド</a>`},
	{"fullwidth hyphen for the long vowel mark", `<a href="#">ダウンロ－ド</a>`},
	{"wave dash for the long vowel mark", `<a href="#">ダウンロ〜ド</a>`},
	// From the third round on the same fixes (rows 858-860): lunate
	// sigmas, which decompose to Σ and ς but look like C and c ...
	{"lunate sigma capital", `<a href="#">ϹКАЧАТЬ</a>`},
	{"lunate sigma capital, small letters", `<a href="#">Ϲкачать</a>`},
	{"lunate sigma small", `<a href="#">ϲкачать</a>`},
	{"lunate sigma in latin", `<button>DESϹARGAR</button>`},
	// ... katakana's long mark doubled or moved ...
	{"long mark doubled", `<a href="#">ダウンローード</a>`},
	{"long mark tripled", `<a href="#">ダウンローーード</a>`},
	{"halfwidth long marks doubled", `<a href="#">ダウンロｰｰド</a>`},
	{"ideographs one doubled", `<a href="#">ダウンロ一一ド</a>`},
	{"long mark moved", `<a href="#">ダーウンロード</a>`},
	{"spaced with a doubled mark", `<a href="#">ダ ウ ン ロ ー ー ド</a>`},
	// ... and the araea, drawn as a centred dot.
	{"araea in latin", "<a href=\"#\">Down\u318dload</a>"},
	{"araea in katakana", "<a href=\"#\">ダウン\u318dロード</a>"},
	{"araea in hangul", "<a href=\"#\">다운\u318d로드</a>"},
	{"jungseong araea in hangul", "<a href=\"#\">다운\u119e로드</a>"},
	{"araea in chinese", "<a href=\"#\">下\u318d载</a>"},
	{"araea in cyrillic", "<a href=\"#\">Ска\u318dчать</a>"},
}

func TestDownloadEvasionsTwentySecondAttack(t *testing.T) {
	wantDownloadButton(t, twentySecondAttackEvasions)
}

// The readings added for twentySecondAttackEvasions keep ordinary labels
// in Russian, Japanese and Arabic, and words with a tatweel, allowed.
func TestTwentySecondAttackKeepsLabelsAllowed(t *testing.T) {
	for _, label := range []string{"Далее", "Подробнее", "Скачанные файлы: помощь", "Сканировать", "CKAHEP", "Каталог",
		"ログイン", "データ", "سـلام", "مـرحـبـا", "Downtown", "2M downloads",
		// The third round's innocent labels (row 866).
		"Контакты", "Корзина", "Сканер", "Скачки", "Скачки на ипподроме", "Скачок цен", "Загрузка страницы...",
		"Загрузки", "Мои загрузки", "Завантаження...", "Головна", "Начало", "Почетна", "Αρχική", "ΑΡΧΙΚΗ", "Σχετικά",
		"Κατάλογος", "ホーム", "ダウンタウン", "ダウンジャケット", "データダウン", "ロード中", "アップロード", "下一页",
		"载入中", "다운타운", "الرئيسية", "الـمـنـتـجـات", "تماس با ما", "صفحه اصلی", "KOHTAKTЫ", "Ckaчки", "3агрузка страницы",
		"Σύνδεση", "ΣΥΝΔΕΣΗ", "Ϲύνδεση"} {
		body := page(`<a href="#x">` + label + `</a>`)
		if r := Check([]byte(body), testOptions); slices.Contains(ruleNames(r.Errors), RuleDownloadButton) {
			t.Errorf("%q is read as a download button", label)
		}
	}
}

// bidiLevelEvasions are labels drawn as a call to download in the order
// the Unicode Bidirectional Algorithm gives them, found by an outside
// tester and rendered in Chromium (docs/security.md rows 869-871).
var bidiLevelEvasions = []evasion{
	// An override with another run nested in it (row 869).
	{"ltr override nested in rtl override", `<a href="#">&#x202E;daol&#x202D;Down&#x202C;&#x202C;</a>`},
	{"ltr isolate nested in rtl override", `<a href="#">&#x202E;daol&#x2066;Down&#x2069;&#x202C;</a>`},
	{"ltr embedding nested in rtl override", `<a href="#">&#x202E;daol&#x202A;Down&#x202C;&#x202C;</a>`},
	{"nested, as characters", "<a href=\"#\">\u202edaol\u202dDown\u202c\u202c</a>"},
	// Left-to-right words in a right-to-left context, a right-to-left
	// mark between them (row 870).
	{"rtl embedding and a mark", `<a href="#">&#x202B;load&#x200F;Down&#x202C;</a>`},
	{"dir=rtl and a mark", `<a href="#" dir="rtl">load&#x200F;Down</a>`},
	{"dir=rtl on a span and a mark", `<a href="#"><span dir="rtl">load&rlm;Down</span></a>`},
	{"rtl isolate of two ltr isolates", `<a href="#">&#x2067;&#x2066;load&#x2069;&#x2066;Down&#x2069;&#x2069;</a>`},
	// An override left open before the link, in its paragraph (row 871).
	{"override before the link", `<p>&#x202E;<a href="#">daolnwoD</a></p>`},
	{"override before the link, as a character", "<p>\u202e <a href=\"#\">daolnwoD</a></p>"},
	{"override before the link, in a span", `<p><span>&#x202E;</span> <a href="#">daolnwoD</a></p>`},
	{"override before two links", `<p>&#x202E;<a href="#">daol</a><a href="#">nwoD</a></p>`},
	{"override before a cyrillic link", `<p>&#x202E;<a href="#">ьтачакС</a></p>`},
	{"override left open in a link before", `<p><a href="#">x&#x202E;</a> <a href="#">daolnwoD</a></p>`},
	{"override and a mixed label", `<p>&#x202B;<a href="#">load&#x200F;Down</a></p>`},
	// HTML's direction attributes and CSS's overrides do what the
	// characters do.
	{"bdo around the link", `<bdo dir="rtl"><a href="#">daolnwoD</a></bdo>`},
	{"ltr span nested in bdo", `<a href="#"><bdo dir="rtl">daol<span dir="ltr">Down</span></bdo></a>`},
	{"bdi nested in bdo", `<a href="#"><bdo dir="rtl">daol<bdi>Down</bdi></bdo></a>`},
	{"isolate-override", `<a href="#" style="unicode-bidi:isolate-override;direction:rtl">daolnwoD</a>`},
	{"isolate-override in a style sheet", `<style>a{unicode-bidi:isolate-override;direction:rtl}</style><a href="#">daolnwoD</a>`},
	{"bidi-override with an escape", `<a href="#" style="unicode-bidi:bidi-overrid\65;direction:rtl">daolnwoD</a>`},
	{"rtl paragraph and a mark", `<p dir="rtl"><a href="#">load&rlm;Down</a></p>`},
	// Inline styles' unicode-bidi, as the characters (row 842).
	{"ltr override nested in an rtl one", `<a href="#"><span style="unicode-bidi:bidi-override;direction:rtl">daol<span style="unicode-bidi:bidi-override;direction:ltr">Down</span></span></a>`},
	{"two overriding spans", `<a href="#"><span style="unicode-bidi:bidi-override;direction:rtl">daol</span><span style="unicode-bidi:bidi-override;direction:rtl">nwoD</span></a>`},
	{"embed", `<a href="#"><span style="unicode-bidi:embed;direction:rtl">load&rlm;Down</span></a>`},
	{"isolate", `<a href="#"><span style="unicode-bidi:isolate;direction:rtl">load&rlm;Down</span></a>`},
	{"plaintext", `<a href="#"><span style="unicode-bidi:plaintext">&rlm;load&rlm;Down</span></a>`},
	{"override on the paragraph", `<span style="unicode-bidi:bidi-override;direction:rtl"><a href="#">daolnwoD</a></span>`},
}

func TestDownloadEvasionsBidiLevels(t *testing.T) {
	wantDownloadButton(t, bidiLevelEvasions)
}

// Ordinary text in both directions keeps its links allowed, and what a
// paragraph leaves open ends with it.
func TestBidiLevelsKeepLabelsAllowed(t *testing.T) {
	for _, body := range []string{
		`<a href="#">פרטים נוספים PDF</a>`,      // "more details", and a Latin word
		`<a href="#" dir="rtl">load א Down</a>`, // drawn "Down א load": a letter between
		`<a href="#" dir="rtl">Details &#x200F;שלום Help</a>`,
		`<a href="#">&#x202B;שלום World&#x202C;</a>`,
		`<a href="#">&#x2067;שלום&#x2069; daolnwoD</a>`, // the isolate closes before the word
		`<p>&#x202E;</p><p><a href="#">daolnwoD</a></p>`,
		`<p>&#x202E;<br><a href="#">daolnwoD</a></p>`,
		`<p>&#x202E;&#x202C;<a href="#">daolnwoD</a></p>`,
		`<p>&#x2067;x&#x2069;<a href="#">daolnwoD</a></p>`,
		`<a href="#">مرحبا Center</a>`,
		`<a href="#" dir="rtl">Dolphin &#x200F; Wnload</a>`,
		// Left-to-right words with only spaces between them stay in
		// their order in a right-to-left paragraph: Chromium and Firefox
		// draw "load Down" (it was taken for "Down load" before the
		// checker ordered labels as the bidirectional algorithm does).
		`<button dir="rtl">load Down</button>`,
		`<a href="#" dir="rtl">load Down</a>`,
	} {
		if r := Check([]byte(page(body)), testOptions); slices.Contains(ruleNames(r.Errors), RuleDownloadButton) {
			t.Errorf("%s is read as a download button", body)
		}
	}
}

// bidiFourthRoundEvasions were found by the outside attack on the
// orderings above (docs/security.md, rows from 874).
var bidiFourthRoundEvasions = []evasion{
	// An element drawn as a block by default is an isolate, not the end
	// of the paragraph: displayed inline, what is open before it is open
	// after it.
	{"inline div after an override", "\u202e<p style=\"display:inline\"></p><a href=\"#\">daolnwoD</a>"},
	{"inline-block section after an override", `<div>&#x202E;<section style="display:inline-block"></section><a href="#">daolnwoD</a></div>`},
	// Text in a table outside a cell is moved before the table.
	{"override fostered out of a table", `<p><table style="display:inline">&#x202E;</table><a href="#">daolnwoD</a></p>`},
	// Formatting characters drawn by CSS.
	{"override in ::before", `<style>.x::before{content:"\202E"}</style><p><a class="x" href="#">daolnwoD</a></p>`},
	{"override in attr()", `<style>p::before{content:attr(data-x)}</style><p data-x="&#x202E;"><a href="#">daolnwoD</a></p>`},
	{"override in quotes", `<style>q{quotes:"\202E" ""}</style><q><a href="#">daolnwoD</a></q>`},
	{"ltr override in ::before, hebrew", `<style>a::before{content:"\202D"}</style><a href="#">הדרוה</a>`},
	// SVG's presentation attributes.
	{"svg direction and unicode-bidi", `<svg width="200" height="40"><a href="#"><text x="100" y="25" direction="rtl" unicode-bidi="bidi-override">daolnwoD</text></a></svg>`},
	// A mark between links side by side in a right-to-left paragraph.
	{"mark between rtl links", `<p dir="rtl"><a href="#">load</a>&rlm;<a href="#">Down</a></p>`},
	{"mark between rtl links, as a character", "<p dir=\"rtl\"><a href=\"#\">load</a>\u200f<a href=\"#\">Down</a></p>"},
	// What draws nothing does not fill a label up before its words.
	{"spaces before the word", `<a href="#">` + strings.Repeat(" ", 1017) + `Download</a>`},
	{"newlines before the word", `<a href="#">` + strings.Repeat("\n", 1100) + `Download</a>`},
	{"hidden text before the word", `<a href="#"><span hidden>` + strings.Repeat("x", 2000) + `</span>Download</a>`},
	{"zero-width spaces before the word", `<a href="#">` + strings.Repeat("&#x200B;", 400) + `Download</a>`},
	{"soft hyphens before the word", `<a href="#">` + strings.Repeat("&shy;", 2000) + `Download</a>`},
	{"marks before the word", `<a href="#">` + strings.Repeat("&#x200E;", 400) + `Download</a>`},
	{"pops before an override", `<a href="#">` + strings.Repeat("&#x202C;", 350) + `&#x202E;daolnwoD</a>`},
}

// bidiFifthRoundEvasions were found by the outside attack on the fourth
// round's fixes (docs/security.md, rows from 898).
var bidiFifthRoundEvasions = []evasion{
	// display: contents draws no box, and isolates nothing.
	{"display contents", `<div>&#x202E;<p style="display:contents"><a href="#">daolnwoD</a></p></div>`},
	// A mark drawn by CSS between links side by side.
	{"mark drawn by attr() between links", `<style>.m::after{content:attr(data-m)}</style><p dir="rtl"><a href="#">load</a><span class="m" data-m="&rlm;"></span><a href="#">Down</a></p>`},
	{"mark drawn by css between links", `<style>.m::after{content:"\200F"}</style><p dir="rtl"><a href="#">load</a><span class="m"></span><a href="#">Down</a></p>`},
	// Pairs that open and close nothing do not fill a label up.
	{"balanced pairs before an override", `<p><a href="#">` + strings.Repeat("&#x202A;&#x202C;", 169) + `&#x202E;daolnwoD&#x202C;</a></p>`},
	{"balanced isolates before an override", `<p><a href="#">` + strings.Repeat("&#x2066;&#x2069;", 300) + `&#x202E;daolnwoD&#x202C;</a></p>`},
}

func TestDownloadEvasionsBidiFifthRound(t *testing.T) {
	wantDownloadButton(t, bidiFifthRoundEvasions)
}

// boxEvasions were left open by the outside attacks (docs/security.md,
// rows 882, 899, 900 and 901): a letter drawn invisibly still orders the
// text around it, and boxes side by side in a left-to-right line are read
// from right to left by a Hebrew or Arabic reader.
var boxEvasions = []evasion{
	{"hidden rtl letter by font size", `<a href="#" dir="rtl">load<span style="font-size:0">א</span>Down</a>`},
	{"hidden rtl letter by colour", `<a href="#" dir="rtl">load<span style="color:transparent;letter-spacing:-1em">א</span>Down</a>`},
	{"hidden ltr letter between hebrew pieces", `<a href="#">דה<span style="font-size:0">x</span>הור</a>`},
	{"dir auto set by a hidden letter", `<a href="#" dir="auto"><span hidden>א</span><span style="display:inline-block">load</span><span style="display:inline-block">Down</span></a>`},
	{"hebrew word of inline-block pieces", `<a href="#"><span style="display:inline-block">דה</span><span style="display:inline-block">הור</span></a>`},
	{"hebrew word of pieces by class", `<style>.b{display:inline-block}</style><a href="#"><span class="b">דה</span><span class="b">הור</span></a>`},
	{"hebrew word of nested pieces", `<a href="#"><span><span style="display:inline-block">ה</span><span style="display:inline-block">רד</span><span style="display:inline-block">הו</span></span></a>`},
	{"arabic word of inline-block pieces", `<a href="#"><span style="display:inline-block">يل</span><span style="display:inline-block">تنز</span></a>`},
	{"arabic tahmil of pieces", `<a href="#"><span style="display:inline-block">يل</span><span style="display:inline-block">تحم</span></a>`},
	{"persian word of pieces", `<a href="#"><span style="display:inline-block">لود</span><span style="display:inline-block">دان</span></a>`},
	{"svg text pieces", `<svg width="200" height="40"><a href="#"><text x="0" y="20">דה</text><text x="30" y="20">הור</text></a></svg>`},
	// Inline runs beside a box (rows 921-923): the box is drawn as one
	// neutral character, after the run it follows.
	{"split run then a box, in a button", `<button><span>ד</span><span>ה</span><span style="display:inline-block">הור</span></button>`},
	{"split run then an inline-flex box", `<a href="#"><b>ד</b>ה<span style="display:inline-flex">הור</span></a>`},
	{"arabic split run then a box", `<a href="#"><span>ي</span><span>ل</span><span style="display:inline-block">تنز</span></a>`},
	{"arabic tahmil, run then a box", `<a href="#"><span>م</span><span>يل</span><span style="display:inline-block">تح</span></a>`},
	{"a reversed box one level down", `<a href="#"><span><span style="display:inline-block">ה</span><span style="display:inline-flex;flex-direction:row-reverse"><span>הו</span><span>רד</span></span></span></a>`},
	{"image alt pieces", `<a href="#"><img alt="דה" src="x.png"><img alt="הור" src="x.png"></a>`},
	// Sizes too small to read, however written (rows 927-929).
	{"font shorthand", `<a href="#" dir="rtl">load<span style="font:0/0 a">א</span>Down</a>`},
	{"font shorthand with a weight", `<a href="#" dir="rtl">load<span style="font:400 0/0 a">א</span>Down</a>`},
	{"calc zero", `<a href="#" dir="rtl">load<span style="font-size:calc(0px)">א</span>Down</a>`},
	{"min zero", `<a href="#" dir="rtl">load<span style="font-size:min(0px,1em)">א</span>Down</a>`},
	{"custom property", `<a href="#" dir="rtl">load<span style="--z:0px;font-size:var(--z)">א</span>Down</a>`},
	{"comment in the value", `<a href="#" dir="rtl">load<span style="font-size:/**/0">א</span>Down</a>`},
	{"escape in the name", `<a href="#" dir="rtl">load<span style="font-\73 ize:0">א</span>Down</a>`},
	{"one pixel", `<a href="#" dir="rtl">load<span style="font-size:1px">א</span>Down</a>`},
	{"two pixels, a latin letter", `<a href="#">Down<span style="font-size:2px">x</span>load</a>`},
	// Shadow roots draw their hosts' children in their slots (row 884).
	{"slots in another order", `<div><template shadowrootmode="open"><a href="#"><slot name="b"></slot><slot name="a"></slot></a></template><span slot="a">load</span><span slot="b">Down</span></div>`},
	{"default slot and a named one", `<div><template shadowrootmode="closed"><button><slot name="x"></slot><slot></slot></button></template>load<b slot="x">Down</b></div>`},
	{"nested shadow roots", `<div><template shadowrootmode="open"><p><template shadowrootmode="open"><a href="#"><slot></slot>load</a></template><slot name="o"></slot></p></template><i slot="o">Down</i></div>`},
	{"slots and deep nesting", `<div><template shadowrootmode="open"><a href="#"><slot name="b"></slot><slot name="a"></slot></a></template><span slot="a">load</span><span slot="b">Down</span></div>` + strings.Repeat("<div>", 600)},
	{"svg tspan pieces", `<svg width="200" height="40"><a href="#"><text x="0" y="20"><tspan>ד</tspan><tspan>ה</tspan></text><text x="25" y="20">הור</text></a></svg>`},
	// The second round on the fixes (rows 935-940).
	{"links slotted side by side", `<div><template shadowrootmode="open"><slot name="b"></slot><slot name="a"></slot></template><a href="#" slot="a">load</a><a href="#" slot="b">Down</a></div>`},
	{"var() in the font shorthand", `<a href="#" dir="rtl">load<span style="--z:0;font:var(--z)/0 a">א</span>Down</a>`},
	{"a text field's value as a box", `<a href="#"><span>ד</span><span>ה</span><input value="הור" size="3"></a>`},
	{"a text field's placeholder as a box", `<a href="#"><span>ד</span><span>ה</span><input placeholder="הור" size="3"></a>`},
	{"a left-to-right flex box in a right-to-left link", `<p dir="rtl"><a href="#"><span style="display:inline-flex;direction:ltr"><span>ו</span><span>ה</span></span>רדה</a></p>`},
	// Boxes of left-to-right letters in a right-to-left paragraph (rows
	// 925 and 942).
	{"latin boxes in an rtl paragraph", `<p dir="rtl"><a href="#"><span style="display:inline-block">load</span><span style="display:inline-block">Down</span></a></p>`},
	{"latin boxes, direction by a style sheet", `<style>p{direction:rtl}</style><p><a href="#"><span style="display:inline-block">load</span><span style="display:inline-block">Down</span></a></p>`},
	{"dir auto on an ancestor, set by a hidden letter", `<p dir="auto"><span style="font-size:0">א</span><a href="#"><span style="display:inline-block">load</span><span style="display:inline-block">Down</span></a></p>`},
	{"hebrew links side by side as boxes", `<p><a href="#" style="display:inline-block">דה</a><a href="#" style="display:inline-block">הור</a></p>`},
	// Floats and grid placement (row 907).
	{"floats to the right", `<a href="#"><span style="float:right">load</span><span style="float:right">Down</span></a>`},
	{"a float to the left", `<a href="#">load<span style="float:left">Down</span></a>`},
	{"grid columns", `<a href="#" style="display:inline-grid"><span style="grid-row:1;grid-column:2">load</span><span style="grid-row:1;grid-column:1">Down</span></a>`},
	{"grid column start after an auto item", `<a href="#" style="display:inline-grid"><span>load</span><span style="grid-row-start:1;grid-column-start:1">Down</span></a>`},
	{"grid area", `<a href="#" style="display:inline-grid"><span style="grid-area:1/2">load</span><span style="grid-area:1/1">Down</span></a>`},
}

func TestDownloadEvasionsBoxes(t *testing.T) {
	wantDownloadButton(t, boxEvasions)
}

// Ordinary right-to-left links of several elements stay allowed, and a
// letter hidden from view orders only what is drawn around it.
func TestBoxesKeepLabelsAllowed(t *testing.T) {
	for _, body := range []string{
		`<a href="#"><span>הורדת</span> <span>מחירים</span></a>`, // "price cuts"
		`<a href="#"><b>שלום</b><i>עולם</i></a>`,
		`<a href="#"><span style="display:inline-block">מחיר</span><span style="display:inline-block">₪20</span></a>`,
		`<p dir="rtl"><a href="#">load<span aria-hidden="true">א</span>Down</a></p>`, // a visible letter between
		`<a href="#">ה<span hidden>x</span>דרוה</a>`,                                 // not drawn: no mark
		// Inline spans are drawn as one run (the outside attack's false
		// positives, row 926).
		`<div dir="rtl" lang="he"><a href="/sale"><span>המחיר הורד!</span> <span>עכשיו ב-₪99</span></a></div>`,
		`<div dir="rtl" lang="he"><a href="/p/7" style="display:inline-flex;gap:8px"><span>שמלת ורד</span><span>₪149</span><span>הורד מ-₪199</span></a></div>`,
		`<div dir="rtl" lang="he"><a href="/people/17"><mark>ורד</mark>ה</a></div>`,
		`<a href="#"><span>סטטוס</span> <span>Load</span><span>Down</span></a>`,
		`<a href="#"><span>ميل</span> <span>تح</span></a>`,
		`<a href="#"><span style="display:inline-block">מחיר</span> <span style="display:inline-block">מבצע</span></a>`,
		`<a href="#">Next <span style="font:italic 400 0.9rem/1.2 serif">page</span></a>`,
		`<a href="#">Next <span style="font-size:clamp(12px,2vw,20px)">page</span></a>`,
		`<nav><a href="/">בית</a><a href="/about">אודות</a><a href="/shop">חנות</a><a href="/sale">מבצעים</a></nav>`,
		`<a href="#"><span style="float:left">load</span>Down</a>`, // drawn "loadDown"
		`<a href="#" style="display:inline-grid"><span style="grid-column:1">load</span><span style="grid-column:2">Down</span></a>`,
		`<a href="#">ה<span style="display:none">x</span>דרוה</a>`,
		`<a href="#"><span>ملف</span> <span>PDF</span></a>`,
	} {
		if r := Check([]byte(page(body)), testOptions); slices.Contains(ruleNames(r.Errors), RuleDownloadButton) {
			t.Errorf("%s is read as a download button", body)
		}
	}
}

func TestDownloadEvasionsBidiFourthRound(t *testing.T) {
	wantDownloadButton(t, bidiFourthRoundEvasions)
}

// Arabic letters forced left to right read as an Arabic reader reads
// what is drawn: from right to left.
func TestDownloadEvasionsBidiArabic(t *testing.T) {
	wantDownloadButton(t, []evasion{
		{"arabic reversed under an ltr override", `<a href="#">&#x202D;ليمحت&#x202C;</a>`},
		{"arabic in two pieces, rtl override around ltr", `<p>&#x202E;<a href="#">&#x202D;ليم&#x202C;&#x202D;حت&#x202C;</a></p>`},
	})
}

// Calls to download with decoration on both sides, which read as the
// verb in the middle of a longer label (the 29th and 30th outside
// attacks, security.md row 1012; fixed in row 1013).
func TestDownloadEvasionsDecoratedLabels(t *testing.T) {
	wantDownloadButton(t, []evasion{
		{"hebrew letters", `<a href="#x">א Download א</a>`},
		{"arabic-indic digits", `<a href="#x">١ Download ١</a>`},
		{"latin letters", `<a href="#x">x Download x</a>`},
		{"two-letter words", `<a href="#x">ab ab Download ab ab</a>`},
		{"spaced letters", `<a href="#x">x y Download y x</a>`},
		{"another script around cyrillic", `<a href="#x">Report Скачать Report</a>`},
		{"cyrillic around latin", `<button>Ж Download Ж</button>`},
		{"a phrase", `<a href="#x">x Get the file x</a>`},
		{"after a filler", `<a href="#x">Click א Download א</a>`},
		{"in aria-label", `<a href="#x" aria-label="ש Download ש"></a>`},
		{"in CSS content", `<style>.b::after{content:"ש Download now ש"}</style><span class="b"></span>`},
		// The 31st outside attack (rows 1016-): longer decoration.
		{"a phonetic letter repeated", `<a href="#x">ʘʘʘ Download ʘʘʘ</a>`},
		{"arrows of Latin extended-D", `<a href="#x">ꜜꜜꜜ Download ꜜꜜꜜ</a>`},
		{"clicks", `<a href="#x">ǁǁǁ Download ǁǁǁ</a>`},
		{"phonetic letters", `<a href="#x">ʌƛʌ Download ƛʌƛ</a>`},
		{"a latin letter repeated", `<a href="#x">xxx Download vvv</a>`},
		{"the same word on both sides", `<a href="#x">xyz Download xyz</a>`},
		{"the same words on both sides", `<a href="#x">abc abc Download abc abc</a>`},
		{"spaced letters joined", `<a href="#x">x x x Download x x x</a>`},
		{"spaced letters around a phrase", `<a href="#x">x x x Get the file x x x</a>`},
	})
	for _, label := range []string{"Our download stats", "Read the download guide", "2 downloads today", "Over 2 million downloads", "2 مليون تنزيل", "Slow down, load less", "דף download באתר", "Our download FAQ"} {
		if r := Check([]byte(page(`<a href="#x">`+label+`</a>`)), testOptions); len(r.Errors) > 0 {
			t.Errorf("%q: got errors %v, want none", label, ruleNames(r.Errors))
		}
	}
}

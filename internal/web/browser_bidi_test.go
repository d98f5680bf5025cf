package web

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/htmlcheck"
)

// drawnText is the text of the page's body as it is drawn: its visible
// characters in the order they appear, line by line from left to right,
// without white space and without what draws nothing (formatting
// characters, marks of zero width).
const drawnText = `(` + drawnTextOf + `)(el => false)`

// drawnTextOf is a function of unseen, which tells the elements whose
// text drawnText leaves out besides.
const drawnTextOf = `(unseen) => {
  const out = [];
  const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = w.nextNode(); n; n = w.nextNode()) {
    if (unseen(n.parentElement)) continue;
    let i = 0;
    for (const ch of n.data) {
      const r = document.createRange();
      r.setStart(n, i);
      r.setEnd(n, i + ch.length);
      i += ch.length;
      const rects = r.getClientRects();
      if (!rects.length || rects[0].width < 0.5 || /\s/.test(ch)) continue;
      out.push([Math.round(rects[0].top), rects[0].left + rects[0].width / 2, ch]);
    }
  }
  out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return out.map(e => e[2]).join('');
}`

// TestBrowserBidiLabelsDrawnAsRead proves, in Chromium and Firefox, that
// the labels the page checker reads in the order the bidirectional
// algorithm draws them (htmlcheck's bidi.go; docs/security.md rows
// 869-871) are drawn as a call to download, so the checker refuses what
// a visitor would see as a download button, and that ordinary labels in
// both directions, which the checker allows, are not drawn as one.
func TestBrowserBidiLabelsDrawnAsRead(t *testing.T) {
	cases := []struct {
		html string
		// drawn is the word the drawn text has, read from left to right,
		// or from right to left when rtl; "" for a label drawn as
		// no call to download.
		drawn string
		rtl   bool
	}{
		{`<a href="#">&#x202E;daol&#x202D;Down&#x202C;&#x202C;</a>`, "Download", false},
		{`<a href="#">&#x202E;daol&#x2066;Down&#x2069;&#x202C;</a>`, "Download", false},
		{`<a href="#">&#x202E;daol&#x202A;Down&#x202C;&#x202C;</a>`, "Download", false},
		{`<a href="#">&#x202B;load&#x200F;Down&#x202C;</a>`, "Download", false},
		{`<a href="#" dir="rtl">load&#x200F;Down</a>`, "Download", false},
		{`<a href="#"><span dir="rtl">load&rlm;Down</span></a>`, "Download", false},
		{`<a href="#">&#x2067;&#x2066;load&#x2069;&#x2066;Down&#x2069;&#x2069;</a>`, "Download", false},
		{`<a href="#" dir="rtl">load&#x0640;Down</a>`, "Download", false},
		{`<p>&#x202E;<a href="#">daolnwoD</a></p>`, "Download", false},
		{`<p><span>&#x202E;</span> <a href="#">daolnwoD</a></p>`, "Download", false},
		{`<p>&#x202E;<a href="#">daol</a><a href="#">nwoD</a></p>`, "Download", false},
		{`<p>&#x202E;<a href="#">ьтачакС</a></p>`, "Скачать", false},
		{`<p><a href="#">x&#x202E;</a> <a href="#">daolnwoD</a></p>`, "Download", false},
		{`<p>&#x202B;<a href="#">load&#x200F;Down</a></p>`, "Download", false},
		{`<a href="#">&#x202D;ليمحت&#x202C;</a>`, "تحميل", true},
		{`<bdo dir="rtl"><a href="#">daolnwoD</a></bdo>`, "Download", false},
		{`<a href="#"><bdo dir="rtl">daol<span dir="ltr">Down</span></bdo></a>`, "Download", false},
		{`<a href="#"><bdo dir="rtl">daol<bdi>Down</bdi></bdo></a>`, "Download", false},
		{`<a href="#" style="unicode-bidi:isolate-override;direction:rtl">daolnwoD</a>`, "Download", false},
		{`<a href="#" style="unicode-bidi:bidi-overrid\65;direction:rtl">daolnwoD</a>`, "Download", false},
		{`<p dir="rtl"><a href="#">load&rlm;Down</a></p>`, "Download", false},
		{`<a href="#"><span style="unicode-bidi:bidi-override;direction:rtl">daol</span><span style="unicode-bidi:bidi-override;direction:rtl">nwoD</span></a>`, "Download", false},
		{`<a href="#"><span style="unicode-bidi:embed;direction:rtl">load&rlm;Down</span></a>`, "Download", false},
		{`<a href="#"><span style="unicode-bidi:bidi-override;direction:rtl">daol<span style="unicode-bidi:bidi-override;direction:ltr">Down</span></span></a>`, "Download", false},
		{`<a href="#"><span style="unicode-bidi:isolate;direction:rtl">load&rlm;Down</span></a>`, "Download", false},
		{`<a href="#"><span style="unicode-bidi:plaintext">&rlm;load&rlm;Down</span></a>`, "Download", false},
		// The fourth round (docs/security.md, rows from 874).
		{"&#x202E;<p style=\"display:inline\"></p><a href=\"#\">daolnwoD</a>", "Download", false},
		{`<p><table style="display:inline">&#x202E;</table><a href="#">daolnwoD</a></p>`, "Download", false},
		{`<svg width="200" height="40"><a href="#"><text x="100" y="25" direction="rtl" unicode-bidi="bidi-override">daolnwoD</text></a></svg>`, "Download", false},
		{`<p dir="rtl"><a href="#">load</a>&rlm;<a href="#">Down</a></p>`, "Download", false},
		{`<a href="#">` + strings.Repeat(" ", 1017) + `Download</a>`, "Download", false},
		{`<a href="#">` + strings.Repeat("&#x202C;", 350) + `&#x202E;daolnwoD</a>`, "Download", false},
		// The fifth round (docs/security.md, rows from 898).
		{`<div>&#x202E;<p style="display:contents"><a href="#">daolnwoD</a></p></div>`, "Download", false},
		{`<p><a href="#">` + strings.Repeat("&#x202A;&#x202C;", 169) + `&#x202E;daolnwoD&#x202C;</a></p>`, "Download", false},
		// Letters drawn invisibly, and boxes side by side (rows 882,
		// 899-903).
		{`<a href="#" dir="rtl">load<span style="font-size:0">א</span>Down</a>`, "Download", false},
		{`<a href="#">דה<span style="font-size:0">x</span>הור</a>`, "הורדה", true},
		{`<a href="#" dir="auto"><span hidden>א</span><span style="display:inline-block">load</span><span style="display:inline-block">Down</span></a>`, "Download", false},
		{`<a href="#"><span style="display:inline-block">דה</span><span style="display:inline-block">הור</span></a>`, "הורדה", true},
		{`<style>.b{display:inline-block}</style><a href="#"><span class="b">דה</span><span class="b">הור</span></a>`, "הורדה", true},
		{`<a href="#"><span><span style="display:inline-block">ה</span><span style="display:inline-block">רד</span><span style="display:inline-block">הו</span></span></a>`, "הורדה", true},
		{`<a href="#"><span style="display:inline-block">يل</span><span style="display:inline-block">تنز</span></a>`, "تنزيل", true},
		{`<svg width="200" height="40"><a href="#"><text x="0" y="20">דה</text><text x="30" y="20">הור</text></a></svg>`, "הורדה", true},
		// Inline runs beside a box (rows 921-923).
		{`<button><span>ד</span><span>ה</span><span style="display:inline-block">הור</span></button>`, "הורדה", true},
		{`<a href="#"><span>ي</span><span>ل</span><span style="display:inline-block">تنز</span></a>`, "تنزيل", true},
		{`<a href="#"><span><span style="display:inline-block">ה</span><span style="display:inline-flex;flex-direction:row-reverse"><span>הו</span><span>רד</span></span></span></a>`, "הורדה", true},
		// Slots of a declarative shadow root (row 884).
		{`<div><template shadowrootmode="open"><a href="#"><slot name="b"></slot><slot name="a"></slot></a></template><span slot="a">load</span><span slot="b">Down</span></div>`, "Download", false},
		{`<div><template shadowrootmode="closed"><button><slot name="x"></slot><slot></slot></button></template>load<b slot="x">Down</b></div>`, "Download", false},
		{`<div><template shadowrootmode="open"><slot name="b"></slot><slot name="a"></slot></template><a href="#" slot="a">load</a><a href="#" slot="b">Down</a></div>`, "Download", false},
		{`<p dir="rtl"><a href="#"><span style="display:inline-flex;direction:ltr"><span>ו</span><span>ה</span></span>רדה</a></p>`, "הורדה", true},
		{`<a href="#" dir="rtl">load<span style="--z:0;font:var(--z)/0 a">א</span>Down</a>`, "Download", false},
		{`<p dir="rtl"><a href="#"><span style="display:inline-block">load</span><span style="display:inline-block">Down</span></a></p>`, "Download", false},
		{`<p dir="auto"><span style="font-size:0">א</span><a href="#"><span style="display:inline-block">load</span><span style="display:inline-block">Down</span></a></p>`, "Download", false},
		{`<p><a href="#" style="display:inline-block">דה</a><a href="#" style="display:inline-block">הור</a></p>`, "הורדה", true},
		// Floats and grid columns (row 907).
		{`<a href="#"><span style="float:right">load</span><span style="float:right">Down</span></a>`, "Download", false},
		{`<a href="#">load<span style="float:left">Down</span></a>`, "Download", false},
		{`<a href="#" style="display:inline-grid"><span style="grid-row:1;grid-column:2">load</span><span style="grid-row:1;grid-column:1">Down</span></a>`, "Download", false},
		{`<a href="#" style="display:inline-grid"><span>load</span><span style="grid-row-start:1;grid-column-start:1">Down</span></a>`, "Download", false},
		{`<a href="#" style="display:inline-grid"><span style="grid-area:1/2">load</span><span style="grid-area:1/1">Down</span></a>`, "Download", false},
		// Drawn as written: allowed.
		{`<a href="#"><span style="float:left">load</span>Down</a>`, "", false},
		{`<a href="#" style="display:inline-grid"><span style="grid-column:2">load</span><span style="grid-column:1">Down</span></a>`, "", false}, // two rows
		{`<a href="#"><span>הורדת</span> <span>מחירים</span></a>`, "", false},
		{`<div dir="rtl" lang="he"><a href="/sale"><span>המחיר הורד!</span> <span>עכשיו ב-₪99</span></a></div>`, "", false},
		{`<div dir="rtl" lang="he"><a href="/people/17"><mark>ורד</mark>ה</a></div>`, "", false},
		{`<p dir="rtl"><a href="#">load<span aria-hidden="true">א</span>Down</a></p>`, "", false},
		{`<a href="#">ה<span hidden>x</span>דרוה</a>`, "", false},
		{`<a href="#">פרטים נוספים PDF</a>`, "", false},
		{`<a href="#" dir="rtl">load א Down</a>`, "", false},
		{`<a href="#" dir="rtl">Details &#x200F;שלום Help</a>`, "", false},
		{`<a href="#">&#x2067;שלום&#x2069; daolnwoD</a>`, "", false},
		{`<p>&#x202E;</p><p><a href="#">daolnwoD</a></p>`, "", false},
		{`<p>&#x202E;<br><a href="#">daolnwoD</a></p>`, "", false},
		{`<p>&#x202E;&#x202C;<a href="#">daolnwoD</a></p>`, "", false},
		{`<a href="#">مرحبا Center</a>`, "", false},
		{`<button dir="rtl">load Down</button>`, "", false},
		{`<p><div style="display:inline">&#x202E;</div><a href="#">daolnwoD</a></p>`, "", false},
		{`<p><table><tr><td>&#x202E;</td></tr></table><a href="#">daolnwoD</a></p>`, "", false},
		{`<a href="#" dir="rtl">load Down</a>`, "", false},
		{`<a href="#" style="direction:rtl">load Down</a>`, "", false},
		{`<p dir="rtl"><a href="#">עמוד הבית</a> <bdi>Center</bdi></p>`, "", false},
		{`<bdo dir="rtl"><span>שלום</span></bdo><a href="#">nwoD</a>`, "", false},
		{`<a href="#"><span style="unicode-bidi:bidi-override;direction:rtl">nwoD</span><span style="unicode-bidi:bidi-override;direction:rtl">daol</span></a>`, "", false},
	}
	for _, e := range []engine{chromium, firefox} {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			b := newBrowserEnvWith(t, envConfig{engine: e, variant: published})
			for i, tc := range cases {
				page := `<!doctype html><html lang="en"><meta charset="utf-8"><title>bidi</title>` +
					`<meta name="viewport" content="width=device-width"><body style="font: 20px sans-serif">` + tc.html + `</body></html>`
				b.navigate(t, b.evil.host(fmt.Sprintf("bidi-%d.html", i), []byte(page)))
				drawn := eval[string](t, b.tab, drawnText)
				// The tatweel lengthens a stroke: the checker reads through
				// it, as a reader does ("Dow\u0640nload").
				read := strings.ReplaceAll(drawn, "\u0640", "")
				if tc.rtl {
					r := []rune(read)
					slices.Reverse(r)
					read = string(r)
				}
				refused := slices.ContainsFunc(htmlcheck.Check([]byte(page), htmlcheck.Options{}).Errors,
					func(f htmlcheck.Finding) bool { return f.Rule == htmlcheck.RuleDownloadButton })
				switch {
				case tc.drawn != "" && !strings.Contains(read, tc.drawn):
					t.Errorf("%s is drawn %q, want it to read %q", tc.html, drawn, tc.drawn)
				case tc.drawn == "" && (strings.Contains(read, "Download") || strings.Contains(read, "daolnwoD")) && strings.Contains(drawn, "Download"):
					t.Errorf("%s is drawn %q, a call to download", tc.html, drawn)
				}
				if refused != (tc.drawn != "") {
					t.Errorf("%s, drawn %q: the checker refuses it: %v, want %v", tc.html, drawn, refused, tc.drawn != "")
				}
			}
		})
	}
}

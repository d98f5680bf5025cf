package htmlcheck

import (
	"strconv"
	"strings"
	"testing"
)

// A check orders at most maxDrawnBytes of labels; a page with more is
// refused, on the label past the bound, rather than read in part.
func TestDrawnOrderBound(t *testing.T) {
	labels := func(n int) []byte {
		var b strings.Builder
		for i := range n {
			b.WriteString(`<p><a href="#">&#x202E;ab` + strconv.Itoa(i) + `&#x202C;</a></p>`)
		}
		return []byte(page(b.String()))
	}
	// Each label is 9 to 12 bytes, counted with 16 more; all differ, as
	// the check remembers the labels it read.
	under, over := maxDrawnBytes/30, maxDrawnBytes/24
	r := Check(labels(under), testOptions)
	if len(r.Errors) != 0 {
		t.Fatalf("%d labels: %v", under, r.Errors)
	}
	r = Check(labels(over), testOptions)
	if len(r.Errors) != 1 || r.Errors[0].Rule != RuleDownloadButton || !strings.Contains(r.Errors[0].Message, "cannot all be read in the order they are drawn") {
		t.Fatalf("%d labels: %v", over, r.Errors)
	}
	if !strings.HasPrefix(r.Errors[0].Excerpt, `<a href="#">`) {
		t.Errorf("the finding's excerpt is %q, not the link", r.Errors[0].Excerpt)
	}
}

func TestShapeOf(t *testing.T) {
	for _, tc := range []struct {
		label string
		want  bidiShape
	}{
		{"Download", bidiShape{}},
		{"Скачать файл", bidiShape{}},
		{"מדריך למשתמש של המוצר החדש שלנו Fileframe", bidiShape{rtl: true}},
		{"Fileframe 2 מדריך", bidiShape{rtl: true}},
		{"load א Down", bidiShape{rtl: true}},
		{"load\u200fDown", bidiShape{rtl: true, mixed: true}},
		{"load \u200f Down", bidiShape{rtl: true, mixed: true}},
		{"load\u0640Down", bidiShape{rtl: true, mixed: true}},
		{"تح\u200eميل", bidiShape{rtl: true, mixed: true}},
		{"\u202edaolnwoD", bidiShape{controls: true}},
		{"\u2067load\u2069", bidiShape{controls: true}},
	} {
		if got := shapeOf([]byte(tc.label)); got != tc.want {
			t.Errorf("shapeOf(%+q) = %+v, want %+v", tc.label, got, tc.want)
		}
	}
}

func TestFirstAndLastWords(t *testing.T) {
	s := strings.Repeat("ab cd, ", 40) // 80 words
	head, cut := firstWords(s, 64)
	if !cut || len(strings.Fields(head)) != 64 || !strings.HasPrefix(s, head) {
		t.Errorf("firstWords: %d words, cut %v", len(strings.Fields(head)), cut)
	}
	if head, cut := firstWords("ab cd", 64); cut || head != "ab cd" {
		t.Errorf("firstWords of a short label: %q, %v", head, cut)
	}
	tail := lastWords(s+"Download", 64)
	if !strings.HasSuffix(tail, "Download") || len(strings.Fields(tail)) != 64 {
		t.Errorf("lastWords: %q", tail)
	}
	// The last words, reversed, are read: "daolnwoD" ends a long label
	// drawn right to left.
	label := "\u202e" + strings.Repeat("wx yz ", 100) + "daolnwoD"
	if _, ok := downloadReading(label, labelOpts{}, nil); !ok {
		t.Error("the reversed last word of a long label is not read")
	}
	if _, ok := downloadReading("Download "+strings.Repeat("wx yz ", 100), labelOpts{}, nil); !ok {
		t.Error("the first word of a long label is not read")
	}
}

func TestHasTextControls(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{`<p>Plain “quoted” text — with dashes&#39;s and &#8212;</p>`, false},
		{"<p>\u202e</p>", true},
		{"<p>\u2067</p>", true},
		{"<p>a\u200fb</p>", false}, // a mark opens nothing
		{`<p>&#x202E;</p>`, true},
		{`<p>&#X0202e;</p>`, true},
		{`<p>&#8238;</p>`, true},
		{`<p>&#08294;</p>`, true},
		{`<p>&#x000000000000202E;</p>`, true},
	} {
		if got := hasTextControls([]byte(tc.src)); got != tc.want {
			t.Errorf("hasTextControls(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

// A check gives the URL parser at most maxParsedLinks of links, and a
// link with more than maxLinkSegments slashes none: an outside tester's
// 1 MiB link of "f/." segments took 117 s in the parser.
func TestParsedLinksBound(t *testing.T) {
	links := func(n int) []byte {
		var b strings.Builder
		for i := range n {
			b.WriteString(`<a href="https://example.com/f/` + strconv.Itoa(i) + `/` + strings.Repeat("x", 80) + `">Go</a>`)
		}
		return []byte(page(b.String()))
	}
	if r := Check(links(maxParsedLinks/150), testOptions); len(r.Errors) != 0 {
		t.Fatalf("under the bound: %v", r.Errors)
	}
	r := Check(links(maxParsedLinks/100), testOptions)
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "KiB of links") {
		t.Fatalf("over the bound: %v", r.Errors)
	}
	// Ordinary links are not parsed, however many.
	var b strings.Builder
	for i := range 8000 {
		b.WriteString(`<a href="https://example.com/blog/post-` + strconv.Itoa(i) + `.html?utm_source=news%20letter">Read</a>`)
	}
	if r := Check([]byte(page(b.String())), testOptions); len(r.Errors) != 0 {
		t.Fatalf("ordinary links: %v", r.Errors)
	}
	long := `<a href="https://example.com/` + strings.Repeat("f/.", 300000) + `x">Go</a>`
	if r := Check([]byte(page(long)), testOptions); len(r.Errors) != 1 || r.Errors[0].Rule != RuleDownloadButton {
		t.Fatalf("a link of 300,000 segments: %v", r.Errors)
	}
	if l := splitLink([]byte("/" + strings.Repeat("a/", maxLinkSegments))); !l.unread {
		t.Error("a link past maxLinkSegments is parsed")
	}
}

// Arabic and Persian download words are read as English ones are: not
// as a plural in a longer label, nor after a count; "تنزيلات" is also
// "sales", on every shop's menu (docs/security.md row 909).
func TestArabicAndPersianWording(t *testing.T) {
	for _, tc := range []struct {
		label string
		want  bool
	}{
		{"تحميل", true},
		{"تحميل الآن", true},
		{"التحميل", true},
		{"تحميل 2", true},
		{"تنزيل الملف", true},
		{"اضغط هنا للتحميل", true},
		{"التحميلات", true},
		{"دانلود", true},
		{"دانلود رایگان", true},
		{"دانلودها", true},
		{"تحـميل", true},
		{"تنزيلات الصيف", false},
		{"عروض وتنزيلات", false},
		{"تنزيلات", false},
		{"2 مليون تنزيل", false},
		{"أكثر من 500 ألف تحميل", false},
		{"عدد التنزيلات: 1٬234", false},
		{"سجل التنزيلات", false},
		{"مركز التنزيلات", false},
		{"بیش از ۲ میلیون دانلود", false},
		{"تاریخچه دانلودها", false},
		// "Load more", "loading", "reload", "price cut" (row 933).
		{"تحميل المزيد", false},
		{"تحميل المزيد من المنتجات", false},
		{"جاري التحميل…", false},
		{"إعادة تحميل", false},
		{"تنزيل الأسعار", false},
		{"تحميل المزيد تحميل", true},
		{"تحميل الملف", true},
		{"المزيد تحميل", true},
	} {
		if got := isDownloadLabel([]byte(tc.label), false); got != tc.want {
			t.Errorf("isDownloadLabel(%q) = %v, want %v", tc.label, got, tc.want)
		}
	}
}

// Labels with right-to-left letters in inline boxes are ordered within
// the same bound, but only those whose letters could spell a call to
// download in some order: a large right-to-left catalogue with badges in
// its links is read in full, while a page of boxed labels with the
// letters of הורדה runs into its own, larger bound.
func TestBoxedLabelsBound(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		b.WriteString(`<p><a href="/p/` + strconv.Itoa(i) + `"><span style="display:inline-block">מבצע</span> שמלה ורודה ` + strconv.Itoa(i) + ` ₪</a></p>`)
	}
	if r := Check([]byte(page(b.String())), testOptions); len(r.Errors) != 0 {
		t.Fatalf("a catalogue of 3,000 cards: %v", r.Errors[0])
	}
	// Labels of some 420 bytes, counted with 16 more: 1,400 of them are
	// past maxBoxedBytes.
	b.Reset()
	filler := strings.Repeat("שלום ", 40)
	for i := range 1400 {
		b.WriteString(`<p><a href="#"><b style="display:inline-block">ור</b><b style="display:inline-block">הד ` + filler + strconv.Itoa(i) + `</b></a></p>`)
	}
	r := Check([]byte(page(b.String())), testOptions)
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "cannot all be read in the order they are drawn") {
		t.Fatalf("1,400 boxed labels with the letters of a call to download: %v", r.Errors)
	}
}

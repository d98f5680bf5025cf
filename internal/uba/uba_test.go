package uba

import (
	"testing"

	"golang.org/x/text/unicode/bidi"
)

func TestVisual(t *testing.T) {
	const (
		lre, rle, pdf, lro, rlo = "\u202a", "\u202b", "\u202c", "\u202d", "\u202e"
		lri, rli, fsi, pdi      = "\u2066", "\u2067", "\u2068", "\u2069"
		rlm, lrm                = "\u200f", "\u200e"
	)
	for _, tc := range []struct {
		text string
		rtl  bool
		want string
	}{
		{"Download", false, "Download"},
		{"Download", true, "Download"},
		{"", false, ""},
		{"Download now", true, "Download now"},
		// Hebrew letters (class R) are drawn right to left, numbers left
		// to right within them.
		{"אבג", false, "גבא"},
		{"אבג 123", false, "123 גבא"},
		{"abc אבג def", false, "abc גבא def"},
		{"abc אבג def", true, "def גבא abc"},
		// An override reverses the letters; one nested in it is drawn
		// as a whole, in its own direction, in the place the outer one
		// gives it (docs/security.md row 869).
		{rlo + "daolnwoD" + pdf, false, "Download"},
		{rlo + "daol" + lro + "Down" + pdf + pdf, false, "Download"},
		{rlo + "daol" + lri + "Down" + pdi + pdf, false, "Download"},
		{rlo + "daol" + lre + "Down" + pdf + pdf, false, "Download"},
		// Two overrides one after the other make one run, drawn
		// reversed as a whole, as Chromium draws them (row 873).
		{rlo + "nwoD" + pdf + rlo + "daol" + pdf, false, "loadDown"},
		{rlo + "daol" + pdf + rlo + "nwoD" + pdf, false, "Download"},
		// A right-to-left context puts left-to-right words in reverse
		// order when a right-to-left character separates them (row 870).
		{rle + "load" + rlm + "Down" + pdf, false, "Down" + rlm + "load"},
		{"load" + rlm + "Down", true, "Down" + rlm + "load"},
		{rli + lri + "load" + pdi + lri + "Down" + pdi + pdi, false, "Download"},
		{"load" + lrm + "Down", true, "load" + lrm + "Down"},
		// Separators are spaces; an unclosed override ends with the text.
		{rlo + "a\tb\nc", false, "c\nb\ta"},
		{"\xff", false, "\ufffd"},
	} {
		if got := Visual(tc.text, tc.rtl); got != tc.want {
			t.Errorf("Visual(%+q, rtl=%v) = %+q, want %+q", tc.text, tc.rtl, got, tc.want)
		}
	}
}

func BenchmarkVisual(b *testing.B) {
	for _, s := range []string{"הורד PDF", "\u202edaol\u202dDown\u202c\u202c"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Visual(s, false)
			}
		})
	}
}

func BenchmarkVisualLong(b *testing.B) {
	s := ""
	for len(s) < 1000 {
		s += "\u202eab cd\u202c\u200fxy "
	}
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Visual(s, false)
	}
}

// FuzzVisual checks that Visual accepts any text and draws each of its
// characters once, less the formatting characters and boundary
// neutrals, with separators as they are.
func FuzzVisual(f *testing.F) {
	for _, s := range []string{"", "abc", "אבג 123", "\u202edaol\u202dDown\u202c\u202c", "\u2067\u2066a\u2069b\u2069", "a\nb\u2029c", "(\u05d0[b)]", "\xff\xfe"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, rtl bool) {
		got := Visual(s, rtl)
		count := map[rune]int{}
		for _, r := range s {
			p, _ := bidi.LookupRune(r)
			switch Class(p.Class()) {
			case LRE, RLE, LRO, RLO, PDF, LRI, RLI, FSI, PDI, BN:
				continue
			}
			count[r]++
		}
		for _, r := range got {
			count[r]--
		}
		for r, n := range count {
			if n != 0 {
				t.Fatalf("Visual(%+q, %v) = %+q: %+q appears %d times too few", s, rtl, got, r, n)
			}
		}
	})
}

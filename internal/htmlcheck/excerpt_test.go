package htmlcheck

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// referenceCleanExcerpt is appendCleanExcerpt as it was first written,
// collecting runes before writing them.
func referenceCleanExcerpt(dst, doc []byte, start, end int) []byte {
	start = min(max(start, 0), len(doc))
	limit := min(len(doc), start+4*maxExcerpt, end)
	var runes [maxExcerpt]rune
	b := runes[:0]
	space := false
	cut := false
	for i := start; i < limit; {
		r, n := utf8.DecodeRune(doc[i:])
		i += n
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
			if len(b) > 0 {
				space = true
			}
			continue
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			r = utf8.RuneError
		}
		need := 1
		if space {
			need = 2
		}
		if len(b)+need > maxExcerpt {
			cut = true
			break
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		b = append(b, r)
	}
	if !cut && limit < end && limit < len(doc) {
		cut = true
	}
	if cut && len(b) > 0 {
		if len(b) >= maxExcerpt {
			b = b[:maxExcerpt-1]
		}
		b = append(b, '…')
	}
	for _, r := range b {
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// excerptPieces are what the sources of TestCleanExcerptMatchesReference
// are made of: white space of every kind, control characters, invalid
// and multi-byte UTF-8, and plain letters.
var excerptPieces = []string{"a", "bc", " ", "  ", "\t", "\n", "\r\n", "\f", "\v", "\x00", "\x7f", "\u0085", "\u00a0",
	"é", "€", "😀", "\xff", "\xe2\x82", "\xc2", "…", "<", "&amp;"}

// TestCleanExcerptMatchesReference checks appendCleanExcerpt against
// referenceCleanExcerpt on made-up sources around maxExcerpt runes long,
// from every start and to several ends.
func TestCleanExcerptMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	for range 3000 {
		var doc []byte
		for len(doc) < 60+rng.IntN(300) {
			doc = append(doc, excerptPieces[rng.IntN(len(excerptPieces))]...)
		}
		for _, start := range []int{-1, 0, 1, rng.IntN(len(doc)), len(doc)} {
			for _, end := range []int{start, start + 1, start + maxExcerpt, start + rng.IntN(400), len(doc), len(doc) + 10} {
				want := referenceCleanExcerpt([]byte("x"), doc, start, end)
				got := appendCleanExcerpt([]byte("x"), doc, start, end)
				if !bytes.Equal(got, want) {
					t.Fatalf("appendCleanExcerpt(%q, %d, %d) = %q, want %q", doc, start, end, got, want)
				}
				if !utf8.Valid(got) {
					t.Fatalf("appendCleanExcerpt(%q, %d, %d) = %q: not UTF-8", doc, start, end, got)
				}
			}
		}
	}
}

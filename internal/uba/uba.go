// Package uba orders a line of text for display by the Unicode
// Bidirectional Algorithm (UAX #9), as a browser draws it.
//
// golang.org/x/text/unicode/bidi computes every character's embedding
// level and the order of display, but exports neither: its Ordering
// splits the text into runs by direction only, which loses what nested
// embeddings and overrides do (U+202E "daol" U+202D "Down" U+202C U+202C
// is drawn "Download"). core.go and bracket.go are that package's, from
// golang.org/x/text v0.43.0 (LICENSE), unchanged but for the package
// clause; classes.go names its classes as they do, and this file is the
// way in.
package uba

import (
	"strings"

	"golang.org/x/text/unicode/bidi"
)

// Visual returns the characters of text in the order they are drawn,
// from left to right, on one line of a paragraph whose direction is right
// to left when rtl and left to right otherwise. The explicit formatting
// characters (U+202A-U+202E, U+2066-U+2069) and boundary neutrals (class
// BN: zero-width joiners, soft hyphens and the like) are drawn as nothing
// and left out; a paragraph or segment separator counts as a space, as
// HTML's white space does. Invalid UTF-8 reads as U+FFFD.
//
// Brackets are not paired (rule N0): the package does not export the
// pairs, and N0 resolves only the levels of brackets and the neutrals
// next to them, never the order of letters and digits.
func Visual(text string, rtl bool) string {
	runes := []rune(text)
	var b strings.Builder
	b.Grow(len(text))
	for _, i := range Order(runes, rtl) {
		b.WriteRune(runes[i])
	}
	return b.String()
}

// Order returns the indices in runes of the characters that are drawn,
// in the order they are drawn from left to right, as Visual draws them.
// An object replacement character (U+FFFC) stands for an inline box of
// its own (an image, an inline-block), as CSS has it take part in the
// algorithm.
func Order(runes []rune, rtl bool) []int {
	n := len(runes)
	if n == 0 {
		return nil
	}
	types := make([]Class, 0, n)
	for _, r := range runes {
		p, _ := bidi.LookupRune(r)
		c := Class(p.Class())
		if c == B || c == S {
			c = WS
		}
		types = append(types, c)
	}
	pairTypes := make([]bracketType, n)
	pairValues := make([]rune, n)
	base := level(0)
	if rtl {
		base = 1
	}
	p, err := newParagraph(types, pairTypes, pairValues, base)
	if err != nil {
		// Only for input the loop above cannot make: no characters, a
		// paragraph separator, a level other than 0 or 1.
		panic("uba: " + err.Error())
	}
	order := computeReordering(p.getLevels([]int{n}))
	out := order[:0]
	for _, i := range order {
		switch types[i] {
		case LRE, RLE, LRO, RLO, PDF, LRI, RLI, FSI, PDI, BN:
			continue
		}
		out = append(out, i)
	}
	return out
}

package htmlcheck

import (
	"unicode"
	"unicode/utf8"
)

// firstLetter is an element open in a label whose ::first-letter a rule
// of the page's style sheets may hide (sheetFirstLetter), until its first
// letter comes (docs/security.md, row 951).
type firstLetter struct {
	name  string
	depth int // elements of that name open, itself included
}

// firstLetterStart follows the start tag name, in a label.
func (c *checker) firstLetterStart(name []byte, empty bool) {
	f := &c.firstLetter
	if f.name == string(name) && !empty {
		f.depth++
	}
	if c.firstLetters == 0 {
		c.firstLetters = -1
		if indexFold(c.src, "first-letter") >= 0 {
			c.firstLetters = 1
		}
	}
	if c.firstLetters < 0 || c.hideDepth > 0 || empty {
		return
	}
	if c.sheetHides()&sheetFirstLetter != 0 {
		f.name, f.depth = string(name), 1
	}
}

// firstLetterEnd follows the end tag name, in a label: an element that
// ends before a letter has none to hide.
func (c *checker) firstLetterEnd(name []byte) {
	if f := &c.firstLetter; f.name == string(name) {
		if f.depth--; f.depth <= 0 {
			*f = firstLetter{}
		}
	}
}

// appendFirstLetter appends the first letter of t, text of a label in an
// element whose first letter may be hidden, to the label as hidden, and
// returns the rest of t. The letter is what CSS takes for it: the
// punctuation before it, the letter or digit, and its combining marks.
func (c *checker) appendFirstLetter(t []byte) []byte {
	i := 0
	for i < len(t) {
		r, n := utf8.DecodeRune(t[i:])
		if !unicode.IsSpace(r) && !unicode.IsPunct(r) {
			break
		}
		i += n
	}
	if i == len(t) {
		return t // no letter yet
	}
	_, n := utf8.DecodeRune(t[i:])
	i += n
	for i < len(t) {
		r, n := utf8.DecodeRune(t[i:])
		if !unicode.Is(unicode.Mn, r) && !unicode.Is(unicode.Me, r) {
			break
		}
		i += n
	}
	c.firstLetter = firstLetter{}
	c.labelHidden = true
	draws := c.hideDraws
	c.hideDepth, c.hideDraws = 1, true // laid out, not seen
	c.reo.hideFrom(len(c.label))
	c.appendLabel(t[:i])
	c.reo.hideTo(len(c.label))
	c.hideDepth, c.hideDraws = 0, draws
	return t[i:]
}

package htmlcheck

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/atom"
)

// firstLetter is an element open in a label whose ::first-letter a rule
// of the page's style sheets may hide (sheetFirstLetter), until its first
// letter comes (docs/security.md, row 951).
type firstLetter struct {
	name  string
	depth int // elements of that name open, itself included
	// line: its ::first-line (sheetFirstLine), whose letters are all
	// hidden until a line break or a block in it ends the line.
	line bool
}

// firstLetterStart follows the start tag a (name), in a label.
func (c *checker) firstLetterStart(a atom.Atom, name []byte, empty bool) {
	f := &c.firstLetter
	if f.line && (a == atom.Br || !inline(a)) {
		*f = firstLetter{} // the first line ends
	}
	if f.name == string(name) && !empty {
		f.depth++
	}
	// The sheets are read already where they may hide letters of an
	// element in a label (see hides); the outermost clickable element's
	// own rules are read when it ends (see ownFirstLetter).
	if c.sheet == nil || !c.sheet.firstLetter || c.hideDepth > 0 || empty {
		return
	}
	switch k := c.sheetHides(); {
	case k&sheetFirstLetter != 0:
		*f = firstLetter{name: string(name), depth: 1}
	case k&sheetFirstLine != 0:
		*f = firstLetter{name: string(name), depth: 1, line: true}
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
	i := len(t) // the first line's: all, until it ends
	if !c.firstLetter.line {
		if i = firstLetterLen(t); i == 0 {
			return t // no letter yet
		}
		c.firstLetter = firstLetter{}
	}
	c.labelHidden = true
	draws := c.hideDraws
	c.hideDepth, c.hideDraws = 1, true // laid out, not seen
	c.reo.hideFrom(len(c.label))
	c.appendLabel(t[:i])
	c.reo.hideTo(len(c.label))
	c.hideDepth, c.hideDraws = 0, draws
	return t[i:]
}

// firstLetterLen returns the length of t's first letter as CSS takes it
// (::first-letter): the white space and punctuation before it, the letter
// or digit, and its combining marks; 0 if t has none.
func firstLetterLen(t []byte) int {
	i := 0
	for i < len(t) {
		r, n := utf8.DecodeRune(t[i:])
		if !unicode.IsSpace(r) && !unicode.IsPunct(r) {
			break
		}
		i += n
	}
	if i == len(t) {
		return 0
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
	return i
}

// sheetsMayHaveFirstLetter reports whether a style sheet of the page may
// have a rule of ::first-letter: the text from each "<style" to the next
// "</style" (the sheet, and more where "<style" is not a tag) has
// "letter", an escape or a character reference (in SVG). It reads the
// source once, not its sheets.
func (c *checker) sheetsMayHaveFirstLetter() bool {
	if c.firstLetters == 0 {
		c.firstLetters = -1
		for rest := c.src; c.mayHaveSheets(); {
			i := indexFold(rest, "<style")
			if i < 0 {
				break
			}
			rest = rest[i+len("<style"):]
			sheet := rest
			if j := indexFold(rest, "</style"); j >= 0 {
				sheet, rest = rest[:j], rest[j:]
			}
			if indexFold(sheet, "letter") >= 0 || bytes.IndexByte(sheet, '\\') >= 0 || bytes.IndexByte(sheet, '&') >= 0 {
				c.firstLetters = 1
				break
			}
		}
	}
	return c.firstLetters > 0
}

// ownFirstLetter reports whether a rule of the page's style sheets may
// hide the first letter (or line, read as its first word) of the
// outermost clickable element, which has just ended with label: its own rules are not read where its label has
// no element (see frameSheet), so they are read here when label has the
// letters of a call to download (mayReadAsDownload).
func (c *checker) ownFirstLetter(label []byte) bool {
	if c.outerTag[1] == 0 || !c.sheetsMayHaveFirstLetter() || !mayReadAsDownload(label, c.readCache(label)) {
		return false
	}
	h := c.pageSheet()
	if h == nil || !h.firstLetter {
		return false
	}
	el, style, exact := tagElem(c.src[c.outerTag[0]:c.outerTag[1]])
	if el == nil {
		return false
	}
	var k sheetHideKind
	h.matches(el, func(kind sheetHideKind, _ []byte) { k |= kind })
	return h.resolve(k, style, func() exactElem { return exact })&(sheetFirstLetter|sheetFirstLine) != 0
}

// firstWordLen returns the length of t's first word, with the white
// space before it.
func firstWordLen(t []byte) int {
	i := len(t) - len(bytes.TrimLeft(t, " "))
	if j := bytes.IndexByte(t[i:], ' '); j >= 0 {
		return i + j
	}
	return len(t)
}

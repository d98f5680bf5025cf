package htmlcheck

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf8"

	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/bidi"

	"github.com/fileframe/fileframe/internal/uba"
)

// A browser draws a line of text in the order the Unicode Bidirectional
// Algorithm gives it (UAX #9), which a label can use to be drawn as a
// call to download while its characters are in another order: an
// override with another nested in it (U+202E "daol" U+202D "Down"
// U+202C U+202C), left-to-right words in a right-to-left context, put in
// reverse order by a right-to-left mark between them (U+202B "load"
// U+200F "Down" U+202C), or an override left open before the link, in
// the text of the paragraph it is in (<p>U+202E<a>daolnwoD</a>).
//
// So a label that the algorithm can reorder is also read in the orders
// it is drawn in (drawnReading): those of uba.Visual, in a paragraph
// drawn left to right and in one drawn right to left (dir=rtl or CSS
// direction on an ancestor, which cannot all be told), after the
// explicit formatting characters still open before it (checker.bidiOpen),
// each word read in its script's direction (readable).
//
// HTML's direction attributes and an inline style's unicode-bidi and
// direction are read as the formatting characters that do what they do
// (CSS Writing Modes, "unicode-bidi"): an element with a dir attribute is
// an isolate (U+2067 for rtl, U+2066 for ltr, U+2068 for auto) and <bdi>
// one of the direction it is given or the first strong character's;
// <bdo> is an isolate and an override (U+2067 U+202E for rtl, U+2066
// U+202D for ltr); unicode-bidi: bidi-override is an override, embed an
// embedding, isolate an isolate and plaintext U+2068. (A style sheet's
// overrides cannot be told from its selectors: with one, every label is
// also read reversed, checker.bidiOverride.) Inside a clickable element
// they are written into its label (checker.label); outside, they open
// and close in checker.bidiOpen as characters in the text do (openDir,
// closeDir).
//
// Which labels those are (bidiShape): a label with an explicit
// formatting character of its own, or with right-to-left characters
// after such characters left open; and a label with two letters of one
// direction separated by characters of the other direction none of which
// is a letter that draws something (U+200F, the tatweel, Hebrew
// punctuation), which a paragraph of the other direction draws in reverse
// order: U+200F between "load" and "Down" in a right-to-left paragraph
// draws "Down" first, while a Hebrew word between them stays between them
// on screen too and keeps them two words. A label without right-to-left
// characters or formatting characters is drawn as it is written or wholly
// reversed whatever is open before it, which the reversed readings
// already read.
//
// Ordering costs about 90 ns a byte: a check orders at most
// maxDrawnBytes of labels, and a page with more labels to order is
// refused, as one whose labels cannot all be read (drawnReading).

// maxBidiOpen bounds checker.bidiOpen: the algorithm's deepest level is
// 125.
const maxBidiOpen = 125

// maxDrawnBytes bounds the text a check orders (drawnReading): 64 KiB,
// some 6 ms, where a page of ordinary text in both directions orders a
// few hundred bytes.
const maxDrawnBytes = 64 << 10

// bidiShape says what in a label the algorithm can reorder.
type bidiShape struct {
	controls bool // an explicit formatting character (U+202A-U+202E, U+2066-U+2069)
	rtl      bool // a right-to-left character: a letter or an Arabic digit
	mixed    bool // two letters of one direction with only characters of the other between them that are not visible letters
}

func shapeOf(label []byte) bidiShape {
	var s bidiShape
	if !mayHaveBidi(label) {
		return s
	}
	for i := 0; i < len(label); {
		if label[i] < utf8.RuneSelf {
			i++ // no right-to-left or formatting character
			continue
		}
		p, n := bidi.Lookup(label[i:])
		i += max(n, 1)
		switch p.Class() {
		case bidi.R, bidi.AL, bidi.AN:
			s.rtl = true
		case bidi.LRE, bidi.RLE, bidi.LRO, bidi.RLO, bidi.PDF, bidi.LRI, bidi.RLI, bidi.FSI, bidi.PDI:
			s.controls = true
		}
	}
	if s.rtl {
		s.mixed = mixedDirections(label)
	}
	return s
}

// hasTextControls reports whether src may have formatting characters in
// its text: U+202A-U+202E or U+2066-U+2069, or a numeric reference that
// may be one. Only such characters can be left open in an element and
// close at its end, so on a page without any, elements are followed only
// from the first that sets a direction (openDir).
func hasTextControls(src []byte) bool {
	for i := 0; ; {
		k := bytes.IndexByte(src[i:], 0xe2)
		if k < 0 {
			break
		}
		i += k + 1
		if i+1 < len(src) && (src[i] == 0x80 && 0xaa <= src[i+1] && src[i+1] <= 0xae ||
			src[i] == 0x81 && 0xa6 <= src[i+1] && src[i+1] <= 0xa9) {
			return true
		}
	}
	for i := 0; ; {
		k := bytes.Index(src[i:], []byte("&#"))
		if k < 0 {
			return false
		}
		i += k + 2
		// The reference's value, leading zeros skipped, up to 8 digits
		// (more name no character U+202A-U+2069).
		base, j := 10, i
		if j < len(src) && src[j]|0x20 == 'x' {
			base, j = 16, j+1
		}
		for j < len(src) && src[j] == '0' {
			j++
		}
		v := 0
		for n := 0; j < len(src) && n < 8; j, n = j+1, n+1 {
			d := int(hexVal(src[j]))
			if !isHex(src[j]) || d >= base {
				break
			}
			v = v*base + d
		}
		if 0x202a <= v && v <= 0x202e || 0x2066 <= v && v <= 0x2069 {
			return true
		}
	}
}

// mayHaveBidi reports whether label may have a right-to-left character or
// a formatting character: the lead bytes of U+0590-U+08FF (Hebrew,
// Arabic, Syriac, Thaana, N'Ko and the rest, Arabic digits and U+061C
// among them), of U+2000-U+2FFF (U+200F, U+202A-U+202E, U+2066-U+2069),
// of U+F000-U+FFFF (presentation forms) and of the supplementary planes.
// Most labels in other scripts are ruled out on their bytes.
func mayHaveBidi(label []byte) bool {
	for _, b := range label {
		if 0xd6 <= b && b <= 0xdf || b == 0xe0 || b == 0xe2 || b == 0xef || b >= 0xf0 {
			return true
		}
	}
	return false
}

// mixedDirections reports whether label has two letters of one direction
// with only characters of the other between them that are not visible
// letters (see bidiShape).
func mixedDirections(label []byte) bool {
	var ltr, rtl dirTrack
	mixed := false
	for _, r := range string(label) {
		c := bidi.ON // an ASCII character that is not a letter is no strong one
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
				c = bidi.L
			}
		} else {
			p, _ := bidi.LookupRune(r)
			c = p.Class()
		}
		switch c {
		case bidi.L:
			if visibleLetter(r) {
				mixed = ltr.letter() || mixed
				rtl.other(true)
			} else {
				rtl.other(false)
			}
		case bidi.R, bidi.AL:
			if visibleLetter(r) {
				mixed = rtl.letter() || mixed
				ltr.other(true)
			} else {
				ltr.other(false)
			}
		}
	}
	return mixed
}

// dirTrack follows the letters of one direction in a label (shapeOf).
type dirTrack struct {
	seen        bool // a letter of this direction
	between     bool // a strong character of the other direction since
	letterAfter bool // a visible letter of the other direction since
}

// letter notes a visible letter of the direction and reports whether only
// characters of the other direction that are not visible letters
// separate it from the one before.
func (d *dirTrack) letter() bool {
	mixed := d.seen && d.between && !d.letterAfter
	*d = dirTrack{seen: true}
	return mixed
}

// other notes a strong character of the other direction.
func (d *dirTrack) other(visibleLetter bool) {
	if d.seen {
		d.between = true
		d.letterAfter = d.letterAfter || visibleLetter
	}
}

// drawnOrders appends to dst the orders label may be drawn in that its
// readings do not read already (see the comment at the top), after the
// formatting characters open, which are left open before it.
func drawnOrders(dst []string, label, open string, s bidiShape) []string {
	add := func(v string) {
		if v != label && v != "" && !slices.Contains(dst, v) {
			dst = append(dst, v)
		}
	}
	if !s.controls && open == "" {
		if s.mixed {
			add(readable(uba.Visual(label, true)))
		}
		return dst
	}
	for _, rtl := range [2]bool{false, true} {
		add(readable(uba.Visual(open+label, rtl)))
	}
	return dst
}

// readable returns v, characters in the order they are drawn from left to
// right, as they are read: a word in a left-to-right script from left to
// right and one in a right-to-left script from right to left, so its runs
// of right-to-left letters and their marks are reversed in place. (Read
// from right to left, the words of a left-to-right script spell nothing.)
func readable(v string) string {
	r := []rune(v)
	for i := 0; i < len(r); {
		if !isRightToLeftLetter(r[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(r) && (isRightToLeftLetter(r[j]) || isMarkClass(r[j])) {
			j++
		}
		slices.Reverse(r[i:j])
		i = j
	}
	return string(r)
}

func isRightToLeftLetter(r rune) bool {
	p, _ := bidi.LookupRune(r)
	c := p.Class()
	return c == bidi.R || c == bidi.AL
}

func isMarkClass(r rune) bool {
	p, _ := bidi.LookupRune(r)
	return p.Class() == bidi.NSM
}

// drawnReading reads label in the orders it may be drawn in (see the
// comment at the top), screened as labels are; may says whether one of
// them passed the screen.
func (c *checker) drawnReading(label []byte, o labelOpts, s bidiShape) (form string, ok, may bool) {
	if !c.chargeDrawn(len(o.open) + len(label)) {
		return "", false, true // refused
	}
	var buf [4]string
	o.reversed = false // each order is read as drawn, from either side
	open := o.open
	o.open = ""
	for _, v := range drawnOrders(buf[:0], string(label), open, s) {
		if !isASCII(v) && !mayReadAsDownload([]byte(v), c.readCache(label)) {
			continue
		}
		may = true
		if form, ok = downloadReading(v, o, c.readCache(label)); ok {
			return form, true, true
		}
	}
	return "", false, may
}

// chargeDrawn counts n bytes more of text ordered by the bidirectional
// algorithm, and reports whether the check may order them: past
// maxDrawnBytes, the page is refused once, at the label being read.
func (c *checker) chargeDrawn(n int) bool {
	return c.charge(&c.drawnBytes, maxDrawnBytes, n)
}

// charge counts n bytes more of text ordered against *used, and reports
// whether the check may order them within bound (see chargeDrawn).
func (c *checker) charge(used *int, bound, n int) bool {
	if *used > bound {
		return false // refused already
	}
	// Ordering a short label costs what ordering some 16 bytes more does.
	if *used += n + 16; *used > bound {
		at := c.readingAt
		if at == [2]int{} {
			at = [2]int{c.tokStart, c.tokEnd}
		}
		c.add(ruleDownloadButton, at[0], at[0], at[1], fmt.Sprintf(
			"The clickable labels up to here use bidirectional formatting characters, mix directions or right-to-left letters in inline boxes in more than %d KiB of text: they cannot all be read in the order they are drawn, to tell that none is a download button. Write labels without U+202A-U+202E and U+2066-U+2069, and set the direction with the dir attribute.",
			bound>>10))
		return false
	}
	return true
}

// followBidi updates c.bidiOpen, the explicit formatting characters left
// open in the text of the current block, with those in t: an embedding,
// override or isolate opens, U+202C closes the last embedding or
// override unless an isolate is open after it, and U+2069 closes the last
// isolate and what is open after it (rules X1-X8).
func (c *checker) followBidi(t []byte) {
	if bytes.IndexByte(t, 0xe2) < 0 {
		return // no formatting character
	}
	for i := 0; i < len(t); {
		if t[i] != 0xe2 {
			i++
			continue
		}
		r, n := utf8.DecodeRune(t[i:])
		i += n
		switch r {
		case '\u202a', '\u202b', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068':
			c.bidiPage, c.textControls = true, true
			if len(c.bidiOpen) < maxBidiOpen {
				c.bidiOpen = append(c.bidiOpen, r)
				c.bidiOpenValid = false
			}
		case '\u202c':
			if k := len(c.bidiOpen); k > 0 && !isIsolate(c.bidiOpen[k-1]) {
				c.bidiOpen = c.bidiOpen[:k-1]
				c.bidiOpenValid = false
			}
		case '\u2069':
			for k := len(c.bidiOpen) - 1; k >= 0; k-- {
				if isIsolate(c.bidiOpen[k]) {
					c.bidiOpen = c.bidiOpen[:k]
					c.bidiOpenValid = false
					break
				}
			}
		}
	}
}

// openText returns what of c.bidiOpen orders a label: the embeddings and
// overrides open after the last isolate. An isolate draws its content as
// a paragraph of its own, and its direction is one of the two that
// labels are ordered in anyway. It is made again only when bidiOpen
// changed.
func (c *checker) openText() string {
	if !c.bidiOpenValid {
		open := c.bidiOpen
		for k := len(open) - 1; k >= 0; k-- {
			if isIsolate(open[k]) {
				open = open[k+1:]
				break
			}
		}
		c.bidiOpenText = string(open)
		c.bidiOpenValid = true
	}
	return c.bidiOpenText
}

// maxDirElems bounds checker.dirElems.
const maxDirElems = 1024

// dirElem is an open element whose direction attributes are read as
// formatting characters (see the comment at the top).
type dirElem struct {
	name    string
	close   string // the characters that end what it began
	inLabel bool   // its characters were written into the label
	para    int    // checker.bidiParas when it began
}

// dirControls returns the formatting characters that begin and end what
// the start tag a does to the direction of its text, or "" and "": its
// inline style's unicode-bidi and direction, else HTML's (see the comment
// at the top). An override of no known direction counts as right to
// left, the one that reorders.
func (c *checker) dirControls(a atom.Atom, foreign bool) (open, close string, block bool) {
	var bidiValue, direction []byte
	if foreign {
		// SVG's presentation attributes.
		if v, ok := c.attr("unicode-bidi"); ok {
			bidiValue = bytes.ToLower(bytes.TrimSpace(v))
		}
		if v, ok := c.attr("direction"); ok {
			direction = bytes.ToLower(bytes.TrimSpace(v))
		}
	}
	contents := false // display: contents, which draws no box and isolates nothing
	if style, ok := c.attr("style"); ok && (containsFold(style, "bidi") || containsFold(style, "direction") || containsFold(style, "contents")) {
		if bytes.IndexByte(style, '\\') >= 0 {
			style = cssUnescape(nil, style)
		}
		var b [256]byte
		st := compactStyle(b[:0], style)
		if v := styleValue(st, "unicode-bidi"); v != nil {
			bidiValue = v
		}
		if v := styleValue(st, "direction"); v != nil {
			direction = v
		}
		contents = string(styleValue(st, "display")) == "contents"
	}
	if !contents && isolatingElement(a) && !foreign {
		// A style sheet's rule that may display it as contents (row
		// 898): it is taken to isolate nothing.
		contents = c.sheetHides()&sheetContents != 0
	}
	dir, hasDir := c.attr("dir")
	dir = bytes.TrimSpace(dir)
	if direction == nil && (asciiEqualFold(dir, "rtl") || asciiEqualFold(dir, "ltr")) {
		direction = bytes.ToLower(dir)
	}
	if bidiValue == nil && !foreign {
		switch {
		case a == atom.Bdo:
			bidiValue = []byte("isolate-override")
		case a == atom.Bdi || hasDir:
			bidiValue = []byte("isolate")
		case isolatingElement(a) && !contents:
			bidiValue, block = []byte("isolate"), true
		}
	}
	rtl, ltr := string(direction) == "rtl", string(direction) == "ltr"
	switch string(bidiValue) {
	case "bidi-override":
		if ltr {
			return "\u202d", "\u202c", block
		}
		return "\u202e", "\u202c", block
	case "isolate-override":
		if ltr {
			return "\u2066\u202d", "\u202c\u2069", block
		}
		return "\u2067\u202e", "\u202c\u2069", block
	case "embed":
		switch {
		case rtl:
			return "\u202b", "\u202c", block
		case ltr:
			return "\u202a", "\u202c", block
		}
	case "isolate":
		switch {
		case rtl:
			return "\u2067", "\u2069", block
		case ltr:
			return "\u2066", "\u2069", block
		}
		return "\u2068", "\u2069", block
	case "plaintext":
		return "\u2068", "\u2069", block
	}
	return "", "", false
}

// styleValue returns the value of the last declaration of prop in the
// compacted style st, without !important, or nil.
func styleValue(st []byte, prop string) []byte {
	var v []byte
	for decl := range bytes.SplitSeq(st, []byte(";")) {
		if name, value, ok := bytes.Cut(decl, []byte(":")); ok && string(name) == prop {
			v = bytes.TrimSuffix(value, []byte("!important"))
		}
	}
	return v
}

// openDir follows the start tag a (name) of an element with content.
func (c *checker) openDir(a atom.Atom, name []byte, foreign bool) {
	switch {
	case a == atom.Bdo || a == atom.Bdi || c.hasDirAttr(foreign):
		c.bidiPage = true
	case !c.bidiPage || foreign || !isolatingElement(a):
		// Most tags, and on a page without formatting characters in its
		// text (hasTextControls) that has set no direction so far, every
		// tag: an isolate of nothing changes nothing.
		return
	}
	open, close, block := c.dirControls(a, foreign)
	if open == "" || len(c.dirElems) == maxDirElems || block && len(c.frames) > 0 {
		// Inside a label, an element drawn as a block by default is
		// read as a break between words, not as an isolate: it is
		// drawn as a block far more often than not, and an isolate
		// would have every card's label ordered.
		return
	}
	e := dirElem{name: c.intern(a, name), close: close, inLabel: len(c.frames) > 0, para: c.bidiParas}
	if e.inLabel {
		c.appendLabel([]byte(open))
	} else {
		c.followBidi([]byte(open))
	}
	c.dirElems = append(c.dirElems, e)
	if c.dirNames == nil {
		c.dirNames = make(map[string]int)
	}
	c.dirNames[e.name]++
	c.dirNameBits |= nameBit(name)
}

// nameBit is a bit of the element name, so that most end tags are told
// from those of dirElems without a lookup.
func nameBit(name []byte) uint64 {
	if len(name) == 0 {
		return 1
	}
	return 1 << ((uint(name[0]) + uint(len(name))*7) % 64)
}

// hasDirAttr reports whether the current start tag has an attribute that
// can set the direction of its text: dir, a style with unicode-bidi or
// direction (or an escape), or in SVG direction or unicode-bidi.
func (c *checker) hasDirAttr(foreign bool) bool {
	for i := range c.attrs {
		switch v := c.attrs[i].val; string(c.attrs[i].key) {
		case "dir":
			return true
		case "style":
			if containsFold(v, "bidi") || containsFold(v, "direction") || bytes.IndexByte(v, '\\') >= 0 {
				return true
			}
		case "direction", "unicode-bidi":
			if foreign {
				return true
			}
		}
	}
	return false
}

// closeDir follows the end tag name: it ends what the element it closes,
// and the ones open in it, began.
func (c *checker) closeDir(name []byte) {
	if c.dirNameBits&nameBit(name) == 0 || c.dirNames[string(name)] == 0 {
		return // most end tags: none of dirElems
	}
	for i := len(c.dirElems) - 1; i >= 0; i-- {
		if c.dirElems[i].name != string(name) {
			continue
		}
		for j := len(c.dirElems) - 1; j >= i; j-- {
			switch e := c.dirElems[j]; {
			case e.inLabel && len(c.frames) > 0:
				c.appendLabel([]byte(e.close))
			case e.para == c.bidiParas:
				c.followBidi([]byte(e.close))
			}
			// Otherwise a paragraph ended in the element, and with it
			// what the element began.
		}
		for _, e := range c.dirElems[i:] {
			c.dirNames[e.name]--
		}
		c.dirElems = c.dirElems[:i]
		return
	}
}

// overridesDirection reports whether the style sheet css draws text in
// a direction given, whatever its characters' (unicode-bidi:
// bidi-override or isolate-override), or draws an override character
// that may come before a label (content: "\202E" on ::before draws a
// link's Latin letters reversed, "\202D" its Hebrew ones). css has its
// escapes decoded.
func overridesDirection(css []byte) bool {
	return containsFold(css, "bidi-override") || containsFold(css, "isolate-override") ||
		bytes.Contains(css, rightToLeftOverrideBytes) || bytes.Contains(css, []byte("\u202d"))
}

// drawsMarks reports whether the style sheet css draws a character that
// can reorder words around it (U+200F, U+061C, U+202A-U+202E,
// U+2066-U+2069): between links side by side, their labels are then read
// as if U+200F stood between them (besideLabel). css has its escapes
// decoded; an attribute's value has none.
func drawsMarks(css []byte) bool {
	for _, m := range []string{"\u200f", "\u061c", "\u202a", "\u202b", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068"} {
		if bytes.Contains(css, []byte(m)) {
			return true
		}
	}
	return false
}

// closeBidiParagraph closes what the text of the paragraph left open.
func (c *checker) closeBidiParagraph() {
	c.bidiOpen = c.bidiOpen[:0]
	c.bidiOpenValid = false
	c.bidiParas++
}

func isIsolate(r rune) bool { return r == '\u2066' || r == '\u2067' || r == '\u2068' }

// followBidiText follows the formatting characters of text outside
// clickable elements, raw from the source: written as characters
// (U+202A-U+202E and U+2066-U+2069 all begin with the byte 0xE2) or as
// numeric character references, which are decoded.
func (c *checker) followBidiText(raw []byte) {
	t := raw
	switch {
	case bytes.Contains(raw, []byte("&#")) || bytes.Contains(raw, []byte("m;")): // &rlm;
		t = c.z.Text()
	case bytes.IndexByte(raw, 0xe2) < 0 && bytes.IndexByte(raw, 0xd8) < 0:
		return
	}
	c.followBidi(t)
	if cssSetsDirectionMarks(t) {
		c.textMarks = true // text that orders the labels after it (see boxedReadings)
	}
}

// isolatingElement reports whether HTML's style sheet draws the element a
// as an isolate (unicode-bidi: isolate), whatever CSS displays it as: what
// its text leaves open ends with it, and what is open before it is not
// open in it (https://html.spec.whatwg.org/multipage/rendering.html#bidirectional-text).
// Displayed as a block it also ends the paragraph; displayed inline it
// does not, and what is open before it is open after it again, as the
// checker takes it. <table>, <tbody>, <thead>, <tfoot>, <tr> and
// <colgroup> are isolates too, but not counted: text written in them,
// outside a cell, is moved before the table by the parser ("foster
// parenting"), where it stays open.
func isolatingElement(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Blockquote, atom.Center, atom.Dialog, atom.Div, atom.Figure,
		atom.Figcaption, atom.Footer, atom.Form, atom.Header, atom.Legend, atom.Listing,
		atom.Main, atom.P, atom.Plaintext, atom.Pre, atom.Search, atom.Summary, atom.Xmp,
		atom.Article, atom.Aside, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Hgroup, atom.Nav, atom.Section, atom.Caption, atom.Td, atom.Th, atom.Dir, atom.Dd,
		atom.Dl, atom.Dt, atom.Menu, atom.Ol, atom.Ul, atom.Li, atom.Output, atom.Body, atom.Html:
		return true
	}
	return false
}

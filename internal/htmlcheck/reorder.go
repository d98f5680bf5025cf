package htmlcheck

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/uba"

	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/bidi"
)

// CSS and declarative shadow DOM can draw the text of a clickable element
// in another order than the source has it. reorder follows, inside the
// outermost clickable element, the three ways found in use, so that the
// label is also read in the order it is drawn:
//
//   - flex and grid items with an order property (<span
//     style="order:2">load</span><span style="order:1">Down</span>),
//     read sorted by it, text between them counting as order 0; floats,
//     and grid items placed in a row and a column, read where they are
//     drawn (see placement);
//   - the children of a container whose items are drawn in reverse
//     (flex-direction: row-reverse or column-reverse, direction: rtl,
//     dir=rtl), read in reverse order, and the container's words in
//     reverse order;
//   - a declarative shadow root (<template shadowrootmode=open>), whose
//     content the browser draws instead of its host's children, read on
//     its own;
//   - inline boxes (inline-block, buttons, images, SVG <text>), which the
//     bidirectional algorithm places as single neutral characters: a
//     label with boxes and right-to-left letters, or on a page that may
//     draw a paragraph from right to left, is also read in the order its
//     boxes are drawn, and as a reader of Hebrew or Arabic reads that
//     line, from right to left (see boxedReadings).
//
// Offsets are in checker.label. Only inline styles can be told; the first
// reversed container and up to maxOrderPieces ordered items are followed.
// A container with dir=auto counts as reversed when the first letter of
// its text, hidden or not, is a right-to-left one, as HTML decides its
// direction.
type reorder struct {
	pieces    []orderPiece
	conts     []orderCont // the parents of pieces
	open      []openElem  // the elements open, up to maxOrderPieces deep
	orderOpen bool        // the outer piece, pieces[orderAt], is open
	orderName string
	orderNest int // open elements named orderName, the piece included
	orderAt   int // its index in pieces
	floats    int // floated pieces so far

	rev                    revState
	revName                string
	revNest                int // open elements named revName, the container included
	revDepth               int // open elements inside the container
	revStart, revEnd       int
	revBounds              []int // where the container's children start and end
	shadowNest, shadowFrom int
	shadow                 []byte // the text of the shadow roots

	auto   bool  // the reversed container has dir=auto
	depth  int   // open elements, the clickable one included
	boxes  []box // inline boxes inside the clickable element (see boxedReadings)
	hidden []int // where hidden text starts and ends, in pairs (see checker.hides)
}

type revState uint8

const (
	revNone revState = iota
	revOpen
	revDone
)

type orderPiece struct{ s, e, order, cont int } // cont indexes reorder.conts, or -1

// orderCont is an element with ordered pieces among its children, where
// it starts and ends in the label (e -1 while open).
type orderCont struct{ s, e, depth int }

// openElem is an element open inside the clickable one: where it starts
// in the label, and its entry in reorder.conts, or -1.
type openElem struct{ s, cont, piece int } // piece: its entry in reorder.pieces when nested in another, or -1

// maxOrderPieces and maxRevBounds bound what one label records.
const (
	maxOrderPieces = 64
	maxRevBounds   = 128
)

func (r *reorder) reset() {
	r.pieces = r.pieces[:0]
	r.conts = r.conts[:0]
	r.open = r.open[:0]
	r.orderOpen = false
	r.floats = 0
	r.rev = revNone
	r.revBounds = r.revBounds[:0]
	r.shadowNest = 0
	r.shadow = r.shadow[:0]
	r.depth = 0
	r.boxes = r.boxes[:0]
	r.hidden = r.hidden[:0]
}

// hideFrom and hideTo note where hidden text starts and ends.
func (r *reorder) hideFrom(at int) {
	if len(r.hidden) < 2*maxRevBounds {
		r.hidden = append(r.hidden, at, -1)
	}
}

func (r *reorder) hideTo(at int) {
	if n := len(r.hidden); n > 0 && r.hidden[n-1] < 0 {
		r.hidden[n-1] = at
	}
}

// reorderStart follows the start tag a (name) inside a clickable element;
// before is where the label stood before the tag added its alt text or
// aria-label to it.
func (c *checker) reorderStart(a atom.Atom, name []byte, empty bool, before int) {
	r := &c.reo
	at := len(c.label)
	if r.depth >= 1 && len(r.boxes) < maxBoxes {
		kind := c.atomicInline(a, name)
		if kind == notBox {
			// A child of a flex or grid box is an item of it, drawn as a
			// box in the container's direction.
			for i := len(r.boxes) - 1; i >= 0; i-- {
				if b := r.boxes[i]; b.e < 0 {
					if b.flex && b.depth == r.depth {
						kind = isBox
					}
					break
				}
			}
		}
		if kind != notBox {
			e := -1
			if empty {
				e = at // its alt or value text is in the label already
			}
			b := box{s: before, e: e, depth: r.depth + 1}
			b.dir, b.flex, b.reverse = c.boxLayout()
			r.boxes = append(r.boxes, b)
		}
	}
	if !empty {
		r.depth++
		if len(r.open) < maxOrderPieces+1 {
			r.open = append(r.open, openElem{s: at, cont: -1, piece: -1})
		}
	}
	if r.rev == revOpen {
		if !empty && string(name) == r.revName {
			r.revNest++
		}
		if r.revDepth == 0 && len(r.revBounds) < maxRevBounds {
			r.revBounds = append(r.revBounds, at)
		}
		if !empty {
			r.revDepth++
		}
	}
	if r.orderOpen && !empty && string(name) == r.orderName {
		r.orderNest++
	}
	if a == atom.Template && !empty {
		if r.shadowNest > 0 {
			r.shadowNest++
		} else if _, ok := c.shadowRoot(); ok {
			r.shadowNest, r.shadowFrom = 1, at
		}
	}
	if empty {
		return
	}
	style, hasStyle := c.attr("style")
	dir, hasDir := c.attr("dir")
	var b [256]byte
	st := c.sheetLayout(b[:0]) // a style sheet's, before the inline style's
	if !hasStyle && !hasDir && len(st) == 0 {
		return
	}
	st = compactStyle(st, style)
	dir = bytes.TrimSpace(dir)
	auto := asciiEqualFold(dir, "auto")
	if r.rev == revNone && (a != atom.Bdo && (auto || asciiEqualFold(dir, "rtl")) || drawsReversed(st)) {
		r.rev, r.revName, r.revNest, r.revDepth, r.revStart = revOpen, c.intern(a, name), 1, 0, at
		r.auto = auto && !declares(st, "direction:rtl")
	}
	stacked := len(r.open) == r.depth // this element is r.open's last
	if (!r.orderOpen || stacked) && len(r.pieces) < maxOrderPieces {
		n, ok := cssOrder(st)
		if !ok {
			n, ok = r.placement(st)
		}
		if ok {
			cont := -1
			if k := len(r.open) - 2; stacked && k >= 0 {
				// The parent.
				if r.open[k].cont < 0 {
					r.open[k].cont = len(r.conts)
					r.conts = append(r.conts, orderCont{s: r.open[k].s, e: -1, depth: k})
				}
				cont = r.open[k].cont
			}
			r.pieces = append(r.pieces, orderPiece{s: at, e: -1, order: n, cont: cont})
			if r.orderOpen {
				// Inside another piece: it ends with its element.
				r.open[len(r.open)-1].piece = len(r.pieces) - 1
			} else {
				r.orderOpen, r.orderName, r.orderNest, r.orderAt = true, c.intern(a, name), 1, len(r.pieces)-1
			}
		}
	}
}

// reorderEnd follows the end tag name inside a clickable element.
func (c *checker) reorderEnd(name []byte) {
	r := &c.reo
	at := len(c.label)
	if r.depth > 0 {
		for i := len(r.boxes) - 1; i >= 0; i-- {
			if r.boxes[i].e < 0 && r.boxes[i].depth == r.depth {
				r.boxes[i].e = at
				break
			}
		}
		if len(r.open) == r.depth && len(r.open) > 0 {
			o := r.open[len(r.open)-1]
			if o.cont >= 0 {
				r.conts[o.cont].e = at
			}
			if o.piece >= 0 {
				r.pieces[o.piece].e = at
			}
			r.open = r.open[:len(r.open)-1]
		}
		r.depth--
	}
	if r.rev == revOpen {
		if string(name) == r.revName {
			r.revNest--
			if r.revNest == 0 {
				r.rev, r.revEnd = revDone, at
			}
		}
		if r.rev == revOpen && r.revDepth > 0 {
			r.revDepth--
			if r.revDepth == 0 && len(r.revBounds) < maxRevBounds {
				r.revBounds = append(r.revBounds, at)
			}
		}
	}
	if r.orderOpen && string(name) == r.orderName {
		r.orderNest--
		if r.orderNest == 0 {
			r.pieces[r.orderAt].e = at
			r.orderOpen = false
		}
	}
	if r.shadowNest > 0 && string(name) == "template" {
		r.shadowNest--
		if r.shadowNest == 0 && len(r.shadow) < maxLabel {
			r.shadow = append(r.shadow, c.label[r.shadowFrom:at]...)
			r.shadow = append(r.shadow, ' ')
		}
	}
}

// reorderedLabels calls fn with each reading of label, the text of the
// outermost clickable element, in the orders that reorder found, until
// fn returns true.
func (r *reorder) reorderedLabels(label []byte, fn func([]byte) bool) bool {
	var hidden [][2]int // closed ranges of hidden text, within label
	for i := 0; i+1 < len(r.hidden); i += 2 {
		if s, e := r.hidden[i], r.hidden[i+1]; e < 0 {
			hidden = append(hidden, [2]int{min(s, len(label)), len(label)})
		} else if s < e {
			hidden = append(hidden, [2]int{min(s, len(label)), min(e, len(label))})
		}
	}
	// try reads label in the order of segs, with its hidden text and
	// without.
	var segs [][2]int
	try := func() bool {
		out := appendSegments(make([]byte, 0, len(label)), label, segs, nil)
		if !bytes.Equal(out, label) && fn(out) {
			return true
		}
		if len(hidden) > 0 {
			shown := appendSegments(make([]byte, 0, len(label)), label, segs, hidden)
			return !bytes.Equal(shown, out) && fn(shown)
		}
		return false
	}
	if len(r.pieces) > 0 {
		type seg struct {
			s, e, order int
		}
		ordered := make([]seg, 0, 2*len(r.pieces)+1)
		prev := 0
		for _, p := range r.pieces {
			e := p.e
			if e < 0 || e > len(label) {
				e = len(label)
			}
			if p.s < prev || p.s > e {
				continue
			}
			ordered = append(ordered, seg{prev, p.s, 0}, seg{p.s, e, p.order})
			prev = e
		}
		ordered = append(ordered, seg{prev, len(label), 0})
		slices.SortStableFunc(ordered, func(a, b seg) int { return a.order - b.order })
		for _, s := range ordered {
			segs = append(segs, [2]int{s.s, s.e})
		}
		if try() {
			return true
		}
		if len(r.conts) > 1 {
			// Each container's items in their own order, as drawn.
			segs = r.nestedOrder(segs[:0], len(label))
			if try() {
				return true
			}
		}
	}
	if r.rev != revNone {
		end := r.revEnd
		if r.rev == revOpen || end > len(label) {
			end = len(label)
		}
		start := min(r.revStart, end)
		// A container of right-to-left words only is drawn as they
		// read; the bidirectional readings order it (a reversed reading
		// of "2 مليون" then "تنزيل", a count, read a call to download).
		if (!r.auto || firstStrongRightToLeft(label[start:end])) && hasLeftToRightLetter(label[start:end]) {
			bounds := append([]int{start}, r.revBounds...)
			bounds = append(bounds, end)
			segs = append(segs[:0], [2]int{0, start})
			for i := len(bounds) - 1; i > 0; i-- {
				s, e := min(max(bounds[i-1], start), end), min(max(bounds[i], start), end)
				if s < e {
					segs = append(segs, [2]int{s, e})
				}
			}
			segs = append(segs, [2]int{end, len(label)})
			if try() {
				return true
			}
		}
	}
	return len(r.shadow) > 0 && fn(r.shadow)
}

// appendSegments appends to dst the segments segs of label in their
// order, without what the sorted ranges skip cover.
func appendSegments(dst, label []byte, segs, skip [][2]int) []byte {
	for _, sg := range segs {
		s, e := sg[0], sg[1]
		for _, k := range skip {
			if k[1] <= s || k[0] >= e {
				continue
			}
			if k[0] > s {
				dst = append(dst, label[s:k[0]]...)
			}
			s = max(s, k[1])
		}
		if s < e {
			dst = append(dst, label[s:e]...)
		}
	}
	return dst
}

// hasRightToLeftLetter reports whether label has a Hebrew, Arabic or
// other right-to-left letter.
func hasRightToLeftLetter(label []byte) bool {
	if !mayHaveBidi(label) {
		return false
	}
	for _, r := range string(label) {
		if r >= 0x590 && isRightToLeftLetter(r) {
			return true
		}
	}
	return false
}

// hasLeftToRightLetter reports whether t has a letter of a left-to-right
// script.
func hasLeftToRightLetter(t []byte) bool { return leftToRightLetters(t, 1) > 0 }

// leftToRightLetters returns how many letters of t are of a
// left-to-right script, counting up to most.
func leftToRightLetters(t []byte, most int) int {
	n := 0
	for _, r := range string(t) {
		if n == most {
			break
		}
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
				n++
			}
			continue
		}
		if p, _ := bidi.LookupRune(r); p.Class() == bidi.L {
			n++
		}
	}
	return n
}

// firstStrongRightToLeft reports whether the first letter of t with a
// direction of its own is a right-to-left one, as dir=auto decides.
func firstStrongRightToLeft(t []byte) bool {
	for _, r := range string(t) {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
				return false
			}
			continue
		}
		p, _ := bidi.LookupRune(r)
		switch p.Class() {
		case bidi.L:
			return false
		case bidi.R, bidi.AL:
			return true
		}
	}
	return false
}

// compactStyle appends to dst an inline style lower-cased and without
// white space, as the style patterns are written.
func compactStyle(dst, style []byte) []byte {
	if bytes.Contains(style, []byte("/*")) {
		style = stripCSSComments(style)
	}
	if bytes.IndexByte(style, '\\') >= 0 {
		style = cssUnescape(nil, style) // font-\73 ize is font-size
	}
	for _, ch := range style {
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f':
		case 'A' <= ch && ch <= 'Z':
			dst = append(dst, ch+'a'-'A')
		default:
			dst = append(dst, ch)
		}
	}
	return dst
}

// stripCSSComments returns css without its comments (font-size:/**/0).
func stripCSSComments(css []byte) []byte { return replaceCSSComments(css, "") }

// replaceCSSComments returns css with each comment replaced by with: a
// space where a comment parts tokens (@keyframes/**/f names "f").
func replaceCSSComments(css []byte, with string) []byte {
	out := make([]byte, 0, len(css))
	for {
		i := bytes.Index(css, []byte("/*"))
		if i < 0 {
			return append(out, css...)
		}
		out = append(append(out, css[:i]...), with...)
		j := bytes.Index(css[i+2:], []byte("*/"))
		if j < 0 {
			return out
		}
		css = css[i+2+j+2:]
	}
}

// declares reports whether the compacted style st has the declaration
// decl ("direction:rtl") as a whole property name.
func declares(st []byte, decl string) bool {
	for rest := st; ; {
		i := bytes.Index(rest, []byte(decl))
		if i < 0 {
			return false
		}
		if i == 0 || rest[i-1] == ';' || rest[i-1] == '{' {
			return true
		}
		rest = rest[i+len(decl):]
	}
}

// placement returns, for an element that the compacted style st floats
// or places in a grid's column, an order that sorts it where it is
// drawn: floats to the left first, in the order written, and floats to
// the right last, in reverse (each is drawn left of the one before); an
// item placed in a row and column N before the items placed after it,
// and after the items not placed, which fill the columns before it.
func (r *reorder) placement(st []byte) (int, bool) {
	const far = 1 << 24
	switch v := string(styleValue(st, "float")); v {
	case "left", "inline-start":
		r.floats++
		return -far + r.floats, true
	case "right", "inline-end":
		r.floats++
		return far - r.floats, true
	}
	// A column without a row puts an item before the cursor on the next
	// row: only items placed in a row are drawn beside each other.
	var col []byte
	if styleValue(st, "grid-row") != nil || styleValue(st, "grid-row-start") != nil {
		col = styleValue(st, "grid-column-start")
		if col == nil {
			col, _, _ = bytes.Cut(styleValue(st, "grid-column"), []byte("/"))
		}
	} else if a := bytes.Split(styleValue(st, "grid-area"), []byte("/")); len(a) >= 2 {
		col = a[1]
	}
	if n, err := strconv.Atoi(string(col)); err == nil && n > 0 && n < 1<<20 {
		return 2*n - 3, true
	}
	return 0, false
}

// drawsReversed reports whether the compacted style st draws an element's
// children in reverse order: a reversed flex direction or wrap
// (column-wrapped items then run right to left), a right-to-left
// direction or vertical writing, or a mirror (scaleX(-1), rotateY(180deg)),
// whose children may be mirrored back, letters and all.
func drawsReversed(st []byte) bool {
	for _, p := range []string{"row-reverse", "column-reverse", "wrap-reverse", "writing-mode:vertical-rl", "writing-mode:sideways-rl",
		"scalex(-1", "scale(-1", "scale:-1", "rotatey(180", "rotate:y180", "rotate3d(0,1,0,180"} {
		if bytes.Contains(st, []byte(p)) {
			return true
		}
	}
	return declares(st, "direction:rtl")
}

// cssOrder returns the value of the order property of the compacted
// style st.
func cssOrder(st []byte) (int, bool) {
	for rest := st; ; {
		i := bytes.Index(rest, []byte("order:"))
		if i < 0 {
			return 0, false
		}
		if i > 0 && rest[i-1] != ';' {
			rest = rest[i+len("order:"):] // border:, -webkit-box-ordinal-group
			continue
		}
		v := rest[i+len("order:"):]
		neg := false
		if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
			neg = v[0] == '-'
			v = v[1:]
		}
		n, digits := 0, 0
		for _, ch := range v {
			if ch < '0' || ch > '9' {
				break
			}
			if n < 1<<20 {
				n = n*10 + int(ch-'0')
			}
			digits++
		}
		if digits == 0 {
			// order:calc(0 - 1), and the like.
			val, _, _ := bytes.Cut(rest[i+len("order:"):], []byte(";"))
			if f, ok := cssSizeIn(val, st, 0); ok && f > -1<<20 && f < 1<<20 {
				return int(math.Round(f)), true
			}
			return 0, false
		}
		if neg {
			n = -n
		}
		return n, true
	}
}

// A box is an inline box inside a clickable element: its text is
// label[s:e] (e < 0 while it is open), and depth counts the elements open
// inside the clickable one when it is, itself included.
type box struct {
	s, e, depth int
	dir         int8 // its own direction: 0 its parent's, 1 left to right, 2 right to left
	flex        bool // a flex or grid container: its children are items placed in its direction
	reverse     bool // row-reverse: placed against it
}

// boxLayout reads the direction and the layout of the current start tag
// (see box).
func (c *checker) boxLayout() (dir int8, flex, reverse bool) {
	if d, ok := c.attr("dir"); ok {
		switch {
		case asciiEqualFold(bytes.TrimSpace(d), "ltr"):
			dir = 1
		case asciiEqualFold(bytes.TrimSpace(d), "rtl"):
			dir = 2
		}
	}
	style, ok := c.attr("style")
	var b [256]byte
	st := c.sheetLayout(b[:0]) // a style sheet's, before the inline style's
	if !ok && len(st) == 0 {
		return dir, false, false
	}
	st = compactStyle(st, style)
	switch string(styleValue(st, "direction")) {
	case "ltr":
		dir = 1
	case "rtl":
		dir = 2
	}
	display := string(styleValue(st, "display"))
	flex = strings.Contains(display, "flex") || strings.Contains(display, "grid")
	reverse = flex && bytes.Contains(styleValue(st, "flex-direction"), []byte("reverse"))
	return dir, flex, reverse
}

// maxBoxes bounds the boxes one label records.
const maxBoxes = 64

// maxBoxedBytes bounds the labels a check orders for their boxes
// (boxedReadings): 512 KiB, some 50 ms. Right-to-left letters in inline
// boxes are common on Hebrew and Arabic pages, unlike formatting
// characters, so the bound is drawnReading's eight times over; a page
// that needs more is refused.
const maxBoxedBytes = 512 << 10

// boxKind says whether an element is drawn as an inline box.
type boxKind uint8

const (
	notBox boxKind = iota
	isBox
)

// atomicInline reports whether the current start tag, a (name), is drawn
// as an inline box: an element that is one by default (a button, a form
// control, an image, an SVG <text> positioned on its own), one that an
// inline style displays as inline-block, inline-flex, inline-grid or
// inline-table, or one that a rule of a style sheet may display so (see
// readSheets; until 28 November any element with a class was taken for
// one on a page whose CSS made some, which refused Arabic counts).
func (c *checker) atomicInline(a atom.Atom, name []byte) boxKind {
	switch a {
	case atom.Button, atom.Input, atom.Select, atom.Textarea, atom.Img, atom.Meter, atom.Progress,
		atom.Marquee, atom.Fieldset, atom.Ruby:
		return isBox
	}
	if c.inForeign() {
		if string(name) == "text" || string(name) == "math" {
			return isBox // <math> is drawn as one box, inline
		}
		return notBox
	}
	if style, ok := c.attr("style"); ok && containsFold(style, "display") {
		var b [256]byte
		st := compactStyle(b[:0], style)
		switch v := styleValue(st, "display"); {
		case inlineBoxDisplay(v):
			return isBox
		case len(v) == 0:
		case c.sheetHides()&sheetBoxImportant != 0:
			return isBox // a rule's !important beats the style attribute
		default:
			return notBox
		}
	}
	if c.sheetHides()&sheetBox != 0 {
		return isBox // a style sheet's rule may make it one
	}
	return notBox
}

// inlineBoxDisplay reports whether the compacted value v of display
// draws an inline box: inline-block, inline-flex, inline-grid,
// inline-table, or the same in two keywords ("inline flow-root",
// "flex inline").
func inlineBoxDisplay(v []byte) bool {
	switch string(v) {
	case "inline-block", "inline-flex", "inline-grid", "inline-table",
		"inlineflow-root", "flow-rootinline", "inlineflex", "flexinline", "inlinegrid", "gridinline", "inlinetable", "tableinline",
		"-webkit-inline-box", "inline-list-item", "inlinelist-item", "list-iteminline", "ruby", "math", "inlinemath", "mathinline",
		// A table's parts in an inline element are wrapped in an inline
		// table, drawn as one box.
		"table-cell", "table-row", "table-caption", "table-row-group", "table-header-group", "table-footer-group", "table-column-group":
		return true
	}
	return false
}

// pageMayDrawRightToLeft reports whether the page may have a paragraph
// drawn from right to left: it has a formatting character, or it may set
// that direction ("rtl" or "plaintext" in an attribute or CSS; dir="ltr"
// alone does not: a page that says it is left to right drew an English
// count "downloads 2M.1", the second round of the 25th attack).
func (c *checker) pageMayDrawRightToLeft() bool {
	if c.textControls {
		return true
	}
	if c.rtlCSS == 0 {
		c.rtlCSS = -1
		if indexFold(c.src, "rtl") >= 0 || indexFold(c.src, "plaintext") >= 0 {
			c.rtlCSS = 1
		}
	}
	return c.rtlCSS > 0
}

// boxedReadings returns the readings of label, the text of the clickable
// element just closed, that the inline boxes in it (see atomicInline)
// give when it has right-to-left letters or the page may draw a
// paragraph from right to left: the bidirectional algorithm
// places each box as one neutral character (U+FFFC) and draws its content
// on its own; the drawn line is read as a reader of Hebrew or Arabic
// reads it, from right to left (<a><span style="display:inline-block">דה
// </span><span style="display:inline-block">הור</span></a> is drawn הד|רוה
// and read "הורדה"), and from left to right, in a paragraph of either
// direction; text hidden from view is left out.
func (c *checker) boxedReadings(label []byte) []string {
	if !hasRightToLeftLetter(label) && !hasArabicDigit(label) && !c.pageMayDrawRightToLeft() && !c.cssMaySetDirection() {
		// Boxes of left-to-right letters are drawn in another order only
		// in a right-to-left paragraph.
		return nil
	}
	r := &c.reo
	boxes := r.boxes[:0]
	for _, b := range r.boxes {
		if b.e < 0 || b.e > len(label) {
			b.e = len(label) // open to the end
		}
		boxes = append(boxes, b)
	}
	if r.boxes = boxes; len(boxes) == 0 {
		return nil
	}
	// A label that cannot spell a call to download in any order is not
	// ordered; the others count against maxBoxedBytes.
	if !mayHaveLexiconLetters(label, c.readCache(label)) || !c.charge(&c.boxedBytes, maxBoxedBytes, len(label)) {
		return nil
	}
	// The paragraph's direction is read where HTML sets it (dir, on the
	// element or an ancestor) and no CSS may set another; else both are
	// read, as drawnReading does (an Arabic count in a box, "2 مليون
	// تنزيل" in a right-to-left link, read from a left-to-right paragraph
	// was "تنزيل مليون 2": docs/security.md, row 979).
	dirs := []bool{false, true}
	if c.frameDir != dirUnknown && !c.textMarks && !r.opposesAround(label, c.frameDir) && !c.cssMaySetDirection() {
		if c.frameDir == dirLeftToRight {
			dirs = dirs[:1]
		} else {
			dirs = dirs[1:]
		}
	}
	// A line without two letters of a left-to-right script (a count,
	// "+2M", has one; "下载" has two) is read from right to left only:
	// no reader scans Arabic or Hebrew words from the left.
	ltr := leftToRightLetters(label, 2) >= 2
	var out []string
	for _, rtl := range dirs {
		var b []rune
		b = r.drawBoxes(b, label, 0, len(label), 0, rtl)
		v := string(b)
		slices.Reverse(b)
		for i, s := range []string{readLeftToRight(b), readable(v)} {
			if i == 1 && !ltr {
				break
			}
			// Words of two directions side by side are read apart
			// ("a" הורדה "b" drawn as one line of boxes).
			for _, s := range []string{s, apartByDirection(s)} {
				if s != string(label) && !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// hasArabicDigit reports whether t has an Arabic-Indic digit, which
// draws the boxes around it from right to left.
func hasArabicDigit(t []byte) bool {
	for _, r := range string(t) {
		if r >= 0x600 {
			if p, _ := bidi.LookupRune(r); p.Class() == bidi.AN {
				return true
			}
		}
	}
	return false
}

// apartByDirection returns s with a space between each letter of a
// left-to-right script and a right-to-left letter side by side.
func apartByDirection(s string) string {
	if !hasLeftToRightLetter([]byte(s)) || !hasRightToLeftLetter([]byte(s)) {
		return s
	}
	var b []rune
	prev := bidi.ON
	for _, r := range s {
		cl := bidi.ON
		if p, _ := bidi.LookupRune(r); p.Class() == bidi.L || p.Class() == bidi.R || p.Class() == bidi.AL {
			cl = p.Class()
			if cl == bidi.AL {
				cl = bidi.R
			}
		}
		if cl != bidi.ON && prev != bidi.ON && cl != prev {
			b = append(b, ' ')
		}
		if cl != bidi.ON || r == ' ' {
			prev = cl
		}
		b = append(b, r)
	}
	return string(b)
}

// opposesAround reports whether label, outside its boxes, has a letter,
// hidden or not, of the direction opposite to dir, an Arabic digit in a
// left-to-right one, or a formatting character or mark: boxes between
// such letters take their direction, not the paragraph's (a hidden א on
// each side of Latin boxes draws them from right to left).
func (r *reorder) opposesAround(label []byte, dir int8) bool {
	for i := 0; i < len(label); {
		in := false
		for _, b := range r.boxes {
			if i >= b.s && i < b.e {
				i, in = b.e, true
				break
			}
		}
		if in {
			continue
		}
		ch, n := utf8.DecodeRune(label[i:])
		i += n
		if ch < utf8.RuneSelf {
			if dir == dirRightToLeft && ('a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z') {
				return true
			}
			continue
		}
		p, _ := bidi.LookupRune(ch)
		switch p.Class() {
		case bidi.L:
			if dir == dirRightToLeft {
				return true
			}
		case bidi.R, bidi.AL, bidi.AN:
			if dir == dirLeftToRight {
				return true
			}
		case bidi.LRE, bidi.RLE, bidi.LRO, bidi.RLO, bidi.PDF, bidi.LRI, bidi.RLI, bidi.FSI, bidi.PDI:
			return true
		}
		if ch == '\u200e' || ch == '\u200f' || ch == '\u061c' {
			return true
		}
	}
	return false
}

// drawBoxes appends to dst the characters of label[s:e], whose boxes are
// those in r.boxes from index first on, in the order they are drawn from
// left to right in a paragraph of direction rtl.
func (r *reorder) drawBoxes(dst []rune, label []byte, s, e, first int, rtl bool) []rune {
	var runes []rune
	var inner []int // for each rune, the box it stands for, or -1
	for i := s; i < e; {
		k := -1
		for j := first; j < len(r.boxes); j++ {
			if b := r.boxes[j]; b.s == i && b.e > b.s && b.e <= e {
				k = j
				break
			}
		}
		if k >= 0 {
			runes = append(runes, '\ufffc')
			inner = append(inner, k)
			i = r.boxes[k].e
			continue
		}
		ch, n := utf8.DecodeRune(label[i:])
		if !r.hiddenAt(i) {
			runes = append(runes, ch)
			inner = append(inner, -1)
		}
		i += max(n, 1)
	}
	if len(runes) == 0 {
		return dst
	}
	for _, i := range uba.Order(runes, rtl) {
		if k := inner[i]; k >= 0 {
			dst = r.drawBox(dst, label, k, rtl)
		} else {
			dst = append(dst, runes[i])
		}
	}
	return dst
}

// drawBox appends to dst the characters of box k, in a parent of
// direction rtl, in the order they are drawn from left to right: as a
// paragraph of its own, or, for a flex or grid box, as its items (child
// boxes and runs of text between them) placed in its direction.
func (r *reorder) drawBox(dst []rune, label []byte, k int, rtl bool) []rune {
	b := r.boxes[k]
	if b.dir != 0 {
		rtl = b.dir == 2
	}
	if !b.flex {
		return r.drawBoxes(dst, label, b.s, b.e, k+1, rtl)
	}
	type item struct{ s, e, box int }
	var items []item
	text := b.s
	for i := b.s; i < b.e; {
		j := k + 1
		for ; j < len(r.boxes); j++ {
			if c := r.boxes[j]; c.s == i && c.e > c.s && c.e <= b.e && c.depth == b.depth+1 {
				break
			}
		}
		if j == len(r.boxes) {
			_, n := utf8.DecodeRune(label[i:])
			i += max(n, 1)
			continue
		}
		if text < i {
			items = append(items, item{text, i, -1})
		}
		items = append(items, item{i, r.boxes[j].e, j})
		i = r.boxes[j].e
		text = i
	}
	if text < b.e {
		items = append(items, item{text, b.e, -1})
	}
	if rtl != b.reverse {
		slices.Reverse(items)
	}
	for _, it := range items {
		if it.box >= 0 {
			dst = r.drawBox(dst, label, it.box, rtl)
		} else {
			dst = r.drawBoxes(dst, label, it.s, it.e, len(r.boxes), rtl)
		}
	}
	return dst
}

// hiddenAt reports whether the label's byte at i is hidden from view.
func (r *reorder) hiddenAt(i int) bool {
	for k := 0; k+1 < len(r.hidden); k += 2 {
		if s, e := r.hidden[k], r.hidden[k+1]; i >= s && (e < 0 || i < e) {
			return true
		}
	}
	return false
}

// readLeftToRight returns the characters of a line in the order they are
// drawn from right to left, rev, as they are read: the words of a
// left-to-right script, reversed in rev, read from left to right.
func readLeftToRight(rev []rune) string {
	for i := 0; i < len(rev); {
		if isRightToLeftLetter(rev[i]) || !unicode.IsLetter(rev[i]) && !unicode.IsDigit(rev[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(rev) && (unicode.IsLetter(rev[j]) || unicode.IsDigit(rev[j]) || isMarkClass(rev[j])) && !isRightToLeftLetter(rev[j]) {
			j++
		}
		slices.Reverse(rev[i:j])
		i = j
	}
	return string(rev)
}

// lexiconLetters returns the letters of each entry of lexicons (its
// words, spaceless words and the words of its phrases), without repeats.
func lexiconLetters(lexicons ...*lexicon) [][]rune {
	var out [][]rune
	seen := map[string]bool{}
	add := func(w string) {
		var letters []rune
		for _, r := range w {
			if unicode.IsLetter(r) && !slices.Contains(letters, r) {
				letters = append(letters, r)
			}
		}
		if k := string(letters); len(letters) > 0 && !seen[k] {
			seen[k] = true
			out = append(out, letters)
		}
	}
	for _, l := range lexicons {
		for w := range l.words {
			add(w)
		}
		for _, w := range l.spaceless {
			add(w)
		}
		for _, p := range l.phrases {
			for _, w := range p {
				add(w)
			}
		}
	}
	return out
}

// mayHaveLexiconLetters reports whether label has, in any of its
// characters' readings, every letter of some entry of the lexicons: a
// label that has not cannot spell a call to download in any order.
func mayHaveLexiconLetters(label []byte, cache readCache) bool {
	set := make(map[rune]struct{}, 64)
	for _, r := range string(label) {
		rr := cache.get(r)
		for _, s := range [...]string{rr.plain, rr.skelPlain, rr.skelUnfolded, rr.skelUpper} {
			for _, q := range s {
				set[q] = struct{}{}
			}
		}
	}
	for _, w := range lexicons().letters {
		all := true
		for _, q := range w {
			if _, ok := set[q]; !ok {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// nestedOrder appends to segs the segments of a label n bytes long in the
// order they are drawn when each element with ordered children (conts)
// draws its own children sorted by order, text and other children at
// order 0: <c><b order 1>x</b><b>y</b></c><c><b order 2>load</b><b
// order 1>Down</b></c> is drawn "yxDownload", where one sort of all the
// pieces reads "y xDownload".
func (r *reorder) nestedOrder(segs [][2]int, n int) [][2]int {
	conts := make([]orderCont, len(r.conts))
	for i, c := range r.conts {
		if c.e < 0 || c.e > n {
			c.e = n
		}
		conts[i] = orderCont{min(c.s, n), c.e, c.depth}
	}
	// The elementary segments: between any two of the bounds.
	bounds := []int{0, n}
	for _, p := range r.pieces {
		e := p.e
		if e < 0 || e > n {
			e = n
		}
		bounds = append(bounds, min(p.s, n), e)
	}
	for _, c := range conts {
		bounds = append(bounds, c.s, c.e)
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	// Each segment's key: for each container around it, outermost first,
	// the order and start of the child of it that the segment is in.
	type key struct{ order, at int }
	type elem struct {
		s, e int
		path []key
	}
	elems := make([]elem, 0, len(bounds))
	pieceIn := make([]int, len(conts)) // for each container, its piece the segment is in, or -1
	for i := 0; i+1 < len(bounds); i++ {
		s, e := bounds[i], bounds[i+1]
		for k := range pieceIn {
			pieceIn[k] = -1
		}
		for pi, p := range r.pieces {
			pe := p.e
			if pe < 0 || pe > n {
				pe = n
			}
			if p.cont >= 0 && p.s <= s && e <= pe {
				pieceIn[p.cont] = pi
			}
		}
		// The containers around [s, e), outermost first.
		var around []int
		for k, c := range conts {
			if c.s <= s && e <= c.e {
				around = append(around, k)
			}
		}
		slices.SortFunc(around, func(a, b int) int { return conts[a].depth - conts[b].depth })
		path := make([]key, 0, len(around)+1)
		// At the top, the outermost container stays where it is.
		if len(around) > 0 {
			path = append(path, key{0, conts[around[0]].s})
		} else {
			path = append(path, key{0, s})
		}
		for j, k := range around {
			kk := key{0, s}
			if j+1 < len(around) {
				kk.at = conts[around[j+1]].s // inside a child container
			}
			if pi := pieceIn[k]; pi >= 0 {
				kk = key{r.pieces[pi].order, r.pieces[pi].s}
			}
			path = append(path, kk)
		}
		elems = append(elems, elem{s, e, path})
	}
	slices.SortStableFunc(elems, func(a, b elem) int {
		for i := 0; i < len(a.path) && i < len(b.path); i++ {
			if a.path[i].order != b.path[i].order {
				return a.path[i].order - b.path[i].order
			}
			if a.path[i].at != b.path[i].at {
				return a.path[i].at - b.path[i].at
			}
		}
		return len(a.path) - len(b.path)
	})
	for _, el := range elems {
		segs = append(segs, [2]int{el.s, el.e})
	}
	return segs
}

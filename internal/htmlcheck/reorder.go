package htmlcheck

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"

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
//     and grid items placed in a column, read where they are drawn (see
//     placement);
//   - the children of a container whose items are drawn in reverse
//     (flex-direction: row-reverse or column-reverse, direction: rtl,
//     dir=rtl), read in reverse order, and the container's words in
//     reverse order;
//   - a declarative shadow root (<template shadowrootmode=open>), whose
//     content the browser draws instead of its host's children, read on
//     its own;
//   - boxes side by side (inline-block, SVG <text>) drawn from left to
//     right, which a reader of Hebrew or Arabic reads from right to left:
//     a label with right-to-left letters is also read with the children
//     of the clickable element in reverse order, and with all the pieces
//     between its tags in reverse order.
//
// Offsets are in checker.label. Only inline styles can be told; the first
// reversed container and up to maxOrderPieces ordered items are followed.
// A container with dir=auto counts as reversed when the first letter of
// its text, hidden or not, is a right-to-left one, as HTML decides its
// direction.
type reorder struct {
	pieces    []orderPiece
	orderOpen bool // the last piece is open
	orderName string
	orderNest int // open elements named orderName, the piece included
	floats    int // floated pieces so far

	rev                    revState
	revName                string
	revNest                int // open elements named revName, the container included
	revDepth               int // open elements inside the container
	revStart, revEnd       int
	revBounds              []int // where the container's children start and end
	shadowNest, shadowFrom int
	shadow                 []byte // the text of the shadow roots

	auto        bool  // the reversed container has dir=auto
	depth       int   // open elements, the clickable one included
	childBounds []int // where the clickable element's children start and end
	leafBounds  []int // where any element inside it starts and ends
	hidden      []int // where hidden text starts and ends, in pairs (see checker.hides)
}

type revState uint8

const (
	revNone revState = iota
	revOpen
	revDone
)

type orderPiece struct{ s, e, order int }

// maxOrderPieces and maxRevBounds bound what one label records.
const (
	maxOrderPieces = 64
	maxRevBounds   = 128
)

func (r *reorder) reset() {
	r.pieces = r.pieces[:0]
	r.orderOpen = false
	r.floats = 0
	r.rev = revNone
	r.revBounds = r.revBounds[:0]
	r.shadowNest = 0
	r.shadow = r.shadow[:0]
	r.depth = 0
	r.childBounds = r.childBounds[:0]
	r.leafBounds = r.leafBounds[:0]
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

// reorderStart follows the start tag a (name) inside a clickable element.
func (c *checker) reorderStart(a atom.Atom, name []byte, empty bool) {
	r := &c.reo
	at := len(c.label)
	if r.depth == 1 && len(r.childBounds) < maxRevBounds {
		r.childBounds = append(r.childBounds, at)
	}
	if r.depth >= 1 && len(r.leafBounds) < maxRevBounds {
		r.leafBounds = append(r.leafBounds, at)
	}
	if !empty {
		r.depth++
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
	if !hasStyle && !hasDir {
		return
	}
	var b [256]byte
	st := compactStyle(b[:0], style)
	dir = bytes.TrimSpace(dir)
	auto := asciiEqualFold(dir, "auto")
	if r.rev == revNone && (a != atom.Bdo && (auto || asciiEqualFold(dir, "rtl")) ||
		bytes.Contains(st, []byte("row-reverse")) || bytes.Contains(st, []byte("column-reverse")) ||
		declares(st, "direction:rtl")) {
		r.rev, r.revName, r.revNest, r.revDepth, r.revStart = revOpen, c.intern(a, name), 1, 0, at
		r.auto = auto && !declares(st, "direction:rtl")
	}
	if !r.orderOpen && len(r.pieces) < maxOrderPieces {
		n, ok := cssOrder(st)
		if !ok {
			n, ok = r.placement(st)
		}
		if ok {
			r.pieces = append(r.pieces, orderPiece{s: at, e: -1, order: n})
			r.orderOpen, r.orderName, r.orderNest = true, c.intern(a, name), 1
		}
	}
}

// reorderEnd follows the end tag name inside a clickable element.
func (c *checker) reorderEnd(name []byte) {
	r := &c.reo
	at := len(c.label)
	if r.depth > 0 {
		r.depth--
	}
	if r.depth == 1 && len(r.childBounds) < maxRevBounds {
		r.childBounds = append(r.childBounds, at)
	}
	if r.depth >= 1 && len(r.leafBounds) < maxRevBounds {
		r.leafBounds = append(r.leafBounds, at)
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
			r.pieces[len(r.pieces)-1].e = at
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
	}
	if r.rev != revNone {
		end := r.revEnd
		if r.rev == revOpen || end > len(label) {
			end = len(label)
		}
		start := min(r.revStart, end)
		if !r.auto || firstStrongRightToLeft(label[start:end]) {
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
	if len(r.childBounds) > 0 && hasRightToLeftLetter(label) {
		segs = reversedPieces(segs[:0], len(label), r.childBounds)
		if try() {
			return true
		}
		if !slices.Equal(r.leafBounds, r.childBounds) {
			segs = reversedPieces(segs[:0], len(label), r.leafBounds)
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

// reversedPieces appends to segs the pieces of a label n bytes long
// between the offsets bounds, in reverse order.
func reversedPieces(segs [][2]int, n int, bounds []int) [][2]int {
	end := n
	for i := len(bounds) - 1; i >= -1; i-- {
		s := 0
		if i >= 0 {
			s = min(bounds[i], end)
		}
		if s < end {
			segs = append(segs, [2]int{s, end})
		}
		end = s
	}
	return segs
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
			return 0, false
		}
		if neg {
			n = -n
		}
		return n, true
	}
}

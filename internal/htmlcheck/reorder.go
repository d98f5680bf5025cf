package htmlcheck

import (
	"bytes"
	"slices"

	"golang.org/x/net/html/atom"
)

// CSS and declarative shadow DOM can draw the text of a clickable element
// in another order than the source has it. reorder follows, inside the
// outermost clickable element, the three ways found in use, so that the
// label is also read in the order it is drawn:
//
//   - flex and grid items with an order property (<span
//     style="order:2">load</span><span style="order:1">Down</span>),
//     read sorted by it, text between them counting as order 0;
//   - the children of a container whose items are drawn in reverse
//     (flex-direction: row-reverse or column-reverse, direction: rtl,
//     dir=rtl), read in reverse order, and the container's words in
//     reverse order;
//   - a declarative shadow root (<template shadowrootmode=open>), whose
//     content the browser draws instead of its host's children, read on
//     its own.
//
// Offsets are in checker.label. Only inline styles can be told; the first
// reversed container and up to maxOrderPieces ordered items are followed.
type reorder struct {
	pieces    []orderPiece
	orderOpen bool // the last piece is open
	orderName string
	orderNest int // open elements named orderName, the piece included

	rev                    revState
	revName                string
	revNest                int // open elements named revName, the container included
	revDepth               int // open elements inside the container
	revStart, revEnd       int
	revBounds              []int // where the container's children start and end
	shadowNest, shadowFrom int
	shadow                 []byte // the text of the shadow roots
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
	r.rev = revNone
	r.revBounds = r.revBounds[:0]
	r.shadowNest = 0
	r.shadow = r.shadow[:0]
}

// reorderStart follows the start tag a (name) inside a clickable element.
func (c *checker) reorderStart(a atom.Atom, name []byte, empty bool) {
	r := &c.reo
	at := len(c.label)
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
	if r.rev == revNone && (a != atom.Bdo && asciiEqualFold(bytes.TrimSpace(dir), "rtl") ||
		bytes.Contains(st, []byte("row-reverse")) || bytes.Contains(st, []byte("column-reverse")) ||
		declares(st, "direction:rtl")) {
		r.rev, r.revName, r.revNest, r.revDepth, r.revStart = revOpen, c.intern(a, name), 1, 0, at
	}
	if !r.orderOpen && len(r.pieces) < maxOrderPieces {
		if n, ok := cssOrder(st); ok {
			r.pieces = append(r.pieces, orderPiece{s: at, e: -1, order: n})
			r.orderOpen, r.orderName, r.orderNest = true, c.intern(a, name), 1
		}
	}
}

// reorderEnd follows the end tag name inside a clickable element.
func (c *checker) reorderEnd(name []byte) {
	r := &c.reo
	at := len(c.label)
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
	if len(r.pieces) > 0 {
		type seg struct {
			s, e, order int
		}
		segs := make([]seg, 0, 2*len(r.pieces)+1)
		prev := 0
		for _, p := range r.pieces {
			e := p.e
			if e < 0 || e > len(label) {
				e = len(label)
			}
			if p.s < prev || p.s > e {
				continue
			}
			segs = append(segs, seg{prev, p.s, 0}, seg{p.s, e, p.order})
			prev = e
		}
		segs = append(segs, seg{prev, len(label), 0})
		slices.SortStableFunc(segs, func(a, b seg) int { return a.order - b.order })
		out := make([]byte, 0, len(label))
		for _, s := range segs {
			out = append(out, label[s.s:s.e]...)
		}
		if fn(out) {
			return true
		}
	}
	if r.rev != revNone {
		end := r.revEnd
		if r.rev == revOpen || end > len(label) {
			end = len(label)
		}
		start := min(r.revStart, end)
		bounds := append([]int{start}, r.revBounds...)
		bounds = append(bounds, end)
		out := append(make([]byte, 0, len(label)), label[:start]...)
		for i := len(bounds) - 1; i > 0; i-- {
			s, e := min(max(bounds[i-1], start), end), min(max(bounds[i], start), end)
			if s < e {
				out = append(out, label[s:e]...)
			}
		}
		out = append(out, label[end:]...)
		if !bytes.Equal(out, label) && fn(out) {
			return true
		}
	}
	return len(r.shadow) > 0 && fn(r.shadow)
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

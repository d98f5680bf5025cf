package htmlcheck

import (
	"bytes"
	"slices"
	"strconv"

	"golang.org/x/net/html/atom"
)

// A hidden element's letters can be drawn again by its children when it
// hides them with a property they inherit and may set again: a font size
// too small to read, visibility: hidden, a clear colour. <a
// style="font-size:0"><span style="font-size:16px">Down</span>x<span
// style="font-size:16px">load</span></a> draws "Download" (the 25th
// outside attack, rows 4-7 and 42), where the hiding of the link covers
// its whole label. So the text of the outermost clickable element is
// also read as drawn under such properties: each element inside it (it
// included) is visible, hidden in a way its children may undo, or hidden
// for good (display: none, opacity, clipping, …), by its inline style and
// the page's style sheets (see readSheets); the letters of visible
// elements are the reading. What hides the clickable element from
// outside it is not followed.

// visState is how an element inside a clickable one is drawn.
type visState uint8

const (
	visShown     visState = iota
	visResetable          // hidden by a property its children may set again
	visGone               // hidden for good
)

// visElem is an element open inside the outermost clickable one, with
// its font size (from 16px at the clickable element, which is not
// followed further out) and opacity as its ancestors multiply them.
type visElem struct {
	name    string
	state   visState
	size    float64
	opacity float64
}

// maxVisElems bounds checker.vis; deeper elements take their parent's
// state.
const maxVisElems = 256

// resettableProps are the inherited properties that hide letters and
// that a child may set again.
var resettableProps = []string{"font-size", "font", "visibility", "color", "-webkit-text-fill-color"}

// visStart follows the start tag of a (name) inside the outermost
// clickable element, or of that element itself.
func (c *checker) visStart(a atom.Atom, name []byte, empty bool) {
	parent := visElem{state: visShown, size: 16, opacity: 1}
	if n := len(c.vis); n > 0 {
		parent = c.vis[n-1]
	}
	el := visElem{name: c.intern(a, name), state: parent.state, size: parent.size, opacity: parent.opacity}
	if parent.state != visGone {
		gone, resettable, resets := c.visStyle()
		// Sizes and opacities multiply through nesting (.3em three
		// times is under 3px; row 946 of docs/security.md).
		var b [256]byte
		st := c.sheetLayout(b[:0])
		if style, ok := c.attr("style"); ok {
			st = compactStyle(st, style)
		}
		if len(st) > 0 {
			el.size, el.opacity = scaled(st, el.size, el.opacity)
			if el.opacity < 0.05 {
				if !gone {
					c.visUsed = true // by opacities that multiply
				}
				gone = true
			} else if el.size < minReadablePixels && !gone {
				resettable = true
			} else if el.size >= minReadablePixels && styleValue(st, "font-size") != nil {
				resets = true
			}
		}
		switch {
		case gone:
			el.state = visGone
		case resettable:
			el.state = visResetable
			c.visUsed = true
		case parent.state == visResetable && resets:
			el.state = visShown
		}
	}
	if !empty && len(c.vis) < maxVisElems {
		c.vis = append(c.vis, el)
	}
}

// scaled returns the font size and opacity of an element whose parent's
// are size and opacity, by the compacted declarations st: the last font
// size (in pixels, or relative to size: em, %, smaller, larger) and
// every opacity, multiplied.
func scaled(st []byte, size, opacity float64) (float64, float64) {
	if v := styleValue(st, "font-size"); v != nil {
		switch {
		case string(v) == "smaller":
			size /= 1.2
		case string(v) == "larger":
			size *= 1.2
		default:
			n := numberEnd(v)
			f, err := strconv.ParseFloat(string(v[:n]), 64)
			switch unit := string(v[n:]); {
			case n == 0 || err != nil:
				if px, ok := cssSize(v, st); ok {
					size = px
				}
			case unit == "em":
				size *= f
			case unit == "%":
				size *= f / 100
			case unit == "ex" || unit == "ch":
				size *= f / 2
			default:
				if px, ok := cssPixels(v); ok {
					size = px
				}
			}
		}
	}
	for decl := range bytes.SplitSeq(st, []byte(";")) {
		if v, ok := bytes.CutPrefix(decl, []byte("opacity:")); ok {
			if f, ok := cssFraction(bytes.TrimSuffix(v, []byte("!important"))); ok && f < 1 {
				opacity *= max(f, 0)
			}
		}
	}
	return size, opacity
}

// visEnd follows the end tag name inside the outermost clickable element.
func (c *checker) visEnd(name []byte) {
	for i := len(c.vis) - 1; i >= 0; i-- {
		if c.vis[i].name == string(name) {
			c.vis = c.vis[:i]
			return
		}
	}
}

// visStyle reads how the current start tag's inline style and the page's
// style sheets hide its letters: for good, or in a way its children may
// undo; and whether it draws letters that its parent hides so again.
func (c *checker) visStyle() (gone, resettable, resets bool) {
	k := c.sheetHides()
	if sheetHidesLetters(k) {
		gone = k&sheetNotDrawn != 0 || k&sheetDrawn != 0 && k&sheetResettable == 0
		resettable = k&sheetResettable != 0
	}
	resets = k&sheetResets != 0
	if style, ok := c.attr("style"); ok {
		var b [256]byte
		st := compactStyle(b[:0], style)
		g, r, s := styleVisibility(style, st)
		gone, resettable, resets = gone || g, resettable || r, resets || s
	}
	if _, ok := c.attr("hidden"); ok {
		gone = true
	}
	return gone, resettable && !gone, resets
}

// styleVisibility reads the declarations decls (compacted st): whether
// they hide letters for good, hide them only by resettableProps, and
// set one of those so that letters show.
func styleVisibility(decls, st []byte) (gone, resettable, resets bool) {
	if hidingStyle(decls) {
		if hidingStyle(withoutProps(st, resettableProps)) {
			gone = true
		} else {
			resettable = true
		}
	}
	if v := styleValue(st, "font-size"); v != nil {
		if px, ok := cssSize(v, st); ok && px >= minReadablePixels {
			resets = true
		}
	}
	if string(styleValue(st, "visibility")) == "visible" {
		resets = true
	}
	for _, p := range []string{"color", "-webkit-text-fill-color"} {
		if v := styleValue(st, p); v != nil && !clearColour(v) && string(v) != "inherit" {
			resets = true
		}
	}
	return gone, resettable, resets
}

// withoutProps returns the compacted style st without its declarations
// of props.
func withoutProps(st []byte, props []string) []byte { return filterProps(st, props, false) }

// filterProps returns the declarations of the compacted style st that
// set one of props (in), or that do not, each ended by ';'.
func filterProps(st []byte, props []string, in bool) []byte {
	var out []byte
	for decl := range bytes.SplitSeq(st, []byte(";")) {
		name, _, _ := bytes.Cut(decl, []byte(":"))
		if len(decl) > 0 && slices.Contains(props, string(name)) == in {
			out = append(append(out, decl...), ';')
		}
	}
	return out
}

// visAppend adds t, text of the outermost clickable element, to the
// reading of its visible letters.
func (c *checker) visAppend(t []byte) {
	if len(c.visText) >= maxLabel {
		return
	}
	switch n := len(c.vis); {
	case n == 0 || c.vis[n-1].state == visShown:
		c.visText = append(c.visText, t...)
	case c.vis[n-1].state == visResetable:
		// Letters laid out unseen still order the text around them
		// (see appendLabel).
		c.visText = strongMarks(c.visText, t, c.label)
	}
}

package htmlcheck

import (
	"bytes"

	"golang.org/x/net/html/atom"
)

// A script can make any element a button: addEventListener("click", …)
// or el.onclick = … on an element that has no href, no handler attribute
// and no role. Which element a script reaches cannot be decided
// statically, so when the page's scripts attach click, pointer, mouse or
// touch handlers, the elements that look clickable count as clickable:
// those with tabindex, cursor: pointer, or an id or class that names a
// button or a download; and, weakly, a <div> or <span> whose own short
// text reads as a call to download (see maxWeakWords), unless it holds a
// heading.

// maxWeakWords is the longest text of a div or span that counts as a
// button's label when a script attaches click handlers: a whole section
// that starts with a heading "Download" is not one.
const maxWeakWords = 4

// clickEvents are the events that a click, tap or press fires.
var clickEvents = []string{"click", "dblclick", "auxclick", "pointerdown", "pointerup", "mousedown", "mouseup",
	"touchstart", "touchend"}

// scriptAttachesClicks reports whether the document src attaches click
// handlers to elements by script: el.onclick = …, el.addEventListener(
// "click", …), jQuery's .on("click", …) and .click(…). It looks at what
// follows each dot in the whole document, a cheap over-approximation of
// its scripts that reads 1 MiB in a tenth of a millisecond; a handler
// attached to the window without a dot (addEventListener("click", …)
// alone, onclick = …) or with the event name in a variable is not seen.
func scriptAttachesClicks(src []byte) bool {
	for rest := src; ; {
		i := bytes.IndexByte(rest, '.')
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
		if len(rest) < 3 || rest[0] != 'c' && rest[0] != 'o' && rest[0] != 'a' {
			continue // most dots: decimals, file names, CSS classes
		}
		switch {
		case bytes.HasPrefix(rest, []byte("click(")):
			return true
		case bytes.HasPrefix(rest, []byte("on(")):
			if clickEventArg(rest[len("on("):]) {
				return true
			}
		case bytes.HasPrefix(rest, []byte("addEventListener(")):
			if clickEventArg(rest[len("addEventListener("):]) {
				return true
			}
		case bytes.HasPrefix(rest, []byte("on")):
			for _, ev := range clickEvents {
				if bytes.HasPrefix(rest[2:], []byte(ev)) {
					return true
				}
			}
		}
	}
}

// clickEventArg reports whether the call arguments a start with the
// quoted name of a click event.
func clickEventArg(a []byte) bool {
	a = bytes.TrimLeft(a[:min(len(a), 32)], " \t\n\r'\"`")
	for _, ev := range clickEvents {
		if bytes.HasPrefix(a, []byte(ev)) {
			return true
		}
	}
	return false
}

// scriptClickable reports whether the current start tag a looks
// clickable to a page whose scripts attach click handlers, and whether
// only weakly (see maxWeakWords).
func (c *checker) scriptClickable(a atom.Atom) (clickable, weak bool) {
	if _, ok := c.attr("tabindex"); ok {
		return true, false
	}
	for _, k := range []string{"id", "class"} {
		if v, ok := c.attr(k); ok && (containsFold(v, "btn") || containsFold(v, "button") || containsFold(v, "download")) {
			return true, false
		}
	}
	if style, ok := c.attr("style"); ok && containsFold(style, "pointer") {
		var b [256]byte
		if bytes.Contains(compactStyle(b[:0], style), []byte("cursor:pointer")) {
			return true, false
		}
	}
	return a == atom.Div || a == atom.Span, true
}

// heading reports whether a is a heading, which makes a weakly clickable
// element around it a section rather than a button.
func heading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header, atom.Hgroup:
		return true
	}
	return false
}

// wordsMore reports whether b has more than n words separated by ASCII
// white space.
func wordsMore(b []byte, n int) bool {
	words, in := 0, false
	for _, ch := range b {
		space := ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f'
		if !space && !in {
			words++
			if words > n {
				return true
			}
		}
		in = !space
	}
	return false
}

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

// scriptAttachesClicks reports whether the document src has a script
// that attaches click handlers by property or addEventListener (or
// jQuery's .on and .click). It looks at the whole document, a cheap
// over-approximation of its scripts.
func scriptAttachesClicks(src []byte) bool {
	// Every way needs an event name, rare in most pages: look for those
	// first (long needles are searched fast), then for how.
	ev := false
	for _, e := range []string{"click", "pointer", "mouse", "touch"} {
		if bytes.Contains(src, []byte(e)) {
			ev = true
			break
		}
	}
	if !ev {
		return false
	}
	if bytes.Contains(src, []byte("addEventListener")) || bytes.Contains(src, []byte(".on(")) ||
		bytes.Contains(src, []byte(".click(")) {
		return true
	}
	for _, p := range []string{".onclick", ".onpointerdown", ".onpointerup", ".onmousedown", ".onmouseup",
		".ontouchstart", ".ontouchend", ".onauxclick", ".ondblclick"} {
		if bytes.Contains(src, []byte(p)) {
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

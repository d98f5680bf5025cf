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
// button or a download, or an id that a script looks up
// (getElementById("get"), querySelector("#get")) (a role makes any element clickable, script or
// not), unless it holds a heading. A plain short <div> or <span> does not
// count: on a page with a menu or an analytics listener, feature lists
// ("Download speed: 1 Gbps", "Download history", "Download queue") were
// refused as buttons (fourth outside attack, row 38).

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

// scriptClickable reports whether the current start tag looks clickable
// to a page whose scripts attach click handlers.
func (c *checker) scriptClickable() bool {
	if _, ok := c.attr("tabindex"); ok {
		return true
	}
	if id, ok := c.attr("id"); ok && c.scriptIDs[string(id)] {
		return true
	}
	for _, k := range []string{"id", "class"} {
		if v, ok := c.attr(k); ok && (containsFold(v, "btn") || containsFold(v, "button") || containsFold(v, "download")) {
			return true
		}
	}
	if style, ok := c.attr("style"); ok && containsFold(style, "pointer") {
		var b [256]byte
		if bytes.Contains(compactStyle(b[:0], style), []byte("cursor:pointer")) {
			return true
		}
	}
	return false
}

// heading reports whether a is a heading, which makes an element that a
// script may make clickable around it a section rather than a button.
func heading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header, atom.Hgroup:
		return true
	}
	return false
}

// scriptLookedUpIDs returns the ids that src looks up by
// getElementById("…") or querySelector("#…") with a quoted literal: an
// element a script fetches by its id on a page that attaches click
// handlers is most likely the one it attaches them to.
func scriptLookedUpIDs(src []byte) map[string]bool {
	ids := map[string]bool{}
	for _, call := range []string{"getElementById(", "querySelector(", "querySelectorAll(", "$("} {
		for rest := src; ; {
			i := bytes.Index(rest, []byte(call))
			if i < 0 {
				break
			}
			rest = rest[i+len(call):]
			a := bytes.TrimLeft(rest[:min(len(rest), 128)], " \t\n\r")
			if len(a) == 0 || a[0] != '\'' && a[0] != '"' && a[0] != '`' {
				continue
			}
			end := bytes.IndexByte(a[1:], a[0])
			if end < 0 {
				continue
			}
			v := a[1 : 1+end]
			if call != "getElementById(" {
				if len(v) < 2 || v[0] != '#' || bytes.ContainsAny(v[1:], " .#[:>,") {
					continue
				}
				v = v[1:]
			}
			ids[string(v)] = true
		}
	}
	return ids
}

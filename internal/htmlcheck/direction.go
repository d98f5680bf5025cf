package htmlcheck

import (
	"bytes"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The direction in which a clickable element's text is laid out, where
// HTML alone sets it, so that boxedReadings reads its boxes in that
// direction only, not in both (an Arabic count in a box, "2 مليون تنزيل"
// in a right-to-left link, read as drawn in a left-to-right paragraph
// was "تنزيل مليون 2": docs/security.md, row 979).
//
// The text of an element is laid out in the direction of the innermost
// element around it, itself included, with a dir attribute, or left to
// right where none has one. The checker tokenizes the page, it does not
// build its tree, so the elements open are known only where no start tag
// closes one implicitly and every end tag closes what it names: the
// direction is known only where every dir attribute so far was on such
// an element (dirSafe) and no element that bounds the scope of an end
// tag (a table, a template, SVG's foreignObject) came first; and on
// pages whose CSS may set a direction or undo an element's (direction,
// unicode-bidi, display: contents, all), not at all.

// The directions of labelDirection.
const (
	dirUnknown int8 = iota
	dirLeftToRight
	dirRightToLeft
)

// maxHTMLDirs bounds htmlDirs.open; past it, directions are unknown.
const maxHTMLDirs = 64

// htmlDirs follows the elements open with a dir attribute.
type htmlDirs struct {
	open   []htmlDir
	seen   bool // a dir attribute, so far
	unsure bool // the elements open may not be those in open
}

type htmlDir struct {
	name string
	dir  int8
}

// dirSafe are the elements that no start tag closes implicitly.
func dirSafe(a atom.Atom) bool {
	switch a {
	case atom.Html, atom.Body, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Footer,
		atom.Nav, atom.Aside, atom.Span, atom.Bdi, atom.Blockquote, atom.Figure, atom.Figcaption,
		atom.Center, atom.Search, atom.Address, atom.Hgroup, atom.Ul, atom.Ol, atom.Dl, atom.Menu:
		return true
	}
	return false
}

// scopeBound reports whether the element a ends the scope in which an
// end tag finds the element it closes (an end tag past it is ignored).
func scopeBound(a atom.Atom, foreign bool) bool {
	switch a {
	case atom.Table, atom.Td, atom.Th, atom.Caption, atom.Template, atom.Object, atom.Marquee, atom.Applet:
		return !foreign
	case atom.Foreignobject, atom.Desc, atom.Title, atom.Mi, atom.Mo, atom.Mn, atom.Ms, atom.Mtext, atom.AnnotationXml:
		return foreign
	}
	return false
}

// start follows the start tag a (name) of an element with content.
func (d *htmlDirs) start(c *checker, a atom.Atom, name []byte, foreign bool) {
	if scopeBound(a, foreign) {
		d.unsure, d.open = true, d.open[:0]
	}
	v, ok := c.attr("dir")
	if !ok {
		return
	}
	d.seen = true
	dir := dirValue(v)
	if foreign || !dirSafe(a) || len(d.open) == maxHTMLDirs {
		d.unsure = true
	}
	if d.unsure {
		d.open = d.open[:0] // no longer read (see labelDirection)
		return
	}
	d.open = append(d.open, htmlDir{name: c.intern(a, name), dir: dir})
}

// end follows the end tag name: it closes the innermost element of that
// name open, and those open in it.
func (d *htmlDirs) end(name []byte) {
	for i := len(d.open) - 1; i >= 0; i-- {
		if d.open[i].name == string(name) {
			d.open = d.open[:i]
			return
		}
	}
}

// labelDirection returns the direction in which the text of the current
// start tag, a clickable element, is laid out as its dir attributes say,
// or dirUnknown (see the comment at the top; the page's CSS is read by
// cssMaySetDirection, when a reading needs it).
func (c *checker) labelDirection(a atom.Atom, foreign bool) int8 {
	if foreign {
		return dirUnknown
	}
	d := &c.dirs
	if v, ok := c.attr("dir"); ok {
		// Its own: the element's text is inside it, whatever is open
		// around it (an <a> misnested is made again with its
		// attributes).
		return dirValue(v)
	}
	switch {
	case d.unsure:
		return dirUnknown
	case len(d.open) > 0:
		return d.open[len(d.open)-1].dir
	case d.seen:
		return dirUnknown
	}
	return dirLeftToRight
}

// dirValue returns the direction the value v of a dir attribute sets:
// "rtl" or "ltr" in any case, exactly ("rtl " is invalid, and sets
// none), else dirUnknown.
func dirValue(v []byte) int8 {
	switch {
	case asciiEqualFold(v, "rtl"):
		return dirRightToLeft
	case asciiEqualFold(v, "ltr"):
		return dirLeftToRight
	}
	return dirUnknown
}

// cssMaySetDirection reports whether the page's CSS may set a direction
// or draw a formatting character (see cssSetsDirection), reading its
// style sheets and style attributes once, as the browser reads them.
func (c *checker) cssMaySetDirection() bool {
	if c.cssDir == 0 {
		c.cssDir = -1
		if pageMaySetDirection(c.src) {
			c.cssDir = 1
		}
	}
	return c.cssDir > 0
}

// pageMaySetDirection reports whether the style sheets or style
// attributes of src may set the direction of an element's text, undo
// what its dir attribute does or draw a formatting character around its
// letters (see cssSetsDirection). The sheets and attributes are found
// with the HTML tokenizer; their escapes and character references are
// decoded.
func pageMaySetDirection(src []byte) bool {
	if !sourceMaySetDirection(src) {
		return false
	}
	z := html.NewTokenizer(bytes.NewReader(src))
	inStyle := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return false
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				if string(k) == "style" && cssSetsDirection(v) {
					return true
				}
			}
			inStyle = string(name) == "style"
		case html.EndTagToken:
			inStyle = false
		case html.TextToken:
			if inStyle && cssSetsDirection(z.Text()) {
				return true
			}
		}
	}
}

// sourceMaySetDirection reports whether src may have CSS that
// cssSetsDirection finds, read as its bytes: one of its words, an
// escape, a numeric character reference or &lrm; / &rlm;, a formatting
// character, or "all" before a colon. Most pages have none, and are not
// tokenized again.
func sourceMaySetDirection(src []byte) bool {
	for _, w := range []string{"direction", "bidi", "plaintext", "contents", "content", "&#", "&lrm;", "&rlm;"} {
		if indexFold(src, w) >= 0 {
			return true
		}
	}
	if bytes.IndexByte(src, '\\') >= 0 || cssSetsDirectionMarks(src) {
		return true
	}
	return allProperty(src)
}

// cssSetsDirectionMarks reports whether css has a formatting character
// or a mark (see cssSetsDirection).
func cssSetsDirectionMarks(css []byte) bool {
	for _, m := range []string{"\u200e", "\u200f", "\u061c", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"} {
		if bytes.Contains(css, []byte(m)) {
			return true
		}
	}
	return false
}

// allProperty reports whether css has "all" before a colon, as the all
// property is declared.
func allProperty(css []byte) bool {
	for rest := css; ; {
		i := indexFold(rest, "all")
		if i < 0 {
			return false
		}
		if i == 0 || !isCSSIdent(rest[i-1]) {
			j := i + 3
			for j < len(rest) && isCSSSpace(rest[j]) {
				j++
			}
			if j == len(rest) || rest[j] == ':' {
				return true
			}
		}
		rest = rest[i+3:]
	}
}

// cssSetsDirection reports whether the CSS css may set a direction
// (direction, unicode-bidi: plaintext or normal), undo a dir attribute
// (display: contents, the all property) or draw a formatting character
// or a mark (content: "\2067", quotes).
func cssSetsDirection(css []byte) bool {
	if bytes.IndexByte(css, '&') >= 0 {
		css = []byte(html.UnescapeString(string(css))) // SVG's <style> is markup
	}
	if bytes.IndexByte(css, '\\') >= 0 {
		css = cssUnescape(nil, css) // d\69 rection
	}
	for _, w := range []string{"direction", "bidi", "plaintext", "contents"} {
		if indexFold(css, w) >= 0 {
			return true
		}
	}
	return cssSetsDirectionMarks(css) || allProperty(css) || drawsContent(css)
}

// drawsContent reports whether css draws text of its own, which may be
// letters or marks of either direction around a label's boxes (content:
// "\5d0", attr()); content: "" and none draw none.
func drawsContent(css []byte) bool {
	for rest := css; ; {
		i := indexFold(rest, "content")
		if i < 0 {
			return false
		}
		rest = rest[i+len("content"):]
		v := bytes.TrimLeft(rest, " \t\n\r\f")
		if len(v) == 0 || v[0] != ':' {
			continue
		}
		v = bytes.TrimLeft(v[1:], " \t\n\r\f")
		switch {
		case bytes.HasPrefix(v, []byte(`""`)), bytes.HasPrefix(v, []byte("''")), bytes.HasPrefix(v, []byte("none")), bytes.HasPrefix(v, []byte("normal")):
		default:
			return true
		}
	}
}

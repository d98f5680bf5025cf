package htmlcheck

import (
	"bytes"

	"golang.org/x/net/html"
)

// Style sheets hide letters as inline styles do: <style>.h{display:none}
// </style> and Down<span class="h">x</span>load draws "Download" (docs/
// security.md, rows 903, 906 and 939). The checker reads the page as a
// stream of tokens and does not compute the cascade; so, before the
// page is read, each rule of its style sheets whose declarations hide
// text (hidingStyle, as for a style attribute) is kept by one simple
// selector of its subject, the last compound of each selector: its id,
// else a class, else an attribute, else its element name, else any
// element. An element that has that id, class, attribute or name is
// taken as hidden by the rule. This over-reads on purpose: the other
// simple selectors, the combinators, pseudo-classes, media queries and
// later rules that show the element again are not followed, so an
// element a rule may hide is read both with and without its letters,
// like one that an inline style hides, and a label that only reads as a
// call to download without them is refused.

// sheetHideKind says how a rule hides an element's letters.
type sheetHideKind = uint8

const (
	sheetDrawn    sheetHideKind = 1 << iota // laid out, not seen: font-size:0, color:transparent, visibility:hidden, …
	sheetNotDrawn                           // display:none
	sheetContents                           // not hiding: display:contents, a box that isolates nothing (see dirControls)
	sheetBox                                // not hiding: an inline box (see atomicInline)

	sheetHidden = sheetDrawn | sheetNotDrawn
)

// sheetHiding is what the page's style sheets may hide (see above), and
// how they may lay elements out.
type sheetHiding struct {
	ids, classes, attrs, tags map[string]*sheetEntry // keys lower-cased
	all                       sheetEntry             // a rule whose subject names none of them (*, :not(.x), :is(.x))
	custom                    sheetEntry             // a rule for custom elements not yet defined (:not(:defined))
	frames                    map[string]bool        // the names of @keyframes rules that hide (see readSheets), which an inline style may run
	layoutBytes               int                    // of layout, over all entries
}

// sheetEntry is what the rules kept by one simple selector do.
type sheetEntry struct {
	kind sheetHideKind
	// layout are the declarations of those rules that draw elements in
	// another order (see layoutDecls), compacted, each ended by ';'.
	layout []byte
}

// maxLayoutBytes bounds sheetHiding.layoutBytes. Past it, which
// elements the rules lay out is not followed: every element may float
// to the right, which reads each label of several elements in reverse.
const maxLayoutBytes = 256 << 10

// sheetSubject is the simple selector a rule's subject is kept by.
type sheetSubject struct {
	kind uint8 // one of subject*
	name string
}

const (
	subjectAll    uint8 = iota
	subjectCustom       // an element whose name has a hyphen
	subjectTag
	subjectAttr
	subjectClass
	subjectID
)

// maxSheetDepth bounds the nesting of blocks that readSheet follows;
// what is nested deeper is taken as selecting any element.
const maxSheetDepth = 32

// readSheets reads the style sheets of src and returns what they may
// hide, or nil. The sheets are found as the browser finds them, with
// golang.org/x/net/html's tokenizer: the raw text of each <style>
// element, and in SVG or MathML the text in <style> (where it is markup,
// and may be a CDATA section); "<style" in an attribute, a comment or a
// script is not one, and cannot hide the sheet after it. A <style> that
// does not apply (in a <template>, a <noscript>) is read too, which only
// over-reads.
func readSheets(src []byte) *sheetHiding {
	if indexFold(src, "<style") < 0 {
		return nil
	}
	h := &sheetHiding{}
	found := false
	var animated []animatedRule // rules that run an animation, in case its @keyframes hides
	hidingFrames := map[string]bool{}
	readSheet := func(sheet []byte) {
		s := sheetReader{h: h}
		s.read(sheet)
		found = found || s.found
		animated = append(animated, s.animated...)
		for name := range s.hidingFrames {
			hidingFrames[name] = true
		}
	}
	z := html.NewTokenizer(bytes.NewReader(src))
	foreign := 0          // <svg> and <math> elements open
	var text []byte       // the text so far of a <style> in SVG or MathML
	foreignStyle := false // in one
	for {
		z.AllowCDATA(foreign > 0)
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "svg", "math":
				if tt == html.StartTagToken {
					foreign++
				}
			case "style":
				switch {
				case foreign > 0 && tt == html.SelfClosingTagToken:
					z.NextIsNotRawText()
				case foreign > 0:
					z.NextIsNotRawText()
					foreignStyle, text = true, text[:0]
				default:
					if z.Next() == html.TextToken {
						readSheet(z.Text())
					}
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "svg", "math":
				foreign = max(foreign-1, 0)
			case "style":
				if foreignStyle {
					readSheet(text)
					foreignStyle = false
				}
			}
		case html.TextToken:
			if foreignStyle {
				text = append(text, z.Text()...)
			}
		}
	}
	if foreignStyle {
		readSheet(text)
	}
	// An animation that runs a @keyframes rule that hides may stay on
	// its last frame (animation-fill-mode: forwards).
	if len(hidingFrames) > 0 {
		for _, a := range animated {
			if runsAny(a.decls, hidingFrames) {
				h.add(a.subjects, sheetDrawn, nil)
				found = true
			}
		}
	}
	if !found && len(hidingFrames) == 0 {
		return nil
	}
	h.frames = hidingFrames
	return h
}

// add records that the subjects subs may be hidden the way k says, and
// laid out by the declarations layout.
func (h *sheetHiding) add(subs []sheetSubject, k sheetHideKind, layout []byte) {
	for _, s := range subs {
		e := h.entry(s)
		e.kind |= k
		if len(layout) == 0 {
			continue
		}
		if h.layoutBytes += len(layout); h.layoutBytes > maxLayoutBytes {
			if len(h.all.layout) == 0 {
				h.all.layout = []byte("float:right;")
			}
			continue
		}
		e.layout = append(e.layout, layout...)
	}
}

// entry returns the entry of the subject s, made if need be.
func (h *sheetHiding) entry(s sheetSubject) *sheetEntry {
	var m *map[string]*sheetEntry
	switch s.kind {
	case subjectAll:
		return &h.all
	case subjectCustom:
		return &h.custom
	case subjectTag:
		m = &h.tags
	case subjectAttr:
		m = &h.attrs
	case subjectClass:
		m = &h.classes
	default:
		m = &h.ids
	}
	if *m == nil {
		*m = map[string]*sheetEntry{}
	}
	e := (*m)[s.name]
	if e == nil {
		e = &sheetEntry{}
		(*m)[s.name] = e
	}
	return e
}

// sheetReader reads one style sheet's blocks.
type sheetReader struct {
	h            *sheetHiding
	found        bool
	hidingFrames map[string]bool // the names of @keyframes rules that hide, lower-cased and unescaped
	animated     []animatedRule
	// animatedSubjects counts the subjects of animated.
	animatedSubjects int
	blocks           []sheetBlock // the blocks open
}

// animatedRule is a rule that runs an animation.
type animatedRule struct {
	subjects []sheetSubject
	decls    []byte // its declarations
}

// runsAny reports whether the declarations decls name one of the
// animations names (lower-cased, unescaped) with an identifier.
func runsAny(decls []byte, names map[string]bool) bool {
	for i := 0; i < len(decls); {
		n := identLen(decls[i:])
		if n == 0 {
			i++
			continue
		}
		if name, ok := cssDecodeIdent(decls[i : i+n]); ok && names[string(name)] {
			return true
		}
		i += n
	}
	return false
}

// sheetBlock is a block open in the style sheet.
type sheetBlock struct {
	// own is what the declarations in it style, as its selectors say;
	// and with parent, also what the block it is nested in styles ("&",
	// or an at-rule such as @media nested in a rule).
	own       []sheetSubject
	parent    bool
	keyframes []byte        // inside @keyframes: its name, lower-cased and unescaped; the declarations are an animation's frames
	skip      bool          // inside an at-rule whose declarations style no element (@font-face, @page, …), or at the top level
	decls     []byte        // its declarations so far, each ended by ';'
	added     sheetHideKind // what of its subjects' hiding is added already (see addBlock)
}

// maxAnimatedSubjects bounds the subjects kept for the rules that run an
// animation (see readSheets); past it, an animation may hide any element.
const maxAnimatedSubjects = 1 << 16

// read reads the style sheet s: each block's declarations, and the
// selectors (or at-rule) before it.
func (r *sheetReader) read(s []byte) {
	r.blocks = append(r.blocks[:0], sheetBlock{skip: true})
	deeper := 0 // blocks open past maxSheetDepth
	start := 0  // where the current declaration or prelude starts
	for i := 0; i < len(s); {
		switch s[i] {
		case '\\':
			i += escapeLen(s[i:])
			continue
		case '"', '\'':
			i = cssStringEnd(s, i)
			continue
		case '/':
			if i+1 < len(s) && s[i+1] == '*' {
				e := bytes.Index(s[i+2:], []byte("*/"))
				if e < 0 {
					i = len(s)
					continue
				}
				i += e + 4
				continue
			}
		case ';':
			b := &r.blocks[len(r.blocks)-1]
			if !b.skip {
				b.decls = append(append(b.decls, s[start:i]...), ';')
			}
			start = i + 1
		case '{':
			if len(r.blocks) > maxSheetDepth {
				// Too deep to follow: what it styles may be any element.
				b := &r.blocks[len(r.blocks)-1]
				if len(b.own) == 0 || b.own[0].kind != subjectAll {
					b.own = append([]sheetSubject{{kind: subjectAll}}, b.own...)
				}
				deeper++
				start = i + 1
				break
			}
			parent := r.blocks[len(r.blocks)-1]
			b := sheetBlock{keyframes: parent.keyframes, skip: parent.skip}
			prelude := bytes.TrimSpace(s[start:i])
			top := len(r.blocks) == 1
			switch {
			case !top && (parent.keyframes != nil || parent.skip):
				// A keyframe's selector (from, 50%), or a block in a
				// descriptor list.
			case len(prelude) > 0 && prelude[0] == '@':
				name := cssIdentAt(prelude, 1)
				b.skip = false
				switch {
				case asciiEqualFold(name, "keyframes") || asciiEqualFold(name, "-webkit-keyframes"):
					b.keyframes = []byte{}
					if n, ok := cssDecodeIdent(bytes.Trim(bytes.TrimSpace(prelude[1+len(name):]), `"'`)); ok {
						b.keyframes = bytes.Clone(n)
					}
				case asciiEqualFold(name, "font-face"), asciiEqualFold(name, "page"), asciiEqualFold(name, "property"),
					asciiEqualFold(name, "counter-style"), asciiEqualFold(name, "font-feature-values"),
					asciiEqualFold(name, "font-palette-values"), asciiEqualFold(name, "view-transition"),
					asciiEqualFold(name, "position-try"):
					b.skip = true
				default:
					// @media, @supports, @layer, @container, @scope,
					// @starting-style, …: their rules apply as if
					// outside, and declarations directly in them style
					// the rule they are nested in.
					b.parent = !top
				}
			default:
				b.skip = false
				b.own, b.parent = selectorSubjects(prelude, !top)
			}
			r.blocks = append(r.blocks, b)
			start = i + 1
		case '}':
			if deeper > 0 {
				deeper--
			} else if len(r.blocks) > 1 {
				r.blocks[len(r.blocks)-1].decls = append(r.blocks[len(r.blocks)-1].decls, s[start:i]...)
				r.close()
			}
			start = i + 1
		}
		i++
	}
	for len(r.blocks) > 1 { // blocks left open at the end are closed
		r.blocks[len(r.blocks)-1].decls = append(r.blocks[len(r.blocks)-1].decls, s[start:]...)
		start = len(s)
		r.close()
	}
}

// close takes the declarations of the innermost open block, and closes it.
func (r *sheetReader) close() {
	j := len(r.blocks) - 1
	defer func() { r.blocks = r.blocks[:j] }()
	b := &r.blocks[j]
	if b.skip || len(bytes.TrimSpace(b.decls)) == 0 {
		return
	}
	if b.keyframes != nil {
		if len(b.keyframes) > 0 && hidingStyle(b.decls) {
			if r.hidingFrames == nil {
				r.hidingFrames = map[string]bool{}
			}
			r.hidingFrames[string(b.keyframes)] = true
		}
		return
	}
	var buf [256]byte
	st := compactStyle(buf[:0], b.decls)
	if declares(st, "animation:") || declares(st, "animation-name:") {
		a := animatedRule{decls: bytes.Clone(b.decls)}
		for k := j; k > 0 && r.animatedSubjects < maxAnimatedSubjects; k-- {
			a.subjects = append(a.subjects, r.blocks[k].own...)
			r.animatedSubjects += len(r.blocks[k].own)
			if !r.blocks[k].parent {
				break
			}
		}
		if r.animatedSubjects >= maxAnimatedSubjects {
			a.subjects = []sheetSubject{{kind: subjectAll}}
		}
		r.animated = append(r.animated, a)
	}
	switch v := styleValue(st, "display"); {
	case string(v) == "contents":
		r.addBlock(j, sheetContents)
		r.found = true
	case inlineBoxDisplay(v):
		r.addBlock(j, sheetBox)
		r.found = true
	}
	if lay := layoutDecls(st); len(lay) > 0 {
		r.addLayout(j, lay)
		r.found = true
	}
	if !hidingStyle(b.decls) {
		return
	}
	k := sheetDrawn
	if declares(st, "display:none") {
		k = sheetNotDrawn
	}
	r.addBlock(j, k)
	r.found = true
}

// layoutDecls returns the declarations of the compacted style st that
// may draw an element in another order than written, each ended by ';':
// a float to either side, an order other than 0, a reversed flex
// direction, a grid placement, a right-to-left direction, and a flex or
// grid display, which makes its children items.
func layoutDecls(st []byte) []byte {
	var out []byte
	for decl := range bytes.SplitSeq(st, []byte(";")) {
		name, v, ok := bytes.Cut(decl, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSuffix(v, []byte("!important"))
		keep := false
		switch string(name) {
		case "float":
			keep = string(v) != "none"
		case "order":
			keep = string(v) != "0"
		case "flex-direction", "flex-flow":
			keep = bytes.Contains(v, []byte("reverse"))
		case "grid-area", "grid-row", "grid-row-start", "grid-column", "grid-column-start":
			keep = true
		case "direction":
			keep = string(v) == "rtl"
		case "display":
			keep = bytes.Contains(v, []byte("flex")) || bytes.Contains(v, []byte("grid"))
		}
		if keep {
			out = append(append(out, decl...), ';')
		}
	}
	return out
}

// addLayout adds the layout declarations lay to what the open block j
// styles, and what its parents do when it says so.
func (r *sheetReader) addLayout(j int, lay []byte) {
	for ; j > 0; j-- {
		if r.h.layoutBytes > maxLayoutBytes {
			r.h.add([]sheetSubject{{kind: subjectAll}}, 0, lay) // see maxLayoutBytes
			return
		}
		b := &r.blocks[j]
		r.h.add(b.own, 0, lay)
		if !b.parent {
			return
		}
	}
}

// addBlock adds what the open block j styles, and what its parents do
// when it says so, as hidden the way k says; each block's subjects are
// added once for each kind.
func (r *sheetReader) addBlock(j int, k sheetHideKind) {
	for ; j > 0; j-- {
		b := &r.blocks[j]
		if b.added&k == k {
			return
		}
		b.added |= k
		r.h.add(b.own, k, nil)
		if !b.parent {
			return
		}
	}
}

// selectorSubjects returns what each selector of the list sel selects,
// kept by one simple selector of its subject (see sheetSubject), and
// whether one selects what the rule it is nested in selects ("&", when
// nested). A selector of a pseudo-element (::before, ::marker) styles a
// box of its own, not the element's text, and is left out.
func selectorSubjects(sel []byte, nested bool) (own []sheetSubject, parent bool) {
	depth := 0
	start := 0
	for i := 0; i <= len(sel); i++ {
		if i < len(sel) {
			switch sel[i] {
			case '\\':
				i += escapeLen(sel[i:]) - 1
				continue
			case '"', '\'':
				i = cssStringEnd(sel, i) - 1
				continue
			case '(', '[':
				depth++
				continue
			case ')', ']':
				depth = max(depth-1, 0)
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		sub, amp, ok := compoundSubject(lastCompound(sel[start:i]))
		start = i + 1
		switch {
		case !ok:
		case sub.kind == subjectAll && amp && nested:
			parent = true
		default:
			own = append(own, sub)
		}
	}
	return own, parent
}

// lastCompound returns the last compound selector of the complex
// selector sel: what follows its last combinator (white space, >, +, ~).
func lastCompound(sel []byte) []byte {
	sel = bytes.TrimSpace(sel)
	depth := 0
	start := 0
	for i := 0; i < len(sel); i++ {
		switch c := sel[i]; {
		case c == '\\':
			i += escapeLen(sel[i:]) - 1
		case c == '"' || c == '\'':
			i = cssStringEnd(sel, i) - 1
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth = max(depth-1, 0)
		case depth == 0 && (isCSSSpace(c) || c == '>' || c == '+' || c == '~'):
			start = i + 1
		}
	}
	return sel[start:]
}

// compoundSubject returns the simple selector the compound selector c is
// kept by (its id, else its first class, else its first attribute, else
// its element name, else any element), whether it has "&" (the
// element of the rule it is nested in), and ok false for a
// pseudo-element or for :empty, which selects elements without letters.
// :not(:defined), alone, selects the custom elements not yet defined,
// which have a hyphen in their names.
func compoundSubject(c []byte) (sub sheetSubject, amp, ok bool) {
	var tag, attr, class, id []byte
	undefined := false
	for i := 0; i < len(c); {
		switch ch := c[i]; {
		case ch == '&':
			amp = true
			i++
		case ch == '*':
			i++
		case ch == '|':
			tag = nil // ns|name: the name follows
			i++
		case ch == '.' || ch == '#':
			n := identLen(c[i+1:])
			if name, good := cssDecodeIdent(c[i+1 : i+1+n]); good {
				if ch == '.' && class == nil {
					class = name
				} else if ch == '#' && id == nil {
					id = name
				}
			}
			i += 1 + max(n, 1)
		case ch == '[':
			j := i + 1
			for j < len(c) && isCSSSpace(c[j]) {
				j++
			}
			n := identLen(c[j:])
			if name, good := cssDecodeIdent(c[j : j+n]); good && attr == nil {
				attr = name
			}
			i = j + skipTo(c[j:], ']')
		case ch == ':':
			if i+1 < len(c) && c[i+1] == ':' {
				return sheetSubject{}, amp, false
			}
			n := identLen(c[i+1:])
			name, _ := cssDecodeIdent(c[i+1 : i+1+n])
			switch string(name) {
			case "before", "after", "first-letter", "first-line":
				return sheetSubject{}, amp, false // the old spelling of pseudo-elements
			case "empty":
				return sheetSubject{}, amp, false
			}
			i += 1 + n
			if i < len(c) && c[i] == '(' {
				k := skipTo(c[i:], ')')
				if string(name) == "not" {
					arg, _ := cssDecodeIdent(bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(c[i+1:i+k-1]), []byte(":"))))
					undefined = undefined || string(arg) == "defined"
				}
				i += k
			}
		default:
			n := identLen(c[i:])
			if n == 0 {
				i++ // not a selector we know: over-read, as any element
				continue
			}
			if name, good := cssDecodeIdent(c[i : i+n]); good && tag == nil {
				tag = name
			}
			i += n
		}
	}
	switch {
	case id != nil:
		return sheetSubject{subjectID, string(id)}, amp, true
	case class != nil:
		return sheetSubject{subjectClass, string(class)}, amp, true
	case attr != nil:
		return sheetSubject{subjectAttr, string(attr)}, amp, true
	case tag != nil:
		return sheetSubject{subjectTag, string(tag)}, amp, true
	case undefined:
		return sheetSubject{kind: subjectCustom}, amp, true
	}
	return sheetSubject{kind: subjectAll}, amp, true
}

// identLen returns the length of the CSS identifier, escapes included,
// that s starts with.
func identLen(s []byte) int {
	i := 0
	for i < len(s) {
		switch {
		case s[i] == '\\':
			i += escapeLen(s[i:])
		case isCSSIdent(s[i]):
			i++
		default:
			return i
		}
	}
	return i
}

// escapeLen returns the length of the CSS escape that s starts with: a
// backslash and up to six hex digits and one white space, or any one
// character.
func escapeLen(s []byte) int {
	j := 1
	for j < len(s) && j <= 6 && isHex(s[j]) {
		j++
	}
	switch {
	case j == 1:
		j = min(2, len(s))
	case j < len(s) && isCSSSpace(s[j]):
		j++
	}
	return j
}

// skipTo returns the offset just past the first close in s outside
// strings and nested brackets, or len(s).
func skipTo(s []byte, close byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i += escapeLen(s[i:]) - 1
		case c == '"' || c == '\'':
			i = cssStringEnd(s, i) - 1
		case c == '(' || c == '[':
			if i > 0 {
				depth++
			}
		case c == ')' || c == ']':
			if depth == 0 && c == close {
				return i + 1
			}
			depth = max(depth-1, 0)
		}
	}
	return len(s)
}

// sheetHides returns how the page's style sheets may hide the current
// start tag's letters (see readSheets), or 0; and whether they may
// display it as contents (sheetContents) or as an inline box (sheetBox).
func (c *checker) sheetHides() sheetHideKind {
	var k sheetHideKind
	c.sheetMatches(func(e *sheetEntry) { k |= e.kind })
	if h := c.sheet; h != nil && len(h.frames) > 0 {
		if style, ok := c.attr("style"); ok && containsFold(style, "animation") && runsAny(style, h.frames) {
			k |= sheetDrawn
		}
	}
	return k
}

// sheetLayout appends to dst the declarations of the page's style sheets
// that may draw the current start tag in another order (see
// layoutDecls): a float, an order, a reversed flex direction, a grid
// placement, a direction.
func (c *checker) sheetLayout(dst []byte) []byte {
	c.sheetMatches(func(e *sheetEntry) { dst = append(dst, e.layout...) })
	return dst
}

// sheetMatches calls fn with each entry of the page's style sheets that
// the current start tag may match (see readSheets), which it reads when
// first asked.
func (c *checker) sheetMatches(fn func(e *sheetEntry)) {
	if !c.sheetRead {
		// Read when the first element in a label asks, as most
		// pages' labels have none.
		c.sheetRead = true
		c.sheet = readSheets(c.src)
	}
	h := c.sheet
	if h == nil {
		return
	}
	fn(&h.all)
	if e := h.tags[string(c.name)]; e != nil {
		fn(e)
	}
	if bytes.IndexByte(c.name, '-') >= 0 {
		fn(&h.custom)
	}
	var buf [64]byte
	if len(h.ids) > 0 {
		if v, ok := c.attr("id"); ok {
			if e := h.ids[string(appendLowerASCII(buf[:0], bytes.TrimSpace(v)))]; e != nil {
				fn(e)
			}
		}
	}
	if len(h.classes) > 0 {
		if v, ok := c.attr("class"); ok {
			for f := range bytes.FieldsSeq(v) {
				if e := h.classes[string(appendLowerASCII(buf[:0], f))]; e != nil {
					fn(e)
				}
			}
		}
	}
	if len(h.attrs) > 0 {
		for _, a := range c.attrs {
			if e := h.attrs[string(a.key)]; e != nil {
				fn(e)
			}
		}
	}
}

// appendLowerASCII appends s to dst with ASCII letters lower-cased: class
// names and ids match case-insensitively in quirks mode.
func appendLowerASCII(dst, s []byte) []byte {
	for _, b := range s {
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		dst = append(dst, b)
	}
	return dst
}

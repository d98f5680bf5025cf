package htmlcheck

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

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
type sheetHideKind = uint64

const (
	sheetDrawn       sheetHideKind = 1 << iota // laid out, not seen: font-size:0, color:transparent, visibility:hidden, …
	sheetNotDrawn                              // display:none
	sheetContents                              // not hiding: display:contents, a box that isolates nothing (see dirControls)
	sheetBox                                   // not hiding: an inline box (see atomicInline)
	sheetResettable                            // hides only by properties a child may set again (see reshow.go)
	sheetResets                                // sets one of those so that letters show (see reshow.go)
	sheetByColour                              // hides by a clear colour only (see sheetHidesLetters)
	sheetOtherHide                             // hides by other means
	sheetClipText                              // clips its background to its letters
	sheetFirstLetter                           // hides its first letter (::first-letter)
	sheetStarting                              // hides as a @starting-style rule: until a transition ends (see sheetHiding.longTransitions)
	// and, from fadeShift on, the kinds of fade.go: hides only by
	// properties an animation may show again, and the animations that do.

	sheetHidden = sheetDrawn | sheetNotDrawn

	// sheetBoxImportant: an inline box by a declaration !important (see
	// atomicInline), past the kinds of fade.go.
	sheetBoxImportant sheetHideKind = 1 << 40
	// sheetFirstLine: hides its first line (::first-line).
	sheetFirstLine sheetHideKind = 1 << 41
)

// sheetHiding is what the page's style sheets may hide (see above), and
// how they may lay elements out.
type sheetHiding struct {
	ids, classes, attrs, tags map[string]*sheetEntry // keys lower-cased
	all                       sheetEntry             // a rule whose subject names none of them (*, :not(.x), :is(.x))
	custom                    sheetEntry             // a rule for custom elements not yet defined (:not(:defined))
	frames                    map[string]uint8       // the names of @keyframes rules that hide (see frameFinal), which an inline style may run
	layoutBytes               int                    // of layout, over all entries
	varPx                     map[string]float64     // the custom properties that hold a length, in pixels (see pageVars)
	varClear                  map[string]bool        // and those that hold a clear colour
	varDefs                   map[string][][]byte    // every value each custom property is given, compacted (see expandVars)
	expanded                  int                    // bytes expandVars wrote
	tweaked                   bool                   // a rule or inline style sets an animation's longhand so that it may run long (see animationLengthens)
	fillTweaked               bool                   // or sets its fill mode to other than forwards
	noRestores                bool                   // the page has a shadow root: no animation shows again what a rule hides (see fade.go)
	fades                     bool                   // a rule hides by fadeKind
	firstLetter               bool                   // a rule hides by sheetFirstLetter
	restoring                 map[string]fadeSet     // the @keyframes rules, by name as written, whose last frame shows fadeGroups again (see fade.go)
	exact                     []exactCompound        // the rules of exact selectors whose animations show fadeGroups again
	exactIndex                map[string][]int       // and their indexes in exact, by exactKey
	longTransitions           bool                   // a rule or style attribute sets a transition that may last or wait long (see transitionsLong)
	animVars                  animVars               // the values of custom properties as written, for var() in animations
}

// maxVarsBytes bounds the custom property declarations pageVars reads.
const maxVarsBytes = 64 << 10

// pageVars returns the custom properties that the style sheets declare
// with a length, also through var() of another, or as the initial value
// of an @property rule, in pixels; where one is declared more than once,
// the least, since any of them may apply (a:--z:0px styles the link, and
// .h{font-size:var(--z)} inherits it).
func pageVars(sheets [][]byte, unsure []bool, defs map[string][][]byte, anim *animVars) (map[string]float64, map[string]bool) {
	size := 0
	for _, vs := range defs {
		for _, v := range vs {
			size += len(v)
		}
	}
	for i, sheet := range sheets {
		eachDecl(sheet, func(preludes [][]byte, deep bool, decl []byte) {
			name, v, ok := bytes.Cut(decl, []byte(":"))
			if !ok {
				return
			}
			if size > maxVarsBytes {
				anim.cut = true
				return
			}
			name = bytes.TrimSpace(name)
			pname, property := propertyRule(preludes[len(preludes)-1])
			if property {
				name = pname
			}
			if !bytes.HasPrefix(name, []byte("--")) {
				return
			}
			switch {
			case property:
				// It may not inherit: what an ancestor gives it is
				// not followed into an animation.
				anim.add(name, nil, false)
			default:
				anim.add(name, v, !unsure[i] && !deep && onRoot(preludes))
			}
			if property && !asciiEqualFold(bytes.TrimSpace(decl[:bytes.IndexByte(decl, ':')]), "initial-value") {
				return
			}
			size += len(decl)
			defs[string(name)] = append(defs[string(name)], compactStyle(nil, v))
		})
	}
	if len(defs) == 0 {
		return nil, nil
	}
	clear := map[string]bool{}
	for name, vs := range defs {
		for _, v := range vs {
			if clearColour(v) {
				clear[name] = true // any of them may be the one drawn
			}
		}
	}
	px := map[string]float64{}
	tried := map[string]bool{} // each name is resolved once, cycles too
	var resolve func(name string, depth int) (float64, bool)
	resolve = func(name string, depth int) (float64, bool) {
		if v, ok := px[name]; ok {
			return v, true
		}
		if tried[name] || depth > maxSizeDepth {
			return 0, false
		}
		tried[name] = true
		least, found := 0.0, false
		for _, def := range defs[name] {
			// The custom properties it refers to, resolved.
			st := appendVarDecls(nil, def, func(ref string) (float64, bool) { return resolve(ref, depth+1) })
			if v, ok := cssSize(def, st); ok && (!found || v < least) {
				least, found = v, true
			}
		}
		if found {
			px[name] = least
		}
		return least, found
	}
	for name := range defs {
		resolve(name, 0)
	}
	return px, clear
}

// hasNamespace reports whether the style sheet s has a @namespace rule,
// however spelt.
func hasNamespace(s []byte) bool {
	for i := bytes.IndexByte(s, '@'); i >= 0; {
		raw := s[i+1 : i+1+identLen(s[i+1:])]
		if name, ok := cssDecodeIdent(raw); ok && asciiEqualFold(name, "namespace") {
			return true
		}
		j := bytes.IndexByte(s[i+1:], '@')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// withoutCDO returns the prelude p trimmed, without the <!-- and -->
// before it, which CSS reads past at the top level of a sheet.
func withoutCDO(p []byte) []byte {
	for {
		p = cssTrim(p)
		switch {
		case bytes.HasPrefix(p, []byte("<!--")):
			p = p[len("<!--"):]
		case bytes.HasPrefix(p, []byte("-->")):
			p = p[len("-->"):]
		default:
			return p
		}
	}
}

// layerName reports whether s is what a @layer block may name: nothing,
// or one name of identifiers joined by dots (a.b).
func layerName(s []byte) bool {
	if len(s) == 0 {
		return true
	}
	for part := range bytes.SplitSeq(s, []byte(".")) {
		if len(part) == 0 || part[0] >= '0' && part[0] <= '9' || identLen(part) != len(part) {
			return false
		}
	}
	return true
}

// propertyRule returns the name of the custom property that an
// @property rule of this prelude registers (as written, escapes kept),
// reading the rule as CSS does: its keyword in any case or escaped, a
// comment parting tokens; ok is false for another prelude.
func propertyRule(prelude []byte) (name []byte, ok bool) {
	p := prelude
	if bytes.Contains(p, []byte("/*")) {
		p = replaceCSSComments(p, " ")
	}
	if p = cssTrim(p); len(p) == 0 || p[0] != '@' {
		return nil, false
	}
	raw := p[1 : 1+identLen(p[1:])]
	keyword := raw
	if d, ok := cssDecodeIdent(raw); ok {
		keyword = d
	}
	if !asciiEqualFold(keyword, "property") {
		return nil, false
	}
	return cssTrim(p[1+len(raw):]), true
}

// eachDecl calls fn with each declaration of the style sheet s (the text
// between '{' or ';' and ';' or '}') and the preludes of the blocks it
// is in, outermost first (the first maxSheetDepth of them; deep says
// there were more).
func eachDecl(s []byte, fn func(preludes [][]byte, deep bool, decl []byte)) {
	var preludes [][]byte
	depth := 0 // blocks open
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i += escapeLen(s[i:]) - 1
		case '"', '\'':
			i = cssStringEnd(s, i) - 1
		case '/':
			if i+1 < len(s) && s[i+1] == '*' {
				e := bytes.Index(s[i+2:], []byte("*/"))
				if e < 0 {
					return
				}
				i += e + 3
			}
		case '{':
			if len(preludes) < maxSheetDepth {
				preludes = append(preludes, bytes.TrimSpace(s[start:i]))
			}
			depth++
			start = i + 1
		case ';', '}':
			if len(preludes) > 0 {
				fn(preludes, depth > len(preludes), bytes.TrimSpace(s[start:i]))
			}
			if s[i] == '}' && depth > 0 {
				if depth <= len(preludes) {
					preludes = preludes[:len(preludes)-1]
				}
				depth--
			}
			start = i + 1
		}
	}
}

// withPageVars returns decls after the declarations, in pixels, of the
// custom properties of the page (varPx) that it refers to with var(), so
// that its own declarations, after them, take precedence.
func (h *sheetHiding) withPageVars(decls []byte) []byte {
	if len(h.varPx) == 0 && len(h.varClear) == 0 {
		return decls
	}
	var out []byte
	eachVarRef(decls, func(ref []byte) {
		if h.varClear[string(ref)] && !bytes.Contains(out, []byte(string(ref)+":")) {
			out = append(append(out, ref...), ":transparent;"...)
		}
	})
	out = appendVarDecls(out, decls, func(ref string) (float64, bool) {
		v, ok := h.varPx[ref]
		return v, ok
	})
	if out == nil {
		return decls
	}
	return append(out, decls...)
}

// appendVarDecls appends to dst a declaration "--name:Npx;" for each
// custom property that decls refers to with var() and px gives a length
// for.
func appendVarDecls(dst, decls []byte, px func(name string) (float64, bool)) []byte {
	eachVarRef(decls, func(ref []byte) {
		if v, ok := px(string(ref)); ok {
			dst = strconv.AppendFloat(append(append(dst, ref...), ':'), v, 'f', -1, 64)
			dst = append(dst, "px;"...)
		}
	})
	return dst
}

// eachVarRef calls fn with the name of each custom property that decls
// refers to with var().
func eachVarRef(decls []byte, fn func(ref []byte)) {
	for rest := decls; ; {
		i := bytes.Index(rest, []byte("var("))
		if i < 0 {
			return
		}
		rest = rest[i+len("var("):]
		ref, _, _ := bytes.Cut(rest, []byte(")"))
		ref, _, _ = bytes.Cut(ref, []byte(","))
		fn(bytes.TrimSpace(ref))
	}
}

// sheetEntry is what the rules kept by one simple selector do: those
// that ask nothing more of an element, and those that do (needs).
type sheetEntry struct {
	kind sheetHideKind
	// layout are the declarations of those rules that draw elements in
	// another order (see layoutDecls), compacted, each ended by ';'.
	layout []byte
	needs  []sheetNeed
}

// sheetNeed is a rule of a sheetEntry that asks more of an element.
type sheetNeed struct {
	need   *compound
	kind   sheetHideKind
	layout []byte
}

// maxLayoutBytes bounds sheetHiding.layoutBytes. Past it, which
// elements the rules lay out is not followed: every element may float
// to the right, which reads each label of several elements in reverse.
const maxLayoutBytes = 256 << 10

// sheetSubject is the simple selector a rule's subject is kept by, and
// the rest of what its compound asks of an element (need), if anything.
type sheetSubject struct {
	kind uint8 // one of subject*
	name string
	need *compound
	// firstLetter: the rule styles the element's ::first-letter, which
	// hides that letter only (sheetFirstLetter) where it hides.
	firstLetter bool
	// firstLine: its ::first-line, which hides the letters of its first
	// line (sheetFirstLine) where it hides.
	firstLine bool
}

// compound is what a compound selector asks of an element that
// sheetMatches can tell: its name, ids, classes and attributes, and
// none of the simple selectors in a :not() (lower-cased). Pseudo-classes
// and attribute values are not followed: an element may match them.
type compound struct {
	tag                                   string
	ids, classes, attrs                   []string
	notTags, notIDs, notClasses, notAttrs []string
}

// maxEntryNeeds bounds the rules with needs that one sheetEntry keeps;
// past it, a rule counts for any element its simple selector keeps.
const maxEntryNeeds = 32

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
	if indexFold(src, "<style") < 0 && !bytes.Contains(src, []byte("var(")) {
		return nil // no sheet, and no custom property an inline style reads
	}
	h := &sheetHiding{}
	found := false
	var animated []animatedRule // rules that run an animation, in case its @keyframes hides
	hidingFrames := map[string]uint8{}
	doc := &docNames{classes: map[string]bool{}, ids: map[string]bool{}}
	var sheets [][]byte
	// unsure: the sheets of the same index that may not apply on every
	// screen (see sheetBlock.sure): in a <template>, of another type or
	// for some media only.
	var unsure []bool
	templates := 0                      // <template> elements open
	maths := 0                          // <math> elements open
	inlineDefs := map[string][][]byte{} // custom properties of style attributes
	z := html.NewTokenizer(bytes.NewReader(src))
	foreign := 0          // <svg> and <math> elements open
	var text []byte       // the text so far of a <style> in SVG or MathML
	foreignStyle := false // in one
	foreignMaybe := false // and it may not apply (see unsure)
	styleDepth := 0       // elements open in it: only its own text is CSS
	for {
		z.AllowCDATA(foreign > 0)
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			printMedia, maybe := false, templates > 0
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "class":
					for f := range bytes.FieldsSeq(v) {
						doc.classes[string(lowerASCII(f))] = true
					}
				case "id":
					doc.ids[string(lowerASCII(bytes.TrimSpace(v)))] = true
				case "media":
					printMedia = printOnly(v)
					switch q := string(lowerASCII(bytes.TrimSpace(v))); q {
					case "", "all", "screen":
					default:
						maybe = true
					}
				case "type":
					// Exactly: " text/css" is not a style sheet.
					if len(v) > 0 && !asciiEqualFold(v, "text/css") {
						maybe = true
					}
				case "shadowrootmode":
					// Rules of the page do not style a shadow tree, nor
					// its rules the page: where they show again is
					// not followed.
					h.noRestores = true
				case "style":
					if containsFold(v, "animation-") || containsFold(v, "transition") || bytes.IndexByte(v, '\\') >= 0 { // anim\61tion-delay
						var b [256]byte
						st := compactStyle(b[:0], v)
						l, f := animationLengthens(st)
						h.tweaked, h.fillTweaked = h.tweaked || l, h.fillTweaked || f
						h.longTransitions = h.longTransitions || transitionsLong(v)
					}
					if bytes.Contains(v, []byte("--")) {
						addInlineDefs(inlineDefs, v)
						h.animVars.addInline(v)
					}
				}
			}
			switch {
			case foreignStyle:
				if tt == html.StartTagToken {
					styleDepth++
				}
			case string(name) == "template" && foreign == 0:
				if tt == html.StartTagToken {
					templates++
				}
			case string(name) == "svg" || string(name) == "math":
				if tt == html.StartTagToken {
					foreign++
					if string(name) == "math" {
						maths++
					}
				}
			case string(name) == "style":
				switch {
				case foreign > 0 && tt == html.SelfClosingTagToken:
					z.NextIsNotRawText()
				case foreign > 0:
					z.NextIsNotRawText()
					foreignStyle, text, styleDepth = true, text[:0], 0
					foreignMaybe = maybe || maths > 0 // MathML's <style> is no style sheet
				default:
					if z.Next() == html.TextToken && !printMedia {
						sheets = append(sheets, bytes.Clone(z.Text()))
						unsure = append(unsure, maybe)
					}
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch {
			case foreignStyle && string(name) == "style" && styleDepth == 0:
				sheets = append(sheets, bytes.Clone(text))
				unsure = append(unsure, foreignMaybe)
				foreignStyle = false
			case foreignStyle:
				styleDepth = max(styleDepth-1, 0)
			case string(name) == "svg" || string(name) == "math":
				foreign = max(foreign-1, 0)
				if string(name) == "math" {
					maths = max(maths-1, 0)
				}
			case string(name) == "template" && foreign == 0:
				templates = max(templates-1, 0)
			}
		case html.TextToken:
			if foreignStyle && styleDepth == 0 {
				// The style sheet of an SVG <style> is its own text,
				// not its children's (docs/security.md, row 952).
				text = append(text, z.Text()...)
			}
		}
	}
	if foreignStyle {
		sheets = append(sheets, text)
		unsure = append(unsure, foreignMaybe)
	}
	h.varDefs = inlineDefs
	h.varPx, h.varClear = pageVars(sheets, unsure, h.varDefs, &h.animVars)
	for i, sheet := range sheets {
		// A default @namespace takes the sheet's selectors out of HTML's
		// elements: what it may show again is not followed.
		s := sheetReader{h: h, doc: doc, unsure: unsure[i] || hasNamespace(sheet)}
		s.read(sheet)
		found = found || s.found
		animated = append(animated, s.animated...)
		for name, k := range s.hidingFrames {
			hidingFrames[name] |= k
		}
	}
	for _, a := range animated {
		// An animation that runs a @keyframes rule that hides may stay
		// on its last frame (animation-fill-mode: forwards).
		if len(hidingFrames) > 0 {
			if hides, gone := animationHides(a.decls, hidingFrames, h.tweaked, h.animVars.hidingVariants); hides {
				k := sheetDrawn
				if !gone {
					k |= sheetResettable
				}
				h.add(a.subjects, k, nil)
				found = true
			}
		}
		// And one whose last frame shows may show what a rule hides
		// (see fade.go), or a style attribute (see inlineFadeShows).
		if h.fades || len(h.restoring) > 0 {
			var g fadeSet
			if !h.tweaked && !h.fillTweaked && !h.noRestores {
				g = animationRestores(a.decls, h.restoring, h.animVars.variants)
			}
			h.add(a.subjects, animatedKind(g, a.fades), nil)
			if g != 0 {
				for _, c := range a.exact {
					h.addExactRestore(c, g)
				}
			}
		}
	}
	if !found && len(hidingFrames) == 0 && len(h.varDefs) == 0 && len(h.restoring) == 0 {
		return nil // (restoring: a style attribute's fade-in, see inlineFadeShows)
	}
	h.frames = hidingFrames
	return h
}

// add records that the subjects subs may be hidden the way k says, and
// laid out by the declarations layout.
func (h *sheetHiding) add(subs []sheetSubject, k sheetHideKind, layout []byte) {
	for _, s := range subs {
		if s.firstLine {
			if k&(sheetHidden|sheetFades|sheetSelves|sheetStarting) == 0 {
				continue
			}
			s.firstLine = false
			h.add([]sheetSubject{s}, sheetFirstLine, nil)
			h.firstLetter = true
			continue
		}
		if s.firstLetter {
			if k&(sheetHidden|sheetFades|sheetSelves|sheetStarting) == 0 {
				continue // it lays out or shows only the letter
			}
			s.firstLetter = false
			h.add([]sheetSubject{s}, sheetFirstLetter, nil)
			h.firstLetter = true
			continue
		}
		e := h.entry(s)
		if len(layout) > 0 {
			if h.layoutBytes += len(layout); h.layoutBytes > maxLayoutBytes {
				if len(h.all.layout) == 0 {
					h.all.layout = []byte("float:right;")
				}
				layout = nil
			}
		}
		if s.need != nil && len(e.needs) < maxEntryNeeds {
			e.needs = append(e.needs, sheetNeed{s.need, k, layout})
			continue
		}
		e.kind |= k
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

// docNames are the classes and ids of the page's elements, lower-cased.
type docNames struct{ classes, ids map[string]bool }

// printOnly reports whether the media query list q applies only to
// print ("print", "only print and (…)"), not to a screen.
func printOnly(q []byte) bool {
	q = bytes.ToLower(q)
	return bytes.Contains(q, []byte("print")) && !bytes.Contains(q, []byte("screen")) &&
		!bytes.Contains(q, []byte("all")) && !bytes.Contains(q, []byte("not")) && !bytes.Contains(q, []byte(","))
}

// sheetReader reads one style sheet's blocks.
type sheetReader struct {
	h            *sheetHiding
	doc          *docNames // nil: every class and id may be on the page
	found        bool
	hidingFrames map[string]uint8 // the names of @keyframes rules that hide, lower-cased and unescaped (see frameFinal)
	animated     []animatedRule
	// animatedRule is the rule of animated that classify reads, if any.
	animatedRule *animatedRule
	unsure       bool // the sheet may not apply on every screen (see sheetBlock.sure)
	// animatedSubjects counts the subjects of animated.
	animatedSubjects int
	blocks           []sheetBlock // the blocks open
}

// animatedRule is a rule that runs an animation.
type animatedRule struct {
	subjects []sheetSubject
	decls    []byte // its declarations
	// exact: its selectors, when they select exactly the elements it
	// styles, on every screen (see sheetBlock.exact).
	exact []exactCompound
	fades fadeSet // what it hides by (see fadeHides), which its own animation may show again
}

// How a @keyframes rule hides: on its last frame (to, 100%), where an
// animation with fill-mode forwards stays; or on another frame only, as
// a fade-in does for a moment.
const (
	frameFinal uint8 = 1 << iota
	frameSome
	frameGone // and not only by properties a child may set again (see reshow.go)
)

// longAnimation is the time, in seconds, from which an animation that
// hides on a frame before its last (or during its delay) keeps letters
// out of sight long enough to read the rest as a call to download.
const longAnimation = 2

// animationHides reports whether the animation declarations in decls
// run one of the animations frames (names lower-cased and unescaped) that
// hides: on its last frame; or on another unless it runs as a fade-in
// does (a duration and delay under longAnimation, written plainly, once,
// forwards, not paused, nor tweaked by a rule of its own anywhere on the
// page: tweaked); and whether one of them hides for good, not only by
// properties a child may set again. A value with var() is read as each
// value that vars says it may take (see animVars.hidingVariants); where
// vars cannot say, any of frames may run, and not as a fade-in.
func animationHides(decls []byte, frames map[string]uint8, tweaked bool, vars func([]byte) ([][]byte, bool)) (hides, gone bool) {
	var k uint8
	long := tweaked
	for decl := range bytes.SplitSeq(decls, []byte(";")) {
		prop, v, ok := bytes.Cut(decl, []byte(":"))
		prop = bytes.TrimPrefix(bytes.ToLower(bytes.TrimSpace(prop)), []byte("-webkit-"))
		if !ok || !bytes.HasPrefix(prop, []byte("animation")) {
			continue
		}
		if string(prop) != "animation" && string(prop) != "animation-name" && string(prop) != "animation-fill-mode" {
			long = true // a duration, delay, direction, timing or state of its own
		}
		values := [][]byte{v}
		if unread := unreadValue(compactStyle(nil, v)); unread || containsFold(v, "var(") ||
			bytes.IndexByte(v, '\\') >= 0 && containsFold(cssUnescape(nil, v), "var(") {
			var ok bool
			if !unread && bytes.IndexByte(v, '\\') < 0 && bytes.Contains(v, []byte("var(")) {
				values, ok = vars(v)
			}
			for _, x := range values {
				ok = ok && !unreadValue(compactStyle(nil, x)) // --a:--n()
			}
			if !ok { // VAR(), v\61r(), a custom function, attr(), or a value not followed
				for _, f := range frames {
					k |= f
				}
				long = true
				continue
			}
		}
		for _, v := range values {
			long = animationScan(bytes.ToLower(v), frames, &k) || long
		}
	}
	return k&frameFinal != 0 || k&frameSome != 0 && long, k&frameGone != 0
}

// animationScan adds to k how the frames that the animation value v
// (lower-cased) names hide, and reports whether it runs long or on a
// frame other than the last (see animationHides).
func animationScan(v []byte, frames map[string]uint8, k *uint8) (long bool) {
	if v = withoutTimingFunctions(v); bytes.ContainsAny(v, "()") {
		long = true // calc(), steps(), cubic-bezier(): not followed
	}
	for i := 0; i < len(v); {
		if n := numberEnd(v[i:]); n > 0 && (i == 0 || !isCSSIdent(v[i-1])) {
			f, _ := strconv.ParseFloat(string(v[i:i+n]), 64)
			rest := v[i+n:]
			switch {
			case bytes.HasPrefix(rest, []byte("ms")):
				long = long || f >= longAnimation*1000
			case len(rest) > 0 && rest[0] == 's':
				long = long || f >= longAnimation
			default:
				long = long || f != 1 // an iteration count: stops mid-way, or runs back
			}
			i += n
			continue
		}
		n := identLen(v[i:])
		if n == 0 {
			i++
			continue
		}
		if name, ok := cssDecodeIdent(v[i : i+n]); ok {
			*k |= frames[string(name)]
			switch string(name) {
			case "infinite", "paused", "reverse", "alternate", "alternate-reverse":
				long = true // drawn on a frame other than the last
			}
		}
		i += n
	}
	return long
}

// finalFrame reports whether the keyframe selector list sel has the last
// frame (to, 100%), or as good as.
func finalFrame(sel []byte) bool {
	for one := range bytes.SplitSeq(sel, []byte(",")) {
		one = bytes.ToLower(bytes.TrimSpace(one))
		if f, ok := cssFraction(one); string(one) == "to" || ok && bytes.HasSuffix(one, []byte("%")) && f >= 0.99 {
			return true
		}
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
	frame     []byte        // and the frame's selector (from, to, 50%)
	skip      bool          // inside an at-rule whose declarations style no element (@font-face, @page, …), or at the top level
	decls     []byte        // its declarations so far, each ended by ';'
	added     sheetHideKind // what of its subjects' hiding is added already (see addBlock)
	// sure: its rules apply on every screen (the top level, @layer);
	// exact: and it is a rule whose selectors select exactly the
	// elements it styles (see exactSelectorList).
	sure  bool
	exact []exactCompound
	// starting: in @starting-style, which hides only until a
	// transition ends (sheetStarting).
	starting bool
	// inRule: in a style rule (or in an at-rule nested in one), where
	// CSS takes no @keyframes.
	inRule bool
	// A @keyframes rule's block has its name as written (kfName) and
	// what its last frames show (see frameShows).
	kf                   bool
	kfName               string
	lastShows, lastHides fadeSet
}

// maxAnimatedSubjects bounds the subjects kept for the rules that run an
// animation (see readSheets); past it, an animation may hide any element.
const maxAnimatedSubjects = 1 << 16

// read reads the style sheet s: each block's declarations, and the
// selectors (or at-rule) before it.
func (r *sheetReader) read(s []byte) {
	r.blocks = append(r.blocks[:0], sheetBlock{skip: true, sure: !r.unsure})
	deeper := 0    // blocks open past maxSheetDepth
	start := 0     // where the current declaration or prelude starts
	stray := false // a '}' at the top level: CSS reads it as the start of a rule's prelude, and drops that rule
	// closers are the brackets that a '(' or '[' opens (and the '{'
	// inside them): until they close, CSS reads ';', '{' and '}' as part
	// of the value or prelude ("--s:(" takes the rest of the sheet).
	var closers cssBrackets
	for i := 0; i < len(s); {
		if c := s[i]; c == '\\' || c == '"' || c == '\'' || c == '/' {
			if j := cssSkip(s, i); j > i {
				i = j // an escape, a string or a comment
				continue
			}
		}
		if len(closers) > 0 || s[i] == '(' || s[i] == '[' {
			closers.feed(s[i])
			i++
			continue
		}
		switch s[i] {
		case ';':
			if len(r.blocks) == 1 && deeper == 0 {
				// At the top level, ';' ends an at-rule without a block
				// (@layer a, b;); before anything else it is part of a
				// rule's prelude, and CSS drops that rule (.a{};@keyframes).
				if p := withoutCDO(s[start:i]); len(p) > 0 && p[0] == '@' {
					start = i + 1
				}
				break
			}
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
			b := sheetBlock{keyframes: parent.keyframes, skip: parent.skip, sure: parent.sure, starting: parent.starting, inRule: parent.inRule}
			prelude := cssTrim(s[start:i]) // CSS's white space: U+00A0 is a letter
			if bytes.Contains(prelude, []byte("/*")) {
				// A comment parts an at-rule's tokens (@keyframes/**/f
				// is f's), not a selector's (/**/to, .a/**/.b).
				if prelude = cssTrim(stripCSSComments(prelude)); len(prelude) > 0 && prelude[0] == '@' {
					prelude = cssTrim(replaceCSSComments(cssTrim(s[start:i]), " "))
				}
			}
			top := len(r.blocks) == 1
			if top {
				prelude = withoutCDO(prelude) // <!--.h{…}: CSS reads past <!-- and --> between rules
			}
			switch {
			case top && (stray || bytes.IndexByte(prelude, ';') >= 0):
				// }@keyframes f{…}, ;@keyframes f{…} or x;.a{…}: a rule
				// of an invalid selector, dropped with all it holds.
				stray, b.skip = false, true
			case !top && (parent.keyframes != nil || parent.skip):
				// A keyframe's selector (from, 50%), or a block in a
				// descriptor list.
				b.frame = prelude
			case len(prelude) > 0 && prelude[0] == '@':
				rawName := prelude[1 : 1+identLen(prelude[1:])] // escapes too
				name := rawName
				if d, ok := cssDecodeIdent(rawName); ok {
					name = d // @\6b eyframes is @keyframes
				}
				b.skip = false
				switch {
				case (asciiEqualFold(name, "keyframes") || asciiEqualFold(name, "-webkit-keyframes")) && parent.inRule:
					b.skip = true // dropped: CSS nests no @keyframes in a style rule
				case asciiEqualFold(name, "keyframes") || asciiEqualFold(name, "-webkit-keyframes"):
					b.keyframes, b.kf = []byte{}, true
					b.sure = b.sure && !parent.parent && len(parent.own) == 0
					raw := bytes.Trim(cssTrim(prelude[1+len(rawName):]), `"'`)
					if n, ok := cssDecodeIdent(raw); ok {
						b.keyframes = bytes.Clone(n)
						if bytes.IndexByte(raw, '\\') < 0 {
							b.kfName = string(raw) // as written: animations name it so
						}
					}
				case asciiEqualFold(name, "media") && printOnly(prelude[1+len(rawName):]):
					b.skip = true // not drawn on a screen
				case asciiEqualFold(name, "starting-style"):
					// The style a transition starts from, once: it hides
					// only while the transition lasts (sheetStarting).
					b.starting, b.parent = true, !top
				case asciiEqualFold(name, "font-face"), asciiEqualFold(name, "page"), asciiEqualFold(name, "property"),
					asciiEqualFold(name, "counter-style"), asciiEqualFold(name, "font-feature-values"),
					asciiEqualFold(name, "font-palette-values"), asciiEqualFold(name, "view-transition"),
					asciiEqualFold(name, "position-try"):
					b.skip = true
				case asciiEqualFold(name, "layer") && !layerName(cssTrim(prelude[1+len(rawName):])):
					b.skip = true // @layer a b{…}, @layer a, b{…}: dropped
				default:
					// @media, @supports, @layer, @container, @scope,
					// @starting-style, …: their rules apply as if
					// outside, and declarations directly in them style
					// the rule they are nested in.
					b.parent = !top
					b.sure = b.sure && asciiEqualFold(name, "layer") && !parent.parent && len(parent.own) == 0
				}
			default:
				b.skip, b.inRule = false, true
				b.own, b.parent = selectorSubjects(prelude, !top, r.doc)
				b.sure = b.sure && !parent.parent && len(parent.own) == 0
				if b.sure {
					b.exact = exactSelectorList(prelude)
				}
			}
			r.blocks = append(r.blocks, b)
			start = i + 1
		case '}':
			if deeper > 0 {
				// Its last declaration counts for the block it is in.
				b := &r.blocks[len(r.blocks)-1]
				if !b.skip {
					b.decls = append(append(b.decls, s[start:i]...), ';')
				}
				deeper--
			} else if len(r.blocks) > 1 {
				r.blocks[len(r.blocks)-1].decls = append(r.blocks[len(r.blocks)-1].decls, s[start:i]...)
				r.close()
			} else {
				stray = true
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
	if b.kf {
		// What its last frames show again, if they surely apply; a
		// name defined again shows what both definitions show.
		if b.kfName != "" && !reservedNames[string(lowerASCII([]byte(b.kfName)))] {
			var g fadeSet
			if b.sure {
				g = b.lastShows &^ b.lastHides
			}
			old, ok := r.h.restoring[b.kfName]
			switch {
			case ok:
				r.h.restoring[b.kfName] = g & old
			case g != 0:
				if r.h.restoring == nil {
					r.h.restoring = map[string]fadeSet{}
				}
				r.h.restoring[b.kfName] = g
			}
		}
		return
	}
	if b.skip || len(bytes.TrimSpace(b.decls)) == 0 {
		return
	}
	rawVar := bytes.Contains(b.decls, []byte("var("))
	raw := b.decls
	if rawVar && (b.keyframes != nil || r.h.expanded > maxExpandedAll) {
		// Keyframes, and rules past the expansions' bound, read var()
		// by the values in pixels and clear colours (rules are
		// otherwise expanded: see expandVars).
		b.decls = r.h.withPageVars(b.decls)
	}
	if b.keyframes != nil {
		hides := len(b.keyframes) > 0 && hidingStyle(b.decls)
		if rawVar && !hides && len(b.keyframes) > 0 && r.h.expanded <= maxExpandedAll {
			// And by each value the page gives (visibility:var(--v)
			// with --v:hidden).
			for _, v := range r.h.expandVars(compactStyle(nil, raw)) {
				hides = hides || hidingStyle(v)
			}
		}
		if j > 1 && r.blocks[j-1].kf && (containsFold(raw, "animation") || bytes.IndexByte(raw, '\\') >= 0 || bytes.IndexByte(b.frame, '\\') >= 0) {
			// A timing function in a keyframe (linear(0, 0) never
			// leaves its frame): not followed.
			r.blocks[j-1].lastHides = allFades
		}
		if j > 1 && r.blocks[j-1].kf && lastFrame(b.frame) {
			// What the last frame shows again (see fade.go): nothing
			// where it hides, as an animation that runs it then hides.
			kb := &r.blocks[j-1]
			if hides || rawVar {
				kb.lastHides = allFades
			} else {
				shows, other := frameShows(raw)
				kb.lastShows, kb.lastHides = kb.lastShows|shows, kb.lastHides|other
			}
		}
		if hides {
			if r.hidingFrames == nil {
				r.hidingFrames = map[string]uint8{}
			}
			k := frameSome
			var buf [256]byte
			if g, _, _ := styleVisibility(b.decls, compactStyle(buf[:0], b.decls)); g {
				k |= frameGone
			}
			if finalFrame(b.frame) {
				k = k&^frameSome | frameFinal // the last frame, or as good as
			}
			r.hidingFrames[string(b.keyframes)] |= k
		}
		return
	}
	var buf [256]byte
	st := compactStyle(buf[:0], b.decls)
	if bytes.Contains(st, []byte("animation-")) {
		l, f := animationLengthens(st)
		r.h.tweaked, r.h.fillTweaked = r.h.tweaked || l, r.h.fillTweaked || f
	}
	if bytes.Contains(st, []byte("transition")) && transitionsLong(b.decls) {
		r.h.longTransitions = true
	}
	r.animatedRule = nil
	if declares(st, "animation:") || declares(st, "animation-name:") || declares(st, "-webkit-animation:") || declares(st, "-webkit-animation-name:") ||
		declares(st, "all:") { // which resets the animation too
		a := animatedRule{decls: bytes.Clone(b.decls), exact: b.exact}
		if b.starting {
			a.exact = nil // the style of a transition's start
		}
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
		r.animatedRule = &r.animated[len(r.animated)-1]
	}
	if bytes.Contains(st, []byte("var(")) {
		// Each value its custom properties may take (see expandVars).
		for _, v := range r.h.expandVars(st) {
			r.classify(j, v)
		}
		return
	}
	r.classify(j, st)
}

// classify adds what the compacted declarations st of the open block j
// do to elements: hide their letters, make them inline boxes or contents,
// lay them out in another order.
func (r *sheetReader) classify(j int, st []byte) {
	switch v := styleValue(st, "display"); {
	case string(v) == "contents":
		r.addBlock(j, sheetContents)
		r.found = true
	case inlineBoxDisplay(v):
		k := sheetBox
		if bytes.Contains(st, []byte("display:"+string(v)+"!important")) {
			k |= sheetBoxImportant // beats a style attribute's display
		}
		r.addBlock(j, k)
		r.found = true
	}
	gone, resettable, resets := styleVisibility(st, st)
	var fades uint8 // see fade.go
	if gone && !declares(st, "display:none") {
		fades = fadeHides(st)
	}
	if lay := layoutDecls(st); len(lay) > 0 {
		if fades&1 != 0 {
			// Its opacity hides by fadeKind, which an animation may
			// undo, not by multiplying (see scaled).
			lay = withoutProps(lay, fadeGroups[0])
		}
		if len(lay) > 0 {
			r.addLayout(j, lay)
			r.found = true
		}
	}
	if resets {
		r.addBlock(j, sheetResets)
	}
	if clipsText(st) {
		r.addBlock(j, sheetClipText)
		r.found = true
	}
	if !gone && !resettable {
		return
	}
	k := sheetDrawn
	if hidingStyle(withoutProps(st, colourProps)) {
		k |= sheetOtherHide
	} else {
		k |= sheetByColour
	}
	switch {
	case r.blocks[j].starting:
		k = sheetStarting // until a transition ends
	case declares(st, "display:none"):
		k = sheetNotDrawn
	case fades != 0 && r.animatedRule != nil:
		// Its own animation may show it again: what it hides is added
		// with what it shows, once the sheets are read (see fade.go).
		r.animatedRule.fades |= fades
		r.h.fades = true
		k = 0
	case fades != 0:
		k = fadeKind(fades) // unless an animation shows it again (see fade.go)
		r.h.fades = true
	case !gone:
		k |= sheetResettable
	}
	r.addBlock(j, k)
	r.found = true
}

// layoutDecls returns the declarations of the compacted style st that
// may draw an element in another order than written, each ended by ';':
// a float to either side, an order other than 0, a reversed flex
// direction, a grid placement, a right-to-left direction, a flex or
// grid display, which makes its children items; and a font size relative
// to the parent's that shrinks it, or an opacity under 1, which multiply
// through nesting (see scaled).
func layoutDecls(st []byte) []byte {
	var out []byte
	for decl := range bytes.SplitSeq(st, []byte(";")) {
		name, v, ok := bytes.Cut(decl, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSuffix(v, []byte("!important"))
		keep := false
		if unreadValue(v) && !bytes.HasPrefix(name, []byte("--")) {
			// Any value (see unreadValues): read as the one that
			// reorders, where the property can.
			switch string(name) {
			case "direction":
				decl = []byte("direction:rtl")
			case "flex-direction", "flex-flow":
				decl = []byte("flex-direction:row-reverse")
			case "writing-mode":
				decl = []byte("writing-mode:vertical-rl")
			case "order", "float", "display", "transform", "scale", "rotate", "grid-area", "grid-row", "grid-row-start", "grid-column", "grid-column-start":
			default:
				continue
			}
			out = append(append(out, decl...), ';')
			continue
		}
		switch string(name) {
		case "float":
			keep = string(v) != "none"
		case "order":
			keep = string(v) != "0"
		case "flex-direction", "flex-flow", "flex-wrap", "writing-mode", "transform", "scale", "rotate":
			keep = drawsReversed(decl)
		case "grid-area", "grid-row", "grid-row-start", "grid-column", "grid-column-start":
			keep = true
		case "direction":
			keep = string(v) == "rtl"
		case "display":
			keep = bytes.Contains(v, []byte("flex")) || bytes.Contains(v, []byte("grid"))
		case "font-size":
			// Relative and shrinking: it multiplies through nesting
			// (see scaled).
			keep = string(v) == "smaller" || bytes.HasSuffix(v, []byte("em")) && !bytes.HasSuffix(v, []byte("rem")) ||
				bytes.HasSuffix(v, []byte("%")) || bytes.HasSuffix(v, []byte("ex")) || bytes.HasSuffix(v, []byte("ch"))
			if f, ok := cssFraction(bytes.TrimRight(v, "emxch")); keep && ok && f >= 1 {
				keep = false
			}
		case "opacity":
			f, ok := cssFraction(v)
			keep = ok && f < 1
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
func selectorSubjects(sel []byte, nested bool, doc *docNames) (own []sheetSubject, parent bool) {
	start := 0
	one := func(end int) {
		one := sel[start:end]
		start = end + 1
		if !mayMatch(one, doc) {
			return
		}
		sub, amp, ok := compoundSubject(lastCompound(one))
		switch {
		case !ok:
		case sub.kind == subjectAll && amp && nested:
			parent = true
		default:
			own = append(own, sub)
		}
	}
	scanSelector(sel, func(i int) int {
		if sel[i] == ',' {
			one(i)
		}
		return 0
	})
	one(len(sel))
	return own, parent
}

// scanSelector calls fn with the index of each byte of the selector sel
// outside escapes, strings, parentheses and brackets; fn returns how
// many bytes after it it has read, which are skipped.
func scanSelector(sel []byte, fn func(i int) int) {
	depth := 0
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
		case depth == 0:
			i += fn(i)
		}
	}
}

// userAction are the pseudo-classes of states a visitor's action brings
// about: the page is not drawn in them until the visitor acts.
var userAction = map[string]bool{
	"hover": true, "active": true, "focus": true, "focus-within": true, "focus-visible": true,
	"visited": true, "target": true, "target-within": true, "user-invalid": true, "user-valid": true,
}

// mayMatch reports whether the complex selector sel may match an element
// of the page as it is first drawn: each of its classes and ids outside
// parentheses is on the page (doc, unless nil), and it asks for no state
// of userAction outside parentheses (:not(:hover) is drawn; a:hover is
// not until the visitor points at it).
func mayMatch(sel []byte, doc *docNames) bool {
	may := true
	scanSelector(sel, func(i int) int {
		switch c := sel[i]; {
		case !may:
			return len(sel)
		case c == ':' && i+1 < len(sel) && sel[i+1] != ':':
			n := identLen(sel[i+1:])
			if name, ok := cssDecodeIdent(sel[i+1 : i+1+n]); ok && userAction[string(name)] {
				may = false
			}
		case (c == '.' || c == '#') && doc != nil:
			n := identLen(sel[i+1:])
			name, ok := cssDecodeIdent(sel[i+1 : i+1+n])
			if ok && (c == '.' && !doc.classes[string(name)] || c == '#' && !doc.ids[string(name)]) {
				may = false
			}
			return n
		}
		return 0
	})
	return may
}

// lastCompound returns the last compound selector of the complex
// selector sel: what follows its last combinator (white space, >, +, ~).
func lastCompound(sel []byte) []byte {
	sel = bytes.TrimSpace(sel)
	start := 0
	scanSelector(sel, func(i int) int {
		if c := sel[i]; isCSSSpace(c) || c == '>' || c == '+' || c == '~' {
			start = i + 1
		}
		return 0
	})
	return sel[start:]
}

// compoundSubject returns the simple selector the compound selector c is
// kept by (its id, else its first class, else its first attribute, else
// its element name, else any element) with the rest of what it asks (see
// compound), whether it has "&" (the element of the rule it is nested
// in), and ok false for a pseudo-element or for :empty, which selects
// elements without letters. :not(:defined), alone, selects the custom
// elements not yet defined, which have a hyphen in their names.
func compoundSubject(c []byte) (sub sheetSubject, amp, ok bool) {
	var need compound
	undefined := false
	firstLetter := false // ::first-letter (see sheetSubject.firstLetter)
	firstLine := false   // ::first-line
	for i := 0; i < len(c); {
		switch ch := c[i]; {
		case ch == '&':
			amp = true
			i++
		case ch == '*':
			i++
		case ch == '|':
			need.tag = "" // ns|name: the name follows
			i++
		case ch == '.' || ch == '#':
			n := identLen(c[i+1:])
			if name, good := cssDecodeIdent(c[i+1 : i+1+n]); good {
				if ch == '.' {
					need.classes = append(need.classes, string(name))
				} else {
					need.ids = append(need.ids, string(name))
				}
			}
			i += 1 + max(n, 1)
		case ch == '[':
			j := i + 1
			for j < len(c) && isCSSSpace(c[j]) {
				j++
			}
			n := identLen(c[j:])
			if name, good := cssDecodeIdent(c[j : j+n]); good {
				need.attrs = append(need.attrs, string(name))
			}
			i = j + skipTo(c[j:], ']')
		case ch == ':':
			if i+1 < len(c) && c[i+1] == ':' {
				n := identLen(c[i+2:])
				name, _ := cssDecodeIdent(c[i+2 : i+2+n])
				if k := i + 2 + n; k < len(c) && c[k] == '(' {
					arg, _ := parenArg(c[k:])
					switch string(name) {
					case "slotted":
						// ::slotted(x) styles the host's children x
						// that a slot draws.
						sub, _, ok := compoundSubject(lastCompound(arg))
						return sub, amp, ok
					case "part":
						// ::part(p) styles the shadow tree's elements
						// with part="p".
						return sheetSubject{kind: subjectAttr, name: "part"}, amp, true
					}
				}
				if letters(string(name), &firstLetter, &firstLine) {
					i = len(c) // what follows a pseudo-element is its state
					continue
				}
				return sheetSubject{}, amp, false
			}
			n := identLen(c[i+1:])
			name, _ := cssDecodeIdent(c[i+1 : i+1+n])
			if letters(string(name), &firstLetter, &firstLine) { // the old spelling
				i = len(c)
				continue
			}
			switch string(name) {
			case "before", "after":
				return sheetSubject{}, amp, false // the old spelling of pseudo-elements
			case "empty":
				return sheetSubject{}, amp, false
			}
			i += 1 + n
			if i < len(c) && c[i] == '(' {
				arg, k := parenArg(c[i:])
				if string(name) == "not" {
					arg = bytes.TrimSpace(arg)
					if d, _ := cssDecodeIdent(bytes.TrimPrefix(arg, []byte(":"))); string(d) == "defined" {
						undefined = true
					} else {
						need.negate(arg)
					}
				}
				i += k
			}
		default:
			n := identLen(c[i:])
			if n == 0 {
				i++ // not a selector we know: over-read, as any element
				continue
			}
			if name, good := cssDecodeIdent(c[i : i+n]); good && need.tag == "" {
				need.tag = string(name)
			}
			i += n
		}
	}
	switch {
	case len(need.ids) > 0:
		sub = sheetSubject{kind: subjectID, name: need.ids[0]}
	case len(need.classes) > 0:
		sub = sheetSubject{kind: subjectClass, name: need.classes[0]}
	case len(need.attrs) > 0:
		sub = sheetSubject{kind: subjectAttr, name: need.attrs[0]}
	case need.tag != "":
		sub = sheetSubject{kind: subjectTag, name: need.tag}
	case undefined:
		sub = sheetSubject{kind: subjectCustom}
	default:
		sub = sheetSubject{kind: subjectAll}
	}
	asks := len(need.ids) + len(need.classes) + len(need.attrs) + len(need.notTags) + len(need.notIDs) + len(need.notClasses) + len(need.notAttrs)
	if sub.kind == subjectID || sub.kind == subjectClass || sub.kind == subjectAttr {
		asks-- // the key itself
	}
	if asks > 0 || need.tag != "" && sub.kind != subjectTag {
		sub.need = &need
	}
	sub.firstLetter, sub.firstLine = firstLetter, firstLine
	return sub, amp, true
}

// letters reports whether the pseudo-element name styles the letters of
// its element, ::first-letter or ::first-line, and sets which.
func letters(name string, letter, line *bool) bool {
	switch name {
	case "first-letter":
		*letter = true
		return true
	case "first-line":
		*line = true
		return true
	}
	return false
}

// negate adds to c the simple selectors of the :not() argument arg that
// it can tell (a list of single names, ids, classes or attributes); the
// others are left out, which only over-reads.
func (c *compound) negate(arg []byte) {
	for _, one := range bytes.Split(arg, []byte(",")) {
		one = bytes.TrimSpace(one)
		if len(one) == 0 {
			continue
		}
		switch one[0] {
		case '.', '#':
			if n := identLen(one[1:]); n == len(one)-1 {
				if name, ok := cssDecodeIdent(one[1:]); ok {
					if one[0] == '.' {
						c.notClasses = append(c.notClasses, string(name))
					} else {
						c.notIDs = append(c.notIDs, string(name))
					}
				}
			}
		case '[':
			if one[len(one)-1] == ']' {
				inner := bytes.TrimSpace(one[1 : len(one)-1])
				if n := identLen(inner); n == len(inner) {
					if name, ok := cssDecodeIdent(inner); ok {
						c.notAttrs = append(c.notAttrs, string(name))
					}
				}
			}
		default:
			if n := identLen(one); n == len(one) {
				if name, ok := cssDecodeIdent(one); ok {
					c.notTags = append(c.notTags, string(name))
				}
			}
		}
	}
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

// parenArg returns what is inside the parentheses that s starts with,
// and the offset just past them (the end of s when they are left open).
func parenArg(s []byte) (arg []byte, n int) {
	n = skipTo(s, ')')
	end := n
	if end > 1 && s[end-1] == ')' {
		end--
	}
	return s[min(1, end):end], n
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
	k, _ := c.sheetMatches()
	style, _ := c.attr("style")
	return c.sheet.resolve(k, style, func() exactElem {
		id, hasID := c.attr("id")
		class, _ := c.attr("class")
		return newExactElem(string(c.name), id, hasID, class)
	})
}

// resolve returns k, what the rules that may match an element do, with
// what its style attribute style does to their animations (one that
// hides, or that no longer shows again what a rule hides) and what the
// exact rules' animations show again on el (see fade.go); and with what
// a @starting-style rule hides where a transition may last.
func (h *sheetHiding) resolve(k sheetHideKind, style []byte, el func() exactElem) sheetHideKind {
	if h == nil {
		return k
	}
	if k&sheetStarting != 0 && h.longTransitions {
		k |= sheetDrawn | sheetOtherHide // until a long transition ends
	}
	var restores fadeSet
	inline := false
	// anim\61tion is read as animation (see animationRestores).
	if containsFold(style, "animation") || bytes.IndexByte(style, '\\') >= 0 {
		if len(h.frames) > 0 {
			if hides, gone := animationHides(style, h.frames, h.tweaked, h.animVars.hidingVariants); hides {
				k |= sheetDrawn
				if !gone {
					k |= sheetResettable
				}
			}
		}
		var b [256]byte
		st := compactStyle(b[:0], style)
		switch lengthens, fills := animationLengthens(st); {
		case declares(st, "animation:") || declares(st, "animation-name:") || declares(st, "-webkit-animation:") || declares(st, "-webkit-animation-name:"):
			// Its animation is the one that runs: the rules' own no
			// longer show again what it does not.
			inline = true
			if !h.tweaked && !h.fillTweaked && !h.noRestores {
				restores = animationRestores(style, h.restoring, h.animVars.variants)
			}
			k |= sheetHideKind(allFades&^restores) << noRestoreShift
		case lengthens || fills:
			k |= sheetNoRestores
		}
	}
	if !inline && k&sheetFades != 0 && len(h.exact) > 0 {
		e := el()
		restores = h.exactRestores(&e)
	}
	return resolveFades(k, restores)
}

// sheetLayout appends to dst the declarations of the page's style sheets
// that may draw the current start tag in another order (see
// layoutDecls): a float, an order, a reversed flex direction, a grid
// placement, a direction.
func (c *checker) sheetLayout(dst []byte) []byte {
	if h := c.pageSheet(); h == nil || h.layoutBytes == 0 && len(h.all.layout) == 0 {
		return dst
	}
	_, layout := c.sheetMatches()
	return append(dst, layout...)
}

// pageSheet returns what the page's style sheets may do (see
// readSheets), which it reads when first asked; nil if nothing.
func (c *checker) pageSheet() *sheetHiding {
	if c.sheetDefer && !c.sheetRead {
		return nil // see frameSheet
	}
	if !c.sheetRead {
		// Read when the first element in a label asks, as most
		// pages' labels have none.
		c.sheetRead = true
		c.sheet = readSheets(c.src)
	}
	return c.sheet
}

// pageVarsHide reports whether the inline style hides its element's text
// with the custom properties of the page's style sheets (see pageVars).
func (c *checker) pageVarsHide(style []byte) bool {
	if !bytes.Contains(style, []byte("var(")) {
		return false
	}
	h := c.pageSheet() // nil without style sheets: the style's own values
	var b [256]byte
	for _, v := range h.expandVars(compactStyle(b[:0], style)) {
		if hidingStyle(v) {
			return true
		}
	}
	// expandVars reads a property's first four values only; withPageVars
	// reads the least length and any clear colour of all of them.
	return h != nil && (len(h.varPx) > 0 || len(h.varClear) > 0) && hidingStyle(h.withPageVars(style))
}

// sheetMatches returns what the rules of the page's style sheets that
// the current start tag may match do (see readSheets), which it reads
// when first asked: how they hide it, and its layout declarations. The
// answer is kept for the tag, which several readers ask.
func (c *checker) sheetMatches() (sheetHideKind, []byte) {
	h := c.pageSheet()
	if h == nil {
		return 0, nil
	}
	if c.matched.at != c.tokStart+1 {
		c.matched.at, c.matched.k, c.matched.layout = c.tokStart+1, 0, c.matched.layout[:0]
		el := c.currentElem()
		h.matches(&el, func(k sheetHideKind, layout []byte) {
			c.matched.k |= k
			c.matched.layout = append(c.matched.layout, layout...)
		})
	}
	return c.matched.k, c.matched.layout
}

// sheetMatch is what sheetMatches found for the start tag at at-1 in src.
type sheetMatch struct {
	at     int
	k      sheetHideKind
	layout []byte
}

// sheetElem is what sheetMatches reads of an element: its name, id and
// classes (lower-cased) and the names of its attributes.
type sheetElem struct {
	name    string
	id      string
	classes []string
	attrs   []string
}

// currentElem returns the current start tag as a sheetElem.
func (c *checker) currentElem() sheetElem {
	el := sheetElem{name: string(c.name)}
	for _, a := range c.attrs {
		switch string(a.key) {
		case "id":
			el.id = string(lowerASCII(bytes.TrimSpace(a.val)))
		case "class":
			for f := range bytes.FieldsSeq(a.val) {
				el.classes = append(el.classes, string(lowerASCII(f)))
			}
		}
		el.attrs = append(el.attrs, string(a.key))
	}
	return el
}

// matches calls fn with what each rule that el may match does.
func (h *sheetHiding) matches(el *sheetElem, fn func(k sheetHideKind, layout []byte)) {
	each := func(e *sheetEntry) {
		if e == nil {
			return
		}
		if e.kind != 0 || len(e.layout) > 0 {
			fn(e.kind, e.layout)
		}
		for _, n := range e.needs {
			if el.matches(n.need) {
				fn(n.kind, n.layout)
			}
		}
	}
	each(&h.all)
	each(h.tags[el.name])
	if strings.IndexByte(el.name, '-') >= 0 {
		each(&h.custom)
	}
	if len(h.ids) > 0 && el.id != "" {
		each(h.ids[el.id])
	}
	if len(h.classes) > 0 {
		for _, cl := range el.classes {
			each(h.classes[cl])
		}
	}
	if len(h.attrs) > 0 {
		for _, a := range el.attrs {
			each(h.attrs[a])
		}
	}
}

// matches reports whether el matches what the compound n asks (see
// compound).
func (el *sheetElem) matches(n *compound) bool {
	switch {
	case n.tag != "" && n.tag != el.name:
		return false
	case slices.Contains(n.notTags, el.name):
		return false
	}
	for _, id := range n.ids {
		if id != el.id {
			return false
		}
	}
	for _, cl := range n.classes {
		if !slices.Contains(el.classes, cl) {
			return false
		}
	}
	for _, a := range n.attrs {
		if !slices.Contains(el.attrs, a) {
			return false
		}
	}
	return !slices.Contains(n.notIDs, el.id) &&
		!slices.ContainsFunc(n.notClasses, func(cl string) bool { return slices.Contains(el.classes, cl) }) &&
		!slices.ContainsFunc(n.notAttrs, func(a string) bool { return slices.Contains(el.attrs, a) })
}

// A clickable element's own rules are read when its first child starts
// (frameSheet), not at its start tag: a label without elements has no
// letters for them to hide or reorder, and most pages' labels have none,
// so the style sheets are not read for them.

// mayHaveSheets reports whether the page's source has "<style" at all.
func (c *checker) mayHaveSheets() bool {
	if c.styleTags == 0 {
		c.styleTags = -1
		if indexFold(c.src, "<style") >= 0 {
			c.styleTags = 1
		}
	}
	return c.styleTags > 0
}

// frameSheet applies the style sheets' rules to the outermost clickable
// element, once its first child starts: a rule that hides its letters in
// a way its children may undo (see reshow.go), and one that draws its
// children in reverse (see reorder).
func (c *checker) frameSheet() {
	tag := c.src[c.frameTag[0]:c.frameTag[1]]
	c.frameTag = [2]int{}
	h := c.pageSheet()
	if h == nil {
		return
	}
	el, style, exact := tagElem(tag)
	if el == nil {
		return
	}
	var k sheetHideKind
	var lay []byte
	h.matches(el, func(kind sheetHideKind, layout []byte) {
		k |= kind
		lay = append(lay, layout...)
	})
	k = h.resolve(k, style, func() exactElem { return exact })
	if len(c.vis) > 0 && c.vis[0].state == visShown && sheetHidesLetters(k) {
		switch {
		case k&sheetNotDrawn != 0 || k&sheetDrawn != 0 && k&sheetResettable == 0:
			c.vis[0].state = visGone
		case k&sheetResettable != 0:
			c.vis[0].state = visResetable
			c.visUsed = true
		}
		if c.vis[0].state != visShown {
			c.visText = c.visText[:0] // its own letters so far
		}
	}
	r := &c.reo
	if r.rev == revNone && drawsReversed(lay) {
		r.rev, r.revName, r.revNest, r.revDepth, r.revStart = revOpen, el.name, 1, 0, 0
		r.auto = false
	}
}

// tagElem reads the start tag tag again, as sheetMatches reads an
// element, with its style attribute; nil if it is not a start tag.
func tagElem(tag []byte) (el *sheetElem, style []byte, exact exactElem) {
	z := html.NewTokenizer(bytes.NewReader(tag))
	if tt := z.Next(); tt != html.StartTagToken && tt != html.SelfClosingTagToken {
		return nil, nil, exactElem{}
	}
	var id, class []byte
	hasID := false
	name, more := z.TagName()
	el = &sheetElem{name: string(name)}
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "style":
			style = v
		case "id":
			el.id = string(lowerASCII(bytes.TrimSpace(v)))
			if !hasID {
				id, hasID = bytes.Clone(v), true
			}
		case "class":
			for f := range bytes.FieldsSeq(v) {
				el.classes = append(el.classes, string(lowerASCII(f)))
			}
			if class == nil {
				class = bytes.Clone(v)
			}
		}
		el.attrs = append(el.attrs, string(k))
	}
	return el, style, newExactElem(el.name, id, hasID, class)
}

// maxVarVariants bounds the readings expandVars gives of one list of
// declarations, and maxExpanded the size of each.
const (
	maxVarVariants = 4
	maxExpanded    = 16 << 10
	// maxExpandedAll bounds what one page's expansions write in all;
	// past it, var() is read by the values in pixels and clear colours
	// alone (see withPageVars).
	maxExpandedAll = 4 << 20
)

// addInlineDefs adds the custom properties that the style attribute
// style declares to defs, compacted, up to maxVarsBytes in all.
func addInlineDefs(defs map[string][][]byte, style []byte) {
	for decl := range bytes.SplitSeq(style, []byte(";")) {
		name, v, ok := bytes.Cut(decl, []byte(":"))
		if name = bytes.TrimSpace(name); !ok || !bytes.HasPrefix(name, []byte("--")) || len(defs) > maxVarsBytes/8 {
			continue
		}
		defs[string(name)] = append(defs[string(name)], compactStyle(nil, v))
	}
}

// expandVars returns the compacted declarations st with each var() in
// them replaced by a value its custom property is given: by st itself
// (own), by the page's style sheets and style attributes (varDefs), or
// else its fallback; up to maxVarVariants readings, the i-th taking each
// property's i-th value (or its last), since any of them may apply
// (a{--d:none}.h{display:var(--d)}, the second round of the 25th
// attack).
func (h *sheetHiding) expandVars(st []byte) [][]byte {
	var defs map[string][][]byte
	if h != nil {
		defs = h.varDefs
		if h.expanded > maxExpandedAll {
			return [][]byte{st} // see maxExpandedAll
		}
	}
	n := 1
	eachVarRef(st, func(ref []byte) {
		if k := len(defs[string(ref)]); k > n {
			n = min(k, maxVarVariants)
		}
	})
	out := make([][]byte, 0, n)
	ownDefs := bytes.HasPrefix(st, []byte("--")) || bytes.Contains(st, []byte(";--"))
	for i := range n {
		v := st
		for range maxSizeDepth {
			if !bytes.Contains(v, []byte("var(")) || len(v) > maxExpanded {
				break
			}
			v = substituteVars(v, func(name []byte) []byte {
				if ownDefs {
					if d := styleValue(st, string(name)); d != nil && !bytes.Contains(d, []byte("var(")) {
						return d
					}
				}
				if d := defs[string(name)]; len(d) > 0 {
					return d[min(i, len(d)-1)]
				}
				return nil
			})
		}
		out = append(out, v)
		if h != nil {
			h.expanded += len(v)
		}
	}
	return out
}

// substituteVars returns v with each var(name[, fallback]) replaced by
// value(name), or else by its fallback; one left as it was if neither.
func substituteVars(v []byte, value func(name []byte) []byte) []byte {
	var out []byte
	for {
		i := bytes.Index(v, []byte("var("))
		if i < 0 {
			return append(out, v...)
		}
		arg, n := parenArg(v[i+len("var"):])
		name, fallback, hasFallback := bytes.Cut(arg, []byte(","))
		out = append(out, v[:i]...)
		switch d := value(bytes.TrimSpace(name)); {
		case d != nil:
			out = append(out, d...)
		case hasFallback:
			out = append(out, fallback...)
		default:
			out = append(out, "initial"...) // not given: its initial value
		}
		v = v[i+len("var")+n:]
	}
}

package htmlcheck

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// A rule that hides an element by its opacity, its clip-path or a
// transform, and an animation that shows it again: the fade-in, wipe-in
// or scale-in of ordinary pages, written as one rule
// (.fade-in{opacity:0;animation:fadeIn .6s forwards}) or two (Tailwind's
// opacity-0 and animate-fade-in). An animation's value overrides the
// element's own while it runs and, with fill-mode forwards or both, after
// its end, so the element is drawn as the animation's last frame draws
// it (docs/security.md, rows 959, 979 and 981).
//
// The hiding is over-read, as every rule's is (see readSheets); the
// showing again is under-read: it counts only where the animation surely
// runs, runs quickly and is valid CSS, and its last frame surely shows.
// A rule that hides only by such properties (fadeHides) records which
// (its sheetFade bits) instead of hiding. An animation shows them again:
//   - from a rule of its own whose selectors the element surely matches
//     (element names, classes and ids alone, as written: exactRestore);
//   - from the hiding rule itself (sheetSelf bits: .stats .num{opacity:0;
//     animation:…} applies its animation wherever it applies its hiding);
//   - from the element's style attribute.
//
// Every rule that may run, stop or reset (all) an animation on the
// element and does not show a group again records so (sheetNoRestore),
// and resolve hides the element where a group that hides it is not shown
// again, or is and such a rule may stop it.

// fadeGroups are the properties by which a rule may hide letters that an
// animation shows again, one group per bit of the sheetFade,
// sheetRestore, sheetNoRestore and sheetSelf kinds. scale, translate and
// rotate are properties of their own, which transform does not undo.
var fadeGroups = [fadeGroupCount][]string{
	{"opacity"},
	{"clip-path", "-webkit-clip-path"},
	{"transform"},
	{"scale"},
	{"translate"},
	{"rotate"},
}

const fadeGroupCount = 6

// allFades are the bits of every group.
const allFades = fadeSet(1)<<fadeGroupCount - 1

// fadeSet is a set of fadeGroups, a bit each.
type fadeSet = uint8

// fadeProps are all the properties of fadeGroups.
var fadeProps = func() []string {
	var all []string
	for _, g := range fadeGroups {
		all = append(all, g...)
	}
	return all
}()

const (
	fadeShift      = 11
	noRestoreShift = fadeShift + fadeGroupCount
	selfShift      = noRestoreShift + fadeGroupCount

	sheetFades      = sheetHideKind(allFades) << fadeShift
	sheetNoRestores = sheetHideKind(allFades) << noRestoreShift
	sheetSelves     = sheetHideKind(allFades) << selfShift
)

// fadeKind returns the kind of a rule that hides by the groups g, which
// no animation of its own shows again.
func fadeKind(g fadeSet) sheetHideKind { return sheetHideKind(g) << fadeShift }

// animatedKind returns the kind of a rule that runs (or stops) an
// animation that shows the groups shows again, and that hides by the
// groups fades (see fadeHides).
func animatedKind(shows, fades fadeSet) sheetHideKind {
	return fadeKind(fades&^shows) | sheetHideKind(allFades&^shows)<<noRestoreShift | sheetHideKind(fades&shows)<<selfShift
}

// resolveFades returns k, the kinds of the rules that may match an
// element, hiding it (sheetDrawn, for good) where a group hides it that
// is not shown again: neither by an exact rule's animation nor by the
// style attribute's (restores), nor by the hiding rule's own (sheetSelf)
// that no other rule may stop (sheetNoRestore).
func resolveFades(k sheetHideKind, restores fadeSet) sheetHideKind {
	fades := fadeSet(k >> fadeShift & sheetHideKind(allFades))
	selves := fadeSet(k >> selfShift & sheetHideKind(allFades))
	if fades == 0 && selves == 0 {
		return k
	}
	stopped := fadeSet(k >> noRestoreShift & sheetHideKind(allFades))
	if fades&^(restores&^stopped) != 0 || selves&stopped&^restores != 0 {
		k |= sheetDrawn | sheetOtherHide
	}
	return k
}

// fadeHides returns the fadeGroups by which the compacted declarations
// st hide letters, when they hide them by nothing else and not with
// !important (which an animation does not override); else 0.
func fadeHides(st []byte) fadeSet {
	if hidingStyle(withoutProps(st, fadeProps)) {
		return 0
	}
	var g fadeSet
	for i, props := range fadeGroups {
		only := onlyProps(st, props)
		if len(only) > 0 && hidingStyle(only) {
			if bytes.Contains(only, []byte("!important")) {
				return 0
			}
			g |= 1 << i
		}
	}
	return g
}

// onlyProps returns the declarations of the compacted style st that set
// one of props, each ended by ';'.
func onlyProps(st []byte, props []string) []byte { return filterProps(st, props, true) }

// cssTrim returns s without CSS white space (space, tab, line feed,
// carriage return, form feed; not U+00A0 or U+3000, which CSS reads as
// letters) around it.
func cssTrim(s []byte) []byte {
	return bytes.TrimFunc(s, func(r rune) bool { return r < utf8.RuneSelf && isCSSSpace(byte(r)) })
}

// cssFields splits s at runs of CSS white space (see cssTrim).
func cssFields(s []byte) [][]byte {
	return bytes.FieldsFunc(s, func(r rune) bool { return r < utf8.RuneSelf && isCSSSpace(byte(r)) })
}

// eachDeclaration calls fn with the name (lower-cased, escapes decoded)
// and value (white space trimmed and collapsed to one space) of each
// declaration of decls, comments taken out.
func eachDeclaration(decls []byte, fn func(prop string, v []byte)) {
	if bytes.Contains(decls, []byte("/*")) {
		decls = stripCSSComments(decls) // /**/animation:none is a declaration
	}
	for decl := range bytes.SplitSeq(decls, []byte(";")) {
		prop, v, ok := bytes.Cut(decl, []byte(":"))
		if !ok {
			continue
		}
		prop = bytes.ToLower(cssTrim(prop))
		if bytes.IndexByte(prop, '\\') >= 0 {
			prop = bytes.ToLower(cssUnescape(nil, prop)) // anim\61tion
		}
		fn(string(prop), bytes.Join(cssFields(v), []byte(" ")))
	}
}

// frameShows returns, for the declarations decls of a last keyframe, the
// fadeGroups whose properties it sets, each by its last declaration, to
// a value that surely shows (showsValue), and the groups it sets
// otherwise. A keyframe's !important declarations are ignored by
// browsers, and so are they here; an animation property in a keyframe
// (a timing function that ends where it began) shows nothing again.
func frameShows(decls []byte) (shows, other fadeSet) {
	last := map[string][]byte{}
	eachDeclaration(decls, func(prop string, v []byte) {
		switch {
		case bytes.HasPrefix([]byte(prop), []byte("animation")):
			other = allFades
		case bytes.HasSuffix(bytes.ToLower(v), []byte("important")) && bytes.IndexByte(v, '!') >= 0:
		default:
			last[prop] = v
		}
	})
	for i, props := range fadeGroups {
		for _, p := range props {
			v, ok := last[p]
			switch {
			case !ok:
			case showsValue(p, v):
				shows |= 1 << i
			default:
				other |= 1 << i
			}
		}
	}
	return shows &^ other, other
}

// Values that surely show, written plainly (see showsValue).
var (
	zeroLength   = `0(\.0+)?(px|%|em|rem|vw|vh)?`
	showingInset = regexp.MustCompile(`^inset\(\s*` + zeroLength + `(\s+` + zeroLength + `){0,3}\s*\)$`)
	identityFn   = `(scale[xyz]?\(\s*1(\.0+)?\s*(,\s*1(\.0+)?\s*){0,2}\)|scale3d\(\s*1(\.0+)?\s*(,\s*1(\.0+)?\s*){2}\)|translate[xyz]?\(\s*` + zeroLength + `\s*(,\s*` + zeroLength + `\s*)?\)|translate3d\(\s*` + zeroLength + `\s*(,\s*` + zeroLength + `\s*){2}\)|rotate[xyz]?\(\s*0(\.0+)?(deg|rad|turn|grad)?\s*\))`
	identityList = regexp.MustCompile(`^` + identityFn + `(\s*` + identityFn + `)*$`)
	zeroTokens   = regexp.MustCompile(`^` + zeroLength + `(\s` + zeroLength + `){0,2}$`)
	zeroRotate   = regexp.MustCompile(`^([xyz]\s)?0(\.0+)?(deg|rad|turn|grad)?$`)
)

// showsValue reports whether v, a value of the fadeGroups property prop
// (lower-cased, white space collapsed), surely shows an element: an
// opacity of 0.5 or more, no clip-path or a zero inset, no transform or
// one that keeps the element as it is, a scale of 0.5 or more, no
// translation or rotation. Anything else, valid or not, may hide.
func showsValue(prop string, v []byte) bool {
	v = bytes.ToLower(v)
	if string(v) == "none" {
		return prop != "opacity"
	}
	switch prop {
	case "opacity":
		return plainFraction(v) >= 0.5
	case "clip-path", "-webkit-clip-path":
		return showingInset.Match(v)
	case "transform":
		return identityList.Match(v)
	case "scale":
		for _, f := range cssFields(v) {
			if plainFraction(f) < 0.5 {
				return false
			}
		}
		return true
	case "translate":
		return zeroTokens.Match(v)
	case "rotate":
		return zeroRotate.Match(v)
	}
	return false
}

// plainFraction reads v, a plain number or percentage ("1", ".9", "100%"),
// as a fraction; -1 if it is not one.
func plainFraction(v []byte) float64 {
	n := numberEnd(v)
	if n == 0 || n != len(v) && !(n == len(v)-1 && v[n] == '%') || v[n-1] == '.' {
		return -1 // "1." is no CSS number
	}
	f, err := strconv.ParseFloat(string(v[:n]), 64)
	if err != nil || math.IsNaN(f) {
		return -1
	}
	if n < len(v) {
		f /= 100
	}
	return f
}

// lastFrame reports whether the keyframe selector list sel is valid
// (from, to, percentages from 0 to 100%, none empty) and has the last
// frame, to or 100%, where an animation with fill-mode forwards stays.
// An invalid list (100.5%, "to,") drops the keyframe.
func lastFrame(sel []byte) bool {
	last := false
	for one := range bytes.SplitSeq(sel, []byte(",")) {
		one = bytes.ToLower(cssTrim(one))
		switch string(one) {
		case "to":
			last = true
			continue
		case "from":
			continue
		}
		if len(one) < 2 || one[len(one)-1] != '%' {
			return false
		}
		f := plainFraction(one)
		if f < 0 || f > 1 {
			return false
		}
		last = last || f == 1
	}
	return last
}

// reservedNames cannot name a @keyframes rule, nor the animation that
// runs one.
var reservedNames = map[string]bool{"none": true, "default": true, "initial": true, "inherit": true, "unset": true, "revert": true, "revert-layer": true}

// animationRestores returns the fadeGroups that the animation declared in
// decls (a rule's declarations, or a style attribute) shows again for
// good: the groups the last frame of one of its animations shows
// (restoring, by the @keyframes rule's name as written), where its
// animation shorthand is valid CSS and that animation runs once, quickly,
// forwards (see animationItem), or with animation-fill-mode: forwards
// after it. Several shorthands give what each gives; another longhand
// gives nothing. A shorthand with var() gives what each value that vars
// says it may take gives (see animVars.variants), and nothing where vars
// returns none.
func animationRestores(decls []byte, restoring map[string]fadeSet, vars func([]byte) [][]byte) fadeSet {
	if !cssBalanced(decls) {
		return 0 // "--s:(" takes the declarations after it: no animation is set
	}
	var g fadeSet
	seen, other := false, false
	pending := false    // a shorthand not yet read
	var values [][]byte // its values, as they may be after var()
	fill := 0           // and a fill mode after it: 1 forwards, -1 another
	end := func() {
		if !pending {
			return
		}
		one := fadeSet(0)
		for k, v := range values {
			var all fadeSet
			for _, item := range splitTopLevel(v, ',') {
				name, quick, forwards, valid := animationItem(item)
				if !valid {
					all = 0 // an invalid declaration: no animation
					break
				}
				if quick && (fill > 0 || fill == 0 && forwards) {
					all |= restoring[string(name)]
				}
			}
			if k == 0 {
				one = all
			} else {
				one &= all // any of them may be the one that applies
			}
		}
		if seen {
			g &= one // several: the one that applies is not followed
		} else {
			g, seen = one, true
		}
		pending, values, fill = false, nil, 0
	}
	eachDeclaration(decls, func(prop string, v []byte) {
		prop = string(bytes.TrimPrefix([]byte(prop), []byte("-webkit-")))
		v = cssTrim(bytes.TrimSuffix(v, []byte("!important")))
		switch {
		case prop == "animation":
			end()
			pending, values = true, [][]byte{v}
			if bytes.Contains(v, []byte("var(")) {
				values = vars(v)
			}
		case prop == "animation-fill-mode" && pending:
			if f := string(bytes.ToLower(v)); f == "forwards" || f == "both" {
				fill = 1
			} else {
				fill = -1
			}
		case bytes.HasPrefix([]byte(prop), []byte("animation")):
			other = true
		}
	})
	end()
	if other {
		return 0
	}
	return g
}

// cssBalanced reports whether every '(', '[' and '{' of the declarations
// decls is closed, outside strings and comments, and every string: CSS
// reads what follows one left open as part of its value.
func cssBalanced(decls []byte) bool {
	var closers cssBrackets
	for i := 0; i < len(decls); {
		if j := cssSkip(decls, i); j > i {
			if q := decls[i]; (q == '"' || q == '\'') && (j < i+2 || decls[j-1] != q) {
				return false // a string left open
			}
			i = j
			continue
		}
		closers.feed(decls[i])
		i++
	}
	return len(closers) == 0
}

// animationItem reads one animation of an animation shorthand's list:
// its name; whether it ends quickly (quick: a duration and delay under
// longAnimation, once, not paused or reversed); whether it stays on its
// last frame (fill-mode forwards or both); and whether it is valid CSS
// (each part at most once, timing functions well formed, the name not
// reserved), without which the declaration sets no animation.
func animationItem(item []byte) (name []byte, quick, forwards, valid bool) {
	times, timing, count, dir, fill, state := 0, false, false, false, false, false
	slow := false
	for _, tok := range splitTopLevel(cssTrim(item), ' ') {
		if len(tok) == 0 {
			continue
		}
		low := bytes.ToLower(tok)
		if n := numberEnd(low); n > 0 {
			f, err := strconv.ParseFloat(string(low[:n]), 64)
			switch unit := string(low[n:]); {
			case err != nil:
				return nil, false, false, false
			case unit == "s" || unit == "ms":
				if unit == "ms" {
					f /= 1000
				}
				if times++; times > 2 {
					return nil, false, false, false
				}
				slow = slow || f >= longAnimation
			case unit == "" && !count:
				count = true
				slow = slow || f != 1 // stops mid-way, or runs back
			default:
				return nil, false, false, false
			}
			continue
		}
		if i := bytes.IndexByte(low, '('); i >= 0 {
			if timing || !validTimingFunction(low) {
				return nil, false, false, false
			}
			timing = true
			continue
		}
		keyword := func(set *bool) bool {
			if *set {
				return false // a second one is the name
			}
			*set = true
			return true
		}
		if string(low) == "auto" { // a duration
			if times++; times > 2 {
				return nil, false, false, false
			}
			continue
		}
		switch string(low) {
		case "ease", "ease-in", "ease-out", "ease-in-out", "linear", "step-start", "step-end":
			if keyword(&timing) {
				continue
			}
		case "infinite":
			if keyword(&count) {
				slow = true
				continue
			}
		case "normal", "reverse", "alternate", "alternate-reverse":
			if keyword(&dir) {
				slow = slow || string(low) != "normal"
				continue
			}
		case "none", "forwards", "backwards", "both":
			if keyword(&fill) {
				forwards = string(low) == "forwards" || string(low) == "both"
				continue
			}
		case "running", "paused":
			if keyword(&state) {
				slow = slow || string(low) == "paused"
				continue
			}
		}
		unquoted := bytes.Trim(tok, `"'`)
		if name != nil || len(unquoted) == 0 || reservedNames[string(bytes.ToLower(unquoted))] && unquoted[0] == tok[0] {
			return nil, false, false, false
		}
		name = unquoted
	}
	if name == nil {
		return nil, false, false, times > 0 || timing || count || dir || fill || state
	}
	return name, !slow, forwards, true
}

// validTimingFunction reports whether fn, a lower-cased timing function,
// is a valid cubic-bezier() or steps(), which end where they should;
// linear() and anything else are not followed.
func validTimingFunction(fn []byte) bool {
	name, args, ok := bytes.Cut(fn, []byte("("))
	if !ok || !bytes.HasSuffix(args, []byte(")")) {
		return false
	}
	parts := splitArgs(bytes.TrimSuffix(args, []byte(")")))
	switch string(name) {
	case "cubic-bezier":
		if len(parts) != 4 {
			return false
		}
		for i, p := range parts {
			f, err := strconv.ParseFloat(string(cssTrim(p)), 64)
			if err != nil || (i == 0 || i == 2) && (f < 0 || f > 1) {
				return false
			}
		}
		return true
	case "steps":
		if len(parts) == 0 || len(parts) > 2 {
			return false
		}
		n, err := strconv.Atoi(string(cssTrim(parts[0])))
		if err != nil || n < 1 {
			return false
		}
		if len(parts) == 1 {
			return true
		}
		switch string(cssTrim(parts[1])) {
		case "jump-start", "jump-end", "jump-both", "start", "end":
			return true
		case "jump-none":
			return n >= 2
		}
	}
	return false
}

// withoutTimingFunctions returns the lower-cased animation value v
// without its cubic-bezier() and steps() timing functions, which change
// an animation's pace but not when it ends, and whose numbers are not
// counts or times. linear() stays: linear(0, 0) never leaves its first
// frame.
func withoutTimingFunctions(v []byte) []byte {
	for _, fn := range []string{"cubic-bezier(", "steps("} {
		for {
			i := bytes.Index(v, []byte(fn))
			if i < 0 {
				break
			}
			end := bytes.IndexByte(v[i+len(fn):], ')')
			if end < 0 || bytes.IndexByte(v[i+len(fn):i+len(fn)+end], '(') >= 0 {
				break // nested: calc(), var(); not followed
			}
			v = append(append(v[:i:i], ' '), v[i+len(fn)+end+1:]...)
		}
	}
	return v
}

// splitTopLevel splits s at each sep outside parentheses.
func splitTopLevel(s []byte, sep byte) [][]byte {
	var out [][]byte
	depth, start := 0, 0
	for i, c := range s {
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth = max(depth-1, 0)
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// exactCompound is a compound selector of an element name, ids and
// classes, as written (names of elements lower-cased), which an element
// matches exactly as a browser does (see exactElem).
type exactCompound struct {
	tag          string
	ids, classes []string
	restores     fadeSet // what the animation of its rule shows again
}

// exactSelectorList returns each selector of the list sel as an
// exactCompound, when each is a single compound of an element name,
// classes and ids of ASCII characters, escapes decoded (Tailwind's
// .animate-\[fade_1s\]), with no attribute, pseudo-class or
// combinator; else nil.
func exactSelectorList(sel []byte) []exactCompound {
	var out []exactCompound
	for _, one := range bytes.Split(sel, []byte(",")) {
		one = cssTrim(one)
		if len(one) == 0 {
			return nil
		}
		var c exactCompound
		for i := 0; i < len(one); {
			start, kind := i, byte(0)
			if one[i] == '.' || one[i] == '#' {
				kind = one[i]
				i++
				start = i
			} else if i > 0 {
				return nil // a name after the first simple selector
			}
			for i < len(one) {
				if n := escapeInIdent(one[i:]); n > 0 {
					i += n
				} else if isCSSIdent(one[i]) && one[i] < 0x80 {
					i++
				} else {
					break
				}
			}
			raw := one[start:i]
			if len(raw) == 0 || raw[0] >= '0' && raw[0] <= '9' || raw[0] == '-' && len(raw) > 1 && raw[1] >= '0' && raw[1] <= '9' {
				return nil
			}
			ident := string(raw)
			if bytes.IndexByte(raw, '\\') >= 0 {
				ident = string(cssUnescape(nil, raw))
			}
			switch kind {
			case '.':
				c.classes = append(c.classes, ident)
			case '#':
				c.ids = append(c.ids, ident)
			default:
				c.tag = string(lowerASCII([]byte(ident)))
			}
			if i < len(one) && one[i] != '.' && one[i] != '#' {
				return nil
			}
		}
		out = append(out, c)
	}
	return out
}

// escapeInIdent returns the length of the escape at the start of s in an
// identifier (a backslash and up to six hex digits and one white space,
// or a backslash and an ASCII character other than a newline), or 0.
func escapeInIdent(s []byte) int {
	if len(s) < 2 || s[0] != '\\' || s[1] == '\n' || s[1] == '\r' || s[1] == '\f' || s[1] >= 0x80 {
		return 0
	}
	if !isHex(s[1]) {
		return 2
	}
	n := 1
	for n < len(s) && n < 7 && isHex(s[n]) {
		n++
	}
	if n < len(s) && isCSSSpace(s[n]) {
		if n++; s[n-1] == '\r' && n < len(s) && s[n] == '\n' {
			n++
		}
	}
	return n
}

// exactElem is what of an element exactCompound matches: its name
// (lower-cased), its id and its classes as HTML reads them (the id as
// written, the classes split at ASCII white space only, case kept).
type exactElem struct {
	name    string
	id      string
	hasID   bool
	classes []string
}

// newExactElem reads name (lower-cased), and the values of the id and
// class attributes, as HTML does.
func newExactElem(name string, id []byte, hasID bool, class []byte) exactElem {
	el := exactElem{name: name, id: string(id), hasID: hasID && len(id) > 0}
	for _, f := range bytes.FieldsFunc(class, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
	}) {
		el.classes = append(el.classes, string(f))
	}
	return el
}

// matches reports whether el matches c.
func (c *exactCompound) matches(el *exactElem) bool {
	if c.tag != "" && c.tag != el.name {
		return false
	}
	for _, id := range c.ids {
		if !el.hasID || id != el.id {
			return false
		}
	}
	for _, cl := range c.classes {
		found := false
		for _, e := range el.classes {
			if e == cl {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// maxExactRestores bounds sheetHiding.exact; past it, no rule shows
// letters again (see animationRestores).
const maxExactRestores = 4096

// exactKey returns the key c is indexed by in sheetHiding.exactIndex:
// its first class, else its first id, else its element name.
func (c *exactCompound) exactKey() string {
	switch {
	case len(c.classes) > 0:
		return "." + c.classes[0]
	case len(c.ids) > 0:
		return "#" + c.ids[0]
	}
	return c.tag
}

// addExactRestore records the exact rule c, whose animation shows the
// groups g again.
func (h *sheetHiding) addExactRestore(c exactCompound, g fadeSet) {
	if len(h.exact) >= maxExactRestores {
		return
	}
	c.restores = g
	if h.exactIndex == nil {
		h.exactIndex = map[string][]int{}
	}
	h.exactIndex[c.exactKey()] = append(h.exactIndex[c.exactKey()], len(h.exact))
	h.exact = append(h.exact, c)
}

// exactRestores returns what the exact rules' animations that el
// matches show again: those kept by its classes, id and name.
func (h *sheetHiding) exactRestores(el *exactElem) fadeSet {
	var g fadeSet
	try := func(key string) {
		for _, i := range h.exactIndex[key] {
			if h.exact[i].matches(el) {
				g |= h.exact[i].restores
			}
		}
	}
	for _, cl := range el.classes {
		try("." + cl)
	}
	if el.hasID {
		try("#" + el.id)
	}
	try(el.name)
	return g
}

// animationLengthens reports whether the compacted declarations st set
// an animation's longhand so that it may run long, start late, repeat,
// pause, run backwards, end where it began or follow a timeline other
// than time (see animationHides); and whether they set its fill mode
// to other than forwards, which animationRestores needs.
func animationLengthens(st []byte) (lengthens, fills bool) {
	for decl := range bytes.SplitSeq(st, []byte(";")) {
		prop, v, ok := bytes.Cut(decl, []byte(":"))
		prop = bytes.TrimPrefix(prop, []byte("-webkit-"))
		if !ok || !bytes.HasPrefix(prop, []byte("animation-")) {
			continue
		}
		v = bytes.TrimSuffix(v, []byte("!important"))
		if string(prop) == "animation-timing-function" {
			for _, item := range splitTopLevel(v, ',') {
				if bytes.IndexByte(item, '(') >= 0 {
					lengthens = lengthens || !validTimingFunction(item)
				}
			}
			continue
		}
		for _, item := range bytes.Split(v, []byte(",")) {
			switch string(prop) {
			case "animation-name":
			case "animation-duration", "animation-delay":
				n := numberEnd(item)
				f, err := strconv.ParseFloat(string(item[:n]), 64)
				switch unit := string(item[n:]); {
				case n == 0 || err != nil || unit != "s" && unit != "ms":
					lengthens = true
				case unit == "s" && f >= longAnimation, unit == "ms" && f >= longAnimation*1000:
					lengthens = true
				}
			case "animation-iteration-count":
				lengthens = lengthens || string(item) != "1"
			case "animation-play-state":
				lengthens = lengthens || string(item) != "running"
			case "animation-direction":
				lengthens = lengthens || string(item) != "normal"
			case "animation-fill-mode":
				fills = fills || string(item) != "forwards" && string(item) != "both"
			case "animation-composition":
				lengthens = lengthens || string(item) != "replace"
			default:
				// animation-timeline, animation-range, and what comes
				// next: drawn by scrolling, or not followed.
				lengthens = lengthens || string(item) != "auto" && string(item) != "normal"
			}
		}
	}
	return lengthens, fills
}

// transitionsLong reports whether the declarations decls (a rule's, or
// a style attribute) set a transition that may last or wait
// longAnimation or more, or one not read (var(), calc()): a
// @starting-style rule's hiding then stays (see sheetStarting).
func transitionsLong(decls []byte) bool {
	long := false
	eachDeclaration(decls, func(prop string, v []byte) {
		prop = string(bytes.TrimPrefix([]byte(prop), []byte("-webkit-")))
		switch prop {
		case "transition", "transition-duration", "transition-delay":
		default:
			return
		}
		if bytes.IndexByte(v, '\\') >= 0 {
			v = cssUnescape(nil, v) // 100000\73 is 100000s
		}
		v = withoutTimingFunctions(bytes.ToLower(v))
		if bytes.IndexByte(v, '(') >= 0 {
			long = true
			return
		}
		for _, tok := range bytes.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' }) {
			f, unit, ok := cssDimension(tok)
			switch {
			case !ok:
			case unit == "s" && f >= longAnimation, unit == "ms" && f >= longAnimation*1000:
				long = true
			case unit != "s" && unit != "ms" && unit != "" && unit != "%":
				long = true // a time not read
			}
		}
	})
	return long
}

// animVars are the values that the page gives its custom properties, as
// written, for var() in an animation shorthand (see variants). A value
// that is not followed (an escape, a comment, !important, an @property
// rule, which may keep it from inheriting) is kept as nil.
type animVars struct {
	defs map[string][][]byte
	// onRoot are the properties given a value on the root element for
	// every screen (see onRoot): the element animated surely has one.
	onRoot map[string]bool
	size   int
	// cut says that some values were not kept (past maxVarsBytes, or a
	// name with an escape), or that variants wrote maxAnimWritten bytes:
	// var() in an animation is not followed.
	cut bool
	// written is what variants wrote, and read its results by value:
	// most rules of a page repeat the same few.
	written int
	read    map[string][][]byte
}

// add adds the value v of the custom property name; root says that it is
// given on the root element for every screen.
func (a *animVars) add(name, v []byte, root bool) {
	if a.size += len(name) + len(v); a.size > maxVarsBytes || bytes.IndexByte(name, '\\') >= 0 {
		a.cut = true
	}
	if a.cut {
		return
	}
	if a.defs == nil {
		a.defs, a.onRoot = map[string][][]byte{}, map[string]bool{}
	}
	v = cssTrim(v)
	if v == nil || bytes.IndexByte(v, '\\') >= 0 || bytes.Contains(v, []byte("/*")) || bytes.IndexByte(v, '!') >= 0 {
		v, root = nil, false
	}
	a.defs[string(name)] = append(a.defs[string(name)], v)
	if root {
		a.onRoot[string(name)] = true
	}
}

// addInline adds the custom properties of the style attribute style.
func (a *animVars) addInline(style []byte) {
	for decl := range bytes.SplitSeq(style, []byte(";")) {
		if name, v, ok := bytes.Cut(decl, []byte(":")); ok && bytes.HasPrefix(cssTrim(name), []byte("--")) {
			a.add(cssTrim(name), v, false)
		}
	}
}

// maxAnimVariants bounds the readings of one animation shorthand with
// var() (see variants), and maxAnimWritten what they write on a page.
const (
	maxAnimVariants = 16
	maxAnimWritten  = 256 << 10
)

// variants returns each value that the animation shorthand v may take
// with each var() in it replaced by a value the page gives its property
// (or by its fallback, where the property may have none on the element:
// no value on the root), or nil where one is not followed or it may
// have none (with no fallback, the declaration is invalid at computed
// time and runs no animation).
func (a *animVars) variants(v []byte) [][]byte {
	out, _ := a.readExpand(v, true)
	return out
}

// hidingVariants returns each value that the animation declaration's
// value v may take with each var() in it replaced, for what an animation
// may hide: a value the page gives its property, or its fallback where
// the element may have none (with neither, the declaration sets no
// animation, and that reading is left out); ok is false where a value is
// not followed, or there are too many.
func (a *animVars) hidingVariants(v []byte) (out [][]byte, ok bool) {
	return a.readExpand(v, false)
}

// readExpand is expand, reading each value once.
func (a *animVars) readExpand(v []byte, needed bool) ([][]byte, bool) {
	if a.cut {
		return nil, false
	}
	key := string(v)
	if !needed {
		key = "\x00" + key // not a value's first byte
	}
	if out, ok := a.read[key]; ok {
		return out, out != nil
	}
	out, ok := a.expand(v, needed)
	if !ok {
		out = nil
	} else if out == nil {
		out = [][]byte{} // none, but read
	}
	if a.read == nil {
		a.read = map[string][][]byte{}
	}
	a.read[key] = out
	return out, ok
}

// expand returns the values v may take with each var() replaced (see
// variants): where the element may have no value for a property, by its
// fallback, and where it has none either, by nothing if needed (ok is
// false) or else leaving that reading out; ok is false too where a value
// is not followed or there are too many.
func (a *animVars) expand(v []byte, needed bool) (out [][]byte, ok bool) {
	todo := [][]byte{v}
	for steps := 0; len(todo) > 0; steps++ {
		if steps > 4*maxAnimVariants || len(todo)+len(out) > maxAnimVariants {
			return nil, false
		}
		x := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		i := bytes.Index(x, []byte("var("))
		if i < 0 {
			out = append(out, x)
			continue
		}
		arg, n := parenArg(x[i+len("var"):])
		name, fallback, hasFallback := bytes.Cut(arg, []byte(","))
		name = cssTrim(name)
		values := a.defs[string(name)]
		if !a.onRoot[string(name)] {
			switch {
			case hasFallback:
				values = append(values[:len(values):len(values)], fallback)
			case needed:
				return nil, false
			}
		}
		if len(todo)+len(out)+len(values) > maxAnimVariants {
			return nil, false
		}
		for _, d := range values {
			if d == nil {
				return nil, false
			}
			if a.written += len(x) + len(d); a.written > maxAnimWritten {
				a.cut = true
				return nil, false
			}
			// Spaced: a value replaces tokens, and does not join
			// the letters beside var() (var(--n)in is two names).
			y := append([]byte(nil), x[:i]...)
			y = append(append(append(append(y, ' '), d...), ' '), x[i+len("var")+n:]...)
			todo = append(todo, y)
		}
	}
	return out, true
}

// onRoot reports whether a declaration in blocks of these preludes
// applies to the root element on every screen: in a rule whose selector
// list has :root or html alone (or in :where() or :is(), as Open Props
// writes it), in @layer blocks at most.
func onRoot(preludes [][]byte) bool {
	for _, p := range preludes[:len(preludes)-1] {
		if !bytes.HasPrefix(p, []byte("@layer")) {
			return false
		}
	}
	for _, sel := range bytes.Split(preludes[len(preludes)-1], []byte(",")) {
		s := cssTrim(sel)
		for _, fn := range []string{":where(", ":is("} {
			if len(s) > len(fn) && asciiEqualFold(s[:len(fn)], fn) && s[len(s)-1] == ')' {
				s = cssTrim(s[len(fn) : len(s)-1])
				break
			}
		}
		if asciiEqualFold(s, ":root") || asciiEqualFold(s, "html") {
			return true
		}
	}
	return false
}

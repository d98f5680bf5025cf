package htmlcheck

import (
	"bytes"
	"strconv"
)

// A rule that hides an element by its opacity, its clip-path or its
// transform, and an animation that shows it again: the fade-in, wipe-in
// or scale-in of ordinary pages, written as one rule
// (.fade-in{opacity:0;animation:fadeIn .6s forwards}) or two (Tailwind's
// opacity-0 and animate-fade-in). An animation's value overrides the
// element's own while it runs and, with fill-mode forwards or both, after
// its end, so the element is drawn as the animation's last frame draws
// it (docs/security.md, rows 959 and 979).
//
// The hiding is over-read, as every rule's is (see readSheets); the
// showing again is under-read: it counts only where the animation surely
// runs, and runs quickly, and its last frame surely shows. A rule that
// hides only by such properties (fadeHides) records which ones (its
// sheetFade bits) instead of hiding; a rule that runs an animation
// records which of them that animation shows again (sheetRestore bits)
// and which not (sheetNoRestore), and resolveFades hides the element
// unless every property that hides it is shown again by every animation
// rule that may match it.

// fadeGroups are the properties by which a rule may hide letters that an
// animation shows again, one group per bit of the sheetFade,
// sheetRestore and sheetNoRestore kinds.
var fadeGroups = [fadeGroupCount][]string{
	{"opacity"},
	{"clip-path", "-webkit-clip-path"},
	{"transform", "scale", "translate", "rotate"},
}

const fadeGroupCount = 3

// fadeProps are all the properties of fadeGroups.
var fadeProps = func() []string {
	var all []string
	for _, g := range fadeGroups {
		all = append(all, g...)
	}
	return all
}()

// fadeKind returns the kind of sheetFade bits for the groups g (a bit per
// fadeGroups).
func fadeKind(g uint8) sheetHideKind { return sheetHideKind(g) << fadeShift }

// restoreKind returns the kinds of an animation rule that shows the
// groups g (a bit per fadeGroups) again, and not the others.
func restoreKind(g uint8) sheetHideKind {
	all := uint8(1)<<fadeGroupCount - 1
	return sheetHideKind(g&all)<<restoreShift | sheetHideKind(all&^g)<<noRestoreShift
}

const (
	fadeShift      = 10
	restoreShift   = fadeShift + fadeGroupCount
	noRestoreShift = restoreShift + fadeGroupCount

	sheetFades      = sheetHideKind(1<<fadeGroupCount-1) << fadeShift
	sheetRestores   = sheetHideKind(1<<fadeGroupCount-1) << restoreShift
	sheetNoRestores = sheetHideKind(1<<fadeGroupCount-1) << noRestoreShift
)

// resolveFades returns k, the kinds of the rules that may match an
// element, hiding it (sheetDrawn, for good) when a rule hides it by a
// fadeGroups property that not every animation rule that may match it
// shows again.
func resolveFades(k sheetHideKind) sheetHideKind {
	fades := k & sheetFades >> fadeShift
	if fades == 0 {
		return k
	}
	restores := (k & sheetRestores >> restoreShift) &^ (k & sheetNoRestores >> noRestoreShift)
	if fades&^restores != 0 {
		k |= sheetDrawn | sheetOtherHide
	}
	return k
}

// fadeHides returns the fadeGroups (a bit each) by which the compacted
// declarations st hide letters, when they hide them by nothing else and
// not with !important (which an animation does not override); else 0.
func fadeHides(st []byte) uint8 {
	if hidingStyle(withoutProps(st, fadeProps)) {
		return 0
	}
	var g uint8
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
func onlyProps(st []byte, props []string) []byte {
	var out []byte
	for decl := range bytes.SplitSeq(st, []byte(";")) {
		name, _, _ := bytes.Cut(decl, []byte(":"))
		for _, p := range props {
			if string(name) == p {
				out = append(append(out, decl...), ';')
				break
			}
		}
	}
	return out
}

// frameShows returns, for the compacted declarations st of a keyframe,
// the fadeGroups it sets to values that do not hide (shows) and those it
// sets to values that hide (hides).
func frameShows(st []byte) (shows, hides uint8) {
	for i, props := range fadeGroups {
		only := onlyProps(st, props)
		switch {
		case len(only) == 0:
		case hidingStyle(only):
			hides |= 1 << i
		default:
			shows |= 1 << i
		}
	}
	return shows, hides
}

// animationRestores returns the fadeGroups that the animation declared in
// decls (a rule's declarations, or a style attribute) shows again for
// good: the groups the last frame of one of its animations shows
// (restoring, by the @keyframes rule's name as written), when that
// animation runs once, forwards (or both), with a plain duration and delay
// under longAnimation, not paused or reversed. Only the animation
// shorthand is followed, as its only declaration in decls or with
// others that give the same; longhands give nothing.
func animationRestores(decls []byte, restoring map[string]uint8) uint8 {
	var g uint8
	seen := false
	if bytes.Contains(decls, []byte("/*")) {
		decls = stripCSSComments(decls) // /**/animation:none is a declaration
	}
	for decl := range bytes.SplitSeq(decls, []byte(";")) {
		prop, v, _ := bytes.Cut(decl, []byte(":"))
		prop = bytes.ToLower(bytes.TrimSpace(prop))
		if bytes.IndexByte(prop, '\\') >= 0 {
			prop = cssUnescape(nil, prop) // anim\61tion
		}
		prop = bytes.TrimPrefix(prop, []byte("-webkit-"))
		if !bytes.HasPrefix(prop, []byte("animation")) {
			continue
		}
		if string(prop) != "animation" {
			return 0 // a longhand: how it combines is not followed
		}
		var one uint8
		v = bytes.TrimSuffix(bytes.TrimSpace(v), []byte("!important"))
		for _, item := range splitTopLevel(v, ',') {
			name, quick := animationItem(item)
			if quick {
				one |= restoring[string(name)]
			}
		}
		if seen {
			g &= one // several: the one that applies is not followed
		} else {
			g, seen = one, true
		}
	}
	return g
}

// animationItem reads one animation of an animation shorthand's list:
// its name, and whether it ends quickly and stays on its last frame (see
// animationRestores).
func animationItem(item []byte) (name []byte, quick bool) {
	forwards, times := false, 0
	item = bytes.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			return ' '
		}
		return r
	}, item)
	for _, tok := range splitTopLevel(item, ' ') {
		if len(tok) == 0 {
			continue
		}
		low := bytes.ToLower(tok)
		if n := numberEnd(low); n > 0 {
			f, err := strconv.ParseFloat(string(low[:n]), 64)
			switch unit := string(low[n:]); {
			case err != nil:
				return nil, false
			case unit == "s" || unit == "ms":
				if unit == "ms" {
					f /= 1000
				}
				if times++; times > 2 || f >= longAnimation {
					return nil, false
				}
			case unit == "" && f == 1: // runs once
			default:
				return nil, false // another count, or not a time
			}
			continue
		}
		if i := bytes.IndexByte(low, '('); i >= 0 {
			// A timing function changes the pace, not the end; any other
			// (calc(), var()) is not followed.
			switch string(low[:i]) {
			case "cubic-bezier", "steps", "linear":
				continue
			}
			return nil, false
		}
		switch string(low) {
		case "forwards", "both":
			forwards = true
		case "ease", "ease-in", "ease-out", "ease-in-out", "linear", "step-start", "step-end", "normal", "running":
		case "none", "backwards", "infinite", "paused", "reverse", "alternate", "alternate-reverse",
			"inherit", "initial", "unset", "revert", "revert-layer":
			return nil, false
		default:
			if name != nil {
				return nil, false // two names: not an animation we read
			}
			name = bytes.Trim(tok, `"'`)
		}
	}
	return name, name != nil && forwards
}

// withoutTimingFunctions returns the lower-cased animation value v
// without its timing functions (cubic-bezier(), steps(), linear()), which
// change an animation's pace but not when it ends, and whose numbers are
// not counts or times.
func withoutTimingFunctions(v []byte) []byte {
	for _, fn := range []string{"cubic-bezier(", "steps(", "linear("} {
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

// simpleSelectorList reports whether each selector of the list sel is a
// single compound of an element name, classes and ids, with no escape,
// attribute, pseudo-class or combinator: one that sheetElem.matches tells
// exactly, as animationRestores needs.
func simpleSelectorList(sel []byte) bool {
	for _, one := range bytes.Split(sel, []byte(",")) {
		one = bytes.TrimSpace(one)
		if len(one) == 0 {
			return false
		}
		for i := 0; i < len(one); i++ {
			switch c := one[i]; {
			case c == '.' || c == '#':
				if i+1 == len(one) || !isCSSIdent(one[i+1]) || one[i+1] == '-' && i+2 < len(one) && one[i+2] >= '0' && one[i+2] <= '9' {
					return false
				}
			case c >= '0' && c <= '9':
				if i == 0 || !isCSSIdent(one[i-1]) {
					return false
				}
			case isCSSIdent(c) && c < 0x80:
			default:
				return false
			}
		}
	}
	return true
}

// animationLengthens reports whether the compacted declarations st set
// an animation's longhand so that it may run long, start late, repeat,
// pause, run backwards or follow a timeline other than time (see
// animationHides); and whether they set its fill mode to other than
// forwards, which animationRestores needs.
func animationLengthens(st []byte) (lengthens, fills bool) {
	for decl := range bytes.SplitSeq(st, []byte(";")) {
		prop, v, ok := bytes.Cut(decl, []byte(":"))
		prop = bytes.TrimPrefix(prop, []byte("-webkit-"))
		if !ok || !bytes.HasPrefix(prop, []byte("animation-")) {
			continue
		}
		v = bytes.TrimSuffix(v, []byte("!important"))
		for _, item := range bytes.Split(v, []byte(",")) {
			switch string(prop) {
			case "animation-name", "animation-timing-function":
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

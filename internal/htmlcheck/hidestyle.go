package htmlcheck

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Inline styles hide letters without a zero as well: a font size or
// opacity too small to see, zoom, filter: opacity(), a colour with no
// alpha, an element moved a thousand pixels away (fourth outside attack,
// row 26). farDecls reads each declaration of a compacted style for
// these.

// minReadablePixels is the font size below which letters are dots: a
// letter of 1 or 2 pixels between two words draws nothing a visitor can
// read (an outside tester's, row 928).
const minReadablePixels = 3

// fontShorthandHides reports whether the inline style sets, with the font
// shorthand, a size too small to read ("font:0/0 a", "italic 1px
// serif"): a length before its "/", or any when it has none.
func fontShorthandHides(style, st []byte) bool {
	if !containsFold(style, "font") {
		return false
	}
	if bytes.Contains(style, []byte("/*")) {
		style = stripCSSComments(style)
	}
	if bytes.IndexByte(style, '\\') >= 0 {
		style = cssUnescape(nil, style)
	}
	for decl := range bytes.SplitSeq(style, []byte(";")) {
		name, v, ok := bytes.Cut(decl, []byte(":"))
		if !ok || !asciiEqualFold(bytes.TrimSpace(name), "font") {
			continue
		}
		v, _, _ = bytes.Cut(v, []byte("/"))
		for _, w := range bytes.Fields(bytes.ToLower(v)) {
			if px, ok := cssSize(w, st); ok && px < minReadablePixels {
				return true
			}
		}
	}
	return false
}

// cssSize reads the length v of the compacted style st in pixels, also
// through var() of a custom property st declares (or its fallback), and
// through calc() (sums, differences, products and quotients), min() (its
// least length), max() (its greatest), clamp() (its lower bound), abs()
// and round() (its value), so that calc(1px - 1px), max(0px,.1px) and
// var(--z) are read.
func cssSize(v, st []byte) (float64, bool) { return cssSizeIn(v, st, 0) }

// maxSizeDepth bounds the var() references and nested functions cssSize
// follows.
const maxSizeDepth = 8

func cssSizeIn(v, st []byte, depth int) (float64, bool) {
	if depth > maxSizeDepth {
		return 0, false
	}
	if px, ok := cssPixels(v); ok {
		return px, true
	}
	open := bytes.IndexByte(v, '(')
	if open <= 0 || v[len(v)-1] != ')' {
		return 0, false
	}
	fn, args := string(v[:open]), v[open+1:len(v)-1]
	switch fn {
	case "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "exp", "pow", "log", "sqrt", "hypot",
		"mod", "rem", "sign", "sibling-index", "sibling-count", "progress", "random", "if", "attr":
		return 0, true // not followed: taken as nothing, which hides
	case "var":
		name, fallback, hasFallback := bytes.Cut(args, []byte(","))
		if def := styleValue(st, string(name)); def != nil {
			return cssSizeIn(def, st, depth+1)
		}
		if hasFallback {
			return cssSizeIn(fallback, st, depth+1)
		}
	case "calc":
		return calcSize(args, st, depth+1)
	case "min", "max", "clamp", "abs", "round":
		var sizes []float64
		known := true
		for _, arg := range splitArgs(args) {
			if px, ok := cssSizeIn(arg, st, depth+1); ok {
				sizes = append(sizes, px)
			} else {
				known = false
			}
			if fn == "clamp" || fn == "abs" || fn == "round" {
				break // the lower bound, or the value
			}
		}
		switch {
		case len(sizes) == 0:
		case fn == "min":
			return slices.Min(sizes), true // no more than the least known
		case fn == "max" && known:
			return slices.Max(sizes), true
		case fn == "abs":
			return math.Abs(sizes[0]), true
		case fn != "max":
			return sizes[0], true
		}
	}
	return 0, false
}

// splitArgs splits the arguments of a CSS function at its commas, not
// at those of the functions inside it.
func splitArgs(args []byte) [][]byte {
	var out [][]byte
	depth, start := 0, 0
	for i, c := range args {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, args[start:i])
				start = i + 1
			}
		}
	}
	return append(out, args[start:])
}

// calcSize evaluates the compacted calc() expression e in pixels: a sum
// of products of lengths, numbers and functions (see cssSizeIn), or of
// expressions in parentheses.
func calcSize(e, st []byte, depth int) (float64, bool) {
	if depth > maxSizeDepth {
		return 0, false
	}
	sum, product := 0.0, 0.0
	op := byte(0) // '*' or '/' before the next factor; 0 for a new term
	have := false
	for i := 0; i < len(e); {
		switch c := e[i]; {
		case c == '*' || c == '/':
			if !have || op != 0 {
				return 0, false
			}
			op = c
			i++
			continue
		case c == '+' && have && op == 0:
			i++ // the sign of the next term, read with it
			continue
		}
		// A factor: a number, a length, a function or a group, with a
		// sign.
		sign := 1.0
		if e[i] == '-' || e[i] == '+' {
			if e[i] == '-' {
				sign = -1
			}
			i++
		}
		var f float64
		switch {
		case i < len(e) && e[i] == '(':
			arg, n := parenArg(e[i:])
			k := i + n
			v, ok := calcSize(arg, st, depth+1)
			if !ok {
				return 0, false
			}
			f, i = v, k
		case i < len(e) && (e[i] >= 'a' && e[i] <= 'z'):
			j := bytes.IndexByte(e[i:], '(')
			if j < 0 {
				return 0, false
			}
			k := i + j + skipTo(e[i+j:], ')')
			v, ok := cssSizeIn(e[i:k], st, depth+1)
			if !ok {
				return 0, false
			}
			f, i = v, k
		default:
			n := numberEnd(e[i:])
			if n == 0 {
				return 0, false
			}
			k := i + n
			for k < len(e) && (e[k] >= 'a' && e[k] <= 'z' || e[k] == '%') {
				k++
			}
			if k == i+n {
				f, _ = strconv.ParseFloat(string(e[i:k]), 64) // a number
			} else if px, ok := cssPixels(e[i:k]); ok {
				f = px
			} else {
				return 0, false
			}
			i = k
		}
		f *= sign
		switch {
		case !have:
			product, have = f, true
		case op == '*':
			product *= f
		case op == '/':
			if f == 0 {
				return 0, false
			}
			product /= f
		default: // a new term
			sum += product
			product = f
		}
		op = 0
	}
	if !have || op != 0 {
		return 0, false
	}
	return sum + product, true
}

// farOffset is the offset, in CSS pixels either way, that moves letters
// out of sight on any screen.
const farOffset = 1000

// offsetProps are the properties whose large values move an element's
// letters away from the letters around it.
var offsetProps = map[string]bool{
	"left": true, "top": true, "right": true, "bottom": true,
	"margin-left": true, "margin-top": true, "text-indent": true,
	"inset-inline-start": true, "inset-block-start": true,
	"margin-inline-start": true, "margin-block-start": true,
}

// farDecls reports whether a declaration of the compacted (lower-cased,
// spaceless) style st hides its element's text: font-size below 1px,
// opacity or zoom below 0.05, filter: opacity() below 0.05, a transform
// that scales below 0.05, a text colour with zero alpha or mixed with a
// clear one, a mask, an offset (see offsetProps) of farOffset or more.
func farDecls(st []byte) bool {
	for decl := range bytes.SplitSeq(st, []byte(";")) {
		i := bytes.IndexByte(decl, ':')
		if i <= 0 {
			continue
		}
		prop := strings.TrimPrefix(string(decl[:i]), "-webkit-") // -webkit-filter is filter
		v := bytes.TrimSuffix(decl[i+1:], []byte("!important"))
		switch {
		case prop == "font-size":
			if px, ok := cssSize(v, st); ok && px < minReadablePixels {
				return true
			}
			if bytes.Contains(v, []byte("attr(")) || bytes.Contains(v, []byte("if(")) {
				return true // a size from an attribute or a condition: not told, taken as too small
			}
		case prop == "font-size-adjust":
			if f, ok := cssFraction(v); ok && f < 0.05 {
				return true // letters scaled to an x-height of nothing
			}
		case prop == "opacity" || prop == "zoom":
			if f, ok := cssNumber(v, st); ok && f < 0.05 {
				return true
			}
		case prop == "filter":
			if j := bytes.Index(v, []byte("opacity(")); j >= 0 {
				arg, _ := parenArg(v[j+len("opacity"):])
				if f, ok := cssNumber(arg, st); ok && f < 0.05 {
					return true
				}
			}
			if j := bytes.Index(v, []byte("blur(")); j >= 0 {
				arg, _ := parenArg(v[j+len("blur"):])
				if px, ok := cssSize(arg, st); ok && px >= maxReadableBlur {
					return true // smeared past reading
				}
			}
		case prop == "width" || prop == "height" || prop == "inline-size" || prop == "block-size" || prop == "max-width" || prop == "max-height":
			if px, ok := cssSize(v, st); ok && px < 1 && px >= 0 {
				return true // a box under a pixel, its letters clipped or spilt
			}
		case prop == "contain":
			if bytes.Contains(v, []byte("size")) || bytes.Contains(v, []byte("strict")) {
				return true // sized as if empty
			}
		case prop == "color" || prop == "-webkit-text-fill-color":
			if clearColour(varValue(v, st)) {
				return true
			}
		case prop == "rotate":
			// rotate: y 90deg turns the element edge-on.
			if len(v) > 1 && (v[0] == 'x' || v[0] == 'y') {
				if rad, ok := cssAngle(v[1:]); ok && math.Abs(math.Cos(rad)) < 0.05 {
					return true
				}
			}
		case prop == "scale":
			// A single scale under 0.05 (scale:.01, 1%).
			if f, ok := cssFraction(v); ok && f < 0.05 && f > -0.05 {
				return true
			}
		case prop == "translate" || prop == "transform":
			if translatedFar(v, prop == "translate") {
				return true
			}
			// Pushed far behind a close perspective.
			if prop == "transform" && bytes.Contains(v, []byte("perspective(")) && bytes.Contains(v, []byte("translatez(-")) {
				return true
			}
			if prop == "transform" && edgeOn(v) {
				return true
			}
			// A scale under 0.05 anywhere in the list, on either axis
			// (scaleX(0), rotate(1deg) scale(0.01)).
			for _, fn := range []string{"scale(", "scalex(", "scaley(", "scale3d("} {
				for rest := v; ; {
					i := bytes.Index(rest, []byte(fn))
					if i < 0 {
						break
					}
					rest = rest[i+len(fn):]
					args := rest
					if k := bytes.IndexByte(args, ')'); k >= 0 {
						args = args[:k]
					}
					// Each axis (scale(1,0) flattens the letters).
					for _, arg := range bytes.Split(args, []byte(",")) {
						if f, ok := cssFraction(arg); ok && f < 0.05 && f > -0.05 {
							return true
						}
					}
				}
			}
		case prop == "mask" || prop == "mask-image" || prop == "-webkit-mask" || prop == "-webkit-mask-image":
			// A mask draws only where its image is opaque: a clear
			// gradient or image hides the letters (row 930). Masks
			// are for pictures; letters with one are taken as hidden.
			switch string(v) {
			case "", "none", "initial", "unset", "inherit", "revert", "revert-layer":
			default:
				return true
			}
		case offsetProps[prop]:
			if px, ok := cssPixels(v); ok && (px >= farOffset || px <= -farOffset) {
				return true
			}
			if viewportsAway(v) {
				return true
			}
		}
	}
	return false
}

// edgeOn reports whether the compacted transform list v turns or
// squashes its element so that it is drawn as good as a line: a rotation
// about the x or y axis whose cosine is under 0.05 (rotateY(90deg)), or
// a matrix whose area is under 0.05 of the element's (matrix(0,0,0,1,0,0)).
func edgeOn(v []byte) bool {
	for _, fn := range []string{"rotatex(", "rotatey(", "rotate3d(", "matrix(", "matrix3d("} {
		for rest := v; ; {
			i := bytes.Index(rest, []byte(fn))
			if i < 0 {
				break
			}
			if i > 0 && isCSSIdent(rest[i-1]) {
				rest = rest[i+len(fn):] // another function's name ends so
				continue
			}
			rest = rest[i+len(fn):]
			end := bytes.IndexByte(rest, ')')
			if end < 0 {
				break
			}
			args := splitArgs(rest[:end])
			var nums []float64
			for _, a := range args {
				f, err := strconv.ParseFloat(string(a), 64)
				if err != nil {
					nums = nil
					break
				}
				nums = append(nums, f)
			}
			switch fn {
			case "rotatex(", "rotatey(":
				if rad, ok := cssAngle(rest[:end]); ok && math.Abs(math.Cos(rad)) < 0.05 {
					return true
				}
			case "rotate3d(":
				// About the x or y axis only.
				if len(args) == 4 {
					x, ex := strconv.ParseFloat(string(args[0]), 64)
					y, ey := strconv.ParseFloat(string(args[1]), 64)
					z, ez := strconv.ParseFloat(string(args[2]), 64)
					if ex == nil && ey == nil && ez == nil && z == 0 && (x == 0) != (y == 0) {
						if rad, ok := cssAngle(args[3]); ok && math.Abs(math.Cos(rad)) < 0.05 {
							return true
						}
					}
				}
			case "matrix(":
				if len(nums) == 6 && math.Abs(nums[0]*nums[3]-nums[1]*nums[2]) < 0.05 {
					return true
				}
			case "matrix3d(":
				if len(nums) == 16 && math.Abs(nums[0]*nums[5]-nums[1]*nums[4]) < 0.05 {
					return true
				}
			}
		}
	}
	return false
}

// cssDimension reads v, a number and its unit ("-0.5em", "90deg", "0").
func cssDimension(v []byte) (f float64, unit string, ok bool) {
	n := numberEnd(v)
	if n == 0 {
		return 0, "", false
	}
	f, err := strconv.ParseFloat(string(v[:n]), 64)
	return f, string(v[n:]), err == nil
}

// cssAngle reads the angle a (deg, rad, grad, turn) in radians.
func cssAngle(a []byte) (float64, bool) {
	f, unit, ok := cssDimension(a)
	if !ok {
		return 0, false
	}
	switch unit {
	case "deg":
		return f * math.Pi / 180, true
	case "rad":
		return f, true
	case "grad":
		return f * math.Pi / 200, true
	case "turn":
		return f * 2 * math.Pi, true
	case "":
		return 0, f == 0
	}
	return 0, false
}

// maxReadableBlur is the blur radius, in pixels, past which letters
// cannot be read.
const maxReadableBlur = 20

// cssNumber reads v, a number, a percentage or a calc() or other function
// of numbers (see cssSizeIn), as a number.
func cssNumber(v, st []byte) (float64, bool) {
	if f, ok := cssFraction(v); ok {
		return f, true
	}
	if bytes.IndexByte(v, '(') > 0 {
		return cssSizeIn(v, st, 0)
	}
	return 0, false
}

// viewportsAway reports whether the offset v moves an element a whole
// viewport or more (100vw, calc(-100vw), -100dvh), which is off any
// screen whatever its size.
func viewportsAway(v []byte) bool {
	for i := 0; i < len(v); i++ {
		n := numberEnd(v[i:])
		if n == 0 {
			continue
		}
		f, err := strconv.ParseFloat(string(v[i:i+n]), 64)
		unit := v[i+n:]
		if err == nil && (f >= 100 || f <= -100) {
			for _, u := range []string{"vw", "vh", "vi", "vb", "vmin", "vmax", "svw", "svh", "lvw", "lvh", "dvw", "dvh"} {
				if bytes.HasPrefix(unit, []byte(u)) {
					return true
				}
			}
		}
		i += n - 1
	}
	return false
}

// cssUnitPixels are CSS length units in pixels, font-relative ones at the
// default 16px font and viewport ones on a 320px-wide phone.
var cssUnitPixels = map[string]float64{
	"px": 1, "em": 16, "rem": 16, "lh": 16, "rlh": 16, "cap": 11, "ic": 16, "ex": 8, "ch": 8,
	"%": 0.16, "pt": 4.0 / 3, "pc": 16, "in": 96, "cm": 96 / 2.54, "mm": 96 / 25.4, "q": 96 / 101.6,
	"vw": 3.2, "vh": 3.2, "vmin": 3.2, "vmax": 3.2, "svw": 3.2, "svh": 3.2, "lvw": 3.2, "lvh": 3.2,
	"dvw": 3.2, "dvh": 3.2, "vi": 3.2, "vb": 3.2, "cqw": 3.2, "cqh": 3.2,
}

// cssPixels reads the length v ("0.01em", "-99999px", "0") in pixels.
func cssPixels(v []byte) (float64, bool) {
	f, unit, ok := cssDimension(v)
	if !ok {
		return 0, false
	}
	if unit == "" {
		// A unitless length is only 0, except in quirks mode (a page
		// without a doctype), where it is in pixels: read so.
		return f, true
	}
	k, ok := cssUnitPixels[unit]
	return f * k, ok
}

// cssFraction reads the number or percentage v ("0.001", "1%") as a
// fraction of one.
func cssFraction(v []byte) (float64, bool) {
	n := numberEnd(v)
	if n == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v[:n]), 64)
	switch {
	case err != nil:
		return 0, false
	case n == len(v):
		return f, true
	case string(v[n:]) == "%":
		return f / 100, true
	}
	return 0, false
}

// numberEnd returns the length of the CSS number that v starts with.
func numberEnd(v []byte) int {
	i := 0
	if i < len(v) && (v[i] == '-' || v[i] == '+') {
		i++
	}
	digits := 0
	for i < len(v) && ('0' <= v[i] && v[i] <= '9' || v[i] == '.') {
		i++
		digits++
	}
	if digits == 0 {
		return 0
	}
	if i+1 < len(v) && v[i] == 'e' && ('0' <= v[i+1] && v[i+1] <= '9' || v[i+1] == '-') {
		i += 2
		for i < len(v) && '0' <= v[i] && v[i] <= '9' {
			i++
		}
	}
	return i
}

// clearColour reports whether the colour v (compacted) has zero alpha:
// transparent, #rgba or #rrggbbaa with alpha 0, rgb()/rgba()/hsl()/
// hsla()/hwb()/lab()/… with an alpha of 0 after a comma or a slash, or
// color-mix() with such a colour.
func clearColour(v []byte) bool {
	switch {
	case string(v) == "transparent", string(v) == "canvas":
		// Canvas is the page's own background colour.
		return true
	case bytes.HasPrefix(v, []byte("light-dark(")):
		// Either scheme's colour may be the one drawn.
		for arg := range bytes.SplitSeq(bytes.TrimSuffix(v[len("light-dark("):], []byte(")")), []byte(",")) {
			if clearColour(arg) {
				return true
			}
		}
		return false
	case bytes.HasPrefix(v, []byte("color-mix(")):
		// color-mix(in srgb, red 0%, transparent) is clear; a mix
		// with a clear colour is taken as clear (row 930).
		for arg := range bytes.SplitSeq(v[len("color-mix("):], []byte(",")) {
			arg = bytes.TrimSuffix(arg, []byte(")"))
			if clearColour(arg) || clearColour(bytes.TrimRight(arg, "0123456789.%")) {
				return true
			}
			// "#0000 100%", compacted: a hex colour is 4, 5, 7 or 9
			// long, and the rest its share.
			for _, n := range []int{5, 9} {
				if len(arg) > n && arg[0] == '#' && clearColour(arg[:n]) && bytes.HasSuffix(arg, []byte("%")) && numberEnd(arg[n:]) == len(arg)-n-1 {
					return true
				}
			}
		}
		return false
	case len(v) == 5 && v[0] == '#' && v[4] == '0':
		return allHex(v[1:])
	case len(v) == 9 && v[0] == '#' && v[7] == '0' && v[8] <= 'c' && (v[8] <= '9' || v[8] >= 'a'):
		return allHex(v[1:]) // an alpha of 12/255 or less
	}
	open := bytes.IndexByte(v, '(')
	if open <= 0 || !bytes.HasSuffix(v, []byte(")")) {
		return false
	}
	args := v[open+1 : len(v)-1]
	sep := bytes.LastIndexByte(args, '/')
	if bytes.HasPrefix(args, []byte("from")) {
		// A relative colour: clear when its origin is, or when its
		// alpha is computed (calc(alpha - 1)).
		if bytes.Contains(args, []byte("transparent")) || sep >= 0 && bytes.IndexByte(args[sep:], '(') >= 0 {
			return true
		}
	}
	if sep < 0 {
		if bytes.Count(args, []byte(",")) != 3 {
			return false
		}
		sep = bytes.LastIndexByte(args, ',')
	}
	alpha := args[sep+1:]
	if string(alpha) == "none" {
		return true // a missing alpha is 0
	}
	f, ok := cssNumber(alpha, nil)
	return ok && f < 0.05
}

// translatedFar reports whether the compacted value v moves an element
// farOffset or more along an axis: a translate, translateX, translateY or
// translate3d in a transform, or, if property, the value of the translate
// property, whose lengths compaction has run together ("0-9999px" reads 0
// and -9999px).
func translatedFar(v []byte, property bool) bool {
	fns := []string{"translate(", "translatex(", "translatey(", "translate3d("}
	if property {
		fns = []string{""}
	}
	for _, fn := range fns {
		rest := v
		if fn != "" {
			i := bytes.Index(v, []byte(fn))
			if i < 0 {
				continue
			}
			rest = v[i+len(fn):]
		}
		for len(rest) > 0 {
			n := numberEnd(rest)
			if n == 0 {
				rest = rest[1:]
				continue
			}
			k := n
			for k < len(rest) && (rest[k] >= 'a' && rest[k] <= 'z' || rest[k] == '%') {
				k++
			}
			if px, ok := cssPixels(rest[:k]); ok && (px >= farOffset || px <= -farOffset) {
				return true
			}
			rest = rest[k:]
			if fn != "" && len(rest) > 0 && rest[0] == ')' {
				break
			}
		}
	}
	return false
}

// varValue returns the compacted value v with a var() of it resolved by
// the custom properties the compacted style st declares, or its
// fallback, up to maxSizeDepth references.
func varValue(v, st []byte) []byte {
	for range maxSizeDepth {
		args, ok := bytes.CutPrefix(v, []byte("var("))
		if !ok || len(args) == 0 || args[len(args)-1] != ')' {
			return v
		}
		name, fallback, hasFallback := bytes.Cut(args[:len(args)-1], []byte(","))
		switch def := styleValue(st, string(name)); {
		case def != nil:
			v = def
		case hasFallback:
			v = fallback
		default:
			return v
		}
	}
	return v
}

// allHex reports whether b is all hexadecimal digits.
func allHex(b []byte) bool {
	for _, c := range b {
		if !isHex(c) {
			return false
		}
	}
	return true
}

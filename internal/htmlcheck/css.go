package htmlcheck

import (
	"bytes"
	"unicode/utf8"
)

// cssKind says what a reference found in CSS is.
type cssKind int

const (
	cssImport cssKind = iota // an @import rule; val is the whole rule
	cssImage                 // url() or an image-set() string outside @font-face
	cssFont                  // url() inside @font-face
	cssText                  // the strings of a declaration that may draw them as text; val is them decoded and joined
	cssAttr                  // attr(name) in a declaration; val is the attribute name, decoded
)

// cssSpecial marks the bytes at which scanCSS has something to decide.
var cssSpecial = func() (t [256]bool) {
	for _, c := range []byte("/\"'{}@()\\:;") {
		t[c] = true
	}
	return t
}()

// scanCSS calls fn for each @import rule and each URL reference in the
// style sheet s, or the declaration list s if decls (a style attribute),
// with its byte span in s and the URL (or, for @import, the rule text).
// It skips comments and strings, and it is not a full CSS tokenizer: it
// only has to find url(…), image-set(…) and at-rules reliably.
//
// It also calls fn with cssText for each declaration whose value has
// strings, unless its property never draws them (see drawsNoText), with
// the strings decoded (CSS escapes) and joined, as content joins them:
// content: "Down" "load" draws "Download". Custom properties count, since
// var() can hand them to content. And it calls fn with cssAttr for each
// attr(name) in a declaration, whose value CSS may draw.
func scanCSS(s []byte, decls bool, fn func(k cssKind, start, end int, val []byte)) {
	n := len(s)
	// The declaration whose value the scan is in, if any.
	propStart := 0   // where the next property name may start
	inValue := false // after "property:"
	drawn := false   // and the property may draw strings as text
	var text []byte  // its strings so far, decoded; fn must not keep it
	textStart := -1
	flush := func(end int) {
		if len(text) > 0 && drawn {
			fn(cssText, textStart, end, text)
		}
		text, textStart, inValue, drawn = text[:0], -1, false, false
	}
	depth := 0           // brace depth
	fontDepth := -1      // brace depth of the @font-face block we are in, or -1
	pendingFont := false // an @font-face prelude was seen; its block is next
	paren := 0           // parenthesis depth
	setParen := -1       // paren depth of the image-set( we are in, or -1
	for i := 0; i < n; {
		for i < n && !cssSpecial[s[i]] {
			i++
		}
		if i >= n {
			flush(n)
			return
		}
		switch s[i] {
		case '\\':
			i += 2
		case '/':
			if i+1 < n && s[i+1] == '*' {
				e := bytes.Index(s[i+2:], []byte("*/"))
				if e < 0 {
					flush(n)
					return
				}
				i += e + 4
				if !inValue {
					propStart = i
				}
				continue
			}
			i++
		case '"', '\'':
			j := cssStringEnd(s, i)
			if paren == setParen { // not type("image/avif") inside it
				fn(cssImage, i, j, cssDecode(cssUnquote(s[i:j])))
			}
			if drawn {
				if textStart < 0 {
					textStart = i
				}
				text = cssUnescape(text, cssUnquote(s[i:j]))
			}
			i = j
		case ':':
			if !inValue && paren == 0 && (depth > 0 || decls) {
				if name, ok := cssDecodeIdent(bytes.Trim(s[propStart:i], " \t\n\r\f")); ok {
					inValue, drawn = true, !drawsNoText(name)
				}
			}
			i++
		case ';':
			flush(i)
			propStart = i + 1
			i++
		case '{':
			// What came before was a selector or an at-rule prelude,
			// not a declaration.
			text, textStart, inValue, drawn = text[:0], -1, false, false
			propStart = i + 1
			depth++
			if pendingFont {
				fontDepth, pendingFont = depth, false
			}
			i++
		case '}':
			flush(i)
			propStart = i + 1
			if depth == fontDepth {
				fontDepth = -1
			}
			depth = max(depth-1, 0)
			i++
		case '@':
			name := cssIdentAt(s, i+1)
			switch {
			case asciiEqualFold(name, "import"):
				end := cssRuleEnd(s, i)
				fn(cssImport, i, end, s[i:end])
				i = end
				continue
			case asciiEqualFold(name, "namespace"):
				// @namespace svg url(http://www.w3.org/2000/svg): a
				// name, not a fetch.
				i = cssRuleEnd(s, i)
				continue
			case asciiEqualFold(name, "font-face"):
				pendingFont = true
			}
			i += 1 + len(name)
		case '(':
			name := cssIdentBefore(s, i)
			switch {
			case asciiEqualFold(name, "url"):
				val, end := cssURLArg(s, i+1)
				k := cssImage
				if fontDepth >= 0 {
					k = cssFont
				}
				fn(k, i-3, end, val)
				i = end
				continue
			case asciiEqualFold(name, "image-set"), asciiEqualFold(name, "-webkit-image-set"):
				if setParen < 0 {
					setParen = paren + 1
				}
			case inValue && asciiEqualFold(name, "attr"):
				j := i + 1
				for j < n && isCSSSpace(s[j]) {
					j++
				}
				k := j
				for k < n && (isCSSIdent(s[k]) || s[k] == '\\') {
					if s[k] == '\\' {
						k++
					}
					k++
				}
				if a, ok := cssDecodeIdent(s[j:min(k, n)]); ok {
					fn(cssAttr, i-4, min(k, n), a)
				}
			}
			paren++
			i++
		case ')':
			if paren == setParen {
				setParen = -1
			}
			paren = max(paren-1, 0)
			i++
		}
	}
	flush(n)
}

// cssStringEnd returns the offset just past the string starting at s[i].
func cssStringEnd(s []byte, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(s)
}

// cssSkip returns where the escape, string or comment that starts at
// s[i] ends (the end of s for a comment left open), or i if none does.
func cssSkip(s []byte, i int) int {
	switch s[i] {
	case '\\':
		return i + escapeLen(s[i:])
	case '"', '\'':
		return cssStringEnd(s, i)
	case '/':
		if i+1 < len(s) && s[i+1] == '*' {
			if e := bytes.Index(s[i+2:], []byte("*/")); e >= 0 {
				return i + e + 4
			}
			return len(s)
		}
	}
	return i
}

// cssBrackets are the closing brackets that the '(', '[' and '{' read so
// far wait for, innermost last.
type cssBrackets []byte

// feed reads the character c: a bracket opens or, if it is the one
// awaited, closes; CSS reads another closing bracket as a plain token.
func (b *cssBrackets) feed(c byte) {
	switch c {
	case '(':
		*b = append(*b, ')')
	case '[':
		*b = append(*b, ']')
	case '{':
		*b = append(*b, '}')
	case ')', ']', '}':
		if n := len(*b); n > 0 && (*b)[n-1] == c {
			*b = (*b)[:n-1]
		}
	}
}

// cssUnquote returns the contents of the quoted string str.
func cssUnquote(str []byte) []byte {
	if len(str) >= 1 {
		str = str[1:]
	}
	if len(str) >= 1 && (str[len(str)-1] == '"' || str[len(str)-1] == '\'') {
		str = str[:len(str)-1]
	}
	return str
}

// cssURLArg parses the argument of url( starting at s[i] and returns the URL,
// with its escapes decoded, and the offset just past the closing
// parenthesis.
func cssURLArg(s []byte, i int) ([]byte, int) {
	for i < len(s) && isCSSSpace(s[i]) {
		i++
	}
	var val []byte
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		j := cssStringEnd(s, i)
		val = cssUnquote(s[i:j])
		i = j
	} else {
		j := i
		for j < len(s) && s[j] != ')' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		j = min(j, len(s))
		val = bytes.TrimRight(s[i:j], " \t\n\r\f")
		i = j
	}
	val = cssDecode(val)
	k := i
	for k < len(s) && isCSSSpace(s[k]) {
		k++
	}
	if k < len(s) && s[k] == ')' {
		return val, k + 1
	}
	if k := bytes.IndexByte(s[i:], ')'); k >= 0 && k < 256 {
		return val, i + k + 1
	}
	return val, i
}

// cssDecode returns the contents of a CSS string or URL token with its
// escapes decoded: url(\68ttps://…) is an https: URL.
func cssDecode(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	return cssUnescape(nil, b)
}

// cssRuleEnd returns the end of the at-rule starting at s[i]: just past its
// semicolon, or at the next brace or the end.
func cssRuleEnd(s []byte, i int) int {
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '"', '\'':
			j = cssStringEnd(s, j) - 1
		case ';':
			return j + 1
		case '{', '}':
			return j
		}
	}
	return len(s)
}

func isCSSSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func isCSSIdent(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c >= 0x80
}

// cssIdentAt returns the identifier starting at s[i].
func cssIdentAt(s []byte, i int) []byte {
	j := i
	for j < len(s) && isCSSIdent(s[j]) {
		j++
	}
	return s[i:j]
}

// cssIdentBefore returns the identifier that ends just before s[i].
func cssIdentBefore(s []byte, i int) []byte {
	j := i
	for j > 0 && isCSSIdent(s[j-1]) {
		j--
	}
	return s[j:i]
}

// cssURLOK reports whether a URL referenced from CSS loads in the sandbox
// (a data: URI or an absolute https: URL), or is no fetch at all (empty, or
// a fragment reference such as the url(#grad) of an SVG gradient).
func cssURLOK(u []byte) bool {
	u = trimURL(u)
	return len(u) == 0 || u[0] == '#' || urlLoads(u)
}

// drawsNoText reports whether the property name (lower-cased) never draws
// its strings as text: font names, grid area names. Every other
// property's strings are read, those of content, quotes, list-style-type,
// text-overflow, hyphenate-character, @counter-style descriptors and
// custom properties among them, because reading an unknown property's
// strings costs a false positive in the rare page that quotes a call to
// download there, and skipping one that draws costs a fake button.
func drawsNoText(name []byte) bool {
	switch string(name) {
	case "font-family", "font", "src", "font-feature-settings", "font-variation-settings",
		"font-language-override", "grid-template-areas", "grid-template", "grid", "grid-area",
		"animation-name", "animation", "will-change", "syntax":
		return true
	}
	return false
}

// cssUnescape appends the contents of a CSS string, without its quotes,
// to dst with escapes decoded
// (https://www.w3.org/TR/css-syntax-3/#consume-escaped-code-point): a
// backslash and up to six hex digits, then one optional white space, are
// that code point (U+FFFD for zero, surrogates and beyond U+10FFFF); a
// backslash before a newline is nothing; before any other character, that
// character.
func cssUnescape(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		b := s[i]
		if b != '\\' {
			dst = append(dst, b)
			i++
			continue
		}
		i++
		if i >= len(s) {
			break
		}
		if s[i] == '\n' || s[i] == '\f' || s[i] == '\r' {
			i++
			if s[i-1] == '\r' && i < len(s) && s[i] == '\n' {
				i++
			}
			continue
		}
		j, r := i, rune(0)
		for j < len(s) && j-i < 6 && isHex(s[j]) {
			r = r<<4 | rune(hexVal(s[j]))
			j++
		}
		if j == i {
			_, size := utf8.DecodeRune(s[i:])
			dst = append(dst, s[i:i+size]...)
			i += size
			continue
		}
		if r == 0 || r > utf8.MaxRune || (0xd800 <= r && r <= 0xdfff) {
			r = utf8.RuneError
		}
		dst = utf8.AppendRune(dst, r)
		i = j
		if i < len(s) && isCSSSpace(s[i]) {
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			i++
		}
	}
	return dst
}

// cssDecodeIdent returns the identifier s with escapes decoded and ASCII
// letters lower-cased, and whether s is an identifier (name characters
// and escapes, nothing else).
func cssDecodeIdent(s []byte) ([]byte, bool) {
	if len(s) == 0 {
		return nil, false
	}
	plain := true
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == '\\':
			// An escape: up to six hex digits and one white space, or
			// any one character.
			plain = false
			j := i + 1
			for j < len(s) && j-i <= 6 && isHex(s[j]) {
				j++
			}
			if j > i+1 && j < len(s) && isCSSSpace(s[j]) {
				j++
			}
			i = max(j-1, i+1)
		case !isCSSIdent(b):
			return nil, false
		case 'A' <= b && b <= 'Z':
			plain = false
		}
	}
	if plain {
		return s, true
	}
	d := cssUnescape(nil, s)
	for i, b := range d {
		if 'A' <= b && b <= 'Z' {
			d[i] = b + 'a' - 'A'
		}
	}
	return d, true
}

func isHex(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}

func hexVal(b byte) byte {
	switch {
	case b <= '9':
		return b - '0'
	case b <= 'F':
		return b - 'A' + 10
	}
	return b - 'a' + 10
}

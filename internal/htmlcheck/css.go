package htmlcheck

import "bytes"

// cssKind says what a reference found in CSS is.
type cssKind int

const (
	cssImport cssKind = iota // an @import rule; val is the whole rule
	cssImage                 // url() or an image-set() string outside @font-face
	cssFont                  // url() inside @font-face
)

// cssSpecial marks the bytes at which scanCSS has something to decide.
var cssSpecial = func() (t [256]bool) {
	for _, c := range []byte("/\"'{}@()\\") {
		t[c] = true
	}
	return t
}()

// scanCSS calls fn for each @import rule and each URL reference in the
// style sheet or declaration list s, with its byte span in s and the URL
// (or, for @import, the rule text). It skips comments and strings, and it
// is not a full CSS tokenizer: it only has to find url(…), image-set(…)
// and at-rules reliably.
func scanCSS(s []byte, fn func(k cssKind, start, end int, val []byte)) {
	n := len(s)
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
			return
		}
		switch s[i] {
		case '\\':
			i += 2
		case '/':
			if i+1 < n && s[i+1] == '*' {
				e := bytes.Index(s[i+2:], []byte("*/"))
				if e < 0 {
					return
				}
				i += e + 4
				continue
			}
			i++
		case '"', '\'':
			j := cssStringEnd(s, i)
			if setParen >= 0 && paren >= setParen {
				fn(cssImage, i, j, cssUnquote(s[i:j]))
			}
			i = j
		case '{':
			depth++
			if pendingFont {
				fontDepth, pendingFont = depth, false
			}
			i++
		case '}':
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

// cssURLArg parses the argument of url( starting at s[i] and returns the URL
// and the offset just past the closing parenthesis.
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
	if k := bytes.IndexByte(s[i:], ')'); k >= 0 && k < 256 {
		return val, i + k + 1
	}
	return val, i
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

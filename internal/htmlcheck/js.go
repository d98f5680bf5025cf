package htmlcheck

import (
	"bytes"
	"regexp"
)

// jsKind says what scanJS found.
type jsKind int

const (
	jsImport        jsKind = iota // a static import of a module specifier
	jsDynamicImport               // import("literal")
	jsImportScripts               // importScripts(…)
	jsClipboard                   // a clipboard write
	jsWindowOpen                  // window.open(…)
	jsTopNavigation               // top.location or parent.location
)

// execCommandCopy matches the arguments of document.execCommand that write
// the clipboard.
var execCommandCopy = regexp.MustCompile(`^\s*\(\s*["'` + "`" + `](?i:copy|cut)["'` + "`" + `]`)

func isJSIdent(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

func isJSSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// skipJSSpace returns the index of the first non-space byte of s at or
// after i.
func skipJSSpace(s []byte, i int) int {
	for i < len(s) && isJSSpace(s[i]) {
		i++
	}
	return i
}

// eachIndex calls fn with the offset of each occurrence of word in s.
func eachIndex(s []byte, word string, fn func(i int)) {
	w := []byte(word)
	for i := 0; ; {
		j := bytes.Index(s[i:], w)
		if j < 0 {
			return
		}
		fn(i + j)
		i += j + len(w)
	}
}

// scanJS calls fn for each construct in the script s that the sandbox
// blocks or that the rules care about, with its byte span in s and, for
// imports, the module specifier. It looks for a few keywords and checks
// their surroundings; it is not a JavaScript parser, so it errs on the
// side of reporting an import or clipboard write it sees.
func scanJS(s []byte, fn func(k jsKind, start, end int, detail []byte)) {
	nextBrace := -1 // memo for staticImportSpecifier
	eachIndex(s, "import", func(p int) {
		if p > 0 && (isJSIdent(s[p-1]) || s[p-1] == '.') {
			return
		}
		rest := s[p+len("import"):]
		if bytes.HasPrefix(rest, []byte("Scripts")) {
			if k := skipJSSpace(rest, len("Scripts")); k < len(rest) && rest[k] == '(' {
				fn(jsImportScripts, p, p+len("import")+k+1, nil)
			}
			return
		}
		if len(rest) > 0 && isJSIdent(rest[0]) {
			return
		}
		k := skipJSSpace(rest, 0)
		if k < len(rest) && rest[k] == '(' {
			m := skipJSSpace(rest, k+1)
			if m < len(rest) && (rest[m] == '"' || rest[m] == '\'' || rest[m] == '`') {
				spec, end := jsString(rest, m)
				if e := skipJSSpace(rest, end); e < len(rest) && rest[e] == ')' {
					end = e + 1
				}
				fn(jsDynamicImport, p, p+len("import")+end, spec)
			}
			return
		}
		if !jsStatementStart(s, p) {
			return
		}
		if q, end := staticImportSpecifier(s, p+len("import"), &nextBrace); q >= 0 {
			spec, e := jsString(s, q)
			fn(jsImport, p, max(e, end), spec)
		}
	})
	eachIndex(s, "clipboard", func(p int) {
		if p > 0 && isJSIdent(s[p-1]) {
			return
		}
		rest := s[p+len("clipboard"):]
		var m []byte
		switch {
		case bytes.HasPrefix(rest, []byte("Data")):
			m = []byte("setData")
		default:
			m = []byte("write")
		}
		// navigator.clipboard.writeText(…), navigator.clipboard?.write(…),
		// event.clipboardData.setData(…)
		w := rest[:min(len(rest), 24)]
		if i := bytes.Index(w, m); i >= 0 && bytes.IndexByte(w[:i], '.') >= 0 {
			fn(jsClipboard, p, p+len("clipboard")+i+len(m), nil)
		}
	})
	eachIndex(s, "execCommand", func(p int) {
		if p > 0 && isJSIdent(s[p-1]) {
			return
		}
		rest := s[p+len("execCommand"):]
		if loc := execCommandCopy.FindIndex(rest[:min(len(rest), 64)]); loc != nil {
			fn(jsClipboard, p, p+len("execCommand")+loc[1]+1, nil)
		}
	})
	eachIndex(s, "open", func(p int) {
		// window.open(…), and the same through self or globalThis.
		if p < 1 || s[p-1] != '.' {
			return
		}
		if k := skipJSSpace(s, p+len("open")); k >= len(s) || s[k] != '(' {
			return
		}
		obj := jsIdentBefore(s, p-1)
		switch string(obj) {
		case "window", "self", "globalThis", "top", "parent":
			fn(jsWindowOpen, p-1-len(obj), p+len("open"), nil)
		}
	})
	eachIndex(s, "location", func(p int) {
		if p+len("location") < len(s) && isJSIdent(s[p+len("location")]) {
			return
		}
		if p < 1 || s[p-1] != '.' {
			return
		}
		obj := jsIdentBefore(s, p-1)
		switch string(obj) {
		case "top", "parent":
			fn(jsTopNavigation, p-1-len(obj), p+len("location"), nil)
		}
	})
}

// jsIdentBefore returns the identifier that ends just before s[i]. An
// optional-chaining "?" before the dot is skipped.
func jsIdentBefore(s []byte, i int) []byte {
	if i > 0 && s[i-1] == '?' {
		i--
	}
	j := i
	for j > 0 && isJSIdent(s[j-1]) {
		j--
	}
	return s[j:i]
}

// jsStatementStart reports whether the keyword at s[p] starts a statement:
// only spaces, and then the start of the script, a newline, or ; { } or
// the end of a comment come before it. This keeps prose in strings ("…
// import your contacts from …") from counting as an import.
func jsStatementStart(s []byte, p int) bool {
	for p > 0 {
		c := s[p-1]
		switch {
		case c == '\n' || c == '\r' || c == ';' || c == '{' || c == '}':
			return true
		case c == '/' && p > 1 && s[p-2] == '*':
			return true
		case isJSSpace(c):
			p--
		default:
			return false
		}
	}
	return true
}

// jsString returns the contents of the string literal starting at s[i] and
// the offset just past it.
func jsString(s []byte, i int) ([]byte, int) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return s[i+1 : j], j + 1
		case '\n':
			if q != '`' {
				return s[i+1 : j], j
			}
		}
	}
	return s[i+1:], len(s)
}

// staticImportSpecifier parses the import clause that starts at s[i],
// just after the keyword, and returns the offset of the quote that starts
// the module specifier, or -1 when it is not a static import of a module.
// It accepts `"m"`, `x from "m"`, `* as x from "m"`, `{a, b as c} from
// "m"` and `x, {a} from "m"`. nextBrace remembers where the next "}" is,
// so that many "import {" without one stay linear.
func staticImportSpecifier(s []byte, i int, nextBrace *int) (quote, end int) {
	isQuote := func(c byte) bool { return c == '"' || c == '\'' || c == '`' }
	i = skipJSSpace(s, i)
	if i < len(s) && isQuote(s[i]) {
		return i, i
	}
	ident := func() bool {
		j := i
		for j < len(s) && isJSIdent(s[j]) {
			j++
		}
		ok := j > i
		i = skipJSSpace(s, j)
		return ok
	}
	if i < len(s) && isJSIdent(s[i]) {
		ident()
		if i < len(s) && s[i] == ',' {
			i = skipJSSpace(s, i+1)
		}
	}
	switch {
	case i < len(s) && s[i] == '*':
		i = skipJSSpace(s, i+1)
		if !bytes.HasPrefix(s[i:], []byte("as")) {
			return -1, 0
		}
		i = skipJSSpace(s, i+2)
		if !ident() {
			return -1, 0
		}
	case i < len(s) && s[i] == '{':
		if *nextBrace < i {
			*nextBrace = len(s)
			if k := bytes.IndexByte(s[i:], '}'); k >= 0 {
				*nextBrace = i + k
			}
		}
		if *nextBrace >= len(s) || *nextBrace-i > 4096 {
			return -1, 0
		}
		i = skipJSSpace(s, *nextBrace+1)
	}
	if !bytes.HasPrefix(s[i:], []byte("from")) {
		return -1, 0
	}
	i = skipJSSpace(s, i+len("from"))
	if i < len(s) && isQuote(s[i]) {
		return i, i
	}
	return -1, 0
}

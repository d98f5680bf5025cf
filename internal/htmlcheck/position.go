package htmlcheck

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxExcerpt is the longest excerpt, in runes, and maxExcerptBytes in
// bytes.
const (
	maxExcerpt      = 80
	maxExcerptBytes = 4*maxExcerpt + len("…")
)

// pending is a finding before its position is resolved: start and end are
// byte offsets in the original document.
type pending struct {
	rule     rule
	pos      int // where the offence is
	ex0, ex1 int // the source to excerpt
	msg      string
}

// finish resolves positions and excerpts of the pending findings, in one pass
// over the document in offset order, and splits them into errors and warnings.
func finish(doc []byte, ps []pending) Result {
	slices.SortStableFunc(ps, func(a, b pending) int { return cmp.Compare(a.pos, b.pos) })
	var res Result
	lc := newLineCounter(doc)
	for _, p := range ps {
		start, line, col := lc.at(p.pos)
		f := Finding{
			Rule:     rules[p.rule].name,
			Severity: rules[p.rule].sev,
			Message:  cleanMessage(p.msg),
			Line:     line,
			Column:   col,
			Excerpt:  excerpt(doc, min(max(p.ex0, 0), start), p.ex1),
			Hint:     rules[p.rule].hint,
		}
		if f.Severity == SeverityError {
			res.Errors = append(res.Errors, f)
		} else {
			res.Warnings = append(res.Warnings, f)
		}
	}
	return res
}

// lineCounter turns offsets in a document, visited in increasing order,
// into lines and columns.
type lineCounter struct {
	doc            []byte
	line, off, col int // col is the column of off
}

func newLineCounter(doc []byte) lineCounter {
	return lineCounter{doc: doc, line: 1, col: 1}
}

// at returns the line and column of offset pos, which must not be before
// the last one, and pos itself, kept within the document.
func (lc *lineCounter) at(pos int) (start, line, col int) {
	start = min(max(pos, lc.off), len(lc.doc))
	if n := bytes.Count(lc.doc[lc.off:start], []byte("\n")); n > 0 {
		lc.line += n
		lc.off, lc.col = lc.off+bytes.LastIndexByte(lc.doc[lc.off:start], '\n')+1, 1
	}
	lc.col += utf8.RuneCount(lc.doc[lc.off:start])
	lc.off = start
	return start, lc.line, lc.col
}

// excerpt returns the source from start to end on one line: white space
// collapsed, control characters and invalid UTF-8 replaced, at most
// maxExcerpt runes, ending in "…" when cut.
func excerpt(doc []byte, start, end int) string {
	var b [maxExcerptBytes]byte
	return string(appendExcerpt(b[:0], doc, start, end))
}

// appendExcerpt appends excerpt(doc, start, end) to dst.
func appendExcerpt(dst, doc []byte, start, end int) []byte {
	start = min(max(start, 0), len(doc))
	if s := doc[start:max(start, min(end, len(doc)))]; len(s) <= maxExcerpt && plainExcerpt(s) {
		return append(dst, s...)
	}
	return appendCleanExcerpt(dst, doc, start, end)
}

// appendCleanExcerpt is appendExcerpt for any source. It writes runes
// to dst as it reads them, ASCII ones without decoding, and keeps where
// the last one starts, to take it back for the "…" when the excerpt is
// cut at maxExcerpt runes.
func appendCleanExcerpt(dst, doc []byte, start, end int) []byte {
	start = min(max(start, 0), len(doc))
	limit := min(len(doc), start+4*maxExcerpt, end)
	n, last := 0, len(dst) // runes written, and where the last one starts
	space := false
	cut := false
	for i := start; i < limit; {
		r, w := rune(doc[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRune(doc[i:])
		}
		i += w
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
			if n > 0 {
				space = true
			}
			continue
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			r = utf8.RuneError
		}
		need := 1
		if space {
			need = 2
		}
		if n+need > maxExcerpt {
			cut = true
			break
		}
		if space {
			dst = append(dst, ' ')
			n++
			space = false
		}
		last = len(dst)
		dst = utf8.AppendRune(dst, r)
		n++
	}
	if !cut && limit < end && limit < len(doc) {
		cut = true
	}
	if cut && n > 0 {
		if n >= maxExcerpt {
			dst = dst[:last]
		}
		dst = append(dst, "…"...)
	}
	return dst
}

// plainExcerpt reports whether s is its own excerpt: printable ASCII,
// with single spaces between other characters. (Most are, and Check
// makes one for each Ref.)
func plainExcerpt(s []byte) bool {
	for i, c := range s {
		if c < ' ' || c > '~' || c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') {
			return false
		}
	}
	return true
}

// attrSpan is where one attribute of a start tag is, as byte offsets into
// the tag's raw text: key is [k0,k1), value is [v0,v1) without quotes.
type attrSpan struct{ k0, k1, v0, v1 int }

// eachAttrSpan calls fn for each attribute of a start tag, given its raw text
// as returned by html.Tokenizer.Raw, until fn returns false. It repeats
// the attribute grammar of readTag in golang.org/x/net/html/token.go,
// because the tokenizer does not expose attribute offsets; tests check the
// two agree. Unlike the tokenizer it does not drop repeated keys.
func eachAttrSpan(raw []byte, fn func(attrSpan) bool) {
	n := len(raw)
	i := 2 // past '<' and the first byte of the name
	for i < n {
		c := raw[i]
		i++
		if htmlSpace[c] {
			break
		}
		if c == '/' || c == '>' {
			i--
			break
		}
	}
	for i < n && htmlSpace[raw[i]] {
		i++
	}
	for i < n {
		if raw[i] == '>' {
			return
		}
		var s attrSpan
		s.k0 = i
		for i < n {
			c := raw[i]
			i++
			if c == '=' && s.k0+1 == i {
				continue
			}
			if c == '=' || htmlSpace[c] || c == '/' || c == '>' {
				i--
				break
			}
		}
		s.k1 = i
		s.v0, s.v1 = i, i
		for i < n && htmlSpace[raw[i]] {
			i++
		}
		if i < n {
			c := raw[i]
			i++
			switch {
			case c == '/':
			case c != '=':
				i--
			default:
				for i < n && htmlSpace[raw[i]] {
					i++
				}
				if i < n {
					q := raw[i]
					i++
					switch q {
					case '>':
						i--
					case '\'', '"':
						s.v0 = i
						if k := bytes.IndexByte(raw[i:], q); k >= 0 {
							i += k
						} else {
							i = n
						}
						s.v1 = i
						if i < n {
							i++
						}
					default:
						s.v0 = i - 1
						for i < n && !htmlSpace[raw[i]] && raw[i] != '>' {
							i++
						}
						s.v1 = i
						if i < n && htmlSpace[raw[i]] {
							i++
						}
					}
				}
			}
		}
		if s.k0 != s.k1 && !fn(s) {
			return
		}
		for i < n && htmlSpace[raw[i]] {
			i++
		}
	}
}

// htmlSpace marks the bytes the tokenizer treats as white space in tags.
var htmlSpace = [256]bool{' ': true, '\n': true, '\r': true, '\t': true, '\f': true}

// asciiEqualFold reports whether b equals s, ignoring ASCII case; s must be
// lower case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// hasPrefixFold reports whether b starts with prefix, ignoring ASCII case;
// prefix must be lower case.
func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && asciiEqualFold(b[:len(prefix)], prefix)
}

// cleanMessage makes a message safe to show: valid UTF-8 without control
// characters (tag names in messages come from the document as they are).
func cleanMessage(m string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(m, "\uFFFD"))
}

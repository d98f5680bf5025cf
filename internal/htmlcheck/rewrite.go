package htmlcheck

import (
	"cmp"
	"slices"
	"strconv"
)

// InertURL is what Rewrite writes for a Ref whose replacement is "": an
// empty data: URL, which the browser loads from nothing and which is no
// image, font or media, so the element shows as a failed load. (In a
// srcset candidate its comma is written %2C, to keep the candidate list,
// which makes it an invalid data: URL: as inert.)
const InertURL = "data:,"

// Rewrite returns a copy of doc in which the URL of each of refs is
// replaced by to(ref), written as its place needs:
//
//   - In an attribute value (src, href, poster, background) the URL is
//     written as it is, with & and the attribute's quote as character
//     references (&amp; &quot; &#39;).
//   - In a srcset candidate, white space and commas at the start or the
//     end of the URL are percent-encoded (%20, %2C), so that the URL stays
//     one candidate (a comma inside a URL, as in a data: URL, is part of
//     it); then as in an attribute value.
//   - In CSS, the url(…) argument or the image-set() string becomes a CSS
//     string: in single quotes in a double-quoted or unquoted attribute,
//     in double quotes elsewhere, with quotes, backslashes, control
//     characters, &, < and > written as CSS escapes (\22 , \5c , \3c …;
//     a NUL reads back as U+FFFD), so that it needs no character
//     reference and cannot end a <style> element.
//   - An unquoted attribute value is written whole in double quotes, and
//     an attribute value or SVG style sheet that has character references
//     (&amp;, &quot;) is written whole, decoded and encoded again with &,
//     < (SVG text) and the quote as character references: its other
//     characters read the same, but may be spelt differently (a CR LF as
//     LF, a NUL in an attribute as U+FFFD, as the parser reads them).
//
// A replacement of "" stands for InertURL. URLs are written as they are
// given: a replacement with white space or control characters around
// it, or with tabs and newlines in it, reads without them, as Ref.URL
// says; and one that is not valid UTF-8 is written with its bytes as
// they are.
//
// Everything outside the edited URLs (or the attribute values and SVG
// style sheets written whole) is byte for byte as in doc, and the result
// is longer than doc by at most the replacements as written, and the
// character references that values written whole need. to is called once
// for each Ref that is rewritten, in source order; nil stands for a
// function that returns "". Checking the result again (if it is not
// larger than MaxSize) lists the same Refs in the same order, each with
// the URL it was replaced by when that is an https: URL (as Ref.URL reads
// it: without white space around it, tabs and newlines; srcset candidates
// percent-encoded as above), and none for the others.
//
// refs must come from Check of the same doc (Result.Refs, or some of
// them). Refs that do not (their places lie outside doc, or overlap one
// rewritten before) are left out; ones from another document are
// rewritten at places that mean nothing, but Rewrite never panics.
func Rewrite(doc []byte, refs []Ref, to func(Ref) string) []byte {
	order := make([]int, 0, len(refs))
	for i := range refs {
		if refs[i].edit.valid(len(doc)) {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ea, eb := &refs[a].edit, &refs[b].edit
		sa, _ := ea.span()
		sb, _ := eb.span()
		return cmp.Or(cmp.Compare(sa, sb), cmp.Compare(ea.u0, eb.u0))
	})
	replace := func(r Ref) string {
		if to == nil {
			return ""
		}
		return to(r)
	}
	out := make([]byte, 0, len(doc)+len(order)*64)
	last := 0
	for i := 0; i < len(order); {
		e := refs[order[i]].edit
		j := i + 1
		for e.whole && j < len(order) && refs[order[j]].edit.sameText(e) {
			j++
		}
		s0, s1 := e.span()
		if s0 < last {
			i = j
			continue
		}
		out = append(out, doc[last:s0]...)
		if e.whole {
			out = rewriteText(out, doc[s0:s1], e, refs, order[i:j], replace)
		} else {
			r := refs[order[i]]
			var buf [256]byte
			out = e.appendEscaped(out, e.appendURL(buf[:0], replace(r)))
		}
		last = s1
		i = j
	}
	return append(out, doc[last:]...)
}

// span returns the span of the document that Rewrite replaces for e.
func (e *refEdit) span() (int, int) {
	if e.whole {
		return e.t0, e.t1
	}
	return e.u0, e.u1
}

// sameText reports whether e is in the same re-encoded text as f.
func (e *refEdit) sameText(f refEdit) bool {
	return e.whole && f.whole && e.attr == f.attr && e.t0 == f.t0 && e.t1 == f.t1
}

// rewriteText appends the text spelt, in which the Refs refs[idx] are (all
// with the edit e's text), decoded, with their URLs replaced, and encoded
// again.
func rewriteText(dst, spelt []byte, e refEdit, refs []Ref, idx []int, replace func(Ref) string) []byte {
	var text []byte
	if e.attr {
		text = decodeAttr(spelt)
	} else {
		text = decodeText(spelt)
	}
	var b []byte
	prev := 0
	for _, i := range idx {
		r := refs[i]
		if r.edit.u0 < prev || r.edit.u1 > len(text) {
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(text)+64*len(idx))
		}
		b = append(b, text[prev:r.edit.u0]...)
		b = e.appendURL(b, replace(r))
		prev = r.edit.u1
	}
	if b == nil {
		return append(dst, spelt...) // Refs of another document
	}
	b = append(b, text[prev:]...)
	if e.attr && e.quote == 0 {
		q := refEdit{attr: true, quote: '"'}
		return append(q.appendEscaped(append(dst, '"'), b), '"')
	}
	return e.appendEscaped(dst, b)
}

// appendURL appends the URL u written for e's place, before character
// references: percent-encoded for srcset, a CSS string for CSS.
func (e *refEdit) appendURL(dst []byte, u string) []byte {
	if u == "" {
		u = InertURL
	}
	switch e.enc {
	case encSrcset:
		return appendSrcsetURL(dst, u)
	case encCSS:
		quote := byte('"')
		if e.attr && e.quote != '\'' {
			quote = '\''
		}
		return appendCSSString(dst, u, quote)
	}
	return append(dst, u...)
}

// appendEscaped appends b as the text of e's place: with character
// references for & and the quote in an attribute, & and < in SVG text
// decoded (whole), as it is in a <style> element.
func (e *refEdit) appendEscaped(dst, b []byte) []byte {
	if !e.attr && !e.whole {
		return append(dst, b...)
	}
	for _, c := range b {
		switch {
		case c == '&':
			dst = append(dst, "&amp;"...)
		case e.attr && c == '"' && e.quote != '\'':
			dst = append(dst, "&quot;"...)
		case e.attr && c == '\'' && e.quote == '\'':
			dst = append(dst, "&#39;"...)
		case !e.attr && c == '<':
			dst = append(dst, "&lt;"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// appendSrcsetURL appends u as a srcset candidate URL: white space
// percent-encoded, and commas at its start and end, which would
// otherwise separate candidates
// (https://html.spec.whatwg.org/multipage/images.html#parse-a-srcset-attribute).
func appendSrcsetURL(dst []byte, u string) []byte {
	first, last := 0, len(u)
	for first < len(u) && u[first] == ',' {
		first++
	}
	for last > first && u[last-1] == ',' {
		last--
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		if htmlSpace[c] || c == ',' && (i < first || i >= last) {
			dst = append(dst, '%', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// appendCSSString appends u as a CSS string in quote, with escapes for
// the characters that could end it, the <style> element or the attribute
// it is in: quotes, backslashes, control characters, &, < and >. An
// escape is a backslash, the hex code and a space, which the escape
// ends with (https://www.w3.org/TR/css-syntax-3/#consume-escaped-code-point).
func appendCSSString(dst []byte, u string, quote byte) []byte {
	dst = append(dst, quote)
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c < 0x20 || c == 0x7f || c == '"' || c == '\'' || c == '\\' || c == '&' || c == '<' || c == '>':
			dst = append(strconv.AppendUint(append(dst, '\\'), uint64(c), 16), ' ')
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, quote)
}

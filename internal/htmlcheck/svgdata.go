package htmlcheck

import (
	"bytes"
	"encoding/base64"
	"fmt"

	"golang.org/x/net/html"
)

// An image can draw a label as well as text can: an SVG image in a data:
// URL (<img src="data:image/svg+xml,…<text>Download</text>…">, a CSS
// background, an SVG <image href>) is drawn from markup that the page
// carries, so its text is read like the page's own: in a clickable
// element as part of its label, in CSS as generated text.

// maxSVGNesting bounds how deep SVG images inside SVG images are read.
const maxSVGNesting = 3

// isSVGData reports whether the trimmed URL u is a data: URL of an SVG
// image: the cheap test before svgDataText.
func isSVGData(u []byte) bool {
	return hasPrefixFold(u, "data:") && containsFold(u[:min(len(u), 64)], "svg")
}

// svgDataText appends to dst the text that the SVG image in the data: URL
// u draws or names: its text content (<text>, <title>, <desc>) and
// aria-label attributes, and the same of SVG images in it. Anything else
// appends nothing.
func svgDataText(dst, u []byte, nesting int) []byte {
	u = trimURL(u)
	if nesting >= maxSVGNesting || !isSVGData(u) {
		return dst
	}
	comma := bytes.IndexByte(u, ',')
	if comma < 0 || !containsFold(u[:comma], "image/svg") {
		return dst
	}
	svg := percentDecode(u[comma+1:])
	if containsFold(u[:comma], ";base64") {
		svg = bytes.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
				return -1
			}
			return r
		}, svg)
		svg = bytes.TrimRight(svg, "=")
		dec := make([]byte, base64.RawStdEncoding.DecodedLen(len(svg)))
		n, _ := base64.RawStdEncoding.Decode(dec, svg)
		svg = dec[:n]
	}
	return svgText(dst, svg, nesting)
}

// svgText appends to dst the text content of the SVG document svg, its
// aria-label attributes, and the text of the SVG data: images it holds.
func svgText(dst, svg []byte, nesting int) []byte {
	z := html.NewTokenizer(bytes.NewReader(svg))
	z.AllowCDATA(true)
	skip := 0 // inside <style> or <script>
	// Text that display="none", font-size="0" or a hiding style leaves
	// undrawn is read as it is written and, once more after it, without
	// the hidden letters (as a page's own hidden letters are).
	var shown []byte
	depth, hideAt, hid := 0, -1, false
	add := func(t ...byte) {
		dst = append(dst, t...)
		if hideAt < 0 && len(shown) < maxLabel {
			shown = append(shown, t...)
		}
	}
	for len(dst) < maxLabel {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if hid {
				dst = append(append(dst, ' '), shown...)
			}
			return dst
		case html.TextToken:
			if skip == 0 {
				add(z.Text()...)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			if string(name) == "style" || string(name) == "script" {
				skip++
			}
			z.NextIsNotRawText()
			add(' ')
			var attrs [][2][]byte
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				attrs = append(attrs, [2][]byte{k, v})
			}
			hides := presentationHides(func(k string) ([]byte, bool) {
				for _, a := range attrs {
					if string(a[0]) == k {
						return a[1], true
					}
				}
				return nil, false
			})
			for _, a := range attrs {
				if string(a[0]) == "style" && hidingStyle(a[1]) {
					hides = true
				}
			}
			depth++
			if hides && hideAt < 0 {
				hideAt, hid = depth, true
			}
			self := tt == html.SelfClosingTagToken
			for _, a := range attrs {
				k, v := a[0], a[1]
				switch string(k) {
				case "aria-label":
					add(v...)
					add(' ')
				case "href", "xlink:href", "src":
					n := len(dst)
					dst = svgDataText(dst, v, nesting+1)
					if hideAt < 0 {
						shown = append(shown, dst[n:]...)
					}
				case "style":
					n := len(dst)
					dst = svgCSSText(dst, v, nesting+1)
					if hideAt < 0 {
						shown = append(shown, dst[n:]...)
					}
				}
			}
			if self {
				if hideAt == depth {
					hideAt = -1
				}
				depth--
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if (string(name) == "style" || string(name) == "script") && skip > 0 {
				skip--
			}
			if hideAt == depth {
				hideAt = -1
			}
			depth = max(depth-1, 0)
			add(' ')
		}
	}
	return dst
}

// svgCSSText appends the text of the SVG data: images that the CSS css
// refers to.
func svgCSSText(dst, css []byte, nesting int) []byte {
	if !containsFold(css, "svg") {
		return dst
	}
	scanCSS(css, true, func(k cssKind, _, _ int, v []byte) {
		if k == cssImage {
			dst = svgDataText(dst, v, nesting)
		}
	})
	return dst
}

// percentDecode decodes %XX escapes as a browser reads a data: URL,
// leaving malformed ones as they are.
func percentDecode(b []byte) []byte {
	if bytes.IndexByte(b, '%') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]) {
			out = append(out, hexVal(b[i+1])<<4|hexVal(b[i+2]))
			i += 2
			continue
		}
		out = append(out, b[i])
	}
	return out
}

// origValue returns the value of attribute a of the start tag at start as
// the document has it, before shorten cut its base64, decoded.
func (c *checker) origValue(start int, a *attr) []byte {
	v0, v1 := c.docOffset(start+a.span.v0), c.docOffset(start+a.span.v1)
	if v0 > v1 || v1 > len(c.doc) {
		return a.val
	}
	v := c.doc[v0:v1]
	if bytes.IndexByte(v, '&') >= 0 || bytes.IndexByte(v, '\r') >= 0 || bytes.IndexByte(v, 0) >= 0 {
		v = decodeAttr(v)
	}
	return v
}

// imageText sets c.drawn to the text that the image the current start tag
// (an img, input or SVG image) loads from an SVG data: URL draws.
func (c *checker) imageText(start int, keys ...string) {
	for _, k := range keys {
		if a := c.findAttr(k); a != nil && isSVGData(trimURL(a.val)) {
			c.drawn = svgDataText(c.drawn, c.origValue(start, a), 0)
		}
	}
}

// origCSSURL returns the URL v, found by scanCSS at [s,e) of the text at
// p, as the document has it, before shorten cut its base64.
func (c *checker) origCSSURL(p place, s, e int, v []byte) []byte {
	if !p.exact || !containsFold(v, "base64") {
		return v
	}
	d0, d1 := c.docOffset(p.v0+s), c.docOffset(p.v0+e)
	if d0 > d1 || d1 > len(c.doc) {
		return v
	}
	d := c.doc[d0:d1]
	if i := bytes.IndexByte(d, '('); i >= 0 && hasPrefixFold(d, "url") {
		val, _ := cssURLArg(d, i+1)
		return val
	}
	return cssDecode(cssUnquote(d))
}

// checkCSSImageText reports an SVG data: image in CSS whose text reads as
// a call to download, as generated text is reported whatever its
// selector.
func (c *checker) checkCSSImageText(p place, s, e int, v []byte, where string) {
	if !isSVGData(trimURL(v)) || !c.want(ruleDownloadButton) {
		return
	}
	text := svgDataText(nil, c.origCSSURL(p, s, e, v), 0)
	if form, ok := c.downloadReading(text, labelOpts{reversed: c.bidiOverride, anywhere: true}); ok {
		p.add(ruleDownloadButton, s, e, fmt.Sprintf(
			"The %s draws an SVG image with the text %s%s: an image that calls to download makes a download button, and the page must not have one.",
			where, q(text), readsAs(string(text), form)))
	}
}

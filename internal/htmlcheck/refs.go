package htmlcheck

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// Kinds of Ref, by the directive of the content origin's
// Content-Security-Policy that governs the load.
const (
	RefImage = "image" // img-src: images, icons, posters, CSS images
	RefFont  = "font"  // font-src: url() in @font-face src
	RefMedia = "media" // media-src: audio and video streams
	RefTrack = "track" // media-src: <track> text tracks
)

// Ref is a remote URL that a page loads: an absolute https: URL in a
// place where the browser fetches it as an image, a font, audio or video,
// or a text track, before or without any script. (URLs that a script
// builds are not Refs; the content origin's CSP keeps them from loading.)
//
// The places are those of the image.source and sandbox.external_media
// rules: img src and srcset, picture source srcset, SVG image and feImage
// href and xlink:href, video poster, input type=image src and icon links
// are images, as are the legacy background attribute and CSS url() and
// image-set() strings in <style> elements (SVG ones too) and style
// attributes, outside @font-face; a url() in @font-face is a font; audio
// and video src, and source src in an audio or video element, are media;
// track src in one is a track. URLs in elements that the page may not
// have (resource hints, stylesheets, scripts) are not Refs.
//
// A Ref also records, unexported, where and how Rewrite replaces its URL
// in the document Check read, and only there.
type Ref struct {
	// URL is the URL as the browser reads it before it parses it:
	// character references and CSS escapes decoded, without the white
	// space and control characters around it, tabs and newlines removed.
	// It starts with "https://" in any case.
	URL string `json:"url"`
	// Kind is RefImage, RefFont, RefMedia or RefTrack.
	Kind string `json:"kind"`
	// Line and Column say where the URL is, as for a Finding (1-based,
	// columns in runes), and where the image.source finding about it
	// would be: at the attribute value, the srcset candidate, or the
	// url( or string in CSS; at the start of the attribute value or SVG
	// style sheet when it has character references, since the URL is not
	// where the decoded text has it.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Excerpt quotes the source around the URL, as for a Finding.
	Excerpt string `json:"excerpt"`

	edit refEdit
}

// refEnc says how a Ref's URL is written, for Rewrite.
type refEnc uint8

const (
	encNone   refEnc = iota // not a Ref from Check: Rewrite ignores it
	encURL                  // the value of a URL attribute (src, href, poster, background)
	encSrcset               // a candidate URL in srcset
	encCSS                  // a CSS string, or the unquoted URL of url(…)
)

// refPlace says how Rewrite edits the URLs in a scanned text.
type refPlace struct {
	skip  bool // another scan records the Refs in this text
	attr  bool // the text is an attribute value, in quote (or unquoted if 0)
	quote byte
	// whole says that Rewrite re-encodes the whole text, [d0,d1) in the
	// document: it is not spelt as it reads (character references), or
	// it is an unquoted attribute value, which Rewrite quotes. d0 is
	// -1 for an attribute value: addRef finds it.
	whole  bool
	d0, d1 int
}

// refEdit is where Rewrite replaces a Ref's URL, and how.
type refEdit struct {
	enc    refEnc
	attr   bool // the URL is in an attribute value, quoted by quote (0 if unquoted)
	quote  byte
	whole  bool // Rewrite replaces the text [t0,t1) of the document, decoded, with [u0,u1) of it replaced
	t0, t1 int
	u0, u1 int // the span to replace: in the document, or in the decoded text if whole
}

// valid reports whether Rewrite can apply e to a document of n bytes.
func (e *refEdit) valid(n int) bool {
	if e.enc == encNone || e.u0 < 0 || e.u1 < e.u0 {
		return false
	}
	if e.whole {
		return 0 <= e.t0 && e.t0 <= e.t1 && e.t1 <= n
	}
	return e.u1 <= n
}

// addRef records a Ref of kind whose URL is written, as enc says, at
// [u0,u1) of text, the text scanned at p; pos and the excerpt [ex0,ex1)
// are offsets in c.src.
func (c *checker) addRef(kind string, enc refEnc, p place, text []byte, u0, u1, pos, ex0, ex1 int) {
	if p.ref.skip || c.noRefs {
		return
	}
	e := refEdit{enc: enc, attr: p.ref.attr, quote: p.ref.quote, whole: p.ref.whole, t0: p.ref.d0, t1: p.ref.d1}
	if e.t0 < 0 {
		e.t0, e.t1 = c.docOffset(p.v0), c.docOffset(p.v1)
	}
	var spelt []byte
	if p.exact {
		// Read the URL from the document: shorten may have cut base64
		// out of it in c.src.
		e.u0, e.u1 = p.v0+u0, p.v0+u1
		if c.cuts != nil {
			e.u0, e.u1 = c.docOffset(e.u0), c.docOffset(e.u1)
		}
		spelt = c.doc[e.u0:e.u1]
	} else {
		spelt = text[u0:u1]
		e.u0, e.u1 = u0, u1
	}
	if c.cuts != nil {
		pos, ex0, ex1 = c.docOffset(pos), c.docOffset(ex0), c.docOffset(ex1)
	}
	r := pendingRef{kind: refKindIndex(kind), pos: int32(pos), ex0: int32(ex0), ex1: int32(ex1)}
	if i, j, ok := urlSpan(enc, spelt); ok && p.exact {
		r.url0, r.url1 = int32(e.u0+i), int32(e.u0+j)
	} else {
		r.decodedURL = true
		r.url0 = int32(len(c.refText))
		c.refText = append(c.refText, refURL(enc, spelt)...)
		r.url1 = int32(len(c.refText))
	}
	if p.exact && e.whole {
		e.u0 -= e.t0
		e.u1 -= e.t0
	}
	r.edit = e
	c.pushRef(r)
}

// refKinds are the kinds of Ref, indexed by pendingRef.kind.
var refKinds = [...]string{RefImage, RefFont, RefMedia, RefTrack}

func refKindIndex(kind string) uint8 {
	return uint8(max(slices.Index(refKinds[:], kind), 0))
}

// pendingRef is a Ref before Check knows its line, column and excerpt:
// pos and the excerpt [ex0,ex1) are offsets in the document, and so is
// the URL [url0,url1), unless it is decoded: then it is in c.refText.
// (A large page has thousands of Refs. Their records hold no pointers,
// and the strings of all are made as one, so that they cost the garbage
// collector little. Documents are at most MaxSize.)
type pendingRef struct {
	edit          refEdit
	pos, ex0, ex1 int32
	url0, url1    int32
	kind          uint8 // in refKinds
	decodedURL    bool
}

// maxRefChunk is the size of the chunks that c.refs grows by (see pushRef).
const maxRefChunk = 512

// pushRef appends r to c.refs. A large page has thousands of Refs, which
// a growing slice would copy several times; chunks that double up to
// maxRefChunk are not copied.
func (c *checker) pushRef(r pendingRef) {
	n := len(c.refs)
	if n == 0 || len(c.refs[n-1]) == cap(c.refs[n-1]) {
		size := 16
		if n > 0 {
			size = min(2*cap(c.refs[n-1]), maxRefChunk)
		}
		c.refs = append(c.refs, make([]pendingRef, 0, size))
		n++
	}
	c.refs[n-1] = append(c.refs[n-1], r)
}

// refAttr records the value of a, an attribute of the start tag at
// [start,end) that loads a URL of kind, as a Ref if it is an https: URL.
func (c *checker) refAttr(start, end int, a *attr, kind string) {
	if a == nil || c.noRefs || !hasPrefixFold(trimURL(a.val), "https://") {
		return
	}
	p := c.attrPlace(start, end, a)
	text := c.attrText(start, a, p)
	u0, u1 := 0, len(text)
	for u0 < u1 && text[u0] <= ' ' {
		u0++
	}
	for u1 > u0 && text[u1-1] <= ' ' {
		u1--
	}
	c.addRef(kind, encURL, p, text, u0, u1, p.v0, p.ex0, p.ex1)
}

// cssRef records the URL v that scanCSS found as k (cssImage or cssFont)
// at [s,e) of css, the text at p, as a Ref if it is an https: URL that
// the browser reads.
func (c *checker) cssRef(p place, css []byte, k cssKind, s, e int, v []byte) {
	if c.noRefs || !hasPrefixFold(trimURL(v), "https://") {
		return
	}
	u0, u1, ok := cssURLSpan(css, s)
	if !ok {
		return
	}
	kind := RefImage
	if k == cssFont {
		kind = RefFont
	}
	pos, ex0, ex1 := p.at(s, e)
	c.addRef(kind, encCSS, p, css, u0, u1, pos, ex0, ex1)
}

// decodedStyleRefs records the Refs of the SVG <style> text at [start,end)
// of c.src, which has character references: the browser decodes them
// before it reads the CSS, so the CSS is scanned decoded, and Rewrite
// re-encodes the whole text.
func (c *checker) decodedStyleRefs(start, end int) {
	d0, d1 := c.docOffset(start), c.docOffset(end)
	css := decodeText(c.doc[d0:d1])
	p := place{c: c, v0: start, k0: start, v1: end, ex0: start, ex1: end,
		ref: refPlace{whole: true, d0: d0, d1: d1}}
	scanCSS(css, false, func(k cssKind, s, e int, v []byte) {
		if k == cssImage || k == cssFont {
			c.cssRef(p, css, k, s, e, v)
		}
	})
}

// decodeText decodes text outside raw text elements as the tokenizer
// does: newlines normalized, character references decoded.
func decodeText(b []byte) []byte {
	if bytes.IndexByte(b, '\r') >= 0 {
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
		b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	}
	return []byte(html.UnescapeString(string(b)))
}

// resolveRefs returns the recorded Refs in source order, with their lines,
// columns and excerpts.
func (c *checker) resolveRefs() []Ref {
	n, size, last, sorted := 0, 0, int32(0), true
	for _, chunk := range c.refs {
		n += len(chunk)
		for i := range chunk {
			p := &chunk[i]
			sorted = sorted && p.pos >= last
			last = p.pos
			size += int(p.url1-p.url0) + min(int(p.ex1-p.ex0), maxExcerptBytes)
		}
	}
	if n == 0 {
		return nil
	}
	chunks := c.refs
	if !sorted {
		// They come in source order but for the attributes of a tag,
		// which elementRules visits in its own order.
		all := slices.Concat(c.refs...)
		slices.SortStableFunc(all, func(a, b pendingRef) int { return cmp.Compare(a.pos, b.pos) })
		chunks = [][]pendingRef{all}
	}
	refs := make([]Ref, 0, n)
	var text strings.Builder
	text.Grow(size)
	lc := newLineCounter(c.doc)
	var buf [maxExcerptBytes]byte
	// The Refs of a value that is not spelt as it reads share its
	// excerpt: it is written once for a run of them.
	from, to, at, atEnd := -1, -1, int32(0), int32(0)
	for _, chunk := range chunks {
		for i := range chunk {
			p := &chunk[i]
			start, line, col := lc.at(int(p.pos))
			refs = append(refs, Ref{Kind: refKinds[p.kind], Line: line, Column: col, edit: p.edit})
			k := int32(text.Len())
			if p.decodedURL {
				text.Write(c.refText[p.url0:p.url1])
			} else {
				text.Write(c.doc[p.url0:p.url1])
			}
			p.url0, p.url1 = k, int32(text.Len())
			if ex0, ex1 := min(max(int(p.ex0), 0), start), int(p.ex1); ex0 != from || ex1 != to {
				from, to, at = ex0, ex1, int32(text.Len())
				text.Write(appendExcerpt(buf[:0], c.doc, ex0, ex1))
				atEnd = int32(text.Len())
			}
			p.ex0, p.ex1 = at, atEnd
		}
	}
	s := text.String()
	i := 0
	for _, chunk := range chunks {
		for _, p := range chunk {
			refs[i].URL, refs[i].Excerpt = s[p.url0:p.url1], s[p.ex0:p.ex1]
			i++
		}
	}
	return refs
}

// urlSpan returns where in spelt the URL that it reads as (see refURL)
// is, when it is spelt there as it reads: without escapes, tabs or
// newlines.
func urlSpan(enc refEnc, spelt []byte) (i, j int, ok bool) {
	i, j = 0, len(spelt)
	if enc == encCSS && j > 0 && (spelt[0] == '"' || spelt[0] == '\'') {
		end, closed := cssString(spelt, 0)
		i, j = 1, end
		if closed {
			j--
		}
	}
	for i < j && spelt[i] <= ' ' {
		i++
	}
	for j > i && spelt[j-1] <= ' ' {
		j--
	}
	for _, b := range spelt[i:j] {
		if b == '\t' || b == '\n' || b == '\r' || b == '\\' && enc == encCSS {
			return 0, 0, false
		}
	}
	return i, j, true
}

// refURL returns the URL that spelt, written as enc says, reads as.
func refURL(enc refEnc, spelt []byte) []byte {
	if enc == encCSS {
		spelt = cssDecode(cssStringValue(spelt))
	}
	return browserURL(spelt)
}

// cssStringValue returns the contents of s if it is a CSS string (without
// its quotes), and s otherwise.
func cssStringValue(s []byte) []byte {
	if len(s) == 0 || s[0] != '"' && s[0] != '\'' {
		return s
	}
	end, closed := cssString(s, 0)
	if closed {
		return s[1 : end-1]
	}
	return s[1:end]
}

// cssString returns the offset just past the CSS string that starts at
// s[i], and whether its closing quote ends it. One that a newline ends
// is a bad string, which the browser drops; one that the end of the
// style sheet ends is fine.
func cssString(s []byte, i int) (int, bool) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if j+2 < len(s) && s[j+1] == '\r' && s[j+2] == '\n' {
				j++
			}
			j++
		case q:
			return j + 1, true
		case '\n', '\r', '\f':
			return j, false
		}
	}
	return len(s), false
}

// cssURLSpan returns the span of s that spells the URL that scanCSS
// reported at s[i:] (a string in image-set(), or url(…)): a string with
// its quotes, or the unquoted URL of url(…) without white space. ok is
// false when the browser does not load it: a string cut by a newline,
// or an unquoted URL with white space, a quote, a parenthesis or a
// control character inside, a bad URL token
// (https://www.w3.org/TR/css-syntax-3/#consume-url-token).
func cssURLSpan(s []byte, i int) (u0, u1 int, ok bool) {
	if i < len(s) && s[i] != '"' && s[i] != '\'' {
		i += len("url(")
		for i < len(s) && isCSSSpace(s[i]) {
			i++
		}
	}
	if i >= len(s) {
		return 0, 0, false
	}
	if s[i] == '"' || s[i] == '\'' {
		end, closed := cssString(s, i)
		return i, end, closed || end == len(s)
	}
	j := i
	for ; j < len(s) && s[j] != ')'; j++ {
		switch b := s[j]; {
		case b == '\\':
			if j+1 < len(s) && (s[j+1] == '\n' || s[j+1] == '\r' || s[j+1] == '\f') {
				return 0, 0, false
			}
			j++
		case isCSSSpace(b):
			k := j
			for k < len(s) && isCSSSpace(s[k]) {
				k++
			}
			return i, j, k == len(s) || s[k] == ')'
		case b == '"' || b == '\'' || b == '(' || b < 0x20 || b == 0x7f:
			return 0, 0, false
		}
	}
	j = min(j, len(s))
	return i, j, j > i
}

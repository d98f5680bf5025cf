package htmlcheck

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/bidi"
)

// MaxSize is the largest accepted document: 1 MiB of UTF-8.
const MaxSize = 1 << 20

// Severity says whether a finding rejects the document.
type Severity int

// Severities.
const (
	// SeverityError rejects the document.
	SeverityError Severity = iota + 1
	// SeverityWarning is reported but the document is accepted.
	SeverityWarning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "Severity(" + strconv.Itoa(int(s)) + ")"
}

// Finding is one problem found in a document, written so that an AI agent
// can fix its HTML in one more try.
type Finding struct {
	// Rule names the rule, e.g. "inline.script"; see the package
	// documentation for the list.
	Rule string `json:"rule"`
	// Severity says whether the finding rejects the document.
	Severity Severity `json:"-"`
	// Message says in one sentence what is wrong.
	Message string `json:"message"`
	// Line is the 1-based line of the offending source; lines end at "\n".
	Line int `json:"line"`
	// Column is the 1-based column of the offending source, counted in
	// runes (Unicode code points) from the start of the line; each byte of
	// invalid UTF-8 counts as one.
	Column int `json:"column"`
	// Excerpt quotes the offending source (or, when it is short, the whole
	// tag it is in) on one line: at most 80 runes of valid UTF-8, white
	// space collapsed, ending in "…" when cut.
	Excerpt string `json:"excerpt"`
	// Hint says how to fix it.
	Hint string `json:"hint"`
	// URL is the remote resource a finding of a page's images, fonts or
	// media is about (the service's asset.* rules); empty otherwise.
	URL string `json:"url,omitempty"`
}

// Options tunes checks that depend on the deployment.
type Options struct {
	// ServiceHosts are host[:port] names of this service (app origin and
	// content origin hosts); links or forms pointing at their /f/ or
	// download URLs count as download buttons. An entry without a port
	// matches any port.
	ServiceHosts []string
}

// Result holds the findings of one check; the document is accepted when
// Errors is empty. All three lists are in source order.
type Result struct {
	// Errors reject the document.
	Errors []Finding
	// Warnings are worth fixing, but the document is accepted.
	Warnings []Finding
	// Refs are the remote https: URLs that the page loads as images,
	// fonts, media and text tracks, repeated ones as often as they
	// occur; see Ref and Rewrite.
	Refs []Ref
}

// OK reports whether the document is accepted: there are no errors.
func (r Result) OK() bool { return len(r.Errors) == 0 }

// Check validates the custom page doc against the rules listed in the
// package documentation.
//
// Check is pure (no I/O, no globals mutated), safe for concurrent use, and
// never panics on any input. A document larger than MaxSize yields only an
// "html.size" error.
func Check(doc []byte, opts Options) Result {
	if len(doc) > MaxSize {
		return Result{Errors: []Finding{{
			Rule:     RuleSize,
			Severity: SeverityError,
			Message:  fmt.Sprintf("The document is %d bytes; at most %d bytes (1 MiB) are accepted.", len(doc), MaxSize),
			Line:     1,
			Column:   1,
			Excerpt:  excerpt(doc, 0, maxExcerpt),
			Hint:     rules[ruleSize].hint,
		}}}
	}
	c := newChecker(doc, opts)
	c.run()
	if c.sawShadow && c.count[ruleDownloadButton] < limit(ruleDownloadButton) {
		c.found = append(c.found, shadowFindings(doc, c.found, opts)...)
	}
	res := finish(doc, c.found)
	res.Refs = c.resolveRefs()
	return res
}

// rawKind is the kind of raw text element whose content the tokenizer
// returns next.
type rawKind int

const (
	rawNone rawKind = iota
	rawScript
	rawStyle
	rawTitle
	rawOther // textarea, xmp, iframe, noscript, …: nothing to check
)

// attr is one attribute of the current start tag.
type attr struct {
	key []byte // lower-cased
	val []byte // with character references decoded
	// decoded says that val is not the source: the value has character
	// references, a CR or a NUL (it may read as written all the same).
	decoded bool
	span    attrSpan // in the tag's source
}

// foreignElem is an open SVG or MathML element.
type foreignElem struct {
	name        string
	integration bool // HTML parses the content (foreignObject, desc, …)
	math        bool // the nearest <math> or <svg> it is in, itself included, is <math> (see inMath)
}

// frame is an open clickable element whose text is being collected.
type frame struct {
	name     string
	depth    int // open elements of the same name, itself included
	start    int // where its start tag is
	text     int // where its text starts in checker.label
	shown    int // where its text starts in checker.shown
	reported bool
	byScript bool // clickable only because a script may make it so (see scriptClickable)
}

// maxLabel is how much text of clickable elements is kept.
const maxLabel = 1024

// maxFrames, maxForeign and maxSources bound the stacks of open clickable,
// foreign, and picture and media elements, so that deeply nested input
// cannot make a check quadratic.
// Clickable elements nested deeper are checked by their attributes only.
const (
	maxFrames  = 32
	maxForeign = 256
	maxSources = 32
)

// checker holds the state of one Check call.
type checker struct {
	doc  []byte // the document: positions and excerpts refer to it
	src  []byte // what is tokenized: doc, or doc with long base64 shortened
	cuts []cut  // where src differs from doc
	// cutHint is the index of the first cut after the offset docOffset
	// mapped last.
	cutHint int
	opts    Options
	z       *html.Tokenizer
	found   []pending
	count   [numRules]int

	name  []byte // lower-cased name of the current tag
	attrs []attr // attributes of the current start tag

	htmlStart, headStart, bodyStart int // offsets in src, -1 when absent
	htmls, heads, bodies, doctypes  int
	markup                          bool // a tag or text was seen
	afterHTML                       bool // </html> was seen
	bodyContent                     bool
	strayBefore, strayAfter         int // offsets in src of text outside <html>, or -1
	titleText, viewport             bool

	raw      rawKind // the raw text element whose content comes next
	scriptJS bool    // the script element whose content comes next is JavaScript
	foreign  []foreignElem
	// foreignNames counts the elements of foreign by name once it is
	// deeper than foreignScan, so that an end tag that closes none of
	// them does not read the whole stack (see closeForeign).
	foreignNames map[string]int

	frames        []frame
	label         []byte
	labelCut      bool
	labelReversed bool           // the label has text under <bdo dir=rtl>
	bidiOpen      []rune         // the explicit formatting characters left open in the text of the current block (see followBidi)
	bidiOpenText  string         // what of bidiOpen orders a label, as text (see openText)
	bidiOpenValid bool           // bidiOpenText is up to date
	scratch       []byte         // appendLabel's
	parsedLinks   int            // bytes of links given to the URL parser (see downloadTarget)
	labelPops     int            // the label's pops less its pushes (see compactLabel)
	bidiPage      bool           // the page has set a direction so far: elements are followed (see openDir)
	textControls  bool           // by formatting characters in its text, not only dir attributes
	dirElems      []dirElem      // open elements with direction attributes (see openDir)
	dirNames      map[string]int // how many of dirElems have each name
	dirNameBits   uint64         // nameBit of every name dirElems had
	bidiParas     int            // paragraphs ended so far (see closeBidiParagraph)
	frameOpen     string         // bidiOpen where the outermost clickable element begins
	frameDir      int8           // and the direction of its text there (see labelDirection)
	dirs          htmlDirs       // the direction attributes open (see labelDirection)
	firstLetter   firstLetter    // an element whose first letter a rule hides, open in a label
	outerTag      [2]int         // where the outermost clickable element's start tag is in src
	textMarks     bool           // the text outside labels has a formatting character or mark
	firstLetters  int8           // 1 when a style sheet may have a ::first-letter rule, -1 when not, 0 before it is known (see sheetsMayHaveFirstLetter)
	drawnBytes    int            // what drawnReading ordered so far
	boxedBytes    int            // text ordered for its inline boxes so far (see boxedReadings)
	tokStart      int            // where the current token starts in src
	tokEnd        int            // and where it ends
	readingAt     [2]int         // where the clickable elements whose label is read start and end, when not the current token
	besideOpen    string         // bidiOpen where the run of clickable elements side by side begins
	// shown is label without the text of hidden descendants (see
	// hides), which pages insert between letters to break a word up;
	// hideName and hideDepth follow the hidden element that text is in.
	shown                  []byte
	beside                 []byte // the labels of clickable elements side by side so far (see besideLabel)
	besideGap              []byte // what draws nothing since the last of them (see besideGapText)
	besidePieces           int
	besideAt               []int // where each piece starts in beside
	besideStart, besideEnd int
	labelHidden            bool // some text of the label is hidden
	hideName               string
	hideDepth              int
	hideDraws              bool    // the hidden element still lays its letters out (see hiddenDrawn)
	reo                    reorder // text drawn in another order (see reorder)
	drawn                  []byte  // the text of the current start tag's SVG data: image (see imageText)

	vis          []visElem        // the elements open in the outermost clickable one, as drawn (see reshow.go)
	visText      []byte           // its visible letters
	visUsed      bool             // one hides them in a way its children may undo
	bidiOverride bool             // CSS has unicode-bidi: bidi-override, which can draw any text reversed
	sheet        *sheetHiding     // what the page's style sheets may hide (see readSheets), or nil
	sheetRead    bool             // sheet is read
	sheetDefer   bool             // do not read it for the current start tag (see frameSheet)
	frameTag     [2]int           // where the outermost clickable element's start tag is in src, for frameSheet; {0, 0} when done
	matched      sheetMatch       // what sheetMatches found for the current start tag
	styleTags    int8             // 1 when the source has "<style", -1 when not, 0 before it is known
	sawShadow    bool             // a declarative shadow root (see shadowFindings)
	rtlCSS       int8             // 1 when the page's text may set a right-to-left direction, -1 when not, 0 before it is known (see pageMayDrawRightToLeft)
	cssDir       int8             // 1 when the page's text may set a direction by CSS, -1 when not, 0 before it is known (see labelDirection)
	cssMarks     bool             // CSS draws a direction mark or a formatting character (see drawsMarks)
	attrRefs     map[string]bool  // attributes that CSS draws with attr()
	labels       map[string]uint8 // labels read so far that are not a call to download, and where
	chars        readCache        // how the characters of labels read

	scriptClicks bool            // a script attaches click handlers (see scriptAttachesClicks)
	scriptIDs    map[string]bool // ids a script looks up, when scriptClicks (see scriptLookedUpIDs)
	byScript     bool            // the current start tag is clickable because of scriptClicks

	clip             bool // a script writes the clipboard
	clipPos, clipEnd int  // where, in src

	refs    [][]pendingRef // the remote URLs the page loads (see pushRef)
	refText []byte         // their URLs that are not spelt as they read (see pendingRef)
	noRefs  bool           // do not collect them (to measure what that costs)
	sources []atom.Atom    // open <picture>, <audio> and <video> elements, whose <source> elements choose what loads
}

func newChecker(doc []byte, opts Options) *checker {
	c := &checker{
		doc: doc, opts: opts,
		htmlStart: -1, headStart: -1, bodyStart: -1,
		strayBefore: -1, strayAfter: -1,
	}
	c.src, c.cuts = shorten(doc)
	c.bidiPage = hasTextControls(c.src)
	c.textControls = c.bidiPage
	c.findAttrRefs()
	c.scriptClicks = scriptAttachesClicks(c.src)
	if c.scriptClicks {
		c.scriptIDs = scriptLookedUpIDs(c.src)
	}
	return c
}

func (c *checker) inForeign() bool {
	return len(c.foreign) > 0 && !c.foreign[len(c.foreign)-1].integration
}

func (c *checker) run() {
	c.z = html.NewTokenizer(bytes.NewReader(c.src))
	off := 0
	for {
		c.z.AllowCDATA(c.inForeign())
		tt := c.z.Next()
		if tt == html.ErrorToken {
			break
		}
		start := off
		off += len(c.z.Raw())
		c.tokStart, c.tokEnd = start, off
		raw := c.raw
		c.raw = rawNone
		switch tt {
		case html.TextToken:
			c.text(start, off, raw)
		case html.StartTagToken:
			c.startTag(start, off, false)
		case html.SelfClosingTagToken:
			c.startTag(start, off, true)
		case html.EndTagToken:
			c.endTag(start, off)
		case html.DoctypeToken:
			c.doctype(start, off)
		}
	}
	for len(c.frames) > 0 {
		c.closeFrame(off)
	}
	c.endBeside()
	c.end()
}

// limit is how many findings of rule r are reported.
func limit(r rule) int {
	switch {
	case r == ruleDocumentComplete || r == ruleDocumentSingle:
		return 2
	case rules[r].sev == SeverityWarning:
		return maxWarningsPerRule
	}
	return maxErrorsPerRule
}

// factInClickable reports an element whose text the service fills with
// the file's name or type when the page is shown (data-fileframe="name" or
// "type") that is, or is inside, a clickable element: the name is not
// known now, so its label cannot be read, and a file named "Download now"
// would label the page's own button. (The content origin's prelude does
// not fill such elements either; this tells the author why.)
func (c *checker) factInClickable(clickable bool, start, end int) {
	v, ok := c.attr("data-fileframe")
	if !ok || !clickable && len(c.frames) == 0 {
		return
	}
	switch strings.ToLower(strings.TrimSpace(string(v))) {
	case "name", "type":
		c.addAttr(ruleDownloadButton, start, end, "data-fileframe", false,
			"A clickable element shows the file's name or type (data-fileframe): the name is filled in when the page is shown, so it could label the page's own download button.")
	}
}

// want reports whether another finding of rule r is still reported.
func (c *checker) want(r rule) bool {
	return c.count[r] < limit(r)
}

// add records a finding at src offset pos with the excerpt [ex0,ex1).
func (c *checker) add(r rule, pos, ex0, ex1 int, msg string) {
	if !c.want(r) {
		return
	}
	c.count[r]++
	c.found = append(c.found, pending{rule: r, pos: c.docOffset(pos), ex0: c.docOffset(ex0), ex1: c.docOffset(ex1), msg: msg})
}

// addTag records a finding about the tag at [start,end).
func (c *checker) addTag(r rule, start, end int, msg string) {
	c.add(r, start, start, end, msg)
}

// addAttr records a finding about attribute key of the current start tag
// at [start,end): at its name, or at its value when atValue.
func (c *checker) addAttr(r rule, start, end int, key string, atValue bool, msg string) {
	a := c.findAttr(key)
	if a == nil {
		c.addTag(r, start, end, msg)
		return
	}
	pos := start + a.span.k0
	if atValue {
		pos = start + a.span.v0
	}
	ex0, ex1 := c.excerptSpan(start, end, start+a.span.k0, start+a.span.v1+1)
	c.add(r, pos, ex0, ex1, msg)
}

// excerptSpan returns what to excerpt for a finding about [ex0,ex1),
// part of the tag at [start,end): the whole tag when it fits in an
// excerpt, for context, and [ex0,ex1) otherwise.
func (c *checker) excerptSpan(start, end, ex0, ex1 int) (int, int) {
	if end-start <= maxExcerpt && utf8.Valid(c.src[start:end]) {
		return start, end
	}
	return ex0, ex1
}

// place says where scanned text (an element's content or an attribute's
// value) is in the source, to turn offsets in it into source offsets.
type place struct {
	c          *checker
	v0, k0, v1 int      // the text; for an attribute, k0 is where its name starts
	ex0, ex1   int      // what to excerpt for a finding in an attribute not exact
	exact      bool     // the scanned text is the source byte for byte
	ref        refPlace // how Rewrite edits the URLs in it
}

func (c *checker) contentPlace(start, end int) place {
	return place{c: c, v0: start, k0: start, v1: end, exact: true}
}

// attrPlace is the place of the value of a, an attribute of the start tag
// that begins at start.
func (c *checker) attrPlace(start, end int, a *attr) place {
	p := place{c: c, v0: start + a.span.v0, k0: start + a.span.k0, v1: start + a.span.v1}
	p.exact = !a.decoded || bytes.Equal(c.src[p.v0:p.v1], a.val)
	p.ex0, p.ex1 = c.excerptSpan(start, end, p.k0, p.v1+1)
	p.ref = refPlace{attr: true, d0: -1}
	if a.span.v0 > a.span.k1 {
		if q := c.src[p.v0-1]; q == '"' || q == '\'' {
			p.ref.quote = q
		}
	}
	p.ref.whole = !p.exact || p.ref.quote == 0
	return p
}

// attrText returns the value of a, an attribute of the start tag at start
// whose place is p, to scan for URLs: a.val, unless a.val is decoded from
// character references and shorten cut base64 out of it (then offsets in
// it are not offsets in the value the document has, decoded).
func (c *checker) attrText(start int, a *attr, p place) []byte {
	if p.exact || len(c.cuts) == 0 || c.docOffset(p.v1)-c.docOffset(p.v0) == p.v1-p.v0 {
		return a.val
	}
	return c.origValue(start, a)
}

// at returns where a finding or Ref about [rel0,rel1) of the scanned text
// is, as source offsets: the position and the excerpt. Where the text is
// decoded from the source, that is the start of the value.
func (p place) at(rel0, rel1 int) (pos, ex0, ex1 int) {
	if p.exact {
		return p.v0 + rel0, p.v0 + rel0, p.v0 + rel1
	}
	return p.v0, p.ex0, p.ex1
}

// add records a finding at [rel0,rel1) of the scanned text; where the text
// is decoded from the source, at the start of the value.
func (p place) add(r rule, rel0, rel1 int, msg string) {
	pos, ex0, ex1 := p.at(rel0, rel1)
	p.c.add(r, pos, ex0, ex1, msg)
}

// pos returns the source offsets of [rel0,rel1) of the scanned text.
func (p place) pos(rel0, rel1 int) (int, int) {
	if p.exact {
		return p.v0 + rel0, p.v0 + rel1
	}
	return p.v0, p.v1
}

// tagName sets c.name to the lower-cased name of the tag whose raw text is
// raw, the way the tokenizer delimits it, and returns it.
func (c *checker) tagName(raw []byte) []byte {
	i := 1
	if len(raw) > 1 && raw[1] == '/' {
		i = 2
	}
	c.name = c.name[:0]
	for j := i; j < len(raw); j++ {
		ch := raw[j]
		if j > i && (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t' || ch == '\f' || ch == '/' || ch == '>') {
			break
		}
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		c.name = append(c.name, ch)
	}
	return c.name
}

// readAttrs sets c.attrs to the attributes of the start tag at
// [start,end). It reads them from the source with eachAttrSpan rather than
// with Tokenizer.TagAttr, which allocates two copies per attribute; tests
// check that both agree. As in the tokenizer, the first of repeated keys
// wins.
func (c *checker) readAttrs(start, end int) {
	c.attrs = c.attrs[:0]
	raw := c.src[start:end]
	var seen map[string]bool
	eachAttrSpan(raw, func(s attrSpan) bool {
		k := raw[s.k0:s.k1]
		for i := range k {
			if 'A' <= k[i] && k[i] <= 'Z' {
				k = lowerASCII(k)
				break
			}
		}
		if seen != nil {
			if seen[string(k)] {
				return true
			}
			seen[string(k)] = true
		} else {
			for _, a := range c.attrs {
				if bytes.Equal(a.key, k) {
					return true
				}
			}
			if len(c.attrs) == 16 {
				// Keep the duplicate check linear in tags with
				// thousands of attributes.
				seen = make(map[string]bool)
				for _, a := range c.attrs {
					seen[string(a.key)] = true
				}
				seen[string(k)] = true
			}
		}
		v := raw[s.v0:s.v1]
		decoded := bytes.IndexByte(v, '&') >= 0 || bytes.IndexByte(v, '\r') >= 0 || bytes.IndexByte(v, 0) >= 0
		if decoded {
			v = decodeAttr(v)
		}
		c.attrs = append(c.attrs, attr{key: k, val: v, span: s, decoded: decoded})
		return true
	})
}

// lowerASCII returns a copy of b with ASCII letters lower-cased, as the
// tokenizer lower-cases names (bytes.ToLower would also rewrite invalid
// UTF-8).
func lowerASCII(b []byte) []byte {
	l := make([]byte, len(b))
	for i, ch := range b {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		l[i] = ch
	}
	return l
}

// decodeAttr decodes an attribute value as the tokenizer does: newlines
// normalized, NUL replaced, character references decoded.
func decodeAttr(v []byte) []byte {
	if bytes.IndexByte(v, '&') < 0 && bytes.IndexByte(v, '\r') < 0 && bytes.IndexByte(v, 0) < 0 {
		return v
	}
	v = bytes.ReplaceAll(v, []byte("\r\n"), []byte("\n"))
	v = bytes.ReplaceAll(v, []byte("\r"), []byte("\n"))
	v = bytes.ReplaceAll(v, []byte("\x00"), []byte("\ufffd"))
	return []byte(html.UnescapeString(string(literalAmpersands(v))))
}

// literalAmpersands returns v with "&amp;" for each ampersand that starts
// a named character reference which an attribute value keeps as it is
// but html.UnescapeString, which decodes text, would decode: one without
// its semicolon before "=" (?a=1&copy=2) and one that only begins with a
// reference (&notify, &copyx;). Browsers and the tokenizer decode
// attribute values so
// (https://html.spec.whatwg.org/multipage/parsing.html#named-character-reference-state),
// and URLs with query strings depend on it.
func literalAmpersands(v []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(v); i++ {
		if v[i] != '&' {
			continue
		}
		j := i + 1
		for j < len(v) && isASCIIAlnum(v[j]) {
			j++
		}
		if j == i+1 || attrDecodesRef(v[i+1:j], v[j:]) {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(v)+8)
		}
		out = append(append(out, v[last:i]...), "&amp;"...)
		last = i + 1
	}
	if out == nil {
		return v
	}
	return append(out, v[last:]...)
}

// attrDecodesRef reports whether an attribute value decodes the named
// reference "&"+name, followed by rest: name must be a reference with its
// semicolon, or a legacy one without it that is not followed by "=".
// html.UnescapeString, which knows the names, says which: it decodes a
// whole name to one or two characters, and it decodes only a prefix of a
// name that is not one, leaving the rest of the name, and with it the
// semicolon.
func attrDecodesRef(name, rest []byte) bool {
	if len(rest) > 0 && rest[0] == ';' {
		ref := "&" + string(name) + ";"
		d := html.UnescapeString(ref)
		return d != ref && (!strings.HasSuffix(d, ";") || d == ";") // &semi; is ";"
	}
	if len(rest) > 0 && rest[0] == '=' || len(name) > 6 { // the legacy names are at most 6 letters
		return false
	}
	ref := "&" + string(name)
	d := html.UnescapeString(ref)
	// A legacy name decodes to one character, a prefix of one to a
	// character and the letters after it.
	return d != ref && utf8.RuneCountInString(d) == 1
}

// attr returns the value of attribute key of the current start tag.
func (c *checker) attr(key string) ([]byte, bool) {
	if a := c.findAttr(key); a != nil {
		return a.val, true
	}
	return nil, false
}

// findAttr returns the attribute key of the current start tag, or nil.
func (c *checker) findAttr(key string) *attr {
	for i := range c.attrs {
		if string(c.attrs[i].key) == key {
			return &c.attrs[i]
		}
	}
	return nil
}

func (c *checker) doctype(start, end int) {
	c.doctypes++
	if c.doctypes > 1 && c.markup {
		c.addTag(ruleDocumentSingle, start, end, "A second <!DOCTYPE> after the first document's content begins another document.")
	} else if c.afterHTML {
		c.addTag(ruleDocumentSingle, start, end, "A <!DOCTYPE> after </html> begins another document.")
	}
}

func (c *checker) text(start, end int, raw rawKind) {
	switch raw {
	case rawScript:
		if c.scriptJS {
			c.scanJS(c.contentPlace(start, end), c.src[start:end])
		}
		return
	case rawStyle:
		c.scanCSS(c.contentPlace(start, end), c.src[start:end], "<style>", false)
		return
	case rawTitle:
		if hasNonSpace(c.z.Text()) {
			c.titleText = true
		}
		return
	case rawOther:
		return
	}
	if n := len(c.foreign); n > 0 {
		switch c.foreign[n-1].name {
		case "script":
			c.scanJS(c.contentPlace(start, end), c.src[start:end])
			return
		case "style":
			p := c.contentPlace(start, end)
			css := c.src[start:end]
			// In SVG the style sheet is text, with character references
			// decoded, unless it is a CDATA section.
			decoded := bytes.IndexByte(css, '&') >= 0 && !bytes.HasPrefix(css, []byte("<![CDATA["))
			p.ref.skip = decoded
			c.scanCSS(p, css, "<style>", false)
			if decoded {
				c.decodedStyleRefs(start, end)
			}
			return
		}
	}
	text := c.src[start:end]
	var t []byte
	switch {
	case hasNonSpace(text) && len(c.frames) == 0:
		// Text, and not a label: no need to decode it.
		if !c.besideGapText(text) {
			c.endBeside()
		}
		c.followBidiText(text)
	case bytes.IndexByte(text, '&') < 0 && len(c.frames) == 0:
		return // only white space
	case !hasNonSpace(text) && bytes.IndexByte(text, '&') < 0:
		c.appendLabel([]byte(" ")) // white space between words of a label
		return
	default:
		// Only white space or references to it (&nbsp;), or a label:
		// decode it.
		t = c.z.Text()
		if !hasNonSpace(t) {
			return
		}
	}
	c.markup = true
	switch {
	case c.htmls == 0:
		if c.strayBefore < 0 {
			c.strayBefore = start + firstNonSpace(c.src[start:end])
		}
	case c.afterHTML:
		if c.strayAfter < 0 {
			c.strayAfter = start + firstNonSpace(c.src[start:end])
		}
	default:
		c.bodyContent = true
	}
	if len(c.frames) > 0 {
		if c.firstLetter.name != "" && c.hideDepth == 0 {
			t = c.appendFirstLetter(t)
		}
		c.appendLabel(t)
	}
}

func firstNonSpace(b []byte) int {
	for i, ch := range b {
		if ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\f' {
			return i
		}
	}
	return 0
}

// appendLabel adds t to the label of the clickable elements open, and to
// what of it is shown unless t is hidden. Each keeps maxLabel bytes of
// what draws something, as compactLabel leaves it: white space is drawn
// as one space however long it is, and runs of characters that draw
// nothing do not fill a label up before its words.
func (c *checker) appendLabel(t []byte) {
	if len(c.label) >= maxLabel && (len(c.shown) >= maxLabel || c.hideDepth > 0) {
		c.labelCut = c.labelCut || len(t) > 0
		return // full
	}
	t = compactLabel(c.scratch[:0], t, c.label, &c.labelPops, maxLabel-min(len(c.label), len(c.shown)))
	c.scratch = t[:0]
	c.label, c.labelCut = appendCut(c.label, t, c.labelCut)
	c.visAppend(t)
	if c.hideDepth == 0 {
		if len(c.shown) > 0 && c.shown[len(c.shown)-1] == ' ' {
			t = bytes.TrimPrefix(t, []byte(" "))
		}
		c.shown, _ = appendCut(c.shown, t, false)
	} else if c.hideDraws {
		// Letters drawn invisibly still order the text around them (rows
		// 882 and 903): what is shown keeps their directions as marks.
		var m [6]byte
		c.shown, _ = appendCut(c.shown, strongMarks(m[:0], t, c.label), false)
	}
}

// strongMarks appends to dst the marks (U+200E, U+200F) of the
// directions of the first and the last letter of t that have one: a
// right-to-left letter always, a left-to-right one when label has
// right-to-left letters that it can separate.
func strongMarks(dst, t, label []byte) []byte {
	if !mayHaveBidi(t) && !mayHaveBidi(label) {
		return dst
	}
	var first, last bidi.Class = bidi.ON, bidi.ON
	for _, r := range string(t) {
		var cl bidi.Class
		switch {
		case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
			cl = bidi.L
		case r < utf8.RuneSelf:
			continue
		default:
			p, _ := bidi.LookupRune(r)
			switch cl = p.Class(); cl {
			case bidi.AL:
				cl = bidi.R
			case bidi.L, bidi.R:
			default:
				continue
			}
		}
		if first == bidi.ON {
			first = cl
		}
		last = cl
	}
	if first == bidi.ON || first == bidi.L && last == bidi.L && !hasRightToLeftLetter(label) {
		return dst
	}
	for _, cl := range [2]bidi.Class{first, last} {
		if cl == bidi.R {
			dst = utf8.AppendRune(dst, '\u200f')
		} else {
			dst = utf8.AppendRune(dst, '\u200e')
		}
	}
	return dst
}

// endsWithPush reports whether dst ends with what the pop r (U+202C or
// U+2069) closes: an embedding or an override, or an isolate.
func endsWithPush(dst []byte, r rune) bool {
	last, _ := utf8.DecodeLastRune(dst)
	if r == '\u202c' {
		return '\u202a' <= last && last <= '\u202e' && last != '\u202c'
	}
	return '\u2066' <= last && last <= '\u2068'
}

// appendCut appends t to b up to maxLabel bytes, and reports whether b
// was cut (or cut was already).
func appendCut(b, t []byte, cut bool) ([]byte, bool) {
	if room := maxLabel - len(b); room < len(t) {
		// Not inside a character.
		n := max(room, 0)
		for n > 0 && !utf8.RuneStart(t[n]) {
			n--
		}
		return append(b, t[:n]...), true
	}
	return append(b, t...), cut
}

// compactLabel appends to dst the text t of a label that ends in label so
// far, as it is read: a run of white space as one space; without the
// characters that draw nothing and order nothing (zero-width spaces and
// joiners, soft hyphens, word joiners, the BOM: class BN, which the
// bidirectional algorithm leaves out and the readings drop); and a run of
// direction marks (U+200E, U+200F, U+061C) as its first and its last,
// which order the letters around them as the whole run does; and without
// the pops (U+202C, U+2069) past maxBidiOpen more than the label opened,
// which pop nothing. pops counts the label's pops less its pushes. It
// stops once dst is longer than limit: what follows is cut anyway.
func compactLabel(dst, t, label []byte, pops *int, limit int) []byte {
	last := func() byte {
		if len(dst) > 0 {
			return dst[len(dst)-1]
		}
		if len(label) > 0 {
			return label[len(label)-1]
		}
		return 0
	}
	marks := 0 // direction marks just before, in dst
	for i := 0; i < len(t) && len(dst) <= limit; {
		b := t[i]
		if b >= utf8.RuneSelf && b != 0xc2 && b != 0xd8 && b != 0xe2 && b != 0xef {
			// Not the first byte of a character compactLabel drops or
			// counts (U+00AD, U+061C, U+200B-U+206F, U+FEFF): copied.
			dst = append(dst, b)
			i++
			if utf8.RuneStart(b) {
				marks = 0
			}
			continue
		}
		if b < utf8.RuneSelf {
			i++
			marks = 0
			if b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' {
				if last() != ' ' {
					dst = append(dst, ' ')
				}
				continue
			}
			dst = append(dst, b)
			continue
		}
		r, n := utf8.DecodeRune(t[i:])
		switch {
		case r == '\u00ad', '\u200b' <= r && r <= '\u200d', '\u2060' <= r && r <= '\u2064', r == '\ufeff':
			// Class BN: drawn as nothing, ordered as nothing.
		case (r == '\u202c' || r == '\u2069') && endsWithPush(dst, r):
			// A push and its pop at once open and close nothing.
			_, n0 := utf8.DecodeLastRune(dst)
			dst = dst[:len(dst)-n0]
			*pops++
			marks = 0
		case r == '\u202c' || r == '\u2069':
			// A pop past the deepest the algorithm nests (maxBidiOpen)
			// pops nothing.
			if *pops < maxBidiOpen {
				dst = append(dst, t[i:i+n]...)
				*pops++
				marks = 0
			}
		case r == '\u202a' || r == '\u202b' || r == '\u202d' || r == '\u202e' || '\u2066' <= r && r <= '\u2068':
			dst = append(dst, t[i:i+n]...)
			*pops--
			marks = 0
		case r == '\u200e' || r == '\u200f' || r == '\u061c':
			if marks >= 2 {
				// Keep the run's first and its last.
				k := len(dst) - 1
				for k > 0 && !utf8.RuneStart(dst[k]) {
					k--
				}
				dst = append(dst[:k], t[i:i+n]...)
			} else {
				dst = append(dst, t[i:i+n]...)
				marks++
			}
		default:
			dst = append(dst, t[i:i+n]...)
			marks = 0
		}
		i += n
	}
	return dst
}

// metadata are the elements that are not body content.
func metadata(a atom.Atom) bool {
	switch a {
	case atom.Html, atom.Head, atom.Body, atom.Title, atom.Meta, atom.Link, atom.Style,
		atom.Script, atom.Base, atom.Noscript, atom.Template:
		return true
	}
	return false
}

// inline are elements that do not separate words of a label.
func inline(a atom.Atom) bool {
	switch a {
	case atom.B, atom.I, atom.Em, atom.Strong, atom.Span, atom.U, atom.S, atom.Small,
		atom.Mark, atom.Sup, atom.Sub, atom.Abbr, atom.Code, atom.Kbd, atom.Font, atom.Bdi, atom.Bdo,
		atom.Slot: // display: contents
		return true
	}
	return false
}

// void are the HTML elements without content.
func void(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr, atom.Param, atom.Keygen:
		return true
	}
	return false
}

// breakout reports whether the start tag a leaves SVG or MathML content
// (https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inforeign).
func (c *checker) breakout(a atom.Atom) bool {
	switch a {
	case atom.B, atom.Big, atom.Blockquote, atom.Body, atom.Br, atom.Center, atom.Code, atom.Dd,
		atom.Div, atom.Dl, atom.Dt, atom.Em, atom.Embed, atom.H1, atom.H2, atom.H3, atom.H4,
		atom.H5, atom.H6, atom.Head, atom.Hr, atom.I, atom.Img, atom.Li, atom.Listing, atom.Menu,
		atom.Meta, atom.Nobr, atom.Ol, atom.P, atom.Pre, atom.Ruby, atom.S, atom.Small, atom.Span,
		atom.Strong, atom.Strike, atom.Sub, atom.Sup, atom.Table, atom.Tt, atom.U, atom.Ul, atom.Var:
		return true
	case atom.Font:
		for _, k := range []string{"color", "face", "size"} {
			if _, ok := c.attr(k); ok {
				return true
			}
		}
	}
	return false
}

// integrationPoint reports whether the foreign element name (in the
// namespace of the element it is in) has HTML content.
func (c *checker) integrationPoint(name string, math bool) bool {
	if math {
		switch name {
		case "mi", "mo", "mn", "ms", "mtext":
			return true
		case "annotation-xml":
			enc, _ := c.attr("encoding")
			return asciiEqualFold(enc, "text/html") || asciiEqualFold(enc, "application/xhtml+xml")
		}
		return false
	}
	switch name {
	case "foreignobject", "desc", "title":
		return true
	}
	return false
}

func (c *checker) startTag(start, end int, selfClosing bool) {
	name := c.tagName(c.src[start:end])
	a := atom.Lookup(name)
	c.readAttrs(start, end)
	c.markup = true

	// Follow SVG and MathML content as the parser does, because there
	// <style>, <script> and <title> hold markup rather than raw text.
	foreign := c.inForeign()
	if foreign && c.breakout(a) {
		n := len(c.foreign)
		for n > 0 && !c.foreign[n-1].integration {
			n--
		}
		c.truncateForeign(n)
		foreign = false
	}
	switch a {
	case atom.Template:
		if _, ok := c.shadowRoot(); ok && !foreign {
			c.sawShadow = true
		}
	}
	switch {
	case foreign:
		c.z.NextIsNotRawText()
		if !selfClosing && len(c.foreign) < maxForeign {
			math := c.inMath()
			n := c.intern(a, name)
			c.pushForeign(foreignElem{
				name:        n,
				integration: c.integrationPoint(n, math),
				math:        n == "math" || n != "svg" && math,
			})
		}
	case a == atom.Svg || a == atom.Math:
		if !selfClosing && len(c.foreign) < maxForeign {
			c.pushForeign(foreignElem{name: a.String(), math: a == atom.Math})
		}
	case a == atom.Script:
		c.raw = rawScript
	case a == atom.Style:
		c.raw = rawStyle
	case a == atom.Title:
		c.raw = rawTitle
	case a == atom.Textarea || a == atom.Xmp || a == atom.Iframe || a == atom.Noembed ||
		a == atom.Noframes || a == atom.Noscript || a == atom.Plaintext:
		c.raw = rawOther
	}

	c.structure(a, start, end)
	clickable := c.elementRules(a, name, foreign, start, end)
	if (a == atom.Picture || a == atom.Audio || a == atom.Video) && !foreign && len(c.sources) < maxSources {
		c.sources = append(c.sources, a)
	}
	c.factInClickable(clickable, start, end)

	// Collect the text of clickable elements.
	for i := range c.frames {
		if c.frames[i].name == string(name) && !selfClosing {
			c.frames[i].depth++
		}
	}
	if len(c.frames) == 0 && !clickable && !inline(a) {
		c.endBeside()
	}
	if a == atom.Br && !foreign {
		c.closeBidiParagraph() // a forced line break ends the paragraph
	}
	if !void(a) && !selfClosing {
		c.openDir(a, name, foreign)
		c.dirs.start(c, a, name, foreign)
	}
	before := len(c.label)
	if len(c.frames) > 0 {
		switch {
		case c.hideDepth > 0:
			if string(name) == c.hideName && !selfClosing {
				c.hideDepth++
			}
			c.descendantLabel(a, foreign)
		case c.hides(a):
			c.labelHidden = true
			c.hideName, c.hideDepth = c.intern(a, name), 1
			c.hideDraws = c.hiddenDrawn()
			switch a {
			case atom.Rt: // drawn above the letters
			case atom.Rp, atom.Audio, atom.Video, atom.Canvas, atom.Datalist, atom.Object, atom.Svg, atom.Template:
				c.reo.hideFrom(len(c.label))
			default:
				// Readings in the order text is drawn in leave out what
				// is not seen; aria-hidden letters are seen.
				if c.hidesFromView() {
					c.reo.hideFrom(len(c.label))
				}
			}
			c.descendantLabel(a, foreign)
			if void(a) || selfClosing {
				c.hideDepth = 0
				c.reo.hideTo(len(c.label))
			}
		default:
			c.descendantLabel(a, foreign)
		}
	}
	if clickable && !void(a) && !(foreign && selfClosing) && len(c.frames) < maxFrames {
		if a == atom.A {
			for i := len(c.frames) - 1; i >= 0; i-- {
				if c.frames[i].name == "a" {
					for len(c.frames) > i {
						c.closeFrame(start)
					}
					break
				}
			}
		}
		if len(c.frames) == 0 {
			c.outerTag = [2]int{c.tokStart, c.tokEnd}
			c.frameOpen = c.openText()
			c.frameDir = c.labelDirection(a, foreign)
		}
		c.frames = append(c.frames, frame{name: c.intern(a, name), depth: 1, start: start, text: len(c.label), shown: len(c.shown), byScript: c.byScript})
	}
	if len(c.frames) > 0 {
		if c.frameTag[1] > 0 && len(c.vis) > 0 {
			c.frameSheet() // its first child
		}
		outermost := len(c.frames) == 1 && len(c.vis) == 0
		if outermost && !c.sheetRead && c.mayHaveSheets() {
			// Its own rules wait for its first child (see frameSheet).
			c.frameTag, c.sheetDefer = [2]int{c.tokStart, c.tokEnd}, true
		}
		c.reorderStart(a, name, void(a) || selfClosing, before)
		c.visStart(a, name, void(a) || selfClosing)
		c.sheetDefer = false
		c.firstLetterStart(a, name, void(a) || selfClosing)
		if heading(a) {
			for i := range c.frames {
				if c.frames[i].byScript {
					c.frames[i].reported = true // a section, not a button
				}
			}
		}
	}
}

// inMath reports whether the nearest open <math> or <svg> element is
// <math>: whether a foreign element starting now is MathML.
func (c *checker) inMath() bool {
	return len(c.foreign) > 0 && c.foreign[len(c.foreign)-1].math
}

// foreignScan is how deep the stack of foreign elements is searched
// without counting its names.
const foreignScan = 16

// pushForeign opens the foreign element e.
func (c *checker) pushForeign(e foreignElem) {
	c.foreign = append(c.foreign, e)
	switch {
	case c.foreignNames != nil:
		c.foreignNames[e.name]++
	case len(c.foreign) > foreignScan:
		c.foreignNames = make(map[string]int)
		for _, f := range c.foreign {
			c.foreignNames[f.name]++
		}
	}
}

// truncateForeign closes the foreign elements from the nth on.
func (c *checker) truncateForeign(n int) {
	if c.foreignNames != nil {
		for _, f := range c.foreign[n:] {
			c.foreignNames[f.name]--
		}
	}
	c.foreign = c.foreign[:n]
}

// closeForeign closes the innermost open foreign element named name and
// those inside it, if there is one.
func (c *checker) closeForeign(name []byte) {
	if c.foreignNames != nil && c.foreignNames[string(name)] == 0 {
		return
	}
	for i := len(c.foreign) - 1; i >= 0; i-- {
		if c.foreign[i].name == string(name) {
			c.truncateForeign(i)
			return
		}
	}
}

// intern returns the tag name as a string, without allocating for known
// names.
func (c *checker) intern(a atom.Atom, name []byte) string {
	if a != 0 {
		return a.String()
	}
	return string(name)
}

// structure tracks the document's outline for the document.* and hygiene
// rules.
func (c *checker) structure(a atom.Atom, start, end int) {
	switch a {
	case atom.Html:
		c.htmls++
		if c.htmls == 1 {
			c.htmlStart = start
		} else {
			c.addTag(ruleDocumentSingle, start, end, "A second <html> start tag begins another document.")
		}
		return
	case atom.Head:
		c.heads++
		if c.heads == 1 {
			c.headStart = start
		} else {
			c.addTag(ruleDocumentSingle, start, end, "A second <head> start tag begins another document.")
		}
		return
	case atom.Body:
		c.bodies++
		if c.bodies == 1 {
			c.bodyStart = start
		} else {
			c.addTag(ruleDocumentSingle, start, end, "A second <body> start tag begins another document.")
		}
		return
	case atom.Script:
		if c.bodies > 0 && c.htmls > 0 && !c.afterHTML {
			c.bodyContent = true
		}
	}
	if metadata(a) {
		return
	}
	switch {
	case c.htmls == 0:
		if c.strayBefore < 0 {
			c.strayBefore = start
		}
	case !c.afterHTML:
		c.bodyContent = true
	}
}

func (c *checker) endTag(start, end int) {
	name := c.tagName(c.src[start:end])
	a := atom.Lookup(name)
	c.closeForeign(name)
	c.dirs.end(name)
	if a == atom.Html && c.htmls > 0 {
		c.afterHTML = true
	}
	if a == atom.Picture || a == atom.Audio || a == atom.Video {
		for i := len(c.sources) - 1; i >= 0; i-- {
			if c.sources[i] == a {
				c.sources = c.sources[:i]
				break
			}
		}
	}
	if c.hideDepth > 0 && string(name) == c.hideName {
		c.hideDepth--
		if c.hideDepth == 0 && len(c.frames) > 0 {
			c.reo.hideTo(len(c.label))
		}
	}
	if len(c.frames) > 0 {
		c.reorderEnd(name)
		c.visEnd(name)
		c.firstLetterEnd(name)
	}
	for i := len(c.frames) - 1; i >= 0; i-- {
		if c.frames[i].name != string(name) {
			continue
		}
		c.frames[i].depth--
		if c.frames[i].depth == 0 {
			for len(c.frames) > i {
				c.closeFrame(end)
			}
		}
		break
	}
	if len(c.frames) > 0 && !inline(a) && !(len(c.foreign) > 0 && svgInline(name)) {
		c.appendLabel([]byte(" "))
	}
	if c.bidiPage {
		c.closeDir(name)
	}
}

// svgInline reports whether the SVG element name continues the text of
// the <text> it is in, without a break.
func svgInline(name []byte) bool {
	return string(name) == "tspan" || string(name) == "textpath" || string(name) == "a"
}

// hides reports whether the current start tag, a, hides its content or
// draws it where it is not read with the letters around it: the hidden
// attribute, aria-hidden (a screen reader skips it), <template> content
// that is not a shadow root, <rp> (not drawn where ruby is supported),
// <rt> (drawn above the letters, not between them), the fallback content
// of <audio>, <video>, <canvas>, <datalist> and <object>, an SVG of zero
// width or height, an inline style
// (see hidingStyle), or in SVG the presentation attributes that say the
// same (display="none", font-size="0"; see svgHidingAttrs), or a rule
// of the page's style sheets that may select it (see readSheets).
func (c *checker) hides(a atom.Atom) bool {
	switch a {
	case atom.Rp, atom.Rt:
		return true
	case atom.Audio, atom.Video, atom.Canvas, atom.Datalist, atom.Object:
		// Their content is fallback that browsers do not draw (or, for
		// an object that does not load, draw instead of it: reading the
		// label both ways covers both).
		return true
	case atom.Svg:
		if c.zeroSize() {
			return true
		}
	case atom.Dialog:
		// Not drawn unless open (the browser's own style sheet).
		if _, open := c.attr("open"); !open {
			return true
		}
	case atom.Template:
		_, shadow := c.shadowRoot()
		return !shadow
	}
	if v, ok := c.attr("aria-hidden"); ok && asciiEqualFold(bytes.TrimSpace(v), "true") {
		return true
	}
	return c.hidesFromView()
}

// hidesFromView reports whether the current start tag hides its content
// from view by the hidden attribute, an inline style, SVG's presentation
// attributes or a style sheet's rule (see hides).
func (c *checker) hidesFromView() bool {
	if _, ok := c.attr("hidden"); ok {
		return true
	}
	if style, ok := c.attr("style"); ok && (hidingStyle(style) || c.pageVarsHide(style)) && !c.inlineFadeShows(style) {
		return true
	}
	return c.inForeign() && c.svgAttrsHide() || sheetHidesLetters(c.sheetHides())
}

// inlineFadeShows reports whether the style attribute style, which hides
// the current start tag's letters, hides them only by fadeGroups, without
// !important, and its own animation shows them again for good (a fade-in
// written inline, style="opacity:0;animation:in .5s forwards"): run by
// the page's @keyframes as fade.go reads a rule's, with no animation
// longhand or shadow root on the page that may change it and no rule
// that may match the element running another animation.
func (c *checker) inlineFadeShows(style []byte) bool {
	h := c.pageSheet()
	if h == nil || len(h.restoring) == 0 || h.tweaked || h.fillTweaked || h.noRestores || !containsFold(style, "animation") {
		return false
	}
	st := compactStyle(nil, style)
	if c.pageVarsHide(withoutProps(st, fadeProps)) {
		return false // the page's custom properties hide it otherwise
	}
	g := fadeHides(st)
	if g == 0 || g&^animationRestores(style, h.restoring, h.animVars.variants) != 0 {
		return false
	}
	k, _ := c.sheetMatches()
	return fadeSet(k>>noRestoreShift)&g == 0
}

// colourProps are the properties that hide letters by a clear colour.
var colourProps = []string{"color", "-webkit-text-fill-color"}

// clipsText reports whether the compacted style st clips its background
// to its letters (gradient text), which a clear colour then shows.
func clipsText(st []byte) bool {
	return declares(st, "background-clip:text") || declares(st, "-webkit-background-clip:text")
}

// sheetHidesLetters reports whether the style sheets' rules, as k says,
// hide an element's letters: not when they only make its colour clear
// and another rule clips its background to its letters (Tailwind's
// bg-clip-text and text-transparent, the second round of the 25th
// attack).
func sheetHidesLetters(k sheetHideKind) bool {
	return k&sheetHidden != 0 && !(k&sheetByColour != 0 && k&sheetClipText != 0 && k&sheetOtherHide == 0)
}

// hiddenDrawn reports whether the current start tag, which hides its
// content (see hides), still lays its letters out, invisibly: an inline
// style, or SVG presentation attributes, that make them too small,
// transparent or far away, without display: none. Those letters still
// take part in the order the bidirectional algorithm draws the text
// around them in. Letters not drawn at all (hidden, display: none,
// fallback content) do not; nor do letters hidden only from a screen
// reader (aria-hidden), which reads what is left in the order written.
func (c *checker) hiddenDrawn() bool {
	var b [256]byte
	style, _ := c.attr("style")
	st := compactStyle(b[:0], style)
	if declares(st, "display:none") {
		return false
	}
	if _, ok := c.attr("hidden"); ok && !declares(st, "display:") {
		return false
	}
	if c.inForeign() {
		if v, ok := c.attr("display"); ok && asciiEqualFold(bytes.TrimSpace(v), "none") {
			return false
		}
		if c.svgAttrsHide() {
			return true
		}
	}
	if len(style) > 0 && (hidingStyle(style) || c.pageVarsHide(style)) && !c.inlineFadeShows(style) {
		return true
	}
	// A style sheet's rule: laid out unless it says display: none, or
	// the inline style displays it all the same.
	k := c.sheetHides()
	return k&sheetDrawn != 0 || k&sheetNotDrawn != 0 && declares(st, "display:")
}

// zeroSize reports whether the current start tag has a zero width or
// height attribute ("0", "0px", "0%").
func (c *checker) zeroSize() bool {
	for _, k := range []string{"width", "height"} {
		if v, ok := c.attr(k); ok {
			v = bytes.TrimSpace(v)
			if n := numberEnd(v); n > 0 {
				if f, err := strconv.ParseFloat(string(v[:n]), 64); err == nil && f <= 0 {
					return true
				}
			}
		}
	}
	return false
}

// svgHidingAttrs are the SVG presentation attributes that can hide text,
// read as the CSS properties of the same names. (fill="none" is not one:
// stroked letters still show.)
var svgHidingAttrs = []string{"display", "visibility", "font-size", "opacity"}

// svgAttrsHide reports whether the current start tag's SVG presentation
// attributes hide its text (see svgHidingAttrs).
func (c *checker) svgAttrsHide() bool {
	return presentationHides(func(k string) ([]byte, bool) { return c.attr(k) })
}

// presentationHides reports whether the SVG presentation attributes that
// get returns hide an element's text, as the same inline style would.
func presentationHides(get func(k string) ([]byte, bool)) bool {
	var b [128]byte
	st := b[:0]
	for _, k := range svgHidingAttrs {
		if v, ok := get(k); ok && len(v) < 24 {
			st = append(append(append(append(st, k...), ':'), v...), ';')
			if v = bytes.TrimSpace(v); k == "font-size" && numberEnd(v) == len(v) {
				st = append(st[:len(st)-1], "px;"...) // user units
			}
		}
	}
	if len(st) > 0 && hidingStyle(st) {
		return true
	}
	// Letters without fill are not drawn unless stroked.
	fill, _ := get("fill")
	fillOpacity, _ := get("fill-opacity")
	stroke, stroked := get("stroke")
	if stroked && !asciiEqualFold(bytes.TrimSpace(stroke), "none") {
		return false
	}
	f, ok := cssFraction(bytes.TrimSpace(fillOpacity))
	return asciiEqualFold(bytes.TrimSpace(fill), "none") || clearColour(compactStyle(nil, fill)) || ok && f < 0.05
}

// shadowRoot returns the mode of the current start tag's declarative
// shadow root (a template with shadowrootmode, whose content the browser
// draws in place of its host's children), if it is one.
func (c *checker) shadowRoot() ([]byte, bool) {
	for _, k := range []string{"shadowrootmode", "shadowroot"} {
		if v, ok := c.attr(k); ok {
			return v, true
		}
	}
	return nil, false
}

// hidingPatterns are inline style declarations, without white space and
// lower-cased, that hide an element's text or move it away from the
// letters around it: display and visibility; a zero font size, opacity,
// size or scale; transparent colour; clipping; far negative offsets and
// indents.
var hidingPatterns = []string{
	"display:none", "visibility:hidden", "visibility:collapse", "content-visibility:hidden",
	"color:transparent", "-webkit-text-fill-color:transparent", "clip:rect(",
	"left:-", "top:-", "right:-", "text-indent:-",
}

// clipsAway reports whether the compacted style st clips its element with
// clip-path (or -webkit-clip-path), other than by none or an inset of
// zero on every side, which clip nothing (where a wipe-in ends).
func clipsAway(st []byte) bool {
	for rest := st; ; {
		i := bytes.Index(rest, []byte("clip-path:"))
		if i < 0 {
			return false
		}
		rest = rest[i+len("clip-path:"):]
		v, _, _ := bytes.Cut(rest, []byte(";"))
		v = bytes.TrimSuffix(v, []byte("!important"))
		if string(v) == "none" {
			continue
		}
		arg, ok := bytes.CutPrefix(v, []byte("inset("))
		if !ok || bytes.IndexByte(arg, '(') >= 0 {
			return true
		}
		// Compacted, "inset(0 0 0 0 round 4px)" is "inset(0000round4px)":
		// every side is zero when no digit before "round" is another.
		arg, _, _ = bytes.Cut(arg, []byte("round"))
		if bytes.ContainsAny(arg, "123456789") {
			return true
		}
	}
}

// zeroPatterns are style properties that hide text when they are zero
// (0, 0px, 0em, 0%, 0 !important) and not 0.5 or 05.
var zeroPatterns = []string{
	"font-size:0", "opacity:0", "width:0", "height:0", "max-width:0", "max-height:0", "line-height:0",
	"transform:scale(0", "scale:0",
}

// hidingStyle reports whether an inline style hides text (see
// hidingPatterns, zeroPatterns and farDecls).
func hidingStyle(style []byte) bool {
	var b [256]byte
	st := compactStyle(b[:0], style)
	if clipsText(st) {
		// Gradient text: a clear colour lets the background show
		// through the letters, which are drawn.
		st = withoutProps(st, colourProps)
	}
	for _, p := range hidingPatterns {
		if i := bytes.Index(st, []byte(p)); i >= 0 && (i == 0 || st[i-1] == ';' || p[0] == '-') {
			return true
		}
	}
	if clipsAway(st) {
		return true
	}
	for _, p := range zeroPatterns {
		for rest := st; ; {
			i := bytes.Index(rest, []byte(p))
			if i < 0 {
				break
			}
			if i > 0 && rest[i-1] != ';' && (p != "font-size:0" && p != "opacity:0" || customPropertyAt(st, len(st)-len(rest)+i)) {
				// min-width:0, border-width:0: not the box's size;
				// --tw-enter-opacity:0, a custom property, read where
				// var() uses it.
				rest = rest[i+len(p):]
				continue
			}
			rest = rest[i+len(p):]
			if len(rest) == 0 || rest[0] != '.' && (rest[0] < '0' || rest[0] > '9') {
				return true
			}
		}
	}
	return farDecls(st) || fontShorthandHides(style, st) || unreadValues(st)
}

// customPropertyAt reports whether st[i] is in the name of a custom
// property of the compacted declarations st.
func customPropertyAt(st []byte, i int) bool {
	start := bytes.LastIndexByte(st[:i], ';') + 1
	return bytes.HasPrefix(st[start:], []byte("--")) && bytes.IndexByte(st[start:i], ':') < 0
}

// unreadValues reports whether the compacted declarations st give a
// property that may hide or move letters a value that the checker does
// not compute (see unreadValue). Left out: content and quotes, which draw
// attr()'s text; custom properties, read where var() uses them; and the
// properties that draw around the letters (padding, border, background,
// shadows, outline, cursor, transitions, fonts' faces).
func unreadValues(st []byte) bool {
	if bytes.IndexByte(st, '(') < 0 && !bytes.Contains(st, []byte("infinity")) {
		return false
	}
	for decl := range bytes.SplitSeq(st, []byte(";")) {
		prop, v, ok := bytes.Cut(decl, []byte(":"))
		if ok && !bytes.HasPrefix(prop, []byte("--")) && !drawsAround(prop) && unreadValue(v) {
			return true
		}
	}
	return false
}

// drawsAround reports whether the property prop (compacted) draws only
// around an element's letters, or draws text of its own (see
// unreadValues).
func drawsAround(prop []byte) bool {
	p := string(bytes.TrimPrefix(prop, []byte("-webkit-")))
	for _, prefix := range []string{"padding", "border", "background", "outline", "box-shadow", "text-shadow", "transition", "font-family", "font-weight", "font-style", "text-decoration", "cursor"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return p == "content" || p == "quotes"
}

// unreadFunctions are the CSS functions whose value the checker does not
// compute: conditions, the environment, sizes of other boxes, rounding
// and progress, random values, an element's place among its siblings.
var unreadFunctions = wordSet(`attr if env calc-size anchor anchor-size round mod rem progress random
	sibling-index sibling-count inherit first-valid media-progress container-progress`)

// unreadValue reports whether the compacted value v calls one of
// unreadFunctions or a custom function (--name(), CSS's @function, which
// may give any property any value), or is infinite (calc(-infinity)).
func unreadValue(v []byte) bool {
	if bytes.Contains(v, []byte("infinity")) {
		return true
	}
	for i := bytes.IndexByte(v, '('); i >= 0; {
		if name := cssIdentBefore(v, i); bytes.HasPrefix(name, []byte("--")) || unreadFunctions[string(name)] {
			return true
		}
		j := bytes.IndexByte(v[i+1:], '(')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// descendantLabel adds what an element inside a clickable one shows or
// names to the clickable one's label: the alt text of an image (drawn
// when the image does not load, and its accessible name) and an
// aria-label. aria-labelledby is not followed: it names the element for
// screen readers with text that is shown elsewhere, where it is checked
// if it is clickable.
func (c *checker) descendantLabel(a atom.Atom, foreign bool) {
	if !inline(a) && !(foreign && svgInline(c.name)) {
		c.appendLabel([]byte(" "))
	}
	if a == atom.Bdo {
		if dir, _ := c.attr("dir"); asciiEqualFold(bytes.TrimSpace(dir), "rtl") {
			c.labelReversed = true
		}
	}
	for _, k := range []string{"alt", "aria-label"} {
		if k == "alt" && a != atom.Img && a != atom.Input && a != atom.Area {
			continue
		}
		if v, ok := c.attr(k); ok {
			if k == "alt" && a == atom.Img && c.hideDepth == 0 {
				// A loaded image does not show its alt: the label is
				// read with it and without it.
				c.labelHidden = true
				c.hideDepth++
				c.appendLabel(v)
				c.hideDepth--
			} else {
				c.appendLabel(v)
			}
			c.appendLabel([]byte(" "))
		}
	}
	if a == atom.Input {
		// A field draws its value, or else its placeholder, in a box
		// of its own (row 940).
		if t, _ := c.attr("type"); !asciiEqualFold(bytes.TrimSpace(t), "hidden") {
			v, ok := c.attr("value")
			if !ok || len(bytes.TrimSpace(v)) == 0 {
				v, ok = c.attr("placeholder")
			}
			if ok {
				c.appendLabel(v)
				c.appendLabel([]byte(" "))
			}
		}
	}
	if len(c.drawn) > 0 {
		c.appendLabel(c.drawn)
		c.appendLabel([]byte(" "))
	}
}

// maxLabels bounds the labels whose reading is remembered.
const maxLabels = 1024

// downloadReading is downloadReading, remembering the labels that are not
// a call to download: pages repeat their labels ("Details" on every card),
// and reading a label that is not ASCII takes a microsecond or two. A new
// label is first screened on its bytes (mayReadAsDownload): most are
// ruled out there, before they are copied into a string.
func (c *checker) downloadReading(label []byte, o labelOpts) (string, bool) {
	remembered := !o.truncated && !o.reversed && o.open == "" && len(label) <= 64
	var seen uint8
	if remembered {
		// A label that is not a call to download on a clickable element
		// is not one anywhere either: anywhere only counts fewer words.
		seen = c.labels[string(label)]
		if seen&notOnClickable != 0 || o.anywhere && seen&notAnywhere != 0 {
			return "", false
		}
	}
	shape := shapeOf(label)
	if o.open != "" && !shape.controls && !shape.rtl {
		// Drawn as written, or wholly reversed under a right-to-left
		// override (see bidi.go).
		o.reversed = o.reversed || strings.HasSuffix(o.open, "\u202e")
		o.open = ""
	}
	var form string
	// An ASCII label's readings cost no more than the screen: it is read
	// at once.
	ok, may := false, o.reversed || isASCII(string(label)) || bytes.Contains(label, rightToLeftOverrideBytes) || mayReadAsDownload(label, c.readCache(label))
	if may {
		form, ok = downloadReading(string(label), o, c.readCache(label))
	}
	if !ok && (shape.controls || shape.mixed || o.open != "") {
		var drawnMay bool
		form, ok, drawnMay = c.drawnReading(label, o, shape)
		may = may || drawnMay
	}
	if !ok && remembered && len(c.labels) < maxLabels {
		if c.labels == nil {
			c.labels = make(map[string]uint8)
		}
		switch {
		case !may || !o.anywhere:
			seen |= notOnClickable // ruled out whatever the options
		default:
			seen |= notAnywhere
		}
		c.labels[string(label)] = seen
	}
	return form, ok
}

// Flags of checker.labels.
const (
	notOnClickable = 1 << iota // not a call to download on a clickable element
	notAnywhere                // not a call to download as generated text
)

// readCache returns the check's cache of character readings, made when
// the first label that needs it comes.
func (c *checker) readCache(label []byte) readCache {
	if c.chars == nil && !isASCII(string(label)) {
		c.chars = make(readCache)
	}
	return c.chars
}

// closeFrame closes the innermost clickable element, which ends at end,
// and checks its text.
func (c *checker) closeFrame(end int) {
	f := c.frames[len(c.frames)-1]
	c.frames = c.frames[:len(c.frames)-1]
	reported := f.reported
	if !f.reported && c.want(ruleDownloadButton) {
		o := labelOpts{truncated: c.labelCut, reversed: c.labelReversed || c.bidiOverride, open: c.frameOpen}
		label := c.label[f.text:]
		c.readingAt = [2]int{f.start, end}
		form, ok := c.downloadReading(label, o)
		if !ok && c.labelHidden {
			label = c.shown[f.shown:]
			form, ok = c.downloadReading(label, o)
		}
		if !ok && len(c.frames) == 0 && c.visUsed && !bytes.Equal(c.visText, c.label[f.text:]) {
			label = c.visText
			form, ok = c.downloadReading(label, o)
		}
		if !ok && len(c.frames) == 0 {
			c.reo.reorderedLabels(c.label[f.text:], func(l []byte) bool {
				label = l
				form, ok = c.downloadReading(l, o)
				return ok
			})
		}
		if !ok && len(c.frames) == 0 && c.ownFirstLetter(label) {
			// Its own ::first-letter hidden (row 985), or its first
			// line, read as its first word.
			l := append([]byte(nil), c.label[f.text:]...)
			for _, i := range []int{firstLetterLen(l), firstWordLen(l)} {
				if i > 0 && i < len(l) {
					if form, ok = c.downloadReading(l[i:], o); ok {
						label = l[i:]
						break
					}
				}
			}
		}
		if !ok && len(c.frames) == 0 && len(c.reo.boxes) > 0 {
			for _, v := range c.boxedReadings(c.label[f.text:]) {
				if form, ok = c.downloadReading([]byte(v), labelOpts{truncated: o.truncated}); ok {
					label = []byte(v)
					break
				}
			}
		}
		c.readingAt = [2]int{}
		if ok {
			reported = true
			c.add(ruleDownloadButton, f.start, f.start, end, fmt.Sprintf(
				"The clickable <%s> says %s%s: it is a download button, and the page must not have one.",
				f.name, q(label), readsAs(string(label), form)))
			// Outer clickable elements share this text; one finding is enough.
			for i := range c.frames {
				c.frames[i].reported = true
			}
		}
	}
	if len(c.frames) == 0 {
		c.besideLabel(f, end, reported)
		// What the label leaves open is open after it.
		c.followBidi(c.label[f.text:])
		c.label = c.label[:0]
		c.labelPops = 0
		c.labelCut = false
		c.labelReversed = false
		c.shown = c.shown[:0]
		c.labelHidden = false
		c.hideDepth = 0
		c.reo.reset()
		c.vis, c.visText, c.visUsed, c.frameTag = c.vis[:0], c.visText[:0], false, [2]int{}
	}
}

// A word split across clickable elements side by side
// (<a>Down</a><a>load</a>, one letter a link) looks like one button. Such
// a run of clickable elements, with nothing but white space and inline
// tags between them, is read as one label when it ends, once: up to
// maxBesidePieces elements of one word each, maxBeside bytes in all.
const (
	maxBesideGap    = 16
	maxBeside       = 64
	maxBesidePiece  = 16
	maxBesidePieces = 8
)

// besideLabel adds the label of f, an outermost clickable element that
// ends at end, to the run of clickable elements side by side; reported
// says f was reported already.
func (c *checker) besideLabel(f frame, end int, reported bool) {
	piece := bytes.TrimSpace(c.label[f.text:])
	if reported || len(piece) == 0 || len(piece) > maxBesidePiece || bytes.ContainsAny(piece, " \t\n\r\f") {
		c.endBeside()
		return
	}
	if c.besidePieces == maxBesidePieces || len(c.beside)+1+len(piece) > maxBeside {
		c.endBeside()
	}
	if c.besidePieces == 0 {
		c.besideStart = f.start
		c.besideOpen = c.frameOpen
	} else {
		c.beside = append(c.beside, ' ')
		c.beside = append(c.beside, c.besideGap...)
		if c.cssMarks && len(c.besideGap) == 0 {
			// CSS may draw a mark between them.
			c.beside = append(c.beside, "\u200f"...)
		}
	}
	c.besideGap = c.besideGap[:0]
	c.besideAt = append(c.besideAt, len(c.beside))
	c.beside = append(c.beside, piece...)
	c.besidePieces++
	c.besideEnd = end
}

// besideReversed returns the run of clickable elements side by side in
// reverse order, when it has right-to-left letters: links drawn as
// boxes from left to right are read from right to left by a reader of
// Hebrew or Arabic (row 924).
func (c *checker) besideReversed() []byte {
	if len(c.besideAt) < 2 || !hasRightToLeftLetter(c.beside) {
		return nil
	}
	out := make([]byte, 0, len(c.beside)+len(c.besideAt))
	end := len(c.beside)
	for i := len(c.besideAt) - 1; i >= 0; i-- {
		out = append(out, bytes.TrimSpace(c.beside[c.besideAt[i]:end])...)
		out = append(out, ' ')
		end = c.besideAt[i]
	}
	return bytes.TrimSpace(out)
}

// endBeside reads the run of clickable elements side by side, if there
// is one, and starts a new one.
func (c *checker) endBeside() {
	if c.besidePieces >= 2 && c.want(ruleDownloadButton) {
		c.readingAt = [2]int{c.besideStart, c.besideEnd}
		form, ok := c.downloadReading(c.beside, labelOpts{open: c.besideOpen})
		label := c.beside
		if rev := c.besideReversed(); !ok && rev != nil {
			if form, ok = c.downloadReading(rev, labelOpts{}); ok {
				label = rev
			}
		}
		c.readingAt = [2]int{}
		if ok {
			c.add(ruleDownloadButton, c.besideStart, c.besideStart, c.besideEnd, fmt.Sprintf(
				"The clickable elements side by side say %s together%s: they make a download button, and the page must not have one.",
				q(label), readsAs(string(label), form)))
		}
	}
	c.beside = c.beside[:0]
	c.besideAt = c.besideAt[:0]
	c.besideGap = c.besideGap[:0]
	c.besidePieces = 0
}

// besideGapText reports whether raw, text after a clickable element of a
// run side by side, draws nothing: white space and characters that draw
// nothing, such as direction marks, which can reorder the run
// (<a>load</a>U+200F<a>Down</a> in a right-to-left paragraph is drawn
// "Down" "load"). Those characters are kept for the label of the run,
// up to maxBesideGap bytes; the run goes on.
func (c *checker) besideGapText(raw []byte) bool {
	if c.besidePieces == 0 {
		return false
	}
	t := raw
	if bytes.IndexByte(raw, '&') >= 0 {
		t = c.z.Text()
	}
	gap := len(c.besideGap)
	for _, r := range string(t) {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f':
		case invisible(r) && !unicode.Is(unicode.Mn, r) && !unicode.Is(unicode.Me, r):
			c.besideGap = utf8.AppendRune(c.besideGap, r)
		default:
			c.besideGap = c.besideGap[:gap]
			return false
		}
	}
	if len(c.besideGap) > maxBesideGap {
		c.besideGap = c.besideGap[:gap]
		return false
	}
	return true
}

// end reports what can only be known at the end of the document.
func (c *checker) end() {
	switch {
	case c.htmls == 0:
		c.add(ruleDocumentComplete, 0, 0, len(c.src),
			"This is not a complete HTML document: there is no <html> element, so it looks like a fragment or plain text.")
	case !c.bodyContent:
		pos := c.bodyStart
		if pos < 0 {
			pos = c.htmlStart
		}
		c.add(ruleDocumentComplete, pos, pos, pos+maxExcerpt,
			"The document has no body content: there is no visible text or element in <body>.")
	}
	if c.htmls > 0 && c.strayBefore >= 0 {
		c.add(ruleDocumentComplete, c.strayBefore, c.strayBefore, c.strayBefore+maxExcerpt,
			"There is content before the <html> element; the document must be sent on its own.")
	}
	if c.strayAfter >= 0 {
		c.add(ruleDocumentComplete, c.strayAfter, c.strayAfter, c.strayAfter+maxExcerpt,
			"There is text after </html>; the document must be sent on its own.")
	}
	if c.clip {
		if instr := findRunInstruction(c.doc); instr != "" {
			c.add(rulePhishingClipboard, c.clipPos, c.clipPos, c.clipEnd, fmt.Sprintf(
				"A script writes the clipboard and the page tells the visitor %s: this is the ClickFix pattern of pages that trick people into running commands.",
				strconv.Quote(summarize(instr, 60))))
		}
	}
	where := c.headStart
	if where < 0 {
		where = max(c.htmlStart, 0)
	}
	if c.doctypes == 0 {
		c.add(ruleHygieneDoctype, 0, 0, maxExcerpt, "The document has no <!DOCTYPE html>.")
	}
	if !c.titleText {
		c.add(ruleHygieneTitle, where, where, where+maxExcerpt, "The document has no <title>, or it is empty.")
	}
	if !c.viewport {
		c.add(ruleHygieneViewport, where, where, where+maxExcerpt, "The document has no <meta name=\"viewport\">.")
	}
}

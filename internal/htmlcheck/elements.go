package htmlcheck

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/html/atom"
)

// q quotes a value from the document for a message.
func q(b []byte) string { return strconv.Quote(summarize(string(b), 60)) }

// elementRules applies the rules about one start tag and its attributes,
// and reports whether the element is clickable.
func (c *checker) elementRules(a atom.Atom, name []byte, foreign bool, start, end int) bool {
	clickable := false
	c.drawn = c.drawn[:0]
	for i := range c.attrs {
		at := &c.attrs[i]
		k := at.key
		switch {
		case string(k) == "style":
			p := c.attrPlace(start, end, at)
			c.scanCSS(p, c.attrText(start, at, p), "style attribute", true)
		case len(k) > 2 && k[0] == 'o' && k[1] == 'n':
			c.scanJS(c.attrPlace(start, end, at), at.val)
			if clickHandler(k) {
				clickable = true
			}
		case string(k) == "background":
			c.checkImage(start, end, "background", at.val, name)
			if !foreign {
				c.refAttr(start, end, at, RefImage)
			}
		case string(k) == "role":
			if clickableRole(at.val) {
				clickable = true
			}
		case string(k) == "class":
			if buttonClass(at.val) {
				clickable = true
			}
		}
	}

	switch a {
	case atom.A, atom.Area:
		clickable = true
		if _, ok := c.attr("download"); ok && c.want(ruleDownloadButton) {
			c.addAttr(ruleDownloadButton, start, end, "download", false, fmt.Sprintf(
				"<%s download> makes the browser download the link target: it is a download button.", name))
		}
		for _, k := range []string{"href", "xlink:href"} {
			if v, ok := c.attr(k); ok {
				c.checkLink(start, end, k, v, name)
			}
		}
		c.checkTarget(start, end, name)
	case atom.Summary, atom.Label, atom.Select:
		// A summary opens its details, a label clicks its control
		// (often a hidden checkbox that CSS turns into a button), a
		// select shows an option as its face.
		clickable = true
	case atom.Button:
		clickable = true
		if v, ok := c.attr("formaction"); ok {
			c.checkFormAction(start, end, "formaction", v)
		}
	case atom.Input:
		typ, _ := c.attr("type")
		switch {
		case asciiEqualFold(typ, "button"), asciiEqualFold(typ, "submit"), asciiEqualFold(typ, "reset"):
			clickable = true
		case asciiEqualFold(typ, "image"):
			clickable = true
			c.loadAttr(start, end, "src", name, RefImage, !foreign)
			c.imageText(start, "src")
		}
		if v, ok := c.attr("formaction"); ok {
			c.checkFormAction(start, end, "formaction", v)
		}
	case atom.Img:
		c.loadAttr(start, end, "src", name, RefImage, true)
		c.imageText(start, "src")
		c.checkSrcset(start, end, name, true)
	case atom.Image:
		if foreign {
			c.checkSVGImage(start, end, name, true)
			c.imageText(start, "href", "xlink:href")
		} else if c.findAttr("src") != nil {
			// The parser turns <image> into <img> in HTML content.
			c.loadAttr(start, end, "src", name, RefImage, true)
			c.imageText(start, "src")
		}
	case atom.Source:
		// A <source> offers an image (srcset) to the <img> of a
		// <picture>, and a stream (src) to <video> and <audio>.
		in := c.sourceParent()
		c.checkSrcset(start, end, name, !foreign && in == atom.Picture)
		c.loadAttr(start, end, "src", name, RefMedia, !foreign && (in == atom.Audio || in == atom.Video))
	case atom.Video:
		c.loadAttr(start, end, "poster", name, RefImage, !foreign)
		c.imageText(start, "poster")
		c.loadAttr(start, end, "src", name, RefMedia, !foreign)
	case atom.Audio:
		c.loadAttr(start, end, "src", name, RefMedia, !foreign)
	case atom.Track:
		// A track loads only as a child of <video> or <audio>.
		in := c.sourceParent()
		c.loadAttr(start, end, "src", name, RefTrack, !foreign && (in == atom.Audio || in == atom.Video))
	case atom.Link:
		c.checkLinkElement(start, end, foreign)
	case atom.Script:
		if _, ok := c.attr("src"); ok {
			c.addAttr(ruleInlineScript, start, end, "src", false,
				"<script src> loads an external script, which the sandbox blocks.")
		}
		typ, _ := c.attr("type")
		c.scriptJS = javaScriptType(typ)
		if asciiEqualFold(bytes.TrimSpace(typ), "speculationrules") {
			c.addTag(ruleSandboxResourceHint, start, end,
				"<script type=\"speculationrules\"> makes the browser prefetch or prerender pages before any script runs.")
		}
	case atom.Form:
		c.addTag(ruleSandboxForm, start, end, "Forms cannot be submitted in the sandbox.")
		if v, ok := c.attr("action"); ok {
			c.checkFormAction(start, end, "action", v)
		}
		c.checkTarget(start, end, name)
	case atom.Iframe, atom.Frame, atom.Frameset, atom.Object, atom.Embed:
		if c.want(ruleSandboxFrame) {
			c.addTag(ruleSandboxFrame, start, end, fmt.Sprintf("<%s> does not load in the sandbox.", name))
		}
		if _, ok := c.attr("srcdoc"); ok && a == atom.Iframe {
			c.addTag(ruleSandboxSrcdoc, start, end, "<iframe srcdoc> makes a document of its own, which Firefox loads despite the sandbox.")
		}
	case atom.Template:
		if mode, ok := c.shadowRoot(); ok && asciiEqualFold(bytes.TrimSpace(mode), "closed") {
			c.addTag(ruleSandboxShadowRoot, start, end, "A closed declarative shadow root hides its content from the service's safeguards.")
		}
	case atom.Meta:
		if v, ok := c.attr("http-equiv"); ok && asciiEqualFold(bytes.TrimSpace(v), "refresh") {
			c.addTag(ruleSandboxMetaRefresh, start, end, "<meta http-equiv=\"refresh\"> cannot redirect or reload the page in the sandbox.")
		}
		if v, ok := c.attr("name"); ok && asciiEqualFold(bytes.TrimSpace(v), "viewport") {
			c.viewport = true
		}
		if v, ok := c.attr("http-equiv"); ok && asciiEqualFold(bytes.TrimSpace(v), "link") {
			c.checkMetaLink(start, end)
		}
	case atom.Base:
		c.addTag(ruleSandboxBase, start, end, "<base> is ignored in the sandbox.")
		c.checkTarget(start, end, name)
	default:
		switch string(name) {
		case "feimage":
			c.checkSVGImage(start, end, name, foreign)
			c.imageText(start, "href", "xlink:href")
		case "portal", "fencedframe":
			if c.want(ruleSandboxFrame) {
				c.addTag(ruleSandboxFrame, start, end, fmt.Sprintf("<%s> does not load in the sandbox.", name))
			}
		}
	}
	if len(c.attrRefs) > 0 && c.want(ruleDownloadButton) {
		c.checkAttrRefs(start, end, name)
	}
	c.byScript = false
	if !clickable && c.scriptClicks && !foreign {
		clickable = c.scriptClickable()
		c.byScript = clickable
	}
	if !clickable {
		return false
	}
	if len(c.drawn) > 0 && void(a) {
		if form, ok := c.downloadReading(c.drawn, labelOpts{reversed: c.bidiOverride}); ok {
			c.addTag(ruleDownloadButton, start, end, fmt.Sprintf(
				"The clickable <%s> draws an SVG image with the text %s%s: it is a download button, and the page must not have one.", name, q(c.drawn), readsAs(string(c.drawn), form)))
			return false
		}
	}
	// The accessible names of a clickable element, and the text that it
	// shows of its own.
	for _, k := range []string{"aria-label", "title", "value", "alt", "placeholder"} {
		switch {
		case k == "value" && a != atom.Input: // a button's value is not shown
			continue
		case k == "alt" && a != atom.Input && a != atom.Area && a != atom.Img:
			continue
		case k == "placeholder" && a != atom.Input && a != atom.Textarea:
			continue
		}
		if v, ok := c.attr(k); ok {
			if form, ok := c.downloadReading(v, labelOpts{reversed: c.bidiOverride}); ok {
				c.addAttr(ruleDownloadButton, start, end, k, false, fmt.Sprintf(
					"The clickable <%s> has %s=%s%s: it is a download button, and the page must not have one.", name, k, q(v), readsAs(string(v), form)))
				return false // reported; its text need not be checked
			}
		}
	}
	return true
}

// sourceParent returns the innermost open <picture>, <audio> or <video>
// element, or 0.
func (c *checker) sourceParent() atom.Atom {
	if len(c.sources) == 0 {
		return 0
	}
	return c.sources[len(c.sources)-1]
}

// checkAttrRefs checks the attributes of the current start tag that CSS
// draws with attr(), on any element, as CSS content is checked on any
// selector.
func (c *checker) checkAttrRefs(start, end int, name []byte) {
	for i := range c.attrs {
		at := &c.attrs[i]
		if !c.attrRefs[string(at.key)] {
			continue
		}
		if bytes.Contains(at.val, rightToLeftOverrideBytes) {
			c.bidiOverride = true // drawn before a label, it reverses it
		}
		if drawsMarks(at.val) {
			c.cssMarks = true // drawn between links, it may reorder them
		}
		if form, ok := c.downloadReading(at.val, labelOpts{reversed: c.bidiOverride, anywhere: true}); ok {
			c.addAttr(ruleDownloadButton, start, end, string(at.key), false, fmt.Sprintf(
				"<%s %s=%s> is drawn on the page by CSS attr(%s) and says a call to download%s: it makes a download button, and the page must not have one.",
				name, at.key, q(at.val), at.key, readsAs(string(at.val), form)))
			return
		}
	}
}

// addAttrRef records that CSS draws the attribute name with attr().
func (c *checker) addAttrRef(name []byte) {
	if c.attrRefs == nil {
		c.attrRefs = map[string]bool{}
	}
	c.attrRefs[string(lowerASCII(name))] = true
}

// findAttrRefs records the attributes that the document's CSS draws with
// attr(), before the document is checked, so that an element before the
// style sheet that draws it is checked too. It finds attr( in lower or
// upper case; the scan of each style sheet finds the rest (mixed case,
// escapes) for the elements after it.
func (c *checker) findAttrRefs() {
	for _, pat := range []string{"attr(", "ATTR("} {
		s := c.src
		for {
			i := bytes.Index(s, []byte(pat))
			if i < 0 {
				break
			}
			s = s[i+len(pat):]
			j := 0
			for j < len(s) && isCSSSpace(s[j]) {
				j++
			}
			k := j
			for k < len(s) && isCSSIdent(s[k]) {
				k++
			}
			if k > j {
				c.addAttrRef(s[j:k])
			}
		}
	}
}

// readsAs explains, for a message, how a label that matched as form reads,
// when that is more than its letters in lower case without accents.
func readsAs(label, form string) string {
	plain := strings.Join(strings.Fields(strings.ToLower(label)), " ")
	if form == plain || form == strings.Join(strings.Fields(withoutMarks(plain)), " ") {
		return ""
	}
	return fmt.Sprintf(", which reads as %s", strconv.Quote(summarize(form, 60)))
}

// clickHandler reports whether the attribute k is an event handler that
// runs when the element is clicked, tapped or activated from the keyboard.
// Other handlers (onload, onscroll, onmouseover) do not make an element
// a button.
func clickHandler(k []byte) bool {
	switch string(k) {
	case "onclick", "onmousedown", "onmouseup", "onpointerdown", "onpointerup", "ontouchstart", "ontouchend",
		"onauxclick", "ondblclick", "oncontextmenu", "onkeydown", "onkeyup", "onkeypress":
		return true
	}
	return false
}

// clickableRole reports whether a role attribute makes the element a
// control a visitor activates (ARIA widget roles that are clicked).
func clickableRole(v []byte) bool {
	for r := range bytes.FieldsSeq(v) {
		for _, role := range []string{"button", "link", "menuitem", "menuitemcheckbox", "menuitemradio",
			"tab", "option", "switch", "checkbox", "radio", "treeitem"} {
			if asciiEqualFold(r, role) {
				return true
			}
		}
	}
	return false
}

// buttonClass reports whether a class attribute names the element a
// button (btn, button, cta, btn-primary, …), for elements made clickable
// by script.
func buttonClass(v []byte) bool {
	for f := range bytes.FieldsSeq(v) {
		switch {
		case asciiEqualFold(f, "btn"), asciiEqualFold(f, "button"), asciiEqualFold(f, "cta"),
			hasPrefixFold(f, "btn-"), hasPrefixFold(f, "btn_"), hasPrefixFold(f, "button-"),
			hasSuffixFold(f, "-btn"), hasSuffixFold(f, "_btn"), hasSuffixFold(f, "-button"):
			return true
		}
	}
	return false
}

// hasSuffixFold reports whether b ends with suffix, ignoring ASCII case;
// suffix must be lower case.
func hasSuffixFold(b []byte, suffix string) bool {
	return len(b) >= len(suffix) && asciiEqualFold(b[len(b)-len(suffix):], suffix)
}

// javaScriptType reports whether a script element's type attribute says
// the content is JavaScript (or JSX, which is JavaScript to these rules).
func javaScriptType(t []byte) bool {
	t = bytes.TrimSpace(t)
	if i := bytes.IndexByte(t, ';'); i >= 0 {
		t = bytes.TrimSpace(t[:i])
	}
	if len(t) == 0 || asciiEqualFold(t, "module") {
		return true
	}
	return containsFold(t, "javascript") || containsFold(t, "ecmascript") || containsFold(t, "jscript") ||
		containsFold(t, "babel") || containsFold(t, "jsx")
}

// loadAttr checks the attribute key of the current start tag, if it has
// it, as an image (image.source) if kind is RefImage and as media
// (sandbox.external_media) otherwise, and records it as a Ref of kind if
// refs.
func (c *checker) loadAttr(start, end int, key string, name []byte, kind string, refs bool) {
	a := c.findAttr(key)
	if a == nil {
		return
	}
	if kind == RefImage {
		c.checkImage(start, end, key, a.val, name)
	} else {
		c.checkMedia(start, end, key, a.val, name)
	}
	if refs {
		c.refAttr(start, end, a, kind)
	}
}

// checkImage checks an attribute that loads an image.
func (c *checker) checkImage(start, end int, key string, v, name []byte) {
	u := trimURL(v)
	if len(u) == 0 || urlLoads(u) || !c.want(ruleImageSource) {
		return
	}
	c.addAttr(ruleImageSource, start, end, key, true, fmt.Sprintf(
		"<%s %s=%s> is %s; images must be data: URIs or absolute https: URLs.", name, key, q(u), urlKind(u)))
}

// checkSVGImage checks the href of an SVG <image> or <feImage>, and
// records it as a Ref if refs. Both href and xlink:href are, although
// browsers load xlink:href only when there is no href
// (https://www.w3.org/TR/SVG2/linking.html#XLinkRefAttrs): a script can
// remove href.
func (c *checker) checkSVGImage(start, end int, name []byte, refs bool) {
	for _, k := range []string{"href", "xlink:href"} {
		v, ok := c.attr(k)
		if !ok {
			continue
		}
		if refs {
			c.refAttr(start, end, c.findAttr(k), RefImage)
		}
		if u := trimURL(v); len(u) > 0 && u[0] == '#' {
			continue
		}
		c.checkImage(start, end, k, v, name)
	}
}

// checkSrcset checks each candidate of the srcset attribute of the
// current start tag, if it has one, and records the remote ones as Refs
// if refs.
func (c *checker) checkSrcset(start, end int, name []byte, refs bool) {
	a := c.findAttr("srcset")
	if a == nil {
		return
	}
	p := c.attrPlace(start, end, a)
	v := c.attrText(start, a, p)
	eachSrcsetURL(v, func(s, e int) {
		u := v[s:e]
		if !urlLoads(u) && c.want(ruleImageSource) {
			p.add(ruleImageSource, s, e, fmt.Sprintf(
				"<%s srcset> has the candidate %s, which is %s; images must be data: URIs or absolute https: URLs.", name, q(u), urlKind(u)))
		}
		if refs && hasPrefixFold(u, "https://") {
			pos, ex0, ex1 := p.at(s, e)
			c.addRef(RefImage, encSrcset, p, v, s, e, pos, ex0, ex1)
		}
	})
}

// checkMedia checks an attribute that loads audio, video or a text track.
func (c *checker) checkMedia(start, end int, key string, v, name []byte) {
	u := trimURL(v)
	if len(u) == 0 || urlLoads(u) || !c.want(ruleSandboxExternalMedia) {
		return
	}
	c.addAttr(ruleSandboxExternalMedia, start, end, key, true, fmt.Sprintf(
		"<%s %s=%s> is %s and does not load in the sandbox.", name, key, q(u), urlKind(u)))
}

// checkLink checks the target of a link (a or area href).
func (c *checker) checkLink(start, end int, key string, v, name []byte) {
	u := browserURL(v)
	switch {
	case hasPrefixFold(u, "data:"), hasPrefixFold(u, "blob:"):
		if !c.want(ruleDownloadButton) {
			return
		}
		c.addAttr(ruleDownloadButton, start, end, key, true, fmt.Sprintf(
			"<%s %s=%s> links to a %s URL, which serves a file: it is a download link.", name, key, q(u), bytes.ToLower(u[:4])))
	case hasPrefixFold(u, "javascript:"):
		c.scanJS(c.attrPlace(start, end, c.findAttr(key)), v)
	case c.want(ruleDownloadButton):
		if msg := c.downloadTarget(u); msg != "" {
			c.addAttr(ruleDownloadButton, start, end, key, true, fmt.Sprintf("<%s %s=%s> %s: it is a download link.", name, key, q(u), msg))
		}
	}
}

// maxParsedLinks bounds the bytes of links a check gives the URL parser
// (see mayBeServiceLink): 256 KiB, some 50 ms.
const maxParsedLinks = 256 << 10

// downloadTarget says why the link u, read with browserURL, leads to a
// download, or returns "". The link that would take the URL parser past
// maxParsedLinks is taken for a download link, and the page refused; the
// ones after it are not read.
func (c *checker) downloadTarget(u []byte) string {
	if len(u) == 0 || u[0] == '#' {
		return "" // this page
	}
	if mayBeServiceLink(u) || mayNameExecutable(u) {
		if c.parsedLinks > maxParsedLinks {
			return "" // the page is refused already
		}
		if c.parsedLinks += len(u); c.parsedLinks > maxParsedLinks {
			return fmt.Sprintf("is past the %d KiB of links that name /f/, a download, an archive or escapes, which a check reads as a browser does; it is taken for a link to a file", maxParsedLinks>>10)
		}
	}
	return downloadTarget(u, c.opts.ServiceHosts)
}

// downloadTarget is checker.downloadTarget without the bound.
func downloadTarget(u []byte, hosts []string) string {
	if len(u) == 0 || u[0] == '#' {
		return "" // this page
	}
	if s := launchScheme(u); s != "" {
		return fmt.Sprintf("uses the %s: scheme, which opens a program or fetches a file outside the page", s)
	}
	if serviceLink(u, hosts) {
		return "links to this service's file page or download URL"
	}
	if file := executableName(u); file != "" {
		return fmt.Sprintf("links to the program or archive %s", q([]byte(file)))
	}
	return ""
}

// checkFormAction checks where a form or submit button sends its data.
func (c *checker) checkFormAction(start, end int, key string, v []byte) {
	if !c.want(ruleDownloadButton) {
		return
	}
	u := browserURL(v)
	if hasPrefixFold(u, "data:") || hasPrefixFold(u, "blob:") || c.downloadTarget(u) != "" {
		c.addAttr(ruleDownloadButton, start, end, key, true, fmt.Sprintf(
			"The form %s=%s leads to a file download: it is a download button.", key, q(u)))
	}
}

// checkTarget checks the target attribute of a, area, form and base.
func (c *checker) checkTarget(start, end int, name []byte) {
	v, ok := c.attr("target")
	if !ok {
		return
	}
	v = bytes.TrimSpace(v)
	switch {
	case asciiEqualFold(v, "_top"), asciiEqualFold(v, "_parent"):
		if !c.want(ruleSandboxTopNavigation) {
			return
		}
		c.addAttr(ruleSandboxTopNavigation, start, end, "target", true, fmt.Sprintf(
			"<%s target=%s> would navigate the download page itself, which the sandbox forbids.", name, q(v)))
	case asciiEqualFold(v, "_blank") || (len(v) > 0 && v[0] != '_'):
		if !c.want(ruleSandboxWindowOpen) {
			return
		}
		c.addAttr(ruleSandboxWindowOpen, start, end, "target", true, fmt.Sprintf(
			"<%s target=%s> opens a new window, which the sandbox blocks.", name, q(v)))
	}
}

// resourceHints are the rel values (lower-cased) with which a browser
// fetches, connects to or resolves a URL before anything uses it.
var resourceHints = []string{"preconnect", "dns-prefetch", "prefetch", "prerender", "preload",
	"modulepreload", "next", "subresource", "compression-dictionary"}

// resourceHint returns the first rel value of rel that is a resource hint.
func resourceHint(rel []byte) []byte {
	for r := range bytes.FieldsSeq(rel) {
		for _, h := range resourceHints {
			if asciiEqualFold(r, h) {
				return r
			}
		}
	}
	return nil
}

// checkMetaLink applies sandbox.resource_hint to <meta http-equiv=Link>,
// which spells a Link header: <https://host>; rel=preconnect.
func (c *checker) checkMetaLink(start, end int) {
	if !c.want(ruleSandboxResourceHint) {
		return
	}
	content, _ := c.attr("content")
	for _, part := range bytes.Split(content, []byte(",")) {
		if k := bytes.IndexByte(part, '>'); k >= 0 {
			part = part[k+1:] // after <URL>
		}
		i := bytes.Index(bytes.ToLower(part), []byte("rel"))
		if i < 0 {
			continue
		}
		rel := part[i+3:]
		if j := bytes.IndexByte(rel, ';'); j >= 0 {
			rel = rel[:j] // rel=preconnect; crossorigin
		}
		if h := resourceHint(bytes.Trim(bytes.TrimLeft(rel, " \t="), "\"' \t")); h != nil {
			c.addAttr(ruleSandboxResourceHint, start, end, "content", true, fmt.Sprintf(
				"<meta http-equiv=\"Link\"> declares the resource hint rel=%s, which connects to a host before any script runs.", q(h)))
			return
		}
	}
}

// checkLinkElement applies the rules to a <link>, by its rel, and
// records an icon's URL as a Ref unless the link is in SVG or MathML
// (foreign) or is also a resource hint, which the page must not have.
func (c *checker) checkLinkElement(start, end int, foreign bool) {
	rel, _ := c.attr("rel")
	as, _ := c.attr("as")
	href, hasHref := c.attr("href")
	if h := resourceHint(rel); h != nil && c.want(ruleSandboxResourceHint) {
		if u := browserURL(href); len(u) > 0 && u[0] != '#' || c.findAttr("imagesrcset") != nil {
			c.addAttr(ruleSandboxResourceHint, start, end, "rel", true, fmt.Sprintf(
				"<link rel=%s> makes the browser connect to or fetch %s before any script runs.", q(rel), q(u)))
		}
	}
	for r := range bytes.FieldsSeq(rel) {
		switch {
		case asciiEqualFold(r, "stylesheet"), asciiEqualFold(r, "preload") && asciiEqualFold(as, "style"):
			c.addTag(ruleInlineStyle, start, end, "<link rel=\"stylesheet\"> loads an external stylesheet, which the sandbox blocks.")
			return
		case asciiEqualFold(r, "modulepreload"), asciiEqualFold(r, "preload") && asciiEqualFold(as, "script"):
			c.addTag(ruleInlineScript, start, end, "<link> preloads an external script, which the sandbox blocks.")
			return
		case asciiEqualFold(r, "icon"), asciiEqualFold(r, "apple-touch-icon"), asciiEqualFold(r, "apple-touch-icon-precomposed"),
			asciiEqualFold(r, "mask-icon"), asciiEqualFold(r, "apple-touch-startup-image"),
			asciiEqualFold(r, "preload") && asciiEqualFold(as, "image"):
			if hasHref {
				c.checkImage(start, end, "href", href, []byte("link"))
				if !foreign && resourceHint(rel) == nil {
					c.refAttr(start, end, c.findAttr("href"), RefImage)
				}
			}
			return
		case asciiEqualFold(r, "preload") && asciiEqualFold(as, "font"):
			if hasHref {
				c.checkMedia(start, end, "href", href, []byte("link"))
			}
			return
		}
	}
}

// scanJS applies the script rules to JavaScript at p.
func (c *checker) scanJS(p place, js []byte) {
	scanJS(js, func(k jsKind, s, e int, detail []byte) {
		switch k {
		case jsImport:
			if !c.want(ruleInlineScript) {
				return
			}
			p.add(ruleInlineScript, s, e, fmt.Sprintf("The script imports the module %s, which the sandbox cannot load.", q(detail)))
		case jsDynamicImport:
			if !c.want(ruleInlineScript) {
				return
			}
			p.add(ruleInlineScript, s, e, fmt.Sprintf("The script calls import(%s), which the sandbox cannot load.", q(detail)))
		case jsImportScripts:
			p.add(ruleInlineScript, s, e, "The script calls importScripts, which loads external scripts the sandbox blocks.")
		case jsClipboard:
			if !c.clip {
				c.clip = true
				// Show the whole call: up to the end of the line.
				line := js[s:min(len(js), s+maxExcerpt)]
				if i := bytes.IndexByte(line, '\n'); i >= 0 {
					line = line[:i]
				}
				c.clipPos, c.clipEnd = p.pos(s, max(e, s+len(line)))
			}
		case jsWindowOpen:
			p.add(ruleSandboxWindowOpen, s, e, "window.open opens a popup, which the sandbox blocks.")
		case jsTopNavigation:
			if !c.want(ruleSandboxTopNavigation) {
				return
			}
			p.add(ruleSandboxTopNavigation, s, e, fmt.Sprintf("%s would navigate the download page itself, which the sandbox forbids.", q(js[s:e])))
		}
	})
}

// scanCSS applies the style rules to CSS at p; where says where it is,
// decls whether it is a declaration list (a style attribute).
func (c *checker) scanCSS(p place, css []byte, where string, decls bool) {
	if !c.bidiOverride || !c.cssMarks {
		dec := css // escapes decoded once, for both
		if bytes.IndexByte(css, '\\') >= 0 {
			dec = cssUnescape(nil, css)
		}
		c.bidiOverride = c.bidiOverride || overridesDirection(dec)
		c.cssMarks = c.cssMarks || drawsMarks(dec)
	}
	// The strings of consecutive declarations are also read joined:
	// .x::before{content:"Down"} .x::after{content:"load"} draws one word
	// on one element.
	var prev []byte
	prevStart := 0
	scanCSS(css, decls, func(k cssKind, s, e int, v []byte) {
		switch k {
		case cssImport:
			if !c.want(ruleInlineStyle) {
				return
			}
			p.add(ruleInlineStyle, s, e, fmt.Sprintf("The %s has an @import rule, which loads an external stylesheet the sandbox blocks.", where))
		case cssImage:
			c.checkCSSImageText(p, s, e, v, where)
			if !cssURLOK(v) && c.want(ruleImageSource) {
				u := trimURL(v)
				p.add(ruleImageSource, s, e, fmt.Sprintf("The %s refers to the image %s, which is %s; images must be data: URIs or absolute https: URLs.", where, q(u), urlKind(u)))
			}
			c.cssRef(p, css, k, s, e, v)
		case cssFont:
			if !cssURLOK(v) && c.want(ruleSandboxExternalMedia) {
				u := trimURL(v)
				p.add(ruleSandboxExternalMedia, s, e, fmt.Sprintf("The %s loads the font %s, which is %s and does not load in the sandbox.", where, q(u), urlKind(u)))
			}
			c.cssRef(p, css, k, s, e, v)
		case cssText:
			if !c.want(ruleDownloadButton) {
				return
			}
			// Whatever the selector: which elements it reaches, now or
			// after a script adds a class, cannot be known here.
			text, from := v, s
			if len(prev) > 0 && !decls && len(prev)+len(v) <= maxLabel {
				// Alone first, then joined with the string before it.
				text, from = append(prev, v...), prevStart
			}
			for _, t := range []struct {
				text []byte
				from int
				how  string
			}{{v, s, ""}, {text, from, " in two pieces that one element can show side by side (::before and ::after)"}} {
				if t.how != "" && t.from == s {
					break
				}
				if form, ok := c.downloadReading(t.text, labelOpts{reversed: c.bidiOverride, anywhere: true}); ok {
					p.add(ruleDownloadButton, t.from, e, fmt.Sprintf(
						"The %s draws the text %s%s%s (CSS content or a string it can use): generated text that calls to download makes a download button, and the page must not have one.",
						where, q(t.text), readsAs(string(t.text), form), t.how))
					prev = prev[:0]
					return
				}
			}
			prev, prevStart = append(prev[:0], v...), s
		case cssAttr:
			c.addAttrRef(v)
		}
	})
}

package htmlcheck

import (
	"bytes"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A declarative shadow root (<template shadowrootmode=open>) is drawn in
// place of its host's children, and each <slot> in it draws the host's
// children assigned to it (slot="name", or the rest for the slot without
// a name): <a><slot name=b></slot><slot name=a></slot></a> in the shadow
// root and <span slot=a>load</span><span slot=b>Down</span> in the host
// draw a link that says "Download" (docs/security.md, row 884). The
// checker reads the source as a stream of tokens, where the link and its
// words are apart; and a shadow root without a slot draws none of its
// host's children (<span><template shadowrootmode=open></template>x
// </span> draws nothing). So a page with a shadow root is also
// built as a tree with golang.org/x/net/html's parser, composed as the
// browser composes it, written out again and read for download buttons.

// maxComposeDepth bounds the recursion of compose. The parser itself
// refuses a page with more than 512 elements open at once, which bounds
// the tree's depth below it.
const maxComposeDepth = 1024

// composeShadows returns doc as it is drawn, its declarative shadow roots
// in place of their hosts' children and the hosts' children in their
// slots, and the offset of doc's first shadow root. It returns nil when
// doc has no shadow root (or has one only inside a comment or a script),
// and ok false when doc nests elements too deep to compose
// (more than 512 open at once).
func composeShadows(doc []byte) (composed []byte, at int, ok bool) {
	at = indexFold(doc, "shadowroot")
	if at < 0 {
		return nil, 0, true
	}
	if k := bytes.LastIndexByte(doc[:at], '<'); k >= 0 {
		at = k
	}
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		// The parser refuses more than 512 open elements: a page that
		// nests deeper cannot be composed, and is refused.
		return nil, at, false
	}
	found, ok := compose(root, 0)
	if !ok {
		return nil, at, false
	}
	if !found {
		return nil, at, true
	}
	var b bytes.Buffer
	if err := html.Render(&b, root); err != nil {
		return nil, at, true
	}
	return b.Bytes(), at, true
}

// compose composes the shadow roots in n's subtree, innermost first, and
// reports whether it found one; ok is false past maxComposeDepth.
func compose(n *html.Node, depth int) (found, ok bool) {
	if depth > maxComposeDepth {
		return false, false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		f, ok := compose(c, depth+1)
		if !ok {
			return false, false
		}
		found = found || f
	}
	if n.Type != html.ElementNode {
		return found, true
	}
	// The first declarative shadow root among the children is attached,
	// where the element may host one; a later one, and one on another
	// element, stays an inert template, and is read as one.
	var shadow *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Namespace == "" && c.DataAtom == atom.Template && (hasNodeAttr(c, "shadowrootmode") || hasNodeAttr(c, "shadowroot")) {
			if shadow == nil && shadowHost(n) {
				shadow = c
				continue
			}
			c.Attr = slices.DeleteFunc(c.Attr, func(a html.Attribute) bool {
				return a.Namespace == "" && (a.Key == "shadowrootmode" || a.Key == "shadowroot")
			})
			found = true // the page as drawn differs from its source
		}
	}
	if shadow == nil {
		return found, true
	}
	// Slots assigned by a script draw none of the host's children
	// without one.
	manual := strings.EqualFold(nodeAttr(shadow, "shadowrootslotassignment"), "manual")
	// The host's children, by the slot they are assigned to.
	assigned := map[string][]*html.Node{}
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		n.RemoveChild(c)
		switch {
		case c == shadow:
		case manual:
		case c.Type == html.ElementNode:
			name := nodeAttr(c, "slot")
			assigned[name] = append(assigned[name], c)
		case c.Type == html.TextNode:
			assigned[""] = append(assigned[""], c)
		}
		c = next
	}
	// Each slot of the shadow tree, the first of a name, draws what is
	// assigned to it, or else its own content. Nested shadow roots are
	// composed already: the slots left are this tree's.
	var slots []*html.Node
	var walk func(*html.Node)
	walk = func(m *html.Node) {
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Slot {
				slots = append(slots, c)
			}
			walk(c) // depth is bounded above
		}
	}
	walk(shadow)
	for _, s := range slots {
		name := nodeAttr(s, "name")
		if nodes, ok := assigned[name]; ok {
			delete(assigned, name)
			for c := s.FirstChild; c != nil; {
				next := c.NextSibling
				s.RemoveChild(c)
				c = next
			}
			for _, c := range nodes {
				s.AppendChild(c)
			}
		}
		// The slot stays, around what it draws: it draws no box of its
		// own (display: contents, so it is read as an inline element:
		// links slotted side by side are read side by side), but the
		// style sheets' rules and its style attribute may hide it, and
		// with it what it draws (slot{display:none}, docs/security.md
		// row 953).
	}
	for c := shadow.FirstChild; c != nil; {
		next := c.NextSibling
		shadow.RemoveChild(c)
		n.AppendChild(c)
		c = next
	}
	return true, true
}

// shadowHost reports whether the element n may host a shadow root: a
// custom element, or one of the elements attachShadow allows.
func shadowHost(n *html.Node) bool {
	if n.Namespace != "" {
		return false
	}
	switch n.DataAtom {
	case atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Div, atom.Footer, atom.H1, atom.H2, atom.H3,
		atom.H4, atom.H5, atom.H6, atom.Header, atom.Main, atom.Nav, atom.P, atom.Section, atom.Span:
		return true
	}
	return n.DataAtom == 0 && strings.IndexByte(n.Data, '-') > 0
}

func hasNodeAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

func nodeAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// indexFold returns the index of the first ASCII case-insensitive
// instance of the lower-case s in b, or -1.
func indexFold(b []byte, s string) int {
	first := s[:1] + strings.ToUpper(s[:1])
	for i := 0; i+len(s) <= len(b); {
		var k int
		if first[0] == first[1] {
			k = bytes.IndexByte(b[i:], first[0])
		} else {
			k = bytes.IndexAny(b[i:], first)
		}
		if k < 0 || i+k+len(s) > len(b) {
			return -1
		}
		i += k
		if asciiEqualFold(b[i:i+len(s)], s) {
			return i
		}
		i++
	}
	return -1
}

// shadowFindings reads the page as its shadow roots are drawn (see
// composeShadows) for download buttons that the check of its source,
// found, did not find, and returns them at the page's first shadow root.
func shadowFindings(doc []byte, found []pending, opts Options) []pending {
	composed, at, ok := composeShadows(doc)
	end := at
	if k := bytes.IndexByte(doc[at:], '>'); k >= 0 {
		end = at + k + 1
	}
	if !ok {
		return []pending{{rule: ruleDownloadButton, pos: at, ex0: at, ex1: end, msg: "The page has shadow roots, and more than 512 elements open at once: it cannot be read as it is drawn, to tell that it has no download button. Nest elements less deeply, or close them."}}
	}
	if composed == nil {
		return nil
	}
	c := newChecker(composed, opts)
	for r := range c.count {
		if rule(r) != ruleDownloadButton {
			c.count[r] = limit(rule(r))
		}
	}
	c.run()
	var out []pending
	for _, p := range c.found {
		same := func(q pending) bool { return q.msg == p.msg }
		if p.rule != ruleDownloadButton || slices.ContainsFunc(found, same) || slices.ContainsFunc(out, same) {
			continue
		}
		out = append(out, pending{rule: p.rule, pos: at, ex0: at, ex1: end, msg: "As its shadow roots are drawn, with their slots filled: " + p.msg})
	}
	return out
}

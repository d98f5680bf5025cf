package htmlcheck

import (
	"bytes"
	"net"
	"slices"
	"strings"

	whatwgurl "github.com/nlnwa/whatwg-url/url"
)

// Links are read the way browsers read them (the WHATWG URL standard,
// github.com/nlnwa/whatwg-url), not the way net/url parses them: net/url
// refuses some URLs browsers follow (backslashes, tabs inside), and reads
// others differently (hosts in other scripts or spellings, IPv4 written
// as one number).

// browserURL returns u as the URL parser sees it before it parses:
// without leading and trailing C0 controls and spaces, without tabs and
// newlines anywhere (for the checks of a scheme and the messages; the
// tokenizer has already decoded character references).
func browserURL(u []byte) []byte {
	for len(u) > 0 && u[0] <= ' ' {
		u = u[1:]
	}
	for len(u) > 0 && u[len(u)-1] <= ' ' {
		u = u[:len(u)-1]
	}
	if !slices.ContainsFunc(u, func(c byte) bool { return c == '\t' || c == '\n' || c == '\r' }) {
		return u
	}
	return bytes.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, u)
}

// link is a URL split as a browser splits it, relative to a custom page
// on the content origin.
type link struct {
	scheme string // lower-cased, without its colon
	host   string // "" for a link relative to the page; else without trailing dot or IPv6 brackets
	port   string // "" for the scheme's default
	path   string // absolute, dot segments removed, still percent-encoded
	query  string
	// unread says the link has more than maxLinkSegments slashes and was
	// not parsed: its callers read it conservatively.
	unread bool
}

// maxLinkSegments bounds the slashes of a link given to the URL parser.
// github.com/nlnwa/whatwg-url (v0.6.1 and v0.6.2) joins a path's segments
// one by one, in time quadratic in their number: a 1 MiB link of "f/."
// segments took 117 s to check. No link in use has this many.
const maxLinkSegments = 64

// tooManySegments reports whether u has more than maxLinkSegments slashes
// or backslashes, which a browser reads as slashes.
func tooManySegments(u []byte) bool {
	return bytes.Count(u, []byte("/"))+bytes.Count(u, []byte(`\`)) > maxLinkSegments
}

// specialScheme reports whether browsers parse scheme (lower-cased) with
// an authority and read a backslash as a slash.
func specialScheme(s string) bool {
	switch s {
	case "http", "https", "ws", "wss", "ftp", "file":
		return true
	}
	return false
}

// contentPage stands for the address a custom page is served from, to
// resolve relative links the way the browser will; its host marks a link
// as relative.
const (
	contentHost = "content.invalid"
	contentPage = "https://" + contentHost + "/p/page/1"
)

// urlParser parses as browsers do: hosts mapped by UTS #46 (ſ to s,
// full-width letters, "。" to "."), IPv4 in every spelling, tabs and
// newlines dropped, backslashes read as slashes.
var urlParser = whatwgurl.NewParser()

// splitLink splits u as a browser on the content origin resolves it. A
// link the browser cannot parse goes nowhere: its zero link.
func splitLink(u []byte) link {
	if tooManySegments(u) {
		return link{unread: true}
	}
	return parseLink(u)
}

// parseLink is splitLink without its bound on segments.
func parseLink(u []byte) link {
	if plainPath(u) {
		return link{scheme: "https", path: string(u)} // the parser would give the same
	}
	p, err := urlParser.ParseRef(contentPage, string(u))
	if err != nil {
		return link{}
	}
	l := link{
		scheme: strings.TrimSuffix(p.Protocol(), ":"),
		host:   strings.TrimSuffix(strings.Trim(p.Hostname(), "[]"), "."),
		port:   p.Port(),
		path:   p.Pathname(),
		query:  strings.TrimPrefix(p.Search(), "?"),
	}
	if l.host == contentHost {
		l.host = ""
	}
	return l
}

// removeDotSegments resolves the "." and ".." segments of the absolute
// path p, written as browsers accept them ("%2e", ".%2E").
func removeDotSegments(p string) string {
	if !strings.Contains(p, "/.") && !strings.Contains(p, "/%2") {
		return p
	}
	segs := strings.Split(p[1:], "/")
	out := make([]string, 0, len(segs))
	for i, seg := range segs {
		last := i == len(segs)-1
		switch strings.ToLower(seg) {
		case ".", "%2e":
			if last {
				out = append(out, "")
			}
		case "..", ".%2e", "%2e.", "%2e%2e":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}

// decodeAll percent-decodes s until it no longer changes, at most three
// times: a server or script that decodes twice reads %252e as ".".
func decodeAll(s string) string {
	for range 3 {
		d := string(percentDecode([]byte(s)))
		if d == s {
			break
		}
		s = d
	}
	return s
}

// plainPath reports whether u is an absolute path that the URL parser
// would return as it is: one leading slash, no dot segment, nothing to
// decode, map or cut (the common link, parsed without allocating).
func plainPath(u []byte) bool {
	if len(u) == 0 || u[0] != '/' || len(u) > 1 && u[1] == '/' || bytes.Contains(u, []byte("/.")) {
		return false
	}
	for _, c := range u {
		if c <= ' ' || c >= 0x7f || c == '\\' || c == '%' || c == '?' || c == '#' || c == '"' || c == '<' || c == '>' || c == '`' || c == '{' || c == '}' || c == '^' || c == '|' {
			return false
		}
	}
	return true
}

// sameHost reports whether the host of a link, as the browser reads it
// (IPv4 written canonically by the parser), is the configured host h:
// names compared without case and trailing dot, IP addresses by value.
func sameHost(host, h string) bool {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if host == h {
		return true
	}
	want := net.ParseIP(strings.Trim(h, "[]"))
	got := net.ParseIP(host)
	return want != nil && got != nil && got.Equal(want)
}

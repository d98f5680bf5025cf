package htmlcheck

import (
	"bytes"
	"net"
	"net/url"
	"path"
	"strings"
)

// trimURL strips the ASCII whitespace that browsers strip from URL
// attributes.
func trimURL(u []byte) []byte {
	return bytes.Trim(u, " \t\n\r\f")
}

// urlLoads reports whether the sandbox's Content-Security-Policy lets the
// (trimmed) URL load as an image, font or media: a data: URI or an absolute
// https: URL.
func urlLoads(u []byte) bool {
	return hasPrefixFold(u, "data:") || hasPrefixFold(u, "https://")
}

// urlKind describes why a URL does not load, for messages.
func urlKind(u []byte) string {
	switch {
	case hasPrefixFold(u, "http:"):
		return "an http: URL"
	case hasPrefixFold(u, "//"):
		return "a protocol-relative URL"
	case hasScheme(u):
		i := bytes.IndexByte(u, ':')
		return "a " + string(bytes.ToLower(u[:min(i, 20)])) + ": URL"
	default:
		return "a relative URL"
	}
}

// hasScheme reports whether u starts with a URL scheme and a colon.
func hasScheme(u []byte) bool {
	for i, c := range u {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':':
			return i > 0
		default:
			return false
		}
	}
	return false
}

// eachSrcsetURL calls fn with the byte span of each candidate URL of a
// srcset attribute value, following the HTML "parse a srcset attribute"
// algorithm (a data: URI may contain commas; descriptors may contain
// parenthesised commas).
func eachSrcsetURL(s []byte, fn func(start, end int)) {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
	i, n := 0, len(s)
	for i < n {
		for i < n && (isSpace(s[i]) || s[i] == ',') {
			i++
		}
		if i >= n {
			return
		}
		start := i
		for i < n && !isSpace(s[i]) {
			i++
		}
		end := i
		if s[end-1] == ',' {
			for end > start && s[end-1] == ',' {
				end--
			}
			fn(start, end)
			continue
		}
		fn(start, end)
		paren := false
		for i < n {
			c := s[i]
			i++
			switch {
			case c == '(':
				paren = true
			case c == ')':
				paren = false
			case c == ',' && !paren:
				goto next
			}
		}
	next:
	}
}

// executableExts are file name endings of programs, installers, scripts and
// archives: linking to them is a download button by another name.
var executableExts = []string{
	".exe", ".msi", ".dmg", ".pkg", ".apk", ".zip", ".rar", ".7z", ".tar", ".gz",
	".tgz", ".bz2", ".xz", ".iso", ".bat", ".cmd", ".ps1", ".sh", ".jar", ".deb",
	".rpm", ".appimage", ".scr", ".vbs", ".msix", ".appx", ".xapk", ".ipa",
}

// executableName returns the last path segment of link when it names an
// executable or an archive, and "" otherwise. Query and fragment are ignored.
func executableName(link []byte) string {
	if hasPrefixFold(link, "javascript:") || hasPrefixFold(link, "mailto:") || hasPrefixFold(link, "tel:") {
		return ""
	}
	if i := bytes.IndexAny(link, "?#"); i >= 0 {
		link = link[:i]
	}
	if i := bytes.LastIndexByte(link, '/'); i >= 0 {
		link = link[i+1:]
	}
	if len(link) < 3 || bytes.IndexByte(link, '.') < 0 && bytes.IndexByte(link, '%') < 0 {
		return ""
	}
	name := string(link)
	if strings.IndexByte(name, '%') >= 0 {
		if u, err := url.PathUnescape(name); err == nil {
			name = u
		}
	}
	lower := strings.ToLower(strings.TrimRight(name, ". "))
	for _, ext := range executableExts {
		if strings.HasSuffix(lower, ext) && len(lower) > len(ext) {
			return name
		}
	}
	return ""
}

// contentBase stands for the address a custom page is served from, to
// resolve relative links the way the browser will.
var contentBase = &url.URL{Scheme: "https", Host: "content.invalid", Path: "/p/page/1"}

// serviceLink reports whether link points at this service's file pages or
// downloads: a relative link whose path is under /f/ or has a "download"
// segment, or an absolute link to one of hosts with such a path.
func serviceLink(link []byte, hosts []string) bool {
	// Cheap rejection first: both kinds need "f/" or "download" in the URL.
	if !bytes.Contains(link, []byte("f/")) && !bytes.Contains(link, []byte("F/")) && !containsFold(link, "download") {
		return false
	}
	u, err := url.Parse(string(link))
	if err != nil {
		return false
	}
	switch {
	case u.Scheme == "" && u.Host == "":
		u = contentBase.ResolveReference(u)
	case u.Scheme == "" || strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https"):
		if !serviceHost(u, hosts) {
			return false
		}
	default:
		return false
	}
	p := path.Clean("/" + u.Path)
	if strings.HasPrefix(p, "/f/") || p == "/f" {
		return true
	}
	for seg := range strings.SplitSeq(p, "/") {
		if strings.EqualFold(seg, "download") {
			return true
		}
	}
	return false
}

// serviceHost reports whether u's host is one of hosts (host[:port]); an
// entry without a port matches any port.
func serviceHost(u *url.URL, hosts []string) bool {
	name := strings.TrimSuffix(u.Hostname(), ".")
	port := u.Port()
	if port == "" {
		port = "443"
		if strings.EqualFold(u.Scheme, "http") {
			port = "80"
		}
	}
	h := net.JoinHostPort(name, port)
	for _, e := range hosts {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if strings.EqualFold(e, h) || strings.EqualFold(strings.TrimSuffix(e, "."), name) {
			return true
		}
	}
	return false
}

// containsFold reports whether b contains s, ignoring ASCII case; s must be
// lower case.
func containsFold(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c == s[0] && asciiEqualFold(b[i:i+len(s)], s) {
			return true
		}
	}
	return false
}

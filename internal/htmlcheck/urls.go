package htmlcheck

import (
	"bytes"
	"net"
	"strings"
)

// trimURL strips the ASCII whitespace that browsers strip from URL
// attributes.
func trimURL(u []byte) []byte {
	for len(u) > 0 && htmlSpace[u[0]] {
		u = u[1:]
	}
	for len(u) > 0 && htmlSpace[u[len(u)-1]] {
		u = u[:len(u)-1]
	}
	return u
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

// executableExts are file name endings of programs, installers, scripts,
// disk images, archives, macro documents and shortcuts that Windows,
// macOS or Linux run or open as a program: linking to them is a download
// button by another name. The rule applies to links (a, area, form
// actions), not to <script src> or images. .js, .pl and .com are not
// here: they end the names of web pages far more often than programs
// (github.com/mrdoob/three.js, /wiki/Node.js, allegro.pl,
// /wiki/Booking.com), and 16-bit .com programs no longer run on Windows.
var executableExts = []string{
	".exe", ".msi", ".dmg", ".pkg", ".apk", ".zip", ".rar", ".7z", ".tar", ".gz",
	".tgz", ".bz2", ".xz", ".iso", ".bat", ".cmd", ".ps1", ".sh", ".jar", ".deb",
	".rpm", ".appimage", ".scr", ".vbs", ".msix", ".appx", ".xapk", ".ipa",
	".lnk", ".hta", ".jse", ".vbe", ".wsf", ".wsh", ".cpl", ".reg", ".dll",
	".pif", ".msp", ".mst", ".msc", ".img", ".vhd", ".vhdx", ".cab",
	".zst", ".lz", ".lzma", ".tbz", ".tbz2", ".txz", ".docm", ".xlsm", ".pptm",
	".application", ".url", ".library-ms", ".search-ms", ".settingcontent-ms",
	".appinstaller", ".msixbundle", ".appxbundle", ".run", ".bin", ".command",
	".py", ".rb", ".psm1", ".ace", ".arj", ".xll", ".chm", ".inf", ".scf",
	".jnlp", ".xpi", ".crx", ".vsix", ".iqy",
	// Fourth outside attack, row 24: an Excel add-in, OneNote, MSDT
	// cabinets, script components, gadgets, remote-desktop shortcuts,
	// Access and SYLK files, archives, disk images, Android bundles.
	".xlam", ".one", ".diagcab", ".sct", ".wsc", ".gadget", ".rdp", ".ica",
	".accde", ".slk", ".zipx", ".lzh", ".ova", ".vmdk", ".aab",
}

// launchSchemes are URL schemes (lower-cased, without the colon) whose
// links launch a program, fetch a file outside the web, or install
// something: Windows protocol handlers (ms-msdt, search-ms, Office's
// ofe|u| commands), file shares, Java and iOS and Android installers.
var launchSchemes = map[string]bool{
	"ms-msdt": true, "search-ms": true, "search": true, "ms-search": true, "ms-appinstaller": true,
	"ms-officecmd": true, "ms-word": true, "ms-excel": true, "ms-powerpoint": true,
	"ms-visio": true, "ms-access": true, "ms-project": true, "ms-publisher": true,
	"ms-spd": true, "ms-infopath": true, "ms-cxh": true, "ms-cxh-full": true,
	"ms-its": true, "mk": true, "its": true, "hcp": true, "file": true, "smb": true,
	"cifs": true, "nfs": true, "afp": true, "ftp": true, "sftp": true, "webdav": true,
	"davs": true, "jar": true, "jnlp": true, "jnlps": true, "itms-services": true,
	"intent": true, "ms-windows-store": true, "vscode": true, "vscode-insiders": true,
	"onenote": true, "ms-settings": true,
}

// launchScheme returns the scheme of link, read with browserURL and
// lower-cased, when it is one of launchSchemes, and "" otherwise.
func launchScheme(link []byte) string {
	u := browserURL(link)
	if !hasScheme(u) {
		return ""
	}
	s := strings.ToLower(string(u[:bytes.IndexByte(u, ':')]))
	if launchSchemes[s] {
		return s
	}
	return ""
}

// executableName returns the file name that link names when it is an
// executable or an archive (see executableExts), and "" otherwise. The
// link is read as a browser reads it (see splitLink); the last segment of
// its path counts with or without path parameters (";jsessionid=1",
// ";.txt"), percent-decoded up to three times, without the trailing dots,
// spaces, NULs and "::$DATA" that Windows drops; so does the value of any
// query parameter (/get?file=setup.exe), which a download script serves.
// The fragment is not sent, and does not count.
func executableName(link []byte) string {
	if !mayNameExecutable(link) {
		return "" // most links ("#", "/about", "https://example.com/page.html")
	}
	return parsedExecutableName(link)
}

// parsedExecutableName is executableName without its cheap rejection.
func parsedExecutableName(link []byte) string {
	l := splitLink(link)
	if l.unread {
		// Too long to parse: its last segment, as written.
		seg := link[:indexAnyOr(link, "?#", len(link))]
		seg = seg[bytes.LastIndexAny(seg, `/\`)+1:]
		return exeName(string(seg), false)
	}
	if !specialScheme(l.scheme) {
		return ""
	}
	// The last segment that names something: a server answers
	// /setup.exe/ with the program as readily as /setup.exe.
	p := strings.TrimRight(l.path, "/")
	seg := p[strings.LastIndexByte(p, '/')+1:]
	if name := exeName(seg, false); name != "" {
		return name
	}
	for p := range strings.FieldsFuncSeq(l.query, func(r rune) bool { return r == '&' || r == ';' }) {
		if i := strings.IndexByte(p, '='); i >= 0 {
			p = p[i+1:]
		}
		p = strings.ReplaceAll(p, "+", " ")
		if siteURL(p) {
			continue
		}
		if name := exeName(p, true); name != "" {
			return name
		}
	}
	return ""
}

// mayNameExecutable reports whether link may name an executable or an
// archive: it has an extension of executableExts after one of its dots,
// percent-decoded as executableName decodes it, or a tab or a newline,
// which the parser drops. Others are not parsed: the URL parser costs
// 100-200 ns a byte.
func mayNameExecutable(link []byte) bool {
	if bytes.ContainsAny(link, "\t\n\r") {
		return true
	}
	if bytes.IndexByte(link, '%') >= 0 {
		link = []byte(decodeAll(string(link)))
	}
	var buf [24]byte
	for i := 0; ; {
		k := bytes.IndexByte(link[i:], '.')
		if k < 0 {
			return false
		}
		i += k + 1
		ext := append(buf[:0], '.')
		for j := i; j < len(link) && len(ext) < len(buf) && (isASCIIAlnum(link[j]) || link[j] == '-'); j++ {
			c := link[j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			ext = append(ext, c)
		}
		if executableExtSet[string(ext)] {
			return true
		}
	}
}

// executableExtSet is executableExts as a set.
var executableExtSet = func() map[string]bool {
	m := make(map[string]bool, len(executableExts))
	for _, e := range executableExts {
		m[e] = true
	}
	return m
}()

// siteURL reports whether the query value v, percent-decoded, is itself
// an absolute URL whose path is empty or "/": a share link's
// ?url=https://allegro.pl names a site, and a host is not a file.
func siteURL(v string) bool {
	d := decodeAll(v)
	if !hasScheme([]byte(d)) {
		return false
	}
	l := splitLink([]byte(d))
	return specialScheme(l.scheme) && l.host != "" && l.path == "/" && l.query == ""
}

// indexAnyOr is bytes.IndexAny, or or when none of chars is in s.
func indexAnyOr(s []byte, chars string, or int) int {
	if i := bytes.IndexAny(s, chars); i >= 0 {
		return i
	}
	return or
}

// exeName returns the file name that s, a path segment or a query value,
// names when it ends in an executable extension; a query value (query
// true) is read up to its last slash.
func exeName(s string, query bool) string {
	if len(s) < 3 || strings.IndexByte(s, '.') < 0 && strings.IndexByte(s, '%') < 0 {
		return ""
	}
	name := decodeAll(s)
	if query {
		name = name[strings.LastIndexAny(name, `/\`)+1:]
	}
	for _, cand := range []string{name, name[:max(strings.IndexByte(name, ';'), 0)]} {
		lower := strings.ToLower(cand)
		for {
			t := strings.TrimSuffix(strings.TrimRight(lower, ". \x00"), "::$data")
			if t == lower {
				break
			}
			lower = t
		}
		for _, ext := range executableExts {
			if strings.HasSuffix(lower, ext) && len(lower) > len(ext) {
				return name
			}
		}
	}
	return ""
}

// serviceLink reports whether link points at this service's file pages or
// downloads: a relative link whose path is under /f/ or has a "download"
// segment, or an absolute link to one of hosts with such a path. The link
// is read as a browser reads it (see splitLink), and its path as the
// service's router reads it: percent-decoded (also %2F, which only a
// redirect or a second decoding would need, to fail safe).
func serviceLink(link []byte, hosts []string) bool {
	// Cheap rejection first: a path under /f/ needs "/f" or "\f" (a
	// backslash is a slash) in the link, as written or after dot
	// segments ("/x/../f/"); a "download" segment needs the word; either
	// may be spelt with percent escapes. Others are not parsed: the URL
	// parser costs 100-200 ns a byte.
	if !mayBeServiceLink(link) {
		return false
	}
	return parsedServiceLink(link, hosts)
}

// mayBeServiceLink is serviceLink's cheap rejection: a path under /f/
// needs "/f" or "\f" (a backslash is a slash) followed by a slash, "?",
// "#" or the end, as written or after dot segments ("/x/../f/"); a
// "download" segment needs the word; both percent-decoded as serviceLink
// decodes the path. A link with a tab or a newline, which the parser
// drops, is parsed. Others are not: the URL parser costs 100-200 ns a
// byte.
func mayBeServiceLink(link []byte) bool {
	if bytes.ContainsAny(link, "\t\n\r") {
		return true
	}
	// The parser strips C0 controls and spaces at both ends first, so
	// "\\f " is "/f".
	link = bytes.TrimFunc(link, func(r rune) bool { return r <= ' ' })
	if bytes.IndexByte(link, '%') >= 0 {
		link = []byte(decodeAll(string(link)))
	}
	if containsFold(link, "download") {
		return true
	}
	for i := 0; i+1 < len(link); i++ {
		if (link[i] == '/' || link[i] == '\\') && link[i+1] == 'f' &&
			(i+2 == len(link) || bytes.IndexByte([]byte("/\\?#"), link[i+2]) >= 0) {
			return true
		}
	}
	return false
}

// parsedServiceLink is serviceLink without its cheap rejection.
func parsedServiceLink(link []byte, hosts []string) bool {
	l := splitLink(link)
	if l.unread {
		return true // too long to read: taken for one, to fail safe
	}
	return linksToService(l, hosts)
}

// linksToService reports whether the parsed link l reaches a path under
// /f/ or a "download" segment on the service.
func linksToService(l link, hosts []string) bool {
	switch {
	case l.scheme != "http" && l.scheme != "https":
		return false
	case l.host != "" && !serviceHost(l, hosts):
		return false
	}
	p := removeDotSegments(decodeAll(l.path))
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

// serviceHost reports whether l's host is one of hosts (host[:port]); an
// entry without a port matches any port.
func serviceHost(l link, hosts []string) bool {
	port := l.port
	if port == "" {
		port = "443"
		if l.scheme == "http" {
			port = "80"
		}
	}
	for _, e := range hosts {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		h, p, err := net.SplitHostPort(e)
		if err != nil {
			h, p = e, ""
		}
		if sameHost(l.host, h) && (p == "" || strings.TrimLeft(p, "0") == port) {
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

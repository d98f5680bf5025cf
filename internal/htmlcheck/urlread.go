package htmlcheck

import (
	"bytes"
	"net"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Links are read the way browsers read them (the WHATWG URL standard),
// not the way net/url parses them: net/url refuses some URLs browsers
// follow, and reads others differently. browserURL and splitLink do the
// part of the standard that decides where a link goes.

// browserURL returns u as the URL parser sees it: without leading and
// trailing C0 controls and spaces, without tabs and newlines anywhere.
// (The tokenizer has already decoded character references.)
func browserURL(u []byte) []byte {
	u = bytes.TrimFunc(u, func(r rune) bool { return r <= ' ' })
	if bytes.IndexAny(u, "\t\n\r") < 0 {
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
	scheme string // lower-cased; "https" for relative links
	opaque string // for schemes that are not special: all after the colon
	host   string // lower-cased, without user info, port and trailing dot
	port   string // "" for the scheme's default
	path   string // absolute, dot segments removed, still percent-encoded
	query  string
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

// contentPath is the path of the page links are resolved against.
const contentPath = "/p/page/1"

// splitLink splits u, read with browserURL, into its parts as a browser
// on the content origin would resolve it.
func splitLink(u []byte) link {
	s := string(browserURL(u))
	l := link{scheme: "https"}
	rest := s
	if hasScheme([]byte(s)) {
		i := strings.IndexByte(s, ':')
		l.scheme = strings.ToLower(s[:i])
		rest = s[i+1:]
		if !specialScheme(l.scheme) {
			l.opaque = rest
			return l
		}
	}
	rest = strings.ReplaceAll(rest, `\`, "/")
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, l.query = rest[:i], rest[i+1:]
	}
	// An https: link without "//" on an https page is relative; another
	// special scheme takes its authority after any number of slashes.
	authority := strings.HasPrefix(rest, "//") || l.scheme != "https" && l.scheme != "file"
	if authority {
		rest = strings.TrimLeft(rest, "/")
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		l.host, l.port = splitHostPort(rest[:end])
		rest = rest[end:]
	}
	if !strings.HasPrefix(rest, "/") {
		if authority {
			rest = "/" + rest
		} else {
			rest = contentPath[:strings.LastIndexByte(contentPath, '/')+1] + rest
		}
	}
	l.path = removeDotSegments(rest)
	return l
}

// splitHostPort reads the authority a: user info dropped, host
// percent-decoded, mapped as browsers map it (see mapHost) and without
// its trailing dot, port without leading zeros.
func splitHostPort(a string) (host, port string) {
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		a = a[i+1:]
	}
	host = a
	if i := strings.LastIndexByte(a, ':'); i >= 0 && !strings.HasSuffix(a, "]") {
		host, port = a[:i], strings.TrimLeft(a[i+1:], "0")
	}
	host = string(percentDecode([]byte(host)))
	if strings.HasPrefix(host, "[") {
		host = strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(host), "["), "]")
		return host, port
	}
	return strings.TrimSuffix(mapHost(host), "."), port
}

// hostProfile maps host names as the WHATWG URL standard does (UTS #46
// with CheckHyphens, UseSTD3ASCIIRules and Transitional_Processing off,
// CheckBidi and CheckJoiners on).
var hostProfile = idna.New(idna.MapForLookup(), idna.Transitional(false),
	idna.StrictDomainName(false), idna.CheckHyphens(false), idna.CheckJoiners(true),
	idna.BidiRule())

// mapHost returns the host name h (percent-decoded) as browsers read it:
// case, width and compatibility forms mapped (ſ to s, full-width letters
// and digits, "。" "．" "｡" to "."), soft hyphens and zero-width spaces
// dropped, non-ASCII labels in their xn-- form. When the mapping fails
// (a browser then does not follow the link), h is only lower-cased.
func mapHost(h string) string {
	ascii := true
	for i := range len(h) {
		if c := h[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			ascii = false
			break
		}
	}
	if ascii {
		return h
	}
	m, err := hostProfile.ToASCII(h)
	if err != nil || m == "" {
		return strings.ToLower(h)
	}
	return strings.ToLower(m)
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

// sameHost reports whether the host of a link, as the browser reads it,
// is the configured host h: names compared without case and trailing
// dot, IPv4 addresses in any spelling browsers accept (0x7f.1,
// 2130706433), IPv6 addresses by value.
func sameHost(host, h string) bool {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if host == h {
		return true
	}
	want := net.ParseIP(strings.Trim(h, "[]"))
	if want == nil {
		return false
	}
	if got := net.ParseIP(host); got != nil {
		return got.Equal(want)
	}
	if got, ok := parseIPv4(host); ok {
		return got.Equal(want)
	}
	return false
}

// parseIPv4 parses an IPv4 address as the WHATWG URL standard does: up to
// four parts, each decimal, octal (leading 0) or hexadecimal (0x), the
// last filling the remaining bytes.
func parseIPv4(s string) (net.IP, bool) {
	s = strings.TrimSuffix(s, ".")
	parts := strings.Split(s, ".")
	if len(parts) > 4 || s == "" {
		return nil, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			p, base = p[2:], 16
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		if p == "" {
			nums[i] = 0
			continue
		}
		n, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return nil, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return nil, false
		}
		v |= n << (8 * (3 - i))
	}
	lastBits := 8 * (5 - len(nums))
	if nums[len(nums)-1] >= 1<<lastBits {
		return nil, false
	}
	v |= nums[len(nums)-1]
	return net.IPv4(byte(v>>24), byte(v>>16), byte(v>>8), byte(v)), true
}

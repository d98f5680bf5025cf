package htmlcheck

import (
	"strings"
	"testing"
)

// FuzzLinkReading reads arbitrary links as the download rules do: it
// must not panic, the path of a special-scheme link is absolute and has
// no dot segments left, and the cheap rejections before the parser rule
// out nothing the parsed reading finds.
func FuzzLinkReading(f *testing.F) {
	for _, href := range linkEvasionRows() {
		f.Add(href)
	}
	f.Add("https://files.example.com:443/f/x?file=a.exe#frag")
	f.Add("/f/plain-path_1~x")
	f.Fuzz(func(t *testing.T, href string) {
		l := splitLink([]byte(href))
		if specialScheme(l.scheme) {
			if !strings.HasPrefix(l.path, "/") {
				t.Fatalf("%q: path %q is not absolute", href, l.path)
			}
			for seg := range strings.SplitSeq(l.path, "/") {
				if seg == "." || seg == ".." {
					t.Fatalf("%q: path %q has a dot segment", href, l.path)
				}
			}
		}
		if plainPath([]byte(href)) {
			p, err := urlParser.ParseRef(contentPage, href)
			if err != nil || p.Pathname() != href || p.Hostname() != contentHost || p.Search() != "" {
				t.Fatalf("%q: taken as a plain path, but the parser reads %v (%v)", href, p, err)
			}
		}
		// The cheap rejections never reject what the parsed reading finds.
		if name := parsedExecutableName([]byte(href)); name != "" && !mayNameExecutable([]byte(href)) {
			t.Fatalf("%q names %q, but mayNameExecutable rules it out", href, name)
		}
		// A link with too many segments is not parsed, and taken for a
		// service link to fail safe; the cheap rejection must still keep
		// every link the parser would find, so it is judged against the
		// parser's own reading.
		read := l
		if read.unread && len(href) <= 4096 {
			read = parseLink([]byte(href))
		}
		if !read.unread && linksToService(read, testOptions.ServiceHosts) && !mayBeServiceLink([]byte(href)) {
			t.Fatalf("%q links to the service, but mayBeServiceLink rules it out", href)
		}
		launchScheme([]byte(href))
	})
}

package fetch

import (
	"net/netip"
	"strings"
	"testing"

	whatwgurl "github.com/nlnwa/whatwg-url/url"
)

// TestGuardian: the socket-level policy (the dialer's Control) of each
// configuration, without a network.
func TestGuardian(t *testing.T) {
	test := &TestPolicy{Public: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}, Ports: []uint16{8443}}
	for _, tc := range []struct {
		name string
		cfg  Config
		addr string
		ok   bool
	}{
		{"production, public", Config{}, "93.184.215.14:443", true},
		{"production, public IPv6", Config{}, "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:443", true},
		{"production, port 80", Config{}, "93.184.215.14:80", false},
		{"production, port 8443", Config{}, "93.184.215.14:8443", false},
		{"production, loopback", Config{}, "127.0.0.1:443", false},
		{"production, 127.0.0.2", Config{}, "127.0.0.2:443", false},
		{"production, metadata", Config{}, "169.254.169.254:443", false},
		{"production, mapped loopback", Config{}, "[::ffff:127.0.0.1]:443", false},
		{"production, NAT64", Config{}, "[64:ff9b::5db8:d70e]:443", false},
		{"test, its public address", Config{Test: test}, "127.0.0.2:8443", true},
		{"test, its public address on 443", Config{Test: test}, "127.0.0.2:443", true},
		{"test, its port elsewhere", Config{Test: test}, "127.0.0.1:8443", false},
		{"test, another port", Config{Test: test}, "127.0.0.2:9000", false},
		{"test, private", Config{Test: test}, "10.0.0.1:443", false},
		{"allow private, loopback on any port", Config{AllowPrivate: true}, "127.0.0.1:8080", true},
		{"allow private, IPv6 link-local", Config{AllowPrivate: true}, "[fe80::1]:22", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ap := netip.MustParseAddrPort(tc.addr)
			network := "tcp4"
			if ap.Addr().Is6() {
				network = "tcp6"
			}
			err := newGuardian(tc.cfg).Safe(network, ap.String(), nil)
			if (err == nil) != tc.ok {
				t.Errorf("Safe(%s) = %v, want allowed %v", tc.addr, err, tc.ok)
			}
		})
	}
}

// FuzzCheckURL: whatever the URL, what checkURL lets through is an https
// URL without user name or password, on port 443, whose IP address (if
// its host is one) is public, and whose request target is one line with
// the browser's path and query.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/a.png", "https://2130706433/", "https://0x7f.1/", "https://[::ffff:127.0.0.1]/",
		"https://u:p@example.com/", "https://example.com:8443/", "http://example.com/", `https:\\example.com\a`,
		"https://example.com//x", "https://example.com/a|b%2Fc?q={1}#f", "https://93.184.215.14/x", "https://[2001:db8::1]/",
		"https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/", "https://ex%41mple.com/", "https://xn--bcher-kva.example/", "https://bücher.example/ä?ö",
		"https://example.com:0443/", "https://example.com./", "javascript:alert(1)", "https://0/", "https://1.2.3.4.5/",
		"https:ü//?", // CI's fuzzing: a "//" path with an empty query goes in the absolute form, "?" kept
	} {
		f.Add(s)
	}
	fe := New(Config{})
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := fe.parser.Parse(raw)
		if err != nil {
			return
		}
		target, err := fe.checkURL(u)
		if err != nil {
			if _, ok := err.(*Problem); !ok {
				t.Fatalf("checkURL(%q) error %T, want a *Problem", raw, err)
			}
			return
		}
		if u.Scheme() != "https" || u.Username() != "" || u.Password() != "" || u.Port() != "" {
			t.Fatalf("checkURL(%q) let through %s", raw, u.Href(true))
		}
		if a, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && fe.guard.SafeAddr(a.Unmap()) != nil {
			t.Fatalf("checkURL(%q) let through the special-use %s", raw, a)
		}
		ruri := target.RequestURI()
		if strings.ContainsFunc(ruri, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
			t.Fatalf("checkURL(%q): request target %q is not one line of ASCII", raw, ruri)
		}
		if target.Host != u.Host() {
			t.Fatalf("checkURL(%q): host %q, want %q", raw, target.Host, u.Host())
		}
		// The request target names what the browser would load.
		// An empty query ("?") is kept, in the origin form and in the
		// absolute form a path starting with "//" needs.
		want := u.Pathname() + u.Search()
		if abs := "https://" + u.Host() + want; ruri != want && ruri != want+"?" && ruri != abs && ruri != abs+"?" {
			t.Fatalf("checkURL(%q): request target %q, want %q", raw, ruri, want)
		}
		back, err := whatwgurl.ParseRef(u.Href(true), ruri)
		if err != nil || back.Href(true) != u.Href(true) {
			t.Fatalf("checkURL(%q): request target %q reads back as %v (%v), want %s", raw, ruri, back, err, u.Href(true))
		}
	})
}

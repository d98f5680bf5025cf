package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"code.dny.dev/ssrf"
	whatwgurl "github.com/nlnwa/whatwg-url/url"
)

// newGuardian returns the address policy of cfg: only public addresses
// on port 443, everything with AllowPrivate, the test's exceptions with
// Test.
func newGuardian(cfg Config) *ssrf.Guardian {
	return guardian(DialerConfig{AllowPrivate: cfg.AllowPrivate, Test: cfg.Test})
}

// guardian returns the address policy of a Dialer: public addresses on
// port 443 (any port with AnyPort), everything with AllowPrivate, the
// test's exceptions with Test.
func guardian(cfg DialerConfig) *ssrf.Guardian {
	if cfg.AllowPrivate {
		return ssrf.New(ssrf.WithAnyPort(),
			ssrf.WithAllowedV4Prefixes(netip.MustParsePrefix("0.0.0.0/0")),
			ssrf.WithAllowedV6Prefixes(netip.MustParsePrefix("::/0")))
	}
	ports := ssrf.WithPorts(443)
	if cfg.AnyPort {
		ports = ssrf.WithAnyPort()
	}
	if cfg.Test == nil {
		return ssrf.New(ports)
	}
	var v4, v6 []netip.Prefix
	for _, p := range cfg.Test.Public {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	if !cfg.AnyPort {
		ports = ssrf.WithPorts(append([]uint16{443}, cfg.Test.Ports...)...)
	}
	return ssrf.New(ports, ssrf.WithAllowedV4Prefixes(v4...), ssrf.WithAllowedV6Prefixes(v6...))
}

// portAllowed reports whether a URL may name port.
func (f *Fetcher) portAllowed(port uint16) bool {
	return port == 443 || f.cfg.AllowPrivate || f.cfg.Test != nil && slices.Contains(f.cfg.Test.Ports, port)
}

// checkURL refuses what u shows by itself (scheme, user name, port, an
// IP address as host) and returns the URL to request: exactly the path
// and query the browser sends.
func (f *Fetcher) checkURL(u *whatwgurl.Url) (*url.URL, error) {
	if u.Scheme() != "https" {
		return nil, refused("it uses %s:, and only https: URLs are fetched", u.Scheme())
	}
	if u.Username() != "" || u.Password() != "" {
		return nil, refused("it carries a user name or password; remove them from the URL")
	}
	port := uint16(443)
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil {
			return nil, refused("its port %s is not a port number", p)
		}
		port = uint16(n)
	}
	host := u.Hostname()
	if u.IsIPv4() || u.IsIPv6() {
		a, err := netip.ParseAddr(strings.Trim(host, "[]"))
		if err != nil {
			return nil, refused("its host %s is not an IP address", host)
		}
		if err := f.guard.SafeAddr(a.Unmap()); err != nil {
			return nil, refused("its host is %s", describeAddr(a))
		}
	} else if host == "" {
		return nil, refused("it has no host")
	}
	if !f.portAllowed(port) {
		return nil, refused("it uses port %d; only port 443 is fetched", port)
	}
	// The path and query are sent as the browser sends them: net/url
	// would re-encode some ("%2F" read as "/", "|" as "%7C", an empty
	// query dropped), so they go as an opaque request target, cut from
	// the URL as the parser wrote it; only a path starting with "//"
	// needs the absolute form, lest it be read as an authority.
	href := u.Href(true)
	target := &url.URL{Scheme: "https", Host: u.Host(), Opaque: strings.TrimPrefix(href, "https://"+u.Host())}
	if strings.HasPrefix(target.Opaque, "//") {
		target.Opaque = href
	}
	return target, nil
}

// dial is the transport's DialContext: the Dialer's.
func (f *Fetcher) dial(ctx context.Context, network, hostport string) (net.Conn, error) {
	return f.dialer.DialContext(ctx, network, hostport)
}

// DialContext resolves the host of hostport itself, refuses it if any
// answer is special-use, and dials a checked address literally (the
// connection is pinned), with the Guardian checking the socket's address
// once more. Its errors are a *Problem, ssrf's errors of the socket's
// check, or ctx's.
func (d *Dialer) DialContext(ctx context.Context, network, hostport string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, err
	}
	addrs, err := d.Resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	nd := net.Dialer{Control: d.guard.Safe}
	var errs []error
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a, uint16(port))
		if d.test != nil && d.test.Dialing != nil {
			if err := d.test.Dialing(ap); err != nil {
				return nil, err
			}
		}
		c, err := nd.DialContext(ctx, network, ap.String())
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		errs = append(errs, connectError(ap, err))
	}
	return nil, errs[0]
}

// Resolve returns the addresses of host (an IP address or a name), all
// checked, or a *Problem: Refused when host is, or any of its answers
// is, an address the policy refuses.
func (d *Dialer) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		a = a.Unmap()
		if d.guard.SafeAddr(a) != nil {
			return nil, refused("its host is %s", describeAddr(a))
		}
		return []netip.Addr{a}, nil
	}
	answers, err := d.resolver(ctx, host)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return nil, unavailable("its host %s does not resolve (no such host)", host)
		}
		return nil, unavailable("its host %s does not resolve (%v)", host, err)
	}
	if len(answers) == 0 {
		return nil, unavailable("its host %s has no address", host)
	}
	addrs := make([]netip.Addr, 0, len(answers))
	for _, a := range answers {
		// An IPv4-mapped answer reaches the IPv4 address; the resolver
		// may write A records so.
		a = a.Unmap()
		if d.guard.SafeAddr(a) != nil {
			// The address is not named: the answer would tell whoever
			// posts a page (or checks one) the server's internal names
			// and their addresses (outside attack, docs/security.md).
			return nil, refused("its host %s resolves to a loopback, private, link-local or other special-use address, which Fileframe never connects to", host)
		}
		addrs = append(addrs, a)
	}
	return addrs, nil
}

// CheckAddr returns a refusal (*Problem) unless the policy allows a.
func (d *Dialer) CheckAddr(a netip.Addr) error {
	if d.guard.SafeAddr(a.Unmap()) != nil {
		return refused("its host is %s", describeAddr(a))
	}
	return nil
}

// connectError says why no connection could be made to ap.
func connectError(ap netip.AddrPort, err error) error {
	if errors.Is(err, ssrf.ErrProhibitedIP) || errors.Is(err, ssrf.ErrProhibitedPort) || errors.Is(err, ssrf.ErrProhibitedNetwork) {
		return err
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return unavailable("its server %s refused the connection", ap)
	case errors.Is(err, syscall.ECONNRESET):
		return unavailable("its server %s reset the connection", ap)
	}
	return unavailable("no connection could be made to %s (%v)", ap, plainError(err))
}

// plainError is err without the wrapping that repeats the URL and the
// method.
func plainError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// describeAddr names the address a and what kind of special-use address
// it is ("10.0.0.5, a private address"). Whether it is refused is the
// Guardian's decision; this is wording only.
func describeAddr(a netip.Addr) string {
	v := a.Unmap()
	name := v.String()
	if a.Is4In6() {
		name = fmt.Sprintf("%s (written %s)", v, a)
	}
	return name + ", " + addrClass(v)
}

// Prefixes of special-use addresses named in messages.
var (
	sharedPrefix  = netip.MustParsePrefix("100.64.0.0/10")
	benchPrefix   = netip.MustParsePrefix("198.18.0.0/15")
	nat64Prefixes = []netip.Prefix{
		netip.MustParsePrefix("64:ff9b::/96"),
		netip.MustParsePrefix("64:ff9b:1::/48"),
	}
	documentationPrefixes = []netip.Prefix{
		netip.MustParsePrefix("192.0.2.0/24"),
		netip.MustParsePrefix("198.51.100.0/24"),
		netip.MustParsePrefix("203.0.113.0/24"),
		netip.MustParsePrefix("2001:db8::/32"),
		netip.MustParsePrefix("3fff::/20"),
	}
)

// addrClass names the kind of special-use address a is.
func addrClass(a netip.Addr) string {
	switch {
	case a.IsUnspecified():
		return "the unspecified address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast():
		if a == netip.AddrFrom4([4]byte{169, 254, 169, 254}) {
			return "a link-local address (the cloud metadata service)"
		}
		return "a link-local address"
	case a.IsMulticast():
		return "a multicast address"
	case sharedPrefix.Contains(a):
		return "a shared (CGNAT) address"
	case benchPrefix.Contains(a):
		return "a benchmarking address"
	case slices.ContainsFunc(nat64Prefixes, func(p netip.Prefix) bool { return p.Contains(a) }):
		return "a NAT64 address"
	case slices.ContainsFunc(documentationPrefixes, func(p netip.Prefix) bool { return p.Contains(a) }):
		return "a documentation address"
	}
	for _, p := range slices.Concat(ssrf.IPv4DeniedPrefixes, ssrf.IPv6DeniedPrefixes) {
		if p.Contains(a) {
			return fmt.Sprintf("a special-use address (%s)", p)
		}
	}
	if a.Is6() && !ssrf.IPv6GlobalUnicast.Contains(a) {
		return "a special-use address (outside 2000::/3, the IPv6 unicast addresses of the internet)"
	}
	return "a special-use address"
}

package web

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientAddr sets r.RemoteAddr to the client's address when the request
// came through one of Config.TrustedProxies: the rightmost address of
// X-Forwarded-For that is not itself a trusted proxy (each proxy appends
// the address it got the request from, so entries left of the last
// untrusted one are the client's own words and may be forged). From any
// other peer X-Forwarded-For is ignored. Everything after it (rate limits
// per address, the access log) then sees the client, not the proxy.
func (s *Server) clientAddr(r *http.Request) {
	if len(s.cfg.TrustedProxies) == 0 {
		return
	}
	peer, ok := parseHostAddr(r.RemoteAddr)
	if !ok || !s.trustedProxy(peer) {
		return
	}
	client := peer
	fields := r.Header.Values("X-Forwarded-For")
	// Right to left over every header line and comma-separated entry.
	for i := len(fields) - 1; i >= 0; i-- {
		entries := strings.Split(fields[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			a, ok := parseHostAddr(strings.TrimSpace(entries[j]))
			if !ok {
				// Not an address: what is left of it cannot be trusted
				// either; the last good one stands.
				r.RemoteAddr = net.JoinHostPort(client.String(), "0")
				return
			}
			client = a
			if !s.trustedProxy(a) {
				r.RemoteAddr = net.JoinHostPort(client.String(), "0")
				return
			}
		}
	}
	r.RemoteAddr = net.JoinHostPort(client.String(), "0")
}

// trustedProxy reports whether a is in Config.TrustedProxies.
func (s *Server) trustedProxy(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHostAddr parses an address with or without a port ("1.2.3.4",
// "1.2.3.4:80", "[::1]:80", "::1").
func parseHostAddr(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

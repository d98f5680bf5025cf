package web

import (
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Browsers isolate and scope by *site*, not by origin: cookies (which
// ignore ports, and mostly schemes) are shared by every origin of a site,
// and site isolation puts the documents of one site, whatever their ports,
// in one renderer process. A custom page on the app's site would share
// the app's cookies and could freeze the outer page's control with a busy
// loop. So the content origin belongs on a site of its own.

// SameSite reports whether the origins a and b are one site in the sense
// that matters here: the same registrable domain (eTLD+1 by the Public
// Suffix List) or, for IP addresses, the same address; ports and schemes do
// not count. A host that is itself a public suffix or has a single label
// (localhost) is its own site.
func SameSite(a, b *url.URL) bool {
	return Site(a) == Site(b)
}

// Site returns the site of the origin u as SameSite compares them: the
// registrable domain of its host, or its IP address in canonical form.
func Site(u *url.URL) string {
	return siteOf(u.Hostname())
}

func siteOf(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if ip := net.ParseIP(host); ip != nil {
		return ip.String()
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	return host
}

// DefaultContentOrigin returns the content origin of a server whose
// operator configured none, given the app origin and the address the
// content origin's listener answers on (http://host:port). It keeps the
// scheme and the port, and names a loopback listener so that the two
// origins are different sites: localhost beside an app origin named by an
// IP address or any other name, 127.0.0.1 beside localhost. Any other
// listener keeps its address; SameSite then tells whether the operator
// should configure a content origin.
func DefaultContentOrigin(app, listener *url.URL) *url.URL {
	u := *listener
	ip := net.ParseIP(listener.Hostname())
	if ip == nil || !ip.IsLoopback() {
		return &u
	}
	host := "localhost"
	if siteOf(app.Hostname()) == host {
		host = "127.0.0.1"
	}
	u.Host = net.JoinHostPort(host, listener.Port())
	return &u
}

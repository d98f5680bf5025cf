package fetch

import (
	"context"
	"net"
	"net/netip"

	"code.dny.dev/ssrf"
)

// Dialer is the Fetcher's pinned, address-checked dialer, for the other
// clients that connect to URLs users choose (webhook deliveries,
// internal/webhook): it resolves a name itself, refuses it if any answer
// is loopback, private, link-local or otherwise special-use (code.dny.dev/ssrf),
// and dials a checked address literally, with the same Guardian checking
// the socket's address once more, so a name cannot answer differently
// between the check and the connection. It is safe for concurrent use.
type Dialer struct {
	guard    *ssrf.Guardian
	resolver func(ctx context.Context, host string) ([]netip.Addr, error)
	test     *TestPolicy
}

// DialerConfig is a Dialer's policy.
type DialerConfig struct {
	// AllowPrivate lets it reach loopback, private and other special-use
	// addresses on any port: for development and tests only.
	AllowPrivate bool
	// AnyPort lets it dial public addresses on any port; without it only
	// port 443 (and Test.Ports).
	AnyPort bool
	// Resolver answers the addresses of a host name; nil means
	// net.DefaultResolver.LookupNetIP(ctx, "ip", host).
	Resolver func(ctx context.Context, host string) ([]netip.Addr, error)
	// Test is for tests only and nil in production (TestPolicy).
	Test *TestPolicy
}

// NewDialer returns a Dialer with cfg's policy.
func NewDialer(cfg DialerConfig) *Dialer {
	if cfg.Resolver == nil {
		cfg.Resolver = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	return &Dialer{guard: guardian(cfg), resolver: cfg.Resolver, test: cfg.Test}
}

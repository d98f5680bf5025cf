package web

import "testing"

// sameHost compares hosts as browsers do, and its shortcut (a Host spelt
// as the canonical one) gives what canonicalHost gives: canonical hosts
// are their own canonical form.
func TestSameHost(t *testing.T) {
	for _, c := range []struct {
		scheme, host, want string
		same               bool
	}{
		{"http", "example.com", "example.com", true},
		{"http", "EXAMPLE.com.", "example.com", true},
		{"http", "example.com:80", "example.com", true},
		{"https", "Example.COM.:443", "example.com", true},
		{"https", "example.com:80", "example.com", false},
		{"http", "example.com:8080", "example.com", false},
		{"http", "example.com:8080", "example.com:8080", true},
		{"http", "127.0.0.1:18100", "127.0.0.1:18100", true},
		{"http", "[::1]:80", "[::1]", true},
		{"http", "[::1]:8080", "[::1]:8080", true},
		{"http", "[::1]", "[::1]", true},
		{"http", "::1", "[::1]", true},
		{"http", "example.com.evil.test", "example.com", false},
		{"http", "", "example.com", false},
	} {
		if got := sameHost(c.scheme, c.host, c.want); got != c.same {
			t.Errorf("sameHost(%q, %q, %q) = %v, want %v", c.scheme, c.host, c.want, got, c.same)
		}
		if c.same {
			if w := canonicalHost(c.scheme, c.want); w != c.want {
				t.Errorf("canonicalHost(%q, %q) = %q: a canonical host is not its own canonical form", c.scheme, c.want, w)
			}
		}
	}
}

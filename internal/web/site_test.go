package web

import (
	"net/url"
	"testing"
)

func TestSameSite(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8081", true}, // ports do not count
		{"http://127.0.0.1:8080", "http://localhost:8081", false},
		{"http://localhost:8080", "http://localhost:8081", true},
		{"http://[::1]:8080", "http://[0:0::1]:8081", true}, // one address, two spellings
		{"http://[::1]:8080", "http://127.0.0.1:8081", false},
		{"https://files.example.com", "https://pages.example.com", true},
		{"https://files.example.com", "http://usercontent.example.com:8443", true}, // nor schemes
		{"https://files.example.com", "https://usercontent.example.net", false},
		{"https://Files.Example.COM.", "https://example.com", true},
		{"https://files.example.co.uk", "https://pages.example.co.uk", true},
		{"https://a.example.co.uk", "https://b.other.co.uk", false},
		// github.io is a public suffix: each user's site is its own.
		{"https://alice.github.io", "https://bob.github.io", false},
		{"https://files.example.com", "http://192.0.2.1:8081", false},
	}
	for _, tt := range tests {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := SameSite(a, b); got != tt.want {
			t.Errorf("SameSite(%s, %s) = %v, want %v (sites %q, %q)", tt.a, tt.b, got, tt.want, Site(a), Site(b))
		}
	}
}

func TestDefaultContentOrigin(t *testing.T) {
	tests := []struct{ app, listener, want string }{
		// fileframe serve's default: the app on 127.0.0.1, the content
		// origin under localhost, another site.
		{"http://127.0.0.1:8080", "http://127.0.0.1:8081", "http://localhost:8081"},
		{"http://[::1]:8080", "http://[::1]:8081", "http://localhost:8081"},
		{"https://files.example.com", "http://127.0.0.1:8081", "http://localhost:8081"},
		// An app origin under localhost gets a content origin by address.
		{"http://localhost:8080", "http://127.0.0.1:8081", "http://127.0.0.1:8081"},
		// Off loopback the listener's address stays; SameSite tells.
		{"http://192.0.2.1:8080", "http://192.0.2.1:8081", "http://192.0.2.1:8081"},
	}
	for _, tt := range tests {
		app, _ := url.Parse(tt.app)
		l, _ := url.Parse(tt.listener)
		got := DefaultContentOrigin(app, l)
		if got.String() != tt.want {
			t.Errorf("DefaultContentOrigin(%s, %s) = %s, want %s", tt.app, tt.listener, got, tt.want)
		}
		if SameSite(app, got) && tt.want != tt.listener {
			t.Errorf("DefaultContentOrigin(%s, %s) = %s is the app's site", tt.app, tt.listener, got)
		}
	}
}

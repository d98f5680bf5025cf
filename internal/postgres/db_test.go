package postgres

import (
	"net/url"
	"testing"

	"github.com/fileframe/fileframe/internal/postgres/pgtest"
)

// newDatabase creates a fresh, empty database on the PostgreSQL test server
// (pgtest), dropped when the test ends, and returns its URL.
func newDatabase(tb testing.TB) string {
	tb.Helper()
	return pgtest.NewDatabase(tb, "fileframe_test_")
}

// withParam returns the database URL u with one more query parameter.
func withParam(tb testing.TB, u, key, value string) string {
	tb.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		tb.Fatalf("parse %q: %v", u, err)
	}
	q := parsed.Query()
	q.Set(key, value)
	parsed.RawQuery = q.Encode()
	return parsed.String()
}

// open opens a store on the database at u and closes it when the test ends.
func open(tb testing.TB, u string) *Store {
	tb.Helper()
	s, err := Open(tb.Context(), u)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return s
}

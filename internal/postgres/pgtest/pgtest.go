// Package pgtest gives tests a fresh PostgreSQL database of their own on a
// real server. Tests that use it never skip without one: a backend that is
// not tested is not known to work.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/faultproxy"
	"github.com/jackc/pgx/v5"
)

// URLEnv names the variable that points the tests at a PostgreSQL server
// on which they may create and drop databases.
const URLEnv = "FILEFRAME_TEST_DATABASE_URL"

// DefaultURL is the server the tests use when URLEnv is not set: a
// local PostgreSQL with trust authentication, as in the README and CI.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// ServerURL returns the URL of the server the tests use.
func ServerURL() string {
	if u := os.Getenv(URLEnv); u != "" {
		return u
	}
	return DefaultURL
}

// howToStart is appended to a failure to reach the server.
const howToStart = `the PostgreSQL tests need a server on which they may create databases.
Start one, e.g.
    docker run -d --name fileframe-pg -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15
or, with PostgreSQL installed, pg_ctlcluster 15 main start (Debian/Ubuntu) or brew services start postgresql@15;
or point ` + URLEnv + ` at another server (postgres://user:password@host:port/database?sslmode=disable).`

// connect connects to the test server, saying how to start one when it
// cannot.
func connect(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, withoutPoolParams(ServerURL()))
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w\n%s", err, howToStart)
	}
	return conn, nil
}

// withoutPoolParams returns the URL u without pgxpool's parameters
// (pool_max_conns, ...), which a single connection would send to the server
// as settings it does not know. So the test URL may set them for the stores.
func withoutPoolParams(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := parsed.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	parsed.RawQuery = q.Encode()
	return parsed.String()
}

// NewDatabase creates a fresh, empty database on the test server, named
// prefix and random hex, drops it (disconnecting anyone still on it) when
// the test ends, and returns its URL.
func NewDatabase(tb testing.TB, prefix string) string {
	tb.Helper()
	u, drop, err := Create(tb.Context(), prefix)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		// The test's context is already canceled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := drop(ctx); err != nil {
			tb.Error(err)
		}
	})
	return u
}

// Create creates a fresh, empty database on the test server, named prefix
// and random hex, and returns its URL and how to drop it (disconnecting
// anyone still on it): NewDatabase for tools that run outside a test.
func Create(ctx context.Context, prefix string) (dbURL string, drop func(context.Context) error, err error) {
	base, err := url.Parse(ServerURL())
	if err != nil || (base.Scheme != "postgres" && base.Scheme != "postgresql") {
		return "", nil, fmt.Errorf("%s: want a postgres:// URL, got %q", URLEnv, ServerURL())
	}
	var b [8]byte
	rand.Read(b[:])
	name := prefix + hex.EncodeToString(b[:])
	ident := pgx.Identifier{name}.Sanitize()

	conn, err := connect(ctx)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+ident); err != nil {
		return "", nil, fmt.Errorf("CREATE DATABASE %s: %w", name, err)
	}
	drop = func(ctx context.Context) error {
		conn, err := connect(ctx)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`); err != nil {
			return fmt.Errorf("DROP DATABASE %s: %w", name, err)
		}
		return nil
	}
	u := *base
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), drop, nil
}

// Proxy is a database reached through a faultproxy.Proxy, which a test can
// cut and restore.
type Proxy struct {
	*faultproxy.Proxy
	// URL is the database's URL through the proxy.
	URL string
}

// NewProxy starts a proxy to the database at dbURL (a URL of NewDatabase)
// and stops it when the test ends.
func NewProxy(tb testing.TB, dbURL string) Proxy {
	tb.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	upstream := u.Host
	if u.Port() == "" {
		upstream = net.JoinHostPort(u.Hostname(), "5432")
	}
	p := faultproxy.New(tb, upstream)
	u.Host = p.Addr
	return Proxy{Proxy: p, URL: u.String()}
}

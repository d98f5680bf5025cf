package web

import (
	"context"
	"net"
)

// connKey is the context key under which ConnContext keeps a request's
// connection.
type connKey struct{}

// ConnContext is for http.Server's ConnContext: it keeps the connection in
// the context of the requests that come on it, so that an answer can cork
// it (cork).
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// corkAbove is the size of a body from memory above which its answer is
// corked: net/http writes to the connection through a 4 KiB buffer, so
// the headers and a larger body leave in two writes or more, each its own
// TCP segment (a 4 KiB download: the headers and 512 bytes, then the
// rest), where one would do.
const corkAbove = 3 << 10

package web

import (
	"context"
	"net"
)

// connKey is the context key under which ConnContext keeps what a request
// needs of its connection to cork it.
type connKey struct{}

// ConnContext is for http.Server's ConnContext: it keeps what the requests
// that come on c need to cork it (cork) in their context, made once per
// connection rather than once per answer.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if k := newCorker(c); k != nil {
		return context.WithValue(ctx, connKey{}, k)
	}
	return ctx
}

// corkAbove is the size of a body from memory above which its answer is
// corked: net/http writes to the connection through a 4 KiB buffer, so
// the headers and a larger body leave in two writes or more, each its own
// TCP segment (a 4 KiB download: the headers and 512 bytes, then the
// rest), where one would do.
const corkAbove = 3 << 10

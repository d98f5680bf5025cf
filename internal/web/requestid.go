package web

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/fileframe/fileframe/internal/fileframe"
)

type requestIDKey struct{}

// withRequestID returns ctx carrying the request's ID.
func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// requestID returns the ID that the observe middleware gave the request.
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// logFor returns the server's logger with the request's ID on every line.
func (s *Server) logFor(r *http.Request) *slog.Logger {
	return s.logCtx(r.Context())
}

// logCtx is logFor for code that has the request's context only (the
// API's operations, which MCP calls too).
func (s *Server) logCtx(ctx context.Context) *slog.Logger {
	return s.log.With("request_id", requestID(ctx))
}

// requestIDLen is the length of the IDs that requestIDs makes.
const requestIDLen = 16

// requestIDs makes request IDs of requestIDLen base62 characters: a random
// prefix of requestIDPrefixLen characters, drawn once, then a counter that
// starts at a random number. Request IDs tie log lines and problem answers
// together, so they need to be unique, not secret; a counter costs an
// atomic add where crypto/rand cost a system call's worth per request.
type requestIDs struct {
	prefix string
	next   atomic.Uint64
}

// requestIDPrefixLen leaves the counter 11 characters, which hold any
// uint64 (62^11 > 2^64).
const requestIDPrefixLen = 5

const base62Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func newRequestIDs() *requestIDs {
	g := &requestIDs{prefix: fileframe.RandomBase62(requestIDPrefixLen)}
	var b [8]byte
	rand.Read(b[:]) // never returns an error (crypto/rand docs, Go 1.24+)
	g.next.Store(binary.LittleEndian.Uint64(b[:]))
	return g
}

// id returns a new request ID.
func (g *requestIDs) id() string {
	n := g.next.Add(1)
	var b [requestIDLen]byte
	copy(b[:], g.prefix)
	for i := requestIDLen - 1; i >= requestIDPrefixLen; i-- {
		b[i] = base62Digits[n%62]
		n /= 62
	}
	return string(b[:])
}

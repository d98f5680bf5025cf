package web

import (
	"context"
	"log/slog"
	"net/http"
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
	return s.log.With("request_id", requestID(r.Context()))
}

package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestFaultLevel: work beside an answer that fails because the database or
// the blob store is out of reach (or busy) is a warning, wrapped however
// deep; anything else, a code's fault, is an error (the eighteenth attack,
// row 661: outages logged ERROR lines).
func TestFaultLevel(t *testing.T) {
	for _, c := range []struct {
		err  error
		want slog.Level
	}{
		{fmt.Errorf("s3: get: %w", fileframe.Errorf(fileframe.CodeUnavailable, "out of reach")), slog.LevelWarn},
		{fmt.Errorf("finishing: %w", fmt.Errorf("postgres: %w", fileframe.Errorf(fileframe.CodeBusy, "busy"))), slog.LevelWarn},
		{errors.New("a nil map"), slog.LevelError},
		{fileframe.Errorf(fileframe.ENOTFOUND, "gone"), slog.LevelError},
	} {
		if got := faultLevel(c.err); got != c.want {
			t.Errorf("faultLevel(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestClientGoneOrCutOff: a request whose context ended is its client's
// doing (400, an info line) until the shutdown cuts off the requests still
// running; from then on it is the server's (503, a warning). Both were
// logged as the client's before, which misled an operator reading why
// uploads failed during a shutdown (the twentieth attack).
func TestClientGoneOrCutOff(t *testing.T) {
	e := newTestEnv(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := httptest.NewRequest(http.MethodPost, "/api/files", nil).WithContext(ctx)

	w := httptest.NewRecorder()
	if !e.srv.clientGone(w, r, context.Canceled) || w.Code != http.StatusBadRequest {
		t.Fatalf("a request its client left: handled %v, status %d, want 400", w.Code != 200, w.Code)
	}
	if !strings.Contains(e.logs.String(), "request ended by the client") {
		t.Errorf("no info line for the client's leaving:\n%s", e.logs)
	}
	e.srv.CuttingOff()
	w = httptest.NewRecorder()
	if !e.srv.clientGone(w, r, fmt.Errorf("reading the body: %w", context.Canceled)) || w.Code != http.StatusServiceUnavailable {
		t.Fatalf("a request the shutdown cut off: status %d, want 503", w.Code)
	}
	if !strings.Contains(e.logs.String(), `"level":"WARN","msg":"request cut off by the shutdown"`) {
		t.Errorf("no warning for the request the shutdown cut off:\n%s", e.logs)
	}
	if w := httptest.NewRecorder(); e.srv.clientGone(w, httptest.NewRequest(http.MethodGet, "/", nil), context.Canceled) {
		t.Error("a request whose context is alive was taken for one cut off")
	}
}

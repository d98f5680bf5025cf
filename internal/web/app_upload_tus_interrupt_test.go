package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tus/tusd/v2/pkg/memorylocker"
	xslog "golang.org/x/exp/slog"
)

// A PATCH whose upload another request of the client's takes stops
// reading at once (interruptingLock). Whichever way tusd then sees the
// read end, a deadline (its 408 "timeout while reading request body") or
// a closed body (500), the answer is tusd's own for an interrupted upload,
// 400 ERR_UPLOAD_INTERRUPTED, and what tusd logs of it is not an error: an
// outside attacker's parallel PATCHes of one upload got 408 after a whole,
// prompt body, and an ERROR line.
func TestTusInterruptedPatch(t *testing.T) {
	for _, code := range []int{http.StatusRequestTimeout, http.StatusInternalServerError} {
		rec := httptest.NewRecorder()
		w := &clientFaultWriter{ResponseWriter: rec, body: &clientBodyReader{ReadCloser: io.NopCloser(strings.NewReader(""))}}
		w.interrupted.Store(true)
		w.Header().Set("Content-Length", "55")
		w.WriteHeader(code)
		io.WriteString(w, "ERR_READ_TIMEOUT: timeout while reading request body\n")
		got := rec.Body.String()
		if rec.Code != http.StatusBadRequest || !strings.HasPrefix(got, "ERR_UPLOAD_INTERRUPTED") ||
			rec.Header().Get("Content-Length") != strconv.Itoa(len(got)) || rec.Header().Get("Connection") != "close" {
			t.Errorf("tusd's %d after an interruption: got %d %q (Content-Length %s, Connection %q)",
				code, rec.Code, got, rec.Header().Get("Content-Length"), rec.Header().Get("Connection"))
		}
	}
	// Not interrupted: tusd's 408 stands.
	rec := httptest.NewRecorder()
	w := &clientFaultWriter{ResponseWriter: rec, body: &clientBodyReader{ReadCloser: io.NopCloser(strings.NewReader(""))}}
	w.WriteHeader(http.StatusRequestTimeout)
	if rec.Code != http.StatusRequestTimeout {
		t.Errorf("a stall: got %d, want 408", rec.Code)
	}

	// The lock taken by another request marks the holder's body as
	// ended for the client, before its read is stopped.
	locker := interruptingLocker{memorylocker.New()}
	body := &clientBodyReader{ReadCloser: io.NopCloser(strings.NewReader(""))}
	holderCtx := context.WithValue(context.Background(), clientBodyKey{}, body)
	holder, _ := locker.NewLock("up")
	released := make(chan struct{})
	if err := holder.Lock(holderCtx, func() { close(released) }); err != nil {
		t.Fatal(err)
	}
	go func() { <-released; holder.Unlock() }()
	other, _ := locker.NewLock("up")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := other.Lock(ctx, func() {}); err != nil {
		t.Fatalf("the newer request's Lock: %v", err)
	}
	if !errors.Is(body.failed(), errInterrupted) {
		t.Errorf("the holder's body: %v, want errInterrupted", body.failed())
	}
	var logs bytes.Buffer
	rec2 := xslog.NewRecord(time.Now(), xslog.LevelError, "BodyReadError", 0)
	if err := (tusLog{slog.NewJSONHandler(&logs, nil)}).Handle(holderCtx, rec2); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("the interrupted request's read was logged as an error: %s", logs.String())
	}
}

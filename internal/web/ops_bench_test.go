package web

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// discardWriter is a ResponseWriter that keeps nothing, so that a benchmark
// measures the handler rather than httptest's recorder.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// BenchmarkObserve is the cost of the observe middleware (request ID,
// status writer, metrics, access log line) around a handler that writes a
// small page, through a ServeMux, as on the public paths.
func BenchmarkObserve(b *testing.B) {
	s := &Server{
		cfg:     Config{BaseURL: &url.URL{Scheme: "http", Host: "app.test"}},
		log:     slog.New(slog.NewJSONHandler(io.Discard, nil)),
		metrics: newMetrics(prometheus.NewRegistry()),
	}
	page := bytes.Repeat([]byte("x"), 2000)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /f/{slug}", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = []string{"text/html"}
		w.WriteHeader(http.StatusOK)
		w.Write(page)
	})
	h := s.observe("app", mux)
	req := httptest.NewRequest(http.MethodGet, "/f/abcdefghijkl", nil)
	req.RemoteAddr = "127.0.0.1:50000"
	w := &discardWriter{h: make(http.Header)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

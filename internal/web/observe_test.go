package web

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestObserveMetrics checks the counts of observe's metrics by route and
// status, which it keeps looked up per route and status (routeMetrics).
func TestObserveMetrics(t *testing.T) {
	var logs bytes.Buffer
	s := opsServer(&logs)
	reg := prometheus.NewRegistry()
	s.metrics = newMetrics(reg)
	mux := http.NewServeMux()
	status := func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("status"))
		w.WriteHeader(code)
	}
	mux.HandleFunc("GET /a/{x}", status)
	mux.HandleFunc("GET /b", status)
	app, content := s.observe("app", mux), s.observe("content", mux)
	for _, req := range []struct {
		h    http.Handler
		path string
		n    int
	}{
		{app, "/a/1?status=200", 3},
		{app, "/a/2?status=404", 2},
		{app, "/b?status=200", 1},
		{content, "/a/3?status=200", 4},
	} {
		for range req.n {
			req.h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", req.path, nil))
		}
	}
	// Read back from the registry: counts by origin, route and code, and
	// observed durations by origin and route.
	requests := map[string]float64{}
	durations := map[string]uint64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			k := strings.Join(labels, " ")
			switch f.GetName() {
			case "fileframe_http_requests_total":
				requests[k] = m.GetCounter().GetValue()
			case "fileframe_http_request_duration_seconds":
				durations[k] = m.GetHistogram().GetSampleCount()
			}
		}
	}
	wantRequests := map[string]float64{
		"code=200 origin=app route=GET /a/{x}":     3,
		"code=404 origin=app route=GET /a/{x}":     2,
		"code=200 origin=app route=GET /b":         1,
		"code=200 origin=content route=GET /a/{x}": 4,
	}
	wantDurations := map[string]uint64{
		"origin=app route=GET /a/{x}":     5,
		"origin=app route=GET /b":         1,
		"origin=content route=GET /a/{x}": 4,
	}
	if fmt.Sprint(requests) != fmt.Sprint(wantRequests) {
		t.Errorf("requests counted: got %v, want %v", requests, wantRequests)
	}
	if fmt.Sprint(durations) != fmt.Sprint(wantDurations) {
		t.Errorf("durations observed: got %v, want %v", durations, wantDurations)
	}
}

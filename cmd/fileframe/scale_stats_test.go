package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestScaleStats: two serve processes on one PostgreSQL database (issue
// 14). Visitors' views and downloads go to either instance at random;
// each instance counts in memory and writes its batches, and the figures
// read through either one are exact: every event once, each visitor once
// a day (both instances hash with the day's one salt from the store), and
// during an A/B test each visitor sees the same revision from both.
func TestScaleStats(t *testing.T) {
	t.Parallel()
	_, _, env, cli := scaleEnv(t)
	cli("account", "create", "--email", "stats@example.com", "--plan", "agency")
	key := cli("key", "create", "--email", "stats@example.com")["key"].(string)
	args := []string{"--trusted-proxies", "127.0.0.0/8", "--key-burst", "1000", "--key-rate", "100"}
	a := startServeEnv(t, env, t.TempDir(), args...)
	b := startServeEnv(t, env, t.TempDir(), args...)

	api := func(p *serveProc, method, path, body string, out any) int {
		t.Helper()
		req, _ := http.NewRequest(method, p.app+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, raw := httpDo(t, req)
		if out != nil {
			if err := json.Unmarshal(raw, out); err != nil {
				t.Fatalf("%s %s: %v in %s", method, path, err, raw)
			}
		}
		return resp.StatusCode
	}
	var file struct {
		FileID string `json:"id"`
		Slug   string
	}
	req, _ := http.NewRequest(http.MethodPost, a.app+"/api/files?name=offer.pdf", strings.NewReader("offer"))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/octet-stream")
	if resp, body := httpDo(t, req); resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &file) != nil {
		t.Fatalf("upload: %d %s", resp.StatusCode, body)
	}
	for i, publish := range []bool{true, false} {
		page := fmt.Sprintf(`{"fileId": %q, "html": "<!doctype html><html><head><title>v</title></head><body><h1>variant %d</h1></body></html>", "publish": %v}`, file.FileID, i+1, publish)
		var out map[string]any
		if got := api(b, http.MethodPost, "/api/campaign/custom-html", page, &out); got != http.StatusOK && got != http.StatusCreated {
			t.Fatalf("custom-html %d: %d %v", i+1, got, out)
		}
	}
	if got := api(b, http.MethodPost, "/api/files/"+file.FileID+"/page/publish", `{"revision": 1}`, nil); got != http.StatusOK {
		t.Fatalf("publish 1: %d", got)
	}
	var started struct{ Test struct{ TestID string } }
	if got := api(a, http.MethodPost, "/api/files/"+file.FileID+"/tests", `{"revisions": [1, 2]}`, &started); got != http.StatusCreated {
		t.Fatalf("start test: %d", got)
	}

	frame := regexp.MustCompile(`/p/[^/"]+/(\d+)`)
	const visitors = 200
	shown := make([]string, visitors)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range visitors {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			get := func(p *serveProc, path string) (int, string) {
				req, _ := http.NewRequest(http.MethodGet, p.app+path, nil)
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("203.0.%d.%d", i/200, i%200+1))
				req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
				resp, body := httpDo(t, req)
				return resp.StatusCode, string(body)
			}
			// Three views, alternating instances; every other visitor
			// downloads through the instance it did not start on.
			for j := range 3 {
				code, body := get([]*serveProc{a, b}[(i+j)%2], "/f/"+file.Slug)
				m := frame.FindStringSubmatch(body)
				if code != http.StatusOK || m == nil {
					t.Errorf("view: %d", code)
					return
				}
				if shown[i] != "" && shown[i] != m[1] {
					t.Errorf("visitor %d saw revision %s, then %s", i, shown[i], m[1])
				}
				shown[i] = m[1]
			}
			if i%2 == 0 {
				get([]*serveProc{a, b}[(i+1)%2], "/f/"+file.Slug+"/download")
			}
		})
	}
	wg.Wait()
	// A SIGTERM writes what each instance holds (as a shutdown does);
	// their batches are then in the store.
	a.stop()
	b.stop()
	c := startServeEnv(t, env, t.TempDir(), args...)
	var st struct {
		Totals struct {
			Views, Clicks, Downloads int64
			Visitors, Converted      *int64
		}
		Variants []struct {
			Variant  string
			Visitors *int64
		}
	}
	if got := api(c, http.MethodGet, "/api/files/"+file.FileID+"/stats", "", &st); got != http.StatusOK {
		t.Fatalf("stats: %d", got)
	}
	if st.Totals.Views != 3*visitors || st.Totals.Clicks != visitors/2 || st.Totals.Downloads != visitors/2 ||
		st.Totals.Visitors == nil || *st.Totals.Visitors != visitors || *st.Totals.Converted != visitors/2 {
		t.Errorf("totals across two instances: %+v (visitors %v); want %d views, %d clicks and downloads, %d visitors, %d converted",
			st.Totals, st.Totals.Visitors, 3*visitors, visitors/2, visitors, visitors/2)
	}
	counts := map[string]int64{}
	for _, s := range shown {
		counts["page:"+s]++
	}
	for _, v := range st.Variants {
		if *v.Visitors != counts[v.Variant] {
			t.Errorf("variant %s: %d visitors, shown to %d", v.Variant, *v.Visitors, counts[v.Variant])
		}
	}
}

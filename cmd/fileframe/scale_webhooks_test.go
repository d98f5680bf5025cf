package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/webhook/webhooktest"
)

// TestScaleWebhooks: two serve processes on one PostgreSQL database (issue
// 14) both run the delivery worker; under a load of uploads and downloads
// through both, every event reaches its endpoint exactly once (once
// answered 2xx, never sent again), retries after a 500 included, and every
// signature verifies on a receiver on loopback (--webhook-private).
func TestScaleWebhooks(t *testing.T) {
	t.Parallel()
	_, _, env, cli := scaleEnv(t)
	cli("account", "create", "--email", "hooks@example.com", "--plan", "agency")
	key := cli("key", "create", "--email", "hooks@example.com")["key"].(string)

	rcv := webhooktest.NewReceiver(t)
	// The first attempt of every fifth event of /created fails: its retry,
	// 5 s later, may be claimed by either instance.
	var mu sync.Mutex
	seen := map[string]int{}
	rcv.Respond(func(d webhooktest.Delivery, n int) int {
		mu.Lock()
		defer mu.Unlock()
		if d.Path == "/created" && n == 0 {
			seen[d.ID] = len(seen)
			if seen[d.ID]%5 == 0 {
				return http.StatusInternalServerError
			}
		}
		return http.StatusNoContent
	})
	args := []string{"--webhook-private", "--log-level", "debug", "--key-burst", "1000", "--key-rate", "100"}
	a := startServeEnv(t, env, t.TempDir(), args...)
	b := startServeEnv(t, env, t.TempDir(), args...)

	// Two endpoints, made through A and B.
	created := createWebhook(t, a, key, rcv.At("/created"), "file.created")
	rcv.SetSecret("/created", created)
	downloaded := createWebhook(t, b, key, rcv.At("/downloaded"), "file.downloaded")
	rcv.SetSecret("/downloaded", downloaded)

	// Load: uploads through both instances at once, then downloads of
	// each file through the other.
	const files = 48
	slugs := make([]string, files)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range files {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			p := []*serveProc{a, b}[i%2]
			req, _ := http.NewRequest(http.MethodPost, p.app+"/api/files?name="+url.QueryEscape(fmt.Sprintf("load-%02d.txt", i)),
				strings.NewReader(strings.Repeat("x", 100+i)))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/octet-stream")
			resp, body := httpDo(t, req)
			var f struct{ Slug string }
			if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &f) != nil || f.Slug == "" {
				t.Errorf("upload %d through %s: %d %s", i, p.app, resp.StatusCode, body)
				return
			}
			slugs[i] = f.Slug
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	downloads := 0
	for i, slug := range slugs {
		p := []*serveProc{b, a}[i%2]
		for range 1 + i%3 {
			if resp, _ := httpGet(t, p.app+"/f/"+slug+"/download"); resp.StatusCode != http.StatusOK {
				t.Fatalf("download %s: %d", slug, resp.StatusCode)
			}
			downloads++
		}
	}

	// Every file.created event delivered once; every download counted in
	// exactly one delivered file.downloaded event.
	rcv.WaitFor(t, 90*time.Second, "every event delivered", func(ds []webhooktest.Delivery) bool {
		ok, counted := map[string]bool{}, 0
		for _, d := range ds {
			if d.Status/100 != 2 || ok[d.Path+d.ID] {
				continue
			}
			ok[d.Path+d.ID] = true
			if d.Path == "/created" {
				counted += 1 << 20
			} else {
				n, _ := d.Payload.Data["count"].(float64)
				counted += int(n)
			}
		}
		return counted == files<<20+downloads
	})
	// Let any stray second delivery arrive before counting.
	time.Sleep(2 * time.Second)
	got := rcv.Deliveries()
	okAnswers := map[string]int{}
	attempts := map[string]int{}
	retried := 0
	for _, d := range got {
		attempts[d.Path+" "+d.ID]++
		if d.Status/100 == 2 {
			okAnswers[d.Path+" "+d.ID]++
		}
	}
	for id, n := range okAnswers {
		if n != 1 {
			t.Errorf("event %s was delivered %d times", id, n)
		}
	}
	for id, n := range attempts {
		switch {
		case n == 2 && strings.HasPrefix(id, "/created "):
			retried++
		case n != 1:
			t.Errorf("event %s was sent %d times", id, n)
		}
	}
	if retried != (files+4)/5 {
		t.Errorf("%d events were retried after a 500, want %d", retried, (files+4)/5)
	}
	if pr := rcv.Problems(); len(pr) > 0 {
		t.Errorf("deliveries that did not verify: %q", pr)
	}
	// Both instances took part (their debug logs name what each sent).
	t.Logf("deliveries sent by A: %d, by B: %d; %d requests in all, %d retried",
		strings.Count(a.stderr.String(), "webhooks: delivered"), strings.Count(b.stderr.String(), "webhooks: delivered"), len(got), retried)
}

// createWebhook adds an endpoint through p's API and returns its secret.
func createWebhook(t *testing.T, p *serveProc, key, target string, events ...string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"url": target, "events": events})
	req, _ := http.NewRequest(http.MethodPost, p.app+"/api/webhooks", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, raw := httpDo(t, req)
	var out struct{ Secret string }
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(raw, &out) != nil || out.Secret == "" {
		t.Fatalf("POST /api/webhooks through %s: %d %s", p.app, resp.StatusCode, raw)
	}
	return out.Secret
}

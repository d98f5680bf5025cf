package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// TestOpenAPIServed checks GET /api/openapi.json: the document, public and
// cacheable, naming the instance's base URL as its server.
func TestOpenAPIServed(t *testing.T) {
	e := newTestEnv(t)
	resp, body := e.get(e.app.URL + openAPIPath)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status: got %d, want 200\n%s", resp.StatusCode, body)
	}
	for name, want := range map[string]string{
		"Content-Type":                "application/json",
		"Cache-Control":               "public, max-age=300",
		"Access-Control-Allow-Origin": "*",
		"X-Content-Type-Options":      "nosniff",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	var served, source map[string]any
	if err := json.Unmarshal(body, &served); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(openAPIDocument, &source); err != nil {
		t.Fatal(err)
	}
	servers, _ := served["servers"].([]any)
	if len(servers) != 1 || servers[0].(map[string]any)["url"] != e.app.URL {
		t.Errorf("servers: got %v, want one, %s", served["servers"], e.app.URL)
	}
	// Everything else is the source, as it is.
	delete(served, "servers")
	delete(source, "servers")
	if a, b := fmt.Sprint(served), fmt.Sprint(source); a != b {
		t.Errorf("the served document differs from openapi.json beyond servers")
	}

	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	resp, _ = e.get(e.app.URL+openAPIPath, "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("with If-None-Match: got %d, want 304", resp.StatusCode)
	}

	// A base URL behind a proxy, with a path, is the server as it is.
	proxied := newTestEnv(t, func(c *Config) { c.BaseURL.Path = "/" })
	_, body = proxied.get(proxied.app.URL + openAPIPath)
	if !bytes.Contains(body, []byte(`"url":"`+proxied.app.URL+`"`)) {
		t.Errorf("with base URL %s/: the server is not %s", proxied.app.URL, proxied.app.URL)
	}
}

package web

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// openAPIDocument is the OpenAPI 3.1 description of the API, written by
// hand. Every request and answer of the API tests is validated against it
// (openapi_test.go), so it describes what the code does.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPIPath is where the document is served.
const openAPIPath = "/api/openapi.json"

// openAPIMaxAge is how long clients and caches may keep the document: it
// changes only with a new release.
const openAPIMaxAge = 5 * time.Minute

// apiOpenAPI handles GET /api/openapi.json: the document, with its servers
// naming this instance's base URL, to anyone.
func (s *Server) apiOpenAPI(w http.ResponseWriter, r *http.Request) {
	doc, err := openAPIFor(strings.TrimSuffix(s.cfg.BaseURL.String(), "/"))
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	sum := sha256.Sum256(doc)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(openAPIMaxAge.Seconds())))
	h.Set("ETag", `"`+base64.RawURLEncoding.EncodeToString(sum[:16])+`"`)
	// Tools that render or import the document (Swagger UI, an agent's
	// browser tab) often run on another origin; the document is public and
	// the answer carries no credentials.
	h.Set("Access-Control-Allow-Origin", "*")
	setDataHeaders(h)
	serveContent(w, r, time.Time{}, bytes.NewReader(doc))
}

// openAPIFor returns the document with one server, baseURL.
func openAPIFor(baseURL string) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		return nil, fmt.Errorf("reading openapi.json: %w", err)
	}
	servers, err := json.Marshal([]map[string]string{{
		"url":         baseURL,
		"description": "This Fileframe instance.",
	}})
	if err != nil {
		return nil, err
	}
	doc["servers"] = servers
	return json.Marshal(doc)
}

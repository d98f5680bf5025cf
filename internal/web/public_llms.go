package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"github.com/fileframe/fileframe/docs"
)

// The discovery documents of the app origin: /llms.txt, the summary of the
// API for AI agents in the llms.txt format (https://llmstxt.org), and
// /llms-full.txt, the whole API reference. Both are the repository's own
// files (package docs), with this instance's address in place of BASE_URL,
// so an agent given only the address learns the API from the service.

// markdownType is the Content-Type of the discovery documents
// (RFC 7763).
var markdownType = []string{"text/markdown; charset=utf-8"}

// discoveryMaxAge is how long a client may keep a discovery document
// without asking again: they change only with a new release.
const discoveryMaxAge = "public, max-age=300"

// llmsText returns the handler of /llms.txt.
func (s *Server) llmsText() http.Handler {
	return s.discoveryDoc(docs.ForBase(docs.LLMs(), s.publicURL("/")))
}

// llmsFullText returns the handler of /llms-full.txt: docs/api.md under a
// short header that says where it comes from and what BASE_URL is.
func (s *Server) llmsFullText() http.Handler {
	base := strings.TrimSuffix(s.publicURL("/"), "/")
	api := docs.API()
	title, body, _ := strings.Cut(api, "\n")
	header := title + "\n\n> The whole API reference of the Fileframe instance at " + base +
		" (docs/api.md of its repository). BASE_URL below is " + base +
		". The short version for agents is " + base + "/llms.txt; the API as OpenAPI 3.1 is " + base + "/api/openapi.json.\n"
	return s.discoveryDoc(docs.ForBase(header+body, base))
}

// discoveryDoc serves text as Markdown, with a strong ETag, conditional
// requests and HEAD, cacheable for discoveryMaxAge.
func (s *Server) discoveryDoc(text string) http.Handler {
	body := []byte(text)
	sum := sha256.Sum256(body)
	etag := []string{`"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = markdownType
		h["Etag"] = etag
		h.Set("Cache-Control", discoveryMaxAge)
		h["X-Content-Type-Options"] = s.hdr.nosniff
		h["Referrer-Policy"] = s.hdr.noReferrer
		// Opened in a browser, a text document runs nothing.
		h["Content-Security-Policy"] = s.hdr.sandboxNone
		serveContent(w, r, time.Time{}, bytes.NewReader(body))
	})
}

package docs

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// designEndpoints are the endpoints of the REST API's design (issue 11),
// each as its method and path, with {id} for a file ID and {rev} for a
// revision number (collections, issue 13: {id} a collection's ID, {fileId}
// a file's; webhooks, issue 14: {id} a webhook's, {deliveryId} one of its
// deliveries; A/B tests: {testId} a test of the file {id}): llms.txt gives each as "METHOD BASE_URL/path", and
// api.md documents each path.
var designEndpoints = []string{
	"POST /api/files",
	"GET /api/files",
	"GET /api/files/{id}",
	"PATCH /api/files/{id}",
	"DELETE /api/files/{id}",
	"GET /api/files/{id}/page",
	"GET /api/files/{id}/page/revisions",
	"GET /api/files/{id}/page/revisions/{rev}",
	"POST /api/files/{id}/page/revisions",
	"POST /api/files/{id}/page/publish",
	"POST /api/files/{id}/page/unpublish",
	"POST /api/files/{id}/page/revisions/{rev}/restore",
	"POST /api/files/{id}/page/revisions/{rev}/refetch",
	"POST /api/html/check",
	"POST /api/collections",
	"GET /api/collections/{id}",
	"POST /api/collections/{id}/files",
	"DELETE /api/collections/{id}/files/{fileId}",
	"POST /api/requests",
	"GET /api/requests",
	"GET /api/requests/{id}",
	"DELETE /api/requests/{id}",
	"POST /api/requests/{id}/close",
	"POST /api/files/{id}/share",
	"GET /api/webhooks",
	"POST /api/webhooks",
	"GET /api/webhooks/{id}",
	"PATCH /api/webhooks/{id}",
	"DELETE /api/webhooks/{id}",
	"GET /api/webhooks/{id}/deliveries",
	"POST /api/webhooks/{id}/deliveries/{deliveryId}/retry",
	"GET /api/stats",
	"GET /api/files/{id}/stats",
	"GET /api/files/{id}/tests",
	"POST /api/files/{id}/tests",
	"GET /api/files/{id}/tests/{testId}",
	"POST /api/files/{id}/tests/{testId}/end",
	"POST /api/campaign/custom-html",
	"GET /llms.txt",
	"GET /llms-full.txt",
	"GET /api/openapi.json",
	"POST /mcp",
}

// pendingInAPI are paths and error codes that llms.txt gives and api.md
// does not document yet; the test fails on an entry that api.md has.
var pendingInAPI = []string{}

// codes returns the error codes of doc's code tables with their statuses:
// rows "| `code` | status | …" (api.md's Errors, llms.txt's Errors) and
// "| status | `code` | …" (api.md's upload errors).
func codes(t *testing.T, name, doc string) map[string]string {
	t.Helper()
	got := map[string]string{}
	add := func(code, status string) {
		if old, ok := got[code]; ok && old != status {
			t.Errorf("%s: %s is %s in one table and %s in another", name, code, old, status)
		}
		got[code] = status
	}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([0-9]{3}) \\|").FindAllStringSubmatch(doc, -1) {
		add(m[1], m[2])
	}
	for _, m := range regexp.MustCompile("(?m)^\\| ([0-9]{3}) \\| `([a-z_]+)` \\|").FindAllStringSubmatch(doc, -1) {
		add(m[2], m[1])
	}
	if len(got) < 10 {
		t.Fatalf("%s: found only %d error codes in its tables: %v", name, len(got), got)
	}
	return got
}

// mentions reports whether doc has path as a whole path (not the start of
// a longer one), after prefix.
func mentions(doc, prefix, path string) bool {
	return regexp.MustCompile(regexp.QuoteMeta(prefix+path) + `($|[^A-Za-z0-9_./{}-])`).MatchString(doc)
}

// TestErrorCodesAgree: every error code of api.md's tables is in llms.txt's
// table with the same status, and llms.txt has no code api.md lacks (but
// those whose sections are pending).
func TestErrorCodesAgree(t *testing.T) {
	api, llms := codes(t, "api.md", API()), codes(t, "llms.txt", LLMs())
	for code, status := range api {
		if slices.Contains(pendingInAPI, code) {
			t.Errorf("api.md documents %s now: remove it from pendingInAPI", code)
		}
		if got, ok := llms[code]; !ok {
			t.Errorf("llms.txt's Errors table lacks %s (%s), which api.md lists", code, status)
		} else if got != status {
			t.Errorf("%s: status %s in llms.txt, %s in api.md", code, got, status)
		}
	}
	for code := range llms {
		if _, ok := api[code]; !ok && !slices.Contains(pendingInAPI, code) {
			t.Errorf("llms.txt lists %s, which api.md's tables do not", code)
		}
	}
}

// TestEndpointsAgree: every endpoint of the design is in llms.txt as
// "METHOD BASE_URL/path", and its path in api.md (but those pending).
func TestEndpointsAgree(t *testing.T) {
	api, llms := API(), LLMs()
	for _, ep := range designEndpoints {
		method, path, _ := strings.Cut(ep, " ")
		link := "(" + BaseURLPlaceholder + path + ")"
		if !mentions(llms, method+" "+BaseURLPlaceholder, path) && !strings.Contains(llms, link) {
			t.Errorf("llms.txt lacks %s (as %s %s%s or a link)", ep, method, BaseURLPlaceholder, path)
		}
		inAPI := mentions(api, "", path)
		pending := slices.Contains(pendingInAPI, path)
		switch {
		case inAPI && pending:
			t.Errorf("api.md documents %s now: remove it from pendingInAPI", path)
		case !inAPI && !pending:
			t.Errorf("api.md lacks %s", ep)
		}
	}
}

// TestControlRoomAgrees: llms.txt gives the download control's place and
// the room to leave in api.md's words (whose numbers the browser test
// TestBrowserControlPlace in internal/web measures).
func TestControlRoomAgrees(t *testing.T) {
	api, llms := API(), strings.ToLower(LLMs())
	for _, re := range []string{
		`wider than \d+ px`,
		`fixed at the bottom right, \d+ px from the right and bottom edges`,
		`\d+ px tall, up to \d+ px wide`,
		`\d+ px wide or less`,
		`a bar across the bottom, \d+ px from the left, right and bottom edges`,
		`\d+ px tall \(\d+ px when a long name wraps\), as wide as the window less \d+ px`,
		`leave \d+ px free at the bottom`,
		`calc\(\d+px \+ env\(safe-area-inset-bottom\)\)`,
		`bottom right corner \(\d+ × \d+ px\)`,
	} {
		m := regexp.MustCompile(`(?i)` + re).FindString(api)
		if m == "" {
			t.Errorf("api.md has nothing like %q", re)
			continue
		}
		if !strings.Contains(llms, strings.ToLower(m)) {
			t.Errorf("llms.txt lacks api.md's %q", m)
		}
	}
	for _, attr := range []string{`data-fileframe="name"`, `data-fileframe="size"`, `data-fileframe="type"`, "window.fileframe", "sizeText"} {
		if !strings.Contains(api, attr) || !strings.Contains(llms, strings.ToLower(attr)) && !strings.Contains(LLMs(), attr) {
			t.Errorf("api.md and llms.txt must both explain %s", attr)
		}
	}
}

// TestLLMsFormat: llms.txt is in the llmstxt.org format (an H1, a
// blockquote summary, then H2 sections), at most three calls lead from a
// file to its page's link, and it links the fuller documents.
func TestLLMsFormat(t *testing.T) {
	doc := LLMs()
	lines := strings.Split(doc, "\n")
	if !strings.HasPrefix(lines[0], "# ") || lines[1] != "" || !strings.HasPrefix(lines[2], "> ") {
		t.Errorf("llms.txt must start with an H1, a blank line and a blockquote, got %q", lines[:3])
	}
	for _, h := range regexp.MustCompile(`(?m)^#+ .*`).FindAllString(doc, -1)[1:] {
		if !strings.HasPrefix(h, "## ") {
			t.Errorf("llms.txt: heading %q, want H2 sections only after the title", h)
		}
	}
	for _, link := range []string{"(BASE_URL/llms-full.txt)", "(BASE_URL/api/openapi.json)", "(BASE_URL/mcp)"} {
		if !strings.Contains(doc, link) {
			t.Errorf("llms.txt does not link %s", link)
		}
	}
	flow := doc[strings.Index(doc, "## The flow"):]
	flow = flow[:strings.Index(flow[3:], "\n## ")+3]
	if n := len(regexp.MustCompile(`(?m)^[0-9]+\. `).FindAllString(flow, -1)); n > 3 {
		t.Errorf("the flow has %d steps, want at most three", n)
	}
	for _, want := range []string{"POST BASE_URL/api/files`", "POST BASE_URL/api/files/{id}/page/revisions`", "POST BASE_URL/api/campaign/custom-html`", "`publicUrl`", `"publish": true`} {
		if !strings.Contains(flow, want) {
			t.Errorf("the flow lacks %s", want)
		}
	}
}

func TestForBase(t *testing.T) {
	for _, tt := range []struct{ doc, base, want string }{
		{"POST BASE_URL/api/files", "https://files.example.com", "POST https://files.example.com/api/files"},
		{`curl "$BASE_URL/api/files"`, "http://127.0.0.1:8080/", `curl "http://127.0.0.1:8080/api/files"`},
		{"`BASE_URL` is the address", "https://x.example", "`BASE_URL` is the address"},
		{"[a](BASE_URL/llms-full.txt)", "https://x.example/fileframe", "[a](https://x.example/fileframe/llms-full.txt)"},
	} {
		if got := ForBase(tt.doc, tt.base); got != tt.want {
			t.Errorf("ForBase(%q, %q) = %q, want %q", tt.doc, tt.base, got, tt.want)
		}
	}
	// Every address in the served documents is the instance's.
	for name, doc := range map[string]string{"api.md": API(), "llms.txt": LLMs()} {
		if got := ForBase(doc, "https://files.example.com"); strings.Contains(got, "BASE_URL/") {
			t.Errorf("%s keeps a BASE_URL/ after ForBase", name)
		}
	}
}

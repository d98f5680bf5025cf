package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
)

// validPage is a page that breaks no rule and draws no warning.
const validPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Spring launch</title>
<style>body { font-family: system-ui, sans-serif; background: #f6f3ee; color: #222; margin: 0; padding: 4rem 2rem; }</style>
</head>
<body>
<h1>Spring launch</h1>
<p>Thanks for stopping by. The new collection is ready for you.</p>
<script>document.body.dataset.ready = "1";</script>
</body>
</html>
`

// pageWithWarning is valid but has no <title>, which htmlcheck warns about.
const pageWithWarning = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
</head>
<body><h1>Hello</h1><p>Welcome.</p></body>
</html>
`

// pageWithExternalScript breaks the inline.script rule.
const pageWithExternalScript = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Launch</title>
<script src="https://cdn.example.com/app.js"></script>
</head>
<body><h1>Launch</h1></body>
</html>
`

// apiFixture is a test environment with the accounts, files and keys the
// API scenarios need.
type apiFixture struct {
	e *testEnv

	agency        fileframe.Account
	file, file2   fileframe.File // the agency account's files
	otherFile     fileframe.File // a file of another agency account
	general       string         // a general key of the agency account
	generalKey    fileframe.Key
	page          string // a key bound to file
	revoked       string
	expired       string
	downgraded    string // a key made on Agency, then the account went to free
	pro           string // a key of an account on the pro plan
	disabled      string // a key of a disabled agency account
	otherGeneral  string // a general key of the other agency account
	unknownButOK  string // well-formed, never stored
	downgradedAcc fileframe.Account
}

// newAPIFixture starts an environment with rate limits high enough not to
// interfere; opts run after that and may lower them.
func newAPIFixture(t *testing.T, opts ...func(*Config)) *apiFixture {
	t.Helper()
	high := func(c *Config) { c.KeyRate, c.KeyBurst, c.IPRate, c.IPBurst = 1000, 1000, 1000, 1000 }
	e := newTestEnv(t, append([]func(*Config){high}, opts...)...)
	ctx := context.Background()
	fx := &apiFixture{e: e}

	fx.agency = e.account(fileframe.PlanAgency)
	fx.file = e.file(fx.agency, "brochure.pdf", []byte("%PDF-1.7 brochure"))
	fx.file2 = e.file(fx.agency, "price-list.pdf", []byte("%PDF-1.7 prices"))
	fx.general, fx.generalKey = e.key(fx.agency, "")
	fx.page, _ = e.key(fx.agency, fx.file.ID)

	var k fileframe.Key
	fx.revoked, k = e.key(fx.agency, "")
	if err := e.store.RevokeKey(ctx, fx.agency.ID, k.ID, time.Now().Add(-time.Minute)); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	secret, hash, prefix := fileframe.NewKeySecret(fileframe.KeyGeneral)
	if _, err := e.store.CreateKey(ctx, fileframe.Key{
		AccountID: fx.agency.ID, Kind: fileframe.KeyGeneral, Name: "expired", Hash: hash, Prefix: prefix,
		ExpiresAt: time.Now().Add(-time.Hour),
	}); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	fx.expired = secret

	fx.downgradedAcc = e.account(fileframe.PlanAgency)
	e.file(fx.downgradedAcc, "a.txt", []byte("a"))
	fx.downgraded, _ = e.key(fx.downgradedAcc, "")
	if err := e.store.SetAccountPlan(ctx, fx.downgradedAcc.ID, fileframe.PlanFree); err != nil {
		t.Fatalf("SetAccountPlan: %v", err)
	}
	fx.pro, _ = e.key(e.account(fileframe.PlanPro), "")

	disabled, err := e.store.CreateAccount(ctx, fileframe.Account{
		Email: fileframe.RandomBase62(8) + "@example.com", Plan: fileframe.PlanAgency, Disabled: true,
	})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	fx.disabled, _ = e.key(disabled, "")

	other := e.account(fileframe.PlanAgency)
	fx.otherFile = e.file(other, "theirs.zip", []byte("PK theirs"))
	fx.otherGeneral, _ = e.key(other, "")
	fx.unknownButOK, _, _ = fileframe.NewKeySecret(fileframe.KeyGeneral)
	return fx
}

// apiRequest describes one request to the API.
type apiRequest struct {
	method      string // POST when empty
	path        string // customHTMLPath when empty
	auth        string // the Authorization header; none when empty
	contentType string // application/json when empty; "none" sends none
	body        string
}

// apiResult is an answer of the API with its body decoded.
type apiResult struct {
	resp *http.Response
	raw  []byte
	body map[string]any
}

func (fx *apiFixture) send(t *testing.T, r apiRequest) apiResult {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodPost
	}
	if r.path == "" {
		r.path = customHTMLPath
	}
	req, err := http.NewRequest(r.method, fx.e.app.URL+r.path, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.auth != "" {
		req.Header.Set("Authorization", r.auth)
	}
	switch r.contentType {
	case "":
		req.Header.Set("Content-Type", "application/json")
	case "none":
	default:
		req.Header.Set("Content-Type", r.contentType)
	}
	resp, raw := fx.e.do(req)
	res := apiResult{resp: resp, raw: raw}
	if err := json.Unmarshal(raw, &res.body); err != nil {
		t.Fatalf("%s %s: %d answer is not a JSON object: %v\n%s", r.method, r.path, resp.StatusCode, err, raw)
	}
	return res
}

// post sends a JSON body built from fields with the given key.
func (fx *apiFixture) post(t *testing.T, key string, fields map[string]any) apiResult {
	t.Helper()
	return fx.send(t, apiRequest{auth: "Bearer " + key, body: jsonBody(t, fields)})
}

func jsonBody(t *testing.T, fields map[string]any) string {
	t.Helper()
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkProblem asserts that res is a problem+json answer with the given
// status and code and every member DESIGN.md's "Error body" names.
func checkProblem(t *testing.T, res apiResult, status int, code string) {
	t.Helper()
	if res.resp.StatusCode != status {
		t.Fatalf("status: got %d, want %d\n%s", res.resp.StatusCode, status, res.raw)
	}
	if got := res.resp.Header.Get("Content-Type"); got != "application/problem+json" {
		t.Errorf("Content-Type: got %q, want application/problem+json", got)
	}
	if got := res.resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control: got %q, want no-store", got)
	}
	b := res.body
	if got := b["code"]; got != code {
		t.Errorf("code: got %v, want %q (detail: %v)", got, code, b["detail"])
	}
	if got := b["type"]; got != problemTypeBase+code {
		t.Errorf("type: got %v, want %q", got, problemTypeBase+code)
	}
	if got, _ := b["status"].(float64); int(got) != status {
		t.Errorf("status member: got %v, want %d", b["status"], status)
	}
	if got, _ := b["ok"].(bool); got || b["ok"] == nil {
		t.Errorf("ok: got %v, want false", b["ok"])
	}
	for _, m := range []string{"title", "detail", "requestId"} {
		if s, _ := b[m].(string); s == "" {
			t.Errorf("member %s: got %v, want a non-empty string", m, b[m])
		}
	}
	if _, ok := b["errors"].([]any); !ok {
		t.Errorf("errors: got %v, want an array", b["errors"])
	}
	if status == http.StatusUnauthorized {
		if got := res.resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
			t.Errorf("WWW-Authenticate: got %q, want a Bearer challenge", got)
		}
	}
}

// checkSuccess asserts that res is a 200 answer with every member of the
// spec's and DESIGN.md's response, for the page of file.
func checkSuccess(t *testing.T, fx *apiFixture, res apiResult, file fileframe.File) {
	t.Helper()
	if res.resp.StatusCode != http.StatusOK {
		t.Fatalf("status: got %d, want 200\n%s", res.resp.StatusCode, res.raw)
	}
	if got := res.resp.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type: got %q, want application/json", got)
	}
	if got := res.resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control: got %q, want no-store", got)
	}
	b := res.body
	if b["ok"] != true {
		t.Errorf("ok: got %v, want true", b["ok"])
	}
	if b["slug"] != file.Slug {
		t.Errorf("slug: got %v, want %q", b["slug"], file.Slug)
	}
	if b["url"] != "/f/"+file.Slug {
		t.Errorf("url: got %v, want /f/%s", b["url"], file.Slug)
	}
	if b["publicUrl"] != fx.e.app.URL+"/f/"+file.Slug {
		t.Errorf("publicUrl: got %v, want %s/f/%s", b["publicUrl"], fx.e.app.URL, file.Slug)
	}
	published, ok := b["published"].(bool)
	if !ok {
		t.Errorf("published: got %v, want a boolean", b["published"])
	}
	rev, ok := b["revision"].(float64)
	if !ok || rev < 1 || rev != float64(int(rev)) {
		t.Errorf("revision: got %v, want a positive integer", b["revision"])
	}
	if _, ok := b["warnings"].([]any); !ok {
		t.Errorf("warnings: got %v, want an array", b["warnings"])
	}
	preview, hasPreview := b["previewUrl"].(string)
	if published && hasPreview {
		t.Errorf("previewUrl %q on a published page", preview)
	}
	if !published {
		prefix := fx.e.app.URL + "/f/" + file.Slug + "?preview="
		if !strings.HasPrefix(preview, prefix) {
			t.Fatalf("previewUrl: got %q, want %s<token>", preview, prefix)
		}
		token, err := url.QueryUnescape(strings.TrimPrefix(preview, prefix))
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := fx.e.srv.verifyPreview(file.Slug, token); !ok || got != int(rev) {
			t.Errorf("preview token grants revision %d (valid %v), want %v", got, ok, rev)
		}
	}
	page, err := fx.e.store.PageByFile(context.Background(), file.ID)
	if err != nil {
		t.Fatalf("PageByFile: %v", err)
	}
	if page.LatestRevision != int(rev) {
		t.Errorf("stored latest revision: got %d, want %v", page.LatestRevision, rev)
	}
	wantLive := 0
	if published {
		wantLive = int(rev)
	}
	if page.LiveRevision != wantLive {
		t.Errorf("stored live revision: got %d, want %d (published %v)", page.LiveRevision, wantLive, published)
	}
}

// checkFindings asserts that every finding carries all of its members.
func checkFindings(t *testing.T, member string, v any) {
	t.Helper()
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		t.Fatalf("%s: got %v, want a non-empty array", member, v)
	}
	for i, f := range list {
		m, _ := f.(map[string]any)
		for _, k := range []string{"rule", "message", "hint"} {
			if s, _ := m[k].(string); s == "" {
				t.Errorf("%s[%d].%s: got %v, want a non-empty string", member, i, k, m[k])
			}
		}
		if _, ok := m["excerpt"].(string); !ok {
			t.Errorf("%s[%d].excerpt: got %v, want a string", member, i, m["excerpt"])
		}
		for _, k := range []string{"line", "column"} {
			if _, ok := m[k].(float64); !ok {
				t.Errorf("%s[%d].%s: got %v, want a number", member, i, k, m[k])
			}
		}
	}
}

// TestAPICustomHTML drives POST /api/campaign/custom-html through the real
// router, SQLite and htmlcheck: one row per rule of the spec's Errors and
// Rules tables and per decision of DESIGN.md's "The API operation".
func TestAPICustomHTML(t *testing.T) {
	fx := newAPIFixture(t)
	bearer := func(k string) string { return "Bearer " + k }
	page := func(extra ...any) string {
		m := map[string]any{"html": validPage}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return jsonBody(t, m)
	}

	tests := []struct {
		name   string
		rule   string // what the row proves, and where it is written
		req    func() apiRequest
		status int
		code   string                            // "" on success
		file   func() fileframe.File             // the page's file, on success
		check  func(t *testing.T, res apiResult) // more assertions
	}{
		// Authentication (spec §5, Errors 401; DESIGN "Authorization scheme").
		{name: "missing Authorization", rule: "spec §5.5, Errors: a missing key is 401",
			req: func() apiRequest { return apiRequest{body: page("fileId", fx.file.ID)} }, status: 401, code: "unauthorized"},
		{name: "bad key and malformed JSON", rule: "DESIGN order of checks: auth (401) before JSON (400)",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.unknownButOK), body: `{"html": `} },
			status: 401, code: "unauthorized"},
		{name: "bad key and wrong Content-Type", rule: "DESIGN order of checks: auth (401) before Content-Type (415)",
			req:    func() apiRequest { return apiRequest{auth: "Bearer nope", contentType: "text/plain", body: "x"} },
			status: 401, code: "unauthorized"},
		{name: "Basic scheme", rule: "DESIGN: any scheme but Bearer is 401",
			req: func() apiRequest {
				return apiRequest{auth: "Basic " + fx.general, body: page("fileId", fx.file.ID)}
			}, status: 401, code: "unauthorized"},
		{name: "key without scheme", rule: "DESIGN: any scheme but Bearer is 401",
			req:    func() apiRequest { return apiRequest{auth: fx.general, body: page("fileId", fx.file.ID)} },
			status: 401, code: "unauthorized"},
		{name: "lower-case bearer", rule: "DESIGN: the scheme is case-insensitive",
			req: func() apiRequest {
				return apiRequest{auth: "bearer " + fx.general, body: page("fileId", fx.file.ID, "publish", true)}
			}, status: 200, file: func() fileframe.File { return fx.file }},
		{name: "upper-case BEARER", rule: "DESIGN: the scheme is case-insensitive",
			req: func() apiRequest {
				return apiRequest{auth: "BEARER " + fx.general, body: page("fileId", fx.file.ID, "publish", true)}
			}, status: 200, file: func() fileframe.File { return fx.file }},
		{name: "empty token", rule: "DESIGN: an empty token is 401",
			req: func() apiRequest { return apiRequest{auth: "Bearer ", body: page("fileId", fx.file.ID)} }, status: 401, code: "unauthorized"},
		{name: "malformed token", rule: "spec Errors: an invalid key is 401",
			req:    func() apiRequest { return apiRequest{auth: "Bearer sk-1234", body: page("fileId", fx.file.ID)} },
			status: 401, code: "unauthorized"},
		{name: "unknown key", rule: "DESIGN: an unknown key is 401",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.unknownButOK), body: page("fileId", fx.file.ID)} },
			status: 401, code: "unauthorized"},
		{name: "key with one character changed", rule: "DESIGN: lookup by hash; an unknown key is 401",
			req: func() apiRequest {
				last := "a"
				if strings.HasSuffix(fx.general, "a") {
					last = "b"
				}
				k := fx.general[:len(fx.general)-1] + last
				return apiRequest{auth: bearer(k), body: page("fileId", fx.file.ID)}
			}, status: 401, code: "unauthorized"},
		{name: "revoked key", rule: "DESIGN API keys: a revoked key is 401",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.revoked), body: page("fileId", fx.file.ID)} },
			status: 401, code: "unauthorized",
			check: func(t *testing.T, res apiResult) { wantDetail(t, res, "revoked") }},
		{name: "expired key", rule: "DESIGN API keys: an expired key is 401",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.expired), body: page("fileId", fx.file.ID)} },
			status: 401, code: "unauthorized",
			check: func(t *testing.T, res apiResult) { wantDetail(t, res, "expired") }},
		{name: "disabled account", rule: "Account.Disabled: a disabled account's key is 401",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.disabled), body: page("fileId", fx.file.ID)} },
			status: 401, code: "unauthorized"},

		// Plan (spec §5.4, Errors 403; DESIGN Plans).
		{name: "downgraded account", rule: "spec Errors 403; DESIGN Plans: a downgraded account keeps its keys but gets 403",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.downgraded), body: page()} },
			status: 403, code: "plan_required"},
		{name: "pro account", rule: "spec §5.4: not Agency is 403",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.pro), body: page()} },
			status: 403, code: "plan_required"},
		{name: "downgraded account and wrong Content-Type", rule: "DESIGN order of checks: plan (403) before Content-Type (415)",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.downgraded), contentType: "text/plain", body: "x"}
			}, status: 403, code: "plan_required"},

		// Content-Type (DESIGN order of checks, 415).
		{name: "text/plain", rule: "spec §4 request headers: Content-Type application/json is required",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), contentType: "text/plain", body: page("fileId", fx.file.ID)}
			}, status: 415, code: "unsupported_media_type"},
		{name: "no Content-Type", rule: "spec §4 request headers: Content-Type is required",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), contentType: "none", body: page("fileId", fx.file.ID)}
			}, status: 415, code: "unsupported_media_type"},
		{name: "form encoding", rule: "spec §4: the body is JSON",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), contentType: "application/x-www-form-urlencoded", body: "html=x"}
			}, status: 415, code: "unsupported_media_type"},
		{name: "wrong Content-Type and malformed JSON", rule: "DESIGN order of checks: 415 before 400",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), contentType: "text/html", body: "<html>"}
			}, status: 415, code: "unsupported_media_type"},
		{name: "charset parameter", rule: "brief: parameters of application/json are accepted",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), contentType: "application/json; charset=utf-8",
					body: page("fileId", fx.file.ID, "publish", true)}
			}, status: 200, file: func() fileframe.File { return fx.file }},
		{name: "upper-case media type", rule: "RFC 9110 §8.3.1: media types are case-insensitive",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), contentType: "Application/JSON",
					body: page("fileId", fx.file.ID, "publish", true)}
			}, status: 200, file: func() fileframe.File { return fx.file }},

		// JSON syntax and types (DESIGN order of checks, 400).
		{name: "malformed JSON", rule: "DESIGN: JSON syntax is 400 invalid_json",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: `{"html": "<p>x</p>",}`} },
			status: 400, code: "invalid_json"},
		{name: "empty body", rule: "DESIGN: JSON syntax is 400 invalid_json",
			req: func() apiRequest { return apiRequest{auth: bearer(fx.general)} }, status: 400, code: "invalid_json"},
		{name: "JSON array", rule: "spec §4: the body is a JSON object",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: `[` + page("fileId", fx.file.ID) + `]`}
			},
			status: 400, code: "invalid_json"},
		{name: "JSON string", rule: "spec §4: the body is a JSON object",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: `"<html></html>"`} },
			status: 400, code: "invalid_json"},
		{name: "trailing data", rule: "spec §4: the body is one JSON object",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: page("fileId", fx.file.ID) + `{}`}
			},
			status: 400, code: "invalid_json"},
		{name: "invalid UTF-8", rule: "RFC 8259 §8.1: JSON is UTF-8",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: `{"fileId":"` + string(fx.file.ID) + "\",\"html\":\"\xff\xfe\"}"}
			}, status: 400, code: "invalid_json"},
		{name: "html is a number", rule: "spec §4: html is a string; DESIGN: wrong types are 400",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: `{"html":5,"fileId":"` + string(fx.file.ID) + `"}`}
			},
			status: 400, code: "invalid_field"},
		{name: "fileId is a number", rule: "spec §2: a file ID is a string",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: `{"html":"x","fileId":3}`} },
			status: 400, code: "invalid_field"},
		{name: `publish is "yes"`, rule: "DESIGN: publish of any non-boolean type is 400",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: page("fileId", fx.file.ID, "publish", "yes")}
			},
			status: 400, code: "invalid_field"},
		{name: `publish is "true"`, rule: "DESIGN: publish of any non-boolean type is 400",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: page("fileId", fx.file.ID, "publish", "true")}
			},
			status: 400, code: "invalid_field"},
		{name: "publish is 1", rule: "DESIGN: publish of any non-boolean type is 400",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: page("fileId", fx.file.ID, "publish", 1)}
			},
			status: 400, code: "invalid_field"},
		{name: "wrong type and no fileId", rule: "DESIGN order of checks: types before fileId rules",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: page("publish", "yes")} },
			status: 400, code: "invalid_field"},
		{name: "html of wrong type on another account's file", rule: "DESIGN order of checks: types (400) before file (404)",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: `{"html":[],"fileId":"` + string(fx.otherFile.ID) + `"}`}
			}, status: 400, code: "invalid_field"},

		// fileId rules (spec §4 Rules 1-2, §5.3, Errors 400; DESIGN).
		{name: "general key without fileId", rule: "spec Rule 2 and Errors 400: general key without fileId",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: page("publish", true)} },
			status: 400, code: "file_id_required"},
		{name: "general key with empty fileId", rule: "decision: an empty fileId counts as absent",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: page("fileId", "")} },
			status: 400, code: "file_id_required"},
		{name: "general key with null fileId", rule: "decision: null counts as absent",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: page("fileId", nil)} },
			status: 400, code: "file_id_required"},
		{name: "general key, no fileId and no html", rule: "DESIGN order of checks: fileId rules before html",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: `{}`} },
			status: 400, code: "file_id_required"},
		{name: "general key, fileId spelt FileId", rule: "decision: field names match exactly",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: page("FileId", fx.file.ID)} },
			status: 400, code: "file_id_required"},
		{name: "page-bound key without fileId", rule: "spec Rule 1: a page-bound key without fileId uses its page",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.page), body: page("publish", true)} },
			status: 200, file: func() fileframe.File { return fx.file }},
		{name: "page-bound key with its own fileId", rule: "DESIGN: a page-bound key with its own fileId is accepted",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.page), body: page("fileId", fx.file.ID, "publish", true)}
			},
			status: 200, file: func() fileframe.File { return fx.file }},
		{name: "page-bound key with another file of its account", rule: "DESIGN: a page-bound key with another fileId is 400 file_id_not_allowed",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.page), body: page("fileId", fx.file2.ID)} },
			status: 400, code: "file_id_not_allowed"},
		{name: "page-bound key with another account's file", rule: "DESIGN order of checks: fileId rules (400) before file (404)",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.page), body: page("fileId", fx.otherFile.ID)} },
			status: 400, code: "file_id_not_allowed"},

		// File (spec Errors 404; DESIGN).
		{name: "unknown fileId", rule: "spec Errors 404: the file is not found",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: page("fileId", "f_doesnotexist00000")}
			},
			status: 404, code: "file_not_found"},
		{name: "another account's file", rule: "DESIGN: another account's file is not found, never 403",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: page("fileId", fx.otherFile.ID)} },
			status: 404, code: "file_not_found",
			check: func(t *testing.T, res apiResult) {
				if _, err := fx.e.store.PageByFile(context.Background(), fx.otherFile.ID); !fileframe.IsNotFound(err) {
					t.Errorf("the other account's file got a page: %v", err)
				}
			}},
		{name: "unknown fileId and no html", rule: "DESIGN order of checks: file (404) before html (400)",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: `{"fileId":"f_nope"}`} },
			status: 404, code: "file_not_found"},

		// html (spec §4, §2 requirements; DESIGN).
		{name: "html missing", rule: "spec §4: html is required",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: `{"fileId":"` + string(fx.file.ID) + `","publish":true}`}
			},
			status: 400, code: "html_required"},
		{name: "html null", rule: "decision: null counts as absent",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.page), body: `{"html":null}`} },
			status: 400, code: "html_required"},
		{name: "html empty", rule: "decision: an empty html counts as missing",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.page), body: `{"html":""}`} },
			status: 400, code: "html_required"},
		{name: "html spelt HTML", rule: "decision: field names match exactly",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.page), body: `{"HTML":"<html></html>"}`} },
			status: 400, code: "html_required"},
		{name: "html breaks a rule", rule: "spec §2 requirement 2 (inline JS); DESIGN: HTML rules are 422 with findings",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.page), body: jsonBody(t, map[string]any{"html": pageWithExternalScript, "publish": true})}
			},
			status: 422, code: "html_invalid",
			check: func(t *testing.T, res apiResult) {
				checkFindings(t, "errors", res.body["errors"])
				first := res.body["errors"].([]any)[0].(map[string]any)
				if first["rule"] != "inline.script" {
					t.Errorf("errors[0].rule: got %v, want inline.script", first["rule"])
				}
				if _, ok := res.body["warnings"].([]any); !ok {
					t.Errorf("warnings: got %v, want an array", res.body["warnings"])
				}
			}},
		{name: "html is a fragment", rule: "spec §2 requirement 1: one complete document",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.page), body: `{"html":"<p>just a paragraph</p>"}`}
			},
			status: 422, code: "html_invalid",
			check: func(t *testing.T, res apiResult) { checkFindings(t, "errors", res.body["errors"]) }},

		// Success (spec §4 response and Rules; §3 states; DESIGN response).
		{name: "publish true", rule: "spec Rule 3 and §3: publish true publishes",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: page("fileId", fx.file2.ID, "publish", true)}
			},
			status: 200, file: func() fileframe.File { return fx.file2 },
			check: func(t *testing.T, res apiResult) { wantPublished(t, res, true) }},
		{name: "publish omitted", rule: "spec §3: publish omitted stores a draft; DESIGN: previewUrl for drafts",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.general), body: page("fileId", fx.file2.ID)} },
			status: 200, file: func() fileframe.File { return fx.file2 },
			check: func(t *testing.T, res apiResult) { wantPublished(t, res, false) }},
		{name: "publish false", rule: "DESIGN: publish false behaves as omitted",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: page("fileId", fx.file2.ID, "publish", false)}
			},
			status: 200, file: func() fileframe.File { return fx.file2 },
			check: func(t *testing.T, res apiResult) { wantPublished(t, res, false) }},
		{name: "publish null", rule: "decision: publish null counts as omitted",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.general), body: page("fileId", fx.file2.ID, "publish", nil)}
			},
			status: 200, file: func() fileframe.File { return fx.file2 },
			check: func(t *testing.T, res apiResult) { wantPublished(t, res, false) }},
		{name: "warnings on success", rule: "DESIGN: warnings are returned but accepted",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.page), body: jsonBody(t, map[string]any{"html": pageWithWarning, "publish": true})}
			}, status: 200, file: func() fileframe.File { return fx.file },
			check: func(t *testing.T, res apiResult) {
				checkFindings(t, "warnings", res.body["warnings"])
				for _, w := range res.body["warnings"].([]any) {
					if rule, _ := w.(map[string]any)["rule"].(string); !strings.HasPrefix(rule, "hygiene.") {
						t.Errorf("warning rule %q, want hygiene.*", rule)
					}
				}
			}},
		{name: "no warnings is an empty array", rule: "decision: warnings is always an array",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.page), body: page("publish", true)} },
			status: 200, file: func() fileframe.File { return fx.file },
			check: func(t *testing.T, res apiResult) {
				if w, _ := res.body["warnings"].([]any); len(w) != 0 {
					t.Errorf("warnings: got %v, want []", res.body["warnings"])
				}
			}},
		{name: "unknown fields ignored", rule: "decision: unknown fields are ignored",
			req:    func() apiRequest { return apiRequest{auth: bearer(fx.page), body: page("theme", "dark", "title", 5)} },
			status: 200, file: func() fileframe.File { return fx.file }},
		{name: "duplicate field: the last counts", rule: "decision: duplicate names take the last value (encoding/json)",
			req: func() apiRequest {
				return apiRequest{auth: bearer(fx.page), body: `{"html":5,"publish":"yes",` + strings.TrimPrefix(page("publish", true), "{")}
			}, status: 200, file: func() fileframe.File { return fx.file }},

		// Other methods and paths (DESIGN codes method_not_allowed, not_found).
		{name: "GET", rule: "DESIGN code method_not_allowed: 405 with Allow: POST",
			req:    func() apiRequest { return apiRequest{method: http.MethodGet, auth: bearer(fx.general)} },
			status: 405, code: "method_not_allowed",
			check: func(t *testing.T, res apiResult) { wantHeader(t, res, "Allow", "POST") }},
		{name: "PUT", rule: "DESIGN code method_not_allowed",
			req:    func() apiRequest { return apiRequest{method: http.MethodPut, auth: bearer(fx.general), body: page()} },
			status: 405, code: "method_not_allowed",
			check: func(t *testing.T, res apiResult) { wantHeader(t, res, "Allow", "POST") }},
		{name: "unknown API path", rule: "every /api/ answer is problem+json",
			req: func() apiRequest {
				return apiRequest{path: "/api/campaign/custom-css", auth: bearer(fx.general), body: page()}
			},
			status: 404, code: "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("proves: %s", tt.rule)
			res := fx.send(t, tt.req())
			if tt.code == "" {
				checkSuccess(t, fx, res, tt.file())
			} else {
				checkProblem(t, res, tt.status, tt.code)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

func wantDetail(t *testing.T, res apiResult, substr string) {
	t.Helper()
	if d, _ := res.body["detail"].(string); !strings.Contains(d, substr) {
		t.Errorf("detail %q does not mention %q", d, substr)
	}
}

func wantPublished(t *testing.T, res apiResult, want bool) {
	t.Helper()
	if res.body["published"] != want {
		t.Errorf("published: got %v, want %v", res.body["published"], want)
	}
}

func wantHeader(t *testing.T, res apiResult, name, want string) {
	t.Helper()
	if got := res.resp.Header.Get(name); got != want {
		t.Errorf("%s: got %q, want %q", name, got, want)
	}
}

// TestAPIPublishTransitions follows one page through the spec's state table
// (§3): each stored POST of new HTML is the next revision; publish true
// makes it live, and any POST without it takes the page offline (DESIGN: "A
// POST without publish: true on a published page makes it a draft"). HTML
// equal to the latest revision's adds none, with the same transitions.
func TestAPIPublishTransitions(t *testing.T) {
	fx := newAPIFixture(t)
	steps := []struct {
		publish any // nil: omitted
		live    bool
	}{
		{true, true},
		{nil, false},
		{true, true},
		{false, false},
		{true, true},
		{true, true},
	}
	for i, st := range steps {
		fields := map[string]any{"html": strings.Replace(validPage, "</body>", fmt.Sprintf("<!-- %d --></body>", i), 1)}
		if st.publish != nil {
			fields["publish"] = st.publish
		}
		res := fx.post(t, fx.page, fields)
		checkSuccess(t, fx, res, fx.file) // also checks the stored live revision
		if got := int(res.body["revision"].(float64)); got != i+1 {
			t.Errorf("step %d: revision %d, want %d", i+1, got, i+1)
		}
		wantPublished(t, res, st.live)
		// The same HTML again, with the other publish: no new revision,
		// and the transition the second POST asks for.
		again := map[string]any{"html": fields["html"], "publish": !st.live}
		res = fx.post(t, fx.page, again)
		checkSuccess(t, fx, res, fx.file)
		if got := int(res.body["revision"].(float64)); got != i+1 {
			t.Errorf("step %d again: revision %d, want %d (no new revision for the same HTML)", i+1, got, i+1)
		}
		wantPublished(t, res, !st.live)
	}
}

// TestAPIKeyLastUsed checks DESIGN API keys: the last-used time is written
// at most once a minute.
func TestAPIKeyLastUsed(t *testing.T) {
	clock := newFakeClock()
	fx := newAPIFixture(t, func(c *Config) { c.Now = clock.Now })
	start := clock.Now()
	lastUsed := func() time.Time {
		t.Helper()
		keys, err := fx.e.store.KeysByAccount(context.Background(), fx.agency.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k.ID == fx.generalKey.ID {
				return k.LastUsedAt
			}
		}
		t.Fatal("key not listed")
		return time.Time{}
	}
	if got := lastUsed(); !got.IsZero() {
		t.Fatalf("a new key was used at %v", got)
	}
	body := map[string]any{"html": validPage, "fileId": fx.file.ID}

	checkSuccess(t, fx, fx.post(t, fx.general, body), fx.file)
	if got := lastUsed(); !got.Equal(start) {
		t.Errorf("after the first call: last used %v, want %v", got, start)
	}
	clock.Advance(30 * time.Second)
	checkSuccess(t, fx, fx.post(t, fx.general, body), fx.file)
	if got := lastUsed(); !got.Equal(start) {
		t.Errorf("30s later: last used %v, want it still %v", got, start)
	}
	clock.Advance(31 * time.Second)
	fx.post(t, fx.general, map[string]any{}) // a failed request uses the key too
	if got, want := lastUsed(), start.Add(61*time.Second); !got.Equal(want) {
		t.Errorf("61s later: last used %v, want %v", got, want)
	}
}

// TestAPIRateLimitPerKey checks the per-key limit (DESIGN Operations: 429
// with Retry-After) and its place in the order of checks.
func TestAPIRateLimitPerKey(t *testing.T) {
	clock := newFakeClock()
	fx := newAPIFixture(t, func(c *Config) {
		c.Now = clock.Now
		c.KeyRate, c.KeyBurst = 0.5, 3
	})
	body := map[string]any{"html": validPage}
	for i := range 3 {
		if res := fx.post(t, fx.page, body); res.resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d of the burst: status %d\n%s", i+1, res.resp.StatusCode, res.raw)
		}
	}
	res := fx.post(t, fx.page, body)
	checkProblem(t, res, http.StatusTooManyRequests, "rate_limited")
	if got := res.resp.Header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After: got %q, want 2 (one token at 0.5/s)", got)
	}

	// The limit is per key: another key of the same account still works.
	checkSuccess(t, fx, fx.post(t, fx.general, map[string]any{"html": validPage, "fileId": fx.file2.ID}), fx.file2)

	// Order of checks: 401 and 403 come before 429, 429 before 415.
	checkProblem(t, fx.send(t, apiRequest{auth: "Bearer nope", body: `{}`}), 401, "unauthorized")
	checkProblem(t, fx.send(t, apiRequest{auth: "Bearer " + fx.page, contentType: "text/plain", body: "x"}), 429, "rate_limited")

	clock.Advance(2 * time.Second)
	checkSuccess(t, fx, fx.post(t, fx.page, body), fx.file)
	checkProblem(t, fx.post(t, fx.page, body), 429, "rate_limited")
}

// TestAPIRateLimitPerIP checks the per-address limit: many keys from one
// address share it.
func TestAPIRateLimitPerIP(t *testing.T) {
	clock := newFakeClock()
	fx := newAPIFixture(t, func(c *Config) {
		c.Now = clock.Now
		c.IPRate, c.IPBurst = 0.1, 2
	})
	checkSuccess(t, fx, fx.post(t, fx.page, map[string]any{"html": validPage}), fx.file)
	checkSuccess(t, fx, fx.post(t, fx.general, map[string]any{"html": validPage, "fileId": fx.file2.ID}), fx.file2)
	res := fx.post(t, fx.otherGeneral, map[string]any{"html": validPage, "fileId": fx.otherFile.ID})
	checkProblem(t, res, http.StatusTooManyRequests, "rate_limited")
	if got := res.resp.Header.Get("Retry-After"); got != "10" {
		t.Errorf("Retry-After: got %q, want 10 (one token at 0.1/s)", got)
	}
	checkProblem(t, fx.send(t, apiRequest{auth: "Bearer " + fx.downgraded, body: `{}`}), 403, "plan_required")
}

// TestAPIInternalError checks that a 500 is problem+json with code internal
// and says nothing of its cause, which goes to the log with the request ID.
func TestAPIInternalError(t *testing.T) {
	fx := newAPIFixture(t)
	if err := fx.e.store.Close(); err != nil {
		t.Fatal(err)
	}
	res := fx.post(t, fx.general, map[string]any{"html": validPage, "fileId": fx.file.ID})
	checkProblem(t, res, http.StatusInternalServerError, "internal")
	if d := res.body["detail"]; d != internalDetail {
		t.Errorf("detail: got %v, want the generic %q", d, internalDetail)
	}
	body := strings.ToLower(string(res.raw))
	for _, leak := range []string{"sql", "closed", "database", "looking up", "api_keys"} {
		if strings.Contains(body, leak) {
			t.Errorf("500 body mentions %q: %s", leak, res.raw)
		}
	}
	logs := fx.e.logs.String()
	if !strings.Contains(logs, "api: internal error") || !strings.Contains(logs, "looking up API key") {
		t.Errorf("the cause was not logged:\n%s", logs)
	}
	if id, _ := res.body["requestId"].(string); !strings.Contains(logs, id) {
		t.Errorf("the log does not carry request ID %q:\n%s", id, logs)
	}
}

// sizedPage returns a valid document of exactly n bytes, padded with an
// HTML comment full of "<>", which JSON encoders commonly escape to six
// bytes each: the body is then far larger than the HTML, as DESIGN.md's
// body cap allows for.
func sizedPage(t *testing.T, n int) string {
	t.Helper()
	const head = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Big</title>\n</head>\n<body>\n<h1>Big page</h1>\n<!-- "
	const tail = " -->\n</body>\n</html>\n"
	pad := n - len(head) - len(tail)
	if pad < 0 {
		t.Fatalf("cannot make a page of %d bytes", n)
	}
	doc := head + strings.Repeat("<>", pad/2) + strings.Repeat("x", pad%2) + tail
	if len(doc) != n {
		t.Fatalf("page of %d bytes, want %d", len(doc), n)
	}
	return doc
}

// TestAPIHTMLSizeLimit checks DESIGN "Size": html of 1,048,576 bytes is
// accepted, one byte more is 413 html_too_large.
func TestAPIHTMLSizeLimit(t *testing.T) {
	fx := newAPIFixture(t)

	doc := sizedPage(t, htmlcheck.MaxSize)
	body := jsonBody(t, map[string]any{"html": doc, "publish": true})
	if len(body) < 4*htmlcheck.MaxSize {
		t.Fatalf("body of %d bytes: the escaping did not inflate it as meant", len(body))
	}
	res := fx.send(t, apiRequest{auth: "Bearer " + fx.page, body: body})
	checkSuccess(t, fx, res, fx.file)
	rev, err := fx.e.store.Revision(context.Background(), fx.file.ID, int(res.body["revision"].(float64)))
	if err != nil {
		t.Fatal(err)
	}
	if string(rev.HTML) != doc {
		t.Errorf("stored HTML of %d bytes differs from the %d bytes sent", len(rev.HTML), len(doc))
	}

	res = fx.post(t, fx.page, map[string]any{"html": sizedPage(t, htmlcheck.MaxSize+1), "publish": true})
	checkProblem(t, res, http.StatusRequestEntityTooLarge, "html_too_large")
	checkFindings(t, "errors", res.body["errors"])
	if rule := res.body["errors"].([]any)[0].(map[string]any)["rule"]; rule != "html.size" {
		t.Errorf("errors[0].rule: got %v, want html.size", rule)
	}
}

// countingReader yields an endless JSON-looking body and counts what was
// read from it.
type countingReader struct{ n atomic.Int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	if c.n.Load() == 0 && len(p) >= 9 {
		copy(p, `{"html":"`)
	}
	c.n.Add(int64(len(p)))
	return len(p), nil
}

// TestAPIBodyTooLarge sends a 40 MB body on a raw connection and checks
// DESIGN order of checks: 413 body_too_large "without reading past the cap".
// The client keeps writing until the server answers and closes; what it
// managed to write is bounded by the cap plus the socket buffers, far below
// 40 MB.
func TestAPIBodyTooLarge(t *testing.T) {
	const total = 40 << 20
	for _, tt := range []struct {
		name     string
		chunked  bool
		maxBytes int64
	}{
		// A declared Content-Length over the cap is refused before any of
		// the body is read.
		{name: "declared length", chunked: false, maxBytes: 4 << 20},
		// A chunked body is read up to the cap, then refused.
		{name: "chunked", chunked: true, maxBytes: maxCustomHTMLBody + 8<<20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newAPIFixture(t)
			conn, err := net.Dial("tcp", fx.e.app.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.(*net.TCPConn).SetWriteBuffer(64 << 10)
			conn.SetDeadline(time.Now().Add(60 * time.Second))
			framing := "Content-Length: " + strconv.Itoa(total)
			if tt.chunked {
				framing = "Transfer-Encoding: chunked"
			}
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n%s\r\n\r\n",
				customHTMLPath, fx.e.app.Listener.Addr(), fx.page, framing)

			src := &countingReader{}
			done := make(chan error, 1)
			go func() {
				var w io.Writer = conn
				if tt.chunked {
					w = httputil.NewChunkedWriter(conn)
				}
				_, err := io.Copy(w, io.LimitReader(src, total))
				done <- err
			}()

			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			conn.Close() // stop the writer if it is still going
			<-done
			written := src.n.Load()
			t.Logf("client wrote %d bytes of %d before the answer", written, total)

			var body map[string]any
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Fatalf("answer %d is not JSON: %v\n%s", resp.StatusCode, err, raw)
			}
			checkProblem(t, apiResult{resp: resp, raw: raw, body: body}, http.StatusRequestEntityTooLarge, "body_too_large")
			if !resp.Close {
				t.Error("the server did not close the connection after refusing the body")
			}
			if written >= tt.maxBytes {
				t.Errorf("the client wrote %d bytes before the refusal, want < %d", written, tt.maxBytes)
			}
		})
	}
}

// TestAPIConcurrentPosts sends 50 POSTs to one page at once and checks
// DESIGN: "each is atomic; the last to commit wins; no mixed state".
func TestAPIConcurrentPosts(t *testing.T) {
	fx := newAPIFixture(t)
	const n = 50
	docs := make([]string, n)
	revs := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		docs[i] = strings.Replace(validPage, "Spring launch</h1>", fmt.Sprintf("Spring launch %d</h1>", i), 1)
		body := jsonBody(t, map[string]any{"html": docs[i], "publish": true})
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodPost, fx.e.app.URL+customHTMLPath, strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Authorization", "Bearer "+fx.page)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var out customHTMLResponse
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || !out.Published {
				t.Errorf("request %d: status %d, %+v, %v", i, resp.StatusCode, out, err)
				return
			}
			revs[i] = out.Revision
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	seen := map[int]int{}
	for i, r := range revs {
		if j, dup := seen[r]; dup {
			t.Errorf("requests %d and %d both got revision %d", j, i, r)
		}
		seen[r] = i
		if r < 1 || r > n {
			t.Errorf("request %d got revision %d, want 1..%d", i, r, n)
		}
	}

	ctx := context.Background()
	page, err := fx.e.store.PageByFile(ctx, fx.file.ID)
	if err != nil {
		t.Fatal(err)
	}
	if page.LatestRevision != n || page.LiveRevision != n {
		t.Errorf("page: latest %d live %d, want both %d (the last to commit wins)", page.LatestRevision, page.LiveRevision, n)
	}
	// Every revision holds exactly the body of the request it answered, so
	// the live one is one whole request's HTML, byte for byte.
	for r, i := range seen {
		rev, err := fx.e.store.Revision(ctx, fx.file.ID, r)
		if err != nil {
			t.Fatalf("Revision %d: %v", r, err)
		}
		if string(rev.HTML) != docs[i] {
			t.Errorf("revision %d does not hold the HTML of request %d", r, i)
		}
	}
	live, err := fx.e.store.Revision(ctx, fx.file.ID, page.LiveRevision)
	if err != nil {
		t.Fatal(err)
	}
	matches := 0
	for _, d := range docs {
		if string(live.HTML) == d {
			matches++
		}
	}
	if matches != 1 {
		t.Errorf("the live HTML equals %d of the %d bodies, want exactly 1", matches, n)
	}
}

package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// apiJSON sends a JSON request with key and decodes the answer into out.
func (e *testEnv) apiJSON(key, method, path, body string, out any) int {
	e.t.Helper()
	req, err := http.NewRequest(method, e.app.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, raw := e.do(req)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			e.t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return resp.StatusCode
}

func TestAPIRequests(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()))
	owner := e.account(fileframe.PlanAgency)
	key, _ := e.key(owner, "")

	var created requestAnswer
	if got := e.apiJSON(key, http.MethodPost, "/api/requests",
		`{"title": "Invoices", "message": "March, please", "maxFiles": 2, "maxBytes": 1000, "expiresIn": "7d", "password": "s3cret!"}`, &created); got != http.StatusCreated {
		t.Fatalf("POST /api/requests: %d", got)
	}
	if !created.ID.Valid() || created.PublicURL != e.app.URL+"/r/"+created.Slug || created.State != "open" || !created.Password || created.ExpiresAt == nil {
		t.Errorf("created: %+v", created)
	}
	for body, code := range map[string]string{
		`{"title": "x"}`: "invalid_field",
		`{"title": "", "maxFiles": 1, "maxBytes": 1}`:                       "invalid_field",
		`{"title": "x", "maxFiles": 1001, "maxBytes": 1}`:                   "invalid_field",
		`{"title": "x", "maxFiles": 1, "maxBytes": 1, "zz": 1}`:             "invalid_field",
		`{"title": "x", "maxFiles": 1, "maxBytes": 1, "expiresIn": "soon"}`: "invalid_field",
	} {
		var p struct{ Code string }
		if got := e.apiJSON(key, http.MethodPost, "/api/requests", body, &p); got != http.StatusBadRequest || p.Code != code {
			t.Errorf("POST %s: %d %s, want 400 %s", body, got, p.Code, code)
		}
	}

	// Before anything came, files is there, empty: a script reading
	// d["files"] must not fail on a new request (twenty-first outside
	// attack).
	var fresh map[string]any
	if code := e.apiJSON(key, http.MethodGet, "/api/requests/"+string(created.ID), "", &fresh); code != http.StatusOK {
		t.Fatalf("GET /api/requests/{id}: %d", code)
	}
	if files, ok := fresh["files"].([]any); !ok || len(files) != 0 {
		t.Errorf("GET /api/requests/{id} of a new request: files %#v, want []", fresh["files"])
	}

	// A stranger sends a file; the API shows it unshared, then shares it.
	req, err := e.store.RequestByID(t.Context(), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.svc.AddFile(t.Context(), service.NewFile{Account: owner, Name: "march.pdf", Size: 3, Body: strings.NewReader("pdf"),
		From: &service.Sender{Request: req, Visit: "v", Name: "Ann"}}); err != nil {
		t.Fatal(err)
	}
	var got requestAnswer
	if code := e.apiJSON(key, http.MethodGet, "/api/requests/"+string(created.ID), "", &got); code != http.StatusOK ||
		len(got.Files) != 1 || got.Files[0].Shared || got.Files[0].SenderName != "Ann" || got.Received != 1 {
		t.Fatalf("GET /api/requests/{id}: %d %+v", code, got)
	}
	var shared fileAnswer
	if code := e.apiJSON(key, http.MethodPost, "/api/files/"+string(got.Files[0].ID)+"/share", "", &shared); code != http.StatusOK || !shared.Shared {
		t.Errorf("POST /api/files/{id}/share: %d %+v", code, shared)
	}
	var list requestList
	if code := e.apiJSON(key, http.MethodGet, "/api/requests", "", &list); code != http.StatusOK || len(list.Requests) != 1 {
		t.Errorf("GET /api/requests: %d %+v", code, list)
	}
	var closed requestAnswer
	if code := e.apiJSON(key, http.MethodPost, "/api/requests/"+string(created.ID)+"/close", "", &closed); code != http.StatusOK || closed.State != "closed" || closed.ClosedAt == nil {
		t.Errorf("close: %d %+v", code, closed)
	}

	// Another account's request, a malformed ID and a page-bound key.
	other := e.account(fileframe.PlanAgency)
	otherKey, _ := e.key(other, "")
	for _, path := range []string{"/api/requests/" + string(created.ID), "/api/requests/r_nope", "/api/requests/..%2Fx"} {
		var p struct{ Code string }
		if code := e.apiJSON(otherKey, http.MethodGet, path, "", &p); code != http.StatusNotFound || p.Code != "request_not_found" && p.Code != "not_found" {
			t.Errorf("GET %s by another account: %d %s, want 404", path, code, p.Code)
		}
	}
	f := e.file(owner, "page.txt", []byte("x"))
	pageKey, _ := e.key(owner, f.ID)
	var p struct{ Code string }
	if code := e.apiJSON(pageKey, http.MethodGet, "/api/requests", "", &p); code != http.StatusForbidden || p.Code != "key_scope" {
		t.Errorf("a page-bound key: %d %s, want 403 key_scope", code, p.Code)
	}
	var del deletedRequest
	if code := e.apiJSON(key, http.MethodDelete, "/api/requests/"+string(created.ID), "", &del); code != http.StatusOK || !del.Deleted {
		t.Errorf("DELETE: %d %+v", code, del)
	}
	if _, err := e.store.FileByID(t.Context(), shared.ID); err != nil {
		t.Errorf("the received file went with its request: %v", err)
	}
}

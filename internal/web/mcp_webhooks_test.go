package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestMCPWebhooks manages an endpoint through the webhook tools: each
// answers what its REST endpoint answers, a paused endpoint gets no
// delivery, and the refusals are the API's.
func TestMCPWebhooks(t *testing.T) {
	w := newWebhookEnv(t)
	e, rcv := w.testEnv, w.rcv
	cs := mustConnect(t, e, w.key)
	otherFile := e.file(w.other, "theirs.pdf", []byte("theirs"))

	created := toolOK(t, "create_webhook", callTool(t, cs, "create_webhook",
		map[string]any{"url": rcv.At("/m"), "events": []string{"file.created"}, "description": "agent"}))
	id, _ := created["webhookId"].(string)
	secret, _ := created["secret"].(string)
	if !fileframe.WebhookID(id).Valid() || !strings.HasPrefix(secret, "whsec_") || created["paused"] != false ||
		created["description"] != "agent" || created["fileId"] != nil || fmt.Sprint(created["events"]) != "[file.created]" {
		t.Fatalf("create_webhook: %v", created)
	}
	rcv.SetSecret("/m", secret)
	for name, args := range map[string]map[string]any{
		"empty events":             {"url": rcv.At("/x"), "events": []string{}},
		"unknown event":            {"url": rcv.At("/x"), "events": []string{"file.eaten"}},
		"not a URL":                {"url": "not a url"},
		"a description of 2 lines": {"url": rcv.At("/x"), "description": "one\ntwo"},
		// As in POST /api/webhooks: at most 20 names, and a description
		// of one line without invisible characters (the outside attack
		// of 26 November: these were taken here).
		"21 event names":           {"url": rcv.At("/x"), "events": slices.Repeat([]string{"file.created"}, 21)},
		"a line separator":         {"url": rcv.At("/x"), "description": "one\u2028two"},
		"a next line (U+0085)":     {"url": rcv.At("/x"), "description": "one\u0085two"},
		"a right-to-left override": {"url": rcv.At("/x"), "description": "\u202eMRC"},
		"a zero-width space":       {"url": rcv.At("/x"), "description": "C\u200bRM"},
	} {
		toolProblem(t, "create_webhook "+name, callTool(t, cs, "create_webhook", args), http.StatusBadRequest, fileframe.CodeInvalidField)
	}
	toolProblem(t, "create_webhook over ftp", callTool(t, cs, "create_webhook", map[string]any{"url": "ftp://x"}),
		http.StatusUnprocessableEntity, fileframe.CodeWebhookURLRefused)
	toolProblem(t, "create_webhook for another account's file", callTool(t, cs, "create_webhook",
		map[string]any{"url": rcv.At("/x"), "fileId": string(otherFile.ID)}), http.StatusNotFound, fileframe.CodeFileNotFound)

	// The answers are the REST API's.
	sameAsAPI := func(tool string, got map[string]any, path string) {
		t.Helper()
		var want map[string]any
		if code := e.apiJSON(w.key, http.MethodGet, path, "", &want); code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, code)
		}
		g, _ := json.Marshal(got)
		wnt, _ := json.Marshal(want)
		if string(g) != string(wnt) {
			t.Errorf("%s: %s\nGET %s: %s", tool, g, path, wnt)
		}
	}
	list := toolOK(t, "list_webhooks", callTool(t, cs, "list_webhooks", nil))
	sameAsAPI("list_webhooks", list, "/api/webhooks")
	if hooks := list["webhooks"].([]any); len(hooks) != 1 || hooks[0].(map[string]any)["secretPrefix"] != secret[:10]+"…" || hooks[0].(map[string]any)["secret"] != nil {
		t.Errorf("list_webhooks: %v", list)
	}

	// Paused, the endpoint gets no delivery; resumed, it gets the next.
	hook := map[string]any{"webhookId": id}
	paused := toolOK(t, "pause_webhook", callTool(t, cs, "pause_webhook", map[string]any{"webhookId": id, "paused": true}))
	if paused["paused"] != true || paused["webhookId"] != id {
		t.Errorf("pause_webhook: %v", paused)
	}
	sameAsAPI("pause_webhook", paused, "/api/webhooks/"+id)
	e.file(w.owner, "while-paused.pdf", []byte("paused"))
	if n := e.deliver(); n != 0 {
		t.Errorf("a paused endpoint: %d deliveries", n)
	}
	if resumed := toolOK(t, "pause_webhook", callTool(t, cs, "pause_webhook", map[string]any{"webhookId": id, "paused": false})); resumed["paused"] != false {
		t.Errorf("pause_webhook false: %v", resumed)
	}
	f := e.file(w.owner, "after.pdf", []byte("after"))
	if n := e.deliver(); n != 1 {
		t.Fatalf("after resuming: %d deliveries, want 1", n)
	}
	if got := rcv.Deliveries(); len(got) != 1 || got[0].Payload.Data["fileId"] != string(f.ID) {
		t.Fatalf("receiver got %+v, want file.created of %s only", got, f.ID)
	}

	log := toolOK(t, "list_deliveries", callTool(t, cs, "list_deliveries", hook))
	sameAsAPI("list_deliveries", log, "/api/webhooks/"+id+"/deliveries")
	ds := log["deliveries"].([]any)
	if len(ds) != 1 || ds[0].(map[string]any)["state"] != "delivered" {
		t.Fatalf("list_deliveries: %v", log)
	}
	delivery := ds[0].(map[string]any)["deliveryId"].(string)
	again := toolOK(t, "retry_delivery", callTool(t, cs, "retry_delivery", map[string]any{"webhookId": id, "deliveryId": delivery}))
	if d := again["delivery"].(map[string]any); d["deliveryId"] != delivery || d["state"] != "pending" {
		t.Errorf("retry_delivery: %v", again)
	}
	e.deliver()
	if got := rcv.Deliveries(); len(got) != 2 || got[1].ID != got[0].ID {
		t.Errorf("sent again: %d deliveries, want the same event twice", len(got))
	}
	if pr := rcv.Problems(); len(pr) > 0 {
		t.Errorf("signatures that did not verify: %q", pr)
	}

	// Another account's endpoint, and IDs that are not an endpoint's, are
	// webhook_not_found for every tool; arguments that do not fit the
	// schema are refused before the tool runs.
	other := mustConnect(t, e, w.otherKey)
	for _, tc := range []struct {
		name string
		cs   *mcp.ClientSession
		id   string
	}{
		{"another account's key", other, id},
		{"unknown", cs, "wh_AAAAAAAAAAAAAAAA"},
		{"upper case", cs, strings.ToUpper(id)},
		{"a slash", cs, id + "/deliveries"},
		{"dot segments", cs, id + "/../" + id},
		{"dots", cs, ".."},
		{"trailing dot", cs, id + "."},
		{"empty", cs, ""},
		{"a file's ID", cs, string(f.ID)},
		{"long", cs, "wh_" + strings.Repeat("a", 200)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for tool, args := range map[string]map[string]any{
				"pause_webhook":   {"webhookId": tc.id, "paused": true},
				"list_deliveries": {"webhookId": tc.id},
				"retry_delivery":  {"webhookId": tc.id, "deliveryId": delivery},
				"delete_webhook":  {"webhookId": tc.id},
			} {
				toolProblem(t, tool, callTool(t, tc.cs, tool, args), http.StatusNotFound, fileframe.CodeWebhookNotFound)
			}
		})
	}
	if h, err := e.store.WebhookByID(t.Context(), fileframe.WebhookID(id)); err != nil || !h.DisabledAt.IsZero() {
		t.Errorf("after the refused calls: %+v, %v; want it there, not paused", h, err)
	}
	for _, d := range []string{"dl_AAAAAAAAAAAAAAAA", strings.ToUpper(delivery), delivery + "/retry", ""} {
		toolProblem(t, "retry_delivery "+d, callTool(t, cs, "retry_delivery", map[string]any{"webhookId": id, "deliveryId": d}),
			http.StatusNotFound, fileframe.CodeDeliveryNotFound)
	}
	for name, args := range map[string]map[string]any{
		"paused as a string": {"webhookId": id, "paused": "true"},
		"paused as a number": {"webhookId": id, "paused": 1},
		"without paused":     {"webhookId": id},
		"an unknown field":   {"webhookId": id, "paused": true, "url": rcv.At("/y")},
		"webhookId a number": {"webhookId": 7, "paused": true},
	} {
		if res := callTool(t, cs, "pause_webhook", args); !res.IsError || res.StructuredContent != nil {
			t.Errorf("pause_webhook %s: %s", name, resultText(res))
		}
	}
	if res := callTool(t, cs, "create_webhook", map[string]any{"url": rcv.At("/y"), "events": "file.created"}); !res.IsError {
		t.Errorf("create_webhook with events a string: %s", resultText(res))
	}
	if h, _ := e.store.WebhookByID(t.Context(), fileframe.WebhookID(id)); !h.DisabledAt.IsZero() {
		t.Error("a refused pause_webhook paused the endpoint")
	}

	// A page-bound key gets key_scope from every tool, as from the API.
	pageKey, _ := e.key(w.owner, f.ID)
	page := mustConnect(t, e, pageKey)
	for tool, args := range map[string]map[string]any{
		"list_webhooks":   nil,
		"create_webhook":  {"url": rcv.At("/z")},
		"pause_webhook":   {"webhookId": id, "paused": true},
		"list_deliveries": hook,
		"retry_delivery":  {"webhookId": id, "deliveryId": delivery},
		"delete_webhook":  hook,
	} {
		toolProblem(t, tool, callTool(t, page, tool, args), http.StatusForbidden, fileframe.CodeKeyScope)
	}

	// An account not on Agency is refused before MCP, as by the API.
	freeKey, _ := e.key(e.account(fileframe.PlanFree), "")
	req, _ := http.NewRequest(http.MethodPost, e.app.URL+mcpPath, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_webhook","arguments":{"url":"`+rcv.At("/free")+`"}}}`))
	req.Header.Set("Authorization", "Bearer "+freeKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	var p struct{ Code string }
	if resp, body := e.do(req); resp.StatusCode != http.StatusForbidden || json.Unmarshal(body, &p) != nil || p.Code != fileframe.CodePlanRequired {
		t.Errorf("create_webhook with a Free account's key: %d %s", resp.StatusCode, body)
	}

	deleted := toolOK(t, "delete_webhook", callTool(t, cs, "delete_webhook", hook))
	if deleted["deleted"] != true || deleted["webhookId"] != id {
		t.Errorf("delete_webhook: %v", deleted)
	}
	toolProblem(t, "delete_webhook again", callTool(t, cs, "delete_webhook", hook), http.StatusNotFound, fileframe.CodeWebhookNotFound)
	if hooks, _ := e.store.WebhooksByAccount(t.Context(), w.owner.ID); len(hooks) != 0 {
		t.Errorf("after delete_webhook: %d endpoints; the refused calls made some", len(hooks))
	}
}

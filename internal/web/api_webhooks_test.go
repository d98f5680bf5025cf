package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/webhook"
	"github.com/fileframe/fileframe/internal/webhook/webhooktest"
)

// withPrivateWebhooks lets endpoints be on loopback (--webhook-private).
func withPrivateWebhooks(c *Config) {
	c.Webhooks = webhook.NewClient(webhook.ClientConfig{AllowPrivate: true})
}

// deliver runs one round of a delivery worker, as serve runs it, on the
// test server's store.
func (e *testEnv) deliver() int {
	e.t.Helper()
	base, _ := url.Parse(e.app.URL)
	w, err := webhook.NewWorker(webhook.WorkerConfig{Store: e.store, BaseURL: base,
		Client: webhook.NewClient(webhook.ClientConfig{AllowPrivate: true})})
	if err != nil {
		e.t.Fatal(err)
	}
	n, err := w.DeliverDue(e.t.Context())
	if err != nil {
		e.t.Fatalf("DeliverDue: %v", err)
	}
	return n
}

// webhookEnv is a test server that may deliver to loopback, a receiver,
// and two Agency accounts with a general key each.
type webhookEnv struct {
	*testEnv
	rcv           *webhooktest.Receiver
	owner, other  fileframe.Account
	key, otherKey string
}

func newWebhookEnv(t *testing.T) webhookEnv {
	t.Helper()
	e := newTestEnv(t, withPrivateWebhooks)
	w := webhookEnv{testEnv: e, rcv: webhooktest.NewReceiver(t), owner: e.account(fileframe.PlanAgency), other: e.account(fileframe.PlanAgency)}
	w.key, _ = e.key(w.owner, "")
	w.otherKey, _ = e.key(w.other, "")
	return w
}

func TestAPIWebhooks(t *testing.T) {
	w := newWebhookEnv(t)
	e, rcv, owner, other, key, otherKey := w.testEnv, w.rcv, w.owner, w.other, w.key, w.otherKey
	otherFile := e.file(other, "theirs.pdf", []byte("theirs"))

	var created webhookCreated
	if got := e.apiJSON(key, http.MethodPost, "/api/webhooks",
		`{"url": "`+rcv.At("/a")+`", "events": ["page.published", "file.created"], "description": "CRM"}`, &created); got != http.StatusCreated {
		t.Fatalf("POST /api/webhooks: %d", got)
	}
	if !created.ID.Valid() || !strings.HasPrefix(created.Secret, "whsec_") || created.URL != rcv.At("/a") || created.FileID != nil ||
		strings.Join(evs(created.Events), ",") != "file.created,page.published" || created.Description != "CRM" || created.Paused {
		t.Errorf("created: %+v", created)
	}
	rcv.SetSecret("/a", created.Secret)

	// Another account's file is not found, as a missing one; so are its
	// endpoints, for every operation.
	var p struct{ Code string }
	if got := e.apiJSON(key, http.MethodPost, "/api/webhooks", `{"url": "`+rcv.At("/b")+`", "fileId": "`+string(otherFile.ID)+`"}`, &p); got != http.StatusNotFound || p.Code != "file_not_found" {
		t.Errorf("POST with another account's fileId: %d %s, want 404 file_not_found", got, p.Code)
	}
	for _, tc := range []struct{ method, path string }{
		{http.MethodDelete, "/api/webhooks/" + string(created.ID)},
		{http.MethodGet, "/api/webhooks/" + string(created.ID) + "/deliveries"},
		{http.MethodPost, "/api/webhooks/" + string(created.ID) + "/deliveries/dl_AAAAAAAAAAAAAAAA/retry"},
	} {
		if got := e.apiJSON(otherKey, tc.method, tc.path, "", &p); got != http.StatusNotFound || p.Code != "webhook_not_found" {
			t.Errorf("%s %s with another account's key: %d %s, want 404 webhook_not_found", tc.method, tc.path, got, p.Code)
		}
	}
	var list webhookList
	if e.apiJSON(otherKey, http.MethodGet, "/api/webhooks", "", &list); len(list.Webhooks) != 0 {
		t.Errorf("another account lists %+v", list.Webhooks)
	}
	// Malformed requests, a page-bound key, another plan.
	for body, code := range map[string]string{
		`{}`: "invalid_field",
		`{"url": "` + rcv.At("/c") + `", "events": ["file.eaten"]}`: "invalid_field",
		`{"url": "` + rcv.At("/c") + `", "events": []}`:             "invalid_field",
		`{"url": "` + rcv.At("/c") + `", "secret": "mine"}`:         "invalid_field",
		`{"url": "not a url"}`:                                      "invalid_field",
	} {
		if got := e.apiJSON(key, http.MethodPost, "/api/webhooks", body, &p); got != http.StatusBadRequest || p.Code != code {
			t.Errorf("POST %s: %d %s, want 400 %s", body, got, p.Code, code)
		}
	}
	f := e.file(owner, "brochure.pdf", []byte("%PDF-1.4"))
	pageKey, _ := e.key(owner, f.ID)
	if got := e.apiJSON(pageKey, http.MethodGet, "/api/webhooks", "", &p); got != http.StatusForbidden || p.Code != "key_scope" {
		t.Errorf("GET /api/webhooks with a page-bound key: %d %s, want 403 key_scope", got, p.Code)
	}
	freeKey, _ := e.key(e.account(fileframe.PlanFree), "")
	if got := e.apiJSON(freeKey, http.MethodGet, "/api/webhooks", "", &p); got != http.StatusForbidden || p.Code != "plan_required" {
		t.Errorf("GET /api/webhooks on Free: %d %s, want 403 plan_required", got, p.Code)
	}

	// The file made above was an event: a worker delivers it, signed.
	if n := e.deliver(); n != 1 {
		t.Fatalf("delivered %d, want 1 (file.created)", n)
	}
	got := rcv.Deliveries()
	if len(got) != 1 || got[0].Payload.Type != "file.created" || got[0].Payload.Data["publicUrl"] != e.app.URL+"/f/"+f.Slug {
		t.Fatalf("receiver got %+v", got)
	}
	var log deliveryList
	if code := e.apiJSON(key, http.MethodGet, "/api/webhooks/"+string(created.ID)+"/deliveries", "", &log); code != http.StatusOK || len(log.Deliveries) != 1 {
		t.Fatalf("GET deliveries: %d %+v", code, log)
	}
	d := log.Deliveries[0]
	if d.State != "delivered" || d.Attempts != 1 || d.LastStatus == nil || *d.LastStatus != 204 || string(d.EventID) != got[0].ID || d.FileID != f.ID {
		t.Errorf("delivery: %+v", d)
	}
	var again retriedDelivery
	if code := e.apiJSON(key, http.MethodPost, "/api/webhooks/"+string(created.ID)+"/deliveries/"+string(d.ID)+"/retry", "", &again); code != http.StatusOK || again.Delivery.State != "pending" {
		t.Errorf("retry: %d %+v", code, again)
	}
	e.deliver()
	if got := rcv.Deliveries(); len(got) != 2 || got[1].ID != got[0].ID || string(got[1].Body) != string(got[0].Body) {
		t.Errorf("sent again: %d deliveries, want the same event twice", len(got))
	}
	if pr := rcv.Problems(); len(pr) > 0 {
		t.Errorf("signatures that did not verify: %q", pr)
	}
	if e.apiJSON(key, http.MethodGet, "/api/webhooks", "", &list); len(list.Webhooks) != 1 || list.Webhooks[0].SecretPrefix != created.Secret[:10]+"…" {
		t.Errorf("list: %+v", list.Webhooks)
	}
	var del deletedWebhook
	if code := e.apiJSON(key, http.MethodDelete, "/api/webhooks/"+string(created.ID), "", &del); code != http.StatusOK || !del.Deleted {
		t.Errorf("DELETE: %d %+v", code, del)
	}
	if code := e.apiJSON(key, http.MethodGet, "/api/webhooks/"+string(created.ID)+"/deliveries", "", &p); code != http.StatusNotFound {
		t.Errorf("deliveries of a deleted webhook: %d", code)
	}
}

func evs(ts []fileframe.EventType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

// TestAPIWebhookSSRF: without --webhook-private, endpoints on loopback,
// private or link-local addresses, or over http, are refused.
func TestAPIWebhookSSRF(t *testing.T) {
	e := newTestEnv(t)
	key, _ := e.key(e.account(fileframe.PlanAgency), "")
	for _, u := range []string{
		"http://hooks.example.com/x", "https://127.0.0.1/hook", "https://[::1]:8443/hook", "https://10.1.2.3/hook",
		"https://172.16.0.1/hook", "https://169.254.169.254/latest/meta-data/", "https://localhost/hook",
		"https://0x7f000001/hook",
	} {
		var p struct{ Code, Detail string }
		if got := e.apiJSON(key, http.MethodPost, "/api/webhooks", `{"url": "`+u+`"}`, &p); got != http.StatusUnprocessableEntity || p.Code != "webhook_url_refused" {
			t.Errorf("POST %s: %d %s (%s), want 422 webhook_url_refused", u, got, p.Code, p.Detail)
		}
	}
}

var newSecretField = regexp.MustCompile(`id="new-secret" type="text" readonly value="(whsec_[^"]+)"`)

func TestAppWebhooks(t *testing.T) {
	e := newTestEnv(t, withPrivateWebhooks)
	rcv := webhooktest.NewReceiver(t)
	rcv.Respond(func(webhooktest.Delivery, int) int { return http.StatusServiceUnavailable })
	a := e.member("a@example.com", fileframe.PlanAgency)
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	resp, body := b.get("/webhooks")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Add endpoint") || !strings.Contains(body, `href="/webhooks" aria-current="page"`) {
		t.Fatalf("GET /webhooks: %d\n%s", resp.StatusCode, body)
	}
	csrf := b.token("/webhooks")
	resp, body = b.post("/webhooks", url.Values{"csrf": {csrf}, "url": {"https://127.0.0.1:1/"}, "events": {"file.created"}})
	if resp.StatusCode != http.StatusOK {
		// With --webhook-private, loopback is allowed: the form takes it.
		t.Fatalf("POST /webhooks (loopback, private allowed): %d\n%s", resp.StatusCode, body)
	}
	resp, body = b.post("/webhooks", url.Values{"csrf": {csrf}, "url": {"ftp://x"}, "events": {"file.created"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "endpoints must use https") {
		t.Errorf("POST /webhooks with ftp: %d", resp.StatusCode)
	}
	resp, body = b.post("/webhooks", url.Values{"csrf": {csrf}, "url": {rcv.At("/app")}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Tick at least one event") {
		t.Errorf("POST /webhooks without events: %d", resp.StatusCode)
	}
	resp, body = b.post("/webhooks", url.Values{"csrf": {csrf}, "url": {rcv.At("/app")}, "events": {"file.created", "link.expired"}, "description": {"Zapier"}})
	m := newSecretField.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("POST /webhooks: %d, no secret on the page\n%s", resp.StatusCode, body)
	}
	secret := html.UnescapeString(m[1])
	rcv.SetSecret("/app", secret)
	assertAppHeaders(t, resp)
	_, body = b.get("/webhooks")
	// Unescaped: html/template writes a "+" of the base64 secret as "&#43;".
	if text := html.UnescapeString(body); strings.Contains(text, secret) || !strings.Contains(text, secret[:10]+"…") || !strings.Contains(text, "Zapier") {
		t.Errorf("the list shows the whole secret, or not its prefix")
	}
	hooks, _ := e.store.WebhooksByAccount(t.Context(), a.ID)
	hook := hooks[0]
	e.file(a, "deck.pdf", []byte("deck"))
	e.deliver()
	_, body = b.get("/webhooks/" + string(hook.ID))
	if !strings.Contains(body, "file.created") || !strings.Contains(body, "HTTP 503") || !strings.Contains(body, "Send again") || !strings.Contains(body, "pending") {
		t.Fatalf("the delivery log lacks the failed attempt:\n%s", body)
	}
	list, _ := e.store.Deliveries(t.Context(), hook.ID, 10)
	resp, _ = b.post("/webhooks/"+string(hook.ID)+"/deliveries/"+string(list[0].ID)+"/retry", url.Values{"csrf": {csrf}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/webhooks/"+string(hook.ID)+"?done=retried" {
		t.Errorf("Send again: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	rcv.Respond(func(webhooktest.Delivery, int) int { return http.StatusOK })
	e.deliver()
	_, body = b.get("/webhooks/" + string(hook.ID))
	if !strings.Contains(body, "delivered") {
		t.Errorf("the log does not show the delivery after Send again:\n%s", body)
	}
	if pr := rcv.Problems(); len(pr) > 0 {
		t.Errorf("signatures that did not verify: %q", pr)
	}
	// Pause and delete.
	resp, _ = b.post("/webhooks/"+string(hook.ID)+"/pause", url.Values{"csrf": {csrf}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("pause: %d", resp.StatusCode)
	}
	if h, _ := e.store.WebhookByID(t.Context(), hook.ID); h.DisabledAt.IsZero() {
		t.Error("not paused")
	}
	resp, _ = b.post("/webhooks/"+string(hook.ID)+"/delete", url.Values{"csrf": {csrf}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("delete: %d", resp.StatusCode)
	}
	if _, err := e.store.WebhookByID(t.Context(), hook.ID); !fileframe.IsNotFound(err) {
		t.Errorf("after delete: %v", err)
	}
	// Another account sees none of it.
	e.member("b@example.com", fileframe.PlanAgency)
	other := newAppBrowser(e)
	other.login("b@example.com", testPassword)
	if resp, _ := other.get("/webhooks/" + string(hooks[1].ID)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another account's log: %d, want 404", resp.StatusCode)
	}
	// Free: the page explains the plan.
	e.member("free@example.com", fileframe.PlanFree)
	free := newAppBrowser(e)
	free.login("free@example.com", testPassword)
	if _, body := free.get("/webhooks"); !strings.Contains(body, "Webhooks come with the Agency plan") {
		t.Errorf("the Free account's page does not explain the plan")
	}
}

// TestAPIWebhookPause reads one endpoint (GET /api/webhooks/{id}) and
// pauses and resumes it (PATCH): a paused endpoint gets no new events and
// its pending deliveries wait; resumed, the waiting ones are sent. Every
// refusal leaves the endpoint as it was.
func TestAPIWebhookPause(t *testing.T) {
	w := newWebhookEnv(t)
	e, rcv, owner, key, otherKey := w.testEnv, w.rcv, w.owner, w.key, w.otherKey
	req, _ := http.NewRequest(http.MethodPost, e.app.URL+"/api/webhooks", strings.NewReader(`{"url": "`+rcv.At("/p")+`", "events": ["file.created"], "description": "ops"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, raw := e.do(req)
	var created webhookCreated
	if err := json.Unmarshal(raw, &created); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/webhooks: %d %s", resp.StatusCode, raw)
	}
	rcv.SetSecret("/p", created.Secret)
	path := "/api/webhooks/" + string(created.ID)
	if got := resp.Header.Get("Location"); got != path {
		t.Errorf("Location: %q, want %q", got, path)
	}

	var one map[string]any
	if got := e.apiJSON(key, http.MethodGet, path, "", &one); got != http.StatusOK {
		t.Fatalf("GET %s: %d", path, got)
	}
	if one["ok"] != true || one["webhookId"] != string(created.ID) || one["paused"] != false || one["description"] != "ops" ||
		one["secretPrefix"] != created.SecretPrefix || one["secret"] != nil {
		t.Errorf("GET %s: %v", path, one)
	}

	// An event before the pause waits; one during it is not written.
	before := e.file(owner, "before.pdf", []byte("before"))
	var paused webhookAnswer
	if got := e.apiJSON(key, http.MethodPatch, path, `{"paused": true}`, &paused); got != http.StatusOK || !paused.OK || !paused.Paused || paused.ID != created.ID {
		t.Fatalf("PATCH paused true: %d %+v", got, paused)
	}
	e.file(owner, "during.pdf", []byte("during"))
	if n := e.deliver(); n != 0 || len(rcv.Deliveries()) != 0 {
		t.Errorf("a paused endpoint got %d deliveries (receiver: %d)", n, len(rcv.Deliveries()))
	}
	var list webhookList
	if e.apiJSON(key, http.MethodGet, "/api/webhooks", "", &list); len(list.Webhooks) != 1 || !list.Webhooks[0].Paused {
		t.Errorf("the list after pausing: %+v", list.Webhooks)
	}
	// Pausing twice leaves it paused.
	if got := e.apiJSON(key, http.MethodPatch, path, `{"paused": true}`, &paused); got != http.StatusOK || !paused.Paused {
		t.Errorf("PATCH paused true again: %d %+v", got, paused)
	}

	isPaused := func(what string, want bool) {
		t.Helper()
		if h, err := e.store.WebhookByID(t.Context(), created.ID); err != nil || h.DisabledAt.IsZero() == want {
			t.Errorf("after %s: paused %v (%v), want %v", what, !h.DisabledAt.IsZero(), err, want)
		}
	}
	var p struct{ Code, Detail string }
	for _, body := range []string{
		`{}`, `{"paused": null}`, `{"paused": "false"}`, `{"paused": 0}`, `{"paused": [false]}`, `{"paused": {}}`,
		`{"Paused": false}`, `{"paused": false, "url": "` + rcv.At("/q") + `"}`, `{"paused": false, "events": []}`,
	} {
		if got := e.apiJSON(key, http.MethodPatch, path, body, &p); got != http.StatusBadRequest || p.Code != "invalid_field" {
			t.Errorf("PATCH %s: %d %s, want 400 invalid_field", body, got, p.Code)
		}
		isPaused("PATCH "+body, true)
	}
	for _, body := range []string{`false`, `[{"paused": false}]`, `{"paused": false`, `null`} {
		if got := e.apiJSON(key, http.MethodPatch, path, body, &p); got != http.StatusBadRequest || p.Code != "invalid_json" {
			t.Errorf("PATCH %s: %d %s, want 400 invalid_json", body, got, p.Code)
		}
	}
	patch := func(contentType, body string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPatch, e.app.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", contentType)
		return e.do(req)
	}
	if resp, body := patch("text/plain", `{"paused": false}`); resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("PATCH as text/plain: %d %s", resp.StatusCode, body)
	}
	isPaused("the refused bodies", true)

	// Resumed (here as a merge patch), the waiting delivery goes out; the
	// event of the pause never was.
	if resp, body := patch("application/merge-patch+json", `{"paused": false}`); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"paused":false`) {
		t.Fatalf("PATCH paused false (merge patch): %d %s", resp.StatusCode, body)
	}
	if n := e.deliver(); n != 1 {
		t.Errorf("after resuming: %d deliveries, want the one that waited", n)
	}
	if got := rcv.Deliveries(); len(got) != 1 || got[0].Payload.Data["fileId"] != string(before.ID) {
		t.Errorf("receiver got %+v, want file.created of %s only", got, before.ID)
	}
	if pr := rcv.Problems(); len(pr) > 0 {
		t.Errorf("signatures that did not verify: %q", pr)
	}

	// Refusals: another account's endpoint, malformed IDs, other keys.
	freeKey, _ := e.key(e.account(fileframe.PlanFree), "")
	proKey, _ := e.key(e.account(fileframe.PlanPro), "")
	pageKey, _ := e.key(owner, before.ID)
	for _, tc := range []struct{ name, key, id, code string }{
		{"another account's key", otherKey, string(created.ID), "webhook_not_found"},
		{"unknown", key, "wh_AAAAAAAAAAAAAAAA", "webhook_not_found"},
		{"upper case", key, strings.ToUpper(string(created.ID)), "webhook_not_found"},
		{"upper-case prefix", key, "WH" + string(created.ID)[2:], "webhook_not_found"},
		{"encoded slash", key, string(created.ID) + "%2Fdeliveries", "webhook_not_found"},
		{"dot segments", key, string(created.ID) + "%2F..%2F" + string(created.ID), "webhook_not_found"},
		{"encoded dots", key, "%2E%2E", "webhook_not_found"},
		{"trailing dot", key, string(created.ID) + ".", "webhook_not_found"},
		{"a file's ID", key, string(before.ID), "webhook_not_found"},
		{"non-ASCII", key, "wh_ǅ" + string(created.ID)[4:], "webhook_not_found"},
		{"long", key, "wh_" + strings.Repeat("a", 200), "webhook_not_found"},
		{"Free plan", freeKey, string(created.ID), "plan_required"},
		{"Pro plan", proKey, string(created.ID), "plan_required"},
		{"page-bound key", pageKey, string(created.ID), "key_scope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := http.StatusNotFound
			if tc.code != "webhook_not_found" {
				want = http.StatusForbidden
			}
			for _, method := range []string{http.MethodGet, http.MethodPatch} {
				p.Code = ""
				if got := e.apiJSON(tc.key, method, "/api/webhooks/"+tc.id, `{"paused": true}`, &p); got != want || p.Code != tc.code {
					t.Errorf("%s /api/webhooks/%s: %d %s, want %d %s", method, tc.id, got, p.Code, want, tc.code)
				}
			}
			isPaused(tc.name, false)
		})
	}

	req, _ = http.NewRequest(http.MethodPut, e.app.URL+path, strings.NewReader(`{"paused": true}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	if resp, _ := e.do(req); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, PATCH, DELETE, HEAD" {
		t.Errorf("PUT %s: %d, Allow %q", path, resp.StatusCode, resp.Header.Get("Allow"))
	}
}

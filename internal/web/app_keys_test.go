package web

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

var newKeyField = regexp.MustCompile(`id="new-key" type="text" readonly value="(ffk_[0-9A-Za-z]+)"`)

// apiStatus posts a valid page for file with the key through the real API
// and returns the status.
func (e *testEnv) apiStatus(secret string, file fileframe.FileID) int {
	e.t.Helper()
	body := jsonBody(e.t, map[string]any{"fileId": file, "publish": true, "html": validPage})
	req, err := http.NewRequest(http.MethodPost, e.app.URL+"/api/campaign/custom-html", strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, _ := e.do(req)
	return resp.StatusCode
}

// createKeyInApp creates a general key through the page and returns it.
func createKeyInApp(t *testing.T, b *appBrowser, form url.Values) (string, string) {
	t.Helper()
	form.Set("csrf", b.token("/keys"))
	resp, body := b.post("/keys", form)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /keys: got %d, want 200:\n%s", resp.StatusCode, body)
	}
	assertAppHeaders(t, resp)
	m := newKeyField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("POST /keys: no new key on the page:\n%s", body)
	}
	return m[1], body
}

func TestAppKeysCreateUseRevoke(t *testing.T) {
	e := newTestEnv(t)
	a := e.member("a@example.com", fileframe.PlanAgency)
	f := e.file(a, "brochure.pdf", []byte("%PDF-1.4 hello"))
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)

	resp, body := b.get("/keys")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Create API key") || !strings.Contains(body, `href="/keys"`) {
		t.Fatalf("GET /keys: got %d, want the create button and the nav link:\n%s", resp.StatusCode, body)
	}
	secret, body := createKeyInApp(t, b, url.Values{"name": {"Campaign agent"}, "expires": {"90"}})
	if len(secret) != 44 || !strings.HasPrefix(secret, "ffk_") {
		t.Errorf("new key: got %q, want ffk_ and 44 characters", secret)
	}
	curl := html.UnescapeString(body)
	for _, want := range []string{
		"Copy this key now — it won't be shown again",
		"curl -sS " + e.app.URL + "/api/campaign/custom-html",
		"Authorization: Bearer " + secret,
		`"fileId": "FILE_ID", "publish": true`,
	} {
		if !strings.Contains(curl, want) {
			t.Errorf("the page after create lacks %q", want)
		}
	}
	keys, err := e.store.KeysByAccount(context.Background(), a.ID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("KeysByAccount: got %d keys, %v; want 1", len(keys), err)
	}
	k := keys[0]
	if k.Name != "Campaign agent" || k.Kind != fileframe.KeyGeneral || k.ExpiresAt.IsZero() {
		t.Errorf("stored key: got %+v, want a general key named Campaign agent that expires", k)
	}
	if got := e.apiStatus(secret, f.ID); got != http.StatusOK {
		t.Fatalf("API with the new key: got %d, want 200", got)
	}

	resp, body = b.get("/keys")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /keys: got %d", resp.StatusCode)
	}
	if strings.Contains(body, secret) || strings.Contains(body, "won't be shown again") {
		t.Errorf("the list shows the secret again")
	}
	for _, want := range []string{"Campaign agent", "General", k.Prefix + "…", "active", "/keys/" + string(k.ID) + "/revoke"} {
		if !strings.Contains(body, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	if strings.Contains(body, ">never</td>\n<td>never") {
		t.Errorf("the key was used but shows last used never")
	}

	// Another account cannot revoke it.
	e.member("b@example.com", fileframe.PlanAgency)
	other := newAppBrowser(e)
	other.login("b@example.com", testPassword)
	resp, _ = other.post("/keys/"+string(k.ID)+"/revoke", url.Values{"csrf": {other.token("/keys")}})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("revoke of another account's key: got %d, want 404", resp.StatusCode)
	}
	resp, _ = b.post("/keys/k_unknown/revoke", url.Values{"csrf": {b.token("/keys")}})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("revoke of an unknown key: got %d, want 404", resp.StatusCode)
	}
	if got := e.apiStatus(secret, f.ID); got != http.StatusOK {
		t.Fatalf("API after the refused revokes: got %d, want 200", got)
	}

	// Without a CSRF token nothing happens.
	resp, _ = b.post("/keys/"+string(k.ID)+"/revoke", url.Values{})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("revoke without CSRF: got %d, want 403", resp.StatusCode)
	}
	if got := e.apiStatus(secret, f.ID); got != http.StatusOK {
		t.Fatalf("API after a revoke without CSRF: got %d, want 200", got)
	}

	resp, body = b.post("/keys/"+string(k.ID)+"/revoke", url.Values{"csrf": {b.token("/keys")}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/keys?revoked=1" {
		t.Fatalf("revoke: got %d %q, want 303 to /keys?revoked=1:\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if got := e.apiStatus(secret, f.ID); got != http.StatusUnauthorized {
		t.Errorf("API right after revoke: got %d, want 401", got)
	}
	_, body = b.get(resp.Header.Get("Location"))
	if !strings.Contains(body, "The key was revoked.") || !strings.Contains(body, ">revoked</span>") {
		t.Errorf("the list after revoke lacks the notice or the revoked status:\n%s", body)
	}
}

func TestAppKeysDefaultName(t *testing.T) {
	e := newTestEnv(t)
	a := e.member("a@example.com", fileframe.PlanAgency)
	e.key(a, "")
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	createKeyInApp(t, b, url.Values{})
	keys, err := e.store.KeysByAccount(context.Background(), a.ID)
	if err != nil || len(keys) != 2 {
		t.Fatalf("KeysByAccount: got %d, %v; want 2", len(keys), err)
	}
	var names []string
	for _, k := range keys {
		names = append(names, k.Name)
		if k.Name == "API key 2" && !k.ExpiresAt.IsZero() {
			t.Errorf("default expiry: got %v, want never", k.ExpiresAt)
		}
	}
	if !strings.Contains(strings.Join(names, ","), "API key 2") {
		t.Errorf("names: got %q, want one named API key 2", names)
	}
	for _, tt := range []struct {
		name string
		form url.Values
		want string
	}{
		{"bad expiry", url.Values{"expires": {"7"}}, "Choose when the key expires"},
		{"long name", url.Values{"name": {strings.Repeat("n", 101)}}, "at most 100 characters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.form.Set("csrf", b.token("/keys"))
			resp, body := b.post("/keys", tt.form)
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tt.want) {
				t.Errorf("got %d, want 422 with %q:\n%s", resp.StatusCode, tt.want, body)
			}
		})
	}
}

func TestAppKeysCSRF(t *testing.T) {
	e := newTestEnv(t)
	a := e.member("a@example.com", fileframe.PlanAgency)
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	for _, tok := range []string{"", strings.Repeat("A", 43)} {
		form := url.Values{"name": {"x"}}
		if tok != "" {
			form.Set("csrf", tok)
		}
		resp, body := b.post("/keys", form)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "This form expired.") {
			t.Errorf("create with token %q: got %d, want 403", tok, resp.StatusCode)
		}
	}
	resp, _ := b.post("/keys", url.Values{"csrf": {b.token("/keys")}}, "Sec-Fetch-Site", "cross-site")
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site create: got %d, want 403", resp.StatusCode)
	}
	if keys, _ := e.store.KeysByAccount(context.Background(), a.ID); len(keys) != 0 {
		t.Errorf("a rejected form made %d keys", len(keys))
	}
	// Signed out: to the sign-in page, nothing made.
	resp, _ = newAppBrowser(e).get("/keys")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("GET /keys signed out: got %d %q, want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestAppKeysNotAgency(t *testing.T) {
	for _, plan := range []fileframe.Plan{fileframe.PlanFree, fileframe.PlanPro} {
		t.Run(string(plan), func(t *testing.T) {
			e := newTestEnv(t)
			a := e.member("a@example.com", plan)
			b := newAppBrowser(e)
			b.login("a@example.com", testPassword)
			resp, body := b.get("/keys")
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, "API keys come with the Agency plan") {
				t.Fatalf("GET /keys: got %d, want the Agency explanation:\n%s", resp.StatusCode, body)
			}
			if strings.Contains(body, "Create API key") || strings.Contains(body, `action="/keys"`) {
				t.Errorf("a %s account is offered the create button", plan)
			}
			resp, body = b.post("/keys", url.Values{"csrf": {b.token("/keys")}})
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "not on the Agency plan") {
				t.Errorf("POST /keys: got %d, want 403 with the plan message:\n%s", resp.StatusCode, body)
			}
			keys, err := e.store.KeysByAccount(context.Background(), a.ID)
			if err != nil || len(keys) != 0 {
				t.Errorf("KeysByAccount: got %d, %v; want none", len(keys), err)
			}
		})
	}
}

func TestAppKeysListStates(t *testing.T) {
	e := newTestEnv(t)
	a := e.member("a@example.com", fileframe.PlanAgency)
	f := e.file(a, "spring-offer.zip", []byte("zip"))
	ctx := context.Background()
	_, bound := e.key(a, f.ID)
	_, hash, prefix := fileframe.NewKeySecret(fileframe.KeyGeneral)
	past := time.Now().Add(-48 * time.Hour)
	if _, err := e.store.CreateKey(ctx, fileframe.Key{
		AccountID: a.ID, Kind: fileframe.KeyGeneral, Name: "old agent", Hash: hash, Prefix: prefix,
		CreatedAt: past.Add(-time.Hour), ExpiresAt: past,
	}); err != nil {
		t.Fatal(err)
	}
	b := newAppBrowser(e)
	b.login("a@example.com", testPassword)
	resp, body := b.get("/keys")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /keys: got %d", resp.StatusCode)
	}
	for _, want := range []string{
		"Page-bound", "spring-offer.zip", "<code>" + string(f.ID) + "</code>", bound.Prefix + "…",
		"old agent", ">expired</span>", past.UTC().Format("2006-01-02 15:04 UTC"), "<th scope=\"col\">Last used</th>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	if strings.Count(body, "/revoke\"") != 1 {
		t.Errorf("revoke buttons: got %d, want 1 (only the active key)", strings.Count(body, "/revoke\""))
	}
}

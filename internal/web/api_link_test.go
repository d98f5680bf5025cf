package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
)

// withFastPasswords makes link passwords cheap to hash in tests.
func withFastPasswords(t *testing.T) func(*Config) {
	return func(c *Config) {
		h, err := password.NewHasher(testHashParams, password.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		c.Passwords = h
	}
}

// checkPassword reports whether pw is the stored password of the file's link.
func checkPassword(t *testing.T, e *testEnv, id fileframe.FileID, pw string) bool {
	t.Helper()
	f, err := e.store.FileByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := e.srv.svc.CheckLinkPassword(context.Background(), f, pw)
	return ok && err == nil && f.Link.PasswordHash != ""
}

func TestAPIPatchLink(t *testing.T) {
	fx := newAPIFixture(t, withFastPasswords(t))
	path := "/api/files/" + string(fx.file.ID)

	res := fx.call(t, "GET", path, fx.general, nil)
	wantStatus(t, "GET", res, 200)
	link, _ := res.body["link"].(map[string]any)
	if link["state"] != "live" || link["expiresAt"] != nil || link["maxDownloads"] != nil || link["password"] != false || link["reveal"] != "" {
		t.Errorf("a new file's link = %v", link)
	}

	res = fx.call(t, "PATCH", path, fx.general, map[string]any{"link": map[string]any{
		"expiresIn": "7d", "maxDownloads": 1, "password": "s3cret pass", "removeWhenEnded": true, "reveal": "name"}})
	wantStatus(t, "PATCH link", res, 200)
	link = res.body["link"].(map[string]any)
	exp, _ := time.Parse(time.RFC3339, link["expiresAt"].(string))
	if d := time.Until(exp); d < 7*24*time.Hour-time.Minute || d > 7*24*time.Hour {
		t.Errorf("expiresIn 7d: expiresAt %v", exp)
	}
	if link["maxDownloads"] != 1.0 || link["downloads"] != 0.0 || link["password"] != true || link["removeWhenEnded"] != true || link["reveal"] != "name" || link["state"] != "live" {
		t.Errorf("PATCH link answered %v", link)
	}
	if res.body["name"] != "brochure.pdf" {
		t.Errorf("PATCH link renamed the file: %v", res.body["name"])
	}
	if strings.Contains(string(res.raw), "s3cret") || strings.Contains(string(res.raw), "argon2") {
		t.Errorf("the answer shows the password or its hash: %s", res.raw)
	}
	if !checkPassword(t, fx.e, fx.file.ID, "s3cret pass") {
		t.Error("the link's password does not check")
	}

	// Members left out stay; null ends; name and link together.
	at := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	res = fx.call(t, "PATCH", path, fx.general, map[string]any{"name": "Brochure 2.pdf",
		"link": map[string]any{"expiresAt": at.Format(time.RFC3339), "password": nil, "maxDownloads": nil}})
	wantStatus(t, "PATCH name and link", res, 200)
	link = res.body["link"].(map[string]any)
	if res.body["name"] != "Brochure 2.pdf" || link["expiresAt"] != at.Format(time.RFC3339) || link["password"] != false ||
		link["maxDownloads"] != nil || link["removeWhenEnded"] != true || link["reveal"] != "name" {
		t.Errorf("PATCH name and link answered %s", res.raw)
	}
	res = fx.call(t, "PATCH", path, fx.general, `{"link": {"expiresAt": null}}`, "Content-Type", "application/merge-patch+json")
	wantStatus(t, "PATCH expiresAt null", res, 200)
	if l := res.body["link"].(map[string]any); l["expiresAt"] != nil {
		t.Errorf("expiresAt null left %v", l["expiresAt"])
	}

	// Mistakes are invalid_field and change nothing, the name included.
	for name, body := range map[string]string{
		"unknown link field":        `{"link": {"expires": "7d"}}`,
		"unknown top field":         `{"link": {}, "owner": "x"}`,
		"link not an object":        `{"link": "7d"}`,
		"expiresIn and expiresAt":   `{"link": {"expiresIn": "7d", "expiresAt": "2030-01-01T00:00:00Z"}}`,
		"bad expiresIn":             `{"link": {"expiresIn": "soon"}}`,
		"bad expiresAt":             `{"link": {"expiresAt": "tomorrow"}}`,
		"past expiresAt":            `{"name": "x.pdf", "link": {"expiresAt": "2001-01-01T00:00:00Z"}}`,
		"negative maxDownloads":     `{"link": {"maxDownloads": -1}}`,
		"fractional maxDownloads":   `{"link": {"maxDownloads": 1.5}}`,
		"short password":            `{"name": "x.pdf", "link": {"password": "abc"}}`,
		"empty password":            `{"link": {"password": ""}}`,
		"removeWhenEnded string":    `{"link": {"removeWhenEnded": "yes"}}`,
		"unknown reveal":            `{"link": {"reveal": "all"}}`,
		"bad name with a good link": `{"name": "a\nb", "link": {"maxDownloads": 3}}`,
		"nothing":                   `{}`,
	} {
		res := fx.call(t, "PATCH", path, fx.general, body)
		wantStatus(t, name, res, 400)
		if res.body["code"] != "invalid_field" {
			t.Errorf("%s: code %v, want invalid_field", name, res.body["code"])
		}
	}
	f, _ := fx.e.store.FileByID(context.Background(), fx.file.ID)
	if f.Name != "Brochure 2.pdf" || f.Link.MaxDownloads != 0 || !f.Link.ExpiresAt.IsZero() {
		t.Errorf("refused PATCHes changed the file: %q %+v", f.Name, f.Link)
	}

	// A page-bound key reads the link but cannot change it.
	res = fx.call(t, "PATCH", path, fx.page, map[string]any{"link": map[string]any{"maxDownloads": 1}})
	wantStatus(t, "PATCH link with a page-bound key", res, 403)
	if res = fx.call(t, "GET", path, fx.page, nil); res.body["link"] == nil {
		t.Errorf("GET with a page-bound key has no link: %s", res.raw)
	}
}

func TestAPIUploadLink(t *testing.T) {
	fx := newAPIFixture(t, withFastPasswords(t))
	post := func(query string, header ...string) apiResult {
		t.Helper()
		req, _ := http.NewRequest("POST", fx.e.app.URL+"/api/files?name=a.txt"+query, bytes.NewReader([]byte("hello")))
		req.Header.Set("Authorization", "Bearer "+fx.general)
		req.Header.Set("Content-Type", "application/octet-stream")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, raw := fx.e.do(req)
		res := apiResult{resp: resp, raw: raw}
		if err := json.Unmarshal(raw, &res.body); err != nil {
			t.Fatalf("%d answer is not JSON: %s", resp.StatusCode, raw)
		}
		return res
	}
	res := post("&expiresIn=36h&maxDownloads=1&removeWhenEnded=true&reveal=name", linkPasswordHeader, "s3cret pass")
	wantStatus(t, "upload with link settings", res, 201)
	link := res.body["link"].(map[string]any)
	if link["maxDownloads"] != 1.0 || link["password"] != true || link["removeWhenEnded"] != true || link["reveal"] != "name" || link["expiresAt"] == nil {
		t.Errorf("upload answered link %v", link)
	}
	id := fileframe.FileID(res.body["id"].(string))
	if !checkPassword(t, fx.e, id, "s3cret pass") {
		t.Error("the uploaded file's link password does not check")
	}
	if got := fx.e.logs.String(); strings.Contains(got, "s3cret") {
		t.Error("the password is in the logs")
	}
	res = post("&expiresAt=" + time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	wantStatus(t, "upload with expiresAt", res, 201)
	if link := res.body["link"].(map[string]any); link["expiresAt"] == nil || link["maxDownloads"] != nil || link["password"] != false {
		t.Errorf("upload with expiresAt: link %v", link)
	}

	before, _ := fx.e.store.FilesByAccount(context.Background(), fx.agency.ID)
	for name, q := range map[string][]string{
		"bad expiresIn":            {"&expiresIn=soon"},
		"both expiries":            {"&expiresIn=7d&expiresAt=2030-01-01T00:00:00Z"},
		"past expiresAt":           {"&expiresAt=2001-01-01T00:00:00Z"},
		"bad maxDownloads":         {"&maxDownloads=one"},
		"bad removeWhenEnded":      {"&removeWhenEnded=maybe"},
		"bad reveal":               {"&reveal=all"},
		"short password":           {"", linkPasswordHeader, "abc"},
		"maxDownloads given twice": {"&maxDownloads=1&maxDownloads=2"},
	} {
		res := post(q[0], q[1:]...)
		wantStatus(t, name, res, 400)
		if res.body["code"] != "invalid_field" {
			t.Errorf("%s: code %v", name, res.body["code"])
		}
	}
	if after, _ := fx.e.store.FilesByAccount(context.Background(), fx.agency.ID); len(after) != len(before) {
		t.Errorf("refused uploads stored %d files", len(after)-len(before))
	}
}

// TestMCPSetLink changes a link through set_link, the same operation as
// PATCH /api/files/{id}'s link, and reads it back with get_file.
func TestMCPSetLink(t *testing.T) {
	fx := newAPIFixture(t, withFastPasswords(t))
	cs := mustConnect(t, fx.e, fx.general)
	id := string(fx.file.ID)
	out := toolOK(t, "set_link", callTool(t, cs, "set_link", map[string]any{
		"fileId": id, "expiresIn": "7d", "maxDownloads": 1, "password": "s3cret pass", "removeWhenEnded": true, "reveal": "name"}))
	link, _ := out["link"].(map[string]any)
	if link["maxDownloads"] != 1.0 || link["password"] != true || link["removeWhenEnded"] != true || link["reveal"] != "name" || link["expiresAt"] == nil || link["state"] != "live" {
		t.Errorf("set_link answered %v", out)
	}
	if !checkPassword(t, fx.e, fx.file.ID, "s3cret pass") {
		t.Error("set_link's password does not check")
	}
	out = toolOK(t, "set_link", callTool(t, cs, "set_link", map[string]any{"fileId": id, "expiresIn": "never", "password": "", "maxDownloads": 0}))
	if link := out["link"].(map[string]any); link["expiresAt"] != nil || link["password"] != false || link["maxDownloads"] != nil || link["removeWhenEnded"] != true {
		t.Errorf("set_link never/no password/no limit answered %v", link)
	}
	got := toolOK(t, "get_file", callTool(t, cs, "get_file", map[string]any{"fileId": id}))
	if got["link"] == nil {
		t.Errorf("get_file has no link: %v", got)
	}
	toolProblem(t, "set_link", callTool(t, cs, "set_link", map[string]any{"fileId": id}), 400, "invalid_field")
	toolProblem(t, "set_link", callTool(t, cs, "set_link", map[string]any{"fileId": id, "expiresIn": "soon"}), 400, "invalid_field")
	toolProblem(t, "set_link", callTool(t, cs, "set_link", map[string]any{"fileId": id, "expiresIn": "7d", "expiresAt": "2030-01-01T00:00:00Z"}), 400, "invalid_field")
	toolProblem(t, "set_link", callTool(t, cs, "set_link", map[string]any{"fileId": "f_nosuchfile000000000", "maxDownloads": 1}), 404, "file_not_found")
	page := mustConnect(t, fx.e, fx.page)
	toolProblem(t, "set_link", callTool(t, page, "set_link", map[string]any{"fileId": id, "maxDownloads": 1}), 403, "key_scope")
}

// TestTusUploadLink sends link settings in a tus upload's metadata: they
// are checked when the upload is created, kept without the password
// (its hash, never shown back by HEAD), and applied to the file.
func TestTusUploadLink(t *testing.T) {
	fx := newAPIFixture(t, withFastPasswords(t), withUploads(t.TempDir()))
	c := keyTus{e: fx.e, key: fx.general}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	meta := strings.Join([]string{"filename " + b64("a.txt"), "expiresIn " + b64("36h"), "maxDownloads " + b64("1"),
		"password " + b64("s3cret pass"), "removeWhenEnded " + b64("true"), "reveal " + b64("name")}, ",")
	resp, body := c.request(http.MethodPost, fx.e.app.URL+tusBasePath, nil, "Upload-Length", "5", "Upload-Metadata", meta)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("tus POST with link settings: %d %s", resp.StatusCode, body)
	}
	loc := resp.Header.Get("Location")
	head, _ := c.request(http.MethodHead, loc, nil)
	if m := head.Header.Get("Upload-Metadata"); m != "" {
		t.Errorf("HEAD shows the upload's metadata: %q", m)
	}
	resp, body = c.patch(loc, 0, []byte("hello"))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("tus PATCH: %d %s", resp.StatusCode, body)
	}
	id := fileframe.FileID(resp.Header.Get(headerFileID))
	f, err := fx.e.store.FileByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(f.Link.ExpiresAt); d < 35*time.Hour || d > 36*time.Hour || f.Link.MaxDownloads != 1 || !f.Link.RemoveWhenEnded || f.Link.Reveal != "name" {
		t.Errorf("the tus upload's link: %+v", f.Link)
	}
	if !checkPassword(t, fx.e, id, "s3cret pass") {
		t.Error("the tus upload's password does not check")
	}
	// A refused setting is refused at creation, before any byte.
	for _, bad := range []string{"expiresIn " + b64("soon"), "password " + b64("abc"), "maxDownloads " + b64("-2")} {
		resp, body := c.request(http.MethodPost, fx.e.app.URL+tusBasePath, nil, "Upload-Length", "5", "Upload-Metadata", "filename "+b64("b.txt")+","+bad)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("tus POST with %s: %d %s", bad, resp.StatusCode, body)
		}
	}
}

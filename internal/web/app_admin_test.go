package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// adminEnv is an instance with a signed-in admin and an Agency owner with a
// published custom page and a general API key.
type adminEnv struct {
	e      *testEnv
	admin  fileframe.Account
	b      *appBrowser // signed in as admin
	owner  fileframe.Account
	ob     *appBrowser // signed in as owner
	file   fileframe.File
	apiKey string
}

func newAdminEnv(t *testing.T) *adminEnv {
	t.Helper()
	e := newTestEnv(t)
	admin, err := e.store.CreateAccount(context.Background(), fileframe.Account{
		Email: "root@example.com", PasswordHash: e.hash(testPassword), Plan: fileframe.PlanAgency, Admin: true,
	})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	owner := e.member("owner@example.com", fileframe.PlanAgency)
	f := e.file(owner, "report.pdf", []byte("0123456789"))
	e.file(owner, "notes.txt", []byte("abc"))
	e.savePage(f, customHTML("CUSTOM-MARKER"), true)
	secret, _ := e.key(owner, "")
	b := newAppBrowser(e)
	b.login("root@example.com", testPassword)
	ob := newAppBrowser(e)
	ob.login("owner@example.com", testPassword)
	return &adminEnv{e: e, admin: admin, b: b, owner: owner, ob: ob, file: f, apiKey: secret}
}

// act posts an admin action with the page's CSRF token.
func (a *adminEnv) act(b *appBrowser, id fileframe.AccountID, action string, form url.Values) (*http.Response, string) {
	a.e.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", b.token("/account"))
	}
	return b.post("/admin/accounts/"+string(id)+"/"+action, form)
}

func (a *adminEnv) account(id fileframe.AccountID) fileframe.Account {
	a.e.t.Helper()
	acct, err := a.e.store.AccountByID(context.Background(), id)
	if err != nil {
		a.e.t.Fatalf("AccountByID: %v", err)
	}
	return acct
}

// apiStatus posts a page for the owner's file with its API key.
func (a *adminEnv) apiStatus() int {
	a.e.t.Helper()
	body := `{"publish":true,"fileId":"` + string(a.file.ID) + `","html":` + jsonString(customHTML("API")) + `}`
	req, err := http.NewRequest(http.MethodPost, a.e.app.URL+"/api/campaign/custom-html", strings.NewReader(body))
	if err != nil {
		a.e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.apiKey)
	req.Header.Set("Content-Type", "application/json")
	resp, _ := a.e.do(req)
	return resp.StatusCode
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func wantRedirect(t *testing.T, what string, resp *http.Response, body, loc string) {
	t.Helper()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != loc {
		t.Fatalf("%s: got %d %q, want 303 to %q:\n%s", what, resp.StatusCode, resp.Header.Get("Location"), loc, body)
	}
}

func TestAdminListsAccounts(t *testing.T) {
	a := newAdminEnv(t)
	resp, body := a.b.get("/admin")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /admin: got %d:\n%s", resp.StatusCode, body)
	}
	assertAppHeaders(t, resp)
	for _, want := range []string{
		"root@example.com", "owner@example.com", "Admin</span>", "(you)",
		`<td class="num">2</td>`, `<td class="num">13 B</td>`, // owner: 2 files, 10+3 bytes
		`<td class="num">0</td>`, `<td class="num">0 B</td>`, // admin: none
		`scope="col"`, `scope="row"`, `class="table-scroll"`,
		`<label for="plan-` + string(a.owner.ID) + `"`,
		`action="/admin/accounts/` + string(a.owner.ID) + `/plan"`,
		`action="/admin/accounts/` + string(a.owner.ID) + `/disable"`,
		`<a href="/admin" aria-current="page">Admin</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("admin page lacks %q", want)
		}
	}
	// No Disable button on the admin's own row.
	if strings.Contains(body, `/admin/accounts/`+string(a.admin.ID)+`/disable`) {
		t.Errorf("admin page offers to disable the admin themself")
	}
	// The nav link is shown to admins on other pages, never to others.
	if _, body := a.b.get("/account"); !strings.Contains(body, `href="/admin"`) {
		t.Errorf("admin's account page lacks the Admin link")
	}
	if _, body := a.ob.get("/account"); strings.Contains(body, `href="/admin"`) {
		t.Errorf("a non-admin's account page links to /admin")
	}
}

func TestAdminSetPlan(t *testing.T) {
	a := newAdminEnv(t)
	resp, body := a.e.appGet("/f/" + a.file.Slug)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<iframe") {
		t.Fatalf("before: /f/<slug> got %d, want the custom page's frame", resp.StatusCode)
	}
	if got := a.apiStatus(); got != http.StatusOK {
		t.Fatalf("before: API got %d, want 200", got)
	}

	resp, text := a.act(a.b, a.owner.ID, "plan", url.Values{"plan": {"pro"}})
	wantRedirect(t, "set plan", resp, text, "/admin?account="+string(a.owner.ID)+"&done=plan")
	if got := a.account(a.owner.ID).Plan; got != fileframe.PlanPro {
		t.Errorf("plan after set: got %q, want pro", got)
	}
	// The very next request shows the default page and the key gets 403.
	resp, body = a.e.appGet("/f/" + a.file.Slug)
	if resp.StatusCode != http.StatusOK || strings.Contains(string(body), "<iframe") || !strings.Contains(string(body), "report.pdf") {
		t.Errorf("after downgrade: /f/<slug> got %d, want the default page:\n%s", resp.StatusCode, body)
	}
	if got := a.apiStatus(); got != http.StatusForbidden {
		t.Errorf("after downgrade: API got %d, want 403", got)
	}
	_, page := a.b.get("/admin?account=" + string(a.owner.ID) + "&done=plan")
	if !strings.Contains(page, "owner@example.com is now on Pro.") {
		t.Errorf("admin page lacks the notice:\n%s", page)
	}

	// Upgrading again brings the custom page back.
	resp, text = a.act(a.b, a.owner.ID, "plan", url.Values{"plan": {"agency"}})
	wantRedirect(t, "set plan agency", resp, text, "/admin?account="+string(a.owner.ID)+"&done=plan")
	if _, body := a.e.appGet("/f/" + a.file.Slug); !strings.Contains(string(body), "<iframe") {
		t.Errorf("after upgrade: /f/<slug> lacks the custom page")
	}
}

func TestAdminDisableEnable(t *testing.T) {
	a := newAdminEnv(t)
	slug := a.file.Slug
	for _, p := range []string{"/f/" + slug, "/f/" + slug + "/download"} {
		if resp, _ := a.e.appGet(p); resp.StatusCode != http.StatusOK {
			t.Fatalf("before: GET %s got %d, want 200", p, resp.StatusCode)
		}
	}
	resp, text := a.act(a.b, a.owner.ID, "disable", nil)
	wantRedirect(t, "disable", resp, text, "/admin?account="+string(a.owner.ID)+"&done=disabled")
	if !a.account(a.owner.ID).Disabled {
		t.Errorf("account not disabled")
	}
	for _, p := range []string{"/f/" + slug, "/f/" + slug + "/download"} {
		if resp, _ := a.e.appGet(p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("disabled: GET %s got %d, want 404", p, resp.StatusCode)
		}
	}
	if a.ob.signedIn() {
		t.Errorf("the disabled account's session still works")
	}
	if _, err := a.e.store.FileByID(context.Background(), a.file.ID); err != nil {
		t.Errorf("the file is gone after disabling: %v", err)
	}
	if _, body := a.b.get("/admin?account=" + string(a.owner.ID) + "&done=disabled"); !strings.Contains(body, "owner@example.com is disabled") || !strings.Contains(body, "/enable") {
		t.Errorf("admin page lacks the notice or the Enable button")
	}

	resp, text = a.act(a.b, a.owner.ID, "enable", nil)
	wantRedirect(t, "enable", resp, text, "/admin?account="+string(a.owner.ID)+"&done=enabled")
	for _, p := range []string{"/f/" + slug, "/f/" + slug + "/download"} {
		if resp, _ := a.e.appGet(p); resp.StatusCode != http.StatusOK {
			t.Errorf("enabled: GET %s got %d, want 200", p, resp.StatusCode)
		}
	}
}

func TestAdminRefusesSelf(t *testing.T) {
	a := newAdminEnv(t)
	resp, body := a.act(a.b, a.admin.ID, "disable", nil)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "cannot disable your own account") {
		t.Errorf("self-disable: got %d:\n%s", resp.StatusCode, body)
	}
	resp, body = a.act(a.b, a.admin.ID, "plan", url.Values{"plan": {"free"}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "cannot lower your own plan") {
		t.Errorf("self-demote: got %d:\n%s", resp.StatusCode, body)
	}
	got := a.account(a.admin.ID)
	if got.Disabled || got.Plan != fileframe.PlanAgency || !got.Admin {
		t.Errorf("admin changed: %+v", got)
	}
	if !a.b.signedIn() {
		t.Errorf("the admin was signed out")
	}
}

func TestAdminErrors(t *testing.T) {
	a := newAdminEnv(t)
	// A non-admin sees the ordinary 404, for the page and every action.
	resp, body := a.ob.get("/admin")
	if resp.StatusCode != http.StatusNotFound || strings.Contains(body, "owner@example.com</th>") {
		t.Errorf("non-admin GET /admin: got %d", resp.StatusCode)
	}
	for _, action := range []string{"plan", "disable", "enable"} {
		resp, _ := a.act(a.ob, a.admin.ID, action, url.Values{"plan": {"free"}})
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("non-admin POST %s: got %d, want 404", action, resp.StatusCode)
		}
	}
	if got := a.account(a.admin.ID); got.Disabled || got.Plan != fileframe.PlanAgency {
		t.Errorf("a non-admin changed the admin: %+v", got)
	}
	// Signed out: to the login page.
	resp, text := newAppBrowser(a.e).get("/admin")
	wantRedirect(t, "signed out", resp, text, "/login")

	tests := []struct {
		name   string
		id     fileframe.AccountID
		action string
		form   url.Values
		status int
		want   string
	}{
		{"no CSRF token", a.owner.ID, "disable", url.Values{"csrf": {""}}, http.StatusForbidden, "This form expired"},
		{"wrong CSRF token", a.owner.ID, "plan", url.Values{"csrf": {strings.Repeat("A", 43)}, "plan": {"free"}}, http.StatusForbidden, "This form expired"},
		{"invalid plan", a.owner.ID, "plan", url.Values{"plan": {"enterprise"}}, http.StatusBadRequest, "Choose one of the plans"},
		{"missing plan", a.owner.ID, "plan", url.Values{}, http.StatusBadRequest, "Choose one of the plans"},
		{"unknown ID", "nope", "disable", nil, http.StatusNotFound, "No such account"},
		{"unknown ID, plan", "nope", "plan", url.Values{"plan": {"pro"}}, http.StatusNotFound, "No such account"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := a.act(a.b, tt.id, tt.action, tt.form)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("got %d, want %d with %q:\n%s", resp.StatusCode, tt.status, tt.want, body)
			}
		})
	}
	if got := a.account(a.owner.ID); got.Disabled || got.Plan != fileframe.PlanAgency {
		t.Errorf("a refused action changed the owner: %+v", got)
	}
}

package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// TestRouteGuards walks every route of the app origin (appRoutes, the only
// place routes are registered) and, for each group but public and ops,
// sends what lacks the group's need: no session, no CSRF token, another
// plan, not an administrator, no API key. Each must be refused as its group
// says, before any handler runs, so that a new route cannot answer without
// its guard, e.g. a state change without CSRF.
func TestRouteGuards(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()))
	e.member("agency@example.com", fileframe.PlanAgency)
	e.member("free@example.com", fileframe.PlanFree)
	agency := newAppBrowser(e)
	agency.login("agency@example.com", testPassword)
	agencyCSRF := agency.token("/account")
	free := newAppBrowser(e)
	free.login("free@example.com", testPassword)
	freeCSRF := free.token("/account")
	anon := newAppBrowser(e)

	// A value for each path parameter: shapes that pass no check.
	params := strings.NewReplacer("{id}", "f_AAAAAAAAAAAAAAAA", "{rev}", "1", "{slug}", "AAAAAAAAAAAA",
		"{kind}", "logo", "{$}", "")
	// A file request's routes need a request that exists, so that they
	// reach the check of the visit.
	fileReq, err := e.srv.svc.CreateRequest(t.Context(), e.account(fileframe.PlanFree), service.NewRequest{Title: "x", MaxFiles: 1, MaxBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	groups := map[group]int{}
	for _, rt := range e.srv.appRoutes() {
		groups[rt.group]++
		method, path, ok := strings.Cut(rt.pattern, " ")
		if !ok {
			method, path = http.MethodGet, rt.pattern
		}
		if rt.group == groupRequest {
			path = strings.ReplaceAll(path, "{slug}", fileReq.Slug)
		}
		path = params.Replace(path)
		state := method != http.MethodGet && method != http.MethodHead
		send := func(b *appBrowser, csrf string, header ...string) (*http.Response, string) {
			t.Helper()
			var body *strings.Reader
			form := url.Values{}
			if csrf != "" {
				form.Set("csrf", csrf)
			}
			body = strings.NewReader(form.Encode())
			req, err := http.NewRequest(method, e.app.URL+path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			return b.send(req)
		}
		refused := func(what string, resp *http.Response, want int, location string) {
			t.Helper()
			if resp.StatusCode != want || (location != "" && resp.Header.Get("Location") != location) {
				t.Errorf("%s %s: got %d %q, want %d %q", rt.pattern, what, resp.StatusCode, resp.Header.Get("Location"), want, location)
			}
		}
		switch rt.group {
		case groupPublic, groupOps:
			continue
		case groupKey:
			resp, _ := send(anon, "")
			refused("without a key", resp, http.StatusUnauthorized, "")
		case groupVisitor:
			if path == "/setup" {
				// Once an account exists the setup screen is gone; before,
				// its form needs the token (below).
				resp, _ := send(anon, "")
				refused("once set up", resp, http.StatusNotFound, "")
			} else if state {
				resp, _ := send(anon, "")
				refused("without the CSRF token", resp, http.StatusForbidden, "")
			}
		case groupSession, groupPro, groupAgency, groupAdmin:
			resp, _ := send(anon, "")
			if strings.Contains(rt.pattern, "/appearance/") { // frames and images of the editor
				refused("signed out", resp, http.StatusNotFound, "")
			} else {
				refused("signed out", resp, http.StatusSeeOther, "/login")
			}
			if rt.group == groupAdmin {
				resp, _ := send(agency, agencyCSRF)
				refused("as a non-admin", resp, http.StatusNotFound, "")
				continue
			}
			if state {
				resp, _ := send(agency, "")
				refused("without the CSRF token", resp, http.StatusForbidden, "")
				resp, _ = send(agency, agencyCSRF, "Sec-Fetch-Site", "cross-site")
				refused("from another site", resp, http.StatusForbidden, "")
			}
			if rt.group == groupAgency || rt.group == groupPro {
				resp, body := send(free, freeCSRF)
				refused("on the Free plan", resp, http.StatusForbidden, "")
				if !strings.Contains(body, "not on the Agency plan") && !strings.Contains(body, "on the Free plan") {
					t.Errorf("%s on the Free plan: the answer does not say why", rt.pattern)
				}
			}
		case groupTus:
			resp, _ := send(anon, "", "Tus-Resumable", "1.0.0")
			refused("signed out", resp, http.StatusUnauthorized, "")
			if state {
				resp, _ := send(agency, "", "Tus-Resumable", "1.0.0")
				refused("without the CSRF header", resp, http.StatusForbidden, "")
			}
		case groupRequest:
			resp, _ := send(anon, "", "Tus-Resumable", "1.0.0")
			refused("without a visit", resp, http.StatusForbidden, "")
			if state {
				visitor := newAppBrowser(e)
				visitor.get("/r/" + fileReq.Slug)
				resp, _ := send(visitor, "", "Tus-Resumable", "1.0.0")
				refused("without the visit's token", resp, http.StatusForbidden, "")
			}
		default:
			t.Errorf("%s: unknown group %q", rt.pattern, rt.group)
		}
	}
	// The setup form of a fresh instance needs its token too.
	fresh := newTestEnv(t)
	if resp, _ := newAppBrowser(fresh).post("/setup", url.Values{"email": {"a@example.com"}, "password": {testPassword}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST /setup of a fresh instance without the CSRF token: got %d, want 403", resp.StatusCode)
	}
	// Every group is in use, so that the walk above covers each.
	for _, g := range []group{groupPublic, groupKey, groupVisitor, groupSession, groupPro, groupAgency, groupAdmin, groupTus, groupRequest, groupOps} {
		if groups[g] == 0 {
			t.Errorf("group %q has no route", g)
		}
	}
}

package web

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The admin page lists every account and lets an admin set plans and
// disable or enable accounts. To everyone else it does not exist: a
// non-admin gets the same 404 as any unknown address.

// adminPlans are the plans an admin can choose, lowest first.
var adminPlans = []fileframe.Plan{fileframe.PlanFree, fileframe.PlanPro, fileframe.PlanAgency}

// planRank orders plans, so that an admin's own downgrade can be refused.
func planRank(p fileframe.Plan) int {
	for i, q := range adminPlans {
		if q == p {
			return i
		}
	}
	return -1
}

// adminPage is the data of app_admin.html.
type adminPage struct {
	appPage
	Accounts []adminRow
	Plans    []adminPlan
}

// adminRow is one account of the admin page.
type adminRow struct {
	ID       fileframe.AccountID
	Email    string
	Plan     fileframe.Plan
	PlanName string
	Admin    bool
	Disabled bool
	Self     bool
	Files    int64
	Size     string
	Created  string // for people, e.g. "2 Jan 2026"
	Datetime string // for <time datetime>
}

// adminPlan is an option of the plan select.
type adminPlan struct {
	Value fileframe.Plan
	Name  string
}

// adminNotices are the sentences shown after an action, by the outcome
// named in the "done" query parameter; %s is the account's email, read from
// the store (never from the query).
var adminNotices = map[string]string{
	"plan":     "%s is now on %s.",
	"disabled": "%s is disabled: its links answer “not found” and its sessions were ended. Nothing was deleted.",
	"enabled":  "%s is enabled again: its links work.",
}

// admin serves GET /admin.
func (s *Server) admin(w http.ResponseWriter, r *http.Request, user *signedIn) {
	q := r.URL.Query()
	s.renderAdmin(w, r, user, http.StatusOK, "", q.Get("done"), fileframe.AccountID(q.Get("account")))
}

// renderAdmin renders the admin page with an error message (may be empty)
// or the notice of outcome done about the account id.
func (s *Server) renderAdmin(w http.ResponseWriter, r *http.Request, user *signedIn, status int, errMsg, done string, id fileframe.AccountID) {
	list, err := s.store.ListAccounts(r.Context())
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	p := adminPage{appPage: s.newAppPage("Admin", user)}
	p.Admin = true
	if errMsg != "" {
		p.Errors[""] = errMsg
	}
	for _, pl := range adminPlans {
		p.Plans = append(p.Plans, adminPlan{Value: pl, Name: adminPlanName(pl)})
	}
	for _, a := range list {
		row := adminRow{
			ID: a.ID, Email: a.Email, Plan: a.Plan, PlanName: adminPlanName(a.Plan),
			Admin: a.Admin, Disabled: a.Disabled, Self: a.ID == user.account.ID,
			Files: a.Files, Size: humanSize(a.Bytes),
			Created: a.CreatedAt.UTC().Format("2 Jan 2006"), Datetime: a.CreatedAt.UTC().Format("2006-01-02"),
		}
		p.Accounts = append(p.Accounts, row)
		if f, ok := adminNotices[done]; ok && id != "" && a.ID == id {
			if done == "plan" {
				p.Notice = fmt.Sprintf(f, a.Email, row.PlanName)
			} else {
				p.Notice = fmt.Sprintf(f, a.Email)
			}
		}
	}
	h := w.Header()
	s.setPageHeaders(h, s.hdr.appCSP)
	h.Set("Cache-Control", "no-store")
	if err := s.pages.render(w, r, status, "app_admin.html", p); err != nil {
		s.logFor(r).Error("app: rendering", "page", "app_admin.html", "err", err)
		http.Error(w, "Something went wrong.", http.StatusInternalServerError)
	}
}

func adminPlanName(p fileframe.Plan) string {
	if n := planNames[p]; n != "" {
		return n
	}
	return string(p)
}

// adminTarget returns the account that an admin action's path names,
// answering when there is none; the route's guard has checked the admin
// and the CSRF token.
func (s *Server) adminTarget(w http.ResponseWriter, r *http.Request, user *signedIn) (fileframe.Account, bool) {
	acct, err := s.store.AccountByID(r.Context(), fileframe.AccountID(r.PathValue("id")))
	if fileframe.IsNotFound(err) {
		s.appError(w, r, user, failure(fileframe.ENOTFOUND, "No such account",
			"There is no account with this ID. It may have been removed; go back to the admin page and reload it."))
		return fileframe.Account{}, false
	}
	if err != nil {
		s.appError(w, r, user, err)
		return fileframe.Account{}, false
	}
	return acct, true
}

// adminDone redirects to the admin page with the notice of an outcome.
func adminDone(w http.ResponseWriter, r *http.Request, done string, id fileframe.AccountID) {
	appRedirect(w, r, "/admin?"+url.Values{"done": {done}, "account": {string(id)}}.Encode())
}

// adminSetPlan serves POST /admin/accounts/{id}/plan. A downgrade takes
// effect on the next request: public pages re-read the owner's plan
// (public_cache.go) and the API checks it on every call.
func (s *Server) adminSetPlan(w http.ResponseWriter, r *http.Request, user *signedIn) {
	acct, ok := s.adminTarget(w, r, user)
	if !ok {
		return
	}
	plan, err := fileframe.ParsePlan(r.PostFormValue("plan"))
	if err != nil {
		s.appError(w, r, user, failure(fileframe.CodeInvalidField, "Unknown plan",
			"Choose one of the plans Free, Pro or Agency, then set it again."))
		return
	}
	if acct.ID == user.account.ID && planRank(plan) < planRank(acct.Plan) {
		s.renderAdmin(w, r, user, http.StatusConflict,
			"You cannot lower your own plan here. Another admin, or the admin command line, can.", "", "")
		return
	}
	if _, err := s.svc.SetPlan(r.Context(), acct.ID, plan); err != nil {
		s.appError(w, r, user, err)
		return
	}
	adminDone(w, r, "plan", acct.ID)
}

// adminDisable serves POST /admin/accounts/{id}/disable: the account's
// links stop working and its sessions end; nothing is deleted.
func (s *Server) adminDisable(w http.ResponseWriter, r *http.Request, user *signedIn) {
	acct, ok := s.adminTarget(w, r, user)
	if !ok {
		return
	}
	if acct.ID == user.account.ID {
		// An instance must never lock its operator out.
		s.renderAdmin(w, r, user, http.StatusConflict,
			"You cannot disable your own account. Another admin, or the admin command line, can.", "", "")
		return
	}
	if err := s.svc.SetDisabled(r.Context(), acct.ID, true); err != nil {
		s.appError(w, r, user, err)
		return
	}
	adminDone(w, r, "disabled", acct.ID)
}

// adminEnable serves POST /admin/accounts/{id}/enable.
func (s *Server) adminEnable(w http.ResponseWriter, r *http.Request, user *signedIn) {
	acct, ok := s.adminTarget(w, r, user)
	if !ok {
		return
	}
	if err := s.svc.SetDisabled(r.Context(), acct.ID, false); err != nil {
		s.appError(w, r, user, err)
		return
	}
	adminDone(w, r, "enabled", acct.ID)
}

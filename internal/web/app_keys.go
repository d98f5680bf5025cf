package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// maxKeyNameChars caps the name of a key made in the application.
const maxKeyNameChars = 100

// keyExpiryDays are the lifetimes the create form offers; 0 is never.
var keyExpiryDays = []int{0, 30, 90, 365}

// keysPage is the data of app_keys.html.
type keysPage struct {
	appPage
	// Agency says whether the account may create and revoke keys.
	Agency bool
	Keys   []keyRow
	// DefaultName is the name a key gets when the form leaves it empty.
	DefaultName string
	Expiries    []int
	// NewKey is the secret of the key just made, shown this once; Curl is
	// a request that uses it.
	NewKey     string
	NewKeyName string
	Curl       string
}

// keyRow is one key of the list, ready to show.
type keyRow struct {
	ID       fileframe.KeyID
	Name     string
	Kind     string
	Prefix   string
	FileID   fileframe.FileID
	FileName string
	Created  string
	LastUsed string
	Expires  string
	Status   string // active, revoked or expired
}

// keyTime is how the keys page shows a time.
func keyTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

func (s *Server) keyRows(r *http.Request, keys []fileframe.Key) ([]keyRow, error) {
	now := s.now()
	rows := make([]keyRow, 0, len(keys))
	for _, k := range keys {
		row := keyRow{ID: k.ID, Name: k.Name, Kind: "General", Prefix: k.Prefix + "…",
			Created: keyTime(k.CreatedAt), LastUsed: "never", Expires: "never", Status: "active"}
		if k.Kind == fileframe.KeyPage {
			row.Kind, row.FileID = "Page-bound", k.FileID
			f, err := s.store.FileByID(r.Context(), k.FileID)
			if err != nil && !fileframe.IsNotFound(err) {
				return nil, err
			}
			if err == nil {
				row.FileName = f.Name
			}
		}
		if !k.LastUsedAt.IsZero() {
			row.LastUsed = keyTime(k.LastUsedAt)
		}
		if !k.ExpiresAt.IsZero() {
			row.Expires = keyTime(k.ExpiresAt)
		}
		switch {
		case !k.RevokedAt.IsZero():
			row.Status = "revoked"
		case !k.Usable(now):
			row.Status = "expired"
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// keysPageFor loads the account's keys into the page.
func (s *Server) keysPageFor(r *http.Request, user *signedIn) (keysPage, error) {
	p := keysPage{appPage: s.newAppPage("API keys", user), Agency: user.account.Plan.CustomPages(), Expiries: keyExpiryDays}
	keys, err := s.store.KeysByAccount(r.Context(), user.account.ID)
	if err != nil {
		return p, err
	}
	if p.Keys, err = s.keyRows(r, keys); err != nil {
		return p, err
	}
	p.DefaultName = "API key " + strconv.Itoa(len(keys)+1)
	return p, nil
}

// keys serves GET /keys.
func (s *Server) keys(w http.ResponseWriter, r *http.Request, user *signedIn) {
	p, err := s.keysPageFor(r, user)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	if r.URL.Query().Get("revoked") == "1" {
		p.Notice = "The key was revoked. It stops working at once."
	}
	s.renderKeys(w, r, http.StatusOK, p)
}

func (s *Server) renderKeys(w http.ResponseWriter, r *http.Request, status int, p keysPage) {
	h := w.Header()
	s.setPageHeaders(h, s.hdr.appCSP)
	h.Set("Cache-Control", "no-store")
	if err := s.pages.render(w, r, status, "app_keys.html", p); err != nil {
		s.logFor(r).Error("app: rendering", "page", "app_keys.html", "err", err)
		http.Error(w, "Something went wrong.", http.StatusInternalServerError)
	}
}

// createKey serves POST /keys: a general key, shown once on the page that
// answers the form (never in a URL, never cached).
func (s *Server) createKey(w http.ResponseWriter, r *http.Request, user *signedIn) {
	p, err := s.keysPageFor(r, user)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	p.Form["name"] = r.PostFormValue("name")
	if utf8.RuneCountInString(name) > maxKeyNameChars {
		p.Errors["name"] = fmt.Sprintf("Names can be at most %d characters long.", maxKeyNameChars)
	}
	days, err := strconv.Atoi(r.PostFormValue("expires"))
	if r.PostFormValue("expires") == "" {
		days, err = 0, nil
	}
	valid := false
	for _, d := range keyExpiryDays {
		valid = valid || (err == nil && d == days)
	}
	if !valid {
		p.Errors["expires"] = "Choose when the key expires from the list."
	}
	if len(p.Errors) > 0 {
		s.renderKeys(w, r, http.StatusUnprocessableEntity, p)
		return
	}
	if name == "" {
		name = p.DefaultName
	}
	var expires time.Time
	if days > 0 {
		expires = s.now().Add(time.Duration(days) * 24 * time.Hour)
	}
	secret, _, err := s.svc.CreateKey(r.Context(), service.NewKey{Account: user.account, Name: name, Expires: expires})
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	if p, err = s.keysPageFor(r, user); err != nil {
		s.appError(w, r, user, err)
		return
	}
	p.NewKey, p.NewKeyName, p.Curl = secret, name, s.curlExample(secret)
	s.renderKeys(w, r, http.StatusOK, p)
}

// curlExample is the request a new general key can make at once, as the
// CLI's key create prints it.
func (s *Server) curlExample(secret string) string {
	return s.customHTMLCurl(secret, `"fileId": "FILE_ID", `)
}

// customHTMLCurl is a request to the API with the key secret; fields come
// first in the JSON body: a general key's fileId, nothing for a page-bound
// key (which names its file itself).
func (s *Server) customHTMLCurl(secret, fields string) string {
	return fmt.Sprintf(`curl -sS %s \
  -H 'Authorization: Bearer %s' \
  -H 'Content-Type: application/json' \
  -d '{%s"publish": true, "html": "<!doctype html><html><head><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Hello</title></head><body><h1>Hello</h1></body></html>"}'`,
		s.publicURL("/api/campaign/custom-html"), secret, fields)
}

// revokeKey serves POST /keys/{id}/revoke. Another account's key and an
// unknown ID are both not found.
func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, user *signedIn) {
	err := s.svc.RevokeKey(r.Context(), user.account, fileframe.KeyID(r.PathValue("id")))
	if fileframe.IsNotFound(err) {
		s.appError(w, r, user, failure(fileframe.ENOTFOUND, "Key not found",
			"There is no such key in your account. It may have been deleted."))
		return
	}
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	appRedirect(w, r, "/keys?revoked=1")
}

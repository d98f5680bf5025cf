package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// linkView is how the file list and the file page show a link's state:
// Badges such as "Expires in 6 days", "0 of 1 downloads · one-time",
// "Password", and a class for the state.
type linkView struct {
	State fileframe.LinkState
	// Summary is the state in words ("Live", "Expired", "Used up").
	Summary string
	Class   string
	Badges  []linkBadge
	// Form are the controls as the link form shows them.
	ExpiresAt       string // datetime-local value, UTC; "" never
	ExpiresText     string // "3 Jan 2030, 15:04 UTC"; "" never
	MaxDownloads    string // "" no limit
	OneTime         bool
	Password        bool
	RemoveWhenEnded bool
	RevealName      bool
}

// linkBadge is one fact about a link, with a title that gives the detail.
type linkBadge struct {
	Text, Title string
}

// datetimeLocal is the format of <input type="datetime-local">.
const datetimeLocal = "2006-01-02T15:04"

func newLinkView(f fileframe.File, now time.Time) linkView {
	v := linkView{State: f.LinkState(now), Password: f.Link.PasswordHash != "", RemoveWhenEnded: f.Link.RemoveWhenEnded,
		RevealName: f.Link.Reveal == fileframe.RevealName, OneTime: f.Link.MaxDownloads == 1}
	switch v.State {
	case fileframe.LinkExpired:
		v.Summary, v.Class = "Expired", "link-ended"
	case fileframe.LinkUsedUp:
		v.Summary, v.Class = "Used up", "link-ended"
	default:
		v.Summary, v.Class = "Live", "link-live"
	}
	if !f.Shared {
		// Received through a file request: the link answers 404 until
		// the owner shares the file (app_requests.go).
		v.Summary, v.Class = "Not shared", "link-ended"
	}
	if !f.Link.ExpiresAt.IsZero() {
		at := f.Link.ExpiresAt.UTC()
		v.ExpiresAt, v.ExpiresText = at.Format(datetimeLocal), fileTime(at)
		if v.State != fileframe.LinkExpired {
			v.Badges = append(v.Badges, linkBadge{"Expires in " + untilText(at.Sub(now)), "Expires " + v.ExpiresText})
		} else {
			v.Badges = append(v.Badges, linkBadge{"Expired " + at.Format("2 Jan 2006"), "Expired " + v.ExpiresText})
		}
	}
	if n := f.Link.MaxDownloads; n > 0 {
		v.MaxDownloads = strconv.FormatInt(n, 10)
		text := fmt.Sprintf("%d of %d downloads", f.LinkDownloads, n)
		if n == 1 {
			text = fmt.Sprintf("One-time · %d of 1 download", f.LinkDownloads)
		}
		v.Badges = append(v.Badges, linkBadge{text, "Complete downloads counted against the limit"})
	}
	if v.Password {
		title := "Visitors need the password; it shows nothing before it"
		if v.RevealName {
			title = "Visitors need the password; it shows the file's name and size before it"
		}
		v.Badges = append(v.Badges, linkBadge{"Password", title})
	}
	return v
}

// untilText says how long d is, roughly: "6 days", "5 hours", "12
// minutes", "less than a minute".
func untilText(d time.Duration) string {
	plural := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	switch {
	case d >= 48*time.Hour:
		return plural(int64(d/(24*time.Hour)), "day")
	case d >= 2*time.Hour:
		return plural(int64(d/time.Hour), "hour")
	case d >= time.Minute:
		return plural(int64(d/time.Minute), "minute")
	}
	return "less than a minute"
}

// expiryChoices are the quick choices of the link and upload forms.
var expiryChoices = map[string]time.Duration{"1d": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour}

// parseLinkForm reads the link form of the file page (or the upload
// form's part of it: creating) into a LinkChange. field names the input a
// mistake is about. The form's fields:
//
//	expiry           keep | never | 1d | 7d | 30d | at ("" keeps, or at creation: the plan's default)
//	expires_at       with expiry=at: a datetime-local value, in UTC
//	max_downloads    a count; "" or 0: no limit (not at creation)
//	one_time         "yes": a one-time link
//	password         a new password ("" keeps it)
//	remove_password  "yes": remove the password (not at creation)
//	remove_when_ended, reveal_name  "yes" or absent (not at creation)
func parseLinkForm(get func(string) string, creating bool) (c service.LinkChange, field, msg string) {
	switch e := get("expiry"); e {
	case "", "keep":
	case "never":
		never := time.Time{}
		c.ExpiresAt = &never
	case "at":
		t, err := time.ParseInLocation(datetimeLocal, get("expires_at"), time.UTC)
		if err != nil {
			return c, "expires_at", "Give the date and time the link ends (in UTC), or choose another expiry."
		}
		c.ExpiresAt = &t
	default:
		d, ok := expiryChoices[e]
		if !ok {
			return c, "expiry", "Choose when the link expires."
		}
		c.ExpiresIn = &d
	}
	oneTime := get("one_time") == "yes"
	if !creating {
		n := int64(0)
		if v := strings.TrimSpace(get("max_downloads")); v != "" {
			var err error
			if n, err = strconv.ParseInt(v, 10, 64); err != nil || n < 0 {
				return c, "max_downloads", "The download limit is a whole number, such as 1 or 10; leave it empty for no limit."
			}
		}
		if oneTime && n != 0 && n != 1 {
			return c, "max_downloads", "A one-time link allows 1 download: untick one-time or empty the limit."
		}
		c.MaxDownloads = &n
	}
	if oneTime {
		one := int64(1)
		c.MaxDownloads = &one
	}
	pw := get("password")
	switch {
	case pw != "" && get("remove_password") == "yes":
		return c, "password", "Either give a new password or remove it, not both."
	case pw != "":
		c.Password = &pw
	case get("remove_password") == "yes" && !creating:
		none := ""
		c.Password = &none
	}
	if !creating {
		remove, reveal := get("remove_when_ended") == "yes", fileframe.RevealNothing
		if get("reveal_name") == "yes" {
			reveal = fileframe.RevealName
		}
		c.RemoveWhenEnded, c.Reveal = &remove, &reveal
	}
	return c, "", ""
}

// linkFormFields are the link form's fields kept on the page after a
// mistake (never the password).
var linkFormFields = []string{"expiry", "expires_at", "max_downloads", "one_time", "remove_password", "remove_when_ended", "reveal_name"}

// setLinkForm serves POST /files/{id}/link: the file page's link form.
// A mistake shows the page again with the form as it was sent, but for
// the password.
func (s *Server) setLinkForm(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.fileForm(w, r, user)
	if !ok {
		return
	}
	change, field, msg := parseLinkForm(r.PostFormValue, false)
	if msg == "" {
		_, err := s.svc.SetLink(r.Context(), user.account, f.ID, change)
		if fileframe.ErrorCode(err) == fileframe.CodeInvalidField {
			field, msg = "link", fileframe.ErrorMessage(err)
		} else if s.failed(w, r, user, err, fileGone) {
			return
		}
	}
	if msg != "" {
		s.renderFileError(w, r, user, f, http.StatusUnprocessableEntity, func(p *fileDetail) {
			p.Errors[field] = msg
			p.LinkFormSent = true
			for _, k := range linkFormFields {
				p.Form["link_"+k] = r.PostFormValue(k)
			}
		})
		return
	}
	s.logFor(r).Info("app: link changed", "file_id", f.ID, "account_id", user.account.ID)
	appRedirect(w, r, fileURL(f, "?done=link#link-title"))
}

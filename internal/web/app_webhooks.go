package web

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// The webhooks page of the web application (docs/webhooks.md): the
// account's endpoints with the form that adds one (its secret shown once,
// as a key's), and each endpoint's delivery log with "Send again". Every
// change goes through the service's use cases, as the API's
// (api_webhooks.go).

// eventChoices describe the event types in the form.
var eventChoices = []struct {
	Type fileframe.EventType
	Hint string
}{
	{fileframe.EventFileCreated, "a file arrives: an upload, or a file sent through a request"},
	{fileframe.EventFileDownloaded, "complete downloads, counted about once a second"},
	{fileframe.EventPagePublished, "a custom page goes live"},
	{fileframe.EventPageUnpublished, "a custom page goes back to draft"},
	{fileframe.EventLinkExpired, "a link ends: it expired, or its downloads are used up"},
}

// webhooksPage is the data of app_webhooks.html.
type webhooksPage struct {
	appPage
	Agency bool
	Hooks  []webhookRow
	Events []eventChoice
	Files  []fileChoice
	// NewSecret is the secret of the endpoint just made, shown this once.
	NewSecret string
	NewURL    string
	Max       int
}

type eventChoice struct {
	Type    string
	Hint    string
	Checked bool
}

type fileChoice struct {
	ID, Name string
	Selected bool
}

// webhookRow is one endpoint, ready to show.
type webhookRow struct {
	ID, URL, Description, Created, Secret, Log string
	Events                                     []string
	FileID, FileName                           string
	Paused                                     bool
}

// webhookLogPage is the data of app_webhook.html.
type webhookLogPage struct {
	appPage
	Agency     bool
	Hook       webhookRow
	Deliveries []deliveryRow
	Shown      int
}

// deliveryRow is one delivery of the log, ready to show.
type deliveryRow struct {
	ID, EventID, Type, FileID, State, Created, LastAttempt, Next, Status, Error, Duration string
	Attempts                                                                              int
	Retry                                                                                 string // the form's action
	Sending                                                                               bool
}

// appTime is how the webhooks pages show a time.
func appTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2 Jan 2006 15:04:05 UTC")
}

func (s *Server) webhookRowOf(r *http.Request, h fileframe.Webhook) webhookRow {
	row := webhookRow{ID: string(h.ID), URL: h.URL, Description: h.Description, Created: appTime(h.CreatedAt),
		Secret: apiWebhookOf(h).SecretPrefix, Log: "/webhooks/" + url.PathEscape(string(h.ID)),
		FileID: string(h.FileID), Paused: !h.DisabledAt.IsZero()}
	for _, t := range h.Events {
		row.Events = append(row.Events, string(t))
	}
	if h.FileID != "" {
		if f, err := s.store.FileByID(r.Context(), h.FileID); err == nil && f.AccountID == h.AccountID {
			row.FileName = f.Name
		} else {
			row.FileName = "(deleted)"
		}
	}
	return row
}

// webhooksPageFor loads the account's endpoints and its files into the
// page, the form's choices ticked as form says.
func (s *Server) webhooksPageFor(r *http.Request, user *signedIn, form url.Values) (webhooksPage, error) {
	p := webhooksPage{appPage: s.newAppPage("Webhooks", user), Agency: user.account.Plan.CustomPages(), Max: fileframe.MaxWebhooks}
	p.Styles = append(p.Styles, appAssetURL("app_webhooks.css"))
	hooks, err := s.svc.Webhooks(r.Context(), user.account)
	if err != nil {
		return p, err
	}
	for _, h := range hooks {
		p.Hooks = append(p.Hooks, s.webhookRowOf(r, h))
	}
	ticked := form["events"]
	for _, c := range eventChoices {
		checked := len(ticked) == 0
		for _, t := range ticked {
			checked = checked || t == string(c.Type)
		}
		p.Events = append(p.Events, eventChoice{Type: string(c.Type), Hint: c.Hint, Checked: checked})
	}
	if p.Agency {
		files, err := s.svc.ListFiles(r.Context(), user.account, nil, 200)
		if err != nil {
			return p, err
		}
		for _, f := range files {
			p.Files = append(p.Files, fileChoice{ID: string(f.ID), Name: f.Name, Selected: form.Get("file") == string(f.ID)})
		}
	}
	return p, nil
}

// webhooks serves GET /webhooks.
func (s *Server) webhooks(w http.ResponseWriter, r *http.Request, user *signedIn) {
	p, err := s.webhooksPageFor(r, user, nil)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	switch r.URL.Query().Get("done") {
	case "deleted":
		p.Notice = "The webhook was deleted. Deliveries not yet sent are dropped."
	}
	s.renderApp(w, r, http.StatusOK, "app_webhooks.html", p)
}

// createWebhook serves POST /webhooks: the new endpoint's secret is shown
// on the page that answers the form (never in a URL, never cached).
func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, user *signedIn) {
	nw := service.NewWebhook{URL: r.PostFormValue("url"), FileID: fileframe.FileID(r.PostFormValue("file")),
		Description: r.PostFormValue("description")}
	for _, t := range r.PostForm["events"] {
		nw.Events = append(nw.Events, fileframe.EventType(t))
	}
	form := r.PostForm
	if len(nw.Events) == 0 {
		form = url.Values{"events": {""}, "url": {nw.URL}, "description": {nw.Description}, "file": {string(nw.FileID)}}
	}
	var hook fileframe.Webhook
	var err error
	field, msg := "", ""
	if len(nw.Events) == 0 {
		field, msg = "events", "Tick at least one event."
	} else if hook, err = s.svc.CreateWebhook(r.Context(), user.account, nw); err != nil {
		switch fileframe.ErrorCode(err) {
		case fileframe.CodeInvalidField, fileframe.CodeWebhookURLRefused:
			field, msg = "url", fileframe.ErrorMessage(err)
		case fileframe.CodeWebhookLimit, fileframe.CodeFileNotFound, fileframe.ENOTFOUND:
			field, msg = "", fileframe.ErrorMessage(err)
		default:
			s.appError(w, r, user, err)
			return
		}
	}
	p, perr := s.webhooksPageFor(r, user, form)
	if perr != nil {
		s.appError(w, r, user, perr)
		return
	}
	if msg != "" {
		p.Form["url"], p.Form["description"] = nw.URL, nw.Description
		p.Errors[field] = msg
		s.renderApp(w, r, http.StatusUnprocessableEntity, "app_webhooks.html", p)
		return
	}
	p.NewSecret, p.NewURL = hook.Secret, hook.URL
	s.renderApp(w, r, http.StatusOK, "app_webhooks.html", p)
}

var webhookGone = failure(fileframe.CodeWebhookNotFound, "Webhook not found",
	"There is no such webhook in your account. It may have been deleted.")

// deleteWebhook serves POST /webhooks/{id}/delete.
func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, user *signedIn) {
	err := s.svc.DeleteWebhook(r.Context(), user.account, fileframe.WebhookID(r.PathValue("id")))
	if !s.failed(w, r, user, err, webhookGone) {
		appRedirect(w, r, "/webhooks?done=deleted")
	}
}

// pauseWebhook serves POST /webhooks/{id}/pause and …/resume.
func (s *Server) pauseWebhook(paused bool) appFunc {
	return func(w http.ResponseWriter, r *http.Request, user *signedIn) {
		h, err := s.svc.PauseWebhook(r.Context(), user.account, fileframe.WebhookID(r.PathValue("id")), paused)
		if s.failed(w, r, user, err, webhookGone) {
			return
		}
		done := "resumed"
		if paused {
			done = "paused"
		}
		appRedirect(w, r, "/webhooks/"+url.PathEscape(string(h.ID))+"?done="+done)
	}
}

// webhookLog serves GET /webhooks/{id}: the endpoint's delivery log.
func (s *Server) webhookLog(w http.ResponseWriter, r *http.Request, user *signedIn) {
	h, list, err := s.svc.WebhookDeliveries(r.Context(), user.account, fileframe.WebhookID(r.PathValue("id")))
	if s.failed(w, r, user, err, webhookGone) {
		return
	}
	p := webhookLogPage{appPage: s.newAppPage("Webhooks", user), Agency: user.account.Plan.CustomPages(),
		Hook: s.webhookRowOf(r, h), Shown: service.DeliveriesShown}
	p.Styles = append(p.Styles, appAssetURL("app_webhooks.css"))
	switch r.URL.Query().Get("done") {
	case "retried":
		p.Notice = "The delivery will be sent again within a second or two, with a new retry schedule."
	case "paused":
		p.Notice = "The webhook is paused: it gets no new events, and its pending deliveries wait."
	case "resumed":
		p.Notice = "The webhook is active again; pending deliveries are sent as they come due."
	}
	now := s.now()
	for _, d := range list {
		api := s.apiDeliveryOf(d)
		row := deliveryRow{ID: string(d.ID), EventID: string(d.EventID), Type: string(d.EventType), FileID: string(d.FileID),
			State: api.State, Attempts: d.Attempts, Created: appTime(d.CreatedAt), LastAttempt: appTime(d.LastAttemptAt),
			Error: d.LastError, Sending: d.Sending(now),
			Retry: "/webhooks/" + url.PathEscape(string(h.ID)) + "/deliveries/" + url.PathEscape(string(d.ID)) + "/retry"}
		if d.State == fileframe.DeliveryPending {
			row.Next = appTime(d.NextAttemptAt)
		}
		if d.LastStatus != 0 {
			row.Status = strconv.Itoa(d.LastStatus)
		}
		if !d.LastAttemptAt.IsZero() {
			row.Duration = strconv.FormatInt(d.LastDuration.Milliseconds(), 10) + " ms"
		}
		p.Deliveries = append(p.Deliveries, row)
	}
	s.renderApp(w, r, http.StatusOK, "app_webhook.html", p)
}

// retryDelivery serves POST /webhooks/{id}/deliveries/{deliveryId}/retry:
// "Send again".
func (s *Server) retryDelivery(w http.ResponseWriter, r *http.Request, user *signedIn) {
	id := fileframe.WebhookID(r.PathValue("id"))
	_, err := s.svc.RetryDelivery(r.Context(), user.account, id, fileframe.DeliveryID(r.PathValue("deliveryId")))
	if fileframe.ErrorCode(err) == fileframe.CodeDeliveryNotFound {
		err = failure(fileframe.CodeDeliveryNotFound, "Delivery not found", "There is no such delivery in this webhook's log.")
	}
	if !s.failed(w, r, user, err, webhookGone) {
		appRedirect(w, r, "/webhooks/"+url.PathEscape(string(id))+"?done=retried")
	}
}

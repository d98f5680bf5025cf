package web

import (
	"net/http"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// Webhooks in the REST API (docs/api.md, "Webhooks"; docs/webhooks.md):
// the endpoints of the key's account and their delivery logs, for a
// general key of an Agency account. Each operation is its service use
// case, as the web app's (app_webhooks.go).

// apiWebhook is an endpoint as the API describes it. The secret is in
// the answer of its creation only; later answers show its prefix.
type apiWebhook struct {
	ID          fileframe.WebhookID   `json:"webhookId"`
	URL         string                `json:"url"`
	Events      []fileframe.EventType `json:"events"`
	FileID      *fileframe.FileID     `json:"fileId"`
	Description string                `json:"description"`
	Paused      bool                  `json:"paused"`
	// SecretPrefix is the secret's first characters, to tell secrets
	// apart.
	SecretPrefix string    `json:"secretPrefix"`
	CreatedAt    time.Time `json:"createdAt"`
}

// webhookSecretShown is how much of a secret listings show.
const webhookSecretShown = len("whsec_") + 4

func apiWebhookOf(w fileframe.Webhook) apiWebhook {
	out := apiWebhook{ID: w.ID, URL: w.URL, Events: w.Events, Description: w.Description, Paused: !w.DisabledAt.IsZero(),
		SecretPrefix: w.Secret[:min(len(w.Secret), webhookSecretShown)] + "…", CreatedAt: w.CreatedAt.UTC()}
	if w.FileID != "" {
		id := w.FileID
		out.FileID = &id
	}
	return out
}

// webhookCreated is the answer of POST /api/webhooks: the endpoint with
// its secret, shown this once.
type webhookCreated struct {
	OK bool `json:"ok"`
	apiWebhook
	Secret string `json:"secret"`
}

// apiCreateWebhook is POST /api/webhooks with {"url", "events",
// "fileId", "description"}.
func (s *Server) apiCreateWebhook(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	o, err := parseJSONObject(c.body, false)
	if err != nil {
		return 0, nil, err
	}
	o.only("url", "events", "fileId", "description")
	var nw service.NewWebhook
	nw.URL, _ = o.string("url")
	for _, t := range o.strings("events", 20) {
		nw.Events = append(nw.Events, fileframe.EventType(t))
	}
	file, _ := o.string("fileId")
	nw.FileID = fileframe.FileID(file)
	nw.Description, _ = o.string("description")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	if raw, ok := o.fields["events"]; ok && !isNull(raw) && len(nw.Events) == 0 {
		return 0, nil, fileframe.Errorf(fileframe.CodeInvalidField, "events is empty; leave it out for every event type, or name some.")
	}
	if nw.FileID != "" {
		if _, err := s.reachFile(r.Context(), c.caller, nw.FileID); err != nil {
			return 0, nil, err
		}
	}
	hook, err := s.svc.CreateWebhook(r.Context(), c.caller.account, nw)
	if err != nil {
		return 0, nil, err
	}
	w.Header().Set("Location", "/api/webhooks/"+string(hook.ID)+"/deliveries")
	return http.StatusCreated, webhookCreated{OK: true, apiWebhook: apiWebhookOf(hook), Secret: hook.Secret}, nil
}

// webhookList is the answer of GET /api/webhooks.
type webhookList struct {
	OK       bool         `json:"ok"`
	Webhooks []apiWebhook `json:"webhooks"`
}

// apiListWebhooks is GET /api/webhooks: every endpoint, newest first.
func (s *Server) apiListWebhooks(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	list, err := s.svc.Webhooks(r.Context(), c.caller.account)
	if err != nil {
		return 0, nil, err
	}
	out := webhookList{OK: true, Webhooks: []apiWebhook{}}
	for _, h := range list {
		out.Webhooks = append(out.Webhooks, apiWebhookOf(h))
	}
	return http.StatusOK, out, nil
}

// deletedWebhook is the answer of DELETE /api/webhooks/{id}.
type deletedWebhook struct {
	OK      bool                `json:"ok"`
	ID      fileframe.WebhookID `json:"webhookId"`
	Deleted bool                `json:"deleted"`
}

// apiDeleteWebhook is DELETE /api/webhooks/{id}.
func (s *Server) apiDeleteWebhook(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	id := fileframe.WebhookID(r.PathValue("id"))
	if err := s.svc.DeleteWebhook(r.Context(), c.caller.account, id); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, deletedWebhook{OK: true, ID: id, Deleted: true}, nil
}

// apiDelivery is one delivery of an endpoint's log.
type apiDelivery struct {
	ID        fileframe.DeliveryID `json:"deliveryId"`
	EventID   fileframe.EventID    `json:"eventId"`
	Type      fileframe.EventType  `json:"type"`
	FileID    fileframe.FileID     `json:"fileId"`
	State     string               `json:"state"`
	Attempts  int                  `json:"attempts"`
	CreatedAt time.Time            `json:"createdAt"`
	// NextAttemptAt is when the next attempt is due; null once delivered
	// or failed.
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	LastAttemptAt *time.Time `json:"lastAttemptAt"`
	// LastStatus is the HTTP status of the last answer; null when there
	// was none.
	LastStatus     *int       `json:"lastStatus"`
	LastError      string     `json:"lastError"`
	LastDurationMs int64      `json:"lastDurationMs"`
	FinishedAt     *time.Time `json:"finishedAt"`
}

// deliveryState is a delivery's state as people and the API see it:
// pending, sending (an instance holds its claim), delivered or failed.
func deliveryState(d fileframe.Delivery, now time.Time) string {
	if d.Sending(now) {
		return "sending"
	}
	return string(d.State)
}

func (s *Server) apiDeliveryOf(d fileframe.Delivery) apiDelivery {
	out := apiDelivery{ID: d.ID, EventID: d.EventID, Type: d.EventType, FileID: d.FileID, State: deliveryState(d, s.now()),
		Attempts: d.Attempts, CreatedAt: d.CreatedAt.UTC(), NextAttemptAt: timeOrNil(d.NextAttemptAt),
		LastAttemptAt: timeOrNil(d.LastAttemptAt), LastError: d.LastError, LastDurationMs: d.LastDuration.Milliseconds(),
		FinishedAt: timeOrNil(d.FinishedAt)}
	if d.State != fileframe.DeliveryPending {
		out.NextAttemptAt = nil
	}
	if d.LastStatus != 0 {
		st := d.LastStatus
		out.LastStatus = &st
	}
	return out
}

// deliveryList is the answer of GET /api/webhooks/{id}/deliveries.
type deliveryList struct {
	OK         bool                `json:"ok"`
	ID         fileframe.WebhookID `json:"webhookId"`
	Deliveries []apiDelivery       `json:"deliveries"`
}

// apiListDeliveries is GET /api/webhooks/{id}/deliveries: the newest
// deliveries (service.DeliveriesShown), newest first.
func (s *Server) apiListDeliveries(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	hook, list, err := s.svc.WebhookDeliveries(r.Context(), c.caller.account, fileframe.WebhookID(r.PathValue("id")))
	if err != nil {
		return 0, nil, err
	}
	out := deliveryList{OK: true, ID: hook.ID, Deliveries: []apiDelivery{}}
	for _, d := range list {
		out.Deliveries = append(out.Deliveries, s.apiDeliveryOf(d))
	}
	return http.StatusOK, out, nil
}

// retriedDelivery is the answer of POST …/deliveries/{deliveryId}/retry.
type retriedDelivery struct {
	OK       bool        `json:"ok"`
	Delivery apiDelivery `json:"delivery"`
}

// apiRetryDelivery is POST /api/webhooks/{id}/deliveries/{deliveryId}/retry:
// "send again".
func (s *Server) apiRetryDelivery(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	d, err := s.svc.RetryDelivery(r.Context(), c.caller.account, fileframe.WebhookID(r.PathValue("id")),
		fileframe.DeliveryID(r.PathValue("deliveryId")))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, retriedDelivery{OK: true, Delivery: s.apiDeliveryOf(d)}, nil
}

package web

import (
	"context"
	"net/http"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// Webhooks in the REST API (docs/api.md, "Webhooks"; docs/webhooks.md):
// the endpoints of the key's account and their delivery logs, for a
// general key of an Agency account. Each operation is its service use
// case, as the web app's (app_webhooks.go) and MCP's (mcp_webhooks.go):
// the REST handlers parse the request and call the same *Op function as
// the tools.

// webhooksScope is what a page-bound key is told it cannot reach, on
// every webhook route and tool.
const webhooksScope = "Webhooks"

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
	nw.Events = eventTypes(o.strings("events", service.MaxWebhookEventNames))
	file, _ := o.string("fileId")
	nw.FileID = fileframe.FileID(file)
	nw.Description, _ = o.string("description")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	out, err := s.createWebhookOp(r.Context(), c.caller, nw)
	if err != nil {
		return 0, nil, err
	}
	w.Header().Set("Location", "/api/webhooks/"+string(out.ID))
	return http.StatusCreated, out, nil
}

// eventTypes are the event types of a request; nil when it names none
// (every type), empty when it gives an empty list, which
// createWebhookOp refuses.
func eventTypes(names []string) []fileframe.EventType {
	if names == nil {
		return nil
	}
	out := make([]fileframe.EventType, len(names))
	for i, n := range names {
		out[i] = fileframe.EventType(n)
	}
	return out
}

// createWebhookOp is POST /api/webhooks and create_webhook.
func (s *Server) createWebhookOp(ctx context.Context, c apiCaller, nw service.NewWebhook) (webhookCreated, error) {
	if nw.Events != nil && len(nw.Events) == 0 {
		return webhookCreated{}, fileframe.Errorf(fileframe.CodeInvalidField, "events is empty; leave it out for every event type, or name some.")
	}
	if nw.FileID != "" {
		if _, err := s.reachFile(ctx, c, nw.FileID); err != nil {
			return webhookCreated{}, err
		}
	}
	hook, err := s.svc.CreateWebhook(ctx, c.account, nw)
	if err != nil {
		return webhookCreated{}, err
	}
	return webhookCreated{OK: true, apiWebhook: apiWebhookOf(hook), Secret: hook.Secret}, nil
}

// webhookList is the answer of GET /api/webhooks.
type webhookList struct {
	OK       bool         `json:"ok"`
	Webhooks []apiWebhook `json:"webhooks"`
}

// apiListWebhooks is GET /api/webhooks: every endpoint, newest first.
func (s *Server) apiListWebhooks(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	out, err := s.webhooksOp(r.Context(), c.caller)
	return http.StatusOK, out, err
}

// webhooksOp is GET /api/webhooks and list_webhooks.
func (s *Server) webhooksOp(ctx context.Context, c apiCaller) (webhookList, error) {
	list, err := s.svc.Webhooks(ctx, c.account)
	if err != nil {
		return webhookList{}, err
	}
	out := webhookList{OK: true, Webhooks: []apiWebhook{}}
	for _, h := range list {
		out.Webhooks = append(out.Webhooks, apiWebhookOf(h))
	}
	return out, nil
}

// webhookAnswer is the answer of GET and PATCH /api/webhooks/{id}: the
// endpoint as the list shows it.
type webhookAnswer struct {
	OK bool `json:"ok"`
	apiWebhook
}

// apiGetWebhook is GET /api/webhooks/{id}.
func (s *Server) apiGetWebhook(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	hook, err := s.svc.OwnWebhook(r.Context(), c.caller.account, fileframe.WebhookID(r.PathValue("id")))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, webhookAnswer{OK: true, apiWebhook: apiWebhookOf(hook)}, nil
}

// apiPauseWebhook is PATCH /api/webhooks/{id} with {"paused": true}
// (pause) or {"paused": false} (resume), and nothing else.
func (s *Server) apiPauseWebhook(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	o, err := parseJSONObject(c.body, false)
	if err != nil {
		return 0, nil, err
	}
	o.only("paused")
	if raw, ok := o.fields["paused"]; !ok || isNull(raw) {
		o.problems = append(o.problems, "paused is required: true pauses the endpoint, false resumes it")
	}
	paused := o.bool("paused")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	out, err := s.pauseWebhookOp(r.Context(), c.caller, fileframe.WebhookID(r.PathValue("id")), paused)
	return http.StatusOK, out, err
}

// pauseWebhookOp is PATCH /api/webhooks/{id} and pause_webhook.
func (s *Server) pauseWebhookOp(ctx context.Context, c apiCaller, id fileframe.WebhookID, paused bool) (webhookAnswer, error) {
	hook, err := s.svc.PauseWebhook(ctx, c.account, id, paused)
	if err != nil {
		return webhookAnswer{}, err
	}
	return webhookAnswer{OK: true, apiWebhook: apiWebhookOf(hook)}, nil
}

// deletedWebhook is the answer of DELETE /api/webhooks/{id}.
type deletedWebhook struct {
	OK      bool                `json:"ok"`
	ID      fileframe.WebhookID `json:"webhookId"`
	Deleted bool                `json:"deleted"`
}

// apiDeleteWebhook is DELETE /api/webhooks/{id}.
func (s *Server) apiDeleteWebhook(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	out, err := s.deleteWebhookOp(r.Context(), c.caller, fileframe.WebhookID(r.PathValue("id")))
	return http.StatusOK, out, err
}

// deleteWebhookOp is DELETE /api/webhooks/{id} and delete_webhook.
func (s *Server) deleteWebhookOp(ctx context.Context, c apiCaller, id fileframe.WebhookID) (deletedWebhook, error) {
	if err := s.svc.DeleteWebhook(ctx, c.account, id); err != nil {
		return deletedWebhook{}, err
	}
	return deletedWebhook{OK: true, ID: id, Deleted: true}, nil
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
	out, err := s.deliveriesOp(r.Context(), c.caller, fileframe.WebhookID(r.PathValue("id")))
	return http.StatusOK, out, err
}

// deliveriesOp is GET /api/webhooks/{id}/deliveries and list_deliveries.
func (s *Server) deliveriesOp(ctx context.Context, c apiCaller, id fileframe.WebhookID) (deliveryList, error) {
	hook, list, err := s.svc.WebhookDeliveries(ctx, c.account, id)
	if err != nil {
		return deliveryList{}, err
	}
	out := deliveryList{OK: true, ID: hook.ID, Deliveries: []apiDelivery{}}
	for _, d := range list {
		out.Deliveries = append(out.Deliveries, s.apiDeliveryOf(d))
	}
	return out, nil
}

// retriedDelivery is the answer of POST …/deliveries/{deliveryId}/retry.
type retriedDelivery struct {
	OK       bool        `json:"ok"`
	Delivery apiDelivery `json:"delivery"`
}

// apiRetryDelivery is POST /api/webhooks/{id}/deliveries/{deliveryId}/retry:
// "send again".
func (s *Server) apiRetryDelivery(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	out, err := s.retryDeliveryOp(r.Context(), c.caller, fileframe.WebhookID(r.PathValue("id")),
		fileframe.DeliveryID(r.PathValue("deliveryId")))
	return http.StatusOK, out, err
}

// retryDeliveryOp is POST …/deliveries/{deliveryId}/retry and
// retry_delivery.
func (s *Server) retryDeliveryOp(ctx context.Context, c apiCaller, id fileframe.WebhookID, delivery fileframe.DeliveryID) (retriedDelivery, error) {
	d, err := s.svc.RetryDelivery(ctx, c.account, id, delivery)
	if err != nil {
		return retriedDelivery{}, err
	}
	return retriedDelivery{OK: true, Delivery: s.apiDeliveryOf(d)}, nil
}

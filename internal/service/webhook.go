package service

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/webhook"
)

// Webhooks (issue 14): the owner's endpoints and their delivery logs, for
// the web app (app_webhooks.go), the API (api_webhooks.go) and MCP alike.
// Events and deliveries themselves are written by the store with the
// changes they report, and sent by webhook.Worker.

// MaxWebhookDescription is the longest description, in characters.
const MaxWebhookDescription = 200

// MaxWebhookEventNames bounds the event type names a new endpoint's
// events may list (repeats included), whichever surface it comes from.
const MaxWebhookEventNames = 20

// DeliveriesShown is how many deliveries of an endpoint the log shows.
const DeliveriesShown = 100

// NewWebhook is an endpoint to create.
type NewWebhook struct {
	URL string
	// Events are the event types it receives; empty means all of them.
	Events []fileframe.EventType
	// FileID limits it to one of the account's files; empty for all.
	FileID      fileframe.FileID
	Description string
}

// CreateWebhook registers an endpoint of the account (Agency only) and
// returns it with its secret, which its owner sees this once. The URL
// must pass the SSRF rules of the server's webhook client (public https,
// unless the operator allows private targets); a file must be one of the
// account's (else file_not_found, as for a missing one).
func (s *Service) CreateWebhook(ctx context.Context, a fileframe.Account, nw NewWebhook) (fileframe.Webhook, error) {
	if err := customPages(a); err != nil {
		return fileframe.Webhook{}, err
	}
	events, err := checkEventTypes(nw.Events)
	if err != nil {
		return fileframe.Webhook{}, err
	}
	desc := strings.TrimSpace(nw.Description)
	if !utf8.ValidString(desc) || utf8.RuneCountInString(desc) > MaxWebhookDescription || strings.ContainsFunc(desc, fileframe.IsBreakOrControl) {
		return fileframe.Webhook{}, fileframe.Errorf(fileframe.CodeInvalidField,
			"description is at most %d characters on one line.", MaxWebhookDescription)
	}
	if i := strings.IndexFunc(desc, fileframe.IsInvisibleFormat); i >= 0 {
		r, _ := utf8.DecodeRuneInString(desc[i:])
		return fileframe.Webhook{}, fileframe.Errorf(fileframe.CodeInvalidField,
			"description cannot contain invisible characters such as U+%04X (text direction overrides, zero-width characters), which could make it read as another.", r)
	}
	if nw.FileID != "" {
		if !fileframe.LooksLikeFileID(string(nw.FileID)) {
			return fileframe.Webhook{}, fileNotFound(nw.FileID)
		}
		if _, err := s.OwnFile(ctx, a, nw.FileID); err != nil {
			return fileframe.Webhook{}, err
		}
	}
	existing, err := s.store.WebhooksByAccount(ctx, a.ID)
	if err != nil {
		return fileframe.Webhook{}, err
	}
	if len(existing) >= fileframe.MaxWebhooks {
		return fileframe.Webhook{}, fileframe.Errorf(fileframe.CodeWebhookLimit,
			"An account has at most %d webhooks; delete one first.", fileframe.MaxWebhooks)
	}
	target, err := s.webhooks.CheckURL(ctx, nw.URL)
	if err != nil {
		return fileframe.Webhook{}, err
	}
	return s.store.CreateWebhook(ctx, fileframe.Webhook{
		AccountID: a.ID, URL: target, Secret: webhook.NewSecret(), Events: events, FileID: nw.FileID,
		Description: desc, CreatedAt: s.now(),
	})
}

// checkEventTypes returns the types as stored: known, each once, in
// fileframe.EventTypes' order; none means all.
func checkEventTypes(types []fileframe.EventType) ([]fileframe.EventType, error) {
	if len(types) == 0 {
		return fileframe.EventTypes, nil
	}
	if len(types) > MaxWebhookEventNames {
		return nil, fileframe.Errorf(fileframe.CodeInvalidField, "events holds at most %d names, got %d.", MaxWebhookEventNames, len(types))
	}
	var out []fileframe.EventType
	for _, t := range types {
		if !t.Known() {
			names := make([]string, len(fileframe.EventTypes))
			for i, k := range fileframe.EventTypes {
				names[i] = string(k)
			}
			return nil, fileframe.Errorf(fileframe.CodeInvalidField, "%q is not an event type; they are %s.",
				truncate(string(t), 40), strings.Join(names, ", "))
		}
	}
	for _, t := range fileframe.EventTypes {
		if slices.Contains(types, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Webhooks lists the account's endpoints, newest first (secrets
// included: the callers show only their prefix).
func (s *Service) Webhooks(ctx context.Context, a fileframe.Account) ([]fileframe.Webhook, error) {
	return s.store.WebhooksByAccount(ctx, a.ID)
}

// OwnWebhook returns the account's endpoint with that ID; another
// account's is webhook_not_found, like a missing one.
func (s *Service) OwnWebhook(ctx context.Context, a fileframe.Account, id fileframe.WebhookID) (fileframe.Webhook, error) {
	if !id.Valid() {
		return fileframe.Webhook{}, webhookNotFound(id)
	}
	w, err := s.store.WebhookByID(ctx, id)
	if fileframe.IsNotFound(err) || err == nil && w.AccountID != a.ID {
		return fileframe.Webhook{}, webhookNotFound(id)
	}
	return w, err
}

func webhookNotFound(id fileframe.WebhookID) error {
	return fileframe.Errorf(fileframe.CodeWebhookNotFound, "There is no webhook %q in this account.", truncate(string(id), 40))
}

// DeleteWebhook deletes one of the account's endpoints with its delivery
// log; deliveries not yet sent are dropped.
func (s *Service) DeleteWebhook(ctx context.Context, a fileframe.Account, id fileframe.WebhookID) error {
	w, err := s.OwnWebhook(ctx, a, id)
	if err != nil {
		return err
	}
	err = s.store.DeleteWebhook(ctx, w.ID)
	if fileframe.IsNotFound(err) {
		return webhookNotFound(id)
	}
	return err
}

// PauseWebhook pauses (or resumes) one of the account's endpoints: while
// paused it gets no new events and its pending deliveries wait.
func (s *Service) PauseWebhook(ctx context.Context, a fileframe.Account, id fileframe.WebhookID, paused bool) (fileframe.Webhook, error) {
	if err := customPages(a); err != nil {
		return fileframe.Webhook{}, err
	}
	w, err := s.OwnWebhook(ctx, a, id)
	if err != nil {
		return fileframe.Webhook{}, err
	}
	var at time.Time // zero: resumed
	if paused {
		at = s.now()
	}
	if err := s.store.SetWebhookDisabled(ctx, w.ID, at); err != nil {
		return fileframe.Webhook{}, err
	}
	return s.store.WebhookByID(ctx, w.ID)
}

// WebhookDeliveries returns the delivery log of one of the account's
// endpoints, newest first, at most DeliveriesShown.
func (s *Service) WebhookDeliveries(ctx context.Context, a fileframe.Account, id fileframe.WebhookID) (fileframe.Webhook, []fileframe.Delivery, error) {
	w, err := s.OwnWebhook(ctx, a, id)
	if err != nil {
		return w, nil, err
	}
	list, err := s.store.Deliveries(ctx, w.ID, DeliveriesShown)
	if fileframe.IsNotFound(err) {
		return w, nil, webhookNotFound(id)
	}
	return w, list, err
}

// RetryDelivery sends one delivery of the account's endpoint again ("send
// again"): due at once, with a fresh retry schedule, whatever its state,
// under the same webhook-id. A delivery being sent at that moment is
// delivery_busy; another endpoint's is delivery_not_found.
func (s *Service) RetryDelivery(ctx context.Context, a fileframe.Account, id fileframe.WebhookID, delivery fileframe.DeliveryID) (fileframe.Delivery, error) {
	if err := customPages(a); err != nil {
		return fileframe.Delivery{}, err
	}
	w, err := s.OwnWebhook(ctx, a, id)
	if err != nil {
		return fileframe.Delivery{}, err
	}
	notFound := fileframe.Errorf(fileframe.CodeDeliveryNotFound, "There is no delivery %q of webhook %s.", truncate(string(delivery), 40), w.ID)
	if !delivery.Valid() {
		return fileframe.Delivery{}, notFound
	}
	d, err := s.store.DeliveryByID(ctx, delivery)
	if fileframe.IsNotFound(err) || err == nil && d.WebhookID != w.ID {
		return fileframe.Delivery{}, notFound
	} else if err != nil {
		return fileframe.Delivery{}, err
	}
	d, err = s.store.RetryDelivery(ctx, d.ID, s.now())
	switch fileframe.ErrorCode(err) {
	case fileframe.ECONFLICT:
		return fileframe.Delivery{}, fileframe.Errorf(fileframe.CodeDeliveryBusy,
			"The delivery is being sent right now; see its result in a few seconds.")
	case fileframe.ENOTFOUND:
		return fileframe.Delivery{}, notFound
	}
	return d, err
}

package fileframe

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Webhooks (issue 14): an owner on Agency registers endpoints, https URLs
// that receive signed POSTs (the Standard Webhooks specification,
// internal/webhook) when something happens to the account's files. The
// stores write each event, and one delivery per endpoint that wants it, in
// the same transaction as the change (the outbox); every serve instance
// then claims due deliveries and sends them (internal/webhook's Worker).

// WebhookID identifies a webhook endpoint.
type WebhookID string

// NewWebhookID returns a fresh random endpoint ID.
func NewWebhookID() WebhookID { return WebhookID("wh_" + RandomBase62(16)) }

// Valid reports whether id has the shape NewWebhookID gives.
func (id WebhookID) Valid() bool { return validID(string(id), "wh_", 16) }

// EventID identifies an event; it is the webhook-id header of its
// deliveries, the same on every attempt and every endpoint, so that a
// receiver can drop a repeat.
type EventID string

// NewEventID returns a fresh random event ID.
func NewEventID() EventID { return EventID("msg_" + RandomBase62(24)) }

// DeliveryID identifies one event's delivery to one endpoint.
type DeliveryID string

// NewDeliveryID returns a fresh random delivery ID.
func NewDeliveryID() DeliveryID { return DeliveryID("dl_" + RandomBase62(16)) }

// Valid reports whether id has the shape NewDeliveryID gives.
func (id DeliveryID) Valid() bool { return validID(string(id), "dl_", 16) }

// EventType names what happened.
type EventType string

// The event types.
const (
	// EventFileCreated: a file came into the account (an upload of any
	// kind, or a file received through a file request, unshared).
	EventFileCreated EventType = "file.created"
	// EventFileDownloaded: complete downloads of a file, counted as the
	// download counter writes them: one event per file per flush (about
	// a second) of each instance, with the number in Count.
	EventFileDownloaded EventType = "file.downloaded"
	// EventPagePublished: a revision of the file's custom page went live
	// (Revision).
	EventPagePublished EventType = "page.published"
	// EventPageUnpublished: the custom page went back to draft; Revision
	// is the one that was live.
	EventPageUnpublished EventType = "page.unpublished"
	// EventLinkExpired: the file's link ended (Reason: expired or
	// used_up).
	EventLinkExpired EventType = "link.expired"
)

// EventTypes are every event type, in the order forms and docs list them.
var EventTypes = []EventType{EventFileCreated, EventFileDownloaded, EventPagePublished, EventPageUnpublished, EventLinkExpired}

// Known reports whether t is one of EventTypes.
func (t EventType) Known() bool { return slices.Contains(EventTypes, t) }

// MaxWebhooks is how many endpoints one account may have.
const MaxWebhooks = 20

// Webhook is an endpoint that receives the account's events.
type Webhook struct {
	ID        WebhookID
	AccountID AccountID
	// URL is where events are POSTed: https, and public unless the
	// operator allows private targets (internal/webhook's CheckURL).
	URL string
	// Secret signs the deliveries: "whsec_" and the base64 of the key
	// (Standard Webhooks). Shown to the owner once, when made.
	Secret string
	// Events are the types the endpoint receives (at least one).
	Events []EventType
	// FileID, when set, limits the endpoint to the events of that file
	// (one of the account's); else it receives those of every file.
	FileID      FileID
	Description string
	CreatedAt   time.Time
	// DisabledAt is when the owner paused the endpoint; zero while it
	// receives events. A paused endpoint gets no new events and its
	// pending deliveries wait.
	DisabledAt time.Time
}

// Wants reports whether the endpoint receives an event of type t about
// file f.
func (w Webhook) Wants(t EventType, f FileID) bool {
	return w.DisabledAt.IsZero() && slices.Contains(w.Events, t) && (w.FileID == "" || w.FileID == f)
}

// EventList is how the stores keep an endpoint's event types: one string,
// each type between commas (",file.created,link.expired,"), so that one
// type is matched with instr or strpos in either dialect.
func EventList(types []EventType) string {
	var b strings.Builder
	b.WriteString(",")
	for _, t := range types {
		b.WriteString(string(t))
		b.WriteString(",")
	}
	return b.String()
}

// ParseEventList is the inverse of EventList.
func ParseEventList(s string) []EventType {
	var out []EventType
	for _, p := range strings.Split(s, ",") {
		if p != "" {
			out = append(out, EventType(p))
		}
	}
	return out
}

// EventData is the data member of an event's payload: the file it is
// about, and what happened. PublicURL is filled in when the event is
// delivered (the stores do not know the base URL).
type EventData struct {
	FileID      FileID `json:"fileId"`
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Size        int64  `json:"size"`
	ContentType string `json:"contentType,omitempty"`
	Slug        string `json:"slug"`
	URL         string `json:"url"`
	PublicURL   string `json:"publicUrl"`
	// Shared is false for a file received through a file request, whose
	// link does not work until the owner shares it.
	Shared bool `json:"shared"`
	// Revision is the page revision published or taken offline.
	Revision int `json:"revision,omitempty"`
	// Count is the complete downloads this event reports; Downloads the
	// file's total after them.
	Count     int64 `json:"count,omitempty"`
	Downloads int64 `json:"downloads,omitempty"`
	// Reason is why a link ended: expired or used_up.
	Reason LinkState `json:"reason,omitempty"`
}

// Event is something that happened to one of an account's files.
type Event struct {
	ID        EventID
	AccountID AccountID
	Type      EventType
	FileID    FileID
	Data      EventData
	CreatedAt time.Time
}

// NewFileEvent returns a new event of type t about f at at.
func NewFileEvent(t EventType, f File, at time.Time) Event {
	return Event{
		ID: NewEventID(), AccountID: f.AccountID, Type: t, FileID: f.ID, CreatedAt: at,
		Data: EventData{FileID: f.ID, Kind: string(fileKindOrFile(f.Kind)), Name: f.Name, Size: f.Size, ContentType: f.ContentType,
			Slug: f.Slug, URL: f.URL(), Shared: f.Shared},
	}
}

// PageEvent returns the event of f's page whose live revision changed
// from old to live (page.published, or page.unpublished naming old); ok is
// false when it did not change.
func PageEvent(f File, old, live int, at time.Time) (ev Event, ok bool) {
	if old == live {
		return Event{}, false
	}
	ev = NewFileEvent(EventPagePublished, f, at)
	ev.Data.Revision = live
	if live == 0 {
		ev.Type, ev.Data.Revision = EventPageUnpublished, old
	}
	return ev, true
}

// LinkEndedEvent returns the link.expired event of f, whose link ended
// for reason (LinkExpired or LinkUsedUp), noticed at at.
func LinkEndedEvent(f File, reason LinkState, at time.Time) Event {
	ev := NewFileEvent(EventLinkExpired, f, at)
	ev.Data.Reason = reason
	return ev
}

// DownloadedEvent returns the file.downloaded event of n complete
// downloads of f (f.Downloads already counting them).
func DownloadedEvent(f File, n int64, at time.Time) Event {
	ev := NewFileEvent(EventFileDownloaded, f, at)
	ev.Data.Count, ev.Data.Downloads = n, f.Downloads
	return ev
}

func fileKindOrFile(k FileKind) FileKind {
	if k == "" {
		return FileKindFile
	}
	return k
}

// DeliveryState is where a delivery stands.
type DeliveryState string

const (
	// DeliveryPending: an attempt is due at NextAttemptAt (or running).
	DeliveryPending DeliveryState = "pending"
	// DeliveryDelivered: the endpoint answered 2xx.
	DeliveryDelivered DeliveryState = "delivered"
	// DeliveryFailed: every attempt of WebhookSchedule failed.
	DeliveryFailed DeliveryState = "failed"
)

// Delivery is one event's delivery to one endpoint, with its last attempt.
type Delivery struct {
	ID        DeliveryID
	WebhookID WebhookID
	AccountID AccountID
	EventID   EventID
	EventType EventType
	FileID    FileID
	State     DeliveryState
	// Attempts counts every attempt made, "send again" included.
	Attempts int
	// SeriesStart is Attempts when the owner last asked to send it again:
	// the retry schedule counts from there.
	SeriesStart   int
	NextAttemptAt time.Time // zero once delivered or failed
	// LeasedUntil is set while an instance sends it (its claim).
	LeasedUntil   time.Time
	LastAttemptAt time.Time
	// LastStatus is the HTTP status of the last answer; 0 when there was
	// none (the connection failed, the address was refused, time ran out).
	LastStatus   int
	LastError    string
	LastDuration time.Duration
	CreatedAt    time.Time
	// FinishedAt is when it was delivered or failed for good.
	FinishedAt time.Time
}

// Sending reports whether an instance holds a claim on the delivery at
// now (an attempt is running).
func (d Delivery) Sending(now time.Time) bool {
	return d.State == DeliveryPending && now.Before(d.LeasedUntil)
}

// WebhookSchedule is when the attempts of a delivery are made, each after
// the one before failed: at once, then 5 seconds, 5 minutes, 30 minutes,
// 2, 5, 10 and 10 hours later (the Standard Webhooks schedule, about 27
// hours in all); after the last one fails the delivery has failed.
var WebhookSchedule = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// NextAttempt returns when the next attempt of a delivery is due after
// its attempt number n of the series (1 for the first) failed at at, by
// schedule; ok is false when n was the last one.
func NextAttempt(schedule []time.Duration, n int, at time.Time) (next time.Time, ok bool) {
	if n < 1 || n >= len(schedule) {
		return time.Time{}, false
	}
	return at.Add(schedule[n]), true
}

// DeliveryAttempt is a delivery an instance claimed (ClaimDeliveries):
// what it sends, and the claim that its result must name.
type DeliveryAttempt struct {
	Delivery Delivery
	Claim    string
	Webhook  Webhook
	Event    Event
}

// DeliveryResult is the outcome of one attempt (FinishDelivery).
type DeliveryResult struct {
	ID       DeliveryID
	Claim    string
	At       time.Time // when the attempt ended
	Status   int
	Error    string
	Duration time.Duration
	// Delivered: the endpoint answered 2xx. Otherwise NextAttemptAt is
	// when to try again, or zero when the delivery has failed.
	Delivered     bool
	NextAttemptAt time.Time
}

// Outcome is the state the result leaves its delivery in, and when the
// delivery finished (zero while it stays pending).
func (r DeliveryResult) Outcome() (DeliveryState, time.Time) {
	switch {
	case r.Delivered:
		return DeliveryDelivered, r.At
	case r.NextAttemptAt.IsZero():
		return DeliveryFailed, r.At
	}
	return DeliveryPending, time.Time{}
}

// WebhookStore keeps webhook endpoints, events and their deliveries (the
// outbox). Errors follow Store's conventions.
//
// Events are written by the stores themselves, in the transaction of the
// change they report, for the endpoints that want them at that moment
// (Webhook.Wants) of an Agency account that is not disabled: CreateFile,
// CreateFileReserved and CreateRequestFile (file.created, files of kind
// file only), AddDownloads (file.downloaded), SavePage and
// SetLiveRevision when the live revision changes (page.published,
// page.unpublished), FinishDownload when the last allowed download
// completes (link.expired, used_up) and NotifyEndedLinks (link.expired,
// expired). Without such an endpoint nothing is written.
type WebhookStore interface {
	// CreateWebhook stores a new endpoint; ID and CreatedAt are set when
	// empty. Its account must exist (else ENOTFOUND); no event types, an
	// unknown one or an empty URL or secret is EINVALID.
	CreateWebhook(ctx context.Context, w Webhook) (Webhook, error)
	// WebhookByID returns an endpoint.
	WebhookByID(ctx context.Context, id WebhookID) (Webhook, error)
	// WebhooksByAccount lists the account's endpoints, newest first.
	WebhooksByAccount(ctx context.Context, id AccountID) ([]Webhook, error)
	// SetWebhookDisabled pauses (at, non-zero) or resumes (zero) an
	// endpoint.
	SetWebhookDisabled(ctx context.Context, id WebhookID, at time.Time) error
	// DeleteWebhook deletes an endpoint with its deliveries.
	DeleteWebhook(ctx context.Context, id WebhookID) error
	// Deliveries lists up to limit deliveries of the endpoint, newest
	// first; a missing endpoint is ENOTFOUND.
	Deliveries(ctx context.Context, id WebhookID, limit int) ([]Delivery, error)
	// DeliveryByID returns a delivery.
	DeliveryByID(ctx context.Context, id DeliveryID) (Delivery, error)
	// RetryDelivery makes a delivery due again at now with a fresh retry
	// schedule ("send again"), whatever its state; one being sent now
	// (its claim is held) is ECONFLICT.
	RetryDelivery(ctx context.Context, id DeliveryID, now time.Time) (Delivery, error)
	// ClaimDeliveries claims up to limit pending deliveries due at now of
	// endpoints that are not paused, oldest first, for lease: in one
	// atomic step across every process sharing the store, each gets a
	// new claim, lease_until now+lease and one more attempt, so that no
	// other caller claims it until the lease ends. Each comes with its
	// endpoint and event.
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]DeliveryAttempt, error)
	// FinishDelivery records an attempt's result and ends the claim. A
	// claim no longer held (its lease ran out and another caller took the
	// delivery, or the delivery was deleted) is ENOTFOUND, and nothing
	// changes.
	FinishDelivery(ctx context.Context, r DeliveryResult) error
	// NotifyEndedLinks finds up to limit files whose links expired by time
	// at now and were not noticed yet, marks them noticed and writes
	// their link.expired events, in one atomic step (across processes,
	// each file once); it returns how many it marked. A link whose expiry
	// or download limit changes afterwards (SetLink) may be noticed again
	// when it ends again.
	NotifyEndedLinks(ctx context.Context, now time.Time, limit int) (int, error)
	// DeleteDeliveriesBefore deletes the deliveries delivered or failed
	// before t, and the events created before t that no delivery needs
	// any more; it returns how many deliveries it deleted.
	DeleteDeliveriesBefore(ctx context.Context, t time.Time) (int, error)
}

// Check returns EINVALID unless w can be stored. Stores call it.
func (w Webhook) Check() error {
	switch {
	case w.URL == "":
		return Errorf(EINVALID, "A webhook needs a URL.")
	case w.Secret == "":
		return Errorf(EINVALID, "A webhook needs a secret.")
	case len(w.Events) == 0:
		return Errorf(EINVALID, "A webhook needs at least one event type.")
	}
	for _, t := range w.Events {
		if !t.Known() {
			return Errorf(EINVALID, "Unknown event type %q.", t)
		}
	}
	return nil
}

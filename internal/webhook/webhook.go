// Package webhook delivers Fileframe's events to the endpoints owners
// register, as the Standard Webhooks specification
// (https://www.standardwebhooks.com) describes them: a POST of a JSON
// payload {"type", "timestamp", "data"} with the headers webhook-id (the
// event's ID, the same on every attempt), webhook-timestamp (the attempt's
// Unix time) and webhook-signature ("v1," and the base64 HMAC-SHA256 of
// "id.timestamp.body" under the endpoint's secret), signed with the
// specification's own Go library.
//
// The stores write events and their deliveries (fileframe.WebhookStore);
// Worker, which serve starts on every instance, claims due deliveries and
// sends them through Client, which connects only to public https
// addresses (unless the operator allows private ones) through
// internal/fetch's pinned, address-checked dialer, follows no redirect,
// and reads at most a few KiB of any answer. docs/webhooks.md is the
// user's side of all this.
package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// The headers of a delivery (Standard Webhooks).
const (
	HeaderID        = standardwebhooks.HeaderWebhookID
	HeaderTimestamp = standardwebhooks.HeaderWebhookTimestamp
	HeaderSignature = standardwebhooks.HeaderWebhookSignature
)

// SecretPrefix starts every endpoint secret.
const SecretPrefix = "whsec_"

// secretBytes is the size of an endpoint's key: 32 random bytes, within
// the specification's 24 to 64.
const secretBytes = 32

// NewSecret returns a new endpoint secret: "whsec_" and the standard
// base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, secretBytes)
	rand.Read(b) // never returns an error (crypto/rand docs, Go 1.24+)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// Sign returns the webhook-signature header of body, sent as event id at
// ts, under secret ("whsec_…"): "v1,<base64 HMAC-SHA256>".
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return "", err
	}
	return wh.Sign(id, ts, body)
}

// Payload is the JSON body of a delivery.
type Payload struct {
	Type      fileframe.EventType `json:"type"`
	Timestamp time.Time           `json:"timestamp"`
	Data      fileframe.EventData `json:"data"`
}

// Body returns the body of ev's deliveries: its payload, with the file's
// publicUrl on base (the app origin). The same event gives the same bytes
// on every attempt.
func Body(ev fileframe.Event, base *url.URL) ([]byte, error) {
	d := ev.Data
	if d.URL != "" && base != nil {
		d.PublicURL = strings.TrimSuffix(base.String(), "/") + d.URL
	}
	return json.Marshal(Payload{Type: ev.Type, Timestamp: ev.CreatedAt.UTC(), Data: d})
}

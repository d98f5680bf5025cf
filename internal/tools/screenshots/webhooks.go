package main

import (
	"context"
	"fmt"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The demo's webhooks (issue 14): the admin's CRM receives file and page
// events, and a Zapier hook the lookbook's downloads. Their IDs and
// secrets are fixed, so that the pictures stay the same from run to run;
// the events are written by the store as the demo's files, pages and
// downloads come in, and their attempts are recorded (deliverWebhooks) as
// if the CRM had been down for a day and slow this morning.
const (
	demoWebhookID fileframe.WebhookID = "wh_Cr7mN4pXq2LtWz9B"
	demoZapierID  fileframe.WebhookID = "wh_Zp3cW9kJ5tNv1BqD"
)

// seedWebhooks makes the admin's endpoints, before the files arrive.
func (d *demo) seedWebhooks(ctx context.Context, a fileframe.Account) error {
	for _, w := range []fileframe.Webhook{
		{ID: demoWebhookID, URL: "https://crm.northwind.studio/hooks/fileframe", Description: "CRM: files and pages of every client",
			Secret: "whsec_dGhlIGRlbW8ncyBzaWduaW5nIHNlY3JldCAwMDA=", CreatedAt: demoNow.Add(-25 * 24 * time.Hour),
			Events: []fileframe.EventType{fileframe.EventFileCreated, fileframe.EventPagePublished, fileframe.EventPageUnpublished, fileframe.EventLinkExpired}},
		{ID: demoZapierID, URL: "https://hooks.zapier.com/hooks/catch/4822931/3kq9zt/", Description: "Zapier: tell #launch in Slack",
			Secret: "whsec_WmFwaWVyIGRlbW8gc2lnbmluZyBzZWNyZXQgMDAx", CreatedAt: demoNow.Add(-3 * time.Hour),
			Events: []fileframe.EventType{fileframe.EventFileDownloaded}, FileID: demoFiles[0].fileID},
	} {
		w.AccountID = a.ID
		if _, err := d.in.store.CreateWebhook(ctx, w); err != nil {
			return err
		}
	}
	return nil
}

// attemptOutcome is what an endpoint answered to one attempt.
type attemptOutcome struct {
	status int
	err    string
}

// outcome decides the demo's answer to attempt n (1 on) of delivery a: the
// press kit's file.created failed all day (the CRM was down), the lookbook's
// times out this morning, the invoice's went through at the second try.
func outcome(d *demo, a fileframe.DeliveryAttempt, n int) attemptOutcome {
	if a.Event.Type != fileframe.EventFileCreated {
		return attemptOutcome{status: 200}
	}
	switch a.Event.FileID {
	case d.files["presskit"].ID:
		return attemptOutcome{502, "HTTP 502: <html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center>"}
	case d.files["lookbook"].ID:
		return attemptOutcome{0, "no answer within 10s"}
	case d.files["invoice"].ID:
		if n == 1 {
			return attemptOutcome{503, "HTTP 503: upstream connect error or disconnect/reset before headers"}
		}
	}
	return attemptOutcome{status: 204}
}

// deliverWebhooks records the attempts of every delivery due by demoNow,
// each made when it came due, on the Standard Webhooks schedule, until
// none is due: the delivery log's screen.
func (d *demo) deliverWebhooks(ctx context.Context) error {
	for round := 0; ; round++ {
		claimed, err := d.in.store.ClaimDeliveries(ctx, demoNow, time.Minute, 1000)
		if err != nil {
			return err
		}
		if len(claimed) == 0 {
			return nil
		}
		if round > 20 {
			return fmt.Errorf("deliveries still due after %d rounds", round)
		}
		for i, a := range claimed {
			n := a.Delivery.Attempts - a.Delivery.SeriesStart
			o := outcome(d, a, n)
			took := time.Duration(60+(i*37+n*53)%240) * time.Millisecond
			if o.status == 0 {
				took = 10 * time.Second
			}
			r := fileframe.DeliveryResult{ID: a.Delivery.ID, Claim: a.Claim, At: a.Delivery.NextAttemptAt.Add(took),
				Status: o.status, Error: o.err, Duration: took, Delivered: o.status/100 == 2}
			if !r.Delivered {
				r.NextAttemptAt, _ = fileframe.NextAttempt(fileframe.WebhookSchedule, n, r.At)
			}
			if err := d.in.store.FinishDelivery(ctx, r); err != nil {
				return err
			}
		}
	}
}

package webhook

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// WorkerConfig is what a Worker needs.
type WorkerConfig struct {
	Store  fileframe.WebhookStore
	Client *Client
	// BaseURL is the app origin, for the payloads' publicUrl.
	BaseURL *url.URL
	Logger  *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Schedule is when attempts are made; default
	// fileframe.WebhookSchedule (tests shorten it).
	Schedule []time.Duration
	// Poll is how often due deliveries are looked for; default 1 s.
	Poll time.Duration
	// ScanEvery is how often links that ended by time are looked for
	// (NotifyEndedLinks); default 30 s.
	ScanEvery time.Duration
	// Concurrency is how many deliveries are sent at once; default 8.
	Concurrency int
	// Lease is how long a claim keeps other instances off a delivery:
	// longer than an attempt can take. Default 2 minutes.
	Lease time.Duration
}

// Worker claims due deliveries and sends them, on every instance: the
// store's claims make sure that no two instances send one delivery at
// once, and an attempt that outlives its lease is the only way one event
// reaches an endpoint twice (a process that died after sending and before
// recording it). Receivers should drop a webhook-id they have seen.
type Worker struct {
	cfg   WorkerConfig
	slots chan struct{} // one per delivery being sent
	wg    sync.WaitGroup
}

// NewWorker returns a Worker for cfg.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if cfg.Store == nil || cfg.Client == nil {
		return nil, errors.New("webhook: Store and Client are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if len(cfg.Schedule) == 0 {
		cfg.Schedule = fileframe.WebhookSchedule
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.ScanEvery <= 0 {
		cfg.ScanEvery = 30 * time.Second
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 8
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 2 * time.Minute
	}
	return &Worker{cfg: cfg, slots: make(chan struct{}, cfg.Concurrency)}, nil
}

// Run sends due deliveries until ctx ends, then waits for the attempts
// in flight (each bounded by the client's timeout) to be recorded.
func (w *Worker) Run(ctx context.Context) {
	defer w.wg.Wait()
	poll := time.NewTicker(w.cfg.Poll)
	defer poll.Stop()
	var lastScan time.Time
	for {
		if now := w.cfg.Now(); now.Sub(lastScan) >= w.cfg.ScanEvery {
			lastScan = now
			if _, err := w.NoticeEndedLinks(ctx); err != nil && ctx.Err() == nil {
				w.cfg.Logger.Warn("webhooks: looking for ended links", "err", err)
			}
		}
		for {
			n, err := w.dispatch(ctx)
			if err != nil && ctx.Err() == nil {
				w.cfg.Logger.Warn("webhooks: claiming deliveries", "err", err)
			}
			if n == 0 || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-poll.C:
		}
	}
}

// NoticeEndedLinks writes the link.expired events of the links that have
// ended by time (fileframe.WebhookStore.NotifyEndedLinks), in batches.
func (w *Worker) NoticeEndedLinks(ctx context.Context) (int, error) {
	const batch = 500
	total := 0
	for {
		n, err := w.cfg.Store.NotifyEndedLinks(ctx, w.cfg.Now(), batch)
		total += n
		if err != nil || n < batch {
			return total, err
		}
	}
}

// dispatch claims as many due deliveries as there are free slots and
// starts sending them; it returns how many it started.
func (w *Worker) dispatch(ctx context.Context) (int, error) {
	free := cap(w.slots) - len(w.slots)
	if free == 0 || ctx.Err() != nil {
		return 0, nil
	}
	claimed, err := w.cfg.Store.ClaimDeliveries(ctx, w.cfg.Now(), w.cfg.Lease, free)
	if err != nil {
		return 0, err
	}
	for _, a := range claimed {
		w.slots <- struct{}{}
		w.wg.Go(func() {
			defer func() { <-w.slots }()
			// An attempt started is finished and recorded even while the
			// server shuts down: the client's timeout bounds it.
			w.attempt(context.WithoutCancel(ctx), a)
		})
	}
	return len(claimed), nil
}

// DeliverDue sends the deliveries due now and waits for their results;
// it returns how many it sent (tests, and a caller without Run).
func (w *Worker) DeliverDue(ctx context.Context) (int, error) {
	total := 0
	for {
		n, err := w.dispatch(ctx)
		total += n
		if err != nil || n == 0 {
			w.wg.Wait()
			return total, err
		}
		w.wg.Wait()
	}
}

// attempt sends one claimed delivery and records the result.
func (w *Worker) attempt(ctx context.Context, a fileframe.DeliveryAttempt) {
	log := w.cfg.Logger.With("delivery", a.Delivery.ID, "webhook", a.Webhook.ID, "event", a.Event.ID, "type", a.Event.Type)
	r := fileframe.DeliveryResult{ID: a.Delivery.ID, Claim: a.Claim}
	body, err := Body(a.Event, w.cfg.BaseURL)
	var res Result
	if err != nil {
		res.Err = err
	} else {
		res = w.cfg.Client.Send(ctx, a.Webhook.URL, string(a.Event.ID), a.Webhook.Secret, w.cfg.Now(), body)
	}
	r.At, r.Status, r.Duration = w.cfg.Now(), res.Status, res.Duration
	if res.OK() {
		r.Delivered = true
	} else {
		r.Error = truncate(res.Err.Error(), 500)
		n := a.Delivery.Attempts - a.Delivery.SeriesStart
		r.NextAttemptAt, _ = fileframe.NextAttempt(w.cfg.Schedule, n, r.At)
	}
	if err := w.cfg.Store.FinishDelivery(ctx, r); err != nil {
		// The lease runs out and another attempt follows: the endpoint may
		// get the event twice, with the same webhook-id.
		log.Warn("webhooks: recording an attempt failed", "err", err, "status", r.Status)
		return
	}
	switch {
	case r.Delivered:
		log.Debug("webhooks: delivered", "status", r.Status, "ms", r.Duration.Milliseconds())
	case r.NextAttemptAt.IsZero():
		log.Warn("webhooks: delivery failed for good", "attempts", a.Delivery.Attempts, "status", r.Status, "err", r.Error)
	default:
		log.Info("webhooks: attempt failed; will retry", "attempt", a.Delivery.Attempts, "status", r.Status, "err", r.Error, "next", r.NextAttemptAt)
	}
}

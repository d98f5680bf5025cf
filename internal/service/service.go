// Package service holds Fileframe's use cases: each thing an owner, an
// agent or an operator does, as one function that the web application, the
// API and the admin CLI all call, so that they follow the same rules. A
// use case checks its input, applies the plan's rules and quotas, and uses
// the Store and Blobs; it knows nothing of HTTP or flags.
package service

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fileframe/fileframe/internal/fetch"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
	"github.com/fileframe/fileframe/internal/webhook"
	"golang.org/x/sync/semaphore"
)

// Config is what a Service needs.
type Config struct {
	Store fileframe.Store
	// Blobs keeps file bytes; only the use cases that add or delete files
	// need it (a CLI command that revokes a key works without S3).
	Blobs fileframe.Blobs
	// Quotas are the upload limits of each plan; a plan without one is
	// unlimited.
	Quotas map[fileframe.Plan]fileframe.Quota
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Changed is called after every write that can change what visitors
	// of a link see (a page saved or published, a plan, an appearance, a
	// file renamed or deleted, a key revoked): the web server's public
	// cache then stops trusting what it holds. Optional.
	Changed func()
	// ServiceHosts are the hosts of the app and content origins: a page
	// may not link to them as a download (htmlcheck.Options).
	ServiceHosts []string
	// Passwords hashes and checks passwords under a memory budget; nil
	// means one with password's defaults.
	Passwords *password.Hasher
	// Fetcher fetches the remote images, fonts and media of custom pages
	// when they are stored (page_assets.go); nil means one with fetch's
	// defaults, which refuses private and special-use addresses.
	Fetcher *fetch.Fetcher
	// Webhooks checks webhook endpoint URLs against the SSRF rules
	// (webhook.Client.CheckURL); nil means one with production's rules:
	// public https addresses only.
	Webhooks *webhook.Client
	// Later tries fn again in the background after it failed with err:
	// a clean-up after a failed request (releasing an upload's
	// reservation) that failed too, the database being out of reach.
	// what names it for the log. Nil: not tried again (a CLI command,
	// which ends at once; what fn frees expires by itself).
	Later func(what string, err error, fn func(context.Context) error)
}

// Service runs the use cases.
type Service struct {
	store        fileframe.Store
	blobs        fileframe.Blobs
	quotas       map[fileframe.Plan]fileframe.Quota
	now          func() time.Time
	changed      func()
	serviceHosts []string
	// checks bounds the HTML checks running at once (CheckPage).
	checks *semaphore.Weighted
	// passwords is Config.Passwords (hasher).
	passwords     *password.Hasher
	passwordsOnce sync.Once
	fetcher       *fetch.Fetcher
	webhooks      *webhook.Client
	later         func(what string, err error, fn func(context.Context) error)
	// accountFetches bounds each account's fetches of page resources
	// (page_assets.go, fetchFor).
	accountFetches *accountSlots
	// reports bounds the statistics reports read at once (stats.go).
	reports *semaphore.Weighted
	// endedBatch is how many ended links CollectEndedLinks reads at a
	// time (endedLinkBatch; smaller in tests).
	endedBatch int
}

// New returns a Service of cfg.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil {
		return nil, errors.New("service: Store is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Changed == nil {
		cfg.Changed = func() {}
	}
	if cfg.Fetcher == nil {
		cfg.Fetcher = fetch.New(fetch.Config{})
	}
	if cfg.Webhooks == nil {
		cfg.Webhooks = webhook.NewClient(webhook.ClientConfig{})
	}
	if cfg.Later == nil {
		cfg.Later = func(string, error, func(context.Context) error) {}
	}
	return &Service{
		store: cfg.Store, blobs: cfg.Blobs, quotas: cfg.Quotas, now: cfg.Now, changed: cfg.Changed,
		serviceHosts: cfg.ServiceHosts, checks: newCheckSlots(), passwords: cfg.Passwords, fetcher: cfg.Fetcher,
		webhooks:       cfg.Webhooks,
		later:          cfg.Later,
		accountFetches: newAccountSlots(pageFetchParallel),
		reports:        semaphore.NewWeighted(statsReportsAtOnce),
		endedBatch:     endedLinkBatch,
	}, nil
}

// CheckSpace returns the storage-full error (507) of the store or the blob
// store when either is on a local disk with no room left beyond its
// reserve (fileframe.SpaceChecker): asked before storing anything new and
// large, never before the small writes that let an owner make room.
func (s *Service) CheckSpace(ctx context.Context) error {
	for _, c := range []any{s.store, s.blobs} {
		if sc, ok := c.(fileframe.SpaceChecker); ok {
			if err := sc.CheckSpace(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// Package service holds Fileframe's use cases: each thing an owner, an
// agent or an operator does, as one function that the web application, the
// API and the admin CLI all call, so that they follow the same rules. A
// use case checks its input, applies the plan's rules and quotas, and uses
// the Store and Blobs; it knows nothing of HTTP or flags.
package service

import (
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Config is what a Service needs.
type Config struct {
	Store fileframe.Store
	Blobs fileframe.Blobs
	// Quotas are the upload limits of each plan; a plan without one is
	// unlimited.
	Quotas map[fileframe.Plan]fileframe.Quota
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Service runs the use cases.
type Service struct {
	store  fileframe.Store
	blobs  fileframe.Blobs
	quotas map[fileframe.Plan]fileframe.Quota
	now    func() time.Time
}

// New returns a Service of cfg.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Blobs == nil {
		return nil, errors.New("service: Store and Blobs are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{store: cfg.Store, blobs: cfg.Blobs, quotas: cfg.Quotas, now: cfg.Now}, nil
}

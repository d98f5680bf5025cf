package fileframe

import (
	"context"
	"time"
)

// IdempotentRequest is one API request sent with an Idempotency-Key
// header (draft-ietf-httpapi-idempotency-key-header): the key's owner, the
// client's key, and, once the request has run, its fingerprint and answer,
// so that a retry gets the same answer without running again.
type IdempotentRequest struct {
	KeyID KeyID  // the API key that sent it: idempotency keys are per API key
	Key   string // the Idempotency-Key header
	// Fingerprint identifies the request (method, path, query and body,
	// hashed): a retry must match it, else it is a different request
	// reusing the key.
	Fingerprint string
	// Done is false while the first request runs; Status, Header and Body
	// are its answer once it is true.
	Done      bool
	Status    int
	Header    map[string]string
	Body      []byte
	CreatedAt time.Time
}

// IdempotencyStore keeps the answers of requests sent with an
// Idempotency-Key. Errors follow Store's conventions.
type IdempotencyStore interface {
	// ClaimIdempotent records that the request (keyID, key) starts, at now.
	// When another request already holds that pair, nothing changes, and
	// claimed is false with that request's record: done with its answer,
	// or still running. A record still running whose claim is older than
	// stale is taken over (its process died). Across every process sharing
	// the store, one claim of a pair wins.
	ClaimIdempotent(ctx context.Context, keyID KeyID, key string, now time.Time, stale time.Duration) (existing IdempotentRequest, claimed bool, err error)
	// FinishIdempotent stores the answer of a claimed request. A record
	// that is gone (released, collected) is ENOTFOUND.
	FinishIdempotent(ctx context.Context, r IdempotentRequest) error
	// ReleaseIdempotent forgets the claim of the pair made at claimedAt
	// (the now given to ClaimIdempotent), so that a retry runs again (its
	// answer is not one to repeat: a 5xx, a 429). A claim made at another
	// time (after this one was released, or taken over as stale) is left
	// alone, so that a release tried again late never frees a newer
	// request's claim. Releasing a missing record is not an error.
	ReleaseIdempotent(ctx context.Context, keyID KeyID, key string, claimedAt time.Time) error
	// DeleteIdempotentBefore forgets the requests claimed before t and
	// returns how many.
	DeleteIdempotentBefore(ctx context.Context, t time.Time) (int, error)
}

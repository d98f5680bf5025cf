package web

import (
	"context"
	"log/slog"
	"time"
)

// How tryAgainLater tries: for laterFor at most, waiting a second after
// the first failure, then twice as long each time, up to laterMax.
const (
	laterFor = 30 * time.Minute
	laterMax = 30 * time.Second
)

// tryAgainLater tries fn again in the background after it failed with err:
// the clean-up after a failed request (releasing an idempotency key, an
// upload's reservation) that found the database out of reach too, which
// would otherwise hold what it holds until it expires by itself. It stops
// when fn succeeds, after laterFor, or when the server closes; log gets a
// warning now, an info line once done, and an error when it gives up.
// Each try has 10 s.
func (s *Server) tryAgainLater(log *slog.Logger, what string, err error, fn func(context.Context) error) {
	log.Warn(what+" failed; trying again in the background", "err", err)
	go func() {
		start := time.Now()
		for wait := time.Second; ; wait = min(2*wait, laterMax) {
			select {
			case <-s.closing:
				log.Warn(what+": not done, the server stopped first", "err", err)
				return
			case <-time.After(wait):
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = fn(ctx)
			cancel()
			if err == nil {
				log.Info(what + ": done after all")
				return
			}
			if time.Since(start) > laterFor {
				log.Error(what+": still failing; given up", "err", err, "tried_for", laterFor.String())
				return
			}
		}
	}()
}

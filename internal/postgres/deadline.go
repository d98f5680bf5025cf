package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// How long the store waits for the database before it gives up: a server
// that accepts connections and then answers nothing (a network partition,
// a stopped virtual machine, a proxy whose upstream is gone) would
// otherwise hold every request that needs it for as long as TCP takes to
// notice, which can be many minutes. Both end in CodeUnavailable (503 with
// Retry-After).
const (
	// defaultConnectTimeout bounds a new connection, from the dial to the
	// end of authentication, when the URL sets no connect_timeout.
	defaultConnectTimeout = 10 * time.Second
	// defaultStatementDeadline bounds taking a connection from the pool,
	// and each statement from its sending to its last row. The slowest
	// statement the service runs, a clean-up pass's delete at 10^6 files,
	// takes about 2 s (docs/performance.md, "How cost grows"); migrations,
	// which may wait for another instance's, have none.
	defaultStatementDeadline = 20 * time.Second
)

// deadlineTracer is the pool's pgx tracer: it gives every acquisition of a
// connection, every statement and every COPY a deadline of its own unless
// the caller's context has one (or is migrating, see noDeadline). pgx runs
// the statement on the context TraceQueryStart returns and hands that
// context back to TraceQueryEnd, which cancels it.
type deadlineTracer struct{ d time.Duration }

var (
	_ pgx.QueryTracer       = deadlineTracer{}
	_ pgx.CopyFromTracer    = deadlineTracer{}
	_ pgxpool.AcquireTracer = deadlineTracer{}
)

// deadlineKey is the context key of the cancel function a Trace…Start
// added; it is set (to nil when no deadline was added) on every context a
// Start returns, so that an End never finds, and cancels, an enclosing
// call's.
type deadlineKey struct{}

// noDeadlineKey marks a context whose statements may run as long as they
// need.
type noDeadlineKey struct{}

// noDeadline returns ctx without the store's statement deadline, for
// migrations: a migration waits for another instance's, and rewriting a
// large table may take minutes.
func noDeadline(ctx context.Context) context.Context {
	return context.WithValue(ctx, noDeadlineKey{}, true)
}

func (t deadlineTracer) start(ctx context.Context) context.Context {
	var cancel context.CancelFunc
	if _, has := ctx.Deadline(); !has && ctx.Value(noDeadlineKey{}) == nil && t.d > 0 {
		ctx, cancel = context.WithTimeout(ctx, t.d)
	}
	return context.WithValue(ctx, deadlineKey{}, cancel)
}

func (deadlineTracer) end(ctx context.Context) {
	if cancel, _ := ctx.Value(deadlineKey{}).(context.CancelFunc); cancel != nil {
		cancel()
	}
}

func (t deadlineTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return t.start(ctx)
}

func (t deadlineTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	t.end(ctx)
}

func (t deadlineTracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	return t.start(ctx)
}

func (t deadlineTracer) TraceCopyFromEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromEndData) {
	t.end(ctx)
}

func (t deadlineTracer) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return t.start(ctx)
}

func (t deadlineTracer) TraceAcquireEnd(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireEndData) {
	t.end(ctx)
}

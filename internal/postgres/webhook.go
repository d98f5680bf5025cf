package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Webhooks (fileframe.WebhookStore): endpoints, and the outbox of events
// and deliveries that the writes of files, pages and links fill (emit) in
// their own transactions. Instances claim due deliveries with FOR UPDATE
// SKIP LOCKED and a lease (ClaimDeliveries), so that no delivery is handed
// to two of them.

// emit writes ev with one pending delivery, due at once, for each endpoint
// that wants it (fileframe.WebhookStore), in tx; nothing when none does.
func emit(ctx context.Context, tx pgx.Tx, ev fileframe.Event) error {
	rows, err := tx.Query(ctx, `
		SELECT w.id FROM webhook_endpoints w JOIN accounts a ON a.id = w.account_id
		WHERE w.account_id = $1 AND w.disabled_at IS NULL AND a.plan = $2 AND NOT a.disabled
		  AND strpos(w.events, $3) > 0 AND (w.file_id = '' OR w.file_id = $4)`,
		ev.AccountID, fileframe.PlanAgency, ","+string(ev.Type)+",", ev.FileID)
	if err != nil {
		return err
	}
	endpoints, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(endpoints) == 0 {
		return err
	}
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return err
	}
	at := stored(ev.CreatedAt)
	if _, err := tx.Exec(ctx, `
		INSERT INTO webhook_events (id, account_id, type, file_id, data, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		ev.ID, ev.AccountID, ev.Type, ev.FileID, string(data), at); err != nil {
		return err
	}
	ids := make([]string, len(endpoints))
	for i := range ids {
		ids[i] = string(fileframe.NewDeliveryID())
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO webhook_deliveries (id, webhook_id, event_id, state, next_attempt_at, created_at)
		SELECT v.id, v.webhook_id, $3, 'pending', $4, $4 FROM unnest($1::text[], $2::text[]) AS v (id, webhook_id)`,
		ids, endpoints, ev.ID, at)
	return err
}

// fileCreated emits file.created for a new file (not a collection).
func fileCreated(ctx context.Context, tx pgx.Tx, f fileframe.File) error {
	if fileKind(f.Kind) != fileframe.FileKindFile {
		return nil
	}
	return emit(ctx, tx, fileframe.NewFileEvent(fileframe.EventFileCreated, f, f.CreatedAt))
}

// pageEvent emits page.published or page.unpublished when the live
// revision of the file's page changed from old to live.
func pageEvent(ctx context.Context, tx pgx.Tx, id fileframe.FileID, old, live int, at time.Time) error {
	if old == live {
		return nil
	}
	f, err := scanFile(tx.QueryRow(ctx, `SELECT `+fileColumns+` FROM files WHERE id = $1`, id))
	if err != nil {
		return err
	}
	ev, _ := fileframe.PageEvent(f, old, live, at)
	return emit(ctx, tx, ev)
}

// downloadEvents emits file.downloaded for each file of ids (counts ns),
// when any endpoint at all wants the type (else it reads nothing more).
func downloadEvents(ctx context.Context, tx pgx.Tx, ids []string, ns []int64) error {
	var wanted bool
	if err := tx.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE disabled_at IS NULL AND strpos(events, $1) > 0)`,
		","+string(fileframe.EventFileDownloaded)+",").Scan(&wanted); err != nil || !wanted {
		return err
	}
	rows, err := tx.Query(ctx, `
		SELECT `+prefixed("f.", fileColumns)+`, v.n FROM files f JOIN unnest($1::text[], $2::bigint[]) AS v (id, n) ON v.id = f.id
		ORDER BY f.id`, ids, ns)
	if err != nil {
		return err
	}
	type counted struct {
		f fileframe.File
		n int64
	}
	var files []counted
	for rows.Next() {
		var fs fileScan
		var n int64
		if err := rows.Scan(append(fs.dest(), &n)...); err != nil {
			rows.Close()
			return err
		}
		files = append(files, counted{fs.file(), n})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	at := now()
	for _, c := range files {
		if err := emit(ctx, tx, fileframe.DownloadedEvent(c.f, c.n, at)); err != nil {
			return err
		}
	}
	return nil
}

// usedUpEvent notices, once, that the file's link has just been used up
// (its last allowed download completed) and emits link.expired.
func usedUpEvent(ctx context.Context, tx pgx.Tx, id fileframe.FileID) error {
	at := now()
	f, err := scanFile(tx.QueryRow(ctx, `
		UPDATE files SET link_ended_at = $2
		WHERE id = $1 AND max_downloads > 0 AND link_downloads >= max_downloads AND link_ended_at IS NULL
		RETURNING `+fileColumns, id, at))
	if fileframe.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	return emit(ctx, tx, fileframe.LinkEndedEvent(f, fileframe.LinkUsedUp, at))
}

// NotifyEndedLinks marks the links that expired by at, at most limit, and
// emits their link.expired events. Rows another instance is marking are
// skipped (SKIP LOCKED), so each end is noticed once.
func (s *Store) NotifyEndedLinks(ctx context.Context, at time.Time, limit int) (int, error) {
	at = stored(at)
	n := 0
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			UPDATE files SET link_ended_at = $1
			WHERE id IN (SELECT id FROM files WHERE expires_at IS NOT NULL AND expires_at <= $1 AND link_ended_at IS NULL
				LIMIT $2 FOR UPDATE SKIP LOCKED)
			RETURNING `+fileColumns, at, limit)
		if err != nil {
			return err
		}
		var files []fileframe.File
		for rows.Next() {
			var fs fileScan
			if err := rows.Scan(fs.dest()...); err != nil {
				rows.Close()
				return err
			}
			files = append(files, fs.file())
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, f := range files {
			if err := emit(ctx, tx, fileframe.LinkEndedEvent(f, fileframe.LinkExpired, at)); err != nil {
				return err
			}
		}
		n = len(files)
		return nil
	})
	return n, wrap("notify ended links", err)
}

const webhookColumns = `id, account_id, url, secret, events, file_id, description, created_at, disabled_at`

// webhookScan holds the columns of webhookColumns as they are scanned.
type webhookScan struct {
	w                 fileframe.Webhook
	events            string
	created, disabled pgtype.Timestamptz
}

func (ws *webhookScan) dest() []any {
	w := &ws.w
	return []any{&w.ID, &w.AccountID, &w.URL, &w.Secret, &ws.events, &w.FileID, &w.Description, &ws.created, &ws.disabled}
}

func (ws *webhookScan) webhook() fileframe.Webhook {
	w := ws.w
	w.Events, w.CreatedAt, w.DisabledAt = fileframe.ParseEventList(ws.events), fromTS(ws.created), fromTS(ws.disabled)
	return w
}

func scanWebhook(row pgx.Row) (fileframe.Webhook, error) {
	var ws webhookScan
	err := row.Scan(ws.dest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Webhook{}, notFound("Webhook")
	} else if err != nil {
		return fileframe.Webhook{}, err
	}
	return ws.webhook(), nil
}

// CreateWebhook stores a new endpoint.
func (s *Store) CreateWebhook(ctx context.Context, w fileframe.Webhook) (fileframe.Webhook, error) {
	if err := w.Check(); err != nil {
		return fileframe.Webhook{}, err
	}
	if !storable(string(w.AccountID), w.URL, w.Secret, string(w.FileID), w.Description) {
		return fileframe.Webhook{}, fileframe.Errorf(fileframe.EINVALID, "The store cannot hold this value.")
	}
	if w.ID == "" {
		w.ID = fileframe.NewWebhookID()
	}
	if w.CreatedAt.IsZero() {
		w.CreatedAt = now()
	}
	w.CreatedAt, w.DisabledAt = stored(w.CreatedAt), stored(w.DisabledAt)
	// A missing account is the violation of webhook_endpoints_account_id_fkey (see wrap).
	_, err := s.pool.Exec(ctx, `INSERT INTO webhook_endpoints (`+webhookColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		w.ID, w.AccountID, w.URL, w.Secret, fileframe.EventList(w.Events), w.FileID, w.Description, ts(w.CreatedAt), ts(w.DisabledAt))
	if err != nil {
		return fileframe.Webhook{}, wrap("create webhook", err)
	}
	return w, nil
}

// WebhookByID returns an endpoint.
func (s *Store) WebhookByID(ctx context.Context, id fileframe.WebhookID) (fileframe.Webhook, error) {
	if !storable(string(id)) {
		return fileframe.Webhook{}, notFound("Webhook")
	}
	w, err := scanWebhook(s.pool.QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints WHERE id = $1`, id))
	return w, wrap("webhook by id", err)
}

// WebhooksByAccount lists the account's endpoints, newest first.
func (s *Store) WebhooksByAccount(ctx context.Context, id fileframe.AccountID) ([]fileframe.Webhook, error) {
	list := []fileframe.Webhook{}
	if !storable(string(id)) {
		return list, nil
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+webhookColumns+` FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at DESC, seq DESC`, id)
	if err != nil {
		return nil, wrap("webhooks by account", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ws webhookScan
		if err := rows.Scan(ws.dest()...); err != nil {
			return nil, wrap("webhooks by account", err)
		}
		list = append(list, ws.webhook())
	}
	return list, wrap("webhooks by account", rows.Err())
}

// SetWebhookDisabled pauses or resumes an endpoint.
func (s *Store) SetWebhookDisabled(ctx context.Context, id fileframe.WebhookID, at time.Time) error {
	if !storable(string(id)) {
		return notFound("Webhook")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE webhook_endpoints SET disabled_at = $2 WHERE id = $1`, id, ts(at))
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("Webhook")
	}
	return wrap("set webhook disabled", err)
}

// DeleteWebhook deletes an endpoint; its deliveries go with it (ON DELETE
// CASCADE), its events with the clean-up (DeleteDeliveriesBefore).
func (s *Store) DeleteWebhook(ctx context.Context, id fileframe.WebhookID) error {
	if !storable(string(id)) {
		return notFound("Webhook")
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM webhook_endpoints WHERE id = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("Webhook")
	}
	return wrap("delete webhook", err)
}

const deliveryColumns = `d.id, d.webhook_id, e.account_id, d.event_id, e.type, e.file_id, d.state, d.attempts, d.series_start,
	d.next_attempt_at, d.lease_until, d.last_attempt_at, d.last_status, d.last_error, d.last_duration_ms, d.created_at, d.finished_at`

// deliveryScan holds the columns of deliveryColumns as they are scanned.
type deliveryScan struct {
	d                                    fileframe.Delivery
	next, lease, last, created, finished pgtype.Timestamptz
	durMs                                int64
}

func (ds *deliveryScan) dest() []any {
	d := &ds.d
	return []any{&d.ID, &d.WebhookID, &d.AccountID, &d.EventID, &d.EventType, &d.FileID, &d.State, &d.Attempts, &d.SeriesStart,
		&ds.next, &ds.lease, &ds.last, &d.LastStatus, &d.LastError, &ds.durMs, &ds.created, &ds.finished}
}

func (ds *deliveryScan) delivery() fileframe.Delivery {
	d := ds.d
	d.NextAttemptAt, d.LeasedUntil, d.LastAttemptAt = fromTS(ds.next), fromTS(ds.lease), fromTS(ds.last)
	d.CreatedAt, d.FinishedAt = fromTS(ds.created), fromTS(ds.finished)
	d.LastDuration = time.Duration(ds.durMs) * time.Millisecond
	return d
}

// Deliveries lists the endpoint's deliveries, newest first.
func (s *Store) Deliveries(ctx context.Context, id fileframe.WebhookID, limit int) ([]fileframe.Delivery, error) {
	if !storable(string(id)) {
		return nil, notFound("Webhook")
	}
	var list []fileframe.Delivery
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		list = []fileframe.Delivery{}
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = $1)`, id).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return notFound("Webhook")
		}
		rows, err := tx.Query(ctx, `
			SELECT `+deliveryColumns+` FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
			WHERE d.webhook_id = $1 ORDER BY d.created_at DESC, d.seq DESC LIMIT $2`, id, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ds deliveryScan
			if err := rows.Scan(ds.dest()...); err != nil {
				return err
			}
			list = append(list, ds.delivery())
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap("deliveries", err)
	}
	return list, nil
}

// deliveryByID reads one delivery with q (locking it with FOR UPDATE when
// lock is set).
func deliveryByID(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, id fileframe.DeliveryID, lock string) (fileframe.Delivery, error) {
	var ds deliveryScan
	err := q.QueryRow(ctx, `SELECT `+deliveryColumns+`
		FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.id = $1 `+lock, id).Scan(ds.dest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Delivery{}, notFound("Delivery")
	} else if err != nil {
		return fileframe.Delivery{}, err
	}
	return ds.delivery(), nil
}

// DeliveryByID returns a delivery.
func (s *Store) DeliveryByID(ctx context.Context, id fileframe.DeliveryID) (fileframe.Delivery, error) {
	if !storable(string(id)) {
		return fileframe.Delivery{}, notFound("Delivery")
	}
	d, err := deliveryByID(ctx, s.pool, id, "")
	return d, wrap("delivery by id", err)
}

// RetryDelivery makes a delivery due again at now, with a fresh schedule.
// The delivery's row is locked first, so a claim cannot pass in between.
func (s *Store) RetryDelivery(ctx context.Context, id fileframe.DeliveryID, at time.Time) (fileframe.Delivery, error) {
	if !storable(string(id)) {
		return fileframe.Delivery{}, notFound("Delivery")
	}
	at = stored(at)
	var d fileframe.Delivery
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := deliveryByID(ctx, tx, id, "FOR UPDATE OF d")
		if err != nil {
			return err
		}
		if cur.Sending(at) {
			return fileframe.Errorf(fileframe.ECONFLICT, "The delivery is being sent right now.")
		}
		if _, err := tx.Exec(ctx, `
			UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = $2, series_start = attempts,
				claim = NULL, lease_until = NULL, finished_at = NULL
			WHERE id = $1`, id, at); err != nil {
			return err
		}
		d, err = deliveryByID(ctx, tx, id, "")
		return err
	})
	if err != nil {
		return fileframe.Delivery{}, wrap("retry delivery", err)
	}
	return d, nil
}

// ClaimDeliveries claims due deliveries: the rows are picked and locked
// with FOR UPDATE SKIP LOCKED, so that concurrent claimers on other
// instances take other rows instead of waiting for these, and a row
// another claimer has just committed is checked again against its new
// lease (READ COMMITTED rechecks a locked row's latest version).
func (s *Store) ClaimDeliveries(ctx context.Context, at time.Time, lease time.Duration, limit int) ([]fileframe.DeliveryAttempt, error) {
	at = stored(at)
	claim := fileframe.RandomBase62(24)
	var out []fileframe.DeliveryAttempt
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		out = nil
		rows, err := tx.Query(ctx, `
			WITH c AS (
				SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.webhook_id
				WHERE d.state = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
				  AND w.disabled_at IS NULL
				ORDER BY d.next_attempt_at LIMIT $2
				FOR UPDATE OF d SKIP LOCKED
			), u AS (
				UPDATE webhook_deliveries d SET claim = $3, lease_until = $4, attempts = d.attempts + 1
				FROM c WHERE d.id = c.id
				RETURNING d.*
			)
			SELECT `+deliveryColumns+`, e.data, e.created_at, `+prefixed("w.", webhookColumns)+`
			FROM u d JOIN webhook_events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.webhook_id
			ORDER BY d.next_attempt_at`, at, limit, claim, at.Add(lease))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ds deliveryScan
			var ws webhookScan
			var data string
			var evAt pgtype.Timestamptz
			if err := rows.Scan(append(append(ds.dest(), &data, &evAt), ws.dest()...)...); err != nil {
				return err
			}
			d := ds.delivery()
			ev := fileframe.Event{ID: d.EventID, AccountID: d.AccountID, Type: d.EventType, FileID: d.FileID, CreatedAt: fromTS(evAt)}
			if err := json.Unmarshal([]byte(data), &ev.Data); err != nil {
				return err
			}
			out = append(out, fileframe.DeliveryAttempt{Delivery: d, Claim: claim, Webhook: ws.webhook(), Event: ev})
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap("claim deliveries", err)
	}
	return out, nil
}

// FinishDelivery records an attempt's result while its claim is held.
func (s *Store) FinishDelivery(ctx context.Context, r fileframe.DeliveryResult) error {
	if !storable(string(r.ID), r.Claim, r.Error) {
		return notFound("Delivery claim")
	}
	state, finished := r.Outcome()
	tag, err := s.pool.Exec(ctx, `
		UPDATE webhook_deliveries SET state = $3, next_attempt_at = $4, claim = NULL, lease_until = NULL,
			last_attempt_at = $5, last_status = $6, last_error = $7, last_duration_ms = $8, finished_at = $9
		WHERE id = $1 AND claim = $2`,
		r.ID, r.Claim, state, ts(r.NextAttemptAt), ts(r.At), r.Status, r.Error, r.Duration.Milliseconds(), ts(finished))
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("Delivery claim")
	}
	return wrap("finish delivery", err)
}

// DeleteDeliveriesBefore deletes finished deliveries and unneeded events
// older than t.
func (s *Store) DeleteDeliveriesBefore(ctx context.Context, t time.Time) (int, error) {
	t = stored(t)
	var n int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < $1`, t)
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		_, err = tx.Exec(ctx, `
			DELETE FROM webhook_events ev
			WHERE ev.created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)`, t)
		return err
	})
	return int(n), wrap("delete deliveries", err)
}

package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Webhooks (fileframe.WebhookStore): endpoints, and the outbox of events
// and deliveries that the writes of files, pages and links fill (emit) in
// their own transactions. One writer runs one transaction at a time, here
// and in every other process on the file (BEGIN IMMEDIATE), so a claim's
// UPDATE cannot hand a delivery to two callers.

// emit writes ev with one pending delivery, due at once, for each endpoint
// that wants it (fileframe.WebhookStore), in tx; nothing when none does.
func emit(ctx context.Context, tx querier, ev fileframe.Event) error {
	rows, err := tx.QueryContext(ctx, `
		SELECT w.id FROM webhook_endpoints w JOIN accounts a ON a.id = w.account_id
		WHERE w.account_id = ? AND w.disabled_at IS NULL AND a.plan = ? AND a.disabled = 0
		  AND instr(w.events, ?) > 0 AND (w.file_id = '' OR w.file_id = ?)`,
		ev.AccountID, fileframe.PlanAgency, ","+string(ev.Type)+",", ev.FileID)
	if err != nil {
		return err
	}
	var endpoints []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		endpoints = append(endpoints, id)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil || len(endpoints) == 0 {
		return err
	}
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return err
	}
	at := stored(ev.CreatedAt).UnixMilli()
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO webhook_events (id, account_id, type, file_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		ev.ID, ev.AccountID, ev.Type, ev.FileID, string(data), at); err != nil {
		return err
	}
	for _, w := range endpoints {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO webhook_deliveries (id, webhook_id, event_id, state, next_attempt_at, created_at)
			VALUES (?, ?, ?, 'pending', ?, ?)`, fileframe.NewDeliveryID(), w, ev.ID, at, at); err != nil {
			return err
		}
	}
	return nil
}

// fileCreated emits file.created for a new file (not a collection).
func fileCreated(ctx context.Context, tx querier, f fileframe.File) error {
	if fileKind(f.Kind) != fileframe.FileKindFile {
		return nil
	}
	return emit(ctx, tx, fileframe.NewFileEvent(fileframe.EventFileCreated, f, f.CreatedAt))
}

// pageEvent emits page.published or page.unpublished when the live
// revision of the file's page changed from old to live.
func pageEvent(ctx context.Context, tx querier, id fileframe.FileID, old, live int, at time.Time) error {
	if old == live {
		return nil
	}
	f, err := scanFile(tx.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ?`, id))
	if err != nil {
		return err
	}
	ev, _ := fileframe.PageEvent(f, old, live, at)
	return emit(ctx, tx, ev)
}

// downloadEvents emits file.downloaded for each file of counts, when any
// endpoint at all wants the type (else it reads nothing more).
func downloadEvents(ctx context.Context, tx querier, counts map[fileframe.FileID]int64) error {
	var wanted bool
	if err := tx.QueryRowContext(ctx, `
		SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE disabled_at IS NULL AND instr(events, ?) > 0)`,
		","+string(fileframe.EventFileDownloaded)+",").Scan(&wanted); err != nil || !wanted {
		return err
	}
	at := now()
	for id, n := range counts {
		if n <= 0 {
			continue
		}
		f, err := scanFile(tx.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ?`, id))
		if fileframe.IsNotFound(err) {
			continue
		} else if err != nil {
			return err
		}
		if err := emit(ctx, tx, fileframe.DownloadedEvent(f, n, at)); err != nil {
			return err
		}
	}
	return nil
}

// usedUpEvent notices, once, that the file's link has just been used up
// (its last allowed download completed) and emits link.expired.
func usedUpEvent(ctx context.Context, tx querier, id fileframe.FileID) error {
	at := now()
	f, err := scanFile(tx.QueryRowContext(ctx, `
		UPDATE files SET link_ended_at = ?
		WHERE id = ? AND max_downloads > 0 AND link_downloads >= max_downloads AND link_ended_at IS NULL
		RETURNING `+fileColumns, at.UnixMilli(), id))
	if fileframe.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	return emit(ctx, tx, fileframe.LinkEndedEvent(f, fileframe.LinkUsedUp, at))
}

// NotifyEndedLinks marks the links that expired by now, at most limit, and
// emits their link.expired events.
func (s *Store) NotifyEndedLinks(ctx context.Context, at time.Time, limit int) (int, error) {
	at = stored(at)
	// A read first, as ClaimDeliveries does: the periodic look takes the
	// write lock only when a link has ended.
	var ended bool
	if err := s.read.QueryRowContext(ctx, `
		SELECT EXISTS (SELECT 1 FROM files WHERE expires_at IS NOT NULL AND expires_at <= ? AND link_ended_at IS NULL)`,
		at.UnixMilli()).Scan(&ended); err != nil || !ended {
		return 0, wrap("notify ended links", err)
	}
	n := 0
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		rows, err := tx.QueryContext(ctx, `
			UPDATE files SET link_ended_at = ?1
			WHERE id IN (SELECT id FROM files WHERE expires_at IS NOT NULL AND expires_at <= ?1 AND link_ended_at IS NULL LIMIT ?2)
			RETURNING `+fileColumns, at.UnixMilli(), limit)
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
		if err := rows.Close(); err != nil {
			return err
		}
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

func scanWebhook(scan func(...any) error) (fileframe.Webhook, error) {
	var w fileframe.Webhook
	var events string
	var created, disabled sql.NullInt64
	err := scan(&w.ID, &w.AccountID, &w.URL, &w.Secret, &events, &w.FileID, &w.Description, &created, &disabled)
	if errors.Is(err, sql.ErrNoRows) {
		return w, notFound("Webhook")
	}
	w.Events, w.CreatedAt, w.DisabledAt = fileframe.ParseEventList(events), fromMillis(created), fromMillis(disabled)
	return w, err
}

// CreateWebhook stores a new endpoint.
func (s *Store) CreateWebhook(ctx context.Context, w fileframe.Webhook) (fileframe.Webhook, error) {
	if err := w.Check(); err != nil {
		return fileframe.Webhook{}, err
	}
	if w.ID == "" {
		w.ID = fileframe.NewWebhookID()
	}
	if w.CreatedAt.IsZero() {
		w.CreatedAt = now()
	}
	w.CreatedAt, w.DisabledAt = stored(w.CreatedAt), stored(w.DisabledAt)
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := accountExists(ctx, tx, w.AccountID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO webhook_endpoints (`+webhookColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			w.ID, w.AccountID, w.URL, w.Secret, fileframe.EventList(w.Events), w.FileID, w.Description,
			millis(w.CreatedAt), millis(w.DisabledAt))
		if isUnique(err) {
			return fileframe.Errorf(fileframe.ECONFLICT, "A webhook with this ID already exists.")
		}
		return err
	})
	if err != nil {
		return fileframe.Webhook{}, wrap("create webhook", err)
	}
	return w, nil
}

// WebhookByID returns an endpoint.
func (s *Store) WebhookByID(ctx context.Context, id fileframe.WebhookID) (fileframe.Webhook, error) {
	w, err := scanWebhook(s.read.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints WHERE id = ?`, id).Scan)
	return w, wrap("webhook by id", err)
}

// WebhooksByAccount lists the account's endpoints, newest first.
func (s *Store) WebhooksByAccount(ctx context.Context, id fileframe.AccountID) ([]fileframe.Webhook, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT `+webhookColumns+` FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at DESC, rowid DESC`, id)
	if err != nil {
		return nil, wrap("webhooks by account", err)
	}
	defer rows.Close()
	list := []fileframe.Webhook{}
	for rows.Next() {
		w, err := scanWebhook(rows.Scan)
		if err != nil {
			return nil, wrap("webhooks by account", err)
		}
		list = append(list, w)
	}
	return list, wrap("webhooks by account", rows.Err())
}

// SetWebhookDisabled pauses or resumes an endpoint.
func (s *Store) SetWebhookDisabled(ctx context.Context, id fileframe.WebhookID, at time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET disabled_at = ? WHERE id = ?`, millis(stored(at)), id)
		if err != nil {
			return err
		}
		return mustAffect(res, "Webhook")
	})
	return wrap("set webhook disabled", err)
}

// DeleteWebhook deletes an endpoint; its deliveries go with it (ON DELETE
// CASCADE), its events with the clean-up (DeleteDeliveriesBefore).
func (s *Store) DeleteWebhook(ctx context.Context, id fileframe.WebhookID) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhook_endpoints WHERE id = ?`, id)
		if err != nil {
			return err
		}
		return mustAffect(res, "Webhook")
	})
	return wrap("delete webhook", err)
}

const deliveryColumns = `d.id, d.webhook_id, e.account_id, d.event_id, e.type, e.file_id, d.state, d.attempts, d.series_start,
	d.next_attempt_at, d.lease_until, d.last_attempt_at, d.last_status, d.last_error, d.last_duration_ms, d.created_at, d.finished_at`

// deliveryFrom joins a delivery to its event.
const deliveryFrom = ` FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id `

// deliveryScan holds the columns of deliveryColumns as they are scanned.
type deliveryScan struct {
	d                                           fileframe.Delivery
	next, lease, last, created, finished, durMs sql.NullInt64
}

func (ds *deliveryScan) dest() []any {
	d := &ds.d
	return []any{&d.ID, &d.WebhookID, &d.AccountID, &d.EventID, &d.EventType, &d.FileID, &d.State, &d.Attempts, &d.SeriesStart,
		&ds.next, &ds.lease, &ds.last, &d.LastStatus, &d.LastError, &ds.durMs, &ds.created, &ds.finished}
}

func (ds *deliveryScan) delivery() fileframe.Delivery {
	d := ds.d
	d.NextAttemptAt, d.LeasedUntil, d.LastAttemptAt = fromMillis(ds.next), fromMillis(ds.lease), fromMillis(ds.last)
	d.CreatedAt, d.FinishedAt = fromMillis(ds.created), fromMillis(ds.finished)
	d.LastDuration = time.Duration(ds.durMs.Int64) * time.Millisecond
	return d
}

// Deliveries lists the endpoint's deliveries, newest first.
func (s *Store) Deliveries(ctx context.Context, id fileframe.WebhookID, limit int) ([]fileframe.Delivery, error) {
	list := []fileframe.Delivery{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var ok bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?)`, id).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return notFound("Webhook")
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+deliveryColumns+deliveryFrom+`
			WHERE d.webhook_id = ? ORDER BY d.created_at DESC, d.rowid DESC LIMIT ?`, id, limit)
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

// deliveryByID reads one delivery with q.
func deliveryByID(ctx context.Context, q querier, id fileframe.DeliveryID) (fileframe.Delivery, error) {
	var ds deliveryScan
	err := q.QueryRowContext(ctx, `SELECT `+deliveryColumns+deliveryFrom+` WHERE d.id = ?`, id).Scan(ds.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Delivery{}, notFound("Delivery")
	} else if err != nil {
		return fileframe.Delivery{}, err
	}
	return ds.delivery(), nil
}

// DeliveryByID returns a delivery.
func (s *Store) DeliveryByID(ctx context.Context, id fileframe.DeliveryID) (fileframe.Delivery, error) {
	d, err := deliveryByID(ctx, s.read, id)
	return d, wrap("delivery by id", err)
}

// RetryDelivery makes a delivery due again at now, with a fresh schedule.
func (s *Store) RetryDelivery(ctx context.Context, id fileframe.DeliveryID, at time.Time) (fileframe.Delivery, error) {
	at = stored(at)
	var d fileframe.Delivery
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		cur, err := deliveryByID(ctx, tx, id)
		if err != nil {
			return err
		}
		if cur.Sending(at) {
			return fileframe.Errorf(fileframe.ECONFLICT, "The delivery is being sent right now.")
		}
		if _, err := tx.ExecContext(ctx, `
			UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?, series_start = attempts,
				claim = NULL, lease_until = NULL, finished_at = NULL
			WHERE id = ?`, at.UnixMilli(), id); err != nil {
			return err
		}
		d, err = deliveryByID(ctx, tx, id)
		return err
	})
	if err != nil {
		return fileframe.Delivery{}, wrap("retry delivery", err)
	}
	return d, nil
}

// ClaimDeliveries claims due deliveries. A read comes first, so that an
// idle worker takes the write lock (and commits) only when there is work.
func (s *Store) ClaimDeliveries(ctx context.Context, at time.Time, lease time.Duration, limit int) ([]fileframe.DeliveryAttempt, error) {
	at = stored(at)
	var due bool
	if err := s.read.QueryRowContext(ctx, `
		SELECT EXISTS (SELECT 1 FROM webhook_deliveries
			WHERE state = 'pending' AND next_attempt_at <= ?1 AND (lease_until IS NULL OR lease_until <= ?1))`,
		at.UnixMilli()).Scan(&due); err != nil {
		return nil, wrap("claim deliveries", err)
	}
	if !due {
		return nil, nil
	}
	claim := fileframe.RandomBase62(24)
	var out []fileframe.DeliveryAttempt
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		out = nil
		if _, err := tx.ExecContext(ctx, `
			UPDATE webhook_deliveries SET claim = ?1, lease_until = ?2, attempts = attempts + 1
			WHERE id IN (
				SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.webhook_id
				WHERE d.state = 'pending' AND d.next_attempt_at <= ?3 AND (d.lease_until IS NULL OR d.lease_until <= ?3)
				  AND w.disabled_at IS NULL
				ORDER BY d.next_attempt_at LIMIT ?4)`,
			claim, at.Add(lease).UnixMilli(), at.UnixMilli(), limit); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `
			SELECT `+deliveryColumns+`, e.data, e.created_at, `+prefixed("w.", webhookColumns)+deliveryFrom+`
			JOIN webhook_endpoints w ON w.id = d.webhook_id
			WHERE d.claim = ? ORDER BY d.next_attempt_at`, claim)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ds deliveryScan
			var data string
			var evAt sql.NullInt64
			var w fileframe.Webhook
			var events string
			var wCreated, wDisabled sql.NullInt64
			if err := rows.Scan(append(ds.dest(), &data, &evAt,
				&w.ID, &w.AccountID, &w.URL, &w.Secret, &events, &w.FileID, &w.Description, &wCreated, &wDisabled)...); err != nil {
				return err
			}
			w.Events, w.CreatedAt, w.DisabledAt = fileframe.ParseEventList(events), fromMillis(wCreated), fromMillis(wDisabled)
			d := ds.delivery()
			ev := fileframe.Event{ID: d.EventID, AccountID: d.AccountID, Type: d.EventType, FileID: d.FileID, CreatedAt: fromMillis(evAt)}
			if err := json.Unmarshal([]byte(data), &ev.Data); err != nil {
				return err
			}
			out = append(out, fileframe.DeliveryAttempt{Delivery: d, Claim: claim, Webhook: w, Event: ev})
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
	state, finished := r.Outcome()
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `
			UPDATE webhook_deliveries SET state = ?, next_attempt_at = ?, claim = NULL, lease_until = NULL,
				last_attempt_at = ?, last_status = ?, last_error = ?, last_duration_ms = ?, finished_at = ?
			WHERE id = ? AND claim = ?`,
			state, millis(stored(r.NextAttemptAt)), millis(stored(r.At)), r.Status, r.Error, r.Duration.Milliseconds(),
			millis(stored(finished)), r.ID, r.Claim)
		if err != nil {
			return err
		}
		return mustAffect(res, "Delivery claim")
	})
	return wrap("finish delivery", err)
}

// DeleteDeliveriesBefore deletes finished deliveries and unneeded events
// older than t.
func (s *Store) DeleteDeliveriesBefore(ctx context.Context, t time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < ?`, t.UnixMilli())
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			DELETE FROM webhook_events
			WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)`, t.UnixMilli())
		return err
	})
	return int(n), wrap("delete deliveries", err)
}

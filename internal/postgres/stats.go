package postgres

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/statsql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Statistics and A/B tests (fileframe.StatsStore; migration 016). A batch
// is written as one statement per table over arrays, its rows in key
// order, so that instances adding to the same rows at once wait for each
// other instead of deadlocking; rows of a file deleted meanwhile are
// dropped.

// AddStats adds the batch in one transaction.
func (s *Store) AddStats(ctx context.Context, b *fileframe.StatBatch) error {
	if b == nil || b.Empty() {
		return nil
	}
	type row struct {
		file, variant, test string
		at                  int64
		c                   fileframe.StatCounts
	}
	var hours, days []row
	dayIndex := map[fileframe.StatKey]int{}
	for k, c := range b.Hours {
		if !storable(string(k.File), string(k.Variant), string(k.Test)) {
			continue
		}
		hours = append(hours, row{string(k.File), string(k.Variant), string(k.Test), k.Hour, c})
		dk := k
		dk.Hour -= ((k.Hour % 86400) + 86400) % 86400
		if i, ok := dayIndex[dk]; ok {
			days[i].c.Add(c)
		} else {
			dayIndex[dk] = len(days)
			days = append(days, row{string(k.File), string(k.Variant), string(k.Test), dk.Hour, c})
		}
	}
	var sources []row // variant holds the dimension, test the value
	for k, c := range b.Sources {
		if storable(string(k.File), k.Dim, k.Value) {
			sources = append(sources, row{string(k.File), k.Dim, k.Value, k.Day, c})
		}
	}
	byKey := func(a, b row) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.at, b.at), cmp.Compare(a.variant, b.variant), cmp.Compare(a.test, b.test))
	}
	slices.SortFunc(hours, byKey)
	slices.SortFunc(days, byKey)
	slices.SortFunc(sources, byKey)
	type vrow struct {
		k fileframe.StatVisitorKey
		e fileframe.StatEvent
	}
	var visitors []vrow
	for k, e := range b.Visitors {
		if storable(string(k.File), string(k.Variant), string(k.Test)) {
			visitors = append(visitors, vrow{k, e})
		}
	}
	slices.SortFunc(visitors, func(a, b vrow) int {
		return cmp.Or(cmp.Compare(a.k.File, b.k.File), cmp.Compare(a.k.Day, b.k.Day), cmp.Compare(a.k.Variant, b.k.Variant),
			cmp.Compare(a.k.Test, b.k.Test), cmp.Compare(int64(a.k.Visitor), int64(b.k.Visitor)))
	})
	columns := func(rows []row) []any {
		var f, v, t []string
		var at, views, clicks, downloads []int64
		for _, r := range rows {
			f, v, t, at = append(f, r.file), append(v, r.variant), append(t, r.test), append(at, r.at)
			views, clicks, downloads = append(views, r.c.Views), append(clicks, r.c.Clicks), append(downloads, r.c.Downloads)
		}
		return []any{f, at, v, t, views, clicks, downloads}
	}
	const counts = `
		SELECT v.* FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[])
			AS v (file_id, at, a, b, views, clicks, downloads)
		WHERE EXISTS (SELECT 1 FROM files f WHERE f.id = v.file_id)
		ORDER BY 1, 2, 3, 4
		ON CONFLICT `
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if len(hours) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO stat_hours (file_id, hour, variant, test_id, views, clicks, downloads)`+counts+`
				(file_id, hour, variant, test_id) DO UPDATE SET views = stat_hours.views + excluded.views,
				clicks = stat_hours.clicks + excluded.clicks, downloads = stat_hours.downloads + excluded.downloads`, columns(hours)...); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO stat_days (file_id, day, variant, test_id, views, clicks, downloads)`+counts+`
				(file_id, day, variant, test_id) DO UPDATE SET views = stat_days.views + excluded.views,
				clicks = stat_days.clicks + excluded.clicks, downloads = stat_days.downloads + excluded.downloads`, columns(days)...); err != nil {
				return err
			}
		}
		if len(sources) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO stat_sources (file_id, day, dim, value, views, clicks, downloads)`+counts+`
				(file_id, day, dim, value) DO UPDATE SET views = stat_sources.views + excluded.views,
				clicks = stat_sources.clicks + excluded.clicks, downloads = stat_sources.downloads + excluded.downloads`, columns(sources)...); err != nil {
				return err
			}
		}
		if len(visitors) > 0 {
			var f, v, t []string
			var day, hash []int64
			var ev []int32
			for _, r := range visitors {
				f, day, v, t = append(f, string(r.k.File)), append(day, r.k.Day), append(v, string(r.k.Variant)), append(t, string(r.k.Test))
				hash, ev = append(hash, int64(r.k.Visitor)), append(ev, int32(r.e))
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO stat_visitors (file_id, day, variant, test_id, visitor, events)
				SELECT v.* FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::integer[])
					AS v (file_id, day, variant, test_id, visitor, events)
				WHERE EXISTS (SELECT 1 FROM files f WHERE f.id = v.file_id)
				ORDER BY 1, 2, 3, 4, 5
				ON CONFLICT (file_id, day, variant, test_id, visitor) DO UPDATE SET events = stat_visitors.events | excluded.events`,
				f, day, v, t, hash, ev); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("add stats", err)
}

// StatsSalt returns the day's salt, made on first use; a day the rollup
// passed has none (ENOTFOUND).
func (s *Store) StatsSalt(ctx context.Context, day int64, generate func() []byte) ([]byte, error) {
	const get = `SELECT salt FROM stat_salts WHERE day = $1`
	var v []byte
	err := s.pool.QueryRow(ctx, get, day).Scan(&v)
	if err == nil {
		return v, nil
	} else if !errors.Is(err, pgx.ErrNoRows) {
		return nil, wrap("stats salt", err)
	}
	fresh := generate()
	if len(fresh) == 0 {
		return nil, fileframe.Errorf(fileframe.EINVALID, "A salt cannot be empty.")
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		// Under the rollup's lock: a salt is never made for a day it passed.
		var rolled bool
		if err := tx.QueryRow(ctx, `SELECT coalesce((SELECT before FROM stat_rollup WHERE id = 1 FOR SHARE), 0) > $1`, day).Scan(&rolled); err != nil {
			return err
		}
		if rolled {
			return notFound("Salt")
		}
		if _, err := tx.Exec(ctx, `INSERT INTO stat_salts (day, salt) VALUES ($1, $2) ON CONFLICT (day) DO NOTHING`, day, fresh); err != nil {
			return err
		}
		return tx.QueryRow(ctx, get, day).Scan(&v)
	})
	if err != nil {
		return nil, wrap("stats salt", err)
	}
	return v, nil
}

// RollupStats rolls up every day before cutoff's and applies retention.
// Instances running it at once take turns on stat_rollup's row.
func (s *Store) RollupStats(ctx context.Context, cutoff time.Time, keepHours, keepDays int64) (int64, error) {
	before := fileframe.DayStart(cutoff)
	var n int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO stat_rollup (id, before) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET before = greatest(stat_rollup.before, excluded.before)`, before); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM stat_visitors WHERE day < $1`, before).Scan(&n); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			WITH gone AS (DELETE FROM stat_visitors WHERE day < $1 RETURNING file_id, day, variant, test_id, events)
			INSERT INTO stat_days (file_id, day, variant, test_id, visitors, converted)
			SELECT file_id, day, variant, test_id,
			       count(*) FILTER (WHERE events & 1 <> 0), count(*) FILTER (WHERE events & 5 = 5)
			FROM gone GROUP BY file_id, day, variant, test_id ORDER BY 1, 2, 3, 4
			ON CONFLICT (file_id, day, variant, test_id) DO UPDATE SET
				visitors = stat_days.visitors + excluded.visitors, converted = stat_days.converted + excluded.converted`, before); err != nil {
			return err
		}
		for _, q := range []struct {
			sql string
			at  int64
		}{
			{`DELETE FROM stat_salts WHERE day < $1`, before},
			{`DELETE FROM stat_hours WHERE hour < $1`, keepHours},
			{`DELETE FROM stat_days WHERE day < $1`, keepDays},
			{`DELETE FROM stat_sources WHERE day < $1`, keepDays},
		} {
			if _, err := tx.Exec(ctx, q.sql, q.at); err != nil {
				return err
			}
		}
		return nil
	})
	return n, wrap("roll up stats", err)
}

// Stats returns the report of q.
func (s *Store) Stats(ctx context.Context, q fileframe.StatQuery) (fileframe.StatReport, error) {
	if !storable(string(q.File), string(q.Account), string(q.Test)) {
		return fileframe.StatReport{}, notFound("File")
	}
	var rep fileframe.StatReport
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		rep, err = statsql.Report(ctx, func(ctx context.Context, query string, args []any, row func(func(...any) error) error) error {
			rows, err := tx.Query(ctx, query, args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				if err := row(rows.Scan); err != nil {
					return err
				}
			}
			return rows.Err()
		}, q, statsql.Dollar)
		return err
	})
	return rep, wrap("stats", err)
}

// CreatePageTest starts t; a file's second running test is ECONFLICT.
func (s *Store) CreatePageTest(ctx context.Context, t fileframe.PageTest) error {
	if !storable(string(t.FileID)) {
		return notFound("File")
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			INSERT INTO page_tests (id, file_id, account_id, revisions, secret, started_at)
			SELECT $1, id, account_id, $2, $3, $4 FROM files WHERE id = $5`,
			t.ID, fileframe.FormatRevisions(t.Revisions), t.Secret, ts(t.StartedAt), t.FileID)
		if err == nil && tag.RowsAffected() == 0 {
			return notFound("File")
		}
		return err
	})
	return wrap("create page test", err)
}

const pageTestColumns = `id, file_id, account_id, revisions, secret, started_at, ended_at, promoted`

func scanPageTest(r pgx.Row) (fileframe.PageTest, error) {
	var t fileframe.PageTest
	var revs string
	var started, ended pgtype.Timestamptz
	if err := r.Scan(&t.ID, &t.FileID, &t.AccountID, &revs, &t.Secret, &started, &ended, &t.Promoted); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return t, notFound("Test")
		}
		return t, err
	}
	t.Revisions = fileframe.ParseRevisions(revs)
	t.StartedAt, t.EndedAt = fromTS(started), fromTS(ended)
	return t, nil
}

// PageTests returns the file's tests, newest first.
func (s *Store) PageTests(ctx context.Context, file fileframe.FileID) ([]fileframe.PageTest, error) {
	tests := []fileframe.PageTest{}
	if !storable(string(file)) {
		return tests, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+pageTestColumns+` FROM page_tests WHERE file_id = $1 ORDER BY started_at DESC, id DESC`, file)
	if err != nil {
		return nil, wrap("page tests", err)
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanPageTest(rows)
		if err != nil {
			return nil, wrap("page tests", err)
		}
		tests = append(tests, t)
	}
	return tests, wrap("page tests", rows.Err())
}

// RunningPageTest returns the file's running test.
func (s *Store) RunningPageTest(ctx context.Context, file fileframe.FileID) (fileframe.PageTest, error) {
	if !storable(string(file)) {
		return fileframe.PageTest{}, notFound("Test")
	}
	t, err := scanPageTest(s.pool.QueryRow(ctx, `SELECT `+pageTestColumns+` FROM page_tests WHERE file_id = $1 AND ended_at IS NULL`, file))
	return t, wrap("running page test", err)
}

// EndPageTest ends the running test id.
func (s *Store) EndPageTest(ctx context.Context, id fileframe.TestID, promoted int, at time.Time) (fileframe.PageTest, error) {
	if !storable(string(id)) {
		return fileframe.PageTest{}, notFound("Test")
	}
	t, err := scanPageTest(s.pool.QueryRow(ctx, `
		UPDATE page_tests SET ended_at = $1, promoted = $2 WHERE id = $3 AND ended_at IS NULL
		RETURNING `+pageTestColumns, ts(at), promoted, id))
	return t, wrap("end page test", err)
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/statsql"
)

// Statistics and A/B tests (fileframe.StatsStore; migration 013). Every
// count is added by an upsert that exists only while its file does, so a
// batch that names a file deleted meanwhile loses that file's counts and
// nothing else.

// AddStats adds the batch in one transaction.
func (s *Store) AddStats(ctx context.Context, b *fileframe.StatBatch) error {
	if b == nil || b.Empty() {
		return nil
	}
	err := s.inTx(ctx, func(ctx context.Context, tx querier) (err error) {
		// counts adds views, clicks and downloads to a row of table.
		counts := func(table, keys string) (*sql.Stmt, error) {
			return tx.PrepareContext(ctx, `
				INSERT INTO `+table+` (`+keys+`, views, clicks, downloads)
				SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE EXISTS (SELECT 1 FROM files WHERE id = ?1)
				ON CONFLICT (`+keys+`) DO UPDATE SET views = views + excluded.views,
					clicks = clicks + excluded.clicks, downloads = downloads + excluded.downloads`)
		}
		var stmts [3]*sql.Stmt
		for i, t := range [][2]string{
			{"stat_hours", "file_id, hour, variant, test_id"},
			{"stat_days", "file_id, day, variant, test_id"},
			{"stat_sources", "file_id, day, dim, value"},
		} {
			if stmts[i], err = counts(t[0], t[1]); err != nil {
				return err
			}
			defer stmts[i].Close()
		}
		for k, c := range b.Hours {
			args := []any{k.File, k.Hour, string(k.Variant), string(k.Test), c.Views, c.Clicks, c.Downloads}
			if _, err := stmts[0].ExecContext(ctx, args...); err != nil {
				return err
			}
			args[1] = k.Hour - ((k.Hour%86400)+86400)%86400
			if _, err := stmts[1].ExecContext(ctx, args...); err != nil {
				return err
			}
		}
		for k, c := range b.Sources {
			if _, err := stmts[2].ExecContext(ctx, k.File, k.Day, k.Dim, k.Value, c.Views, c.Clicks, c.Downloads); err != nil {
				return err
			}
		}
		vis, err := tx.PrepareContext(ctx, `
			INSERT INTO stat_visitors (file_id, day, variant, test_id, visitor, events)
			SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS (SELECT 1 FROM files WHERE id = ?1)
			ON CONFLICT (file_id, day, variant, test_id, visitor) DO UPDATE SET events = events | excluded.events`)
		if err != nil {
			return err
		}
		defer vis.Close()
		for k, e := range b.Visitors {
			if _, err := vis.ExecContext(ctx, k.File, k.Day, string(k.Variant), string(k.Test), int64(k.Visitor), int64(e)); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("add stats", err)
}

// StatsSalt returns the day's salt, made on first use. A day older than
// the newest rolled-up one has none any more: ENOTFOUND.
func (s *Store) StatsSalt(ctx context.Context, day int64, generate func() []byte) ([]byte, error) {
	var v []byte
	err := s.read.QueryRowContext(ctx, `SELECT salt FROM stat_salts WHERE day = ?`, day).Scan(&v)
	if err == nil {
		return v, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("stats salt", err)
	}
	fresh := generate()
	if len(fresh) == 0 {
		return nil, fileframe.Errorf(fileframe.EINVALID, "A salt cannot be empty.")
	}
	err = s.inTx(ctx, func(ctx context.Context, tx querier) error {
		// A day the rollup passed keeps no salt: making one again would
		// let a late caller count its visitors anew.
		var rolled bool
		if err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT before FROM stat_rollup WHERE id = 1), 0) > ?`, day).Scan(&rolled); err != nil {
			return err
		}
		if rolled {
			return notFound("Salt")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO stat_salts (day, salt) VALUES (?, ?) ON CONFLICT (day) DO NOTHING`, day, fresh); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT salt FROM stat_salts WHERE day = ?`, day).Scan(&v)
	})
	if err != nil {
		return nil, wrap("stats salt", err)
	}
	return v, nil
}

// RollupStats rolls up every day before cutoff's and applies retention.
func (s *Store) RollupStats(ctx context.Context, cutoff time.Time, keepHours, keepDays int64) (int64, error) {
	before := fileframe.DayStart(cutoff)
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		n = 0
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM stat_visitors WHERE day < ?`, before).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO stat_days (file_id, day, variant, test_id, visitors, converted)
				SELECT file_id, day, variant, test_id,
				       count(*) FILTER (WHERE events & 1 <> 0),
				       count(*) FILTER (WHERE events & 5 = 5)
				FROM stat_visitors WHERE day < ? GROUP BY file_id, day, variant, test_id
				ON CONFLICT (file_id, day, variant, test_id) DO UPDATE SET
					visitors = visitors + excluded.visitors, converted = converted + excluded.converted`, before); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM stat_visitors WHERE day < ?`, before); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM stat_salts WHERE day < ?`, before); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO stat_rollup (id, before) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET before = max(before, excluded.before)`, before); err != nil {
			return err
		}
		for _, q := range []struct {
			sql string
			at  int64
		}{
			{`DELETE FROM stat_hours WHERE hour < ?`, keepHours},
			{`DELETE FROM stat_days WHERE day < ?`, keepDays},
			{`DELETE FROM stat_sources WHERE day < ?`, keepDays},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.at); err != nil {
				return err
			}
		}
		return nil
	})
	return n, wrap("roll up stats", err)
}

// Stats returns the report of q.
func (s *Store) Stats(ctx context.Context, q fileframe.StatQuery) (fileframe.StatReport, error) {
	var rep fileframe.StatReport
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		rep, err = statsql.Report(ctx, func(ctx context.Context, query string, args []any, row func(func(...any) error) error) error {
			rows, err := tx.QueryContext(ctx, query, args...)
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
		}, q, nil)
		return err
	})
	return rep, wrap("stats", err)
}

// CreatePageTest starts t; a file's second running test is ECONFLICT.
func (s *Store) CreatePageTest(ctx context.Context, t fileframe.PageTest) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO page_tests (id, file_id, account_id, revisions, secret, started_at)
			SELECT ?, id, account_id, ?, ?, ? FROM files WHERE id = ?`,
			t.ID, fileframe.FormatRevisions(t.Revisions), t.Secret, stored(t.StartedAt).UnixMilli(), t.FileID)
		return err
	})
	if isUnique(err) {
		return fileframe.Errorf(fileframe.ECONFLICT, "The file already has a running test.")
	}
	return wrap("create page test", err)
}

const pageTestColumns = `id, file_id, account_id, revisions, secret, started_at, ended_at, promoted`

func scanPageTest(r interface{ Scan(...any) error }) (fileframe.PageTest, error) {
	var t fileframe.PageTest
	var revs string
	var started int64
	var ended sql.NullInt64
	if err := r.Scan(&t.ID, &t.FileID, &t.AccountID, &revs, &t.Secret, &started, &ended, &t.Promoted); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return t, notFound("Test")
		}
		return t, err
	}
	t.Revisions = fileframe.ParseRevisions(revs)
	t.StartedAt = time.UnixMilli(started).UTC()
	t.EndedAt = fromMillis(ended)
	return t, nil
}

// PageTests returns the file's tests, newest first.
func (s *Store) PageTests(ctx context.Context, file fileframe.FileID) ([]fileframe.PageTest, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+pageTestColumns+` FROM page_tests WHERE file_id = ? ORDER BY started_at DESC, id DESC`, file)
	if err != nil {
		return nil, wrap("page tests", err)
	}
	defer rows.Close()
	tests := []fileframe.PageTest{}
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
	t, err := scanPageTest(s.read.QueryRowContext(ctx, `SELECT `+pageTestColumns+` FROM page_tests WHERE file_id = ? AND ended_at IS NULL`, file))
	return t, wrap("running page test", err)
}

// EndPageTest ends the running test id.
func (s *Store) EndPageTest(ctx context.Context, id fileframe.TestID, promoted int, at time.Time) (fileframe.PageTest, error) {
	var t fileframe.PageTest
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		var err error
		t, err = scanPageTest(tx.QueryRowContext(ctx, `
			UPDATE page_tests SET ended_at = ?, promoted = ? WHERE id = ? AND ended_at IS NULL
			RETURNING `+pageTestColumns, stored(at).UnixMilli(), promoted, id))
		return err
	})
	return t, wrap("end page test", err)
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// SetAccountAppearance sets the account's default appearance; the zero
// value clears it. Larger images than before must fit in limit.
func (s *Store) SetAccountAppearance(ctx context.Context, id fileframe.AccountID, a fileframe.Appearance, limit int64, at time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := accountExists(ctx, tx, id); err != nil {
			return err
		}
		return setAppearance(ctx, tx, "account_appearances", "account_id", string(id), id, a, limit, at)
	})
	return wrap("set account appearance", err)
}

// AccountAppearance returns the account's default appearance, zero when none
// is set.
func (s *Store) AccountAppearance(ctx context.Context, id fileframe.AccountID) (fileframe.Appearance, error) {
	a, err := scanOwnedAppearance(s.accountAppearance.QueryRowContext(ctx, id), "Account")
	return a, wrap("account appearance", err)
}

// ownedAppearance is the query of the appearance of an owner (a row of
// parent) in table, keyed by column: one row when the owner exists, its
// appearance's columns NULL when it has none.
func ownedAppearance(parent, table, column string) string {
	return `SELECT x.template, x.headline, x.message, x.accent, x.logo_key, x.background, x.logo_bytes, x.background_bytes
		FROM ` + parent + ` p LEFT JOIN ` + table + ` x ON x.` + column + ` = p.id WHERE p.id = ?`
}

// scanOwnedAppearance reads ownedAppearance's row: not found (as what)
// without one, the zero value when the owner has no appearance.
func scanOwnedAppearance(row *sql.Row, what string) (fileframe.Appearance, error) {
	var template, headline, message, accent, logo, background sql.NullString
	var logoBytes, backgroundBytes sql.NullInt64
	err := row.Scan(&template, &headline, &message, &accent, &logo, &background, &logoBytes, &backgroundBytes)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Appearance{}, notFound(what)
	} else if err != nil {
		return fileframe.Appearance{}, err
	}
	return fileframe.Appearance{Template: template.String, Headline: headline.String, Message: message.String,
		Accent: accent.String, LogoKey: logo.String, Background: background.String,
		LogoBytes: logoBytes.Int64, BackgroundBytes: backgroundBytes.Int64}, nil
}

// setAppearance replaces the row of owner in table (account_appearances or
// file_appearances, keyed by column) with a, or deletes it when a is zero.
// When a's images are larger than the row's, the account's storage with
// a's images instead must fit in limit (reservations unexpired at at
// counting). The caller has checked that the
// owner, of account, exists; the writer runs one transaction at a time,
// so nothing changes between the check and the write.
func setAppearance(ctx context.Context, tx querier, table, column, owner string, account fileframe.AccountID, a fileframe.Appearance, limit int64, at time.Time) error {
	if limit > 0 {
		old, err := appearance(ctx, tx, table, column, owner)
		if err != nil {
			return err
		}
		if grow := a.ImageBytes() - old.ImageBytes(); grow > 0 {
			used, err := accountUsage(ctx, tx, account, "", at)
			if err != nil {
				return err
			}
			if used.Bytes+grow > limit {
				return fileframe.QuotaExceeded()
			}
		}
	}
	if a.IsZero() {
		_, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE `+column+` = ?`, owner)
		return err
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO `+table+` (`+column+`, template, headline, message, accent, logo_key, background, logo_bytes, background_bytes)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (`+column+`) DO UPDATE SET
			template = excluded.template, headline = excluded.headline, message = excluded.message,
			accent = excluded.accent, logo_key = excluded.logo_key, background = excluded.background,
			logo_bytes = excluded.logo_bytes, background_bytes = excluded.background_bytes`,
		owner, a.Template, a.Headline, a.Message, a.Accent, a.LogoKey, a.Background, a.LogoBytes, a.BackgroundBytes)
	return err
}

// appearance reads the row of owner in table, the zero value when there is
// none.
func appearance(ctx context.Context, tx querier, table, column, owner string) (fileframe.Appearance, error) {
	var a fileframe.Appearance
	err := tx.QueryRowContext(ctx, `
		SELECT template, headline, message, accent, logo_key, background, logo_bytes, background_bytes
		FROM `+table+` WHERE `+column+` = ?`, owner).
		Scan(&a.Template, &a.Headline, &a.Message, &a.Accent, &a.LogoKey, &a.Background, &a.LogoBytes, &a.BackgroundBytes)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Appearance{}, nil
	}
	return a, err
}

// SetFileAppearance sets the file's own appearance; the zero value clears
// it. Larger images than before must fit in limit.
func (s *Store) SetFileAppearance(ctx context.Context, id fileframe.FileID, a fileframe.Appearance, limit int64, at time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		var account fileframe.AccountID
		err := tx.QueryRowContext(ctx, `SELECT account_id FROM files WHERE id = ?`, id).Scan(&account)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("File")
		} else if err != nil {
			return err
		}
		return setAppearance(ctx, tx, "file_appearances", "file_id", string(id), account, a, limit, at)
	})
	return wrap("set file appearance", err)
}

// FileAppearance returns the file's own appearance, zero when none is set.
func (s *Store) FileAppearance(ctx context.Context, id fileframe.FileID) (fileframe.Appearance, error) {
	a, err := scanOwnedAppearance(s.fileAppearance.QueryRowContext(ctx, id), "File")
	return a, wrap("file appearance", err)
}

// UnmeasuredImages returns up to limit keys of appearance images stored
// before their sizes were kept.
func (s *Store) UnmeasuredImages(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT key FROM (
			SELECT logo_key AS key FROM account_appearances WHERE logo_bytes < 0
			UNION SELECT background FROM account_appearances WHERE background_bytes < 0
			UNION SELECT logo_key FROM file_appearances WHERE logo_bytes < 0
			UNION SELECT background FROM file_appearances WHERE background_bytes < 0)
		ORDER BY key LIMIT ?`, limit)
	if err != nil {
		return nil, wrap("unmeasured images", err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, wrap("unmeasured images", err)
		}
		keys = append(keys, k)
	}
	return keys, wrap("unmeasured images", rows.Err())
}

// SetImageBytes sets the size of every unmeasured image with blob key key.
func (s *Store) SetImageBytes(ctx context.Context, key string, bytes int64) error {
	if bytes < 0 {
		return fileframe.Errorf(fileframe.EINVALID, "An image's size is at least zero.")
	}
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		for _, q := range []string{
			`UPDATE account_appearances SET logo_bytes = ?1 WHERE logo_key = ?2 AND logo_bytes < 0`,
			`UPDATE account_appearances SET background_bytes = ?1 WHERE background = ?2 AND background_bytes < 0`,
			`UPDATE file_appearances SET logo_bytes = ?1 WHERE logo_key = ?2 AND logo_bytes < 0`,
			`UPDATE file_appearances SET background_bytes = ?1 WHERE background = ?2 AND background_bytes < 0`,
		} {
			if _, err := tx.ExecContext(ctx, q, bytes, key); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("set image bytes", err)
}

package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// SetAccountAppearance sets the account's default appearance; the zero
// value clears it. A missing account is ENOTFOUND (the violation of
// account_appearances_account_id_fkey, or the check before a delete).
// Larger images than before must fit in limit.
func (s *Store) SetAccountAppearance(ctx context.Context, id fileframe.AccountID, a fileframe.Appearance, limit int64, at time.Time) error {
	if !storable(string(id)) {
		return notFound("Account")
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := fitImages(ctx, tx, "account_appearances", "account_id", "accounts", string(id), id, a, limit, at); err != nil {
			return err
		}
		return setAppearance(ctx, tx, "account_appearances", "account_id", "accounts", string(id), a)
	})
	if fileframe.IsNotFound(err) {
		return notFound("Account")
	}
	return wrap("set account appearance", err)
}

// AccountAppearance returns the account's default appearance, zero when none
// is set.
func (s *Store) AccountAppearance(ctx context.Context, id fileframe.AccountID) (fileframe.Appearance, error) {
	if !storable(string(id)) {
		return fileframe.Appearance{}, notFound("Account")
	}
	a, err := appearance(ctx, s.pool, "account_appearances", "account_id", "accounts", string(id))
	if fileframe.IsNotFound(err) {
		return fileframe.Appearance{}, notFound("Account")
	}
	return a, wrap("account appearance", err)
}

// queryer is a pool or a transaction.
type queryer interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// fitImages returns CodeQuotaExceeded when a's images are larger than
// those of owner's row in table and the account's storage, with a's
// images instead, does not fit in limit (≤ 0: unlimited). It locks the
// account's usage row first (lockUsage), as every check of its storage
// does, so that nothing changes between the check and the caller's write;
// and does so under any limit, so that the write, whose trigger updates
// that row after it locks the appearance's, never takes the two in the
// other order than a concurrent write of the same appearance.
func fitImages(ctx context.Context, tx pgx.Tx, table, column, parent, owner string, account fileframe.AccountID, a fileframe.Appearance, limit int64, at time.Time) error {
	used, err := lockUsage(ctx, tx, account, "", at)
	if err != nil || limit <= 0 {
		return err
	}
	old, err := appearance(ctx, tx, table, column, parent, owner)
	if err != nil {
		return err
	}
	if grow := a.ImageBytes() - old.ImageBytes(); grow > 0 && used.Bytes+grow > limit {
		return fileframe.QuotaExceeded()
	}
	return nil
}

// setAppearance replaces the row of owner in table (account_appearances or
// file_appearances, keyed by column, referring to parent) with a, or deletes
// it when a is zero. It is ENOTFOUND when the owner does not exist.
func setAppearance(ctx context.Context, tx pgx.Tx, table, column, parent, owner string, a fileframe.Appearance) error {
	if !storable(a.Template, a.Headline, a.Message, a.Accent, a.LogoKey, a.Background) {
		return fileframe.Errorf(fileframe.EINVALID, "The store cannot hold this value.")
	}
	if a.IsZero() {
		var exists bool
		err := tx.QueryRow(ctx, `
			WITH d AS (DELETE FROM `+table+` WHERE `+column+` = $1)
			SELECT EXISTS (SELECT 1 FROM `+parent+` WHERE id = $1)`, owner).Scan(&exists)
		if err == nil && !exists {
			err = notFound("Owner")
		}
		return err
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO `+table+` (`+column+`, template, headline, message, accent, logo_key, background, logo_bytes, background_bytes)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (`+column+`) DO UPDATE SET
			template = excluded.template, headline = excluded.headline, message = excluded.message,
			accent = excluded.accent, logo_key = excluded.logo_key, background = excluded.background,
			logo_bytes = excluded.logo_bytes, background_bytes = excluded.background_bytes`,
		owner, a.Template, a.Headline, a.Message, a.Accent, a.LogoKey, a.Background, a.LogoBytes, a.BackgroundBytes)
	return wrap("set appearance", err)
}

// appearance reads the row of owner in table, the zero value when there is
// none; ENOTFOUND when the owner (a row of parent) does not exist.
func appearance(ctx context.Context, q queryer, table, column, parent, owner string) (fileframe.Appearance, error) {
	var a fileframe.Appearance
	var template, headline, message, accent, logo, background pgtype.Text
	var logoBytes, backgroundBytes pgtype.Int8
	err := q.QueryRow(ctx, `
		SELECT x.template, x.headline, x.message, x.accent, x.logo_key, x.background, x.logo_bytes, x.background_bytes
		FROM `+parent+` p LEFT JOIN `+table+` x ON x.`+column+` = p.id
		WHERE p.id = $1`, owner).
		Scan(&template, &headline, &message, &accent, &logo, &background, &logoBytes, &backgroundBytes)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Appearance{}, notFound("Owner")
	} else if err != nil {
		return fileframe.Appearance{}, err
	}
	a.Template, a.Headline, a.Message = template.String, headline.String, message.String
	a.Accent, a.LogoKey, a.Background = accent.String, logo.String, background.String
	a.LogoBytes, a.BackgroundBytes = logoBytes.Int64, backgroundBytes.Int64
	return a, nil
}

// SetFileAppearance sets the file's own appearance; the zero value clears
// it. A missing file is ENOTFOUND. Larger images than before must fit in
// limit.
func (s *Store) SetFileAppearance(ctx context.Context, id fileframe.FileID, a fileframe.Appearance, limit int64, at time.Time) error {
	if !storable(string(id)) {
		return notFound("File")
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var account fileframe.AccountID
		// The file's row before the account's usage row, in the order
		// deleteFile takes them, so that the two never wait on each other.
		err := tx.QueryRow(ctx, `SELECT account_id FROM files WHERE id = $1 FOR KEY SHARE`, id).Scan(&account)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("File")
		} else if err != nil {
			return err
		}
		if err := fitImages(ctx, tx, "file_appearances", "file_id", "files", string(id), account, a, limit, at); err != nil {
			return err
		}
		return setAppearance(ctx, tx, "file_appearances", "file_id", "files", string(id), a)
	})
	if fileframe.IsNotFound(err) {
		return notFound("File")
	}
	return wrap("set file appearance", err)
}

// FileAppearance returns the file's own appearance, zero when none is set.
func (s *Store) FileAppearance(ctx context.Context, id fileframe.FileID) (fileframe.Appearance, error) {
	if !storable(string(id)) {
		return fileframe.Appearance{}, notFound("File")
	}
	a, err := appearance(ctx, s.pool, "file_appearances", "file_id", "files", string(id))
	if fileframe.IsNotFound(err) {
		return fileframe.Appearance{}, notFound("File")
	}
	return a, wrap("file appearance", err)
}

// UnmeasuredImages returns up to limit keys of appearance images stored
// before their sizes were kept.
func (s *Store) UnmeasuredImages(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT key FROM (
			SELECT logo_key AS key FROM account_appearances WHERE logo_bytes < 0
			UNION SELECT background FROM account_appearances WHERE background_bytes < 0
			UNION SELECT logo_key FROM file_appearances WHERE logo_bytes < 0
			UNION SELECT background FROM file_appearances WHERE background_bytes < 0) k
		ORDER BY key LIMIT $1`, limit)
	if err != nil {
		return nil, wrap("unmeasured images", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return keys, wrap("unmeasured images", err)
}

// SetImageBytes sets the size of every unmeasured image with blob key key.
func (s *Store) SetImageBytes(ctx context.Context, key string, bytes int64) error {
	if bytes < 0 {
		return fileframe.Errorf(fileframe.EINVALID, "An image's size is at least zero.")
	}
	if !storable(key) {
		return nil
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		for _, q := range []string{
			`UPDATE account_appearances SET logo_bytes = $1 WHERE logo_key = $2 AND logo_bytes < 0`,
			`UPDATE account_appearances SET background_bytes = $1 WHERE background = $2 AND background_bytes < 0`,
			`UPDATE file_appearances SET logo_bytes = $1 WHERE logo_key = $2 AND logo_bytes < 0`,
			`UPDATE file_appearances SET background_bytes = $1 WHERE background = $2 AND background_bytes < 0`,
		} {
			if _, err := tx.Exec(ctx, q, bytes, key); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("set image bytes", err)
}

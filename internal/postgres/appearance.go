package postgres

import (
	"context"
	"errors"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// SetAccountAppearance sets the account's default appearance; the zero
// value clears it. A missing account is ENOTFOUND (the violation of
// account_appearances_account_id_fkey, or the check before a delete).
func (s *Store) SetAccountAppearance(ctx context.Context, id fileframe.AccountID, a fileframe.Appearance) error {
	if !storable(string(id)) {
		return notFound("Account")
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
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
		INSERT INTO `+table+` (`+column+`, template, headline, message, accent, logo_key, background)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (`+column+`) DO UPDATE SET
			template = excluded.template, headline = excluded.headline, message = excluded.message,
			accent = excluded.accent, logo_key = excluded.logo_key, background = excluded.background`,
		owner, a.Template, a.Headline, a.Message, a.Accent, a.LogoKey, a.Background)
	return wrap("set appearance", err)
}

// appearance reads the row of owner in table, the zero value when there is
// none; ENOTFOUND when the owner (a row of parent) does not exist.
func appearance(ctx context.Context, q queryer, table, column, parent, owner string) (fileframe.Appearance, error) {
	var a fileframe.Appearance
	var template, headline, message, accent, logo, background pgtype.Text
	err := q.QueryRow(ctx, `
		SELECT x.template, x.headline, x.message, x.accent, x.logo_key, x.background
		FROM `+parent+` p LEFT JOIN `+table+` x ON x.`+column+` = p.id
		WHERE p.id = $1`, owner).
		Scan(&template, &headline, &message, &accent, &logo, &background)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Appearance{}, notFound("Owner")
	} else if err != nil {
		return fileframe.Appearance{}, err
	}
	a.Template, a.Headline, a.Message = template.String, headline.String, message.String
	a.Accent, a.LogoKey, a.Background = accent.String, logo.String, background.String
	return a, nil
}

// SetFileAppearance sets the file's own appearance; the zero value clears
// it. A missing file is ENOTFOUND.
func (s *Store) SetFileAppearance(ctx context.Context, id fileframe.FileID, a fileframe.Appearance) error {
	if !storable(string(id)) {
		return notFound("File")
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
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

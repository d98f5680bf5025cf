package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// SetAccountAppearance sets the account's default appearance; the zero
// value clears it.
func (s *Store) SetAccountAppearance(ctx context.Context, id fileframe.AccountID, a fileframe.Appearance) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := accountExists(ctx, tx, id); err != nil {
			return err
		}
		return setAppearance(ctx, tx, "account_appearances", "account_id", string(id), a)
	})
	return wrap("set account appearance", err)
}

// AccountAppearance returns the account's default appearance, zero when none
// is set.
func (s *Store) AccountAppearance(ctx context.Context, id fileframe.AccountID) (fileframe.Appearance, error) {
	var a fileframe.Appearance
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := accountExists(ctx, tx, id); err != nil {
			return err
		}
		var err error
		a, err = appearance(ctx, tx, "account_appearances", "account_id", string(id))
		return err
	})
	return a, wrap("account appearance", err)
}

// setAppearance replaces the row of owner in table (account_appearances or
// file_appearances, keyed by column) with a, or deletes it when a is zero.
// The caller has checked that the owner exists.
func setAppearance(ctx context.Context, tx querier, table, column, owner string, a fileframe.Appearance) error {
	if a.IsZero() {
		_, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE `+column+` = ?`, owner)
		return err
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO `+table+` (`+column+`, template, headline, message, accent, logo_key, background)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (`+column+`) DO UPDATE SET
			template = excluded.template, headline = excluded.headline, message = excluded.message,
			accent = excluded.accent, logo_key = excluded.logo_key, background = excluded.background`,
		owner, a.Template, a.Headline, a.Message, a.Accent, a.LogoKey, a.Background)
	return err
}

// appearance reads the row of owner in table, the zero value when there is
// none.
func appearance(ctx context.Context, tx querier, table, column, owner string) (fileframe.Appearance, error) {
	var a fileframe.Appearance
	err := tx.QueryRowContext(ctx, `
		SELECT template, headline, message, accent, logo_key, background FROM `+table+` WHERE `+column+` = ?`, owner).
		Scan(&a.Template, &a.Headline, &a.Message, &a.Accent, &a.LogoKey, &a.Background)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Appearance{}, nil
	}
	return a, err
}

// SetFileAppearance sets the file's own appearance; the zero value clears
// it.
func (s *Store) SetFileAppearance(ctx context.Context, id fileframe.FileID, a fileframe.Appearance) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := fileExists(ctx, tx, id); err != nil {
			return err
		}
		return setAppearance(ctx, tx, "file_appearances", "file_id", string(id), a)
	})
	return wrap("set file appearance", err)
}

// FileAppearance returns the file's own appearance, zero when none is set.
func (s *Store) FileAppearance(ctx context.Context, id fileframe.FileID) (fileframe.Appearance, error) {
	var a fileframe.Appearance
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := fileExists(ctx, tx, id); err != nil {
			return err
		}
		var err error
		a, err = appearance(ctx, tx, "file_appearances", "file_id", string(id))
		return err
	})
	return a, wrap("file appearance", err)
}

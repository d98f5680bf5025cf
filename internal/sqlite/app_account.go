package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// CountAccounts returns the number of accounts.
func (s *Store) CountAccounts(ctx context.Context) (int, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM accounts`).Scan(&n); err != nil {
		return 0, wrap("count accounts", err)
	}
	return n, nil
}

// ListAccounts lists every account, oldest first (accounts made in the same
// millisecond in the order they were made), with its file count and bytes
// stored.
func (s *Store) ListAccounts(ctx context.Context) ([]fileframe.AccountUsage, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT a.id, a.email, a.password_hash, a.plan, a.admin, a.disabled, a.created_at,
		       (SELECT count(*) FROM files f WHERE f.account_id = a.id),
		       (SELECT coalesce(sum(f.size), 0) FROM files f WHERE f.account_id = a.id)
		FROM accounts a ORDER BY a.created_at, a.rowid`)
	if err != nil {
		return nil, wrap("list accounts", err)
	}
	defer rows.Close()
	list := []fileframe.AccountUsage{}
	for rows.Next() {
		var u fileframe.AccountUsage
		var created sql.NullInt64
		if err := rows.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.Plan, &u.Admin, &u.Disabled, &created, &u.Files, &u.Bytes); err != nil {
			return nil, wrap("list accounts", err)
		}
		u.CreatedAt = fromMillis(created)
		list = append(list, u)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("list accounts", err)
	}
	return list, nil
}

// SetAccountPassword replaces the account's password hash.
func (s *Store) SetAccountPassword(ctx context.Context, id fileframe.AccountID, hash string) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET password_hash = ? WHERE id = ?`, hash, id)
		if err != nil {
			return err
		}
		return mustAffect(res, "Account")
	})
	return wrap("set account password", err)
}

// SetAccountDisabled disables or re-enables an account.
func (s *Store) SetAccountDisabled(ctx context.Context, id fileframe.AccountID, disabled bool) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET disabled = ? WHERE id = ?`, disabled, id)
		if err != nil {
			return err
		}
		return mustAffect(res, "Account")
	})
	return wrap("set account disabled", err)
}

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

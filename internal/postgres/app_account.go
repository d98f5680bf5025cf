package postgres

import (
	"context"
	"errors"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// CountAccounts returns the number of accounts.
func (s *Store) CountAccounts(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM accounts`).Scan(&n); err != nil {
		return 0, wrap("count accounts", err)
	}
	return n, nil
}

// ListAccounts lists every account, oldest first (accounts made in the same
// millisecond in the order they were made), with its file count and bytes
// stored.
func (s *Store) ListAccounts(ctx context.Context) ([]fileframe.AccountUsage, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT a.id, a.email, a.password_hash, a.plan, a.admin, a.disabled, a.created_at,
		       count(f.id), coalesce(sum(f.size), 0)::bigint
		FROM accounts a LEFT JOIN files f ON f.account_id = a.id
		GROUP BY a.id ORDER BY a.created_at, a.seq`)
	if err != nil {
		return nil, wrap("list accounts", err)
	}
	defer rows.Close()
	list := []fileframe.AccountUsage{}
	for rows.Next() {
		var u fileframe.AccountUsage
		var created pgtype.Timestamptz
		if err := rows.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.Plan, &u.Admin, &u.Disabled, &created, &u.Files, &u.Bytes); err != nil {
			return nil, wrap("list accounts", err)
		}
		u.CreatedAt = fromTS(created)
		list = append(list, u)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("list accounts", err)
	}
	return list, nil
}

// SetAccountPassword replaces the account's password hash.
func (s *Store) SetAccountPassword(ctx context.Context, id fileframe.AccountID, hash string) error {
	if !storable(string(id)) {
		return notFound("Account")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE accounts SET password_hash = $1 WHERE id = $2`, hash, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("Account")
	}
	return wrap("set account password", err)
}

// SetAccountDisabled disables or re-enables an account.
func (s *Store) SetAccountDisabled(ctx context.Context, id fileframe.AccountID, disabled bool) error {
	if !storable(string(id)) {
		return notFound("Account")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE accounts SET disabled = $1 WHERE id = $2`, disabled, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("Account")
	}
	return wrap("set account disabled", err)
}

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

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// CreateAccount stores a new account with its email lower-cased, setting ID
// and CreatedAt when empty. A taken email is ECONFLICT; an empty email or an
// unknown plan is EINVALID.
func (s *Store) CreateAccount(ctx context.Context, a fileframe.Account) (fileframe.Account, error) {
	return s.createAccount(ctx, a, false)
}

// CreateFirstAccount stores a only while no account exists. Writes are
// serialised (one writer, BEGIN IMMEDIATE across processes), so the
// insert's NOT EXISTS sees every committed account.
func (s *Store) CreateFirstAccount(ctx context.Context, a fileframe.Account) (fileframe.Account, error) {
	return s.createAccount(ctx, a, true)
}

func (s *Store) createAccount(ctx context.Context, a fileframe.Account, first bool) (fileframe.Account, error) {
	a.Email = strings.ToLower(a.Email)
	if err := a.Check(); err != nil {
		return fileframe.Account{}, err
	}
	if a.ID == "" {
		a.ID = fileframe.NewAccountID()
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = now()
	}
	a.CreatedAt = stored(a.CreatedAt)
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `
			INSERT INTO accounts (id, email, password_hash, plan, admin, disabled, created_at)
			SELECT ?, ?, ?, ?, ?, ?, ?
			WHERE NOT ? OR NOT EXISTS (SELECT 1 FROM accounts)`,
			a.ID, a.Email, a.PasswordHash, a.Plan, a.Admin, a.Disabled, millis(a.CreatedAt), first)
		if err == nil && first {
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				return fileframe.Errorf(fileframe.ECONFLICT, "An account already exists: this instance is set up.")
			}
		}
		if isUnique(err) {
			var taken bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE email = ?)`, a.Email).Scan(&taken); err != nil {
				return err
			}
			if taken {
				return fileframe.Errorf(fileframe.ECONFLICT, "An account with this email already exists.")
			}
			return fileframe.Errorf(fileframe.ECONFLICT, "An account with this ID already exists.")
		}
		return err
	})
	if err != nil {
		return fileframe.Account{}, wrap("create account", err)
	}
	return a, nil
}

const accountColumns = `id, email, password_hash, plan, admin, disabled, created_at`

func scanAccount(row *sql.Row) (fileframe.Account, error) {
	var a fileframe.Account
	var created sql.NullInt64
	err := row.Scan(&a.ID, &a.Email, &a.PasswordHash, &a.Plan, &a.Admin, &a.Disabled, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Account{}, notFound("Account")
	} else if err != nil {
		return fileframe.Account{}, err
	}
	a.CreatedAt = fromMillis(created)
	return a, nil
}

// AccountByID returns the account with that ID.
func (s *Store) AccountByID(ctx context.Context, id fileframe.AccountID) (fileframe.Account, error) {
	a, err := scanAccount(s.accountByID.QueryRowContext(ctx, id))
	return a, wrap("account by id", err)
}

// AccountByEmail returns the account with that email, in any case.
func (s *Store) AccountByEmail(ctx context.Context, email string) (fileframe.Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE email = ?`, strings.ToLower(email)))
	return a, wrap("account by email", err)
}

// SetAccountPlan changes an account's plan; an unknown plan is EINVALID.
func (s *Store) SetAccountPlan(ctx context.Context, id fileframe.AccountID, p fileframe.Plan) error {
	if _, err := fileframe.ParsePlan(string(p)); err != nil {
		return err
	}
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE accounts SET plan = ? WHERE id = ?`, p, id)
		if err != nil {
			return err
		}
		return mustAffect(res, "Account")
	})
	return wrap("set account plan", err)
}

// mustAffect returns ENOTFOUND (for what) when res changed no row.
func mustAffect(res sql.Result, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound(what)
	}
	return nil
}

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
		       coalesce(u.file_count, 0), coalesce(u.file_bytes + u.appearance_bytes + u.asset_bytes, 0)
		FROM accounts a LEFT JOIN account_usage u ON u.account_id = a.id ORDER BY a.created_at, a.rowid`)
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

// accountExists returns ENOTFOUND unless the account exists.
func accountExists(ctx context.Context, tx querier, id fileframe.AccountID) error {
	var ok bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = ?)`, id).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return notFound("Account")
	}
	return nil
}

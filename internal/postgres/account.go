package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// CreateAccount stores a new account with its email lower-cased, setting ID
// and CreatedAt when empty. A taken email or ID is ECONFLICT; an empty email
// or an unknown plan is EINVALID.
func (s *Store) CreateAccount(ctx context.Context, a fileframe.Account) (fileframe.Account, error) {
	return s.createAccount(ctx, a, false)
}

// firstAccountLock is the transaction-level advisory lock that serialises
// CreateFirstAccount across instances ("fileframe first account").
const firstAccountLock = 0x66666669727374

// CreateFirstAccount stores a only while no account exists. Under READ
// COMMITTED two inserts guarded by NOT EXISTS could both see an empty table,
// so concurrent calls are serialised with an advisory lock first.
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
	insert := func(ctx context.Context, db interface {
		Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	}) (pgconn.CommandTag, error) {
		return db.Exec(ctx, `
			INSERT INTO accounts (id, email, password_hash, plan, admin, disabled, created_at)
			SELECT $1, $2, $3, $4, $5, $6, $7
			WHERE NOT $8 OR NOT EXISTS (SELECT 1 FROM accounts)`,
			a.ID, a.Email, a.PasswordHash, a.Plan, a.Admin, a.Disabled, ts(a.CreatedAt), first)
	}
	var err error
	if first {
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(firstAccountLock)); err != nil {
				return err
			}
			tag, err := insert(ctx, tx)
			if err == nil && tag.RowsAffected() == 0 {
				return fileframe.Errorf(fileframe.ECONFLICT, "An account already exists: this instance is set up.")
			}
			return err
		})
	} else {
		_, err = insert(ctx, s.pool)
	}
	if err != nil {
		return fileframe.Account{}, wrap("create account", err)
	}
	return a, nil
}

const accountColumns = `id, email, password_hash, plan, admin, disabled, created_at`

func scanAccount(row pgx.Row) (fileframe.Account, error) {
	var a fileframe.Account
	var created pgtype.Timestamptz
	err := row.Scan(&a.ID, &a.Email, &a.PasswordHash, &a.Plan, &a.Admin, &a.Disabled, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Account{}, notFound("Account")
	} else if err != nil {
		return fileframe.Account{}, err
	}
	a.CreatedAt = fromTS(created)
	return a, nil
}

// AccountByID returns the account with that ID.
func (s *Store) AccountByID(ctx context.Context, id fileframe.AccountID) (fileframe.Account, error) {
	if !storable(string(id)) {
		return fileframe.Account{}, notFound("Account")
	}
	a, err := scanAccount(s.pool.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id))
	return a, wrap("account by id", err)
}

// AccountByEmail returns the account with that email, in any case.
func (s *Store) AccountByEmail(ctx context.Context, email string) (fileframe.Account, error) {
	if !storable(email) {
		return fileframe.Account{}, notFound("Account")
	}
	a, err := scanAccount(s.pool.QueryRow(ctx, `SELECT `+accountColumns+` FROM accounts WHERE email = $1`, strings.ToLower(email)))
	return a, wrap("account by email", err)
}

// SetAccountPlan changes an account's plan; an unknown plan is EINVALID.
func (s *Store) SetAccountPlan(ctx context.Context, id fileframe.AccountID, p fileframe.Plan) error {
	if _, err := fileframe.ParsePlan(string(p)); err != nil {
		return err
	}
	if !storable(string(id)) {
		return notFound("Account")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE accounts SET plan = $1 WHERE id = $2`, p, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("Account")
	}
	return wrap("set account plan", err)
}

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
		       coalesce(u.file_count, 0), coalesce(u.file_bytes + u.appearance_bytes + u.asset_bytes, 0)
		FROM accounts a LEFT JOIN account_usage u ON u.account_id = a.id ORDER BY a.created_at, a.seq`)
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

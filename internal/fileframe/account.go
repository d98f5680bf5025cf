package fileframe

import (
	"context"
	"time"
)

// AccountID identifies an account.
type AccountID string

// Account is an owner of files. Email is stored lower-cased and is unique.
type Account struct {
	ID           AccountID
	Email        string
	PasswordHash string // empty when the account has no password (CLI-made)
	Plan         Plan
	Admin        bool
	Disabled     bool // a disabled account's links stop working; nothing is deleted
	CreatedAt    time.Time
}

// Check reports whether a can be stored: an email address and a known
// plan. Stores call it before writing; its errors are EINVALID.
func (a Account) Check() error {
	if a.Email == "" {
		return Errorf(EINVALID, "An account needs an email address.")
	}
	_, err := ParsePlan(string(a.Plan))
	return err
}

// AccountStore keeps accounts. Errors follow Store's conventions.
type AccountStore interface {
	// CreateAccount stores a new account. The email is lower-cased; a taken
	// email is ECONFLICT. ID and CreatedAt are set when empty.
	CreateAccount(ctx context.Context, a Account) (Account, error)
	// CreateFirstAccount stores a as the instance's first account, like
	// CreateAccount, but only while no account exists: otherwise it is
	// ECONFLICT. Check and insert are one atomic step across every process
	// sharing the store, so that two setup screens submitted at once (on one
	// instance or on several) cannot both create an admin.
	CreateFirstAccount(ctx context.Context, a Account) (Account, error)
	// AccountByID returns the account with that ID.
	AccountByID(ctx context.Context, id AccountID) (Account, error)
	// AccountByEmail returns the account with that email (any case).
	AccountByEmail(ctx context.Context, email string) (Account, error)
	// SetAccountPlan changes an account's plan.
	SetAccountPlan(ctx context.Context, id AccountID, p Plan) error
	// CountAccounts returns the number of accounts (0 on a fresh instance,
	// which then shows its setup screen).
	CountAccounts(ctx context.Context) (int, error)
	// ListAccounts lists every account, oldest first, with its file count
	// and bytes stored: its files' and its appearances' images (each
	// appearance's own, as the storage quota counts them).
	ListAccounts(ctx context.Context) ([]AccountUsage, error)
	// SetAccountPassword replaces the account's password hash.
	SetAccountPassword(ctx context.Context, id AccountID, hash string) error
	// SetAccountDisabled disables or re-enables an account; a disabled
	// account's links stop working and nothing is deleted.
	SetAccountDisabled(ctx context.Context, id AccountID, disabled bool) error
}

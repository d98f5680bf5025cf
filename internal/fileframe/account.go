package fileframe

import "time"

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

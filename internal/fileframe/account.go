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

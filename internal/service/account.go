package service

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
)

// SetPlan moves an account to another plan. What visitors of its links
// see follows at once: custom pages need Agency, templates Pro or Agency.
func (s *Service) SetPlan(ctx context.Context, id fileframe.AccountID, p fileframe.Plan) (fileframe.Account, error) {
	if _, err := fileframe.ParsePlan(string(p)); err != nil {
		return fileframe.Account{}, err
	}
	if err := s.store.SetAccountPlan(ctx, id, p); err != nil {
		return fileframe.Account{}, err
	}
	s.changed()
	return s.store.AccountByID(ctx, id)
}

// SetDisabled disables an account (its links stop working and its
// sessions end; nothing is deleted) or enables it again.
func (s *Service) SetDisabled(ctx context.Context, id fileframe.AccountID, disabled bool) error {
	if err := s.store.SetAccountDisabled(ctx, id, disabled); err != nil {
		return err
	}
	s.changed()
	if disabled {
		if err := s.store.DeleteAccountSessions(ctx, id, ""); err != nil {
			return fmt.Errorf("ending the sessions of a disabled account: %w", err)
		}
	}
	return nil
}

// Bounds of the passwords people set (sign-up, setup, a password change,
// the CLI's account create --password).
const (
	MinPasswordChars = 10
	MaxPasswordBytes = 1024
)

// CheckPassword returns an invalid_field error, saying why, for a password
// that cannot be set.
func CheckPassword(pw string) error {
	switch {
	case len(pw) > MaxPasswordBytes:
		return fileframe.Errorf(fileframe.CodeInvalidField, "Passwords can be at most 1024 bytes long.")
	case utf8.RuneCountInString(pw) < MinPasswordChars:
		return fileframe.Errorf(fileframe.CodeInvalidField, "Passwords must be at least 10 characters.")
	}
	return nil
}

// NewAccount is an account to create.
type NewAccount struct {
	Email string
	// Password is hashed (CheckPassword's rules); empty for an account
	// without one (only the operator's CLI makes those).
	Password string
	Plan     fileframe.Plan
	Admin    bool
	// First: the instance's first account, made only while none exists
	// (the setup screen), atomically across every process (ECONFLICT
	// otherwise).
	First bool
}

// CreateAccount creates an account: the setup screen's, sign-up's and the
// CLI's, under the same password rules and the same bounded hashing
// (Config.Passwords; a full budget is password.ErrBusy). A taken email is
// ECONFLICT.
func (s *Service) CreateAccount(ctx context.Context, na NewAccount) (fileframe.Account, error) {
	var hash string
	if na.Password != "" {
		if err := CheckPassword(na.Password); err != nil {
			return fileframe.Account{}, err
		}
		var err error
		if hash, err = s.hasher().Hash(ctx, na.Password); err != nil {
			return fileframe.Account{}, err
		}
	}
	a := fileframe.Account{Email: na.Email, PasswordHash: hash, Plan: na.Plan, Admin: na.Admin, CreatedAt: s.now()}
	if na.First {
		return s.store.CreateFirstAccount(ctx, a)
	}
	return s.store.CreateAccount(ctx, a)
}

// ChangePassword sets a new password on an account whose current password
// the person proved, and ends the account's other sessions (all but keep,
// the hash of the session making the change). When current is wrong or
// next breaks the rules, nothing changes and fields says why, by form
// field ("current", "new"). Hashing is bounded like CreateAccount's.
func (s *Service) ChangePassword(ctx context.Context, a fileframe.Account, current, next, keep string) (fields map[string]string, err error) {
	fields = map[string]string{}
	match := false
	if current != "" && len(current) <= MaxPasswordBytes && a.PasswordHash != "" {
		match, err = s.hasher().Verify(ctx, current, a.PasswordHash)
		if err != nil && !errors.Is(err, password.ErrMalformed) {
			return nil, err
		}
	}
	if !match {
		fields["current"] = "Your current password is not right."
	}
	if err := CheckPassword(next); err != nil {
		fields["new"] = fileframe.ErrorMessage(err)
	}
	if len(fields) > 0 {
		return fields, nil
	}
	hash, err := s.hasher().Hash(ctx, next)
	if err != nil {
		return nil, err
	}
	if err := s.store.SetAccountPassword(ctx, a.ID, hash); err != nil {
		return nil, err
	}
	if err := s.store.DeleteAccountSessions(ctx, a.ID, keep); err != nil {
		return nil, fmt.Errorf("ending the other sessions after a password change: %w", err)
	}
	return nil, nil
}

// hasher returns Config.Passwords, or a Hasher with the defaults.
func (s *Service) hasher() *password.Hasher {
	s.passwordsOnce.Do(func() {
		if s.passwords == nil {
			s.passwords, _ = password.NewHasher(password.DefaultParams(), password.Budget{})
		}
	})
	return s.passwords
}

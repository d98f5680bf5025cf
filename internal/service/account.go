package service

import (
	"context"
	"fmt"

	"github.com/fileframe/fileframe/internal/fileframe"
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

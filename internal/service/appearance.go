package service

import (
	"context"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// SetAccountAppearance sets the account's appearance of its download pages
// (the zero value clears it). It needs the Pro or the Agency plan. The
// appearance is stored as given: the web edge validates it.
func (s *Service) SetAccountAppearance(ctx context.Context, a fileframe.Account, ap fileframe.Appearance) error {
	if err := templates(a); err != nil {
		return err
	}
	if err := s.store.SetAccountAppearance(ctx, a.ID, ap); err != nil {
		return err
	}
	s.changed()
	return nil
}

// SetFileAppearance gives one of the account's files an appearance of its
// own (the zero value goes back to the account's). It needs Pro or Agency.
func (s *Service) SetFileAppearance(ctx context.Context, a fileframe.Account, f fileframe.File, ap fileframe.Appearance) error {
	if err := templates(a); err != nil {
		return err
	}
	if f.AccountID != a.ID {
		return fileNotFound(f.ID)
	}
	if err := s.store.SetFileAppearance(ctx, f.ID, ap); err != nil {
		return err
	}
	s.changed()
	return nil
}

// templates returns plan_required unless the account may use template
// appearances (Pro or Agency).
func templates(a fileframe.Account) error {
	if a.Plan.Templates() {
		return nil
	}
	return fileframe.Errorf(fileframe.CodePlanRequired,
		"The account is on the %s plan; appearances need the Pro or the Agency plan.", a.Plan.Name())
}

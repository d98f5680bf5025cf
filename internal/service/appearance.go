package service

import (
	"context"
	"errors"

	"github.com/dustin/go-humanize"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// SetAccountAppearance sets the account's appearance of its download pages
// (the zero value clears it). It needs the Pro or the Agency plan. Its
// images count in the account's storage: larger ones than before must fit
// in what is left of the plan's. The appearance is stored as given: the
// web edge validates it and puts its images in the blob store.
func (s *Service) SetAccountAppearance(ctx context.Context, a fileframe.Account, ap fileframe.Appearance) error {
	if err := templates(a); err != nil {
		return err
	}
	q := s.quotas[a.Plan]
	if err := s.store.SetAccountAppearance(ctx, a.ID, ap, q.Storage, s.now()); err != nil {
		return imagesError(err, a.Plan, q)
	}
	s.changed()
	return nil
}

// SetFileAppearance gives one of the account's files an appearance of its
// own (the zero value goes back to the account's). It needs Pro or Agency;
// its images count as SetAccountAppearance's do.
func (s *Service) SetFileAppearance(ctx context.Context, a fileframe.Account, f fileframe.File, ap fileframe.Appearance) error {
	if err := templates(a); err != nil {
		return err
	}
	if f.AccountID != a.ID {
		return fileNotFound(f.ID)
	}
	q := s.quotas[a.Plan]
	if err := s.store.SetFileAppearance(ctx, f.ID, ap, q.Storage, s.now()); err != nil {
		return imagesError(err, a.Plan, q)
	}
	s.changed()
	return nil
}

// imagesError words the store's quota_exceeded for appearance images.
func imagesError(err error, p fileframe.Plan, q fileframe.Quota) error {
	if fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
		return err
	}
	return fileframe.Errorf(fileframe.CodeQuotaExceeded,
		"The images do not fit in what is left of the %s plan's %s of storage (appearance images count in it, beside files). Choose smaller images, delete files you no longer share, or ask for a bigger plan.",
		p.Name(), humanize.IBytes(uint64(q.Storage)))
}

// MeasureImages measures, in the blob store, the appearance images stored
// before their sizes were kept (fileframe.UnmeasuredImage), so that they
// count in their accounts' storage, and returns how many it measured. An
// image missing from the blob store counts 0. serve runs it at start.
func (s *Service) MeasureImages(ctx context.Context) (int, error) {
	if s.blobs == nil {
		return 0, errors.New("service: measuring images needs Config.Blobs")
	}
	n := 0
	for {
		keys, err := s.store.UnmeasuredImages(ctx, 100)
		if err != nil || len(keys) == 0 {
			return n, err
		}
		for _, key := range keys {
			var size int64
			info, err := s.blobs.Stat(ctx, key)
			switch {
			case err == nil:
				size = info.Size
			case !fileframe.IsNotFound(err):
				return n, err
			}
			if err := s.store.SetImageBytes(ctx, key, size); err != nil {
				return n, err
			}
			n++
		}
	}
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

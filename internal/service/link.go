package service

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// LinkChange is what an owner changes about a file's link; nil fields
// stay as they are. Every surface (the web app, the API, MCP, the CLI)
// parses its own input into one and calls SetLink or AddFile.
type LinkChange struct {
	// ExpiresAt sets when the link ends; a zero time: never.
	ExpiresAt *time.Time
	// ExpiresIn sets it to now+ExpiresIn (it wins over ExpiresAt).
	ExpiresIn *time.Duration
	// MaxDownloads sets the complete downloads allowed; 0: no limit, 1:
	// a one-time link. A new limit counts from 0.
	MaxDownloads *int64
	// Password sets the link's password; "" removes it.
	Password *string
	// PasswordHash sets the password as PrepareLink hashed it; it wins
	// over Password. Only PrepareLink's output sets it.
	PasswordHash *string
	// RemoveWhenEnded sets whether the file is removed once its link ends.
	RemoveWhenEnded *bool
	// Reveal sets what a protected link shows before its password
	// (fileframe.RevealNothing or RevealName).
	Reveal *string
}

// Limits of link settings.
const (
	maxLinkDownloads  = 1_000_000_000
	minLinkPassword   = 4
	maxLinkPassword   = 256
	maxLinkExpiryEver = 100 * 365 * 24 * time.Hour
	// minLinkLifetime is the shortest lifetime a link may be given: a
	// lifetime under a millisecond made a link expired at birth (and, with
	// removal, a file the next clean-up deleted).
	minLinkLifetime = time.Minute
)

// SetLink changes the link controls of one of the account's files, under
// its plan's maximum lifetime, and returns the file as it is now. The
// link's visitors see the change at once (Changed).
func (s *Service) SetLink(ctx context.Context, a fileframe.Account, id fileframe.FileID, c LinkChange) (fileframe.File, error) {
	f, err := s.OwnFile(ctx, a, id)
	if err != nil {
		return fileframe.File{}, err
	}
	l, err := s.applyLink(ctx, a, f.Link, c, false)
	if err != nil {
		return fileframe.File{}, err
	}
	f, err = s.store.SetLink(ctx, f.ID, l)
	if fileframe.IsNotFound(err) {
		return fileframe.File{}, fileNotFound(id)
	} else if err != nil {
		return fileframe.File{}, fmt.Errorf("setting the link of file %s: %w", id, err)
	}
	s.changed()
	return f, nil
}

// applyLink returns l changed by c, checked against a's plan. For a new
// file (creating), a link without an expiry gets the plan's default.
func (s *Service) applyLink(ctx context.Context, a fileframe.Account, l fileframe.Link, c LinkChange, creating bool) (fileframe.Link, error) {
	now := s.now()
	q := s.quotas[a.Plan]
	switch {
	case c.ExpiresIn != nil:
		if *c.ExpiresIn < minLinkLifetime || *c.ExpiresIn > maxLinkExpiryEver {
			return l, invalidLink("A link's lifetime is at least a minute (e.g. 7d, 36h, 90m), not %s.", *c.ExpiresIn)
		}
		l.ExpiresAt = now.Add(*c.ExpiresIn)
	case c.ExpiresAt != nil:
		l.ExpiresAt = *c.ExpiresAt
		if !l.ExpiresAt.IsZero() && l.ExpiresAt.Before(now.Add(minLinkLifetime)) {
			return l, invalidLink("The link would end at %s, which is not at least a minute from now. Give a later time, or a duration such as 7d.", l.ExpiresAt.UTC().Format(time.RFC3339))
		}
	case creating && q.DefaultExpiry > 0:
		l.ExpiresAt = now.Add(q.DefaultExpiry)
	}
	if q.MaxExpiry > 0 && (creating || c.ExpiresAt != nil || c.ExpiresIn != nil) {
		latest := now.Add(q.MaxExpiry)
		if l.ExpiresAt.IsZero() || l.ExpiresAt.After(latest.Add(time.Second)) {
			return l, invalidLink("On the %s plan a link lives at most %s: choose an expiry before %s.",
				a.Plan.Name(), humanDuration(q.MaxExpiry), latest.UTC().Format(time.RFC3339))
		}
	}
	if c.MaxDownloads != nil {
		if *c.MaxDownloads < 0 || *c.MaxDownloads > maxLinkDownloads {
			return l, invalidLink("The download limit must be 0 (none) or a whole number up to %d, not %d.", maxLinkDownloads, *c.MaxDownloads)
		}
		l.MaxDownloads = *c.MaxDownloads
	}
	if c.RemoveWhenEnded != nil {
		l.RemoveWhenEnded = *c.RemoveWhenEnded
	}
	if c.Reveal != nil {
		if *c.Reveal != fileframe.RevealNothing && *c.Reveal != fileframe.RevealName {
			return l, invalidLink("What a protected link reveals is %q (nothing) or %q (the file's name and size), not %q.",
				fileframe.RevealNothing, fileframe.RevealName, truncate(*c.Reveal, 40))
		}
		l.Reveal = *c.Reveal
	}
	if c.PasswordHash != nil {
		l.PasswordHash = *c.PasswordHash
	} else if c.Password != nil {
		if *c.Password == "" {
			l.PasswordHash = ""
		} else {
			if err := checkLinkPassword(*c.Password); err != nil {
				return l, err
			}
			hash, err := s.hasher().Hash(ctx, *c.Password)
			if err != nil {
				return l, err
			}
			l.PasswordHash = hash
		}
	}
	return l, nil
}

// checkLinkPassword returns invalid_field unless pw can be a link's
// password: 4 to 256 characters of UTF-8 without control characters.
func checkLinkPassword(pw string) error {
	n := utf8.RuneCountInString(pw)
	switch {
	case !utf8.ValidString(pw):
		return invalidLink("The link's password is not valid UTF-8.")
	case n < minLinkPassword || n > maxLinkPassword:
		return invalidLink("A link's password has %d to %d characters; this one has %d.", minLinkPassword, maxLinkPassword, n)
	case strings.ContainsFunc(pw, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return invalidLink("A link's password cannot contain control characters (tabs, line breaks).")
	}
	return nil
}

func invalidLink(format string, args ...any) error {
	return fileframe.Errorf(fileframe.CodeInvalidField, format, args...)
}

// humanDuration writes d as days, hours or minutes ("30 days", "36
// hours", "90 minutes").
func humanDuration(d time.Duration) string {
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%d hours", d/time.Hour)
	}
	return fmt.Sprintf("%d minutes", d/time.Minute)
}

// truncate shortens s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// CheckLinkPassword reports whether pw is the password of f's link,
// hashing under the memory budget (the caller limits guesses first). A
// link without a password takes any.
func (s *Service) CheckLinkPassword(ctx context.Context, f fileframe.File, pw string) (bool, error) {
	if f.Link.PasswordHash == "" {
		return true, nil
	}
	if len(pw) > 4*maxLinkPassword {
		return false, nil
	}
	return s.hasher().Verify(ctx, pw, f.Link.PasswordHash)
}

// endedLinkBatch is how many ended links CollectEndedLinks reads, and
// notices, at a time.
const endedLinkBatch = 500

// CollectEndedLinks removes the files whose links have ended and whose
// owners chose removal (fileframe.Link.RemoveWhenEnded), with their bytes
// unless another file shares them, and keeps their slugs as gone (410).
// It returns how many it removed. One pass removes the whole backlog, a
// batch at a time, until a batch comes back short or removes nothing (a
// file that cannot be removed does not keep the pass going), or ctx ends.
func (s *Service) CollectEndedLinks(ctx context.Context) (int, error) {
	if s.blobs == nil {
		return 0, fmt.Errorf("service: collecting ended links needs Config.Blobs")
	}
	now := s.now()
	// Their link.expired events first (the webhook worker notices ends
	// every 30 s; a file removed before would take its end unreported).
	for {
		n, err := s.store.NotifyEndedLinks(ctx, now, s.endedBatch)
		if err != nil {
			return 0, fmt.Errorf("noticing ended links: %w", err)
		}
		if n < s.endedBatch {
			break
		}
	}
	total := 0
	for ctx.Err() == nil {
		files, err := s.store.EndedLinks(ctx, now, s.endedBatch)
		if err != nil {
			return total, err
		}
		n, err := s.removeEnded(ctx, files, now)
		total += n
		if err != nil || len(files) < s.endedBatch || n == 0 {
			return total, err
		}
	}
	return total, nil
}

// removeEnded removes files, ended links read by EndedLinks, and returns
// how many it removed.
func (s *Service) removeEnded(ctx context.Context, files []fileframe.File, now time.Time) (int, error) {
	n := 0
	for _, f := range files {
		reason := f.LinkState(now)
		if reason == fileframe.LinkLive {
			continue
		}
		deleted, err := s.store.DeleteEndedFile(ctx, f.ID, reason, now)
		if fileframe.IsNotFound(err) {
			continue // deleted meanwhile
		} else if err != nil {
			return n, fmt.Errorf("removing the file of ended link %s: %w", f.Slug, err)
		}
		n++
		s.changed()
		// A blob left behind is an orphan the collector removes later.
		fileframe.RemoveBlobIfUnused(ctx, s.store, s.blobs, deleted.BlobKey, now)
	}
	return n, nil
}

// LinkStatus is what a file's link is now, as the API, MCP and the CLI's
// --json all show it (the File's "link").
type LinkStatus struct {
	// State is live, expired or used_up.
	State fileframe.LinkState `json:"state"`
	// ExpiresAt is when the link ends; null: never.
	ExpiresAt *time.Time `json:"expiresAt"`
	// MaxDownloads is how many complete downloads the link allows; null:
	// no limit; 1: a one-time link.
	MaxDownloads *int64 `json:"maxDownloads"`
	// Downloads counts the complete downloads against the limit (since
	// the limit was last set).
	Downloads int64 `json:"downloads"`
	// Password says whether the link asks for a password (never shown).
	Password bool `json:"password"`
	// RemoveWhenEnded: the file is removed once the link has ended.
	RemoveWhenEnded bool `json:"removeWhenEnded"`
	// Reveal is what a protected link shows before its password: "" or
	// "name".
	Reveal string `json:"reveal"`
}

// LinkStatusOf returns the status of f's link at now.
func LinkStatusOf(f fileframe.File, now time.Time) LinkStatus {
	l := LinkStatus{
		State: f.LinkState(now), Downloads: f.LinkDownloads, Password: f.Link.PasswordHash != "",
		RemoveWhenEnded: f.Link.RemoveWhenEnded, Reveal: f.Link.Reveal,
	}
	if !f.Link.ExpiresAt.IsZero() {
		t := f.Link.ExpiresAt.UTC()
		l.ExpiresAt = &t
	}
	if f.Link.MaxDownloads > 0 {
		n := f.Link.MaxDownloads
		l.MaxDownloads = &n
	}
	return l
}

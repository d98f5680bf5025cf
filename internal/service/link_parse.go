package service

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// ParseLifetime parses a link's lifetime as every surface writes it: a Go
// duration (90m, 36h) or a number of days (7d, 1.5d). It refuses zero,
// negative and absurdly long lifetimes (invalid_field).
func ParseLifetime(s string) (time.Duration, error) {
	bad := invalidLink("%q is not a lifetime: use a duration like 7d, 36h or 90m.", truncate(s, 40))
	s = strings.TrimSpace(s)
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		// !(n > 0) also refuses NaN, whose conversion to a Duration is
		// implementation-defined.
		if err != nil || !(n > 0) || n > 100*365 {
			return 0, bad
		}
		d = time.Duration(n * float64(24*time.Hour))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, bad
		}
	}
	if d <= 0 || d > maxLinkExpiryEver {
		return 0, bad
	}
	return d, nil
}

// ParseExpiry parses an expiry as the CLI and the upload parameters take
// it: a lifetime (ParseLifetime: 7d, 36h) or an RFC 3339 time
// (2030-01-02T15:04:05Z), and sets c's ExpiresIn or ExpiresAt.
func (c *LinkChange) ParseExpiry(s string) error {
	if t, err := time.Parse(time.RFC3339, strings.TrimSpace(s)); err == nil {
		t = t.UTC()
		c.ExpiresAt, c.ExpiresIn = &t, nil
		return nil
	}
	d, err := ParseLifetime(s)
	if err != nil {
		return invalidLink("%q is neither a lifetime (7d, 36h, 90m) nor a date and time in RFC 3339 (2030-01-02T15:04:05Z).", truncate(s, 40))
	}
	c.ExpiresIn, c.ExpiresAt = &d, nil
	return nil
}

// IsZero reports whether c changes nothing.
func (c LinkChange) IsZero() bool { return c == LinkChange{} }

// PrepareLink checks c as the settings of a new file of account a (as
// AddFile will), before any byte of it arrives, and returns it with its
// password hashed (PasswordHash), so that a resumable upload can keep it
// until its last byte without the password itself.
func (s *Service) PrepareLink(ctx context.Context, a fileframe.Account, c LinkChange) (LinkChange, error) {
	l, err := s.applyLink(ctx, a, fileframe.Link{}, c, true)
	if err != nil {
		return c, err
	}
	if c.Password != nil {
		c.Password, c.PasswordHash = nil, &l.PasswordHash
	}
	return c, nil
}

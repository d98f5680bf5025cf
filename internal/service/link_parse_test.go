package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
)

func TestParseLifetime(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"7d": 7 * 24 * time.Hour, "1.5d": 36 * time.Hour, "36h": 36 * time.Hour, "90m": 90 * time.Minute, " 2h ": 2 * time.Hour,
	} {
		if got, err := ParseLifetime(in); got != want || err != nil {
			t.Errorf("ParseLifetime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "0d", "-1h", "7", "NaNd", "1e9d", "d", "7days", "2030-01-01T00:00:00Z"} {
		if _, err := ParseLifetime(in); fileframe.ErrorCode(err) != fileframe.CodeInvalidField {
			t.Errorf("ParseLifetime(%q): got %v, want invalid_field", in, err)
		}
	}
}

func TestParseExpiry(t *testing.T) {
	var c LinkChange
	if err := c.ParseExpiry("2030-01-02T16:04:05+01:00"); err != nil || c.ExpiresAt == nil || c.ExpiresIn != nil ||
		!c.ExpiresAt.Equal(time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC)) {
		t.Fatalf("RFC 3339: %+v, %v", c, err)
	}
	if err := c.ParseExpiry("7d"); err != nil || c.ExpiresIn == nil || *c.ExpiresIn != 7*24*time.Hour || c.ExpiresAt != nil {
		t.Fatalf("7d: %+v, %v", c, err)
	}
	for _, in := range []string{"", "tomorrow", "2030-01-02", "-7d"} {
		if err := (&LinkChange{}).ParseExpiry(in); fileframe.ErrorCode(err) != fileframe.CodeInvalidField {
			t.Errorf("ParseExpiry(%q): got %v, want invalid_field", in, err)
		}
	}
}

func TestPrepareLink(t *testing.T) {
	ctx := context.Background()
	s, _, a := testService(t, fileframe.Quota{MaxExpiry: 30 * 24 * time.Hour})
	h, err := password.NewHasher(password.Params{Memory: 8, Time: 1, Threads: 1}, password.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	s.passwords = h
	pw, week := "s3cret pass", 7*24*time.Hour
	c, err := s.PrepareLink(ctx, a, LinkChange{ExpiresIn: &week, Password: &pw})
	if err != nil || c.Password != nil || c.PasswordHash == nil || !strings.HasPrefix(*c.PasswordHash, "$argon2id$") {
		t.Fatalf("PrepareLink: %+v, %v", c, err)
	}
	f, err := s.AddFile(ctx, NewFile{Account: a, Name: "a.txt", Size: 1, Body: strings.NewReader("a"), Link: c})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.CheckLinkPassword(ctx, f, pw); !ok || err != nil {
		t.Errorf("the prepared password: %v, %v", ok, err)
	}
	if _, err := s.PrepareLink(ctx, a, LinkChange{}); fileframe.ErrorCode(err) != fileframe.CodeInvalidField {
		t.Errorf("no expiry on a plan with a maximum: got %v, want invalid_field", err)
	}
}

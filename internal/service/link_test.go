package service

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
)

func TestLinkSettings(t *testing.T) {
	ctx := context.Background()
	s, store, a := testService(t, fileframe.Quota{DefaultExpiry: 7 * 24 * time.Hour, MaxExpiry: 30 * 24 * time.Hour})
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	h, err := password.NewHasher(password.Params{Memory: 8, Time: 1, Threads: 1}, password.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	s.passwords = h
	add := func(c LinkChange) (fileframe.File, error) {
		return s.AddFile(ctx, NewFile{Account: a, Name: "a.txt", Size: 1, Body: strings.NewReader("a"), Link: c})
	}
	ptr := func(d time.Duration) *time.Duration { return &d }
	n := func(v int64) *int64 { return &v }
	str := func(v string) *string { return &v }

	f, err := add(LinkChange{})
	if err != nil || !f.Link.ExpiresAt.Equal(now.Add(7*24*time.Hour)) {
		t.Fatalf("a new file gets the plan's default expiry: %v, %v", f.Link.ExpiresAt, err)
	}
	f, err = add(LinkChange{ExpiresIn: ptr(36 * time.Hour), MaxDownloads: n(1), Password: str("s3cret pass")})
	if err != nil || !f.Link.ExpiresAt.Equal(now.Add(36*time.Hour)) || f.Link.MaxDownloads != 1 || !strings.HasPrefix(f.Link.PasswordHash, "$argon2id$") {
		t.Fatalf("a one-time link with a password: %+v, %v", f.Link, err)
	}
	for pw, want := range map[string]bool{"s3cret pass": true, "s3cret Pass": false, "": false} {
		if ok, err := s.CheckLinkPassword(ctx, f, pw); ok != want || err != nil {
			t.Errorf("CheckLinkPassword(%q): %v, %v; want %v", pw, ok, err, want)
		}
	}

	for name, c := range map[string]LinkChange{
		"over the plan's maximum":            {ExpiresIn: ptr(31 * 24 * time.Hour)},
		"no expiry on a plan with a maximum": {ExpiresAt: &time.Time{}},
		"in the past":                        {ExpiresAt: func() *time.Time { t := now.Add(-time.Minute); return &t }()},
		"now":                                {ExpiresAt: &now},
		"a negative duration":                {ExpiresIn: ptr(-time.Hour)},
		"a nanosecond":                       {ExpiresIn: ptr(time.Nanosecond)},
		"under a minute":                     {ExpiresIn: ptr(59 * time.Second)},
		"a time under a minute away":         {ExpiresAt: func() *time.Time { t := now.Add(30 * time.Second); return &t }()},
		"a negative limit":                   {MaxDownloads: n(-1)},
		"a huge limit":                       {MaxDownloads: n(maxLinkDownloads + 1)},
		"a short password":                   {Password: str("abc")},
		"a password with a line break":       {Password: str("abcd\nefg")},
		"a long password":                    {Password: str(strings.Repeat("x", 257))},
		"an unknown reveal":                  {Reveal: str("all")},
	} {
		if _, err := add(c); fileframe.ErrorCode(err) != fileframe.CodeInvalidField {
			t.Errorf("%s: got %v, want invalid_field", name, err)
		}
		if _, err := s.SetLink(ctx, a, f.ID, c); fileframe.ErrorCode(err) != fileframe.CodeInvalidField {
			t.Errorf("SetLink %s: got %v, want invalid_field", name, err)
		}
	}
	// Removing the password, changing the limit.
	f, err = s.SetLink(ctx, a, f.ID, LinkChange{Password: str(""), MaxDownloads: n(3), Reveal: str(fileframe.RevealName)})
	if err != nil || f.Link.PasswordHash != "" || f.Link.MaxDownloads != 3 || f.Link.Reveal != fileframe.RevealName {
		t.Errorf("SetLink: %+v, %v", f.Link, err)
	}
	// Another account's file is not found.
	other, _ := store.CreateAccount(ctx, fileframe.Account{Email: "o@example.com", Plan: fileframe.PlanFree})
	if _, err := s.SetLink(ctx, other, f.ID, LinkChange{MaxDownloads: n(1)}); !fileframe.IsNotFound(err) {
		t.Errorf("another account's file: %v, want not found", err)
	}
}

func TestCollectEndedLinks(t *testing.T) {
	ctx := context.Background()
	s, store, a := testService(t, fileframe.Quota{})
	now := time.Now()
	s.now = func() time.Time { return now }
	yes := true
	soon := now.Add(time.Hour)
	removed, _ := s.AddFile(ctx, NewFile{Account: a, Name: "a.txt", Size: 1, Body: strings.NewReader("a"),
		Link: LinkChange{ExpiresAt: &soon, RemoveWhenEnded: &yes}})
	kept, _ := s.AddFile(ctx, NewFile{Account: a, Name: "b.txt", Size: 1, Body: strings.NewReader("b"),
		Link: LinkChange{ExpiresAt: &soon}})
	if n, err := s.CollectEndedLinks(ctx); n != 0 || err != nil {
		t.Fatalf("before the expiry: %d, %v", n, err)
	}
	now = soon
	if n, err := s.CollectEndedLinks(ctx); n != 1 || err != nil {
		t.Fatalf("at the expiry: %d, %v; want 1 removed", n, err)
	}
	if _, err := store.FileByID(ctx, removed.ID); !fileframe.IsNotFound(err) {
		t.Errorf("the removed file: %v", err)
	}
	if g, err := store.GoneLinkBySlug(ctx, removed.Slug); err != nil || g.Reason != fileframe.LinkExpired {
		t.Errorf("its link: %+v, %v", g, err)
	}
	if inUse, _ := store.BlobInUse(ctx, removed.BlobKey); inUse {
		t.Error("its blob is still referenced")
	}
	if f, err := store.FileByID(ctx, kept.ID); err != nil || f.LinkState(now) != fileframe.LinkExpired {
		t.Errorf("the kept file: %v, %v", f.LinkState(now), err)
	}
}

// TestCollectEndedLinksBacklog: one pass removes every ended link, however
// many batches they take, and leaves the live ones.
func TestCollectEndedLinksBacklog(t *testing.T) {
	ctx := context.Background()
	s, store, a := testService(t, fileframe.Quota{})
	s.endedBatch = 3
	now := time.Now()
	s.now = func() time.Time { return now }
	yes := true
	soon, later := now.Add(time.Hour), now.Add(48*time.Hour)
	var ended, live []fileframe.File
	for i := range 11 {
		at := soon
		if i%4 == 3 {
			at = later
		}
		f, err := s.AddFile(ctx, NewFile{Account: a, Name: fmt.Sprintf("%d.txt", i), Size: 1, Body: strings.NewReader("x"),
			Link: LinkChange{ExpiresAt: &at, RemoveWhenEnded: &yes}})
		if err != nil {
			t.Fatal(err)
		}
		if at == soon {
			ended = append(ended, f)
		} else {
			live = append(live, f)
		}
	}
	now = soon
	if n, err := s.CollectEndedLinks(ctx); n != len(ended) || err != nil {
		t.Fatalf("one pass over %d ended links in batches of 3: removed %d, %v", len(ended), n, err)
	}
	for _, f := range ended {
		if _, err := store.FileByID(ctx, f.ID); !fileframe.IsNotFound(err) {
			t.Errorf("ended %s: %v, want removed", f.Slug, err)
		}
	}
	for _, f := range live {
		if _, err := store.FileByID(ctx, f.ID); err != nil {
			t.Errorf("live %s: %v, want kept", f.Slug, err)
		}
	}
	if n, err := s.CollectEndedLinks(ctx); n != 0 || err != nil {
		t.Errorf("a second pass: %d, %v; want nothing to do", n, err)
	}
}

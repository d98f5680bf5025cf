package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestAppChangesNotify: every web application write that changes what visitors see
// (appearances, a rename, publishing a revision, a link's controls and its
// counted downloads, disabling an account, deleting a file) changes the generation of a watcher on another instance.
func TestAppChangesNotify(t *testing.T) {
	u := newDatabase(t)
	a, b := open(t, u), open(t, u)
	w := watch(t, a)
	ctx := t.Context()

	acct, err := b.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	f, err := b.CreateFile(ctx, fileframe.File{AccountID: acct.ID, Name: "a.txt"})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}
	for _, publish := range []bool{true, false} {
		if _, err := b.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: []byte("<html></html>"), Publish: publish}); err != nil {
			t.Fatalf("SavePage: %v", err)
		}
	}
	look := fileframe.Appearance{Template: "clean", Headline: "Hello"}

	steps := []struct {
		name  string
		write func() error
	}{
		{"set account appearance", func() error { return b.SetAccountAppearance(ctx, acct.ID, look, 0, time.Now()) }},
		{"change account appearance", func() error {
			return b.SetAccountAppearance(ctx, acct.ID, fileframe.Appearance{Template: "bold"}, 0, time.Now())
		}},
		{"clear account appearance", func() error { return b.SetAccountAppearance(ctx, acct.ID, fileframe.Appearance{}, 0, time.Now()) }},
		{"set file appearance", func() error { return b.SetFileAppearance(ctx, f.ID, look, 0, time.Now()) }},
		{"clear file appearance", func() error { return b.SetFileAppearance(ctx, f.ID, fileframe.Appearance{}, 0, time.Now()) }},
		{"rename file", func() error { return b.RenameFile(ctx, f.ID, "b.txt") }},
		{"publish an older revision", func() error {
			_, err := b.SetLiveRevision(ctx, f.ID, 1, time.Now())
			return err
		}},
		{"unpublish", func() error {
			_, err := b.SetLiveRevision(ctx, f.ID, 0, time.Now())
			return err
		}},
		{"set link", func() error {
			_, err := b.SetLink(ctx, f.ID, fileframe.Link{ExpiresAt: time.Now().Add(time.Hour), MaxDownloads: 1})
			return err
		}},
		{"finish a counted download", func() error {
			if err := b.ClaimDownload(ctx, f.ID, "claim-notify", time.Now(), time.Minute); err != nil {
				return err
			}
			return b.FinishDownload(ctx, f.ID, "claim-notify", true)
		}},
		{"disable account", func() error { return b.SetAccountDisabled(ctx, acct.ID, true) }},
		{"enable account", func() error { return b.SetAccountDisabled(ctx, acct.ID, false) }},
		{"delete file", func() error {
			_, err := b.DeleteFile(ctx, f.ID)
			return err
		}},
	}
	for _, step := range steps {
		before := gen(t, w)
		if err := step.write(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		waitFor(t, "the generation to change after "+step.name, func() bool { return gen(t, w) > before })
	}
}

// TestSessionsNotifyNothing: sessions show nowhere public, and are written
// on every signed-in request, so their writes notify nothing. Notifications
// arrive in commit order, so a marker sent after them is the first thing a
// listener receives.
func TestSessionsNotifyNothing(t *testing.T) {
	u := newDatabase(t)
	s := open(t, u)
	ctx := t.Context()
	acct, err := s.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `LISTEN `+changeChannel); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(context.Background(), `UNLISTEN *`)

	now := time.Now()
	sess := fileframe.Session{Hash: "h", AccountID: acct.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if err := s.TouchSession(ctx, sess.Hash, now, now.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAccountSessions(ctx, acct.ID, sess.Hash); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteExpiredSessions(ctx, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, sess.Hash); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, 'marker')`, changeChannel); err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := conn.Conn().WaitForNotification(waitCtx)
	if err != nil {
		t.Fatalf("WaitForNotification: %v", err)
	}
	if n.Payload != "marker" {
		t.Errorf("first notification got %q, want the marker (a session write notified)", n.Payload)
	}
}

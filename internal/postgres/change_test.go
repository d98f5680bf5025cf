package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// watch starts a ChangeWatcher on s and closes it when the test ends.
func watch(t *testing.T, s *Store) fileframe.ChangeWatcher {
	t.Helper()
	w, err := s.WatchChanges(t.Context())
	if err != nil {
		t.Fatalf("WatchChanges: %v", err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("ChangeWatcher.Close: %v", err)
		}
	})
	return w
}

// waitFor polls cond until it holds, failing the test after 10s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func gen(t *testing.T, w fileframe.ChangeWatcher) uint64 {
	t.Helper()
	g, err := w.Generation(t.Context())
	if err != nil {
		t.Fatalf("Generation: %v", err)
	}
	return g
}

// TestChangeWatcherTwoInstances: a write through one Store changes the
// generation of a watcher on another Store of the same database (two
// instances) promptly, however it was made.
func TestChangeWatcherTwoInstances(t *testing.T) {
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
	key, err := b.CreateKey(ctx, fileframe.Key{AccountID: acct.ID, Kind: fileframe.KeyGeneral, Name: "k", Hash: "h", Prefix: "ffk_"})
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}

	steps := []struct {
		name  string
		write func() error
	}{
		{"publish", func() error {
			_, err := b.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: []byte("<html>1</html>"), Publish: true})
			return err
		}},
		{"unpublish", func() error {
			_, err := b.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: []byte("<html>2</html>")})
			return err
		}},
		{"set plan", func() error { return b.SetAccountPlan(ctx, acct.ID, fileframe.PlanPro) }},
		{"disable account", func() error {
			_, err := b.pool.Exec(ctx, `UPDATE accounts SET disabled = true WHERE id = $1`, acct.ID)
			return err
		}},
		{"revision changed in place by SQL", func() error {
			_, err := b.pool.Exec(ctx, `UPDATE page_revisions SET size = size WHERE file_id = $1 AND number = 1`, f.ID)
			return err
		}},
		{"revision deleted by SQL", func() error {
			_, err := b.pool.Exec(ctx, `DELETE FROM page_revisions WHERE file_id = $1 AND number = 1`, f.ID)
			return err
		}},
		{"revoke key", func() error { return b.RevokeKey(ctx, acct.ID, key.ID, time.Now()) }},
		{"new file", func() error {
			_, err := b.CreateFile(ctx, fileframe.File{AccountID: acct.ID, Name: "b.txt"})
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
	if g1, g2 := gen(t, w), gen(t, w); g1 != g2 {
		t.Errorf("generation changed from %d to %d with no write", g1, g2)
	}
}

// TestChangeNotifySkipsCounters: download counts and key last-used times,
// which change all the time and show nowhere cached, notify nothing.
// Notifications arrive in commit order, so a marker sent after them is the
// first thing a listener receives.
func TestChangeNotifySkipsCounters(t *testing.T) {
	u := newDatabase(t)
	s := open(t, u)
	ctx := t.Context()
	acct, err := s.CreateAccount(ctx, fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.CreateFile(ctx, fileframe.File{AccountID: acct.ID, Name: "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := s.CreateKey(ctx, fileframe.Key{AccountID: acct.ID, Kind: fileframe.KeyGeneral, Name: "k", Hash: "h", Prefix: "ffk_"})
	if err != nil {
		t.Fatal(err)
	}
	conn2, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Release()
	if _, err := conn2.Exec(ctx, `LISTEN `+changeChannel); err != nil {
		t.Fatal(err)
	}
	defer conn2.Exec(context.Background(), `UNLISTEN *`)
	if err := s.AddDownloads(ctx, map[fileframe.FileID]int64{f.ID: 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.TouchKey(ctx, key.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, 'marker')`, changeChannel); err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := conn2.Conn().WaitForNotification(waitCtx)
	if err != nil {
		t.Fatalf("WaitForNotification: %v", err)
	}
	if n.Payload != "marker" {
		t.Errorf("first notification got %q, want the marker (a counter update notified)", n.Payload)
	}
}

// TestChangeWatcherReconnects: while its connection is gone, the watcher
// hands out a new generation on every call; once it listens again the
// generation is stable, newer than any handed out before, and follows
// writes again.
func TestChangeWatcherReconnects(t *testing.T) {
	u := newDatabase(t)
	s := open(t, u)
	w := watch(t, s)
	ctx := t.Context()
	before := gen(t, w)

	var killed int
	err := s.pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name LIKE '% changes'`).Scan(&killed)
	if err != nil || killed != 1 {
		t.Fatalf("terminating the listener: %d terminated, %v", killed, err)
	}
	// Listening again, the generation is stable, and listen has bumped it
	// past before. While the watcher has not noticed, it stays at before;
	// while it is disconnected, every call hands out a new one. It may
	// reconnect before the first call here (then nothing was handed out in
	// between, and the generation is before+1).
	var handed []uint64
	waitFor(t, "the watcher to notice and reconnect", func() bool {
		g1, g2 := gen(t, w), gen(t, w)
		handed = append(handed, g1, g2)
		return g1 == g2 && g1 > before
	})
	last := handed[len(handed)-1]
	for _, g := range handed[:len(handed)-2] {
		if g > last {
			t.Errorf("generation %d handed out while disconnected is newer than %d after reconnecting", g, last)
		}
	}
	if _, err := s.CreateAccount(ctx, fileframe.Account{Email: fmt.Sprintf("o%d@example.com", last), Plan: fileframe.PlanFree}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a write to be noticed after reconnecting", func() bool { return gen(t, w) > last })
}

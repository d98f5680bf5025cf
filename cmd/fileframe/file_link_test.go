package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
)

// TestCLIFileLink runs file add and file set with every link flag, as
// the contract gives them, and checks what the store holds.
func TestCLIFileLink(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cli := func(args ...string) []string { return append(args, "--data", dir) }
	mustCLI(t, cli("account", "create", "--email", "ada@example.com")...)
	src := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(src, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("from a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := openTestStore(t, dir)
	verify := func(f fileframe.File, pw string) bool {
		t.Helper()
		h, err := password.NewHasher(password.DefaultParams(), password.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		ok, err := h.Verify(ctx, pw, f.Link.PasswordHash)
		return ok && err == nil
	}
	stored := func(out map[string]any) fileframe.File {
		t.Helper()
		f, err := store.FileByID(ctx, fileframe.FileID(out["fileId"].(string)))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}

	// A plain add: a live link without controls, and the link's fields.
	out := cliJSON(t, cli("file", "add", "--email", "ada@example.com", src)...)
	for k, want := range map[string]any{"state": "live", "expiresAt": nil, "maxDownloads": nil, "downloads": 0.0, "password": false, "removeWhenEnded": false, "reveal": ""} {
		if got, ok := out[k]; !ok || got != want {
			t.Errorf("file add: %s = %v, want %v (in %v)", k, got, want, out)
		}
	}

	// Every flag at creation.
	before := time.Now()
	out = cliJSON(t, cli("file", "add", "--email", "ada@example.com", src, "--expires", "7d", "--one-time", "--password", "s3cret pass",
		"--remove-when-ended", "--reveal", "name")...)
	f := stored(out)
	if d := f.Link.ExpiresAt.Sub(before); d < 7*24*time.Hour || d > 7*24*time.Hour+time.Minute {
		t.Errorf("--expires 7d: expires %v after the command started", d)
	}
	if f.Link.MaxDownloads != 1 || !f.Link.RemoveWhenEnded || f.Link.Reveal != "name" || !verify(f, "s3cret pass") {
		t.Errorf("file add with every flag stored %+v", f.Link)
	}
	if out["maxDownloads"] != 1.0 || out["password"] != true || out["removeWhenEnded"] != true || out["reveal"] != "name" || out["expiresAt"] == nil {
		t.Errorf("file add --json = %v", out)
	}
	at := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	out = cliJSON(t, cli("file", "add", "--email", "ada@example.com", src, "--expires", at.Format(time.RFC3339), "--max-downloads", "5", "--password-file", pwFile)...)
	if f := stored(out); !f.Link.ExpiresAt.Equal(at) || f.Link.MaxDownloads != 5 || !verify(f, "from a file") {
		t.Errorf("file add --expires RFC3339 --max-downloads 5 --password-file: %+v", f.Link)
	}
	id := out["fileId"].(string)

	// file set changes only what its flags name.
	out = cliJSON(t, cli("file", "set", "--email", "ada@example.com", id, "--no-expiry", "--no-password")...)
	if f := stored(out); !f.Link.ExpiresAt.IsZero() || f.Link.PasswordHash != "" || f.Link.MaxDownloads != 5 {
		t.Errorf("file set --no-expiry --no-password: %+v", f.Link)
	}
	if out["expiresAt"] != nil || out["password"] != false || out["maxDownloads"] != 5.0 {
		t.Errorf("file set --json = %v", out)
	}
	out = cliJSON(t, cli("file", "set", "--email", "ada@example.com", id, "--max-downloads", "0", "--expires", "36h", "--password", "new password",
		"--remove-when-ended", "--reveal", "name")...)
	if f := stored(out); f.Link.MaxDownloads != 0 || f.Link.ExpiresAt.IsZero() || !verify(f, "new password") || !f.Link.RemoveWhenEnded || f.Link.Reveal != "name" {
		t.Errorf("file set with every flag: %+v", f.Link)
	}
	out = cliJSON(t, cli("file", "set", "--email", "ada@example.com", id, "--keep-when-ended", "--reveal", "nothing", "--one-time")...)
	if f := stored(out); f.Link.RemoveWhenEnded || f.Link.Reveal != "" || f.Link.MaxDownloads != 1 || !verify(f, "new password") {
		t.Errorf("file set --keep-when-ended --reveal nothing --one-time: %+v", f.Link)
	}
	if r := mustCLI(t, cli("file", "set", "--email", "ada@example.com", id, "--max-downloads", "3")...); !strings.Contains(r.stdout, "0 of 3 downloads") {
		t.Errorf("file set without --json printed %q", r.stdout)
	}

	// Mistakes: usage errors (2), nothing changed; an unknown file is 1.
	for name, args := range map[string][]string{
		"--password with --no-password":      {"set", id, "--password", "abcdefg", "--no-password"},
		"--password with --password-file":    {"add", src, "--password", "abcdefg", "--password-file", pwFile},
		"--password-file with --no-password": {"set", id, "--password-file", pwFile, "--no-password"},
		"--one-time with --max-downloads 2":  {"add", src, "--one-time", "--max-downloads", "2"},
		"--expires with --no-expiry":         {"set", id, "--expires", "7d", "--no-expiry"},
		"--remove- and --keep-when-ended":    {"set", id, "--remove-when-ended", "--keep-when-ended"},
		"--expires nonsense":                 {"add", src, "--expires", "soon"},
		"--expires in the past":              {"set", id, "--expires", "2001-01-01T00:00:00Z"},
		"--max-downloads -1":                 {"set", id, "--max-downloads", "-1"},
		"a short password":                   {"add", src, "--password", "abc"},
		"an empty --password":                {"set", id, "--password", ""},
		"--reveal everything":                {"set", id, "--reveal", "everything"},
		"--no-expiry on add":                 {"add", src, "--no-expiry"},
		"no FILE_ID":                         {"set"},
	} {
		r := runCLI(t, cli(append([]string{"file", args[0], "--email", "ada@example.com"}, args[1:]...)...)...)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2", name, r.code, r.stdout, r.stderr)
		}
	}
	if f, _ := store.FileByID(ctx, fileframe.FileID(id)); f.Link.MaxDownloads != 3 || !verify(f, "new password") {
		t.Errorf("refused commands changed the link: %+v", f.Link)
	}
	if r := runCLI(t, cli("file", "set", "--email", "ada@example.com", "f_nosuchfile0000000000", "--one-time")...); r.code != 1 || !strings.Contains(r.stderr, "has no file") {
		t.Errorf("file set of an unknown file: exit %d, stderr %q", r.code, r.stderr)
	}
	// The plan's longest lifetime holds on the command line as everywhere.
	if r := runCLI(t, cli("file", "add", "--email", "ada@example.com", src, "--expires", "60d", "--quota-free-max-expiry", "30d")...); r.code != 2 || !strings.Contains(r.stderr, "at most 30 days") {
		t.Errorf("file add over --quota-free-max-expiry: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestRemoteLink: remote upload sets the link's controls (through the tus
// upload's metadata) and remote set changes them (PATCH), against a real
// server.
func TestRemoteLink(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := startRemoteServer(t)
	env := s.env(s.general)
	src, _ := writeRandom(t, "deck.bin", 1000, 3)
	pwFile := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pwFile, []byte("from a file\r\n"), 0o600)
	store := openTestStore(t, s.dir)
	h, err := password.NewHasher(password.DefaultParams(), password.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	file := func(id any) fileframe.File {
		t.Helper()
		f, err := store.FileByID(ctx, fileframe.FileID(id.(string)))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	verify := func(f fileframe.File, pw string) bool {
		ok, err := h.Verify(ctx, pw, f.Link.PasswordHash)
		return ok && err == nil
	}

	up := remoteJSON(t, env, "remote", "upload", src, "--expires", "7d", "--one-time", "--password-file", pwFile)
	f := file(up["id"])
	if f.Link.MaxDownloads != 1 || f.Link.ExpiresAt.IsZero() || !verify(f, "from a file") {
		t.Errorf("remote upload with link flags stored %+v", f.Link)
	}
	if link, _ := up["link"].(map[string]any); link["maxDownloads"] != 1.0 || link["password"] != true || link["expiresAt"] == nil {
		t.Errorf("remote upload --json link = %v", up["link"])
	}
	id := up["id"].(string)

	out := remoteJSON(t, env, "remote", "set", id, "--no-expiry", "--no-password", "--max-downloads", "5", "--remove-when-ended", "--reveal", "name")
	if f := file(id); !f.Link.ExpiresAt.IsZero() || f.Link.PasswordHash != "" || f.Link.MaxDownloads != 5 || !f.Link.RemoveWhenEnded || f.Link.Reveal != "name" {
		t.Errorf("remote set stored %+v", f.Link)
	}
	if link, _ := out["link"].(map[string]any); link["maxDownloads"] != 5.0 || link["expiresAt"] != nil || link["password"] != false {
		t.Errorf("remote set --json link = %v", out["link"])
	}
	at := time.Now().Add(72 * time.Hour).UTC().Truncate(time.Second)
	r := remoteRun(t, env, "remote", "set", id, "--expires", at.Format(time.RFC3339), "--password", "new password", "--keep-when-ended")
	if f := file(id); r.code != 0 || !f.Link.ExpiresAt.Equal(at) || !verify(f, "new password") || f.Link.RemoveWhenEnded || !strings.Contains(r.stdout, "password") {
		t.Errorf("remote set: exit %d, stdout %q, stderr %q, stored %+v", r.code, r.stdout, r.stderr, f.Link)
	}

	for name, args := range map[string][]string{
		"nothing to change":               {"remote", "set", id},
		"--one-time with --max-downloads": {"remote", "upload", src, "--one-time", "--max-downloads", "3"},
		"--password with --no-password":   {"remote", "set", id, "--password", "abcdefg", "--no-password"},
		"--expires with --no-expiry":      {"remote", "set", id, "--expires", "7d", "--no-expiry"},
		"--password with --password-file": {"remote", "upload", src, "--password", "abcdefg", "--password-file", pwFile},
	} {
		if r := remoteRun(t, env, args...); r.code != 2 {
			t.Errorf("%s: exit %d, stderr %q; want 2", name, r.code, r.stderr)
		}
	}
	if r := remoteRun(t, env, "remote", "set", id, "--password", "abc"); r.code != 1 || !strings.Contains(r.stderr, "invalid_field") {
		t.Errorf("remote set with a short password: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := remoteRun(t, s.env(s.pageKey), "remote", "set", s.pageFileID, "--one-time"); r.code != 1 || !strings.Contains(r.stderr, "key_scope") {
		t.Errorf("remote set with a page-bound key: exit %d, stderr %q", r.code, r.stderr)
	}
}

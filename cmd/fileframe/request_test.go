package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequestCommands runs request create, list and show as real
// processes: the contract's JSON, the usage errors, another account's
// request.
func TestRequestCommands(t *testing.T) {
	t.Parallel()
	data := []string{"--data", t.TempDir()}
	cli := func(args ...string) []string { return append(args, data...) }
	cliJSON(t, cli("account", "create", "--email", "ada@example.com")...)
	cliJSON(t, cli("account", "create", "--email", "bob@example.com")...)
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("open sesame\n"), 0o600)

	out := cliJSON(t, cli("request", "create", "--email", "ada@example.com", "--title", "Contracts", "--message", "Signed, please",
		"--max-files", "3", "--max-size", "10MB", "--expires", "7d", "--password-file", pw, "--base-url", "https://files.example.com/")...)
	id, _ := out["requestId"].(string)
	slug, _ := out["slug"].(string)
	if !strings.HasPrefix(id, "r_") || len(slug) != 12 || out["url"] != "https://files.example.com/r/"+slug || len(out) != 3 {
		t.Errorf("request create --json = %v, want exactly requestId, slug and the absolute url", out)
	}
	shown := cliJSON(t, cli("request", "show", "--email", "ada@example.com", id)...)
	if shown["title"] != "Contracts" || shown["maxFiles"] != 3.0 || shown["maxBytes"] != 1e7 || shown["state"] != "open" || shown["expiresAt"] == nil {
		t.Errorf("request show = %v", shown)
	}
	if files, ok := shown["files"].([]any); !ok || len(files) != 0 {
		t.Errorf("request show of a new request: files %#v, want [] (as the API)", shown["files"])
	}
	list := cliJSON(t, cli("request", "list", "--email", "ada@example.com")...)
	if rs, _ := list["requests"].([]any); len(rs) != 1 {
		t.Errorf("request list = %v, want the one request", list)
	}
	for name, args := range map[string][]string{
		"no title":        {"request", "create", "--email", "ada@example.com"},
		"bad size":        {"request", "create", "--email", "ada@example.com", "--title", "x", "--max-size", "lots"},
		"too many files":  {"request", "create", "--email", "ada@example.com", "--title", "x", "--max-files", "5000"},
		"bad expiry":      {"request", "create", "--email", "ada@example.com", "--title", "x", "--expires", "soon"},
		"show without id": {"request", "show", "--email", "ada@example.com"},
	} {
		if r := runCLI(t, cli(args...)...); r.code != exitUsage {
			t.Errorf("%s: exit %d, want %d (%s)", name, r.code, exitUsage, r.stderr)
		}
	}
	if r := runCLI(t, cli("request", "show", "--email", "bob@example.com", id)...); r.code != 1 || !strings.Contains(r.stderr, "no request") {
		t.Errorf("request show of another account's request: exit %d %s, want 1 and not found", r.code, r.stderr)
	}
}

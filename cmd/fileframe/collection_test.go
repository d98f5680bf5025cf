package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLICollection checks the collection commands' output and exit
// statuses on SQLite (TestScaleCollection runs them on PostgreSQL and S3).
func TestCLICollection(t *testing.T) {
	t.Parallel()
	data := []string{"--data", t.TempDir()}
	cli := func(args ...string) []string { return append(args, data...) }
	cliJSON(t, cli("account", "create", "--email", "c@example.com")...)
	cliJSON(t, cli("account", "create", "--email", "d@example.com")...)
	add := func(email, name string) string {
		src := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(src, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		return cliJSON(t, cli("file", "add", src, "--email", email)...)["fileId"].(string)
	}
	f1, f2, theirs := add("c@example.com", "one.txt"), add("c@example.com", "two.txt"), add("d@example.com", "x.txt")

	c := cliJSON(t, cli("collection", "create", "--email", "c@example.com", "--name", "Both", f1, f2, "--base-url", "https://share.example.com/")...)
	id, slug := c["collectionId"].(string), c["slug"].(string)
	if !strings.HasPrefix(id, "f_") || c["url"] != "https://share.example.com/f/"+slug || c["name"] != "Both" || len(c["files"].([]any)) != 2 {
		t.Errorf("collection create --json: %v", c)
	}
	// Without --base-url: $FILEFRAME_BASE_URL, else serve's default.
	if c := cliJSON(t, cli("collection", "create", "--email", "c@example.com", f1)...); c["url"] != "http://"+defaultAddr+"/f/"+c["slug"].(string) || c["name"] != "Files" {
		t.Errorf("collection create without --base-url or --name: %v", c)
	}
	if got := cliJSON(t, cli("collection", "remove", "--email", "c@example.com", id, f1)...); got["slug"] != slug || len(got["files"].([]any)) != 1 {
		t.Errorf("collection remove: %v", got)
	}
	if got := cliJSON(t, cli("collection", "add", "--email", "c@example.com", id, f1)...); got["slug"] != slug || len(got["files"].([]any)) != 2 {
		t.Errorf("collection add: %v", got)
	}
	if got := cliJSON(t, cli("collection", "show", "--email", "c@example.com", id)...); got["collectionId"] != id {
		t.Errorf("collection show: %v", got)
	}
	for _, tc := range []struct {
		args []string
		exit int
		err  string
	}{
		{[]string{"collection", "create", "--email", "c@example.com", theirs}, 1, "no file"},
		{[]string{"collection", "create", "--email", "c@example.com", id}, 1, "cannot hold another collection"},
		{[]string{"collection", "create", "--email", "c@example.com"}, 2, "at least one FILE_ID"},
		{[]string{"collection", "create", "--email", "c@example.com", "--name", "a\tb", f1}, 2, "control characters"},
		{[]string{"collection", "show", "--email", "c@example.com", f1}, 1, "no collection"},
		{[]string{"collection", "remove", "--email", "c@example.com", id, theirs}, 1, "holds no file"},
	} {
		r := runCLI(t, cli(tc.args...)...)
		if r.code != tc.exit || !strings.Contains(r.stderr, tc.err) {
			t.Errorf("fileframe %s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.exit, tc.err)
		}
	}
}

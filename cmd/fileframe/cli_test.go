package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
	"github.com/fileframe/fileframe/internal/sqlite"
)

// openTestStore opens the data directory's database from the test process,
// as a second process beside the CLI.
func openTestStore(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "fileframe.db"))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// TestCLIContract runs every admin command as a real process and checks the
// documented output, exit statuses and effect on the data.
func TestCLIContract(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	data := []string{"--data", dir}
	cli := func(args ...string) []string { return append(args, data...) }

	// account create
	acct := cliJSON(t, cli("account", "create", "--email", "Ada@Example.com", "--password", "s3cret password")...)
	if id, _ := acct["accountId"].(string); !strings.HasPrefix(id, "a_") {
		t.Errorf("accountId = %v, want a_...", acct["accountId"])
	}
	if acct["email"] != "ada@example.com" || acct["plan"] != "free" || acct["admin"] != false {
		t.Errorf("account create = %v, want email ada@example.com, plan free, admin false", acct)
	}
	if len(acct) != 4 {
		t.Errorf("account create has fields %v, want exactly accountId, email, plan, admin", acct)
	}
	store := openTestStore(t, dir)
	a, err := store.AccountByEmail(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	hasher, err := password.NewHasher(password.DefaultParams(), password.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := hasher.Verify(ctx, "s3cret password", a.PasswordHash); !ok || err != nil {
		t.Errorf("stored password hash %q does not verify: %v, %v", a.PasswordHash, ok, err)
	}
	admin := cliJSON(t, cli("account", "create", "--email", "root@example.com", "--plan", "pro", "--admin")...)
	if admin["admin"] != true || admin["plan"] != "pro" {
		t.Errorf("account create --admin --plan pro = %v", admin)
	}
	if b, _ := store.AccountByEmail(ctx, "root@example.com"); b.PasswordHash != "" {
		t.Errorf("account without --password has hash %q, want none", b.PasswordHash)
	}
	if r := runCLI(t, cli("account", "create", "--email", "ada@example.com")...); r.code != 1 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("duplicate account: exit %d, stderr %q; want 1 and 'already exists'", r.code, r.stderr)
	}
	if r := mustCLI(t, cli("account", "create", "--email", "human@example.com")...); !strings.Contains(r.stdout, "Created account") {
		t.Errorf("account create without --json printed %q", r.stdout)
	}

	// file add: flags after and before the path
	src := filepath.Join(t.TempDir(), "hello.txt")
	content := []byte(strings.Repeat("hello, fileframe\n", 1000))
	if err := os.WriteFile(src, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f := cliJSON(t, cli("file", "add", src, "--email", "ada@example.com", "--name", "report.txt")...)
	fileID, _ := f["fileId"].(string)
	slug, _ := f["slug"].(string)
	if !strings.HasPrefix(fileID, "f_") || slug == "" || f["url"] != "/f/"+slug || f["state"] != "live" {
		t.Fatalf("file add = %v, want fileId f_..., slug, url /f/<slug>, state live", f)
	}
	file, err := store.FileByID(ctx, fileframe.FileID(fileID))
	if err != nil {
		t.Fatal(err)
	}
	if file.Name != "report.txt" || file.Size != int64(len(content)) || file.ContentType != "text/plain; charset=utf-8" || file.Slug != slug {
		t.Errorf("stored file = %+v", file)
	}
	blobs, err := disk.Open(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	br, err := blobs.Open(ctx, file.BlobKey)
	if err != nil {
		t.Fatalf("the blob of the added file: %v", err)
	}
	got, _ := io.ReadAll(br.Body)
	br.Body.Close()
	if !bytes.Equal(got, content) {
		t.Errorf("blob holds %d bytes, want the file's %d", len(got), len(content))
	}
	noExt := filepath.Join(t.TempDir(), "blob")
	os.WriteFile(noExt, []byte("%PDF-1.7\n..."), 0o644)
	f2 := cliJSON(t, cli("file", "add", "--email", "ada@example.com", noExt)...)
	if file2, _ := store.FileByID(ctx, fileframe.FileID(f2["fileId"].(string))); file2.Name != "blob" || file2.ContentType != "application/pdf" {
		t.Errorf("file add without extension: name %q, type %q; want blob, application/pdf (sniffed)", file2.Name, file2.ContentType)
	}

	// file add applies the plan's quotas, as an upload does: serve's
	// --quota-* flags and variables.
	r := runCLI(t, cli("file", "add", "--email", "ada@example.com", "--quota-free-file", "100B", src)...)
	if r.code != 1 || !strings.Contains(r.stderr, "the Free plan takes files of up to 100 B") {
		t.Errorf("file add over --quota-free-file: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, append(cli("file", "add", "--email", "ada@example.com", src), "--quota-free-storage", "20KB")...)
	if r.code != 1 || !strings.Contains(r.stderr, "of the Free plan's 20 KiB of storage is left") {
		t.Errorf("file add over --quota-free-storage: exit %d, stderr %q", r.code, r.stderr)
	}

	// key create refuses a non-agency account
	r = runCLI(t, cli("key", "create", "--email", "ada@example.com", "--json")...)
	if r.code != 1 || r.stdout != "" {
		t.Errorf("key create on free: exit %d, stdout %q; want 1 and nothing", r.code, r.stdout)
	}
	for _, want := range []string{"agency plan", "fileframe account set-plan --email ada@example.com --plan agency"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("key create on free: stderr %q lacks %q", r.stderr, want)
		}
	}

	// account set-plan
	sp := cliJSON(t, cli("account", "set-plan", "--email", "ada@example.com", "--plan", "agency")...)
	if sp["plan"] != "agency" || sp["email"] != "ada@example.com" {
		t.Errorf("set-plan = %v", sp)
	}
	if a, _ := store.AccountByEmail(ctx, "ada@example.com"); a.Plan != fileframe.PlanAgency {
		t.Errorf("stored plan %q after set-plan, want agency", a.Plan)
	}

	// key create, both kinds
	gen := cliJSON(t, cli("key", "create", "--email", "ada@example.com", "--name", "agent")...)
	genKey, _ := gen["key"].(string)
	if !strings.HasPrefix(genKey, "ffk_") || !fileframe.LooksLikeKey(genKey) || gen["kind"] != "general" || gen["fileId"] != nil {
		t.Errorf("general key = %v, want key ffk_..., kind general, fileId null", gen)
	}
	if _, ok := gen["fileId"]; !ok || len(gen) != 4 {
		t.Errorf("general key has fields %v, want exactly key, keyId, kind, fileId", gen)
	}
	page := cliJSON(t, cli("key", "create", "--email", "ada@example.com", "--file", fileID, "--expires", "30d")...)
	pageKey, _ := page["key"].(string)
	if !strings.HasPrefix(pageKey, "ffp_") || !fileframe.LooksLikeKey(pageKey) || page["kind"] != "page" || page["fileId"] != fileID {
		t.Errorf("page key = %v, want key ffp_..., kind page, fileId %s", page, fileID)
	}
	k, err := store.KeyByHash(ctx, fileframe.HashKey(pageKey))
	if err != nil {
		t.Fatalf("the page key is not stored by its hash: %v", err)
	}
	if string(k.ID) != page["keyId"] || k.FileID != fileframe.FileID(fileID) || k.Kind != fileframe.KeyPage || !strings.HasPrefix(pageKey, k.Prefix) {
		t.Errorf("stored key = %+v", k)
	}
	if want := time.Now().Add(30 * 24 * time.Hour); k.ExpiresAt.Before(want.Add(-time.Hour)) || k.ExpiresAt.After(want.Add(time.Hour)) {
		t.Errorf("ExpiresAt = %v, want about %v", k.ExpiresAt, want)
	}
	human := mustCLI(t, cli("key", "create", "--email", "ada@example.com")...)
	for _, want := range []string{"ffk_", "shown only once", "curl", "/api/campaign/custom-html", "Authorization: Bearer ffk_"} {
		if !strings.Contains(human.stdout, want) {
			t.Errorf("key create without --json: stdout lacks %q:\n%s", want, human.stdout)
		}
	}
	cliJSON(t, cli("account", "create", "--email", "other@example.com", "--plan", "agency")...)
	if r := runCLI(t, cli("key", "create", "--email", "other@example.com", "--file", fileID)...); r.code != 1 || !strings.Contains(r.stderr, "has no file "+fileID) {
		t.Errorf("key for another account's file: exit %d, stderr %q; want 1, 'has no file'", r.code, r.stderr)
	}

	// key revoke
	rv := cliJSON(t, cli("key", "revoke", gen["keyId"].(string), "--email", "ada@example.com")...)
	if rv["keyId"] != gen["keyId"] || rv["revoked"] != true {
		t.Errorf("key revoke = %v", rv)
	}
	if k, _ := store.KeyByHash(ctx, fileframe.HashKey(genKey)); k.RevokedAt.IsZero() {
		t.Errorf("revoked key has no RevokedAt")
	}
	if r := runCLI(t, cli("key", "revoke", "--email", "other@example.com", gen["keyId"].(string))...); r.code != 1 || !strings.Contains(r.stderr, "has no key") {
		t.Errorf("revoking another account's key: exit %d, stderr %q", r.code, r.stderr)
	}

	// migrate
	m := cliJSON(t, cli("migrate")...)
	v, err := store.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := m["schemaVersion"].(float64); int(n) != v || v < 1 {
		t.Errorf("migrate = %v, want schemaVersion %d (>= 1)", m, v)
	}

	// unknown email: exit 1 with a message that names it
	for _, args := range [][]string{
		{"account", "set-plan", "--email", "nobody@example.com", "--plan", "pro"},
		{"file", "add", "--email", "nobody@example.com", src},
		{"key", "create", "--email", "nobody@example.com"},
		{"key", "revoke", "--email", "nobody@example.com", "k_x"},
	} {
		r := runCLI(t, cli(args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "no account with email nobody@example.com") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and 'no account with email nobody@example.com'", args, r.code, r.stderr)
		}
	}
	// a mistyped --data is not mistaken for an empty database
	if r := runCLI(t, "key", "create", "--email", "ada@example.com", "--data", filepath.Join(dir, "nope")); r.code != 1 || !strings.Contains(r.stderr, "no database") {
		t.Errorf("missing database: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCLIUsageErrors checks that mistakes in the command line exit 2 with a
// message on stderr and nothing on stdout.
func TestCLIUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "x.txt")
	os.WriteFile(src, []byte("x"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown subcommand", []string{"account", "delete"}, `unknown command "account delete"`},
		{"unknown flag", []string{"migrate", "--frob"}, "flag provided but not defined: -frob"},
		{"missing email", []string{"account", "create"}, "--email is required"},
		{"bad email", []string{"account", "create", "--email", "not-an-email"}, "not an email address"},
		{"bad plan", []string{"account", "create", "--email", "a@example.com", "--plan", "gold"}, `--plan "gold"`},
		{"empty password", []string{"account", "create", "--email", "a@example.com", "--password", ""}, "--password must not be empty"},
		{"short password", []string{"account", "create", "--email", "a@example.com", "--password", "short"}, "--password: Passwords must be at least 10 characters."},
		{"set-plan without plan", []string{"account", "set-plan", "--email", "a@example.com"}, "--plan is required"},
		{"file add without path", []string{"file", "add", "--email", "a@example.com"}, "want exactly one PATH"},
		{"file add two paths", []string{"file", "add", "--email", "a@example.com", src, src}, "want exactly one PATH"},
		// The rules of the web application's uploads (service.AddFile):
		// a name that a Content-Disposition header could not carry.
		{"file add name with CR/LF", []string{"file", "add", "--email", "ada@example.com", "--name", "a\r\nSet-Cookie: x=y", src}, "control characters"},
		{"file add name with a tab", []string{"file", "add", "--email", "ada@example.com", "--name", "a\tb", src}, "control characters"},
		{"file add name too long", []string{"file", "add", "--email", "ada@example.com", "--name", strings.Repeat("x", 256), src}, "at most 255 bytes"},
		{"key revoke without id", []string{"key", "revoke", "--email", "a@example.com"}, "want exactly one KEY_ID"},
		{"bad expires", []string{"key", "create", "--email", "a@example.com", "--expires", "soon"}, `--expires "soon"`},
		{"serve bad origin", []string{"serve", "--base-url", "ftp://x"}, "scheme must be http or https"},
		{"serve bad trusted proxy", []string{"serve", "--trusted-proxies", "10.0.0.0/8,proxy.local"}, `"proxy.local" is not an address`},
		{"serve short ops token", []string{"serve", "--ops-token", "short"}, "--ops-token (FILEFRAME_OPS_TOKEN) is too short"},
		{"serve ops on the app's address", []string{"serve", "--addr", "127.0.0.1:8090", "--ops-addr", "127.0.0.1:8090"}, "--ops-addr 127.0.0.1:8090 is the address of an origin"},
		{"serve same origin", []string{"serve", "--base-url", "http://a.example", "--content-origin", "http://a.example"}, "same origin"},
		{"extra argument", []string{"migrate", "now"}, `unexpected argument "now"`},
		// An ID of another shape is the command line's mistake, refused
		// before the store is opened, as remote's commands refuse it.
		{"file set dot", []string{"file", "set", "--email", "a@example.com", ".", "--one-time"}, `FILE_ID "." is not a file ID`},
		{"file set path", []string{"file", "set", "--email", "a@example.com", "f_A/../f_B", "--one-time"}, `FILE_ID "f_A/../f_B" is not a file ID`},
		{"file delete encoded slash", []string{"file", "delete", "--email", "a@example.com", "f_A%2Ff_B"}, `FILE_ID "f_A%2Ff_B" is not a file ID`},
		{"file delete upper case", []string{"file", "delete", "--email", "a@example.com", "F_A"}, `FILE_ID "F_A" is not a file ID`},
		{"file delete fullwidth", []string{"file", "delete", "--email", "a@example.com", "ｆ_A"}, `is not a file ID`},
		{"key create file", []string{"key", "create", "--email", "a@example.com", "--file", "../f_A"}, `--file "../f_A" is not a file ID`},
		{"key create file space", []string{"key", "create", "--email", "a@example.com", "--file", "f_A "}, `--file "f_A " is not a file ID`},
		// An empty --file (an unset variable) is not a general key's request.
		{"key create file empty", []string{"key", "create", "--email", "a@example.com", "--file", ""}, `--file "" is not a file ID`},
		{"key create file= empty", []string{"key", "create", "--email", "a@example.com", "--file="}, `--file "" is not a file ID`},
		{"key create file then empty", []string{"key", "create", "--email", "a@example.com", "--file", "f_A", "--file", ""}, `--file "" is not a file ID`},
		{"collection create", []string{"collection", "create", "--email", "a@example.com", "f_A", ".."}, `FILE_ID ".." is not a file ID`},
		{"collection add", []string{"collection", "add", "--email", "a@example.com", "f_", "f_A"}, `FILE_ID "f_" is not a file ID`},
		{"collection show", []string{"collection", "show", "--email", "a@example.com", "f_" + strings.Repeat("A", 65)}, `is not a file ID`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args != nil {
				args = append(args, "--data", dir)
			}
			r := runCLI(t, args...)
			if r.code != 2 {
				t.Errorf("exit %d, want 2; stderr %q", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q lacks %q", r.stderr, tt.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
		})
	}
	if r := runCLI(t, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "fileframe ") {
		t.Errorf("version: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := runCLI(t, "help"); r.code != 0 || !strings.Contains(r.stdout, "fileframe key create") {
		t.Errorf("help: exit %d, stdout %q", r.code, r.stdout)
	}
}

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/password"
)

// TestAccountCreateHashBound runs account create in-process with a hasher
// the test watches: the password is hashed through its budget, and a full
// budget makes the command fail after the wait, clearly and without
// creating the account.
func TestAccountCreateHashBound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	params := password.Params{Memory: 1024, Time: 1, Threads: 1}
	h, err := password.NewHasher(params, password.Budget{Memory: 1024, MaxWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(email string) (int, string) {
		var stdout, stderr bytes.Buffer
		c := &CLI{Stdout: &stdout, Stderr: &stderr, Env: func(string) (string, bool) { return "", false }, Passwords: h}
		code := c.Run(ctx, []string{"account", "create", "--email", email, "--password", "s3cret password", "--data", dir})
		return code, stderr.String()
	}

	if code, stderr := run("ada@example.com"); code != exitOK {
		t.Fatalf("account create: exit %d: %s", code, stderr)
	}
	if st := h.Stats(); st.Computed != 1 || st.PeakMemory != int64(params.Memory) {
		t.Errorf("hasher after account create: %+v, want one computation holding %d KiB", st, params.Memory)
	}
	a, err := openTestStore(t, dir).AccountByEmail(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := h.Verify(ctx, "s3cret password", a.PasswordHash); !ok || err != nil {
		t.Errorf("the stored hash does not verify: %v, %v", ok, err)
	}

	release, err := h.Reserve(ctx, 1024)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	code, stderr := run("bob@example.com")
	if code != exitError || !strings.Contains(stderr, "too many passwords are being checked at once") {
		t.Errorf("account create on a full budget: exit %d, stderr %q; want 1 saying the hashing is busy", code, stderr)
	}
	if _, err := openTestStore(t, dir).AccountByEmail(ctx, "bob@example.com"); !fileframe.IsNotFound(err) {
		t.Errorf("account create on a full budget made the account: %v", err)
	}
}

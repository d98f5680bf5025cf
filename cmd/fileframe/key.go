package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// keyJSON is the output of key create with --json. FileID is null for a
// general key.
type keyJSON struct {
	Key    string            `json:"key"`
	KeyID  fileframe.KeyID   `json:"keyId"`
	Kind   fileframe.KeyKind `json:"kind"`
	FileID *fileframe.FileID `json:"fileId"`
}

func runKeyCreate(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	data := c.storageFlags(fs)
	emailFlag := fs.String("email", "", "the owner's email address (required)")
	fileFlag := fs.String("file", "", "bind the key to this file's page (FILE_ID); default: a general key")
	name := fs.String("name", "", "a name to recognise the key by")
	expiresFlag := fs.String("expires", "", "lifetime, e.g. 30d or 12h (default: never expires)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	email, err := parseEmail(*emailFlag)
	if err != nil {
		return err
	}
	// --file given empty (an unset variable, --file=) is a mistake, not a
	// request for a general key, which works on every file.
	fileGiven := false
	fs.Visit(func(f *flag.Flag) { fileGiven = fileGiven || f.Name == "file" })
	if fileGiven {
		if err := fileIDArg("--file", *fileFlag); err != nil {
			return err
		}
	}
	var lifetime time.Duration
	if *expiresFlag != "" {
		if lifetime, err = parseLifetime(*expiresFlag); err != nil {
			return err
		}
	}

	store, err := data.openStore(ctx, false)
	if err != nil {
		return err
	}
	defer store.Close()
	a, err := accountByEmail(ctx, store, email)
	if err != nil {
		return err
	}
	svc, err := data.service(ctx, store, nil)
	if err != nil {
		return err
	}
	var expires time.Time
	if lifetime > 0 {
		expires = time.Now().Add(lifetime)
	}
	// The same use case as the web application's key buttons.
	secret, k, err := svc.CreateKey(ctx, service.NewKey{Account: a, File: fileframe.FileID(*fileFlag), Name: *name, Expires: expires})
	switch fileframe.ErrorCode(err) {
	case "":
	case fileframe.CodePlanRequired:
		return fileframe.Errorf(fileframe.EINVALID,
			"%s is on the %s plan and keys need the agency plan; run: fileframe account set-plan --email %s --plan agency",
			a.Email, a.Plan, a.Email)
	case fileframe.ENOTFOUND:
		return fileframe.Errorf(fileframe.ENOTFOUND, "%s has no file %s", a.Email, *fileFlag)
	case fileframe.CodeInvalidField:
		return usagef("--name: %s", fileframe.ErrorMessage(err))
	default:
		return fmt.Errorf("creating the key: %w", err)
	}
	fileID := k.FileID
	if *asJSON {
		out := keyJSON{Key: secret, KeyID: k.ID, Kind: k.Kind}
		if k.Kind == fileframe.KeyPage {
			out.FileID = &fileID
		}
		return c.printJSON(out)
	}
	c.printKey(secret, k, a.Email, k.ExpiresAt)
	return nil
}

// printKey shows a new key once, with a request that uses it.
func (c *CLI) printKey(secret string, k fileframe.Key, email string, expires time.Time) {
	w := c.Stdout
	if k.Kind == fileframe.KeyPage {
		fmt.Fprintf(w, "Created page-bound API key %s (%q) for file %s.\n", k.ID, k.Name, k.FileID)
	} else {
		fmt.Fprintf(w, "Created general API key %s (%q).\n", k.ID, k.Name)
	}
	if !expires.IsZero() {
		fmt.Fprintf(w, "It expires at %s.\n", expires.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(w, "\n    %s\n\n", secret)
	fmt.Fprintln(w, "This key is shown only once: store it now. Fileframe keeps only its hash.")
	fileID := ""
	if k.Kind == fileframe.KeyGeneral {
		fileID = `"fileId": "FILE_ID", `
	}
	fmt.Fprintf(w, `
Try it:
  curl -sS %s/api/campaign/custom-html \
    -H 'Authorization: Bearer %s' \
    -H 'Content-Type: application/json' \
    -d '{%s"publish": true, "html": "<!doctype html><html><head><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Hello</title></head><body><h1>Hello</h1></body></html>"}'
`, c.baseURL(), secret, fileID)
	fmt.Fprintf(w, "Revoke it with: fileframe key revoke --email %s %s\n", email, k.ID)
}

// parseLifetime parses --expires: a Go duration (90m, 12h) or a number of
// days (30d).
func parseLifetime(s string) (time.Duration, error) {
	bad := usagef("--expires %q: use a duration like 30d, 12h or 90m", s)
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
	if d <= 0 {
		return 0, usagef("--expires %q must be positive", s)
	}
	return d, nil
}

func runKeyRevoke(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	data := c.storageFlags(fs)
	emailFlag := fs.String("email", "", "the owner's email address (required)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	o, err := openOwned(ctx, fs, args, data, emailFlag, "KEY_ID")
	if err != nil {
		return err
	}
	defer o.store.Close()
	id, a := fileframe.KeyID(o.id), o.account
	svc, err := data.service(ctx, o.store, nil)
	if err != nil {
		return err
	}
	err = svc.RevokeKey(ctx, a, id)
	if fileframe.IsNotFound(err) {
		return fileframe.Errorf(fileframe.ENOTFOUND, "%s has no key %s", a.Email, id)
	} else if err != nil {
		return fmt.Errorf("revoking key %s: %w", id, err)
	}
	if *asJSON {
		return c.printJSON(struct {
			KeyID   fileframe.KeyID `json:"keyId"`
			Revoked bool            `json:"revoked"`
		}{id, true})
	}
	fmt.Fprintf(c.Stdout, "Revoked key %s of %s; it stops working at once.\n", id, a.Email)
	return nil
}

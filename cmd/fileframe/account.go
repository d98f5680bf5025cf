package main

import (
	"context"
	"flag"
	"fmt"
	"net/mail"
	"strings"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// parseEmail checks a bare email address (no display name) and lower-cases
// it, as the store keeps it.
func parseEmail(raw string) (string, error) {
	if raw == "" {
		return "", usagef("--email is required")
	}
	a, err := mail.ParseAddress(raw)
	if err != nil || a.Name != "" || a.Address != strings.TrimSpace(raw) {
		return "", usagef("--email %q is not an email address like ada@example.com", raw)
	}
	return strings.ToLower(a.Address), nil
}

// parsePlan checks a --plan value.
func parsePlan(raw string) (fileframe.Plan, error) {
	if raw == "" {
		return "", usagef("--plan is required")
	}
	p, err := fileframe.ParsePlan(raw)
	if err != nil {
		return "", usagef("--plan %q: use free, pro or agency", raw)
	}
	return p, nil
}

// accountByEmail returns the account with that email, with a message that
// says which when there is none.
// ownedArg is what an admin command acting on one thing of an account
// (a file, a key) starts from: the thing's ID, the open store (the caller
// closes it) and the account.
type ownedArg struct {
	id      string
	store   fileframe.Store
	account fileframe.Account
}

// openOwned parses args for such a command, whose flags (--email among
// them, in email) fs holds: exactly one positional argument, named what in
// the usage error; then it opens the store and finds the account.
func openOwned(ctx context.Context, fs *flag.FlagSet, args []string, data *storageFlags, email *string, what string) (ownedArg, error) {
	rest, err := parseArgs(fs, args)
	if err != nil {
		return ownedArg{}, err
	}
	if len(rest) != 1 {
		return ownedArg{}, usagef("want exactly one %s, got %d arguments", what, len(rest))
	}
	if what == "FILE_ID" {
		if err := fileIDArg(what, rest[0]); err != nil {
			return ownedArg{}, err
		}
	}
	addr, err := parseEmail(*email)
	if err != nil {
		return ownedArg{}, err
	}
	store, err := data.openStore(ctx, false)
	if err != nil {
		return ownedArg{}, err
	}
	a, err := accountByEmail(ctx, store, addr)
	if err != nil {
		store.Close()
		return ownedArg{}, err
	}
	return ownedArg{id: rest[0], store: store, account: a}, nil
}

func accountByEmail(ctx context.Context, store fileframe.Store, email string) (fileframe.Account, error) {
	a, err := store.AccountByEmail(ctx, email)
	if fileframe.IsNotFound(err) {
		return a, fileframe.Errorf(fileframe.ENOTFOUND, "no account with email %s (create it with: fileframe account create --email %s)", email, email)
	} else if err != nil {
		return a, fmt.Errorf("looking up %s: %w", email, err)
	}
	return a, nil
}

// accountJSON is the output of account create and set-plan with --json.
type accountJSON struct {
	AccountID fileframe.AccountID `json:"accountId"`
	Email     string              `json:"email"`
	Plan      fileframe.Plan      `json:"plan"`
	Admin     bool                `json:"admin"`
}

func runAccountCreate(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	data := c.storageFlags(fs)
	emailFlag := fs.String("email", "", "the account's email address (required)")
	pw := fs.String("password", "", "the account's password (omit for an account without one)")
	planFlag := fs.String("plan", string(fileframe.PlanFree), "plan: free, pro or agency")
	admin := fs.Bool("admin", false, "make the account an administrator")
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
	plan, err := parsePlan(*planFlag)
	if err != nil {
		return err
	}
	pwSet := false
	fs.Visit(func(f *flag.Flag) { pwSet = pwSet || f.Name == "password" })
	if pwSet {
		if *pw == "" {
			return usagef("--password must not be empty (omit it for an account without a password)")
		}
		// The same rules as the setup screen's and sign-up's.
		if err := service.CheckPassword(*pw); err != nil {
			return usagef("--password: %s", fileframe.ErrorMessage(err))
		}
	}
	hasher, err := c.passwords()
	if err != nil {
		return err
	}

	store, err := data.openStore(ctx, true)
	if err != nil {
		return err
	}
	defer store.Close()
	svc, err := service.New(service.Config{Store: store, Passwords: hasher})
	if err != nil {
		return err
	}
	// The same use case as the setup screen and sign-up.
	a, err := svc.CreateAccount(ctx, service.NewAccount{Email: email, Password: *pw, Plan: plan, Admin: *admin})
	if fileframe.ErrorCode(err) == fileframe.ECONFLICT {
		return fileframe.Errorf(fileframe.ECONFLICT, "an account with email %s already exists", email)
	} else if err != nil {
		return fmt.Errorf("creating the account: %w", err)
	}
	if *asJSON {
		return c.printJSON(accountJSON{AccountID: a.ID, Email: a.Email, Plan: a.Plan, Admin: a.Admin})
	}
	role := ""
	if a.Admin {
		role = ", administrator"
	}
	fmt.Fprintf(c.Stdout, "Created account %s for %s (plan %s%s).\n", a.ID, a.Email, a.Plan, role)
	if a.PasswordHash == "" {
		fmt.Fprintln(c.Stdout, "It has no password.")
	}
	return nil
}

func runAccountSetPlan(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	data := c.storageFlags(fs)
	emailFlag := fs.String("email", "", "the account's email address (required)")
	planFlag := fs.String("plan", "", "the new plan: free, pro or agency (required)")
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
	plan, err := parsePlan(*planFlag)
	if err != nil {
		return err
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
	// The same use case as the admin page's plan form.
	if _, err := svc.SetPlan(ctx, a.ID, plan); err != nil {
		return fmt.Errorf("setting the plan of %s: %w", email, err)
	}
	if *asJSON {
		return c.printJSON(accountJSON{AccountID: a.ID, Email: a.Email, Plan: plan, Admin: a.Admin})
	}
	fmt.Fprintf(c.Stdout, "%s is now on the %s plan (was %s).\n", a.Email, plan, a.Plan)
	return nil
}

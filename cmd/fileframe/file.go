package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// fileJSON is the output of file add with --json.
type fileJSON struct {
	FileID fileframe.FileID `json:"fileId"`
	Slug   string           `json:"slug"`
	URL    string           `json:"url"`
}

func runFileAdd(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	data := c.storageFlags(fs)
	quotas := data.quotas()
	emailFlag := fs.String("email", "", "the owner's email address (required)")
	name := fs.String("name", "", "the name visitors download the file as (default: PATH's base name)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("want exactly one PATH, got %d arguments", len(rest))
	}
	path := rest[0]
	email, err := parseEmail(*emailFlag)
	if err != nil {
		return err
	}
	if *name == "" {
		*name = filepath.Base(path)
	}
	// The name's rules before anything is opened or stored.
	if err := fileframe.CheckFileName(*name); err != nil {
		return usagef("--name: %s", fileframe.ErrorMessage(err))
	}

	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("opening the file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading the file: %w", err)
	} else if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}

	store, err := data.openStore(ctx, false)
	if err != nil {
		return err
	}
	defer store.Close()
	// The account first, so an unknown email leaves no orphaned blob.
	a, err := accountByEmail(ctx, store, email)
	if err != nil {
		return err
	}
	svc, err := data.service(ctx, store, quotas)
	if err != nil {
		return err
	}
	// The same use case as an upload to the web application or the API:
	// the same name rules, the plan's quotas, the file streamed, never held
	// in memory whole.
	file, err := svc.AddFile(ctx, service.NewFile{Account: a, Name: *name, Size: st.Size(), Body: f, TypeHint: path})
	if err != nil {
		if code := fileframe.ErrorCode(err); code != fileframe.EINTERNAL {
			return errors.New(fileframe.ErrorMessage(err))
		}
		return fmt.Errorf("adding the file: %w", err)
	}
	if *asJSON {
		return c.printJSON(fileJSON{FileID: file.ID, Slug: file.Slug, URL: file.URL()})
	}
	fmt.Fprintf(c.Stdout, "Added %s (%d bytes, %s) for %s as file %s.\nLink: %s%s\n",
		file.Name, file.Size, file.ContentType, a.Email, file.ID, c.baseURL(), file.URL())
	return nil
}

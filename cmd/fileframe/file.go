package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// fileJSON is the output of file add and file set with --json: the file
// and its link's controls and state.
type fileJSON struct {
	FileID fileframe.FileID `json:"fileId"`
	Slug   string           `json:"slug"`
	URL    string           `json:"url"`
	linkJSON
}

func newFileJSON(f fileframe.File, now time.Time) fileJSON {
	return fileJSON{FileID: f.ID, Slug: f.Slug, URL: f.URL(), linkJSON: newLinkJSON(f, now)}
}

// linkError is what the operator sees when the service refuses a link
// setting (or a request's): invalid_field is a mistake in the command
// line (exit 2).
func linkError(err error) error {
	switch code := fileframe.ErrorCode(err); {
	case code == fileframe.CodeInvalidField:
		return usagef("%s", fileframe.ErrorMessage(err))
	case code != fileframe.EINTERNAL:
		return errors.New(fileframe.ErrorMessage(err))
	}
	return err
}

func runFileAdd(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	data := c.storageFlags(fs)
	quotas := data.quotas()
	emailFlag := fs.String("email", "", "the owner's email address (required)")
	name := fs.String("name", "", "the name visitors download the file as (default: PATH's base name)")
	lf := addLinkFlags(fs, false)
	asJSON := fs.Bool("json", false, "print one JSON object")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("want exactly one PATH, got %d arguments", len(rest))
	}
	link, err := lf.parse(c.stdin())
	if err != nil {
		return err
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

	f, st, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()

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
	// The link's settings are checked (and a password hashed) before any
	// byte is stored, so that a mistake in them exits 2 at once.
	if link, err = svc.PrepareLink(ctx, a, link); err != nil {
		return linkError(err)
	}
	// The same use case as an upload to the web application or the API:
	// the same name rules, the plan's quotas, the file streamed, never held
	// in memory whole.
	file, err := svc.AddFile(ctx, service.NewFile{Account: a, Name: *name, Size: st.Size(), Body: f, TypeHint: path, Link: link})
	if err != nil {
		if code := fileframe.ErrorCode(err); code != fileframe.EINTERNAL {
			return errors.New(fileframe.ErrorMessage(err))
		}
		return fmt.Errorf("adding the file: %w", err)
	}
	out := newFileJSON(file, time.Now())
	if *asJSON {
		return c.printJSON(out)
	}
	fmt.Fprintf(c.Stdout, "Added %s (%d bytes, %s) for %s as file %s.\nLink: %s%s (%s)\n",
		file.Name, file.Size, file.ContentType, a.Email, file.ID, c.baseURL(), file.URL(), linkText(out.linkJSON))
	return nil
}

// runFileSet changes the controls of a file's link: fileframe file set
// --email E FILE_ID [link flags]. Flags not given leave their setting as
// it is.
func runFileSet(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	data := c.storageFlags(fs)
	quotas := data.quotas()
	emailFlag := fs.String("email", "", "the owner's email address (required)")
	lf := addLinkFlags(fs, true)
	asJSON := fs.Bool("json", false, "print one JSON object")
	o, err := openOwned(ctx, fs, args, data, emailFlag, "FILE_ID")
	if err != nil {
		return err
	}
	defer o.store.Close()
	id, a, store := fileframe.FileID(o.id), o.account, o.store
	link, err := lf.parse(c.stdin())
	if err != nil {
		return err
	}
	svc, err := data.service(ctx, store, quotas)
	if err != nil {
		return err
	}
	// The same use case as the file page's form, the API's PATCH and MCP's
	// set_link: the plan's longest lifetime, the password hashed.
	file, err := svc.SetLink(ctx, a, id, link)
	if fileframe.IsNotFound(err) {
		return fileframe.Errorf(fileframe.ENOTFOUND, "%s has no file %s", a.Email, id)
	} else if err != nil {
		return linkError(err)
	}
	out := newFileJSON(file, time.Now())
	if *asJSON {
		return c.printJSON(out)
	}
	fmt.Fprintf(c.Stdout, "The link of %s (file %s) is now: %s.\nLink: %s%s\n",
		file.Name, file.ID, linkText(out.linkJSON), c.baseURL(), file.URL())
	return nil
}

// runFileDelete deletes one of the account's files, with its page, its
// appearance and its page-bound keys: the same use case as the file page's
// Delete button, the API's DELETE and MCP's delete_file. Its bytes are
// removed as soon as no other file uses them and no upload of the same
// bytes can still be about to (fileframe.BlobGrace); what a server's timer
// or this command cannot do then, the next clean-up does.
func runFileDelete(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	data := c.storageFlags(fs)
	quotas := data.quotas() // unused by deletion, but the service with blobs takes them
	emailFlag := fs.String("email", "", "the owner's email address (required)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	o, err := openOwned(ctx, fs, args, data, emailFlag, "FILE_ID")
	if err != nil {
		return err
	}
	defer o.store.Close()
	id, a, store := fileframe.FileID(o.id), o.account, o.store
	svc, err := data.service(ctx, store, quotas)
	if err != nil {
		return err
	}
	deleted, blobErr, err := svc.DeleteFile(ctx, a, id)
	if fileframe.IsNotFound(err) {
		return fileframe.Errorf(fileframe.ENOTFOUND, "%s has no file %s", a.Email, id)
	} else if err != nil {
		return err
	}
	if blobErr != nil {
		fmt.Fprintf(c.Stderr, "warning: %v; the next clean-up of a server removes it\n", blobErr)
	}
	if *asJSON {
		return c.printJSON(struct {
			FileID  fileframe.FileID `json:"fileId"`
			Deleted bool             `json:"deleted"`
		}{deleted.ID, true})
	}
	fmt.Fprintf(c.Stdout, "Deleted %s (file %s).\n", deleted.Name, deleted.ID)
	return nil
}

// openRegular opens the file at path to upload it: a regular file whose
// size is known before it is read. Anything else is refused at once: a
// directory or a device; a named pipe, which without a writer would block
// the open itself, past Ctrl-C; and a file that says it is empty but is
// not (/proc, /sys), which would be stored empty.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		// A socket cannot be opened at all ("no such device or address").
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return nil, nil, fmt.Errorf("%s is not a regular file", path)
		}
		return nil, nil, fmt.Errorf("opening the file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("reading the file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() == 0 {
		if n, _ := f.ReadAt(make([]byte, 1), 0); n > 0 {
			f.Close()
			return nil, nil, fmt.Errorf("%s says it is empty but is not (a file of /proc or /sys, made as it is read); copy it to a regular file first", path)
		}
	}
	return f, fi, nil
}

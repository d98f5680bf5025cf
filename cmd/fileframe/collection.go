package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// collectionJSON is the output of the collection commands with --json:
// the collection's ID (a file ID), its link, absolute (--base-url), and
// its files in order.
type collectionJSON struct {
	CollectionID fileframe.FileID `json:"collectionId"`
	Slug         string           `json:"slug"`
	URL          string           `json:"url"`
	Name         string           `json:"name"`
	Size         int64            `json:"size"`
	Files        []collectionFile `json:"files"`
}

// collectionFile is one file of a collection in collectionJSON.
type collectionFile struct {
	FileID fileframe.FileID `json:"fileId"`
	Name   string           `json:"name"`
	Size   int64            `json:"size"`
}

// collectionCmd is what every collection command opens: the owner's
// account and the service on the store.
type collectionCmd struct {
	c       *CLI
	asJSON  *bool
	baseURL *string
	email   *string
	data    *storageFlags
	rest    []string
}

// collectionFlags declares the flags every collection command takes.
func collectionFlags(c *CLI, fs *flag.FlagSet) *collectionCmd {
	return &collectionCmd{
		c:       c,
		data:    c.storageFlags(fs),
		email:   fs.String("email", "", "the owner's email address (required)"),
		baseURL: fs.String("base-url", "", "the server's public URL, for the printed link (default $FILEFRAME_BASE_URL, else http://"+defaultAddr+")"),
		asJSON:  fs.Bool("json", false, "print one JSON object"),
	}
}

// run parses args (wanting at least min arguments), opens the store and
// the service and calls fn with the owner's account.
func (cc *collectionCmd) run(ctx context.Context, fs *flag.FlagSet, args []string, min int, what string,
	fn func(svc *service.Service, a fileframe.Account) (fileframe.File, error)) error {
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) < min {
		return usagef("want %s, got %d arguments", what, len(rest))
	}
	// A collection is a file: every argument is a file's ID.
	for _, id := range rest {
		if err := fileIDArg("FILE_ID", id); err != nil {
			return err
		}
	}
	cc.rest = rest
	email, err := parseEmail(*cc.email)
	if err != nil {
		return err
	}
	store, err := cc.data.openStore(ctx, false)
	if err != nil {
		return err
	}
	defer store.Close()
	a, err := accountByEmail(ctx, store, email)
	if err != nil {
		return err
	}
	svc, err := cc.data.service(ctx, store, nil)
	if err != nil {
		return err
	}
	c, err := fn(svc, a)
	if err != nil {
		return collectionError(err)
	}
	_, items, err := svc.CollectionFiles(ctx, a, c.ID)
	if err != nil {
		return err
	}
	return cc.print(c, items)
}

// collectionError is what the operator sees when the service refuses: a
// name the rules refuse is a mistake in the command line (exit 2); any
// other refusal (a file not found, a full collection) exits 1 with the
// service's message.
func collectionError(err error) error {
	if fileframe.ErrorCode(err) == fileframe.CodeInvalidField {
		return usagef("%s", fileframe.ErrorMessage(err))
	}
	return err
}

// print writes the collection as JSON or as a sentence and its files.
func (cc *collectionCmd) print(c fileframe.File, items []fileframe.CollectionItem) error {
	base := strings.TrimSuffix(*cc.baseURL, "/")
	if base == "" {
		base = cc.c.baseURL()
	}
	out := collectionJSON{CollectionID: c.ID, Slug: c.Slug, URL: base + c.URL(), Name: c.Name, Size: c.Size,
		Files: make([]collectionFile, len(items))}
	for i, it := range items {
		out.Files[i] = collectionFile{FileID: it.File.ID, Name: it.File.Name, Size: it.File.Size}
	}
	if *cc.asJSON {
		return cc.c.printJSON(out)
	}
	fmt.Fprintf(cc.c.Stdout, "Collection %s (%s), %d file(s), %d bytes.\nLink: %s\nZIP:  %s/download\n",
		c.Name, c.ID, len(items), c.Size, out.URL, out.URL)
	for _, f := range out.Files {
		fmt.Fprintf(cc.c.Stdout, "  %s  %s  %d bytes\n", f.FileID, f.Name, f.Size)
	}
	return nil
}

// fileIDArgs returns the arguments as file IDs.
func fileIDArgs(args []string) []fileframe.FileID {
	ids := make([]fileframe.FileID, len(args))
	for i, a := range args {
		ids[i] = fileframe.FileID(a)
	}
	return ids
}

func runCollectionCreate(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	cc := collectionFlags(c, fs)
	name := fs.String("name", "", "the collection's name; its ZIP is NAME.zip (default \"Files\")")
	return cc.run(ctx, fs, args, 1, "at least one FILE_ID", func(svc *service.Service, a fileframe.Account) (fileframe.File, error) {
		n := *name
		if n == "" {
			n = "Files"
		}
		return svc.CreateCollection(ctx, a, n, fileIDArgs(cc.rest))
	})
}

func runCollectionAdd(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	cc := collectionFlags(c, fs)
	return cc.run(ctx, fs, args, 2, "COLLECTION_ID and at least one FILE_ID", func(svc *service.Service, a fileframe.Account) (fileframe.File, error) {
		return svc.AddToCollection(ctx, a, fileframe.FileID(cc.rest[0]), fileIDArgs(cc.rest[1:]))
	})
}

func runCollectionRemove(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	cc := collectionFlags(c, fs)
	return cc.run(ctx, fs, args, 2, "COLLECTION_ID FILE_ID", func(svc *service.Service, a fileframe.Account) (fileframe.File, error) {
		if len(cc.rest) != 2 {
			return fileframe.File{}, usagef("want COLLECTION_ID FILE_ID, got %d arguments", len(cc.rest))
		}
		return svc.RemoveFromCollection(ctx, a, fileframe.FileID(cc.rest[0]), fileframe.FileID(cc.rest[1]))
	})
}

func runCollectionShow(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	cc := collectionFlags(c, fs)
	return cc.run(ctx, fs, args, 1, "COLLECTION_ID", func(svc *service.Service, a fileframe.Account) (fileframe.File, error) {
		if len(cc.rest) != 1 {
			return fileframe.File{}, usagef("want exactly one COLLECTION_ID, got %d arguments", len(cc.rest))
		}
		return svc.OwnCollection(ctx, a, fileframe.FileID(cc.rest[0]))
	})
}

package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// fileJSON is the output of file add with --json.
type fileJSON struct {
	FileID fileframe.FileID `json:"fileId"`
	Slug   string           `json:"slug"`
	URL    string           `json:"url"`
}

func runFileAdd(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	data := c.storageFlags(fs)
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

	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("opening the file: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return fmt.Errorf("reading the file: %w", err)
	} else if st.IsDir() {
		return fmt.Errorf("%s is a directory, not a file", path)
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
	blobs, err := data.openBlobs(ctx)
	if err != nil {
		return err
	}

	// Sniff the type from the first bytes, then stream those bytes and the
	// rest into the blob store: the file is never held in memory whole.
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return fmt.Errorf("reading the file: %w", err)
	}
	head = head[:n]
	info, err := blobs.Put(ctx, io.MultiReader(bytes.NewReader(head), f))
	if err != nil {
		return fmt.Errorf("storing the file: %w", err)
	}
	file, err := store.CreateFile(ctx, fileframe.File{
		AccountID:   a.ID,
		Name:        *name,
		Size:        info.Size,
		ContentType: contentType(*name, path, head),
		BlobKey:     info.Key,
	})
	if err != nil {
		return fmt.Errorf("recording the file: %w", err)
	}
	if *asJSON {
		return c.printJSON(fileJSON{FileID: file.ID, Slug: file.Slug, URL: file.URL()})
	}
	fmt.Fprintf(c.Stdout, "Added %s (%d bytes, %s) for %s as file %s.\nLink: %s%s\n",
		file.Name, file.Size, file.ContentType, a.Email, file.ID, c.baseURL(), file.URL())
	return nil
}

// contentType picks a file's type from its name's extension, else its
// path's, else its first bytes.
func contentType(name, path string, head []byte) string {
	for _, p := range []string{name, path} {
		if t := mime.TypeByExtension(filepath.Ext(p)); t != "" {
			return t
		}
	}
	return http.DetectContentType(head)
}

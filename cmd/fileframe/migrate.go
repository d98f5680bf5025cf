package main

import (
	"context"
	"flag"
	"fmt"
)

func runMigrate(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	data := c.storageFlags(fs)
	asJSON := fs.Bool("json", false, "print one JSON object")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	// Opening applies the migrations (and refuses a newer database).
	store, err := data.openStore(ctx, true)
	if err != nil {
		return err
	}
	defer store.Close()
	v, err := store.SchemaVersion(ctx)
	if err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if *asJSON {
		return c.printJSON(struct {
			SchemaVersion int `json:"schemaVersion"`
		}{v})
	}
	st, _ := data.storage()
	where, _ := st.describe()
	fmt.Fprintf(c.Stdout, "The database (%s) is at schema version %d.\n", where, v)
	return nil
}

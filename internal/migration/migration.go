// Package migration reads a store's numbered SQL migrations: files named
// NNN-name.sql, numbered from 1 without gaps. Each store (internal/sqlite,
// internal/postgres) embeds its own dialect's files and applies them its own
// way; this package only loads and checks them, so both agree on the rules.
package migration

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one numbered schema change.
type Migration struct {
	Version int    // the NNN of its name
	Name    string // its file name, e.g. "001-initial.sql"
	SQL     string
}

// Load returns the *.sql files of dir in fsys in order of their numbers, or
// an error when a name is not NNN-name.sql or the numbers are not 1, 2, 3, …
// without gaps or repeats.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "-")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name is not NNN-name.sql", base)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: base, SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: expected number %d", m.Name, i+1)
		}
	}
	return ms, nil
}

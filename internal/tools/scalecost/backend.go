package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/migration"
	"github.com/fileframe/fileframe/internal/postgres"
	"github.com/fileframe/fileframe/internal/sqlite"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx" driver, for raw
)

// backend is the store being measured, its blobs (on disk for both
// databases, as serve keeps them without S3), and a plain connection to
// the same database for what the Store does not offer: counting rows,
// sizes, undoing a migration.
type backend struct {
	cfg   Config
	store fileframe.Store
	blobs *disk.Store
	raw   *sql.DB
}

func openBackend(ctx context.Context, cfg Config) (*backend, error) {
	b := &backend{cfg: cfg}
	var err error
	if b.blobs, err = disk.Open(filepath.Join(cfg.Dir, "blobs")); err != nil {
		return nil, err
	}
	if b.store, err = b.openStore(ctx); err != nil {
		return nil, err
	}
	if cfg.DB == "sqlite" {
		// modernc.org/sqlite's driver, registered by internal/sqlite.
		b.raw, err = sql.Open("sqlite", b.sqlitePath())
	} else {
		b.raw, err = sql.Open("pgx", cfg.DatabaseURL)
	}
	if err != nil {
		b.close()
		return nil, err
	}
	b.raw.SetMaxOpenConns(1)
	return b, nil
}

// sqlitePath is where serve keeps the database in the data directory.
func (b *backend) sqlitePath() string { return filepath.Join(b.cfg.Dir, "fileframe.db") }

// openStore opens the store as serve does (which applies any pending
// migration). PostgreSQL's pool has 16 connections unless the URL says
// otherwise (serve's default is 4 on two cores): the fill's and the POSTs'
// concurrent calls would otherwise wait for one.
func (b *backend) openStore(ctx context.Context) (fileframe.Store, error) {
	if b.cfg.DB == "sqlite" {
		return sqlite.Open(ctx, b.sqlitePath())
	}
	u, err := url.Parse(b.cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("-database-url: %w", err)
	}
	if q := u.Query(); !q.Has("pool_max_conns") {
		q.Set("pool_max_conns", "16")
		u.RawQuery = q.Encode()
	}
	return postgres.Open(ctx, u.String())
}

// migrations are the store's own.
func (b *backend) migrations() ([]migration.Migration, error) {
	if b.cfg.DB == "sqlite" {
		return sqlite.Migrations()
	}
	return postgres.Migrations()
}

func (b *backend) close() error {
	var errs []error
	if b.store != nil {
		errs = append(errs, b.store.Close())
	}
	if b.raw != nil {
		errs = append(errs, b.raw.Close())
	}
	return errors.Join(errs...)
}

// Counts are the rows a fill makes.
type Counts struct {
	Accounts, Files, Pages, Revisions int
	Blobs                             int // files whose blob is stored
}

// counts counts the rows in SQL, and the blobs that files name among
// those stored.
func (b *backend) counts(ctx context.Context) (Counts, error) {
	var c Counts
	for _, q := range []struct {
		n     *int
		query string
	}{
		{&c.Accounts, `SELECT count(*) FROM accounts`},
		{&c.Files, `SELECT count(*) FROM files`},
		{&c.Pages, `SELECT count(*) FROM pages`},
		{&c.Revisions, `SELECT count(*) FROM page_revisions`},
	} {
		if err := b.raw.QueryRowContext(ctx, q.query).Scan(q.n); err != nil {
			return c, fmt.Errorf("%s: %w", q.query, err)
		}
	}
	err := b.blobs.Walk(ctx, func(info fileframe.BlobInfo) error {
		used, err := b.store.BlobInUse(ctx, info.Key)
		if used {
			c.Blobs++
		}
		return err
	})
	return c, err
}

// filled reads what an earlier run filled: the slugs and the files with
// pages.
func (b *backend) filled(ctx context.Context) (filled, error) {
	var f filled
	var err error
	if f.slugs, err = column[string](ctx, b.raw, `SELECT slug FROM files`); err != nil {
		return f, err
	}
	f.pageFiles, err = column[fileframe.FileID](ctx, b.raw, `SELECT file_id FROM pages`)
	return f, err
}

// column returns the values of the query's one column.
func column[T any](ctx context.Context, db *sql.DB, query string) ([]T, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var vs []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, rows.Err()
}

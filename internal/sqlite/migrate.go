package sqlite

import (
	"context"
	"embed"
	"fmt"

	"github.com/fileframe/fileframe/internal/migration"
)

// migrationFiles holds the schema changes, migrations/NNN-name.sql, numbered
// from 1 without gaps. A migration, once released, is never edited: a change
// is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the embedded migrations in order: what Open applies.
// Tools read it too (internal/tools/scalecost times the newest one on a
// filled database).
func Migrations() ([]migration.Migration, error) {
	ms, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return ms, nil
}

// migrate applies the pending migrations, each in its own write transaction
// that also records it in schema_migrations, and refuses a database whose
// schema is newer than the newest embedded migration. Several processes may
// start at once: each transaction holds the write lock and checks the
// version again, so every migration is applied exactly once.
//
// Foreign keys are on for every connection, and PRAGMA foreign_keys cannot
// change inside a transaction; a future migration that rebuilds a table must
// keep its references valid as it goes.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := Migrations()
	if err != nil {
		return err
	}
	latest := len(ms)
	for _, m := range ms {
		err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
			if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
				version    INTEGER PRIMARY KEY,
				applied_at INTEGER NOT NULL -- Unix milliseconds, UTC
			) STRICT`); err != nil {
				return err
			}
			var current int
			if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
				return err
			}
			if current > latest {
				return fmt.Errorf("database schema version %d is newer than this binary (%d); upgrade fileframe", current, latest)
			}
			if current >= m.Version {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, m.Version, now().UnixMilli())
			return err
		})
		if err != nil {
			return fmt.Errorf("sqlite: migrate: %w", err)
		}
	}
	return nil
}

package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/fileframe/fileframe/internal/migration"
	"github.com/jackc/pgx/v5"
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
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return ms, nil
}

// migrationLock is the key of the transaction-level advisory lock that
// serialises migrators: instances of Fileframe starting at once against one
// database. Advisory locks are per database, so this number only has to be
// unlikely to be used by another application on the same database. It is
// the first 8 bytes of SHA-256("fileframe schema_migrations").
const migrationLock int64 = 0x231cfac98a9bd064

// migrate applies the pending migrations, each in its own transaction that
// also records it in schema_migrations, and refuses a database whose schema
// is newer than the newest embedded migration.
//
// Several instances may start at once against a fresh database. Each
// transaction first takes an advisory lock (pg_advisory_xact_lock, released
// at commit or rollback), then reads the version: migrators queue on the
// lock, and the one that gets it after another has committed sees that
// migration recorded and skips it, so every migration is applied exactly
// once and nobody fails on a half-created schema. PostgreSQL's DDL is
// transactional, so a migration that fails leaves nothing behind.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := Migrations()
	if err != nil {
		return err
	}
	latest := len(ms)
	// Waiting for another instance's migration, and running one, may take
	// longer than the store's statement deadline allows.
	long := noDeadline(ctx)
	for _, m := range ms {
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(long, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
				version    integer     PRIMARY KEY,
				applied_at timestamptz NOT NULL
			)`); err != nil {
				return err
			}
			var current int
			if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
				return err
			}
			if current > latest {
				return fmt.Errorf("database schema version %d is newer than this binary (%d); upgrade fileframe", current, latest)
			}
			if current >= m.Version {
				return nil
			}
			// Without arguments, Exec uses the simple query protocol, which
			// runs a file of several statements.
			if _, err := tx.Exec(long, m.SQL); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`, m.Version, now())
			return err
		})
		if err != nil {
			return fmt.Errorf("postgres: migrate: %w", err)
		}
	}
	return nil
}

package postgres

import (
	"context"
	"errors"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
)

// Secret returns the named server secret, creating it with generate on first
// use. The first writer wins: a caller that loses the race to create it (in
// this instance or another) discards its generated value and gets the stored
// one. An empty generated value is EINVALID.
//
// The insert and the read that follows are two statements, each in its own
// snapshot: an INSERT ... ON CONFLICT DO NOTHING that waited for another
// instance's insert of the same name does nothing once that commits, and
// only a statement started after it sees the value it committed.
func (s *Store) Secret(ctx context.Context, name string, generate func() []byte) ([]byte, error) {
	const get = `SELECT value FROM secrets WHERE name = $1`
	var v []byte
	err := s.pool.QueryRow(ctx, get, name).Scan(&v)
	if err == nil {
		return v, nil
	} else if !errors.Is(err, pgx.ErrNoRows) {
		return nil, wrap("secret", err)
	}
	fresh := generate()
	if len(fresh) == 0 {
		return nil, fileframe.Errorf(fileframe.EINVALID, "A secret cannot be empty.")
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, fresh); err != nil {
		return nil, wrap("secret", err)
	}
	if err := s.pool.QueryRow(ctx, get, name).Scan(&v); err != nil {
		return nil, wrap("secret", err)
	}
	return v, nil
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Secret returns the named server secret, creating it with generate on first
// use. The first writer wins: a caller that loses the race to create it
// (in this process or another) discards its generated value and gets the
// stored one. An empty generated value is EINVALID.
func (s *Store) Secret(ctx context.Context, name string, generate func() []byte) ([]byte, error) {
	var v []byte
	err := s.read.QueryRowContext(ctx, `SELECT value FROM secrets WHERE name = ?`, name).Scan(&v)
	if err == nil {
		return v, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("secret", err)
	}
	fresh := generate()
	if len(fresh) == 0 {
		return nil, fileframe.Errorf(fileframe.EINVALID, "A secret cannot be empty.")
	}
	err = s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, name, fresh); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM secrets WHERE name = ?`, name).Scan(&v)
	})
	if err != nil {
		return nil, wrap("secret", err)
	}
	return v, nil
}

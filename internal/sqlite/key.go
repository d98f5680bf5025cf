package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// CreateKey stores a new API key (its hash, never the secret), setting ID
// and CreatedAt when empty. The account must exist, and a page-bound key's
// file must belong to it (else ENOTFOUND). An unknown kind, a page-bound key
// without a file, a general key with one, or an empty hash is EINVALID; a
// taken hash is ECONFLICT.
func (s *Store) CreateKey(ctx context.Context, k fileframe.Key) (fileframe.Key, error) {
	if err := k.Check(); err != nil {
		return fileframe.Key{}, err
	}
	if k.ID == "" {
		k.ID = fileframe.NewKeyID()
	}
	if k.CreatedAt.IsZero() {
		k.CreatedAt = now()
	}
	k.CreatedAt = stored(k.CreatedAt)
	k.LastUsedAt = stored(k.LastUsedAt)
	k.ExpiresAt = stored(k.ExpiresAt)
	k.RevokedAt = stored(k.RevokedAt)
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := accountExists(ctx, tx, k.AccountID); err != nil {
			return err
		}
		var fileID any // NULL for a general key
		if k.Kind == fileframe.KeyPage {
			var ok bool
			err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM files WHERE id = ? AND account_id = ?)`, k.FileID, k.AccountID).Scan(&ok)
			if err != nil {
				return err
			}
			if !ok {
				return notFound("File")
			}
			fileID = k.FileID
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO api_keys (id, account_id, kind, file_id, name, prefix, hash, created_at, last_used_at, expires_at, revoked_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			k.ID, k.AccountID, k.Kind, fileID, k.Name, k.Prefix, k.Hash,
			millis(k.CreatedAt), millis(k.LastUsedAt), millis(k.ExpiresAt), millis(k.RevokedAt))
		if isUnique(err) {
			return fileframe.Errorf(fileframe.ECONFLICT, "This key already exists.")
		}
		return err
	})
	if err != nil {
		return fileframe.Key{}, wrap("create key", err)
	}
	return k, nil
}

const keyColumns = `id, account_id, kind, coalesce(file_id, ''), name, prefix, hash, created_at, last_used_at, expires_at, revoked_at`

// scanKey reads one row of keyColumns from scan (a Row's or Rows' Scan).
func scanKey(scan func(...any) error) (fileframe.Key, error) {
	var k fileframe.Key
	var created, used, expires, revoked sql.NullInt64
	err := scan(&k.ID, &k.AccountID, &k.Kind, &k.FileID, &k.Name, &k.Prefix, &k.Hash, &created, &used, &expires, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Key{}, notFound("API key")
	} else if err != nil {
		return fileframe.Key{}, err
	}
	k.CreatedAt = fromMillis(created)
	k.LastUsedAt = fromMillis(used)
	k.ExpiresAt = fromMillis(expires)
	k.RevokedAt = fromMillis(revoked)
	return k, nil
}

// KeyByHash returns the key whose secret hashes to hash, revoked and expired
// keys included.
func (s *Store) KeyByHash(ctx context.Context, hash string) (fileframe.Key, error) {
	k, err := scanKey(s.keyByHash.QueryRowContext(ctx, hash).Scan)
	return k, wrap("key by hash", err)
}

// KeysByAccount lists an account's keys, newest first, revoked included. It
// is ENOTFOUND for an account that does not exist, and an empty list for one
// without keys.
func (s *Store) KeysByAccount(ctx context.Context, id fileframe.AccountID) ([]fileframe.Key, error) {
	keys := []fileframe.Key{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := accountExists(ctx, tx, id); err != nil {
			return err
		}
		// rowid breaks ties between keys made in the same millisecond: the
		// one inserted later is newer.
		rows, err := tx.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys
			WHERE account_id = ? ORDER BY created_at DESC, rowid DESC`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			k, err := scanKey(rows.Scan)
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap("keys by account", err)
	}
	return keys, nil
}

// RevokeKey revokes one of the account's keys at the given time (now when
// zero). A key of another account is ENOTFOUND; revoking twice keeps the
// first time.
func (s *Store) RevokeKey(ctx context.Context, account fileframe.AccountID, id fileframe.KeyID, at time.Time) error {
	if at.IsZero() {
		at = now()
	}
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?)
			WHERE id = ? AND account_id = ?`, millis(at), id, account)
		if err != nil {
			return err
		}
		return mustAffect(res, "API key")
	})
	return wrap("revoke key", err)
}

// TouchKey records that the key was used at the given time (now when zero).
func (s *Store) TouchKey(ctx context.Context, id fileframe.KeyID, at time.Time) error {
	if at.IsZero() {
		at = now()
	}
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ?`, millis(at), id)
		if err != nil {
			return err
		}
		return mustAffect(res, "API key")
	})
	return wrap("touch key", err)
}

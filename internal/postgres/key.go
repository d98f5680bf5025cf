package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
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
	if !storable(string(k.AccountID)) {
		return fileframe.Key{}, notFound("Account")
	}
	if !storable(string(k.FileID)) {
		return fileframe.Key{}, notFound("File")
	}
	var fileID any // NULL for a general key
	if k.Kind == fileframe.KeyPage {
		fileID = k.FileID
	}
	// The account and the file must exist and the file must be the
	// account's: checked first, as internal/sqlite does, so that both stores
	// report the same missing thing. The foreign keys still guard the insert
	// (see wrap), so no transaction is needed around the two statements.
	var account, file bool
	err := s.pool.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1),
		       EXISTS (SELECT 1 FROM files WHERE id = $2 AND account_id = $1)`,
		k.AccountID, k.FileID).Scan(&account, &file)
	switch {
	case err != nil:
	case !account:
		err = notFound("Account")
	case k.Kind == fileframe.KeyPage && !file:
		err = notFound("File")
	default:
		_, err = s.pool.Exec(ctx, `
			INSERT INTO api_keys (id, account_id, kind, file_id, name, prefix, hash, created_at, last_used_at, expires_at, revoked_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			k.ID, k.AccountID, k.Kind, fileID, k.Name, k.Prefix, k.Hash,
			ts(k.CreatedAt), ts(k.LastUsedAt), ts(k.ExpiresAt), ts(k.RevokedAt))
	}
	if err != nil {
		return fileframe.Key{}, wrap("create key", err)
	}
	return k, nil
}

const keyColumns = `id, account_id, kind, coalesce(file_id, ''), name, prefix, hash, created_at, last_used_at, expires_at, revoked_at`

// scanKey reads one row of keyColumns from scan (a Row's or Rows' Scan).
func scanKey(scan func(...any) error) (fileframe.Key, error) {
	var k fileframe.Key
	var created, used, expires, revoked pgtype.Timestamptz
	err := scan(&k.ID, &k.AccountID, &k.Kind, &k.FileID, &k.Name, &k.Prefix, &k.Hash, &created, &used, &expires, &revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Key{}, notFound("API key")
	} else if err != nil {
		return fileframe.Key{}, err
	}
	k.CreatedAt = fromTS(created)
	k.LastUsedAt = fromTS(used)
	k.ExpiresAt = fromTS(expires)
	k.RevokedAt = fromTS(revoked)
	return k, nil
}

// KeyByHash returns the key whose secret hashes to hash, revoked and expired
// keys included.
func (s *Store) KeyByHash(ctx context.Context, hash string) (fileframe.Key, error) {
	if !storable(hash) {
		return fileframe.Key{}, notFound("API key")
	}
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, hash).Scan)
	return k, wrap("key by hash", err)
}

// KeysByAccount lists an account's keys, newest first, revoked included. It
// is ENOTFOUND for an account that does not exist, and an empty list for one
// without keys.
func (s *Store) KeysByAccount(ctx context.Context, id fileframe.AccountID) ([]fileframe.Key, error) {
	if !storable(string(id)) {
		return nil, notFound("Account")
	}
	var keys []fileframe.Key
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		keys = []fileframe.Key{}
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1)`, id).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return notFound("Account")
		}
		// seq breaks ties between keys made in the same millisecond: the
		// one inserted later is newer.
		rows, err := tx.Query(ctx, `SELECT `+keyColumns+` FROM api_keys
			WHERE account_id = $1 ORDER BY created_at DESC, seq DESC`, id)
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
	if !storable(string(account), string(id)) {
		return notFound("API key")
	}
	if at.IsZero() {
		at = now()
	}
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1)
		WHERE id = $2 AND account_id = $3`, ts(at), id, account)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("API key")
	}
	return wrap("revoke key", err)
}

// TouchKey records that the key was used at the given time (now when zero).
func (s *Store) TouchKey(ctx context.Context, id fileframe.KeyID, at time.Time) error {
	if !storable(string(id)) {
		return notFound("API key")
	}
	if at.IsZero() {
		at = now()
	}
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET last_used_at = $1 WHERE id = $2`, ts(at), id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("API key")
	}
	return wrap("touch key", err)
}

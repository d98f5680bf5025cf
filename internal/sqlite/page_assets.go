package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// setRevisionAssets replaces what revision number of the file's page keeps
// of its remote resources, and the HTML it is served as (nil: as posted),
// in tx.
func setRevisionAssets(ctx context.Context, tx querier, id fileframe.FileID, number int, served []byte, assets []fileframe.PageAsset) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM page_assets WHERE file_id = ? AND number = ?`, id, number); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM page_served WHERE file_id = ? AND number = ?`, id, number); err != nil {
		return err
	}
	if len(assets) > 0 {
		stmt, err := tx.PrepareContext(ctx, `
			INSERT INTO page_assets (file_id, number, position, url, kind, sha256, type, ext, size, problem, fetched_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, a := range assets {
			if _, err := stmt.ExecContext(ctx, id, number, i, a.URL, a.Kind, a.SHA256, a.Type, a.Ext, a.Size, a.Problem,
				stored(a.FetchedAt).UnixMilli()); err != nil {
				return err
			}
		}
	}
	if served != nil {
		sum := sha256.Sum256(served)
		if _, err := tx.ExecContext(ctx, `INSERT INTO page_served (file_id, number, sha256, html) VALUES (?, ?, ?, ?)`,
			id, number, hex.EncodeToString(sum[:]), served); err != nil {
			return err
		}
	}
	return nil
}

// revisionKept returns ENOTFOUND unless revision number of the file's
// page is kept.
func revisionKept(ctx context.Context, tx querier, id fileframe.FileID, number int) error {
	var ok bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM page_revisions WHERE file_id = ? AND number = ?)`,
		id, number).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return notFound("Revision")
	}
	return nil
}

// SetRevisionAssets replaces what a kept revision keeps of its remote
// resources and the HTML it is served as, in one write transaction.
func (s *Store) SetRevisionAssets(ctx context.Context, id fileframe.FileID, number int, served []byte, assets []fileframe.PageAsset, limit int64) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := revisionKept(ctx, tx, id, number); err != nil {
			return err
		}
		return withinStorage(ctx, tx, id, limit, assets, func() error {
			return setRevisionAssets(ctx, tx, id, number, served, assets)
		})
	})
	return wrap("set revision assets", err)
}

// withinStorage runs write, which changes what file id's page keeps, and
// refuses it (CodeQuotaExceeded) when it brings the account's usage up
// and over limit (0: no limit). Writes are serialised, so the usage read
// before is the one write changes. A write that keeps none of assets
// cannot bring the usage up and runs unchecked.
func withinStorage(ctx context.Context, tx querier, id fileframe.FileID, limit int64, assets []fileframe.PageAsset, write func() error) error {
	if limit <= 0 || !fileframe.AnyKept(assets) {
		return write()
	}
	var acct fileframe.AccountID
	if err := tx.QueryRowContext(ctx, `SELECT account_id FROM files WHERE id = ?`, id).Scan(&acct); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("File")
		}
		return err
	}
	before, err := accountUsage(ctx, tx, acct, "", now())
	if err != nil {
		return err
	}
	if err := write(); err != nil {
		return err
	}
	after, err := accountUsage(ctx, tx, acct, "", now())
	if err != nil {
		return err
	}
	if after.Bytes > before.Bytes && after.Bytes > limit {
		return quotaExceeded(after.Bytes-before.Bytes, before.Bytes, limit)
	}
	return nil
}

// quotaExceeded is the error of kept page resources (more bytes) that do
// not fit in the account's storage quota.
func quotaExceeded(more, used, limit int64) error {
	return fileframe.Errorf(fileframe.CodeQuotaExceeded,
		"The page's images, fonts and media would keep %d more bytes, and the account holds %d of its %d bytes of storage. Name fewer or smaller remote resources (each kept copy counts once), or delete files.",
		more, used, limit)
}

// RevisionAssets lists the remote resources of a kept revision in the
// order the page names them.
func (s *Store) RevisionAssets(ctx context.Context, id fileframe.FileID, number int) ([]fileframe.PageAsset, error) {
	var assets []fileframe.PageAsset
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := revisionKept(ctx, tx, id, number); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `
			SELECT url, kind, sha256, type, ext, size, problem, fetched_at
			FROM page_assets WHERE file_id = ? AND number = ? ORDER BY position`, id, number)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a fileframe.PageAsset
			var fetched sql.NullInt64
			if err := rows.Scan(&a.URL, &a.Kind, &a.SHA256, &a.Type, &a.Ext, &a.Size, &a.Problem, &fetched); err != nil {
				return err
			}
			a.FetchedAt = fromMillis(fetched)
			assets = append(assets, a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap("revision assets", err)
	}
	return assets, nil
}

// Asset returns a kept resource by the SHA-256 of its bytes.
func (s *Store) Asset(ctx context.Context, sum string) (fileframe.PageAsset, error) {
	if sum == "" {
		return fileframe.PageAsset{}, notFound("Asset")
	}
	var a fileframe.PageAsset
	var fetched sql.NullInt64
	err := s.read.QueryRowContext(ctx, `
		SELECT url, kind, sha256, type, ext, size, problem, fetched_at
		FROM page_assets WHERE sha256 = ? LIMIT 1`, sum).
		Scan(&a.URL, &a.Kind, &a.SHA256, &a.Type, &a.Ext, &a.Size, &a.Problem, &fetched)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.PageAsset{}, notFound("Asset")
	} else if err != nil {
		return fileframe.PageAsset{}, wrap("asset", err)
	}
	a.FetchedAt = fromMillis(fetched)
	return a, nil
}

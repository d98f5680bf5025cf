package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// setRevisionAssets replaces what revision number of the file's page keeps
// of its remote resources, and the HTML it is served as (nil: as posted),
// in tx.
func setRevisionAssets(ctx context.Context, tx pgx.Tx, id fileframe.FileID, number int, served []byte, assets []fileframe.PageAsset) error {
	if _, err := tx.Exec(ctx, `DELETE FROM page_assets WHERE file_id = $1 AND number = $2`, id, number); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM page_served WHERE file_id = $1 AND number = $2`, id, number); err != nil {
		return err
	}
	if len(assets) > 0 {
		rows := make([][]any, len(assets))
		for i, a := range assets {
			rows[i] = []any{id, number, i, a.URL, a.Kind, a.SHA256, a.Type, a.Ext, a.Size, a.Problem, stored(a.FetchedAt)}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"page_assets"},
			[]string{"file_id", "number", "position", "url", "kind", "sha256", "type", "ext", "size", "problem", "fetched_at"},
			pgx.CopyFromRows(rows)); err != nil {
			return err
		}
	}
	if served != nil {
		sum := sha256.Sum256(served)
		if _, err := tx.Exec(ctx, `INSERT INTO page_served (file_id, number, sha256, html) VALUES ($1, $2, $3, $4)`,
			id, number, hex.EncodeToString(sum[:]), served); err != nil {
			return err
		}
	}
	return nil
}

// revisionKept returns ENOTFOUND unless revision number of the file's
// page is kept.
func revisionKept(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, id fileframe.FileID, number int) error {
	var ok bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM page_revisions WHERE file_id = $1 AND number = $2)`,
		id, number).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return notFound("Revision")
	}
	return nil
}

// SetRevisionAssets replaces what a kept revision keeps of its remote
// resources and the HTML it is served as, in one transaction that holds
// the page's row, as SavePage does.
func (s *Store) SetRevisionAssets(ctx context.Context, id fileframe.FileID, number int, served []byte, assets []fileframe.PageAsset, limit int64) error {
	if !storable(string(id)) || number <= 0 || number > math.MaxInt32 {
		return notFound("Revision")
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM pages WHERE file_id = $1 FOR UPDATE`, id); err != nil {
			return err
		}
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
// and over limit (0: no limit). The account's usage row is locked first
// (lockUsage), as uploads lock it, so concurrent writes of one account
// are checked one after another. A write that keeps none of assets cannot
// bring the usage up and runs unchecked.
func withinStorage(ctx context.Context, tx pgx.Tx, id fileframe.FileID, limit int64, assets []fileframe.PageAsset, write func() error) error {
	if limit <= 0 || !fileframe.AnyKept(assets) {
		return write()
	}
	var acct fileframe.AccountID
	if err := tx.QueryRow(ctx, `SELECT account_id FROM files WHERE id = $1`, id).Scan(&acct); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("File")
		}
		return err
	}
	before, err := lockUsage(ctx, tx, acct, "", now())
	if err != nil {
		return err
	}
	if err := write(); err != nil {
		return err
	}
	after, err := lockUsage(ctx, tx, acct, "", now())
	if err != nil {
		return err
	}
	if after.Bytes > before.Bytes && after.Bytes > limit {
		return fileframe.Errorf(fileframe.CodeQuotaExceeded,
			"The page's images, fonts and media would keep %d more bytes, and the account holds %d of its %d bytes of storage. Name fewer or smaller remote resources (each kept copy counts once), or delete files.",
			after.Bytes-before.Bytes, before.Bytes, limit)
	}
	return nil
}

// RevisionAssets lists the remote resources of a kept revision in the
// order the page names them.
func (s *Store) RevisionAssets(ctx context.Context, id fileframe.FileID, number int) ([]fileframe.PageAsset, error) {
	if !storable(string(id)) || number <= 0 || number > math.MaxInt32 {
		return nil, notFound("Revision")
	}
	var assets []fileframe.PageAsset
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := revisionKept(ctx, tx, id, number); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `
			SELECT url, kind, sha256, type, ext, size, problem, fetched_at
			FROM page_assets WHERE file_id = $1 AND number = $2 ORDER BY position`, id, number)
		if err != nil {
			return err
		}
		assets, err = pgx.CollectRows(rows, scanAsset)
		return err
	})
	if err != nil {
		return nil, wrap("revision assets", err)
	}
	return assets, nil
}

// scanAsset scans a row of page_assets' columns as RevisionAssets selects
// them.
func scanAsset(row pgx.CollectableRow) (fileframe.PageAsset, error) {
	var a fileframe.PageAsset
	var fetched pgtype.Timestamptz
	err := row.Scan(&a.URL, &a.Kind, &a.SHA256, &a.Type, &a.Ext, &a.Size, &a.Problem, &fetched)
	a.FetchedAt = fromTS(fetched)
	return a, err
}

// Asset returns a kept resource by the SHA-256 of its bytes.
func (s *Store) Asset(ctx context.Context, sum string) (fileframe.PageAsset, error) {
	if sum == "" || !storable(sum) {
		return fileframe.PageAsset{}, notFound("Asset")
	}
	rows, err := s.pool.Query(ctx, `
		SELECT url, kind, sha256, type, ext, size, problem, fetched_at
		FROM page_assets WHERE sha256 = $1 LIMIT 1`, sum)
	if err != nil {
		return fileframe.PageAsset{}, wrap("asset", err)
	}
	a, err := pgx.CollectExactlyOneRow(rows, scanAsset)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.PageAsset{}, notFound("Asset")
	} else if err != nil {
		return fileframe.PageAsset{}, wrap("asset", err)
	}
	return a, nil
}

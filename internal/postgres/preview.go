package postgres

import (
	"context"
	"errors"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

const previewColumns = `blob_key, kind, thumb_key, width, height, created_at`

// Preview returns the preview of the blob key.
func (s *Store) Preview(ctx context.Context, blobKey string) (fileframe.Preview, error) {
	if !storable(blobKey) {
		return fileframe.Preview{}, notFound("Preview")
	}
	rows, err := s.pool.Query(ctx, `SELECT `+previewColumns+` FROM previews WHERE blob_key = $1`, blobKey)
	if err != nil {
		return fileframe.Preview{}, wrap("preview", err)
	}
	return onePreview(rows, "preview")
}

// PutPreview stores p unless its blob has a preview, and returns the one
// stored; ENOTFOUND when no file uses the blob. One statement: the insert
// when no row is there, else the row that won.
func (s *Store) PutPreview(ctx context.Context, p fileframe.Preview) (fileframe.Preview, error) {
	if err := fileframe.CheckPreview(p); err != nil {
		return fileframe.Preview{}, err
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = now()
	}
	p.CreatedAt = stored(p.CreatedAt)
	rows, err := s.pool.Query(ctx, `
		WITH ins AS (
			INSERT INTO previews (`+previewColumns+`)
			SELECT $1, $2, $3, $4, $5, $6
			WHERE EXISTS (SELECT 1 FROM files WHERE blob_key = $1)
			ON CONFLICT (blob_key) DO NOTHING
			RETURNING `+previewColumns+`)
		SELECT `+previewColumns+` FROM ins
		UNION ALL
		SELECT `+previewColumns+` FROM previews WHERE blob_key = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
		p.BlobKey, p.Kind, p.ThumbKey, p.Width, p.Height, ts(p.CreatedAt))
	if err != nil {
		return fileframe.Preview{}, wrap("put preview", err)
	}
	got, err := onePreview(rows, "put preview")
	if fileframe.IsNotFound(err) {
		// Nothing inserted and nothing seen: no file uses the blob, or
		// another transaction inserted its row after this statement's
		// snapshot was taken (ON CONFLICT waited for it); a fresh read
		// tells which.
		if got, err = s.Preview(ctx, p.BlobKey); fileframe.IsNotFound(err) {
			return fileframe.Preview{}, notFound("File with these bytes")
		}
	}
	return got, err
}

// DeletePreview removes the blob's preview and returns it.
func (s *Store) DeletePreview(ctx context.Context, blobKey string) (fileframe.Preview, error) {
	if !storable(blobKey) {
		return fileframe.Preview{}, notFound("Preview")
	}
	rows, err := s.pool.Query(ctx, `DELETE FROM previews WHERE blob_key = $1 RETURNING `+previewColumns, blobKey)
	if err != nil {
		return fileframe.Preview{}, wrap("delete preview", err)
	}
	return onePreview(rows, "delete preview")
}

func onePreview(rows pgx.Rows, op string) (fileframe.Preview, error) {
	p, err := pgx.CollectExactlyOneRow(rows, func(row pgx.CollectableRow) (fileframe.Preview, error) {
		var p fileframe.Preview
		var at pgtype.Timestamptz
		err := row.Scan(&p.BlobKey, &p.Kind, &p.ThumbKey, &p.Width, &p.Height, &at)
		p.CreatedAt = fromTS(at)
		return p, err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Preview{}, notFound("Preview")
	}
	return p, wrap(op, err)
}

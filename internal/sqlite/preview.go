package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Preview returns the preview of the blob key.
func (s *Store) Preview(ctx context.Context, blobKey string) (fileframe.Preview, error) {
	p, err := scanPreview(s.read.QueryRowContext(ctx, `
		SELECT blob_key, kind, thumb_key, width, height, created_at FROM previews WHERE blob_key = ?`, blobKey))
	return p, wrap("preview", err)
}

// PutPreview stores p unless its blob has a preview, and returns the one
// stored; ENOTFOUND when no file uses the blob.
func (s *Store) PutPreview(ctx context.Context, p fileframe.Preview) (fileframe.Preview, error) {
	if err := fileframe.CheckPreview(p); err != nil {
		return fileframe.Preview{}, err
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = time.Now()
	}
	p.CreatedAt = time.UnixMilli(p.CreatedAt.UnixMilli()).UTC()
	var got fileframe.Preview
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `
			INSERT INTO previews (blob_key, kind, thumb_key, width, height, created_at)
			SELECT ?1, ?2, ?3, ?4, ?5, ?6
			WHERE EXISTS (SELECT 1 FROM files WHERE blob_key = ?1)
			ON CONFLICT (blob_key) DO NOTHING`,
			p.BlobKey, p.Kind, p.ThumbKey, p.Width, p.Height, millis(p.CreatedAt))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 1 {
			got = p
			return nil
		}
		got, err = scanPreview(tx.QueryRowContext(ctx, `
			SELECT blob_key, kind, thumb_key, width, height, created_at FROM previews WHERE blob_key = ?`, p.BlobKey))
		if fileframe.IsNotFound(err) {
			return notFound("File with these bytes")
		}
		return err
	})
	return got, wrap("put preview", err)
}

// DeletePreview removes the blob's preview and returns it.
func (s *Store) DeletePreview(ctx context.Context, blobKey string) (fileframe.Preview, error) {
	var p fileframe.Preview
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		var err error
		p, err = scanPreview(tx.QueryRowContext(ctx, `
			DELETE FROM previews WHERE blob_key = ?
			RETURNING blob_key, kind, thumb_key, width, height, created_at`, blobKey))
		return err
	})
	return p, wrap("delete preview", err)
}

func scanPreview(row *sql.Row) (fileframe.Preview, error) {
	var p fileframe.Preview
	var at sql.NullInt64
	err := row.Scan(&p.BlobKey, &p.Kind, &p.ThumbKey, &p.Width, &p.Height, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Preview{}, notFound("Preview")
	} else if err != nil {
		return fileframe.Preview{}, err
	}
	p.CreatedAt = fromMillis(at)
	return p, nil
}

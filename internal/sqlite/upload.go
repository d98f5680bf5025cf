package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// RecordUpload remembers that the resumable upload uploadID became file id.
func (s *Store) RecordUpload(ctx context.Context, uploadID string, id fileframe.FileID, at time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := fileExists(ctx, tx, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO finished_uploads (upload_id, file_id, finished_at) VALUES (?, ?, ?)`,
			uploadID, id, millis(stored(at)))
		if isUnique(err) {
			return fileframe.Errorf(fileframe.ECONFLICT, "This upload is already recorded.")
		}
		return err
	})
	return wrap("record upload", err)
}

// UploadFile returns the file that the resumable upload uploadID became.
func (s *Store) UploadFile(ctx context.Context, uploadID string) (fileframe.FileID, error) {
	var id fileframe.FileID
	err := s.read.QueryRowContext(ctx, `SELECT file_id FROM finished_uploads WHERE upload_id = ?`, uploadID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notFound("Upload")
	}
	return id, wrap("upload file", err)
}

// DeleteUploadRecords forgets the uploads recorded before t.
func (s *Store) DeleteUploadRecords(ctx context.Context, t time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM finished_uploads WHERE finished_at < ?`, t.UnixMilli())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, wrap("delete upload records", err)
	}
	return int(n), nil
}

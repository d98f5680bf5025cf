package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
)

// RecordUpload remembers that the resumable upload uploadID became file id.
func (s *Store) RecordUpload(ctx context.Context, uploadID string, id fileframe.FileID, at time.Time) error {
	if !storable(uploadID, string(id)) {
		return notFound("File")
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO finished_uploads (upload_id, file_id, finished_at) VALUES ($1, $2, $3)`,
		uploadID, id, ts(stored(at)))
	if pe := pgError(err); pe != nil && pe.Code == uniqueViolation && pe.ConstraintName == "finished_uploads_pkey" {
		return fileframe.Errorf(fileframe.ECONFLICT, "This upload is already recorded.")
	}
	return wrap("record upload", err)
}

// UploadFile returns the file that the resumable upload uploadID became.
func (s *Store) UploadFile(ctx context.Context, uploadID string) (fileframe.FileID, error) {
	if !storable(uploadID) {
		return "", notFound("Upload")
	}
	var id fileframe.FileID
	err := s.pool.QueryRow(ctx, `SELECT file_id FROM finished_uploads WHERE upload_id = $1`, uploadID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", notFound("Upload")
	}
	return id, wrap("upload file", err)
}

// DeleteUploadRecords forgets the uploads recorded before t.
func (s *Store) DeleteUploadRecords(ctx context.Context, t time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM finished_uploads WHERE finished_at < $1`, ts(t))
	if err != nil {
		return 0, wrap("delete upload records", err)
	}
	return int(tag.RowsAffected()), nil
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// CreateFile stores a new file record, setting ID, Slug and CreatedAt when
// empty. Its account must exist (else ENOTFOUND); a taken slug is ECONFLICT.
func (s *Store) CreateFile(ctx context.Context, f fileframe.File) (fileframe.File, error) {
	f = newFile(f)
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := accountExists(ctx, tx, f.AccountID); err != nil {
			return err
		}
		return insertFile(ctx, tx, f)
	})
	if err != nil {
		return fileframe.File{}, wrap("create file", err)
	}
	return f, nil
}

// CreateFileReserved stores f in place of the reservation, within limit.
// The writer runs one transaction at a time, so the sum it checks cannot
// change before the insert.
func (s *Store) CreateFileReserved(ctx context.Context, f fileframe.File, reservation string, limit int64, at time.Time) (fileframe.File, error) {
	f = newFile(f)
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := accountExists(ctx, tx, f.AccountID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM upload_reservations WHERE id = ?`, reservation); err != nil {
			return err
		}
		if err := fits(ctx, tx, f.AccountID, "", f.Size, limit, at); err != nil {
			return err
		}
		return insertFile(ctx, tx, f)
	})
	if err != nil {
		return fileframe.File{}, wrap("create file", err)
	}
	return f, nil
}

// newFile fills the fields of a new file that CreateFile sets when empty.
func newFile(f fileframe.File) fileframe.File {
	if f.ID == "" {
		f.ID = fileframe.NewFileID()
	}
	if f.Slug == "" {
		f.Slug = fileframe.NewSlug()
	}
	if f.CreatedAt.IsZero() {
		f.CreatedAt = now()
	}
	f.CreatedAt = stored(f.CreatedAt)
	return f
}

// insertFile inserts the row of a new file.
func insertFile(ctx context.Context, tx querier, f fileframe.File) error {
	_, err := tx.ExecContext(ctx, `
		INSERT INTO files (id, account_id, name, size, content_type, blob_key, slug, downloads, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.ID, f.AccountID, f.Name, f.Size, f.ContentType, f.BlobKey, f.Slug, f.Downloads, millis(f.CreatedAt))
	if isUnique(err) {
		if strings.Contains(err.Error(), "files.slug") {
			return fileframe.Errorf(fileframe.ECONFLICT, "This link is already taken.")
		}
		return fileframe.Errorf(fileframe.ECONFLICT, "A file with this ID already exists.")
	}
	return err
}

// accountExists returns ENOTFOUND unless the account exists.
func accountExists(ctx context.Context, tx querier, id fileframe.AccountID) error {
	var ok bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = ?)`, id).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return notFound("Account")
	}
	return nil
}

const fileColumns = `id, account_id, name, size, content_type, blob_key, slug, downloads, created_at`

func scanFile(row *sql.Row) (fileframe.File, error) {
	var f fileframe.File
	var created sql.NullInt64
	err := row.Scan(&f.ID, &f.AccountID, &f.Name, &f.Size, &f.ContentType, &f.BlobKey, &f.Slug, &f.Downloads, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.File{}, notFound("File")
	} else if err != nil {
		return fileframe.File{}, err
	}
	f.CreatedAt = fromMillis(created)
	return f, nil
}

// FileByID returns the file with that ID.
func (s *Store) FileByID(ctx context.Context, id fileframe.FileID) (fileframe.File, error) {
	f, err := scanFile(s.fileByID.QueryRowContext(ctx, id))
	return f, wrap("file by id", err)
}

// FileBySlug returns the file whose public link is /f/<slug>.
func (s *Store) FileBySlug(ctx context.Context, slug string) (fileframe.File, error) {
	f, err := scanFile(s.fileBySlug.QueryRowContext(ctx, slug))
	return f, wrap("file by slug", err)
}

// AddDownloads adds each count to its file's download counter in one
// transaction, skipping files that no longer exist.
func (s *Store) AddDownloads(ctx context.Context, counts map[fileframe.FileID]int64) error {
	if len(counts) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		stmt, err := tx.PrepareContext(ctx, `UPDATE files SET downloads = downloads + ? WHERE id = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for id, n := range counts {
			if n == 0 {
				continue
			}
			if _, err := stmt.ExecContext(ctx, n, id); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("add downloads", err)
}

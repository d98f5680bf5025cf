package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// FilesByAccount lists the account's files, newest first (files made in the
// same millisecond latest first), with the state of each one's page. It is
// ENOTFOUND for an account that does not exist, and an empty list for one
// without files.
func (s *Store) FilesByAccount(ctx context.Context, id fileframe.AccountID) ([]fileframe.FileListing, error) {
	list := []fileframe.FileListing{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := accountExists(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `
			SELECT f.id, f.account_id, f.name, f.size, f.content_type, f.blob_key, f.slug, f.downloads, f.created_at,
			       coalesce(p.latest_revision, 0), coalesce(p.live_revision, 0),
			       coalesce(a.template, ''), coalesce(a.headline, ''), coalesce(a.message, ''),
			       coalesce(a.accent, ''), coalesce(a.logo_key, ''), coalesce(a.background, '')
			FROM files f LEFT JOIN pages p ON p.file_id = f.id
			LEFT JOIN file_appearances a ON a.file_id = f.id
			WHERE f.account_id = ? ORDER BY f.created_at DESC, f.rowid DESC`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l fileframe.FileListing
			var created sql.NullInt64
			if err := rows.Scan(&l.ID, &l.AccountID, &l.Name, &l.Size, &l.ContentType, &l.BlobKey, &l.Slug, &l.Downloads, &created,
				&l.LatestRevision, &l.LiveRevision,
				&l.Appearance.Template, &l.Appearance.Headline, &l.Appearance.Message,
				&l.Appearance.Accent, &l.Appearance.LogoKey, &l.Appearance.Background); err != nil {
				return err
			}
			l.CreatedAt = fromMillis(created)
			list = append(list, l)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap("files by account", err)
	}
	return list, nil
}

// RenameFile changes the name visitors download the file under. A name
// CheckFileName refuses is EINVALID.
func (s *Store) RenameFile(ctx context.Context, id fileframe.FileID, name string) error {
	if err := fileframe.CheckFileName(name); err != nil {
		return err
	}
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE files SET name = ? WHERE id = ?`, name, id)
		if err != nil {
			return err
		}
		return mustAffect(res, "File")
	})
	return wrap("rename file", err)
}

// DeleteFile removes the file in one transaction: its page-bound keys
// (api_keys.file_id does not cascade, so that a key is never deleted by
// accident), then the file, whose page, revisions and appearance go with it
// by ON DELETE CASCADE, then the page HTML no other revision refers to. It
// returns the deleted file.
func (s *Store) DeleteFile(ctx context.Context, id fileframe.FileID) (fileframe.File, error) {
	var f fileframe.File
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		var err error
		f, err = scanFile(tx.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ?`, id))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM api_keys WHERE file_id = ?`, id); err != nil {
			return err
		}
		hashes, err := revisionHashes(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE id = ?`, id); err != nil {
			return err
		}
		for _, h := range hashes {
			if _, err := tx.ExecContext(ctx, `
				DELETE FROM page_html
				WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM page_revisions WHERE sha256 = ?)`, h, h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fileframe.File{}, wrap("delete file", err)
	}
	return f, nil
}

// revisionHashes returns the distinct HTML hashes of the file's revisions.
func revisionHashes(ctx context.Context, tx querier, id fileframe.FileID) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT sha256 FROM page_revisions WHERE file_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hashes []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		hashes = append(hashes, h)
	}
	return hashes, rows.Err()
}

// BlobInUse reports whether any file, or any account's or file's appearance
// image, refers to the blob key. The empty key is never in use.
func (s *Store) BlobInUse(ctx context.Context, key string) (bool, error) {
	if key == "" {
		return false, nil
	}
	var used bool
	err := s.read.QueryRowContext(ctx, `
		SELECT EXISTS (SELECT 1 FROM files WHERE blob_key = ?1)
		    OR EXISTS (SELECT 1 FROM account_appearances WHERE logo_key = ?1)
		    OR EXISTS (SELECT 1 FROM account_appearances WHERE background = ?1)
		    OR EXISTS (SELECT 1 FROM file_appearances WHERE logo_key = ?1)
		    OR EXISTS (SELECT 1 FROM file_appearances WHERE background = ?1)`, key).Scan(&used)
	if err != nil {
		return false, wrap("blob in use", err)
	}
	return used, nil
}

// SetFileAppearance sets the file's own appearance; the zero value clears
// it.
func (s *Store) SetFileAppearance(ctx context.Context, id fileframe.FileID, a fileframe.Appearance) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := fileExists(ctx, tx, id); err != nil {
			return err
		}
		return setAppearance(ctx, tx, "file_appearances", "file_id", string(id), a)
	})
	return wrap("set file appearance", err)
}

// FileAppearance returns the file's own appearance, zero when none is set.
func (s *Store) FileAppearance(ctx context.Context, id fileframe.FileID) (fileframe.Appearance, error) {
	var a fileframe.Appearance
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := fileExists(ctx, tx, id); err != nil {
			return err
		}
		var err error
		a, err = appearance(ctx, tx, "file_appearances", "file_id", string(id))
		return err
	})
	return a, wrap("file appearance", err)
}

// fileExists returns ENOTFOUND unless the file exists.
func fileExists(ctx context.Context, tx querier, id fileframe.FileID) error {
	var ok bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM files WHERE id = ?)`, id).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return notFound("File")
	}
	return nil
}

// SetLiveRevision publishes a kept revision of the file's page (number ≥ 1),
// giving it a publication time if it had none so that pruning keeps it, or
// unpublishes the page (number 0); the page's UpdatedAt becomes at (now when
// zero). A file without a page, or a revision that is not kept, is
// ENOTFOUND.
func (s *Store) SetLiveRevision(ctx context.Context, id fileframe.FileID, number int, at time.Time) (fileframe.Page, error) {
	if at.IsZero() {
		at = now()
	}
	at = stored(at)
	if number < 0 {
		return fileframe.Page{}, notFound("Revision")
	}
	var p fileframe.Page
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if number > 0 {
			res, err := tx.ExecContext(ctx, `
				UPDATE page_revisions SET published_at = coalesce(published_at, ?)
				WHERE file_id = ? AND number = ?`, at.UnixMilli(), id, number)
			if err != nil {
				return err
			}
			if err := mustAffect(res, "Revision"); err != nil {
				return err
			}
		}
		var updated sql.NullInt64
		err := tx.QueryRowContext(ctx, `
			UPDATE pages SET live_revision = ?, updated_at = ? WHERE file_id = ?
			RETURNING `+pageColumns, number, at.UnixMilli(), id).
			Scan(&p.FileID, &p.LatestRevision, &p.LiveRevision, &updated)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("Page")
		} else if err != nil {
			return err
		}
		p.UpdatedAt = fromMillis(updated)
		return nil
	})
	if err != nil {
		return fileframe.Page{}, wrap("set live revision", err)
	}
	return p, nil
}

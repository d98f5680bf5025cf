package postgres

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// FilesByAccount lists the account's files, newest first (files made in the
// same millisecond latest first), with the state of each one's page. It is
// ENOTFOUND for an account that does not exist, and an empty list for one
// without files.
func (s *Store) FilesByAccount(ctx context.Context, id fileframe.AccountID) ([]fileframe.FileListing, error) {
	if !storable(string(id)) {
		return nil, notFound("Account")
	}
	var list []fileframe.FileListing
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		list = []fileframe.FileListing{}
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1)`, id).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return notFound("Account")
		}
		rows, err := tx.Query(ctx, `
			SELECT f.id, f.account_id, f.name, f.size, f.content_type, f.blob_key, f.slug, f.downloads, f.created_at,
			       coalesce(p.latest_revision, 0), coalesce(p.live_revision, 0),
			       coalesce(a.template, ''), coalesce(a.headline, ''), coalesce(a.message, ''),
			       coalesce(a.accent, ''), coalesce(a.logo_key, ''), coalesce(a.background, '')
			FROM files f LEFT JOIN pages p ON p.file_id = f.id
			LEFT JOIN file_appearances a ON a.file_id = f.id
			WHERE f.account_id = $1 ORDER BY f.created_at DESC, f.seq DESC`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l fileframe.FileListing
			var created pgtype.Timestamptz
			if err := rows.Scan(&l.ID, &l.AccountID, &l.Name, &l.Size, &l.ContentType, &l.BlobKey, &l.Slug, &l.Downloads, &created,
				&l.LatestRevision, &l.LiveRevision,
				&l.Appearance.Template, &l.Appearance.Headline, &l.Appearance.Message,
				&l.Appearance.Accent, &l.Appearance.LogoKey, &l.Appearance.Background); err != nil {
				return err
			}
			l.CreatedAt = fromTS(created)
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
	if !storable(string(id)) {
		return notFound("File")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE files SET name = $1 WHERE id = $2`, name, id)
	if err == nil && tag.RowsAffected() == 0 {
		err = notFound("File")
	}
	return wrap("rename file", err)
}

// DeleteFile removes the file in one transaction: it locks the file's row,
// deletes its page-bound keys (api_keys.file_id does not cascade, so that a
// key is never deleted by accident), then the file, whose page, revisions
// and appearance go with it by ON DELETE CASCADE, then the page HTML no
// other revision refers to. It returns the deleted file.
//
// A SavePage of another page storing the same HTML at the same time is the
// race SavePage describes: the foreign key from page_revisions to page_html
// fails one of the two, which is retried.
func (s *Store) DeleteFile(ctx context.Context, id fileframe.FileID) (fileframe.File, error) {
	if !storable(string(id)) {
		return fileframe.File{}, notFound("File")
	}
	var f fileframe.File
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		f, err = scanFile(tx.QueryRow(ctx, `SELECT `+fileColumns+` FROM files WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM api_keys WHERE file_id = $1`, id); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT DISTINCT sha256 FROM page_revisions WHERE file_id = $1`, id)
		if err != nil {
			return err
		}
		hashes, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM files WHERE id = $1`, id); err != nil {
			return err
		}
		if len(hashes) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `
			DELETE FROM page_html h
			WHERE h.sha256 = ANY ($1)
			  AND NOT EXISTS (SELECT 1 FROM page_revisions r WHERE r.sha256 = h.sha256)`, hashes)
		return err
	})
	if err != nil {
		return fileframe.File{}, wrap("delete file", err)
	}
	return f, nil
}

// BlobInUse reports whether any file, or any account's or file's appearance
// image, refers to the blob key. The empty key is never in use.
func (s *Store) BlobInUse(ctx context.Context, key string) (bool, error) {
	if key == "" || !storable(key) {
		return false, nil
	}
	var used bool
	err := s.pool.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM files WHERE blob_key = $1)
		    OR EXISTS (SELECT 1 FROM account_appearances WHERE logo_key = $1)
		    OR EXISTS (SELECT 1 FROM account_appearances WHERE background = $1)
		    OR EXISTS (SELECT 1 FROM file_appearances WHERE logo_key = $1)
		    OR EXISTS (SELECT 1 FROM file_appearances WHERE background = $1)`, key).Scan(&used)
	if err != nil {
		return false, wrap("blob in use", err)
	}
	return used, nil
}

// SetFileAppearance sets the file's own appearance; the zero value clears
// it. A missing file is ENOTFOUND.
func (s *Store) SetFileAppearance(ctx context.Context, id fileframe.FileID, a fileframe.Appearance) error {
	if !storable(string(id)) {
		return notFound("File")
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		return setAppearance(ctx, tx, "file_appearances", "file_id", "files", string(id), a)
	})
	if fileframe.IsNotFound(err) {
		return notFound("File")
	}
	return wrap("set file appearance", err)
}

// FileAppearance returns the file's own appearance, zero when none is set.
func (s *Store) FileAppearance(ctx context.Context, id fileframe.FileID) (fileframe.Appearance, error) {
	if !storable(string(id)) {
		return fileframe.Appearance{}, notFound("File")
	}
	a, err := appearance(ctx, s.pool, "file_appearances", "file_id", "files", string(id))
	if fileframe.IsNotFound(err) {
		return fileframe.Appearance{}, notFound("File")
	}
	return a, wrap("file appearance", err)
}

// SetLiveRevision publishes a kept revision of the file's page (number ≥ 1),
// giving it a publication time if it had none so that pruning keeps it, or
// unpublishes the page (number 0); the page's UpdatedAt becomes at (now when
// zero). A file without a page, or a revision that is not kept, is
// ENOTFOUND.
//
// The page's row is locked first, as SavePage's upsert locks it, so the two
// are serialised per page: the revision is checked against what the last
// SavePage committed, and a concurrent SavePage cannot prune it in between.
func (s *Store) SetLiveRevision(ctx context.Context, id fileframe.FileID, number int, at time.Time) (fileframe.Page, error) {
	if !storable(string(id)) {
		return fileframe.Page{}, notFound("Page")
	}
	if number < 0 || number > math.MaxInt32 {
		return fileframe.Page{}, notFound("Revision")
	}
	if at.IsZero() {
		at = now()
	}
	at = stored(at)
	var p fileframe.Page
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var locked bool
		err := tx.QueryRow(ctx, `SELECT true FROM pages WHERE file_id = $1 FOR UPDATE`, id).Scan(&locked)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("Page")
		} else if err != nil {
			return err
		}
		if number > 0 {
			tag, err := tx.Exec(ctx, `
				UPDATE page_revisions SET published_at = coalesce(published_at, $1)
				WHERE file_id = $2 AND number = $3`, at, id, number)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return notFound("Revision")
			}
		}
		var updated pgtype.Timestamptz
		err = tx.QueryRow(ctx, `
			UPDATE pages SET live_revision = $1, updated_at = $2 WHERE file_id = $3
			RETURNING file_id, latest_revision, live_revision, updated_at`, number, at, id).
			Scan(&p.FileID, &p.LatestRevision, &p.LiveRevision, &updated)
		if err != nil {
			return err
		}
		p.UpdatedAt = fromTS(updated)
		return nil
	})
	if err != nil {
		return fileframe.Page{}, wrap("set live revision", err)
	}
	return p, nil
}

package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// SavePage stores w.HTML as the page's next revision in one write
// transaction: the HTML (once per distinct content), the revision, the
// page's latest and live revision numbers, and the pruning of revisions
// beyond fileframe.RevisionsKept that were never published, with the HTML
// only they referred to. Writes are serialised (the write lock is taken at
// BEGIN, and concurrent writes of this process share a transaction one after
// another, each in its own savepoint), so each call numbers its revision
// after the last one committed before it, from this process or another. The
// file must exist (else ENOTFOUND); a zero w.At means now.
func (s *Store) SavePage(ctx context.Context, w fileframe.PageWrite) (fileframe.Page, error) {
	if w.At.IsZero() {
		w.At = now()
	}
	at := stored(w.At)
	sum := sha256.Sum256(w.HTML)
	hash := hex.EncodeToString(sum[:])
	html := w.HTML
	if html == nil {
		html = []byte{} // an empty page is empty HTML, not NULL
	}
	var page fileframe.Page
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		// NULL when the file has no page yet.
		var latest, curLive sql.NullInt64
		var latestHash sql.NullString
		err := tx.QueryRowContext(ctx, `
			SELECT p.latest_revision, p.live_revision, r.sha256
			FROM files f LEFT JOIN pages p ON p.file_id = f.id
			LEFT JOIN page_revisions r ON r.file_id = f.id AND r.number = p.latest_revision
			WHERE f.id = ?`, w.FileID).Scan(&latest, &curLive, &latestHash)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("File")
		} else if err != nil {
			return err
		}
		if latestHash.Valid && latestHash.String == hash {
			// The same HTML as the latest revision: no new one.
			n, live := int(latest.Int64), 0
			switch {
			case w.Publish:
				live = n
				if _, err := tx.ExecContext(ctx, `
					UPDATE page_revisions SET published_at = coalesce(published_at, ?)
					WHERE file_id = ? AND number = ?`, at.UnixMilli(), w.FileID, n); err != nil {
					return err
				}
			case w.KeepLive:
				live = int(curLive.Int64)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE pages SET live_revision = ?, updated_at = ? WHERE file_id = ?`,
				live, at.UnixMilli(), w.FileID); err != nil {
				return err
			}
			if w.Assets != nil {
				if err := withinStorage(ctx, tx, w.FileID, w.StorageLimit, w.Assets, func() error {
					return setRevisionAssets(ctx, tx, w.FileID, n, w.Served, w.Assets)
				}); err != nil {
					return err
				}
			}
			page = fileframe.Page{FileID: w.FileID, LatestRevision: n, LiveRevision: live, UpdatedAt: at, SameAsLatest: true}
			return pageEvent(ctx, tx, w.FileID, int(curLive.Int64), live, at)
		}
		n := int(latest.Int64) + 1
		live, published := 0, any(nil)
		switch {
		case w.Publish:
			live, published = n, at.UnixMilli()
		case w.KeepLive:
			live = int(curLive.Int64)
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO page_html (sha256, html) VALUES (?, ?)
			ON CONFLICT (sha256) DO NOTHING`, hash, html); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO pages (file_id, latest_revision, live_revision, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (file_id) DO UPDATE SET
				latest_revision = excluded.latest_revision,
				live_revision = excluded.live_revision,
				updated_at = excluded.updated_at`,
			w.FileID, n, live, at.UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO page_revisions (file_id, number, sha256, size, created_at, published_at)
			VALUES (?, ?, ?, ?, ?, ?)`,
			w.FileID, n, hash, len(w.HTML), at.UnixMilli(), published); err != nil {
			return err
		}
		if err := withinStorage(ctx, tx, w.FileID, w.StorageLimit, w.Assets, func() error {
			return setRevisionAssets(ctx, tx, w.FileID, n, w.Served, w.Assets)
		}); err != nil {
			return err
		}
		if err := prune(ctx, tx, w.FileID, n-fileframe.RevisionsKept); err != nil {
			return err
		}
		page = fileframe.Page{FileID: w.FileID, LatestRevision: n, LiveRevision: live, UpdatedAt: at}
		return pageEvent(ctx, tx, w.FileID, int(curLive.Int64), live, at)
	})
	if err != nil {
		return fileframe.Page{}, wrap("save page", err)
	}
	return page, nil
}

// prune deletes the file's never-published revisions numbered upTo or less
// that no running A/B test shows, then the HTML that no revision refers to
// any more.
func prune(ctx context.Context, tx querier, id fileframe.FileID, upTo int) error {
	if upTo <= 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `
		DELETE FROM page_revisions
		WHERE file_id = ? AND number <= ? AND published_at IS NULL
		  AND NOT EXISTS (SELECT 1 FROM page_tests t
		                  WHERE t.file_id = page_revisions.file_id AND t.ended_at IS NULL
		                    AND instr(',' || t.revisions || ',', ',' || page_revisions.number || ',') > 0)
		RETURNING sha256`, id, upTo)
	if err != nil {
		return err
	}
	hashes := map[string]bool{}
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			rows.Close()
			return err
		}
		hashes[h] = true
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for h := range hashes {
		if _, err := tx.ExecContext(ctx, `
			DELETE FROM page_html
			WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM page_revisions WHERE sha256 = ?)`, h, h); err != nil {
			return err
		}
	}
	return nil
}

const pageColumns = `file_id, latest_revision, live_revision, updated_at`

// PageByFile returns a file's custom page; ENOTFOUND when it has none.
func (s *Store) PageByFile(ctx context.Context, id fileframe.FileID) (fileframe.Page, error) {
	var p fileframe.Page
	var updated sql.NullInt64
	err := s.pageByFile.QueryRowContext(ctx, id).Scan(&p.FileID, &p.LatestRevision, &p.LiveRevision, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Page{}, notFound("Page")
	} else if err != nil {
		return fileframe.Page{}, wrap("page by file", err)
	}
	p.UpdatedAt = fromMillis(updated)
	return p, nil
}

// Revision returns one kept revision of a file's page with its HTML.
func (s *Store) Revision(ctx context.Context, id fileframe.FileID, number int) (fileframe.Revision, error) {
	var r fileframe.Revision
	var created, published sql.NullInt64
	var servedSum sql.NullString
	err := s.revision.QueryRowContext(ctx, id, number).Scan(&r.FileID, &r.Number, &r.SHA256, &r.Size, &created, &published, &r.HTML, &servedSum, &r.Served)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.Revision{}, notFound("Revision")
	} else if err != nil {
		return fileframe.Revision{}, wrap("revision", err)
	}
	r.ServedSHA256 = servedSum.String
	r.CreatedAt = fromMillis(created)
	r.PublishedAt = fromMillis(published)
	return r, nil
}

// RevisionHead returns a revision's hash and at most limit bytes of the
// start of its HTML.
func (s *Store) RevisionHead(ctx context.Context, id fileframe.FileID, number int, limit int) (string, []byte, error) {
	limit = max(limit, 0)
	var sum string
	var head []byte
	err := s.revisionHead.QueryRowContext(ctx, id, number, limit).Scan(&sum, &head)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, notFound("Revision")
	} else if err != nil {
		return "", nil, wrap("revision head", err)
	}
	return sum, head, nil
}

// Revisions lists a page's kept revisions, newest first, without HTML. It is
// ENOTFOUND when the file has no page.
func (s *Store) Revisions(ctx context.Context, id fileframe.FileID) ([]fileframe.Revision, error) {
	var revs []fileframe.Revision
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var ok bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pages WHERE file_id = ?)`, id).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return notFound("Page")
		}
		rows, err := tx.QueryContext(ctx, `
			SELECT file_id, number, sha256, size, created_at, published_at
			FROM page_revisions WHERE file_id = ? ORDER BY number DESC`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r fileframe.Revision
			var created, published sql.NullInt64
			if err := rows.Scan(&r.FileID, &r.Number, &r.SHA256, &r.Size, &created, &published); err != nil {
				return err
			}
			r.CreatedAt = fromMillis(created)
			r.PublishedAt = fromMillis(published)
			revs = append(revs, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap("revisions", err)
	}
	return revs, nil
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
		var old int
		err := tx.QueryRowContext(ctx, `SELECT live_revision FROM pages WHERE file_id = ?`, id).Scan(&old)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("Page")
		} else if err != nil {
			return err
		}
		var updated sql.NullInt64
		if err := tx.QueryRowContext(ctx, `
			UPDATE pages SET live_revision = ?, updated_at = ? WHERE file_id = ?
			RETURNING `+pageColumns, number, at.UnixMilli(), id).
			Scan(&p.FileID, &p.LatestRevision, &p.LiveRevision, &updated); err != nil {
			return err
		}
		p.UpdatedAt = fromMillis(updated)
		return pageEvent(ctx, tx, id, old, number, at)
	})
	if err != nil {
		return fileframe.Page{}, wrap("set live revision", err)
	}
	return p, nil
}

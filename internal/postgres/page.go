package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// SavePage stores w.HTML as the page's next revision in one transaction: the
// HTML (once per distinct content), the page's latest and live revision
// numbers, the revision, and the pruning of revisions beyond
// fileframe.RevisionsKept that were never published, with the HTML only they
// referred to. The file must exist (else ENOTFOUND); a zero w.At means now.
//
// Concurrent calls for one file, from this instance or others, are
// serialised by the lock on the file's pages row, which the upsert that
// numbers the revision takes and holds until commit. The upsert reads the
// latest committed version of the row once it holds the lock (INSERT ... ON
// CONFLICT DO UPDATE in READ COMMITTED,
// https://www.postgresql.org/docs/15/sql-insert.html#SQL-ON-CONFLICT), so
// each call numbers its revision after the last committed one, with no
// serialization failure. A separate SELECT ... FOR UPDATE of the file row
// would do the same with one more round trip; a single SELECT that locked
// the file row and joined the page would not, as it reads the page from the
// snapshot taken before it waited for the lock.
//
// Pruning and storing can race across pages that share HTML: this call may
// delete HTML that another page's transaction, not yet committed, is storing
// a revision of, or the other way round. The foreign key from page_revisions
// to page_html turns that into an error rather than a revision without its
// HTML, and the transaction is retried (see retryable); on the second try the
// other revision is committed and the HTML is kept or stored again.
func (s *Store) SavePage(ctx context.Context, w fileframe.PageWrite) (fileframe.Page, error) {
	if !storable(string(w.FileID)) {
		return fileframe.Page{}, notFound("File")
	}
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
	var published any // NULL unless published
	if w.Publish {
		published = at
	}
	var page fileframe.Page
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// The HTML first, before the page's row is locked, so that writers
		// of one page hold the lock for as short a time as they can.
		if _, err := tx.Exec(ctx, `
			INSERT INTO page_html (sha256, html) VALUES ($1, $2)
			ON CONFLICT (sha256) DO NOTHING`, hash, html); err != nil {
			return err
		}
		// The page's row, locked, with its latest revision's hash: HTML
		// equal to it adds no revision.
		var latest, curLive int
		var latestHash *string
		err := tx.QueryRow(ctx, `
			SELECT p.latest_revision, p.live_revision, r.sha256
			FROM pages p LEFT JOIN page_revisions r ON r.file_id = p.file_id AND r.number = p.latest_revision
			WHERE p.file_id = $1 FOR UPDATE OF p`, w.FileID).Scan(&latest, &curLive, &latestHash)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if err == nil && latestHash != nil && *latestHash == hash {
			live := 0
			switch {
			case w.Publish:
				live = latest
				if _, err := tx.Exec(ctx, `
					UPDATE page_revisions SET published_at = coalesce(published_at, $3)
					WHERE file_id = $1 AND number = $2`, w.FileID, latest, at); err != nil {
					return err
				}
			case w.KeepLive:
				live = curLive
			}
			if _, err := tx.Exec(ctx, `UPDATE pages SET live_revision = $2, updated_at = $3 WHERE file_id = $1`,
				w.FileID, live, at); err != nil {
				return err
			}
			if w.Assets != nil {
				if err := withinStorage(ctx, tx, w.FileID, w.StorageLimit, w.Assets, func() error {
					return setRevisionAssets(ctx, tx, w.FileID, latest, w.Served, w.Assets)
				}); err != nil {
					return err
				}
			}
			page = fileframe.Page{FileID: w.FileID, LatestRevision: latest, LiveRevision: live, UpdatedAt: at, SameAsLatest: true}
			return pageEvent(ctx, tx, w.FileID, curLive, live, at)
		}
		// A missing file is the violation of pages_file_id_fkey (see wrap).
		var n, live int
		err = tx.QueryRow(ctx, `
			INSERT INTO pages AS p (file_id, latest_revision, live_revision, updated_at)
			VALUES ($1, 1, CASE WHEN $2::boolean THEN 1 ELSE 0 END, $3)
			ON CONFLICT (file_id) DO UPDATE SET
				latest_revision = p.latest_revision + 1,
				live_revision = CASE WHEN $2::boolean THEN p.latest_revision + 1
					WHEN $4::boolean THEN p.live_revision ELSE 0 END,
				updated_at = excluded.updated_at
			RETURNING latest_revision, live_revision`,
			w.FileID, w.Publish, at, w.KeepLive).Scan(&n, &live)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO page_revisions (file_id, number, sha256, size, created_at, published_at)
			VALUES ($1, $2, $3, $4, $5, $6)`,
			w.FileID, n, hash, len(w.HTML), at, published); err != nil {
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
		// curLive is what the locked row held (0 for a new page; a page
		// another transaction created meanwhile is the one case where it
		// may be stale, and its own event went out with it).
		return pageEvent(ctx, tx, w.FileID, curLive, live, at)
	})
	if err != nil {
		return fileframe.Page{}, wrap("save page", err)
	}
	return page, nil
}

// prune deletes the file's never-published revisions numbered upTo or less
// that no running A/B test shows, then the HTML that no revision refers to
// any more. The second statement
// sees what the first deleted; one statement with the DELETE in a WITH
// clause would not (its other parts read the snapshot from before it).
func prune(ctx context.Context, tx pgx.Tx, id fileframe.FileID, upTo int) error {
	if upTo <= 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `
		DELETE FROM page_revisions
		WHERE file_id = $1 AND number <= $2 AND published_at IS NULL
		  AND NOT EXISTS (SELECT 1 FROM page_tests t
		                  WHERE t.file_id = page_revisions.file_id AND t.ended_at IS NULL
		                    AND page_revisions.number = ANY (string_to_array(t.revisions, ',')::int[]))
		RETURNING sha256`, id, upTo)
	if err != nil {
		return err
	}
	hashes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(hashes) == 0 {
		return err
	}
	_, err = tx.Exec(ctx, `
		DELETE FROM page_html h
		WHERE h.sha256 = ANY ($1)
		  AND NOT EXISTS (SELECT 1 FROM page_revisions r WHERE r.sha256 = h.sha256)`, hashes)
	return err
}

// PageByFile returns a file's custom page; ENOTFOUND when it has none.
func (s *Store) PageByFile(ctx context.Context, id fileframe.FileID) (fileframe.Page, error) {
	if !storable(string(id)) {
		return fileframe.Page{}, notFound("Page")
	}
	var p fileframe.Page
	var updated pgtype.Timestamptz
	err := s.pool.QueryRow(ctx, `
		SELECT file_id, latest_revision, live_revision, updated_at FROM pages WHERE file_id = $1`, id).
		Scan(&p.FileID, &p.LatestRevision, &p.LiveRevision, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Page{}, notFound("Page")
	} else if err != nil {
		return fileframe.Page{}, wrap("page by file", err)
	}
	p.UpdatedAt = fromTS(updated)
	return p, nil
}

// Revision returns one kept revision of a file's page with its HTML.
func (s *Store) Revision(ctx context.Context, id fileframe.FileID, number int) (fileframe.Revision, error) {
	// Revision numbers are integer (int4) columns: a larger number, say
	// from a URL, cannot be stored, and pgx would refuse to send it.
	if !storable(string(id)) || number <= 0 || number > math.MaxInt32 {
		return fileframe.Revision{}, notFound("Revision")
	}
	var r fileframe.Revision
	var created, published pgtype.Timestamptz
	err := s.pool.QueryRow(ctx, `
		SELECT r.file_id, r.number, r.sha256, r.size, r.created_at, r.published_at, h.html, coalesce(v.sha256, ''), v.html
		FROM page_revisions r JOIN page_html h ON h.sha256 = r.sha256
		LEFT JOIN page_served v ON v.file_id = r.file_id AND v.number = r.number
		WHERE r.file_id = $1 AND r.number = $2`, id, number).
		Scan(&r.FileID, &r.Number, &r.SHA256, &r.Size, &created, &published, &r.HTML, &r.ServedSHA256, &r.Served)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.Revision{}, notFound("Revision")
	} else if err != nil {
		return fileframe.Revision{}, wrap("revision", err)
	}
	r.CreatedAt = fromTS(created)
	r.PublishedAt = fromTS(published)
	return r, nil
}

// RevisionHead returns a revision's hash and at most limit bytes of the
// start of its HTML (substring detoasts only the slice it needs).
func (s *Store) RevisionHead(ctx context.Context, id fileframe.FileID, number int, limit int) (string, []byte, error) {
	if !storable(string(id)) || number <= 0 || number > math.MaxInt32 {
		return "", nil, notFound("Revision")
	}
	limit = min(max(limit, 0), math.MaxInt32)
	var sum string
	var head []byte
	err := s.pool.QueryRow(ctx, `
		SELECT r.sha256, substring(h.html FROM 1 FOR $3)
		FROM page_revisions r JOIN page_html h ON h.sha256 = r.sha256
		WHERE r.file_id = $1 AND r.number = $2`, id, number, limit).Scan(&sum, &head)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, notFound("Revision")
	} else if err != nil {
		return "", nil, wrap("revision head", err)
	}
	return sum, head, nil
}

// Revisions lists a page's kept revisions, newest first, without HTML. It is
// ENOTFOUND when the file has no page.
func (s *Store) Revisions(ctx context.Context, id fileframe.FileID) ([]fileframe.Revision, error) {
	if !storable(string(id)) {
		return nil, notFound("Page")
	}
	var revs []fileframe.Revision
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		revs = nil
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pages WHERE file_id = $1)`, id).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return notFound("Page")
		}
		rows, err := tx.Query(ctx, `
			SELECT file_id, number, sha256, size, created_at, published_at
			FROM page_revisions WHERE file_id = $1 ORDER BY number DESC`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r fileframe.Revision
			var created, published pgtype.Timestamptz
			if err := rows.Scan(&r.FileID, &r.Number, &r.SHA256, &r.Size, &created, &published); err != nil {
				return err
			}
			r.CreatedAt = fromTS(created)
			r.PublishedAt = fromTS(published)
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
		var old int
		err := tx.QueryRow(ctx, `SELECT live_revision FROM pages WHERE file_id = $1 FOR UPDATE`, id).Scan(&old)
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
		return pageEvent(ctx, tx, id, old, number, at)
	})
	if err != nil {
		return fileframe.Page{}, wrap("set live revision", err)
	}
	return p, nil
}

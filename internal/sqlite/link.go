package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// SetLink replaces the file's link controls; a new MaxDownloads starts its
// count again.
func (s *Store) SetLink(ctx context.Context, id fileframe.FileID, l fileframe.Link) (fileframe.File, error) {
	var f fileframe.File
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `
			UPDATE files SET expires_at = ?, max_downloads = ?, remove_when_ended = ?, password_hash = ?, reveal = ?,
				link_downloads = CASE WHEN max_downloads = ? THEN link_downloads ELSE 0 END,
				link_ended_at = CASE WHEN expires_at IS ? AND max_downloads = ? THEN link_ended_at ELSE NULL END
			WHERE id = ?`,
			millis(l.ExpiresAt), l.MaxDownloads, l.RemoveWhenEnded, l.PasswordHash, l.Reveal, l.MaxDownloads,
			millis(l.ExpiresAt), l.MaxDownloads, id)
		if isCheck(err) {
			return fileframe.Errorf(fileframe.EINVALID, "These link settings cannot be stored.")
		} else if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound("File")
		}
		f, err = scanFile(tx.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ?`, id))
		return err
	})
	if err != nil {
		return fileframe.File{}, wrap("set link", err)
	}
	return f, nil
}

// ClaimDownload records a download against the file's limit if there is
// room. It runs on the writer, so no other claim can pass between its
// count and its insert.
func (s *Store) ClaimDownload(ctx context.Context, id fileframe.FileID, claim string, now time.Time, ttl time.Duration) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		f, err := scanFile(tx.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ?`, id))
		if err != nil {
			return err
		}
		var running int64
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM download_claims WHERE file_id = ? AND expires_at > ?`,
			id, now.UnixMilli()).Scan(&running); err != nil {
			return err
		}
		if err := fileframe.CheckClaim(f, running, now); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO download_claims (id, file_id, expires_at) VALUES (?, ?, ?)`,
			claim, id, now.Add(ttl).UnixMilli())
		return err
	})
	return wrap("claim download", err)
}

// RenewDownloadClaim moves a running claim's end.
func (s *Store) RenewDownloadClaim(ctx context.Context, claim string, now time.Time, ttl time.Duration) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE download_claims SET expires_at = ? WHERE id = ?`, now.Add(ttl).UnixMilli(), claim)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound("Download claim")
		}
		return nil
	})
	return wrap("renew download claim", err)
}

// FinishDownload ends a claim, counting a completed download.
func (s *Store) FinishDownload(ctx context.Context, id fileframe.FileID, claim string, completed bool) error {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM download_claims WHERE id = ?`, claim); err != nil {
			return err
		}
		if !completed {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE files SET link_downloads = link_downloads + 1 WHERE id = ?`, id); err != nil {
			return err
		}
		return usedUpEvent(ctx, tx, id)
	})
	return wrap("finish download", err)
}

// EndedLinks lists files whose links have ended and are to be removed.
func (s *Store) EndedLinks(ctx context.Context, now time.Time, limit int) ([]fileframe.File, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT `+fileColumns+` FROM files
		WHERE remove_when_ended = 1
		  AND (expires_at <= ? OR (max_downloads > 0 AND link_downloads >= max_downloads))
		LIMIT ?`, now.UnixMilli(), limit)
	if err != nil {
		return nil, wrap("ended links", err)
	}
	defer rows.Close()
	var files []fileframe.File
	for rows.Next() {
		var fs fileScan
		if err := rows.Scan(fs.dest()...); err != nil {
			return nil, wrap("ended links", err)
		}
		files = append(files, fs.file())
	}
	return files, wrap("ended links", rows.Err())
}

// DeleteEndedFile deletes the file and records its slug as gone.
func (s *Store) DeleteEndedFile(ctx context.Context, id fileframe.FileID, reason fileframe.LinkState, now time.Time) (fileframe.File, error) {
	if reason != fileframe.LinkExpired && reason != fileframe.LinkUsedUp {
		return fileframe.File{}, fileframe.Errorf(fileframe.EINVALID, "A link ends as expired or used_up, not %q.", reason)
	}
	var f fileframe.File
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		var err error
		if f, err = deleteFile(ctx, tx, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO gone_links (slug, reason, gone_at) VALUES (?, ?, ?) ON CONFLICT (slug) DO NOTHING`,
			f.Slug, string(reason), now.UnixMilli())
		return err
	})
	if err != nil {
		return fileframe.File{}, wrap("delete ended file", err)
	}
	return f, nil
}

// GoneLinkBySlug returns the gone link of a removed file.
func (s *Store) GoneLinkBySlug(ctx context.Context, slug string) (fileframe.GoneLink, error) {
	g := fileframe.GoneLink{Slug: slug}
	var reason string
	var at int64
	err := s.read.QueryRowContext(ctx, `SELECT reason, gone_at FROM gone_links WHERE slug = ?`, slug).Scan(&reason, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return g, notFound("Link")
	} else if err != nil {
		return g, wrap("gone link", err)
	}
	g.Reason, g.At = fileframe.LinkState(reason), time.UnixMilli(at).UTC()
	return g, nil
}

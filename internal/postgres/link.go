package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
)

// SetLink replaces the file's link controls; a new MaxDownloads starts its
// count again.
func (s *Store) SetLink(ctx context.Context, id fileframe.FileID, l fileframe.Link) (fileframe.File, error) {
	if !storable(string(id)) {
		return fileframe.File{}, notFound("File")
	}
	if !storable(l.PasswordHash, l.Reveal) {
		return fileframe.File{}, fileframe.Errorf(fileframe.EINVALID, "These link settings cannot be stored.")
	}
	f, err := scanFile(s.pool.QueryRow(ctx, `
		UPDATE files SET expires_at = $2, max_downloads = $3, remove_when_ended = $4, password_hash = $5, reveal = $6,
			link_downloads = CASE WHEN max_downloads = $3 THEN link_downloads ELSE 0 END,
			link_ended_at = CASE WHEN expires_at IS NOT DISTINCT FROM $2 AND max_downloads = $3 THEN link_ended_at ELSE NULL END
		WHERE id = $1
		RETURNING `+fileColumns,
		id, ts(l.ExpiresAt), l.MaxDownloads, l.RemoveWhenEnded, l.PasswordHash, l.Reveal))
	return f, wrap("set link", err)
}

// ClaimDownload records a download against the file's limit if there is
// room. The file's row is locked first, so claims of one file are decided
// one at a time across instances.
func (s *Store) ClaimDownload(ctx context.Context, id fileframe.FileID, claim string, now time.Time, ttl time.Duration) error {
	if !storable(string(id), claim) {
		return notFound("File")
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		f, err := scanFile(tx.QueryRow(ctx, `SELECT `+fileColumns+` FROM files WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		var running int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM download_claims WHERE file_id = $1 AND expires_at > $2`,
			id, now).Scan(&running); err != nil {
			return err
		}
		if err := fileframe.CheckClaim(f, running, now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO download_claims (id, file_id, expires_at) VALUES ($1, $2, $3)`,
			claim, id, now.Add(ttl))
		return err
	})
	return wrap("claim download", err)
}

// RenewDownloadClaim moves a running claim's end.
func (s *Store) RenewDownloadClaim(ctx context.Context, claim string, now time.Time, ttl time.Duration) error {
	if !storable(claim) {
		return notFound("Download claim")
	}
	tag, err := s.pool.Exec(ctx, `UPDATE download_claims SET expires_at = $2 WHERE id = $1`, claim, now.Add(ttl))
	if err != nil {
		return wrap("renew download claim", err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("Download claim")
	}
	return nil
}

// FinishDownload ends a claim, counting a completed download.
func (s *Store) FinishDownload(ctx context.Context, id fileframe.FileID, claim string, completed bool) error {
	if !storable(string(id), claim) {
		return nil
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM download_claims WHERE id = $1`, claim); err != nil {
			return err
		}
		if !completed {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE files SET link_downloads = link_downloads + 1 WHERE id = $1`, id); err != nil {
			return err
		}
		return usedUpEvent(ctx, tx, id)
	})
	return wrap("finish download", err)
}

// EndedLinks lists files whose links have ended and are to be removed.
func (s *Store) EndedLinks(ctx context.Context, now time.Time, limit int) ([]fileframe.File, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+fileColumns+` FROM files
		WHERE remove_when_ended
		  AND (expires_at <= $1 OR (max_downloads > 0 AND link_downloads >= max_downloads))
		LIMIT $2`, now, limit)
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
	if !storable(string(id)) {
		return fileframe.File{}, notFound("File")
	}
	if reason != fileframe.LinkExpired && reason != fileframe.LinkUsedUp {
		return fileframe.File{}, fileframe.Errorf(fileframe.EINVALID, "A link ends as expired or used_up, not %q.", reason)
	}
	var f fileframe.File
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if f, err = deleteFile(ctx, tx, id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO gone_links (slug, reason, gone_at) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING`,
			f.Slug, string(reason), ts(now))
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
	if !storable(slug) {
		return g, notFound("Link")
	}
	var reason string
	var at time.Time
	err := s.pool.QueryRow(ctx, `SELECT reason, gone_at FROM gone_links WHERE slug = $1`, slug).Scan(&reason, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return g, notFound("Link")
	} else if err != nil {
		return g, wrap("gone link", err)
	}
	g.Reason, g.At = fileframe.LinkState(reason), at.UTC()
	return g, nil
}

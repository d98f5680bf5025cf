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
		if err := insertFile(ctx, tx, f); err != nil {
			return err
		}
		return fileCreated(ctx, tx, f)
	})
	if err != nil {
		return fileframe.File{}, wrap("create file", err)
	}
	return f, nil
}

// CreateFileReserved stores f in place of the reservation, within limit.
// The writer runs one transaction at a time, so the sum it checks cannot
// change before the insert.
func (s *Store) CreateFileReserved(ctx context.Context, f fileframe.File, reservation, upload string, q fileframe.Quota, at time.Time) (fileframe.File, error) {
	return s.createReserved(ctx, newFile(f), nil, reservation, upload, q, at)
}

// createReserved is CreateFileReserved and, with rf, CreateRequestFile:
// in one transaction, the upload not recorded yet, the reservation
// replaced, the request's room (rf) and the quota checked, the file, its
// request_files row, the upload's record and its event stored.
func (s *Store) createReserved(ctx context.Context, f fileframe.File, rf *fileframe.RequestFile, reservation, upload string, q fileframe.Quota, at time.Time) (fileframe.File, error) {
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := unrecorded(ctx, tx, upload); err != nil {
			return err
		}
		if rf == nil {
			if err := accountExists(ctx, tx, f.AccountID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM upload_reservations WHERE id = ?`, reservation); err != nil {
			return err
		}
		if rf != nil {
			if err := requestRoom(ctx, tx, rf.RequestID, f.AccountID, "", f.Size, at); err != nil {
				return err
			}
		}
		used, err := accountUsage(ctx, tx, f.AccountID, "", at)
		if err != nil {
			return err
		}
		if err := used.Fits(f.Size, q); err != nil {
			return err
		}
		if err := insertFile(ctx, tx, f); err != nil {
			return err
		}
		if rf != nil {
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO request_files (file_id, request_id, visit_id, sender_name, sender_email, created_at)
				VALUES (?, ?, ?, ?, ?, ?)`,
				f.ID, rf.RequestID, rf.VisitID, rf.SenderName, rf.SenderEmail, millis(rf.CreatedAt)); err != nil {
				return err
			}
		}
		if err := recordUpload(ctx, tx, upload, f.ID, at); err != nil {
			return err
		}
		return fileCreated(ctx, tx, f)
	})
	if err != nil {
		op := "create file"
		if rf != nil {
			op = "create request file"
		}
		return fileframe.File{}, wrap(op, err)
	}
	return f, nil
}

// unrecorded returns ECONFLICT when the resumable upload is recorded
// already (nil for no upload).
func unrecorded(ctx context.Context, tx querier, upload string) error {
	if upload == "" {
		return nil
	}
	var ok bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM finished_uploads WHERE upload_id = ?)`, upload).Scan(&ok); err != nil {
		return err
	}
	if ok {
		return errRecorded
	}
	return nil
}

// recordUpload records that the resumable upload became file id, inside a
// transaction that stores that file; nothing for no upload.
func recordUpload(ctx context.Context, tx querier, upload string, id fileframe.FileID, at time.Time) error {
	if upload == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO finished_uploads (upload_id, file_id, finished_at) VALUES (?, ?, ?)`,
		upload, id, millis(stored(at)))
	if isUnique(err) {
		return errRecorded
	}
	return err
}

// errRecorded is the error of an upload recorded already.
var errRecorded = fileframe.Errorf(fileframe.ECONFLICT, "This upload is already recorded.")

// fileKind is the stored kind of k: FileKindFile when empty.
func fileKind(k fileframe.FileKind) fileframe.FileKind {
	if k == "" {
		return fileframe.FileKindFile
	}
	return k
}

// newFile fills the fields of a new file that CreateFile sets when empty,
// and makes it shared (only CreateRequestFile stores one that is not).
func newFile(f fileframe.File) fileframe.File {
	f.Shared = true
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
	f.Kind = fileKind(f.Kind)
	return f
}

// insertFile inserts the row of a new file.
func insertFile(ctx context.Context, tx querier, f fileframe.File) error {
	_, err := tx.ExecContext(ctx, `
		INSERT INTO files (id, account_id, name, size, content_type, blob_key, slug, downloads, created_at,
			expires_at, max_downloads, remove_when_ended, password_hash, reveal, kind, shared)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.ID, f.AccountID, f.Name, f.Size, f.ContentType, f.BlobKey, f.Slug, f.Downloads, millis(f.CreatedAt),
		millis(f.Link.ExpiresAt), f.Link.MaxDownloads, f.Link.RemoveWhenEnded, f.Link.PasswordHash, f.Link.Reveal, fileKind(f.Kind), f.Shared)
	if isUnique(err) {
		if strings.Contains(err.Error(), "files.slug") {
			return fileframe.Errorf(fileframe.ECONFLICT, "This link is already taken.")
		}
		return fileframe.Errorf(fileframe.ECONFLICT, "A file with this ID already exists.")
	}
	return err
}

const fileColumns = `id, account_id, name, size, content_type, blob_key, slug, downloads, created_at,
	expires_at, max_downloads, link_downloads, remove_when_ended, password_hash, reveal, kind, shared`

// prefixed returns the comma-separated columns with prefix (a table's
// alias and its dot) before each.
func prefixed(prefix, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// fileScan holds the columns of fileColumns (with any table prefix) as
// they are scanned.
type fileScan struct {
	f                fileframe.File
	created, expires sql.NullInt64
}

// dest returns the scan destinations of fileColumns, in order.
func (fs *fileScan) dest() []any {
	f := &fs.f
	return []any{&f.ID, &f.AccountID, &f.Name, &f.Size, &f.ContentType, &f.BlobKey, &f.Slug, &f.Downloads, &fs.created,
		&fs.expires, &f.Link.MaxDownloads, &f.LinkDownloads, &f.Link.RemoveWhenEnded, &f.Link.PasswordHash, &f.Link.Reveal, &f.Kind, &f.Shared}
}

// file returns the scanned file.
func (fs *fileScan) file() fileframe.File {
	fs.f.CreatedAt, fs.f.Link.ExpiresAt = fromMillis(fs.created), fromMillis(fs.expires)
	return fs.f
}

func scanFile(row *sql.Row) (fileframe.File, error) {
	var fs fileScan
	err := row.Scan(fs.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return fileframe.File{}, notFound("File")
	} else if err != nil {
		return fileframe.File{}, err
	}
	return fs.file(), nil
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
		return downloadEvents(ctx, tx, counts)
	})
	return wrap("add downloads", err)
}

// FilesByAccount lists the account's files, newest first (files made in the
// same millisecond latest first), with the state of each one's page. It is
// ENOTFOUND for an account that does not exist, and an empty list for one
// without files.
func (s *Store) FilesByAccount(ctx context.Context, id fileframe.AccountID) ([]fileframe.FileListing, error) {
	list, err := s.listFiles(ctx, id, `ORDER BY f.created_at DESC, f.rowid DESC`)
	return list, wrap("files by account", err)
}

// ListFiles lists one page of the account's files, newest first by
// creation time and then by ID.
func (s *Store) ListFiles(ctx context.Context, q fileframe.FileQuery) ([]fileframe.FileListing, error) {
	if q.Limit < 1 || q.Limit > 1000 {
		return nil, fileframe.Errorf(fileframe.EINVALID, "A page of files holds 1 to 1000 files, not %d.", q.Limit)
	}
	var args []any
	where := ""
	if q.After != nil {
		at := q.After.CreatedAt.UnixMilli()
		where = `AND (f.created_at < ? OR (f.created_at = ? AND f.id < ?))`
		args = append(args, at, at, string(q.After.ID))
	}
	args = append(args, q.Limit)
	list, err := s.listFiles(ctx, q.Account, where+` ORDER BY f.created_at DESC, f.id DESC LIMIT ?`, args...)
	return list, wrap("list files", err)
}

// listFiles runs the listing query of an account's files, with the
// condition, order and limit in tail and its arguments.
func (s *Store) listFiles(ctx context.Context, id fileframe.AccountID, tail string, args ...any) ([]fileframe.FileListing, error) {
	list := []fileframe.FileListing{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := accountExists(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `
			SELECT f.id, f.account_id, f.name, f.size, f.content_type, f.blob_key, f.slug, f.downloads, f.created_at,
			       f.expires_at, f.max_downloads, f.link_downloads, f.remove_when_ended, f.password_hash, f.reveal, f.kind, f.shared,
			       coalesce(p.latest_revision, 0), coalesce(p.live_revision, 0),
			       coalesce(a.template, ''), coalesce(a.headline, ''), coalesce(a.message, ''),
			       coalesce(a.accent, ''), coalesce(a.logo_key, ''), coalesce(a.background, ''),
			       coalesce(a.logo_bytes, 0), coalesce(a.background_bytes, 0)
			FROM files f LEFT JOIN pages p ON p.file_id = f.id
			LEFT JOIN file_appearances a ON a.file_id = f.id
			WHERE f.account_id = ? `+tail, append([]any{id}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l fileframe.FileListing
			var fs fileScan
			if err := rows.Scan(append(fs.dest(),
				&l.LatestRevision, &l.LiveRevision,
				&l.Appearance.Template, &l.Appearance.Headline, &l.Appearance.Message,
				&l.Appearance.Accent, &l.Appearance.LogoKey, &l.Appearance.Background,
				&l.Appearance.LogoBytes, &l.Appearance.BackgroundBytes)...); err != nil {
				return err
			}
			l.File = fs.file()
			list = append(list, l)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
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
		f, err = deleteFile(ctx, tx, id)
		return err
	})
	if err != nil {
		return fileframe.File{}, wrap("delete file", err)
	}
	return f, nil
}

// deleteFile deletes the file's row, its page-bound keys, and its
// revisions' HTML that no other revision shares, in tx.
func deleteFile(ctx context.Context, tx querier, id fileframe.FileID) (fileframe.File, error) {
	f, err := scanFile(tx.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ?`, id))
	if err != nil {
		return f, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM api_keys WHERE file_id = ?`, id); err != nil {
		return f, err
	}
	// Collections (collection.go) holding the file lose it, and its size.
	colls, err := collectionsOf(ctx, tx, id)
	if err != nil {
		return f, err
	}
	hashes, err := revisionHashes(ctx, tx, id)
	if err != nil {
		return f, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE id = ?`, id); err != nil {
		return f, err
	}
	for _, c := range colls {
		if _, err := resizeCollection(ctx, tx, c); err != nil {
			return f, err
		}
	}
	for _, h := range hashes {
		if _, err := tx.ExecContext(ctx, `
			DELETE FROM page_html
			WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM page_revisions WHERE sha256 = ?)`, h, h); err != nil {
			return f, err
		}
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

// BlobInUse reports whether any file, any account's or file's appearance
// image, any kept page asset or any preview's thumbnail refers to the blob
// key. The empty key is never in use.
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
		    OR EXISTS (SELECT 1 FROM file_appearances WHERE background = ?1)
		    OR EXISTS (SELECT 1 FROM page_assets WHERE sha256 = ?1)
		    OR EXISTS (SELECT 1 FROM previews WHERE thumb_key = ?1)`, key).Scan(&used)
	if err != nil {
		return false, wrap("blob in use", err)
	}
	return used, nil
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

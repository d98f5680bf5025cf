package postgres

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// CreateFile stores a new file record, setting ID, Slug and CreatedAt when
// empty. Its account must exist (else ENOTFOUND); a taken slug or ID is
// ECONFLICT.
func (s *Store) CreateFile(ctx context.Context, f fileframe.File) (fileframe.File, error) {
	f = newFile(f)
	if !storable(string(f.AccountID)) {
		return fileframe.File{}, notFound("Account")
	}
	// A missing account is the violation of files_account_id_fkey (see wrap).
	err := s.inTx(ctx, func(tx pgx.Tx) error {
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
func insertFile(ctx context.Context, q execer, f fileframe.File) error {
	_, err := q.Exec(ctx, `
		INSERT INTO files (id, account_id, name, size, content_type, blob_key, slug, downloads, created_at,
			expires_at, max_downloads, remove_when_ended, password_hash, reveal, kind, shared)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		f.ID, f.AccountID, f.Name, f.Size, f.ContentType, f.BlobKey, f.Slug, f.Downloads, ts(f.CreatedAt),
		ts(f.Link.ExpiresAt), f.Link.MaxDownloads, f.Link.RemoveWhenEnded, f.Link.PasswordHash, f.Link.Reveal, fileKind(f.Kind), f.Shared)
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
	created, expires pgtype.Timestamptz
}

// dest returns the scan destinations of fileColumns, in order.
func (fs *fileScan) dest() []any {
	f := &fs.f
	return []any{&f.ID, &f.AccountID, &f.Name, &f.Size, &f.ContentType, &f.BlobKey, &f.Slug, &f.Downloads, &fs.created,
		&fs.expires, &f.Link.MaxDownloads, &f.LinkDownloads, &f.Link.RemoveWhenEnded, &f.Link.PasswordHash, &f.Link.Reveal, &f.Kind, &f.Shared}
}

// file returns the scanned file.
func (fs *fileScan) file() fileframe.File {
	fs.f.CreatedAt, fs.f.Link.ExpiresAt = fromTS(fs.created), fromTS(fs.expires)
	return fs.f
}

func scanFile(row pgx.Row) (fileframe.File, error) {
	var fs fileScan
	err := row.Scan(fs.dest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.File{}, notFound("File")
	} else if err != nil {
		return fileframe.File{}, err
	}
	return fs.file(), nil
}

// FileByID returns the file with that ID.
func (s *Store) FileByID(ctx context.Context, id fileframe.FileID) (fileframe.File, error) {
	if !storable(string(id)) {
		return fileframe.File{}, notFound("File")
	}
	f, err := scanFile(s.pool.QueryRow(ctx, `SELECT `+fileColumns+` FROM files WHERE id = $1`, id))
	return f, wrap("file by id", err)
}

// FileBySlug returns the file whose public link is /f/<slug>.
func (s *Store) FileBySlug(ctx context.Context, slug string) (fileframe.File, error) {
	if !storable(slug) {
		return fileframe.File{}, notFound("File")
	}
	f, err := scanFile(s.pool.QueryRow(ctx, `SELECT `+fileColumns+` FROM files WHERE slug = $1`, slug))
	return f, wrap("file by slug", err)
}

// AddDownloads adds each count to its file's download counter in one
// transaction, skipping files that no longer exist.
//
// Instances flush their counters at about the same time, often for the same
// popular files, and an UPDATE ... FROM locks rows in whatever order its plan
// visits them, which differs between transactions as rows move: two
// flushers would deadlock. So the rows are first locked in the order of
// their IDs (ORDER BY ... FOR NO KEY UPDATE locks rows after sorting them),
// and the update then finds them all locked.
func (s *Store) AddDownloads(ctx context.Context, counts map[fileframe.FileID]int64) error {
	ids := make([]string, 0, len(counts))
	ns := make([]int64, 0, len(counts))
	for id, n := range counts {
		if n != 0 && storable(string(id)) { // else it cannot exist
			ids = append(ids, string(id))
			ns = append(ns, n)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			SELECT FROM files WHERE id = ANY ($1) ORDER BY id FOR NO KEY UPDATE`, ids); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			UPDATE files SET downloads = files.downloads + v.n
			FROM unnest($1::text[], $2::bigint[]) AS v (id, n)
			WHERE files.id = v.id`, ids, ns); err != nil {
			return err
		}
		return downloadEvents(ctx, tx, ids, ns)
	})
	return wrap("add downloads", err)
}

// execer is what insertFile needs: the pool, or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// FilesByAccount lists the account's files, newest first (files made in the
// same millisecond latest first), with the state of each one's page. It is
// ENOTFOUND for an account that does not exist, and an empty list for one
// without files.
func (s *Store) FilesByAccount(ctx context.Context, id fileframe.AccountID) ([]fileframe.FileListing, error) {
	list, err := s.listFiles(ctx, id, `ORDER BY f.created_at DESC, f.seq DESC`)
	return list, wrap("files by account", err)
}

// ListFiles lists one page of the account's files, newest first by
// creation time and then by ID.
func (s *Store) ListFiles(ctx context.Context, q fileframe.FileQuery) ([]fileframe.FileListing, error) {
	if q.Limit < 1 || q.Limit > 1000 {
		return nil, fileframe.Errorf(fileframe.EINVALID, "A page of files holds 1 to 1000 files, not %d.", q.Limit)
	}
	args := []any{q.Limit}
	where := ""
	if q.After != nil {
		where = `AND (f.created_at, f.id) < ($3, $4)`
		args = append(args, q.After.CreatedAt.UTC(), string(q.After.ID))
	}
	list, err := s.listFiles(ctx, q.Account, where+` ORDER BY f.created_at DESC, f.id DESC LIMIT $2`, args...)
	return list, wrap("list files", err)
}

// listFiles runs the listing query of an account's files ($1), with the
// condition, order and limit in tail and its arguments ($2 on).
func (s *Store) listFiles(ctx context.Context, id fileframe.AccountID, tail string, args ...any) ([]fileframe.FileListing, error) {
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
			       f.expires_at, f.max_downloads, f.link_downloads, f.remove_when_ended, f.password_hash, f.reveal, f.kind, f.shared,
			       coalesce(p.latest_revision, 0), coalesce(p.live_revision, 0),
			       coalesce(a.template, ''), coalesce(a.headline, ''), coalesce(a.message, ''),
			       coalesce(a.accent, ''), coalesce(a.logo_key, ''), coalesce(a.background, ''),
			       coalesce(a.logo_bytes, 0), coalesce(a.background_bytes, 0)
			FROM files f LEFT JOIN pages p ON p.file_id = f.id
			LEFT JOIN file_appearances a ON a.file_id = f.id
			WHERE f.account_id = $1 `+tail, append([]any{id}, args...)...)
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
func deleteFile(ctx context.Context, tx pgx.Tx, id fileframe.FileID) (fileframe.File, error) {
	// Collections (collection.go) holding the file lose it, and its size.
	// Their rows are locked before the file's, in the order in which
	// AddToCollection locks them (the collection, then its items), so that
	// the two never wait on each other.
	colls, err := lockCollectionsOf(ctx, tx, id)
	if err != nil {
		return fileframe.File{}, err
	}
	f, err := scanFile(tx.QueryRow(ctx, `SELECT `+fileColumns+` FROM files WHERE id = $1 FOR UPDATE`, id))
	if err != nil {
		return f, err
	}
	// An addition that held the file (FOR KEY SHARE) until its commit is
	// seen now that the file's row is locked.
	rows, err := tx.Query(ctx, `SELECT collection_id FROM collection_files WHERE file_id = $1`, id)
	if err != nil {
		return f, err
	}
	more, err := pgx.CollectRows(rows, pgx.RowTo[fileframe.FileID])
	if err != nil {
		return f, err
	}
	colls = append(colls, more...)
	// Deleting the row changes the account's usage row (migration 017's
	// triggers) and then deletes the file's page. The page's row is locked
	// before, in the order SavePage takes the two (the page, then the usage
	// in withinStorage), so that the two never wait on each other.
	if _, err := tx.Exec(ctx, `SELECT 1 FROM pages WHERE file_id = $1 FOR UPDATE`, id); err != nil {
		return f, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM api_keys WHERE file_id = $1`, id); err != nil {
		return f, err
	}
	rows, err = tx.Query(ctx, `SELECT DISTINCT sha256 FROM page_revisions WHERE file_id = $1`, id)
	if err != nil {
		return f, err
	}
	hashes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return f, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM files WHERE id = $1`, id); err != nil {
		return f, err
	}
	for _, c := range colls {
		if _, err := resizeCollection(ctx, tx, c); err != nil {
			return f, err
		}
	}
	if len(hashes) == 0 {
		return f, nil
	}
	_, err = tx.Exec(ctx, `
		DELETE FROM page_html h
		WHERE h.sha256 = ANY ($1)
		  AND NOT EXISTS (SELECT 1 FROM page_revisions r WHERE r.sha256 = h.sha256)`, hashes)
	return f, err
}

// BlobInUse reports whether any file, any account's or file's appearance
// image, any kept page asset or any preview's thumbnail refers to the blob
// key. The empty key is never in use.
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
		    OR EXISTS (SELECT 1 FROM file_appearances WHERE background = $1)
		    OR EXISTS (SELECT 1 FROM page_assets WHERE sha256 = $1)
		    OR EXISTS (SELECT 1 FROM previews WHERE thumb_key = $1)`, key).Scan(&used)
	if err != nil {
		return false, wrap("blob in use", err)
	}
	return used, nil
}

// CreateFileReserved stores f in place of the reservation, within limit,
// with the account's usage row locked as Reserve does.
func (s *Store) CreateFileReserved(ctx context.Context, f fileframe.File, reservation, upload string, q fileframe.Quota, at time.Time) (fileframe.File, error) {
	f = newFile(f)
	if !storable(string(f.AccountID)) {
		return fileframe.File{}, notFound("Account")
	}
	return s.createReserved(ctx, f, nil, reservation, upload, q, at)
}

// createReserved is CreateFileReserved and, with rf, CreateRequestFile:
// in one transaction, the upload not recorded yet, the reservation
// replaced, the account's usage row locked and then the request's (rf), in the
// order Reserve takes them, the request's room and the quota checked, the
// file, its request_files row, the upload's record and its event stored.
func (s *Store) createReserved(ctx context.Context, f fileframe.File, rf *fileframe.RequestFile, reservation, upload string, q fileframe.Quota, at time.Time) (fileframe.File, error) {
	if !storable(upload) {
		return fileframe.File{}, fileframe.Errorf(fileframe.EINVALID, "An upload ID must be valid UTF-8 without NUL.")
	}
	if !storable(reservation) {
		reservation = ""
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := unrecorded(ctx, tx, upload); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM upload_reservations WHERE id = $1`, reservation); err != nil {
			return err
		}
		used, err := lockUsage(ctx, tx, f.AccountID, "", at)
		if err != nil {
			return err
		}
		if rf != nil {
			if err := requestRoom(ctx, tx, rf.RequestID, f.AccountID, "", f.Size, at); err != nil {
				return err
			}
		}
		if err := used.Fits(f.Size, q); err != nil {
			return err
		}
		if err := insertFile(ctx, tx, f); err != nil {
			return err
		}
		if rf != nil {
			if _, err := tx.Exec(ctx, `
				INSERT INTO request_files (file_id, request_id, visit_id, sender_name, sender_email, created_at)
				VALUES ($1, $2, $3, $4, $5, $6)`,
				f.ID, rf.RequestID, rf.VisitID, rf.SenderName, rf.SenderEmail, ts(rf.CreatedAt)); err != nil {
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

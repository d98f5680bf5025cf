package postgres

import (
	"context"
	"errors"

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
	if err := insertFile(ctx, s.pool, f); err != nil {
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
func insertFile(ctx context.Context, q execer, f fileframe.File) error {
	_, err := q.Exec(ctx, `
		INSERT INTO files (id, account_id, name, size, content_type, blob_key, slug, downloads, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		f.ID, f.AccountID, f.Name, f.Size, f.ContentType, f.BlobKey, f.Slug, f.Downloads, ts(f.CreatedAt))
	return err
}

const fileColumns = `id, account_id, name, size, content_type, blob_key, slug, downloads, created_at`

func scanFile(row pgx.Row) (fileframe.File, error) {
	var f fileframe.File
	var created pgtype.Timestamptz
	err := row.Scan(&f.ID, &f.AccountID, &f.Name, &f.Size, &f.ContentType, &f.BlobKey, &f.Slug, &f.Downloads, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return fileframe.File{}, notFound("File")
	} else if err != nil {
		return fileframe.File{}, err
	}
	f.CreatedAt = fromTS(created)
	return f, nil
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
		_, err := tx.Exec(ctx, `
			UPDATE files SET downloads = files.downloads + v.n
			FROM unnest($1::text[], $2::bigint[]) AS v (id, n)
			WHERE files.id = v.id`, ids, ns)
		return err
	})
	return wrap("add downloads", err)
}

// execer is what insertFile needs: the pool, or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

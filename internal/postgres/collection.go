package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// CreateCollection stores the collection c with its items in one
// transaction (CollectionStore).
func (s *Store) CreateCollection(ctx context.Context, c fileframe.File, items []fileframe.FileID, at time.Time) (fileframe.File, error) {
	items, err := fileframe.CheckCollectionItems(items)
	if err != nil {
		return fileframe.File{}, err
	}
	c.Kind, c.BlobKey, c.ContentType, c.Size = fileframe.FileKindCollection, "", fileframe.CollectionContentType, 0
	c = newFile(c)
	if !storable(string(c.AccountID)) {
		return fileframe.File{}, notFound("Account")
	}
	if !storable(c.Name) {
		return fileframe.File{}, fileframe.Errorf(fileframe.EINVALID, "This name cannot be stored.")
	}
	var out fileframe.File
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if err := insertFile(ctx, tx, c); err != nil {
			return err
		}
		var err error
		out, err = addItems(ctx, tx, c.ID, items, at)
		return err
	})
	if err != nil {
		return fileframe.File{}, wrap("create collection", err)
	}
	return out, nil
}

// AddToCollection appends items to the collection (CollectionStore), with
// the collection's row locked, so that parallel additions count one after
// another and never exceed MaxCollectionFiles together.
func (s *Store) AddToCollection(ctx context.Context, id fileframe.FileID, items []fileframe.FileID, at time.Time) (fileframe.File, error) {
	items, err := fileframe.CheckCollectionItems(items)
	if err != nil {
		return fileframe.File{}, err
	}
	if !storable(string(id)) {
		return fileframe.File{}, notFound("Collection")
	}
	var c fileframe.File
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		c, err = addItems(ctx, tx, id, items, at)
		return err
	})
	if err != nil {
		return fileframe.File{}, wrap("add to collection", err)
	}
	return c, nil
}

// addItems locks the collection's row, then its new items' (FOR KEY
// SHARE: no deletion until commit), checks them, adds those it does not
// hold after its last one, checks the count and updates the collection's
// size, in tx. It returns the collection as it is then.
func addItems(ctx context.Context, tx pgx.Tx, id fileframe.FileID, items []fileframe.FileID, at time.Time) (fileframe.File, error) {
	c, err := scanFile(tx.QueryRow(ctx, `SELECT `+fileColumns+` FROM files WHERE id = $1 FOR UPDATE`, id))
	if err != nil {
		return c, err
	}
	if !c.IsCollection() {
		return fileframe.File{}, notFound("Collection")
	}
	ids := make([]string, 0, len(items))
	for _, item := range items {
		if !storable(string(item)) {
			return c, notFound("File")
		}
		ids = append(ids, string(item))
	}
	if len(ids) > 0 {
		rows, err := tx.Query(ctx, `
			SELECT account_id, kind, shared FROM files WHERE id = ANY ($1) ORDER BY id FOR KEY SHARE`, ids)
		if err != nil {
			return c, err
		}
		found := 0
		var acct fileframe.AccountID
		var kind fileframe.FileKind
		var shared bool
		_, err = pgx.ForEachRow(rows, []any{&acct, &kind, &shared}, func() error {
			found++
			switch {
			case acct != c.AccountID:
				return notFound("File")
			case kind != fileframe.FileKindFile:
				return fileframe.Errorf(fileframe.CodeNotCollectable, "A collection cannot hold another collection.")
			case !shared:
				return fileframe.ErrUnsharedItem
			}
			return nil
		})
		if err != nil {
			return c, err
		}
		if found != len(ids) {
			return c, notFound("File")
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO collection_files (collection_id, file_id, position, added_at)
			SELECT $1, v.id, (SELECT coalesce(max(position) + 1, 0) FROM collection_files WHERE collection_id = $1) + v.n - 1, $3
			FROM unnest($2::text[]) WITH ORDINALITY AS v (id, n)
			ON CONFLICT DO NOTHING`, id, ids, ts(at)); err != nil {
			return c, err
		}
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM collection_files WHERE collection_id = $1`, id).Scan(&n); err != nil {
		return c, err
	}
	if err := fileframe.CheckCollectionCount(n); err != nil {
		return c, err
	}
	return resizeCollection(ctx, tx, id)
}

// resizeCollection sets the collection's size to the sum of its items'
// and returns it.
func resizeCollection(ctx context.Context, tx pgx.Tx, id fileframe.FileID) (fileframe.File, error) {
	return scanFile(tx.QueryRow(ctx, `
		UPDATE files SET size = (
			SELECT coalesce(sum(i.size), 0) FROM collection_files cf JOIN files i ON i.id = cf.file_id
			WHERE cf.collection_id = files.id)
		WHERE id = $1 AND kind = 'collection'
		RETURNING `+fileColumns, id))
}

// lockCollectionsOf locks the rows of the collections holding file id, in
// the order of their IDs, and returns their IDs.
func lockCollectionsOf(ctx context.Context, tx pgx.Tx, id fileframe.FileID) ([]fileframe.FileID, error) {
	rows, err := tx.Query(ctx, `
		SELECT id FROM files WHERE id IN (SELECT collection_id FROM collection_files WHERE file_id = $1)
		ORDER BY id FOR UPDATE`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[fileframe.FileID])
}

// RemoveFromCollection removes one item (CollectionStore).
func (s *Store) RemoveFromCollection(ctx context.Context, id, item fileframe.FileID) (fileframe.File, error) {
	if !storable(string(id)) {
		return fileframe.File{}, notFound("Collection")
	}
	if !storable(string(item)) {
		return fileframe.File{}, notFound("File")
	}
	var c fileframe.File
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		c, err = scanFile(tx.QueryRow(ctx, `SELECT `+fileColumns+` FROM files WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		if !c.IsCollection() {
			return notFound("Collection")
		}
		tag, err := tx.Exec(ctx, `DELETE FROM collection_files WHERE collection_id = $1 AND file_id = $2`, id, item)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notFound("File")
		}
		c, err = resizeCollection(ctx, tx, id)
		return err
	})
	if err != nil {
		return fileframe.File{}, wrap("remove from collection", err)
	}
	return c, nil
}

// CollectionItems lists the collection's items in order (CollectionStore).
func (s *Store) CollectionItems(ctx context.Context, id fileframe.FileID) ([]fileframe.CollectionItem, error) {
	if !storable(string(id)) {
		return nil, notFound("Collection")
	}
	var items []fileframe.CollectionItem
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		items = []fileframe.CollectionItem{}
		var kind fileframe.FileKind
		err := tx.QueryRow(ctx, `SELECT kind FROM files WHERE id = $1`, id).Scan(&kind)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && kind != fileframe.FileKindCollection) {
			return notFound("Collection")
		} else if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `
			SELECT `+prefixed("f.", fileColumns)+`, cf.added_at
			FROM collection_files cf JOIN files f ON f.id = cf.file_id
			WHERE cf.collection_id = $1 ORDER BY cf.position`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var fs fileScan
			var added pgtype.Timestamptz
			if err := rows.Scan(append(fs.dest(), &added)...); err != nil {
				return err
			}
			items = append(items, fileframe.CollectionItem{File: fs.file(), AddedAt: fromTS(added)})
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap("collection items", err)
	}
	return items, nil
}

// CollectionsOf lists the collections that hold the file (CollectionStore).
func (s *Store) CollectionsOf(ctx context.Context, id fileframe.FileID) ([]fileframe.FileID, error) {
	if !storable(string(id)) {
		return []fileframe.FileID{}, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT collection_id FROM collection_files WHERE file_id = $1 ORDER BY collection_id`, id)
	if err != nil {
		return nil, wrap("collections of", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[fileframe.FileID])
	if ids == nil {
		ids = []fileframe.FileID{}
	}
	return ids, wrap("collections of", err)
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
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
	err = s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if err := accountExists(ctx, tx, c.AccountID); err != nil {
			return err
		}
		if err := insertFile(ctx, tx, c); err != nil {
			return err
		}
		var err error
		c, err = addItems(ctx, tx, c.ID, items, at)
		return err
	})
	if err != nil {
		return fileframe.File{}, wrap("create collection", err)
	}
	return c, nil
}

// AddToCollection appends items to the collection (CollectionStore). The
// single writer runs one transaction at a time, so the count it checks
// cannot change before the insert.
func (s *Store) AddToCollection(ctx context.Context, id fileframe.FileID, items []fileframe.FileID, at time.Time) (fileframe.File, error) {
	items, err := fileframe.CheckCollectionItems(items)
	if err != nil {
		return fileframe.File{}, err
	}
	var c fileframe.File
	err = s.inTx(ctx, func(ctx context.Context, tx querier) error {
		var err error
		c, err = addItems(ctx, tx, id, items, at)
		return err
	})
	if err != nil {
		return fileframe.File{}, wrap("add to collection", err)
	}
	return c, nil
}

// addItems adds items after the collection's last one, skipping those it
// holds, checks each item and the count, and updates the collection's
// size, in tx. It returns the collection as it is then.
func addItems(ctx context.Context, tx querier, id fileframe.FileID, items []fileframe.FileID, at time.Time) (fileframe.File, error) {
	c, err := collectionIn(ctx, tx, id)
	if err != nil {
		return c, err
	}
	var next int64
	if err := tx.QueryRowContext(ctx, `
		SELECT coalesce(max(position) + 1, 0) FROM collection_files WHERE collection_id = ?`, id).Scan(&next); err != nil {
		return c, err
	}
	for _, item := range items {
		var acct fileframe.AccountID
		var kind fileframe.FileKind
		var shared bool
		err := tx.QueryRowContext(ctx, `SELECT account_id, kind, shared FROM files WHERE id = ?`, item).Scan(&acct, &kind, &shared)
		switch {
		case errors.Is(err, sql.ErrNoRows) || (err == nil && acct != c.AccountID):
			return c, notFound("File")
		case err != nil:
			return c, err
		case kind != fileframe.FileKindFile:
			return c, notCollectable()
		case !shared:
			return c, fileframe.ErrUnsharedItem
		}
		res, err := tx.ExecContext(ctx, `
			INSERT INTO collection_files (collection_id, file_id, position, added_at) VALUES (?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, id, item, next, at.UnixMilli())
		if err != nil {
			return c, err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			next++
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM collection_files WHERE collection_id = ?`, id).Scan(&n); err != nil {
		return c, err
	}
	if err := fileframe.CheckCollectionCount(n); err != nil {
		return c, err
	}
	return resizeCollection(ctx, tx, id)
}

// notCollectable is the error of an item that is itself a collection.
func notCollectable() error {
	return fileframe.Errorf(fileframe.CodeNotCollectable, "A collection cannot hold another collection.")
}

// collectionIn returns the collection id read in tx; a file that is not a
// collection is ENOTFOUND.
func collectionIn(ctx context.Context, tx querier, id fileframe.FileID) (fileframe.File, error) {
	c, err := scanFile(tx.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = ?`, id))
	if err != nil {
		return c, err
	}
	if !c.IsCollection() {
		return fileframe.File{}, notFound("Collection")
	}
	return c, nil
}

// resizeCollection sets the collection's size to the sum of its items'
// and returns it.
func resizeCollection(ctx context.Context, tx querier, id fileframe.FileID) (fileframe.File, error) {
	return scanFile(tx.QueryRowContext(ctx, `
		UPDATE files SET size = (
			SELECT coalesce(sum(i.size), 0) FROM collection_files cf JOIN files i ON i.id = cf.file_id
			WHERE cf.collection_id = files.id)
		WHERE id = ? AND kind = 'collection'
		RETURNING `+fileColumns, id))
}

// RemoveFromCollection removes one item (CollectionStore).
func (s *Store) RemoveFromCollection(ctx context.Context, id, item fileframe.FileID) (fileframe.File, error) {
	var c fileframe.File
	err := s.inTx(ctx, func(ctx context.Context, tx querier) error {
		if _, err := collectionIn(ctx, tx, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM collection_files WHERE collection_id = ? AND file_id = ?`, id, item)
		if err != nil {
			return err
		}
		if err := mustAffect(res, "File"); err != nil {
			return err
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
	items := []fileframe.CollectionItem{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if _, err := collectionIn(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `
			SELECT `+prefixed("f.", fileColumns)+`, cf.added_at
			FROM collection_files cf JOIN files f ON f.id = cf.file_id
			WHERE cf.collection_id = ? ORDER BY cf.position`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var fs fileScan
			var added int64
			if err := rows.Scan(append(fs.dest(), &added)...); err != nil {
				return err
			}
			items = append(items, fileframe.CollectionItem{File: fs.file(), AddedAt: time.UnixMilli(added).UTC()})
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
	ids, err := collectionsOf(ctx, s.read, id)
	return ids, wrap("collections of", err)
}

// collectionsOf lists the IDs of the collections holding file id.
func collectionsOf(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, id fileframe.FileID) ([]fileframe.FileID, error) {
	rows, err := q.QueryContext(ctx, `SELECT collection_id FROM collection_files WHERE file_id = ? ORDER BY collection_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []fileframe.FileID{}
	for rows.Next() {
		var c fileframe.FileID
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		ids = append(ids, c)
	}
	return ids, rows.Err()
}

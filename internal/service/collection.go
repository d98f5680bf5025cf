package service

import (
	"context"
	"strings"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Collections (fileframe/collection.go): several of an account's files
// under one link. Renaming and deleting a collection are RenameFile and
// DeleteFile (a collection is a file row); its link controls SetLink.

// CreateCollection makes a collection of the account's files named items
// (in that order, duplicates once; none is allowed) under name, which
// follows the file name rules (the ZIP is "<name>.zip"). Any item that is
// not one of the account's files is not found, as OwnFile; a collection
// is not collectable; more than fileframe.MaxCollectionFiles is
// CodeCollectionFull.
func (s *Service) CreateCollection(ctx context.Context, a fileframe.Account, name string, items []fileframe.FileID) (fileframe.File, error) {
	name = strings.TrimSpace(name)
	if err := checkName(name); err != nil {
		return fileframe.File{}, err
	}
	items, err := collectable(items)
	if err != nil {
		return fileframe.File{}, err
	}
	c, err := s.store.CreateCollection(ctx, fileframe.File{AccountID: a.ID, Name: name}, items, s.now())
	if err != nil {
		return fileframe.File{}, itemError(err, items)
	}
	s.changed()
	return c, nil
}

// AddToCollection appends the account's files named items to its
// collection id, skipping those it holds; the link stays. Errors as in
// CreateCollection; an ID that is not one of the account's collections is
// CodeCollectionNotFound.
func (s *Service) AddToCollection(ctx context.Context, a fileframe.Account, id fileframe.FileID, items []fileframe.FileID) (fileframe.File, error) {
	c, err := s.OwnCollection(ctx, a, id)
	if err != nil {
		return fileframe.File{}, err
	}
	items, err = collectable(items)
	if err != nil {
		return fileframe.File{}, err
	}
	c, err = s.store.AddToCollection(ctx, c.ID, items, s.now())
	if err != nil {
		return fileframe.File{}, itemError(err, items)
	}
	s.changed()
	return c, nil
}

// RemoveFromCollection takes file item out of the account's collection
// id (the file itself stays); the link stays. A file that is not an item
// is not found.
func (s *Service) RemoveFromCollection(ctx context.Context, a fileframe.Account, id, item fileframe.FileID) (fileframe.File, error) {
	c, err := s.OwnCollection(ctx, a, id)
	if err != nil {
		return fileframe.File{}, err
	}
	if !fileframe.LooksLikeFileID(string(item)) {
		return fileframe.File{}, notAnItem(item)
	}
	c, err = s.store.RemoveFromCollection(ctx, c.ID, item)
	if fileframe.IsNotFound(err) {
		return fileframe.File{}, notAnItem(item)
	} else if err != nil {
		return fileframe.File{}, err
	}
	s.changed()
	return c, nil
}

// CollectionFiles returns the account's collection id and its items, in
// order.
func (s *Service) CollectionFiles(ctx context.Context, a fileframe.Account, id fileframe.FileID) (fileframe.File, []fileframe.CollectionItem, error) {
	c, err := s.OwnCollection(ctx, a, id)
	if err != nil {
		return fileframe.File{}, nil, err
	}
	items, err := s.store.CollectionItems(ctx, c.ID)
	if fileframe.IsNotFound(err) {
		return fileframe.File{}, nil, collectionNotFound(id)
	}
	return c, items, err
}

// OwnCollection returns the account's collection with that ID. A file
// that is not a collection, another account's and a missing one are all
// CodeCollectionNotFound.
func (s *Service) OwnCollection(ctx context.Context, a fileframe.Account, id fileframe.FileID) (fileframe.File, error) {
	if !fileframe.LooksLikeFileID(string(id)) {
		return fileframe.File{}, collectionNotFound(id)
	}
	c, err := s.OwnFile(ctx, a, id)
	if fileframe.IsNotFound(err) || (err == nil && !c.IsCollection()) {
		return fileframe.File{}, collectionNotFound(id)
	}
	return c, err
}

// collectable checks the shape of the IDs, drops duplicates and checks the
// count (fileframe.CheckCollectionItems). That each is a file (not a
// collection) of the account is checked by the store, in the transaction
// that adds it, so that no file changes hands or kind in between.
func collectable(items []fileframe.FileID) ([]fileframe.FileID, error) {
	for _, id := range items {
		if !fileframe.LooksLikeFileID(string(id)) {
			return nil, itemNotFound(id)
		}
	}
	return fileframe.CheckCollectionItems(items)
}

// itemError words the store's refusal of items: a missing item (or
// another account's) names the file when there is one.
func itemError(err error, items []fileframe.FileID) error {
	if fileframe.IsNotFound(err) {
		if len(items) == 1 {
			return itemNotFound(items[0])
		}
		return fileframe.Errorf(fileframe.CodeFileNotFound, "One of the files is not a file of this account; check the file IDs.")
	}
	return err
}

func itemNotFound(id fileframe.FileID) error {
	return fileframe.Errorf(fileframe.CodeFileNotFound, "There is no file %q in this account.", truncate(string(id), 100))
}

func notAnItem(id fileframe.FileID) error {
	return fileframe.Errorf(fileframe.CodeFileNotFound, "The collection holds no file %q.", truncate(string(id), 100))
}

func collectionNotFound(id fileframe.FileID) error {
	return fileframe.Errorf(fileframe.CodeCollectionNotFound, "There is no collection %q in this account.", truncate(string(id), 100))
}

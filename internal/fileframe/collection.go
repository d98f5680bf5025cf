package fileframe

import (
	"context"
	"time"
)

// A collection is a row of files (File.Kind FileKindCollection) without
// bytes of its own (BlobKey "", ContentType application/zip) whose link
// /f/<slug> offers its items: each file on its own, and all of them as one
// ZIP streamed as it is read. Everything keyed by FileID (link controls,
// appearances, custom pages, page-bound keys) works for it unchanged.
// Items are files (never collections) of the collection's own account;
// adding or removing them never changes the slug. A collection's Size is
// the sum of its items' sizes, kept by the store in the transaction that
// changes them, and counts nowhere in quotas (the bytes are the items').

// MaxCollectionFiles is the most items a collection holds.
const MaxCollectionFiles = 1000

// ErrUnsharedItem is the error of an item that is a received file not yet
// shared: its own link answers 404 until its owner shares it, and a
// collection must not publish it first.
var ErrUnsharedItem = Errorf(CodeNotCollectable,
	"This file was received through a file request and is not shared yet: share it first (its Share button, POST /api/files/{id}/share), then add it to the collection.")

// CollectionContentType is the Content-Type of a collection's download.
const CollectionContentType = "application/zip"

// CollectionItem is one file of a collection, in the collection's order.
type CollectionItem struct {
	File    File
	AddedAt time.Time
}

// CollectionStore keeps the items of collections. Errors follow Store's
// conventions; the ID lists of CreateCollection and AddToCollection are
// checked in the transaction that stores them:
//   - a missing item, or one of another account, is ENOTFOUND (as a
//     missing file);
//   - an item that is a collection is CodeNotCollectable, and so is a
//     file received through a request that its owner has not shared
//     (ErrUnsharedItem): a collection's link would otherwise serve it;
//   - more than MaxCollectionFiles items in all is CodeCollectionFull, and
//     nothing is added.
type CollectionStore interface {
	// CreateCollection stores c (Kind, BlobKey and ContentType are set
	// for it; ID, Slug and CreatedAt as CreateFile sets them) with items
	// in their order, duplicates once, in one transaction; an empty list
	// is allowed.
	CreateCollection(ctx context.Context, c File, items []FileID, at time.Time) (File, error)
	// AddToCollection appends items to collection id in their order,
	// skipping those it already holds, and returns the collection with
	// its new Size. An ID that is not a collection is ENOTFOUND.
	AddToCollection(ctx context.Context, id FileID, items []FileID, at time.Time) (File, error)
	// RemoveFromCollection removes one item and returns the collection
	// with its new Size; a file that is not an item is ENOTFOUND.
	RemoveFromCollection(ctx context.Context, id, item FileID) (File, error)
	// CollectionItems lists the collection's items in the order they were
	// added. An ID that is not a collection is ENOTFOUND.
	CollectionItems(ctx context.Context, id FileID) ([]CollectionItem, error)
	// CollectionsOf lists the IDs of the collections that hold file id.
	CollectionsOf(ctx context.Context, id FileID) ([]FileID, error)
}

// CheckCollectionItems returns items without duplicates, in their first
// order; more than MaxCollectionFiles of them is CodeCollectionFull. The
// stores count again, with the items already held, in their transaction.
func CheckCollectionItems(items []FileID) ([]FileID, error) {
	seen := make(map[FileID]bool, len(items))
	out := make([]FileID, 0, len(items))
	for _, id := range items {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	if len(out) > MaxCollectionFiles {
		return nil, collectionFull()
	}
	return out, nil
}

// collectionFull is the error of a collection that would exceed
// MaxCollectionFiles.
func collectionFull() error {
	return Errorf(CodeCollectionFull, "A collection holds at most %d files.", MaxCollectionFiles)
}

// CheckCollectionCount is collectionFull when a collection would hold n
// items; the stores call it inside the transaction that adds them.
func CheckCollectionCount(n int) error {
	if n > MaxCollectionFiles {
		return collectionFull()
	}
	return nil
}

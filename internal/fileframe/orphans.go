package fileframe

import (
	"context"
	"time"
)

// BlobGrace is how old a blob no row refers to must be before it is
// removed. A blob is put before the row that refers to it commits, and
// Blobs.Put refreshes a blob's ModTime even when the content was already
// stored, so a younger blob may be one that a new file (with the same bytes
// as a deleted one) is about to use. The gap between a Put and its row is
// one request, well under a minute.
const BlobGrace = time.Minute

// RemoveBlobIfUnused removes the blob under key when no file or appearance
// refers to it and it is at least BlobGrace old at now, and reports whether
// it did; with it go its preview and the preview's thumbnail (when
// unused). A younger blob is left for CollectOrphanBlobs; a missing one is
// not an error, and so is a key that names no blob (a collection's "").
func RemoveBlobIfUnused(ctx context.Context, s Store, b Blobs, key string, now time.Time) (bool, error) {
	if !IsBlobKey(key) {
		return false, nil
	}
	info, err := b.Stat(ctx, key)
	if IsNotFound(err) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if now.Sub(info.ModTime) < BlobGrace {
		return false, nil
	}
	inUse, err := s.BlobInUse(ctx, key)
	if err != nil || inUse {
		return false, err
	}
	// A Put of the same content since the first Stat refreshed the
	// ModTime, and its row may be about to commit: keep the blob.
	again, err := b.Stat(ctx, key)
	if IsNotFound(err) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if !again.ModTime.Equal(info.ModTime) {
		return false, nil
	}
	if err := b.Delete(ctx, key); err != nil {
		return false, err
	}
	// The blob's preview goes with it, and then its thumbnail, unless
	// something else uses those bytes too (or it is younger than
	// BlobGrace: the collector's walk then takes it later).
	p, err := s.DeletePreview(ctx, key)
	if IsNotFound(err) {
		return true, nil
	} else if err != nil {
		return true, err
	}
	if p.ThumbKey != "" && p.ThumbKey != key {
		if _, err := RemoveBlobIfUnused(ctx, s, b, p.ThumbKey, now); err != nil {
			return true, err
		}
	}
	return true, nil
}

// CollectOrphanBlobs removes every blob that no row refers to and that is
// at least BlobGrace old at now (left by a crash between a Put and its row,
// by a failed upload, or by a deletion within BlobGrace of an upload), and
// returns how many it removed. It stops at the first error.
func CollectOrphanBlobs(ctx context.Context, s Store, b Blobs, now time.Time) (int, error) {
	removed := 0
	err := b.Walk(ctx, func(info BlobInfo) error {
		if now.Sub(info.ModTime) < BlobGrace {
			return nil
		}
		ok, err := RemoveBlobIfUnused(ctx, s, b, info.Key, now)
		if ok {
			removed++
		}
		return err
	})
	return removed, err
}

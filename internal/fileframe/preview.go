package fileframe

import (
	"context"
	"time"
)

// Preview is what Fileframe keeps to preview a blob's content on the
// public pages (issue 13): for an image, the thumbnail it made once,
// itself a blob. It is a fact about the bytes under BlobKey, which never
// change, so it is shared by every file with those bytes and every
// instance.
type Preview struct {
	BlobKey string // the previewed blob
	Kind    string // PreviewImage
	// ThumbKey is the blob of the re-encoded thumbnail; "" when none can
	// be made (the image is too large, or does not decode), so that it is
	// not tried again.
	ThumbKey      string
	Width, Height int // the thumbnail's size in pixels; 0 without one
	CreatedAt     time.Time
}

// Kinds of Preview.
const (
	PreviewImage = "image"
)

// PreviewStore keeps previews. Errors follow Store's conventions.
//
// A thumbnail's blob is in use (BlobInUse) while its Preview exists. The
// Preview goes when its blob does: RemoveBlobIfUnused deletes it, and
// then its thumbnail, once no file uses the blob any more.
type PreviewStore interface {
	// Preview returns the preview of the blob key; ENOTFOUND when none
	// was made.
	Preview(ctx context.Context, blobKey string) (Preview, error)
	// PutPreview stores p unless the blob already has a preview, and
	// returns the one stored (the first one wins: instances that made the
	// same thumbnail at once agree on one). It is ENOTFOUND when no file
	// uses p.BlobKey (the file was deleted meanwhile), EINVALID when a key
	// is not a blob key (ThumbKey may be empty) or the kind is unknown.
	PutPreview(ctx context.Context, p Preview) (Preview, error)
	// DeletePreview removes the blob's preview and returns it; ENOTFOUND
	// when there is none.
	DeletePreview(ctx context.Context, blobKey string) (Preview, error)
}

// CheckPreview returns an EINVALID error unless p can be stored.
func CheckPreview(p Preview) error {
	switch {
	case !IsBlobKey(p.BlobKey):
		return Errorf(EINVALID, "A preview needs the blob key of its content.")
	case p.ThumbKey != "" && !IsBlobKey(p.ThumbKey):
		return Errorf(EINVALID, "A preview's thumbnail must be a blob key.")
	case p.Kind != PreviewImage:
		return Errorf(EINVALID, "Unknown preview kind %q.", p.Kind)
	case p.Width < 0 || p.Height < 0 || (p.ThumbKey == "") != (p.Width == 0 && p.Height == 0):
		return Errorf(EINVALID, "A preview's size must be positive with a thumbnail and zero without.")
	}
	return nil
}

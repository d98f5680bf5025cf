package fileframe

import (
	"context"
	"io"
	"time"
)

// Blobs keeps file bytes, content-addressed: a blob's key is the hex SHA-256
// of its content, so equal files are stored once. Implementations:
// internal/blob/disk (the embedded default) and internal/blob/s3;
// internal/blob/blobtest is the conformance suite both pass.
//
// Open and Stat return an *Error with code ENOTFOUND for an unknown key; every
// method returns EINVALID for a string that is not a key (64 lower-case hex
// digits), before touching storage.
type Blobs interface {
	// Put stores everything read from r and returns its key and size. It
	// returns only once the bytes are durable (a crash after Put returns
	// never loses them), so a row referring to the blob may then commit. It
	// never holds the whole content in memory. On error nothing is left
	// behind under the key. Putting content that is already stored refreshes
	// its ModTime, so a collector of orphaned blobs that spares blobs younger
	// than a grace period never deletes one that a new row is about to use.
	Put(ctx context.Context, r io.Reader) (BlobInfo, error)
	// Open returns a reader of the blob. Its Body can seek, so
	// http.ServeContent can answer ranges; on local disk it is an *os.File,
	// which lets net/http use sendfile. The caller closes Body.
	Open(ctx context.Context, key string) (BlobReader, error)
	// Stat returns the blob's size and modification time.
	Stat(ctx context.Context, key string) (BlobInfo, error)
	// Delete removes the blob; deleting a missing blob is not an error.
	Delete(ctx context.Context, key string) error
	// Walk calls fn for every stored blob, in no particular order, stopping
	// at fn's first error (used to collect orphaned blobs).
	Walk(ctx context.Context, fn func(BlobInfo) error) error
	// Ping reports whether the blob store is reachable.
	Ping(ctx context.Context) error
}

// IsBlobKey reports whether s is a blob key: 64 lower-case hex digits, the
// SHA-256 of a blob's content.
func IsBlobKey(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// BlobInfo describes a stored blob.
type BlobInfo struct {
	Key     string // hex SHA-256 of the content
	Size    int64
	ModTime time.Time
}

// BlobReader is an open blob.
type BlobReader struct {
	Body io.ReadSeekCloser
	BlobInfo
}

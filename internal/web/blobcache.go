package web

import (
	"sync"
)

// Small downloads are served from memory: opening, reading and closing a
// blob cost more than the response itself for a file of a few kilobytes
// (and a round trip on S3). Blobs are content-addressed (their key is the
// SHA-256 of their bytes) and never change, so a copy kept by key can never
// be stale; the file row, which can, is still read (through the public
// cache) on every request.
const (
	// blobCacheMaxBlob is the largest blob kept; larger ones are streamed
	// from the blob store (sendfile on disk).
	blobCacheMaxBlob = 64 << 10
	// blobCacheMax bounds the bytes kept in all.
	blobCacheMax = 32 << 20
)

// blobCache holds the bytes of small blobs by key, up to max bytes in all.
// When a new blob does not fit, blobs picked at random (Go's map order) are
// dropped until it does: without a recency list, a hit only takes a read
// lock.
type blobCache struct {
	mu    sync.RWMutex
	blobs map[string][]byte
	size  int // bytes held
	max   int
}

func newBlobCache(max int) *blobCache {
	return &blobCache{blobs: make(map[string][]byte), max: max}
}

// get returns the bytes of the blob with key, which the caller must not
// change.
func (c *blobCache) get(key string) ([]byte, bool) {
	c.mu.RLock()
	b, ok := c.blobs[key]
	c.mu.RUnlock()
	return b, ok
}

// put keeps b as the bytes of the blob with key; b must not change
// afterwards.
func (c *blobCache) put(key string, b []byte) {
	if len(b) > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.blobs[key]; ok {
		return
	}
	for k, old := range c.blobs {
		if c.size+len(b) <= c.max {
			break
		}
		delete(c.blobs, k)
		c.size -= len(old)
	}
	c.blobs[key] = b
	c.size += len(b)
}

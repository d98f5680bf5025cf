package web

import (
	"sync"
	"sync/atomic"
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
	// blobCacheMax bounds the bytes kept in all: 2,048 files of 4 KiB,
	// small beside DESIGN's 32 MiB ceiling on a large download's RSS.
	blobCacheMax = 8 << 20
)

// blobCache holds bytes by the hash of their content, up to max bytes in
// all: the bytes of small blobs (Server.blobCache), and the HTML of live
// revisions (Server.pageHTML, content_page.go).
// When a new blob does not fit, blobs picked at random (Go's map order) are
// dropped until it does: without a recency list, a hit only takes a read
// lock.
type blobCache struct {
	mu    sync.RWMutex
	blobs map[string]*cachedBlob
	size  int // bytes held
	max   int
}

// cachedBlob is a blob's bytes and the download headers that depend only
// on it, or on the name of the file last served with it; nothing in it is
// changed once set.
type cachedBlob struct {
	body []byte
	etag []string // the ETag header's value: the key, quoted
	// disposition is the Content-Disposition of the last file name served
	// with the blob (most blobs have one name).
	disposition atomic.Pointer[namedDisposition]
}

type namedDisposition struct {
	name  string
	value []string
}

// dispositionFor returns the Content-Disposition header value for a file
// of this blob called name.
func (b *cachedBlob) dispositionFor(name string) []string {
	if d := b.disposition.Load(); d != nil && d.name == name {
		return d.value
	}
	d := &namedDisposition{name: name, value: []string{contentDisposition(name)}}
	b.disposition.Store(d)
	return d.value
}

func newBlobCache(max int) *blobCache {
	return &blobCache{blobs: make(map[string]*cachedBlob), max: max}
}

// get returns the blob with key.
func (c *blobCache) get(key string) (*cachedBlob, bool) {
	c.mu.RLock()
	b, ok := c.blobs[key]
	c.mu.RUnlock()
	return b, ok
}

// put keeps body as the bytes of the blob with key, and returns its entry;
// body must not change afterwards. A body larger than the cache is
// returned in an entry that is not kept.
func (c *blobCache) put(key string, body []byte) *cachedBlob {
	b := &cachedBlob{body: body, etag: []string{`"` + key + `"`}}
	if len(body) > c.max {
		return b
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.blobs[key]; ok {
		return old
	}
	for k, old := range c.blobs {
		if c.size+len(body) <= c.max {
			break
		}
		delete(c.blobs, k)
		c.size -= len(old.body)
	}
	c.blobs[key] = b
	c.size += len(body)
	return b
}

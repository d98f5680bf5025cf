package web

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
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
// on it, or on the file last served with it; nothing in it is changed once
// set.
type cachedBlob struct {
	body   []byte
	etag   []string // the ETag header's value: the key, quoted
	length []string // the Content-Length header's value
	// file holds the headers of the last file served with the blob (most
	// blobs have one file).
	file atomic.Pointer[fileHeaders]
}

// fileHeaders are the headers of a download that depend on its file: its
// name, type and time.
type fileHeaders struct {
	name, contentType string
	created           time.Time
	disposition       []string
	contentTypeValue  []string // downloadType's
	// lastModified is Last-Modified as http.ServeContent sets it: nil for
	// a zero time or the Unix epoch, which it leaves out.
	lastModified []string
}

// headersFor returns the headers of a download of f, a file of this blob.
func (b *cachedBlob) headersFor(f *fileframe.File) *fileHeaders {
	if h := b.file.Load(); h != nil && h.name == f.Name && h.contentType == f.ContentType && h.created.Equal(f.CreatedAt) {
		return h
	}
	h := &fileHeaders{
		name: f.Name, contentType: f.ContentType, created: f.CreatedAt,
		disposition:      []string{contentDisposition(f.Name)},
		contentTypeValue: []string{downloadType(f.ContentType)},
	}
	if !f.CreatedAt.IsZero() && !f.CreatedAt.Equal(time.Unix(0, 0)) {
		h.lastModified = []string{f.CreatedAt.UTC().Format(http.TimeFormat)}
	}
	b.file.Store(h)
	return h
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
	b := &cachedBlob{body: body, etag: []string{`"` + key + `"`}, length: []string{strconv.Itoa(len(body))}}
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

// whole reports whether http.ServeContent would answer r with the whole
// body and a 200 whatever the body: a GET with no Range and no
// precondition (If-Match, If-None-Match, If-Modified-Since,
// If-Unmodified-Since, If-Range).
func whole(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	h := r.Header
	return h["Range"] == nil && h["If-Match"] == nil && h["If-None-Match"] == nil &&
		h["If-Modified-Since"] == nil && h["If-Unmodified-Since"] == nil && h["If-Range"] == nil
}

// acceptRanges is the Accept-Ranges header of a body that can be served in
// ranges, as http.ServeContent sets it.
var acceptRanges = []string{"bytes"}

// writeWhole answers a request for which whole is true with body, as
// http.ServeContent would, but with headers made once: Accept-Ranges,
// Content-Length (length, body's), a 200 and the body. It spares an answer
// from memory ServeContent's parsing, its header values made anew each
// time, and its copy through io.CopyN. The headers ServeContent takes
// from its caller (Last-Modified, its own for a modtime) are the
// caller's.
func writeWhole(w http.ResponseWriter, body []byte, length []string) {
	h := w.Header()
	h["Accept-Ranges"] = acceptRanges
	h["Content-Length"] = length
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

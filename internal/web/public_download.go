package web

import (
	"context"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// minDownloadRate is the slowest client a download waits for: the write
// deadline of a download is one minute plus its size at this rate, so a
// large file can finish while a stalled client still times out.
const minDownloadRate = 32 << 10 // bytes per second

// downloadDeadline is the write deadline of a download of size bytes
// starting now: one minute plus its size at minDownloadRate. Not every
// ResponseWriter supports deadlines (httptest's recorder does not); the
// server's own WriteTimeout then stays in force.
func downloadDeadline(size int64) time.Time {
	return time.Now().Add(time.Minute + time.Duration(float64(size)/minDownloadRate*float64(time.Second)))
}

// presigner is a blob store that can hand out a URL from which a client
// fetches a blob directly (internal/blob/s3's Store). The URL's response
// carries the given Content-Disposition and Content-Type.
type presigner interface {
	PresignGet(ctx context.Context, key, contentDisposition, contentType string) (string, error)
}

// publicDownload serves /f/{slug}/download: the file's bytes with
// http.ServeContent, which answers HEAD, Range, If-Range and If-None-Match.
// Blobs of up to blobCacheMaxBlob bytes come from memory (blobcache.go).
// Larger ones are handed over unwrapped: on local disk the Body is an
// *os.File, and net/http then sends it with sendfile, in constant memory.
func (s *Server) publicDownload(w http.ResponseWriter, r *http.Request) {
	// What is decided before the bytes is in downloadOf, so that its frame
	// is off the stack when they are written (see serveBlob).
	e, v, ok := s.downloadOf(w, r)
	if !ok {
		return
	}
	if f := &e.file; f.IsCollection() || f.Limited() || s.presign != nil && r.Method == http.MethodGet && !protected(*f) {
		s.otherDownload(w, r, e, v)
		return
	}
	s.serveBlob(w, r, &e.file, protected(e.file), e.file.ID, v)
}

// otherDownload serves the downloads that serveBlob does not: collections,
// links with a download limit, and presigned redirects.
func (s *Server) otherDownload(w http.ResponseWriter, r *http.Request, e *publicEntry, v *statVisit) {
	f := e.file
	// A collection's download is the ZIP of its files
	// (public_collection.go), whatever its link's controls.
	if f.IsCollection() {
		s.publicCollectionZip(w, r, e, v)
		return
	}
	// Link controls (public_limit.go): a link with a download limit is
	// served there, whole, claimed and counted; never redirected.
	if f.Limited() {
		s.limitedDownload(w, r, f, f, v)
		return
	}
	s.redirectDownload(w, r, f, v)
}

// downloadOf returns the public entry of a download's link and its
// visit (nil when not counted); it answers and returns false when the
// link is unknown, ended or protected from this request.
func (s *Server) downloadOf(w http.ResponseWriter, r *http.Request) (*publicEntry, *statVisit, bool) {
	e, ok := s.publicLookupEntry(w, r)
	if !ok {
		return nil, nil, false
	}
	// Passwords (public_password.go): the link's cookie or the password in
	// Fileframe-Password; and never the presigned redirect, whose URL
	// would outlive the check.
	if protected(e.file) && !s.linkAccess(w, r, e.file) {
		return nil, nil, false
	}
	// Statistics (stats.go): the click and the completed download count
	// for the variant this visitor's page shows.
	variant, test, _ := s.shown(r, e)
	var v *statVisit
	if sv := s.stats.visit(r, e.file.ID, variant, test); sv.counted {
		v = &sv
	}
	return e, v, true
}

// contentDisposition returns an attachment disposition for name. Names
// outside printable ASCII (and so any CR, LF or other control character) are
// sent as an RFC 6266 / RFC 8187 filename* (UTF-8, percent-encoded); quotes and
// backslashes in a plain name are escaped in a quoted-string.
func contentDisposition(name string) string {
	if name == "" {
		name = "download"
	}
	if v := mime.FormatMediaType("attachment", map[string]string{"filename": name}); v != "" {
		return v
	}
	return "attachment"
}

// countingWriter counts a download of file when its response starts at
// byte 0: a 200, or a single-range 206 whose Content-Range begins
// "bytes 0-". It counts as the status is written, before any byte reaches
// the client; that is also the visit's click (stats.go), and a response
// that reaches the file's last byte (a 200, or a 206 whose range ends
// there, wherever it starts) its completed download. The writer passes
// ReadFrom through so that sendfile still applies, and Unwrap so that
// http.ResponseController still reaches the connection.
type countingWriter struct {
	http.ResponseWriter
	s           *Server
	file        fileframe.FileID
	visit       *statVisit
	wroteHeader bool
	// left is what remains to be written until the file's end; -1 when
	// this response does not reach it (or is not counted).
	left int64
}

func (c *countingWriter) WriteHeader(code int) {
	if !c.wroteHeader && code >= 200 {
		c.wroteHeader = true
		c.left = -1
		rng := c.Header().Get("Content-Range")
		if code == http.StatusOK || code == http.StatusPartialContent && strings.HasPrefix(rng, "bytes 0-") {
			c.s.counts.Add(c.file)
			c.s.metrics.downloads.Inc()
			c.s.stats.click(c.visit)
		}
		// A range that starts later completes a download its visitor
		// started before (a resumed one), not one of its own.
		fromZero := code == http.StatusOK || strings.HasPrefix(rng, "bytes 0-")
		if c.visit != nil && (code == http.StatusOK || code == http.StatusPartialContent && rangeReachesEnd(rng) && (fromZero || c.s.stats.resumes(c.visit))) {
			if n, err := strconv.ParseInt(c.Header().Get("Content-Length"), 10, 64); err == nil {
				c.left = n
				c.wrote(0)
			}
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

// wrote notes n more bytes written and counts the download when they
// reach the file's end.
func (c *countingWriter) wrote(n int64) {
	if c.left < 0 {
		return
	}
	if c.left -= n; c.left <= 0 {
		c.left = -1
		c.s.stats.download(c.visit)
	}
}

// rangeReachesEnd reports whether a Content-Range ("bytes a-b/size") ends
// at the last byte.
func rangeReachesEnd(v string) bool {
	span, size, ok := strings.Cut(strings.TrimPrefix(v, "bytes "), "/")
	if !ok {
		return false
	}
	_, last, ok := strings.Cut(span, "-")
	b, err1 := strconv.ParseInt(last, 10, 64)
	n, err2 := strconv.ParseInt(size, 10, 64)
	return ok && err1 == nil && err2 == nil && b == n-1
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if !c.wroteHeader {
		c.WriteHeader(http.StatusOK)
	}
	n, err := c.ResponseWriter.Write(p)
	c.wrote(int64(n))
	return n, err
}

func (c *countingWriter) ReadFrom(src io.Reader) (int64, error) {
	if !c.wroteHeader {
		c.WriteHeader(http.StatusOK)
	}
	var n int64
	var err error
	if rf, ok := c.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(writerOnly{c.ResponseWriter}, src)
	}
	c.wrote(n)
	return n, err
}

func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// writerOnly hides every method but Write, so io.Copy cannot loop back into
// the ReadFrom that called it.
type writerOnly struct{ io.Writer }

// redirectDownload answers a download GET with a 302 to a presigned URL of
// the blob, whose response names the file and its type as a streamed
// download would. The client sends its Range header on to the object store,
// so the download is counted here when it starts at byte 0: no Range, or one
// that begins "bytes=0-".
//
// Its statistics count the click and, as the bytes are the object
// store's to send, the download too.
func (s *Server) redirectDownload(w http.ResponseWriter, r *http.Request, f fileframe.File, v *statVisit) {
	u, err := s.presign.PresignGet(r.Context(), f.BlobKey, contentDisposition(f.Name), downloadType(f.ContentType))
	if err != nil {
		s.publicError(w, r, err)
		return
	}
	if rng := r.Header.Get("Range"); rng == "" || strings.HasPrefix(rng, "bytes=0-") {
		s.counts.Add(f.ID)
		s.metrics.downloads.Inc()
		s.stats.click(v)
		s.stats.download(v)
	}
	h := w.Header()
	// The URL expires within minutes, so no cache may keep the redirect.
	h.Set("Cache-Control", "no-store")
	s.setDownloadHeaders(h)
	h.Set("Location", u)
	w.WriteHeader(http.StatusFound)
}

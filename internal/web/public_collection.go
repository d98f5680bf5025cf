package web

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/fileframe/fileframe/internal/fileframe"
	"golang.org/x/text/unicode/norm"
)

// Collections on the public side (fileframe/collection.go): /f/{slug} of a
// collection lists its files, each with its own download
// /f/{slug}/files/{fileId}, and /f/{slug}/download answers the ZIP of all
// of them, streamed as the blobs are read. Both pass the collection's own
// gates first, as a file's download does (publicLookupEntry: owner, expiry,
// used up; linkAccess: the password), and a download limit on the
// collection counts the ZIP and a single file alike: one each.

// itemView is one file of a collection as its page lists it.
type itemView struct {
	Name        string
	Size        string
	DownloadURL string
	// Preview is the file's preview (public_preview.go), for the first
	// maxItemPreviews files; nil for the others and for files that have
	// none.
	Preview *previewView
}

// maxItemPreviews is how many of a collection's files its page previews:
// each costs a range read of the blob (and, once per image, a thumbnail),
// and a page of a thousand players would help no one.
const maxItemPreviews = 24

// itemPreviews adds their previews to the first maxItemPreviews files of
// fv, e's collection, and returns them for the page's policy.
func (s *Server) itemPreviews(ctx context.Context, e *publicEntry, fv *fileView) ([]*previewView, error) {
	var views []*previewView
	for i := range min(len(fv.Files), len(e.items), maxItemPreviews) {
		v, err := s.filePreview(ctx, e, e.items[i])
		if err != nil {
			return nil, err
		}
		fv.Files[i].Preview = v
		views = append(views, v)
	}
	return views, nil
}

// collectionItems returns the items of collection c for the public paths.
func (s *Server) collectionItems(ctx context.Context, c fileframe.File) ([]fileframe.File, error) {
	items, err := s.store.CollectionItems(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	files := make([]fileframe.File, len(items))
	for i, it := range items {
		files[i] = it.File
	}
	return files, nil
}

// entryView describes e's file for its public page: a collection with its
// files.
func entryView(e *publicEntry) fileView {
	fv := newFileView(e.file)
	if !e.file.IsCollection() {
		return fv
	}
	fv.Files = make([]itemView, len(e.items))
	base := "/f/" + url.PathEscape(e.file.Slug) + "/files/"
	for i, f := range e.items {
		fv.Files[i] = itemView{Name: f.Name, Size: humanSize(f.Size), DownloadURL: base + url.PathEscape(string(f.ID))}
	}
	return fv
}

// publicCollectionFile serves GET and HEAD /f/{slug}/files/{fileId}: one
// current item of the collection at slug, behind the collection's gates,
// with ranges like a file's download (publicDownload), or counted against
// the collection's limit as a whole (limitedDownload).
func (s *Server) publicCollectionFile(w http.ResponseWriter, r *http.Request) {
	e, ok := s.publicLookupEntry(w, r)
	if !ok {
		return
	}
	c := e.file
	if !c.IsCollection() {
		s.publicNotFound(w, r)
		return
	}
	id := fileframe.FileID(r.PathValue("fileId"))
	var item fileframe.File
	found := false
	if fileframe.LooksLikeFileID(string(id)) {
		for _, f := range e.items {
			if f.ID == id {
				item, found = f, true
				break
			}
		}
	}
	if !found {
		s.publicNotFound(w, r)
		return
	}
	if protected(c) && !s.linkAccess(w, r, c) {
		return
	}
	if c.Limited() {
		s.limitedDownload(w, r, c, item, nil)
		return
	}
	s.serveBlob(w, r, &item, protected(c), c.ID, nil)
}

// collectionZipName is the file name of a collection's ZIP.
func collectionZipName(c fileframe.File) string {
	return c.Name + ".zip"
}

// publicCollectionZip serves /f/{slug}/download of collection c, whose
// gates have passed: the ZIP of its items, or a HEAD's headers alone.
// A collection with a download limit claims a download first, as a
// limited file does (public_limit.go), and counts it when the archive is
// complete; others count a GET at once (the archive has no ranges: every
// GET starts at byte 0).
func (s *Server) publicCollectionZip(w http.ResponseWriter, r *http.Request, e *publicEntry, v *statVisit) {
	c := e.file
	h := w.Header()
	h["Content-Type"] = []string{fileframe.CollectionContentType}
	s.setDownloadHeaders(h)
	h["Content-Disposition"] = []string{contentDisposition(collectionZipName(c))}
	h.Set("Accept-Ranges", "none")
	h.Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	var t *limitedTransfer
	if c.Limited() {
		var ok bool
		if t, ok = s.claim(w, r, c); !ok {
			return
		}
		defer t.finish(false)
		stop := make(chan struct{})
		defer close(stop)
		go t.renew(r.Context(), stop)
	}
	// The first entry's bytes are opened before the status is sent, so
	// that a blob store out of reach is a 503 (with Retry-After), not a
	// 200 with an empty body, and no download is counted.
	var first io.ReadCloser
	if len(e.items) > 0 {
		var err error
		if first, _, err = s.openDownload(r.Context(), e.items[0]); err != nil {
			s.publicError(w, r, err)
			return
		}
	}
	// The write deadline grows with every entry (writeZip).
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(time.Minute))
	w.WriteHeader(http.StatusOK)
	s.counts.Add(c.ID)
	s.metrics.downloads.Inc()
	s.stats.click(v)
	// The status is sent at once, before the first entry is read.
	_ = rc.Flush()
	err := s.writeZip(r.Context(), w, rc, e.items, first, t)
	switch {
	case err == nil:
		s.stats.download(v)
	case clientGone(r, err):
		// A visitor who stops the download is no fault.
	default:
		s.logFor(r).Log(r.Context(), faultLevel(err), "download: writing a collection's ZIP failed", "file_id", c.ID, "err", err)
		// The status is sent: the connection is cut without the end of
		// the body (no last chunk), so that the client sees a failed
		// download, not a ZIP that looks complete.
		panic(http.ErrAbortHandler)
	}
}

// claim claims a download of limited link f (limitedDownload's first
// step), answering the refusal itself; ok false then.
func (s *Server) claim(w http.ResponseWriter, r *http.Request, f fileframe.File) (*limitedTransfer, bool) {
	claim := rand.Text()
	if err := s.store.ClaimDownload(r.Context(), f.ID, claim, s.now(), downloadClaimTTL); err != nil {
		s.refusedClaim(w, r, f, err)
		return nil, false
	}
	return &limitedTransfer{s: s, file: f.ID, claim: claim, log: s.logFor(r)}, true
}

// clientGone reports whether err is the client going away: the request's
// context ended, or the connection was reset or closed under a write.
func clientGone(r *http.Request, err error) bool {
	return r.Context().Err() != nil || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, http.ErrHandlerTimeout) || errors.Is(err, context.Canceled)
}

// writeZip writes the ZIP of files to w: each entry stored (no
// compression: constant memory and CPU, and most shared files are
// compressed already) and streamed from the blob store, under a name safe
// for archives (zipNames), dated by the file's creation. archive/zip
// writes each entry's sizes and CRC after its data (a data descriptor),
// and zip64 records where a size needs them. When t is set (a limited
// link), the archive's last byte is written only once t has counted the
// download, as a limited file's is.
//
// first, if not nil, is the first file's body, opened already.
func (s *Server) writeZip(ctx context.Context, w io.Writer, rc *http.ResponseController, files []fileframe.File, first io.ReadCloser, t *limitedTransfer) error {
	if first != nil {
		defer first.Close() // for a return before its entry; closing twice is harmless
	}
	var out io.Writer = w
	var tail *heldTail
	if t != nil {
		tail = &heldTail{w: w}
		out = tail
	}
	zw := zip.NewWriter(out)
	names := zipNames(files)
	for i, f := range files {
		_ = rc.SetWriteDeadline(downloadDeadline(f.Size))
		hdr := &zip.FileHeader{Name: names[i], Method: zip.Store, Modified: f.CreatedAt}
		hdr.SetMode(0o644)
		ew, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		body := first
		if i > 0 || body == nil {
			if body, _, err = s.openDownload(ctx, f); err != nil {
				return err
			}
		}
		_, err = io.Copy(ew, body)
		body.Close()
		if err != nil {
			return err
		}
		if t != nil && t.lost.Load() {
			return errors.New("the download's claim ran out")
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if !t.finish(true) {
		return errors.New("the download could not be counted")
	}
	_, err := w.Write(tail.last[:])
	return err
}

// heldTail passes writes through but for the very last byte written so
// far, which it holds back: a limited ZIP's last byte leaves only once the
// download is counted.
type heldTail struct {
	w    io.Writer
	last [1]byte
	held bool
}

func (h *heldTail) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if h.held {
		if _, err := h.w.Write(h.last[:]); err != nil {
			return 0, err
		}
	}
	if _, err := h.w.Write(p[:len(p)-1]); err != nil {
		return 0, err
	}
	h.last[0], h.held = p[len(p)-1], true
	return len(p), nil
}

// zipNames returns the names of files' entries in an archive: the file's
// name made safe (zipSafeName), and a second entry of the same name (by
// case-insensitive comparison, as Windows and macOS see them) becomes
// "name (2).ext".
func zipNames(files []fileframe.File) []string {
	taken := make(map[string]bool, len(files))
	out := make([]string, len(files))
	for i, f := range files {
		name := zipSafeName(f.Name)
		ext := path.Ext(name)
		if ext == name {
			ext = ""
		}
		stem := strings.TrimSuffix(name, ext)
		for n := 2; taken[zipNameKey(name)]; n++ {
			name = stem + " (" + strconv.Itoa(n) + ")" + ext
		}
		taken[zipNameKey(name)] = true
		out[i] = name
	}
	return out
}

// zipNameKey is what two names that unpack as one file have in common:
// file systems that ignore case (Windows, macOS) and those that normalise
// Unicode (macOS: "é" as one code point or as "e" and an accent).
func zipNameKey(name string) string {
	return strings.ToLower(norm.NFC.String(name))
}

// windowsDevices are the names Windows keeps for devices, with any
// extension ("CON", "nul.txt"): a file of that name cannot be made.
var windowsDevices = map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true,
	"COM1": true, "COM2": true, "COM3": true, "COM4": true, "COM5": true, "COM6": true, "COM7": true, "COM8": true, "COM9": true,
	"LPT1": true, "LPT2": true, "LPT3": true, "LPT4": true, "LPT5": true, "LPT6": true, "LPT7": true, "LPT8": true, "LPT9": true}

// zipSafeName is a file name as one entry at the archive's root can carry
// it when unpacked anywhere: in Unicode's composed form (NFC), no
// directories ('/' and '\\' become '_'), no drive letter ("C:"), no leading
// dots (a hidden file, or "..") or spaces, no characters Windows refuses
// (<>:"|?* and controls) nor its device names (a '_' is put after them);
// "file" when nothing is left.
func zipSafeName(name string) string {
	name = norm.NFC.String(name)
	name = strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == '\\' || strings.ContainsRune(`<>:"|?*`, r) || unicode.IsControl(r):
			return '_'
		}
		return r
	}, name)
	name = strings.TrimLeft(name, ". ")
	name = strings.TrimRight(name, ". ")
	if name == "" {
		return "file"
	}
	if stem, ext, _ := strings.Cut(name, "."); windowsDevices[strings.ToUpper(strings.TrimRight(stem, " "))] {
		name = stem + "_"
		if ext != "" {
			name += "." + ext
		}
	}
	return name
}

// serveBlob serves f's bytes as publicDownload does for a link without a
// limit: from memory or the blob store through http.ServeContent (HEAD,
// ranges, conditional requests), counting a GET from byte 0 as a download
// of counted (the collection of an item served through it).
//
// The bytes are written below every frame on the way here, and net/http
// writes the headers from a deep one of its own: the frames of the most
// common download, a small file whole (serveWhole), are kept small so that
// its connection's goroutine keeps the 8 KiB stack it starts with
// (TestPublicPagesKeepSmallStacks).
func (s *Server) serveBlob(w http.ResponseWriter, r *http.Request, f *fileframe.File, private bool, counted fileframe.FileID, v *statVisit) {
	if whole(r) {
		if cached, ok := s.blobCache.get(f.BlobKey); ok {
			s.serveWhole(w, r, f, cached, private, counted, v)
			return
		}
	}
	s.serveStream(w, r, f, private, counted, v)
}

// setBlobHeaders sets the headers of a download of f that do not depend on
// where its bytes come from; fh is nil for a blob not in memory.
func (s *Server) setBlobHeaders(h http.Header, f *fileframe.File, fh *fileHeaders, etag []string, private bool) {
	s.setDownloadHeaders(h)
	if fh != nil {
		h["Content-Type"] = fh.contentTypeValue
		h["Content-Disposition"] = fh.disposition
	} else {
		h["Content-Type"] = []string{downloadType(f.ContentType)}
		h["Content-Disposition"] = []string{contentDisposition(f.Name)}
	}
	h["Etag"] = etag
	h["Cache-Control"] = s.hdr.noCache
	if private {
		h["Cache-Control"] = privateNoStore
	}
}

// serveWhole answers a GET for which whole is true with the blob's bytes
// from memory, as http.ServeContent would (TestWholeAnswersAsServeContent).
func (s *Server) serveWhole(w http.ResponseWriter, r *http.Request, f *fileframe.File, cached *cachedBlob, private bool, counted fileframe.FileID, v *statVisit) {
	_ = http.NewResponseController(w).SetWriteDeadline(downloadDeadline(int64(len(cached.body))))
	fh := cached.headersFor(f)
	h := w.Header()
	s.setBlobHeaders(h, f, fh, cached.etag, private)
	if fh.lastModified != nil {
		h["Last-Modified"] = fh.lastModified
	}
	defer release(w, hold(r, int64(len(cached.body))))
	writeWhole(&countingWriter{ResponseWriter: w, s: s, file: counted, visit: v}, cached.body, cached.length)
}

// serveStream serves f's bytes through http.ServeContent: HEAD, ranges,
// conditional requests, and blobs not in memory, which it keeps there
// when small enough.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, f *fileframe.File, private bool, counted fileframe.FileID, v *statVisit) {
	body, size, cached, err := s.openSeekable(r.Context(), *f)
	if err != nil {
		s.publicError(w, r, err)
		return
	}
	defer body.Close()
	_ = http.NewResponseController(w).SetWriteDeadline(downloadDeadline(size))
	if cached != nil {
		s.setBlobHeaders(w.Header(), f, cached.headersFor(f), cached.etag, private)
	} else {
		s.setBlobHeaders(w.Header(), f, nil, []string{`"` + f.BlobKey + `"`}, private)
	}
	if r.Method == http.MethodHead {
		serveContent(w, r, f.CreatedAt, body)
		return
	}
	if cached != nil {
		defer release(w, hold(r, size))
		serveContent(&countingWriter{ResponseWriter: w, s: s, file: counted, visit: v}, r, f.CreatedAt, body)
		return
	}
	// http.ServeContent cuts the answer short when the store fails mid-way
	// and says nothing: the failure is logged here (a warning when the
	// store is out of reach), unless the client had gone.
	rs := &readFailure{ReadSeeker: body}
	serveContent(&countingWriter{ResponseWriter: w, s: s, file: counted, visit: v}, r, f.CreatedAt, rs)
	if rs.err != nil && r.Context().Err() == nil {
		s.logFor(r).Log(r.Context(), faultLevel(rs.err), "download: reading the file failed; the answer was cut short", "file_id", f.ID, "err", rs.err)
	}
}

// readFailure is an io.ReadSeeker that keeps its first read error other
// than io.EOF.
type readFailure struct {
	io.ReadSeeker
	err error
}

func (r *readFailure) Read(p []byte) (int, error) {
	n, err := r.ReadSeeker.Read(p)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}

// openSeekable returns f's bytes for http.ServeContent: from the blob
// cache, or from the blob store (kept in the cache when small enough);
// cached is set when they come from the cache.
func (s *Server) openSeekable(ctx context.Context, f fileframe.File) (body io.ReadSeekCloser, size int64, cached *cachedBlob, err error) {
	if cached, ok := s.blobCache.get(f.BlobKey); ok {
		return nopSeekCloser{bytes.NewReader(cached.body)}, int64(len(cached.body)), cached, nil
	}
	blob, err := s.blobs.Open(ctx, f.BlobKey)
	if err != nil {
		// A file row without its bytes breaks an invariant (blobs are
		// durable before their row commits), so it is an internal error,
		// not a 404.
		return nil, 0, nil, fault(err)
	}
	size = blob.Size
	if size <= 0 {
		size = f.Size
	}
	if 0 < blob.Size && blob.Size <= blobCacheMaxBlob {
		defer blob.Body.Close()
		b := make([]byte, blob.Size)
		if _, err := io.ReadFull(blob.Body, b); err != nil {
			return nil, 0, nil, err
		}
		cached = s.blobCache.put(f.BlobKey, b)
		return nopSeekCloser{bytes.NewReader(b)}, size, cached, nil
	}
	return blob.Body, size, nil, nil
}

// nopSeekCloser is a bytes.Reader with a Close that does nothing.
type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }

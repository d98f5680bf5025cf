package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/thumb"
)

// Previews (issue 13; docs/security.md, "Previews"). The default page and
// the template pages (never a custom page) show what a link holds:
//
//   - an image: a thumbnail, made once per blob by package thumb (decoded
//     under its budget of pixels, re-encoded, never the original bytes),
//     kept as a blob with a row of previews, served from the app origin at
//     /f/<slug>/thumb/<fileId> as an image that runs nothing;
//   - video and audio: <video>/<audio> playing in place from the content
//     origin's /v/<slug>/<fileId> (content_preview.go), with ranges;
//   - a PDF: its first page, drawn by pdf.js in a sandboxed frame of the
//     content origin (/v/<slug>/<fileId>/pdf) that loads only the ranges
//     it needs;
//   - text: its first lines, read by range and written escaped into the
//     page.
//
// The kind is decided from the first 512 bytes (read by range, never the
// whole file) as http.DetectContentType sniffs them AND the file's own
// type, both of one allowlisted kind (previewKindOf): never from the name
// alone, never SVG or HTML. A preview exists only where the download
// would be served: the public pages are shown only then (publicLookupEntry,
// protectedFile), and every preview route asks the same gates again at
// request time. A link with a download limit shows a thumbnail and the
// first lines, which are not the file, but no playback and no PDF: either
// would let the whole file leave without being counted.

// Kinds of preview.
const (
	previewImage = "image"
	previewVideo = "video"
	previewAudio = "audio"
	previewPDF   = "pdf"
	previewText  = "text"
)

// Bounds of previews.
const (
	// sniffLen is what is read to sniff a file's kind, as
	// http.DetectContentType reads.
	sniffLen = 512
	// textPreviewBytes is what is read of a text file for its first lines.
	textPreviewBytes = 16 << 10
	// textPreviewLines and textPreviewLineChars bound the lines shown.
	textPreviewLines     = 40
	textPreviewLineChars = 200
	// sniffCacheMax bounds the blobs whose kind is kept in memory.
	sniffCacheMax = 8192
)

// previewTypes are the files' own types that may be previewed, by kind.
// The sniffed type must be one of sniffedKinds' of the same kind.
var previewTypes = map[string]string{
	"image/png": previewImage, "image/jpeg": previewImage, "image/pjpeg": previewImage,
	"image/gif": previewImage, "image/webp": previewImage,
	"video/mp4": previewVideo, "video/webm": previewVideo, "video/ogg": previewVideo,
	"audio/mpeg": previewAudio, "audio/mp3": previewAudio, "audio/mp4": previewAudio, "audio/x-m4a": previewAudio,
	"audio/ogg": previewAudio, "audio/wav": previewAudio, "audio/wave": previewAudio, "audio/x-wav": previewAudio,
	"audio/webm": previewAudio, "audio/flac": previewAudio, "audio/x-flac": previewAudio,
	"application/pdf": previewPDF,
	"text/plain":      previewText, "text/csv": previewText, "text/markdown": previewText,
	"text/x-markdown": previewText, "application/json": previewText, "text/x-log": previewText,
}

// sniffedKinds are the types http.DetectContentType gives that a preview
// of each kind accepts. A WebM file sniffs as video/webm, an M4A as
// video/mp4 and an Ogg file as application/ogg whether they hold sound or
// pictures: the file's own type says which element plays it.
var sniffedKinds = map[string][]string{
	previewImage: {"image/png", "image/jpeg", "image/gif", "image/webp"},
	previewVideo: {"video/mp4", "video/webm", "application/ogg"},
	previewAudio: {"audio/mpeg", "audio/wave", "audio/flac", "video/mp4", "video/webm", "application/ogg"},
	previewPDF:   {"application/pdf"},
	previewText:  {"text/plain; charset=utf-8"},
}

// sniffed is what a file's first bytes and own type say it can be
// previewed as; kind "" is no preview.
type sniffed struct {
	kind  string
	ctype string // what the content origin serves it as (video, audio, PDF)
}

// previewKindOf decides a file's preview from its own type and its first
// bytes: both must say the same allowlisted kind.
func previewKindOf(declared string, head []byte) sniffed {
	mt, _, err := mime.ParseMediaType(declared)
	if err != nil {
		return sniffed{}
	}
	kind := previewTypes[mt]
	if kind == "" {
		return sniffed{}
	}
	sniff := http.DetectContentType(head)
	for _, ok := range sniffedKinds[kind] {
		if sniff == ok {
			return sniffed{kind: kind, ctype: mt}
		}
	}
	return sniffed{}
}

// sniffCache keeps the kinds of blobs (whose bytes never change) so that
// the content origin's range requests do not read the head again.
type sniffCache struct {
	mu sync.Mutex
	m  map[string]sniffed // by blob key and declared type
}

func (c *sniffCache) get(k string) (sniffed, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *sniffCache) put(k string, v sniffed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= sniffCacheMax {
		c.m = make(map[string]sniffed)
	}
	c.m[k] = v
}

// previewOf returns what f can be previewed as, reading its first
// sniffLen bytes (once per blob and type; sniffCache).
func (s *Server) previewOf(ctx context.Context, f fileframe.File) (sniffed, error) {
	k := f.BlobKey + "\x00" + f.ContentType
	if v, ok := s.sniffs.get(k); ok {
		return v, nil
	}
	if mt, _, err := mime.ParseMediaType(f.ContentType); err != nil || previewTypes[mt] == "" {
		s.sniffs.put(k, sniffed{})
		return sniffed{}, nil
	}
	head, err := s.readHead(ctx, f.BlobKey, sniffLen)
	if err != nil {
		return sniffed{}, err
	}
	v := previewKindOf(f.ContentType, head)
	s.sniffs.put(k, v)
	return v, nil
}

// readHead reads the first n bytes of the blob key (fewer when it is
// shorter): a range of the blob store, never the whole blob.
func (s *Server) readHead(ctx context.Context, key string, n int) ([]byte, error) {
	blob, err := s.blobs.Open(ctx, key)
	if err != nil {
		return nil, fault(err)
	}
	defer blob.Body.Close()
	b := make([]byte, min(int64(n), max(blob.Size, 0)))
	m, err := io.ReadFull(blob.Body, b)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return b[:m], nil
}

// previewView is the data of the "preview" template: one file's preview.
// The zero value shows nothing.
type previewView struct {
	Kind string // previewImage, … ; "" for none
	Name string // the file's name, for alt text and titles
	// An image: its thumbnail's address and size (0 when it is made later,
	// by the thumbnail's route).
	ThumbURL      string
	Width, Height int
	// Video and audio: the content origin's address and type.
	MediaURL, MediaType string
	// A PDF: the content origin's frame that draws its first page.
	FrameURL string
	// Text: the first lines, and whether there is more.
	Lines []string
	More  bool
}

// previewTarget returns the file of e's link that the preview routes may
// serve as fileID: the link's own file, or a current file of the link's
// collection (a collection itself has no preview). Every preview route
// asks it.
func previewTarget(e *publicEntry, fileID string) (fileframe.File, bool) {
	if !e.file.IsCollection() {
		if fileID != string(e.file.ID) {
			return fileframe.File{}, false
		}
		return e.file, true
	}
	for _, f := range e.items {
		if string(f.ID) == fileID {
			return f, true
		}
	}
	return fileframe.File{}, false
}

// filePreview returns the preview of file f on the page of e's link
// (f is e's file, or later an item of e's collection). The caller has
// checked the link's gates. For a protected link it puts access tokens in
// the content origin's addresses, so its page must not be cached; an
// unprotected link's addresses carry nothing that expires.
func (s *Server) filePreview(ctx context.Context, e *publicEntry, f fileframe.File) (*previewView, error) {
	kind, err := s.previewOf(ctx, f)
	if err != nil || kind.kind == "" {
		return nil, err
	}
	v := &previewView{Kind: kind.kind, Name: f.Name}
	base := "/" + url.PathEscape(e.file.Slug) + "/" + url.PathEscape(string(f.ID))
	content := func(suffix string) string {
		u := s.ContentOrigin() + "/v" + base + suffix
		if protected(e.file) {
			u = withAccess(u, s.mediaToken(e.file, f.ID))
		}
		return u
	}
	switch kind.kind {
	case previewImage:
		p, err := s.thumbnail(ctx, f)
		switch {
		case errors.Is(err, thumb.ErrBusy) || errors.Is(err, context.DeadlineExceeded):
			// Made later by the thumbnail's route.
		case err != nil:
			return nil, err
		case p.ThumbKey == "":
			return nil, nil // too large, or it does not decode
		default:
			v.Width, v.Height = p.Width, p.Height
		}
		v.ThumbURL = "/f/" + url.PathEscape(e.file.Slug) + "/thumb/" + url.PathEscape(string(f.ID))
	case previewVideo, previewAudio:
		if e.file.Limited() {
			return nil, nil
		}
		v.MediaURL, v.MediaType = content(""), kind.ctype
	case previewPDF:
		if e.file.Limited() {
			return nil, nil
		}
		v.FrameURL = content("/pdf")
	case previewText:
		v.Lines, v.More, err = s.firstLines(ctx, f.BlobKey)
		if err != nil || len(v.Lines) == 0 {
			return nil, err
		}
	}
	return v, nil
}

// firstLines reads the first textPreviewBytes of the blob by range and
// returns up to textPreviewLines lines of it, each cut at
// textPreviewLineChars, and whether the file goes on. The template
// escapes them.
func (s *Server) firstLines(ctx context.Context, key string) ([]string, bool, error) {
	head, err := s.readHead(ctx, key, textPreviewBytes+1)
	if err != nil {
		return nil, false, err
	}
	more := len(head) > textPreviewBytes
	if more {
		head = head[:textPreviewBytes]
		// Drop the line the read cut through.
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i]
		}
	}
	text := strings.ToValidUTF8(strings.ReplaceAll(string(head), "\r\n", "\n"), "\uFFFD")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > textPreviewLines {
		lines, more = lines[:textPreviewLines], true
	}
	for i, l := range lines {
		if utf8.RuneCountInString(l) > textPreviewLineChars {
			l = string([]rune(l)[:textPreviewLineChars]) + "…"
		}
		lines[i] = l
	}
	if len(lines) == 1 && lines[0] == "" {
		return nil, false, nil
	}
	return lines, more, nil
}

// thumbnail returns the preview of f's image blob, making its thumbnail
// once: from the store when any instance made it, else decoded here (one
// decode per blob in this process at a time), stored as a blob and a row.
// An image that cannot be previewed gets a row without a thumbnail, so
// that it is not decoded again; thumb.ErrBusy is returned, not stored.
func (s *Server) thumbnail(ctx context.Context, f fileframe.File) (fileframe.Preview, error) {
	p, err := s.store.Preview(ctx, f.BlobKey)
	if err == nil || !fileframe.IsNotFound(err) {
		return p, err
	}
	v, err, _ := s.thumbs.Do(f.BlobKey, func() (any, error) {
		// The caller's context must not cancel the decode that others
		// wait for; the Maker's wait still bounds it.
		ctx := context.WithoutCancel(ctx)
		blob, err := s.blobs.Open(ctx, f.BlobKey)
		if err != nil {
			return nil, fault(err)
		}
		defer blob.Body.Close()
		t, err := s.thumbMaker.Make(ctx, blob.Body)
		p := fileframe.Preview{BlobKey: f.BlobKey, Kind: fileframe.PreviewImage, CreatedAt: s.now()}
		switch {
		case errors.Is(err, thumb.ErrRefused) || errors.Is(err, thumb.ErrFormat):
			s.log.Info("preview: no thumbnail", "blob", f.BlobKey, "err", err)
		case err != nil:
			return nil, err
		default:
			info, err := s.blobs.Put(ctx, bytes.NewReader(t.Data))
			if err != nil {
				return nil, err
			}
			p.ThumbKey, p.Width, p.Height = info.Key, t.Width, t.Height
		}
		return s.store.PutPreview(ctx, p)
	})
	if err != nil {
		return fileframe.Preview{}, err
	}
	return v.(fileframe.Preview), nil
}

// publicThumb serves GET /f/{slug}/thumb/{file}: the thumbnail of an
// image the link's page previews, behind the download's gates (404 for a
// disabled owner, 410 for an ended link, the password's cookie or
// header), never counted. It is made here when the page was rendered
// while the budget was full.
func (s *Server) publicThumb(w http.ResponseWriter, r *http.Request) {
	e, ok := s.publicLookupEntry(w, r)
	if !ok {
		return
	}
	f, ok := previewTarget(e, r.PathValue("file"))
	if !ok {
		s.publicNotFound(w, r)
		return
	}
	if protected(e.file) && !s.linkAccess(w, r, e.file) {
		return
	}
	kind, err := s.previewOf(r.Context(), f)
	if err != nil {
		s.publicError(w, r, err)
		return
	}
	if kind.kind != previewImage {
		s.publicNotFound(w, r)
		return
	}
	p, err := s.thumbnail(r.Context(), f)
	switch {
	case errors.Is(err, thumb.ErrBusy):
		w.Header().Set("Retry-After", "5")
		s.publicError(w, r, fileframe.Errorf(fileframe.CodeBusy, "Too many previews are being made right now."))
		return
	case err != nil:
		s.publicError(w, r, err)
		return
	case p.ThumbKey == "":
		s.publicNotFound(w, r)
		return
	}
	// Revalidated on every use, so that the gates are asked each time.
	cache := "no-cache"
	if protected(e.file) {
		cache = "private, no-store"
	}
	s.serveImage(w, r, p.ThumbKey, cache)
}

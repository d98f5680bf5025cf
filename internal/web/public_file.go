package web

import (
	"bytes"
	"embed"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

//go:embed static
var staticFS embed.FS

// filePage is the data of the outer page and of the default page.
type filePage struct {
	Assets   assetURLs
	File     fileView
	FrameURL string // the custom page on the content origin; outer page only
	Preview  bool   // the frame shows a draft through a preview token
}

// fileView is what a visitor is told about a file, or a collection.
type fileView struct {
	Name        string
	Size        string
	DownloadURL string
	// Collection: the link is a collection's, whose DownloadURL is the ZIP
	// of Files (public_collection.go); Files is filled where the page
	// lists them (entryView).
	Collection bool
	Files      []itemView
	// Social is the page's link preview tags (public_card.go); nil on
	// pages that have none.
	Social *socialMeta
	// Preview is the file's preview (public_preview.go); nil when it has
	// none or the page shows none.
	Preview *previewView
}

// errorPage is the data of error.html.
type errorPage struct {
	Assets  assetURLs
	Status  int
	Title   string
	Message string
}

// publicFile serves /f/{slug}: the outer page of a published custom page (or
// of a draft, with a valid preview token), otherwise the neutral default page.
// It only reads from the store, and the public page (the one without a
// preview) comes from the public cache when it holds the slug.
//
// The page is written from a frame of its own, kept small: net/http writes
// the headers from within the first Write, about 4 KiB further down the
// stack, and a deeper stack would make every connection's goroutine grow
// past 8 KiB (docs/performance.md, "Every connection's stack back to 8
// KiB").
func (s *Server) publicFile(w http.ResponseWriter, r *http.Request) {
	p, ok := s.outerPage(w, r)
	if !ok {
		return
	}
	h := w.Header()
	s.setPageHeaders(h, p.csp)
	h["Cache-Control"] = s.hdr.noCache
	h["Content-Type"] = s.hdr.html
	h["Content-Length"] = p.contentLength
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(p.body)
	}
}

// outerPage returns the public outer page that /f/{slug} shows r, having
// counted the view; or it answers r itself (a password page, a preview, an
// error) and returns false.
func (s *Server) outerPage(w http.ResponseWriter, r *http.Request) (*renderedPage, bool) {
	e, ok := s.publicLookupEntry(w, r)
	if !ok {
		return nil, false
	}
	// Passwords (public_password.go): a protected link shows its password
	// page until the visitor has its cookie, and then a page rendered for
	// them, never the public cache's page.
	if protected(e.file) {
		s.protectedFile(w, r, e)
		return nil, false
	}
	if frame, ok := s.previewFrame(r, e); ok {
		h := w.Header()
		s.setPageHeaders(h, s.hdr.cspContent)
		// The page carries the preview token in the frame's address.
		h.Set("Cache-Control", "no-store")
		data := filePage{Assets: s.pages.assets, File: newFileView(e.file), FrameURL: frame, Preview: true}
		if err := s.pages.render(w, r, http.StatusOK, "outer.html", data); err != nil {
			s.publicError(w, r, err)
		}
		return nil, false
	}
	variant, test, rev := s.shown(r, e)
	p, err := s.publicPage(r.Context(), e, rev)
	if err != nil {
		s.publicError(w, r, err)
		return nil, false
	}
	s.stats.view(r, s.stats.visit(r, e.file.ID, variant, test))
	return p, true
}

// previewFrame returns the content-origin address of the draft that
// /f/{slug} should frame for a preview token in the query, and false when
// the public page applies.
//
// A valid preview token for a stored revision frames that revision with the
// preview marker. An invalid, expired or foreign token is ignored: the visitor
// sees the public state, exactly as without the token, so the page tells
// nothing about tokens. A token for the live revision itself shows the plain
// public outer page (it is not a preview any more).
func (s *Server) previewFrame(r *http.Request, e *publicEntry) (string, bool) {
	if !e.hasPage || r.URL.RawQuery == "" {
		return "", false
	}
	token := r.URL.Query().Get("preview")
	if token == "" {
		return "", false
	}
	rev, ok := s.verifyPreview(e.file.Slug, token)
	if !ok || rev > e.page.LatestRevision || rev == e.page.LiveRevision {
		return "", false
	}
	return s.contentPageURL(e.file.Slug, rev, token), true
}

// contentPageURL returns the content-origin address of one revision of the
// page at slug, with a preview token when token is not empty.
func (s *Server) contentPageURL(slug string, rev int, token string) string {
	u := s.ContentOrigin() + "/p/" + url.PathEscape(slug) + "/" + strconv.Itoa(rev)
	if token != "" {
		u += "?preview=" + url.QueryEscape(token)
	}
	return u
}

// publicLookupEntry finds the public record of /f/{slug}
// (public_cache.go). When the file cannot be shown (unknown slug, disabled
// or missing account) it writes the 404 page; on a store failure the 500
// page; and returns ok false.
func (s *Server) publicLookupEntry(w http.ResponseWriter, r *http.Request) (*publicEntry, bool) {
	slug := r.PathValue("slug")
	if !plausibleSlug(slug) {
		// Nothing the store holds: 404 without asking it, which also
		// holds while the database is out of reach.
		s.publicNotFound(w, r)
		return nil, false
	}
	e, err := s.publicRecord(r.Context(), slug)
	if err != nil {
		s.publicLookupError(w, r, err)
		return nil, false
	}
	if e.acct.Disabled {
		s.publicNotFound(w, r)
		return nil, false
	}
	// Link controls (public_gone.go): an expired or used-up link answers
	// 410 with the gone page.
	if s.publicLinkEnded(w, r, e) {
		return nil, false
	}
	return e, true
}

// plausibleSlug reports whether slug could be a link's: 1 to 64 ASCII
// letters, digits, '-' and '_'. The service makes them of 12 base62
// letters (fileframe.NewSlug); the wider set leaves room for other shapes
// without letting a dot, a slash, an encoded byte or a long string reach
// the store.
func plausibleSlug(slug string) bool {
	if len(slug) == 0 || len(slug) > 64 {
		return false
	}
	for i := 0; i < len(slug); i++ {
		c := slug[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func (s *Server) publicLookupError(w http.ResponseWriter, r *http.Request, err error) {
	if fileframe.IsNotFound(err) {
		// Link controls (public_gone.go): the slug of a file removed
		// after its link ended answers 410, not 404.
		if s.publicSlugGone(w, r) {
			return
		}
		s.publicNotFound(w, r)
		return
	}
	s.publicError(w, r, err)
}

// newFileView describes f for a visitor.
func newFileView(f fileframe.File) fileView {
	return fileView{
		Name:        f.Name,
		Size:        humanSize(f.Size),
		DownloadURL: "/f/" + url.PathEscape(f.Slug) + "/download",
		Collection:  f.IsCollection(),
	}
}

// staticFiles serves the embedded static/ files (the pages' CSS and script)
// with an ETag; addresses that carry the content hash (?v=, see assetURL)
// may be cached for a year.
func (s *Server) staticFiles() http.Handler {
	assets := staticAssets()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := assets[r.URL.Path[len("/static/"):]]
		if !ok {
			s.publicNotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.contentType)
		setSubresourceHeaders(h)
		h.Set("ETag", `"`+a.version+`"`)
		if r.URL.Query().Get("v") == a.version {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "public, max-age=300")
		}
		serveContent(w, r, time.Time{}, bytes.NewReader(a.body))
	})
}

// humanSize formats n bytes the way people read sizes: "512 B", "12.4 MB",
// "3.1 GB" (decimal units, one decimal below 100).
func humanSize(n int64) string {
	if n < 1000 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"kB", "MB", "GB", "TB", "PB", "EB"}
	v := float64(n)
	for _, u := range units {
		v /= 1000
		// Round first, so 999,999 bytes is "1.0 MB" rather than "1000 kB".
		if r := roundSize(v); r < 1000 || u == "EB" {
			if r < 100 {
				return strconv.FormatFloat(r, 'f', 1, 64) + " " + u
			}
			return strconv.FormatFloat(r, 'f', 0, 64) + " " + u
		}
	}
	return "" // not reached
}

// roundSize rounds v to what humanSize prints: one decimal below 100.
func roundSize(v float64) float64 {
	if v < 99.95 {
		return float64(int64(v*10+0.5)) / 10
	}
	return float64(int64(v + 0.5))
}

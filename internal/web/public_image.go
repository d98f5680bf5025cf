package web

import (
	"io"
	"net/http"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The appearance images (logo, background) are blobs like files. Only an
// image that the page's appearance refers to is served: a blob key is
// never taken from a request, so no other blob (a file's bytes, another
// account's image) can be reached through these routes.

// imageKinds are the images an appearance has, by the name in their
// address.
var imageKinds = map[string]func(fileframe.Appearance) string{
	"logo":       func(a fileframe.Appearance) string { return a.LogoKey },
	"background": func(a fileframe.Appearance) string { return a.Background },
}

// imageTypes are the image types accepted, by what http.DetectContentType
// sniffs. SVG is not among them: it can carry script.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/webp": true, "image/gif": true}

// publicImage serves GET /f/{slug}/logo and /f/{slug}/background: an image
// of the file's appearance (its own, else its account's) while the owner's
// plan has templates, whether or not a published custom page hides it.
func (s *Server) publicImage(kind string) http.HandlerFunc {
	keyOf := imageKinds[kind]
	return func(w http.ResponseWriter, r *http.Request) {
		e, ok := s.publicLookupEntry(w, r)
		if !ok {
			return
		}
		key := ""
		if e.hasTemplate {
			key = keyOf(e.template.appearance)
		}
		if key == "" {
			s.publicNotFound(w, r)
			return
		}
		cache := "no-cache"
		// Passwords (public_password.go): a protected link's images need
		// its cookie or password, and no shared cache may keep them.
		if protected(e.file) {
			if !s.linkAccess(w, r, e.file) {
				return
			}
			s.serveImage(w, r, key, "private, no-store")
			return
		}
		if r.URL.Query().Get("v") == imageVersion(key) {
			// The address names the content: it never changes.
			cache = "public, max-age=31536000, immutable"
		}
		s.serveImage(w, r, key, cache)
	}
}

// serveImage writes the image blob key with the type sniffed from its
// first bytes, nosniff and a CSP that lets it run nothing even when opened
// on its own.
func (s *Server) serveImage(w http.ResponseWriter, r *http.Request, key, cacheControl string) {
	blob, err := s.blobs.Open(r.Context(), key)
	if err != nil {
		s.publicError(w, r, fault(err))
		return
	}
	defer blob.Body.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(blob.Body, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		s.publicError(w, r, err)
		return
	}
	ctype := http.DetectContentType(head[:n])
	if !imageTypes[ctype] {
		// Uploads are checked the same way, so this is a blob some other
		// way put under an appearance: never serve it as anything.
		s.publicNotFound(w, r)
		return
	}
	if _, err := blob.Body.Seek(0, io.SeekStart); err != nil {
		s.publicError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	setImageHeaders(h)
	h.Set("ETag", `"`+key+`"`)
	h.Set("Cache-Control", cacheControl)
	serveContent(w, r, blob.ModTime, blob.Body)
}

package web

import (
	"net/http"
	"strings"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// contentAsset serves GET /a/{name} on the content origin, name being
// <sha256>.<ext>: a remote image, font, audio or video or text track of a
// custom page, which Fileframe fetched when the page was stored and keeps
// in the blob store (service/page_assets.go). The content origin's CSP
// lets pages load these and nothing else from the network (zero egress,
// docs/security.md).
//
// What is served is what the fetcher accepted: bytes that decode as an
// image, a font or media of the Type stored with them (never SVG or
// HTML), with nosniff and the sandbox CSP of every answer of this origin.
// It is served to the page's elements only: a document, a frame, a
// script or a style sheet gets 403. The bytes came from a public https
// URL, so they are public: whoever knows their hash may load them, like
// the URL they came from; the address tells nothing else of the page.
func (s *Server) contentAsset(w http.ResponseWriter, r *http.Request) {
	sum, ext, ok := strings.Cut(r.PathValue("name"), ".")
	if !ok || !fileframe.IsBlobKey(sum) || !isAssetExt(ext) {
		s.contentNotFound(w, r)
		return
	}
	switch r.Header.Get("Sec-Fetch-Dest") {
	case "image", "font", "audio", "video", "track", "empty", "":
		// "" is a client without fetch metadata; "empty" a fetch, which
		// the page's CSP refuses anyway (connect-src 'none').
	default:
		w.Header().Set("Cache-Control", "no-store")
		s.textError(w, r, fileframe.Errorf(fileframe.CodeForbidden, "Forbidden: this is an image, font or media of a page, not a page."))
		return
	}
	ctx := r.Context()
	a, err := s.store.Asset(ctx, sum)
	if err == nil && a.Ext != ext {
		err = fileframe.Errorf(fileframe.ENOTFOUND, "Not found.")
	}
	var blob fileframe.BlobReader
	if err == nil {
		blob, err = s.blobs.Open(ctx, sum)
	}
	if fileframe.IsNotFound(err) {
		s.contentNotFound(w, r)
		return
	} else if err != nil {
		s.textError(w, r, err)
		return
	}
	defer blob.Body.Close()
	h := w.Header()
	h.Set("Content-Type", a.Type)
	h.Set("Etag", `"`+sum+`"`)
	// The bytes under a hash never change.
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	// A sandboxed page has an opaque origin: its font loads (and media
	// with crossorigin) are CORS requests with Origin: null.
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	serveContent(w, r, blob.ModTime, blob.Body)
}

// isAssetExt reports whether ext may name a kept resource: 1 to 5
// lower-case letters and digits.
func isAssetExt(ext string) bool {
	if len(ext) == 0 || len(ext) > 5 {
		return false
	}
	for i := 0; i < len(ext); i++ {
		if c := ext[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

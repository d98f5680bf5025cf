package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The content origin's side of previews (public_preview.go): the bytes of
// a previewed video, audio or PDF, GET /v/{slug}/{file}; the frame that
// draws a PDF's first page, GET /v/{slug}/{file}/pdf; and pdf.js, GET
// /pdfjs/{name}. Uploaded bytes that a browser plays or parses come only
// from this origin, never from the app origin, with the type sniffed and
// allowlisted (never HTML, SVG or script), nosniff, and a CSP that
// sandboxes them when opened on their own.

//go:embed pdfjs
var pdfjsFS embed.FS

// pdfjsPath is where the content origin serves pdf.js and its viewer.
const pdfjsPath = "/pdfjs/"

// mediaCSP is the Content-Security-Policy of previewed bytes: opened as a
// document, they run nothing and load nothing.
var mediaCSP = []string{"sandbox; default-src 'none'"}

// mediaExposed are the headers pdf.js reads of a range answer; a
// sandboxed frame's fetches are cross-origin (its origin is opaque).
var mediaExposed = []string{"Accept-Ranges, Content-Range, Content-Length, Content-Encoding"}

// mediaToken returns the token that lets the content origin serve the
// preview of file id on protected link f: bound to the slug, the file and
// the password (a new one ends it), for as long as the link's cookie
// lasts, so that a long video keeps playing.
func (s *Server) mediaToken(f fileframe.File, id fileframe.FileID) string {
	exp := strconv.FormatInt(s.now().Add(linkCookieTTL).Unix(), 10)
	return s.signLink("media", f.Slug, string(id), s.linkFingerprint(f), exp)
}

// verifyMedia reports whether token lets the content origin serve the
// preview of file id on protected link f.
func (s *Server) verifyMedia(f fileframe.File, id fileframe.FileID, token string) bool {
	fields, ok := s.verifyLink("media", token)
	return ok && len(fields) == 4 && fields[0] == f.Slug && fields[1] == string(id) &&
		fields[2] == s.linkFingerprint(f)
}

// previewLookup finds what /v/{slug}/{file} previews and asks the
// download's gates at request time, as the app origin does: a missing
// file or a disabled owner is 404, an ended link 410, a protected link
// needs the access token its page put in the address; a link with a
// download limit plays nothing (its whole file would leave uncounted).
// Only videos, audio and PDFs are served here. It answers and returns
// false when the preview may not be served.
func (s *Server) previewLookup(w http.ResponseWriter, r *http.Request) (*publicEntry, fileframe.File, sniffed, bool) {
	slug := r.PathValue("slug")
	e, err := s.publicRecord(r.Context(), slug)
	if err != nil {
		if !fileframe.IsNotFound(err) || !s.contentLinkGone(w, r, slug, nil) {
			s.contentFail(w, r, err)
		}
		return nil, fileframe.File{}, sniffed{}, false
	}
	if e.acct.Disabled {
		s.contentNotFound(w, r)
		return nil, fileframe.File{}, sniffed{}, false
	}
	if s.contentLinkGone(w, r, slug, e) {
		return nil, fileframe.File{}, sniffed{}, false
	}
	f, ok := previewTarget(e, r.PathValue("file"))
	if ok && protected(e.file) {
		ok = s.verifyMedia(e.file, f.ID, r.URL.Query().Get("access"))
	}
	if !ok || e.file.Limited() {
		s.contentNotFound(w, r)
		return nil, fileframe.File{}, sniffed{}, false
	}
	kind, err := s.previewOf(r.Context(), f)
	if err != nil {
		s.textError(w, r, err)
		return nil, fileframe.File{}, sniffed{}, false
	}
	switch kind.kind {
	case previewVideo, previewAudio, previewPDF:
		return e, f, kind, true
	}
	s.contentNotFound(w, r)
	return nil, fileframe.File{}, sniffed{}, false
}

// contentForbidden answers 403 with msg, for a request of the wrong
// destination (Sec-Fetch-Dest).
func (s *Server) contentForbidden(w http.ResponseWriter, r *http.Request, msg string) {
	w.Header().Set("Cache-Control", "no-store")
	s.textError(w, r, fileframe.Errorf(fileframe.CodeForbidden, "%s", msg))
}

// contentFail writes err: 404 for ENOTFOUND, else textError's.
func (s *Server) contentFail(w http.ResponseWriter, r *http.Request, err error) {
	if fileframe.IsNotFound(err) {
		s.contentNotFound(w, r)
		return
	}
	s.textError(w, r, err)
}

// contentPreview serves GET /v/{slug}/{file}: the bytes of a previewed
// video, audio or PDF, to a media element or pdf.js's fetch (never as a
// document or a frame), with ranges through http.ServeContent; never
// counted as a download.
func (s *Server) contentPreview(w http.ResponseWriter, r *http.Request) {
	switch r.Header.Get("Sec-Fetch-Dest") {
	case "video", "audio", "empty", "":
		// "empty" is pdf.js's fetch; "" a client without fetch metadata.
	default:
		s.contentForbidden(w, r, "Forbidden: this is the preview of a file, for its download page.")
		return
	}
	e, f, kind, ok := s.previewLookup(w, r)
	if !ok {
		return
	}
	blob, err := s.blobs.Open(r.Context(), f.BlobKey)
	if err != nil {
		s.textError(w, r, fault(err))
		return
	}
	defer blob.Body.Close()
	h := w.Header()
	h.Set("Content-Type", kind.ctype)
	h["Content-Security-Policy"] = mediaCSP
	h.Set("Etag", `"`+f.BlobKey+`"`)
	h.Set("Access-Control-Allow-Origin", "*")
	h["Access-Control-Expose-Headers"] = mediaExposed
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	// Revalidated on every use: the gates are asked each time.
	h.Set("Cache-Control", "no-cache")
	if protected(e.file) {
		h["Cache-Control"] = privateNoStore
	}
	serveContent(w, r, f.CreatedAt, blob.Body)
}

// pdfFramePage is the frame that draws a PDF's first page: pdf.js's
// parser (pdf.worker.min.mjs, run in this thread), then viewer.mjs, which
// loads pdf.min.mjs and draws the first page of #pdf's data-src (of
// data-length bytes) into its canvas, reading it by ranges alone.
var pdfFramePage = template.Must(template.New("pdf").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Name}}</title>
<style>html,body{margin:0;background:#fff}canvas{display:block}p{margin:16px;font:14px/1.4 system-ui,sans-serif}</style>
<script type="module" src="{{.Worker}}"></script>
<script type="module" src="{{.Viewer}}"></script>
</head>
<body>
<div id="pdf" data-src="{{.Src}}" data-length="{{.Length}}"><canvas aria-label="The first page of {{.Name}}"></canvas><p hidden>This PDF cannot be previewed. Download it to open it.</p></div>
</body>
</html>
`))

// pdfFrameCSP is the frame's policy: sandboxed (an opaque origin: no
// cookies, storage or other window), pdf.js's scripts alone, connections
// to the PDF's own address alone, no workers, no eval (pdf.js 6 has no
// eval path, and the policy allows none), framed by the app origin only.
func (s *Server) pdfFrameCSP(src string) string {
	return "sandbox allow-scripts; default-src 'none'; script-src " + s.ContentOrigin() + pdfjsPath +
		"; connect-src " + src + "; img-src data: blob:; font-src data: blob:; style-src 'unsafe-inline'" +
		"; worker-src 'none'; child-src 'none'; frame-src 'none'; object-src 'none'; form-action 'none'; base-uri 'none'" +
		"; frame-ancestors " + s.AppOrigin()
}

// contentPDF serves GET /v/{slug}/{file}/pdf: the frame that shows a PDF's
// first page, into a frame of the link's page only (as contentPage does:
// a document goes to the link's page, a request without fetch metadata
// gets the service's own page).
func (s *Server) contentPDF(w http.ResponseWriter, r *http.Request) {
	switch r.Header.Get("Sec-Fetch-Dest") {
	case "iframe", "frame":
	case "document":
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, s.publicURL("/f/"+r.PathValue("slug")), http.StatusFound)
		return
	case "":
		s.contentFrameOnly(w, r, s.publicURL("/f/"+r.PathValue("slug")))
		return
	default:
		s.contentForbidden(w, r, "Forbidden: this page can only be shown in its frame.")
		return
	}
	e, f, kind, ok := s.previewLookup(w, r)
	if !ok {
		return
	}
	if kind.kind != previewPDF {
		s.contentNotFound(w, r)
		return
	}
	src := s.ContentOrigin() + "/v/" + r.PathValue("slug") + "/" + string(f.ID)
	data := struct {
		Name, Src, Worker, Viewer string
		Length                    int64
	}{
		Name: f.Name, Src: src, Length: f.Size, Worker: pdfjsURL(s, "pdf.worker.min.mjs"), Viewer: pdfjsURL(s, "viewer.mjs"),
	}
	if token := r.URL.Query().Get("access"); protected(e.file) {
		data.Src = withAccess(src, token)
	}
	var b bytes.Buffer
	if err := pdfFramePage.Execute(&b, data); err != nil {
		s.textError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", s.pdfFrameCSP(src))
	// The allowlist names the PDF's address and pdf.js's path: nothing
	// else, no WebRTC (as connectionAllowlist does for custom pages).
	h.Set("Connection-Allowlist", `("`+src+`*" "`+s.ContentOrigin()+pdfjsPath+`*");webrtc=block`)
	h["Content-Type"] = htmlContentType
	h.Set("Cache-Control", "no-cache")
	if protected(e.file) {
		h["Cache-Control"] = privateNoStore
	}
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

// pdfjsFile is an embedded file of pdfjs/ with its version.
type pdfjsFile struct {
	body    []byte
	version string
}

// pdfjsFiles reads and hashes the embedded pdf.js once.
var pdfjsFiles = sync.OnceValue(func() map[string]pdfjsFile {
	files := map[string]pdfjsFile{}
	entries, _ := fs.ReadDir(pdfjsFS, "pdfjs")
	for _, e := range entries {
		b, _ := fs.ReadFile(pdfjsFS, "pdfjs/"+e.Name())
		sum := sha256.Sum256(b)
		files[e.Name()] = pdfjsFile{body: b, version: hex.EncodeToString(sum[:6])}
	}
	return files
})

// pdfjsURL is the content origin's address of an embedded pdf.js file
// with its version.
func pdfjsURL(s *Server, name string) string {
	return s.ContentOrigin() + pdfjsPath + name + "?v=" + pdfjsFiles()[name].version
}

// contentPDFJS serves GET /pdfjs/{name}: pdf.js's modules, to the PDF
// frame's module scripts (which a sandboxed frame fetches with CORS).
// viewer.mjs imports pdf.min.mjs without a version: it is revalidated.
func (s *Server) contentPDFJS(w http.ResponseWriter, r *http.Request) {
	f, ok := pdfjsFiles()[r.PathValue("name")]
	if !ok {
		s.contentNotFound(w, r)
		return
	}
	if d := r.Header.Get("Sec-Fetch-Dest"); d != "script" && d != "" {
		s.contentForbidden(w, r, "Forbidden: this is a script of the PDF preview.")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	h.Set("Etag", `"`+f.version+`"`)
	if r.URL.Query().Get("v") == f.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	serveContent(w, r, time.Time{}, bytes.NewReader(f.body))
}

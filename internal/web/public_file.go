package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

//go:embed static
var staticFS embed.FS

// permissionsPolicy turns every powerful feature off, on the app origin's
// pages and on the content origin alike. Browsers ignore (and log) features
// they do not know, so the list errs on the long side.
const permissionsPolicy = "accelerometer=(), ambient-light-sensor=(), autoplay=(), bluetooth=(), " +
	"browsing-topics=(), camera=(), clipboard-read=(), clipboard-write=(), display-capture=(), " +
	"encrypted-media=(), fullscreen=(), gamepad=(), geolocation=(), gyroscope=(), hid=(), " +
	"identity-credentials-get=(), idle-detection=(), local-fonts=(), magnetometer=(), " +
	"microphone=(), midi=(), otp-credentials=(), payment=(), picture-in-picture=(), " +
	"publickey-credentials-create=(), publickey-credentials-get=(), screen-wake-lock=(), " +
	"serial=(), storage-access=(), usb=(), web-share=(), window-management=(), " +
	"xr-spatial-tracking=()"

// filePage is the data of the outer page and of the default page.
type filePage struct {
	Assets   assetURLs
	File     fileView
	FrameURL string // the custom page on the content origin; outer page only
	Preview  bool   // the frame shows a draft through a preview token
}

// fileView is what a visitor is told about a file.
type fileView struct {
	Name        string
	Size        string
	DownloadURL string
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
// It only reads from the store.
func (s *Server) publicFile(w http.ResponseWriter, r *http.Request) {
	f, acct, ok := s.publicLookup(w, r)
	if !ok {
		return
	}
	frame, preview, err := s.customFrame(r, f, acct)
	if err != nil {
		s.publicError(w, r, err)
		return
	}
	data := filePage{Assets: s.pages.assets, File: newFileView(f)}
	h := w.Header()
	name := "default.html"
	if frame == "" {
		setPageHeaders(h, "'none'")
		h.Set("Cache-Control", "no-cache")
	} else {
		name = "outer.html"
		data.FrameURL, data.Preview = frame, preview
		setPageHeaders(h, s.ContentOrigin())
		if preview {
			// The page carries the preview token in the frame's address.
			h.Set("Cache-Control", "no-store")
		} else {
			h.Set("Cache-Control", "no-cache")
		}
	}
	if err := s.pages.render(w, r, http.StatusOK, name, data); err != nil {
		s.publicError(w, r, err)
	}
}

// customFrame returns the content-origin address of the custom page that
// /f/{slug} should frame, or "" when the default page applies.
//
// A valid preview token for a stored revision frames that revision with the
// preview marker. An invalid, expired or foreign token is ignored: the visitor
// sees the public state, exactly as without the token, so the page tells
// nothing about tokens. A token for the live revision itself shows the plain
// public outer page (it is not a preview any more).
func (s *Server) customFrame(r *http.Request, f fileframe.File, acct fileframe.Account) (src string, preview bool, err error) {
	if !acct.Plan.CustomPages() {
		return "", false, nil
	}
	page, err := s.store.PageByFile(r.Context(), f.ID)
	if fileframe.IsNotFound(err) {
		return "", false, nil
	} else if err != nil {
		return "", false, err
	}
	if r.URL.RawQuery != "" {
		if token := r.URL.Query().Get("preview"); token != "" {
			rev, ok := s.verifyPreview(f.Slug, token)
			if ok && rev <= page.LatestRevision && rev != page.LiveRevision {
				return s.contentPageURL(f.Slug, rev, token), true, nil
			}
		}
	}
	if page.Published() {
		return s.contentPageURL(f.Slug, page.LiveRevision, ""), false, nil
	}
	return "", false, nil
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

// publicLookup finds the file of /f/{slug} and its account. When the file
// cannot be shown (unknown slug, disabled or missing account) it writes the
// 404 page; on a store failure the 500 page; and returns ok false.
func (s *Server) publicLookup(w http.ResponseWriter, r *http.Request) (fileframe.File, fileframe.Account, bool) {
	ctx := r.Context()
	f, err := s.store.FileBySlug(ctx, r.PathValue("slug"))
	if err != nil {
		s.publicLookupError(w, r, err)
		return fileframe.File{}, fileframe.Account{}, false
	}
	acct, err := s.store.AccountByID(ctx, f.AccountID)
	if err != nil {
		s.publicLookupError(w, r, err)
		return fileframe.File{}, fileframe.Account{}, false
	}
	if acct.Disabled {
		s.publicNotFound(w, r)
		return fileframe.File{}, fileframe.Account{}, false
	}
	return f, acct, true
}

func (s *Server) publicLookupError(w http.ResponseWriter, r *http.Request, err error) {
	if fileframe.IsNotFound(err) {
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
	}
}

// setPageHeaders sets the security headers of the app origin's HTML pages;
// frameSrc is the CSP frame-src value ('none' or the content origin).
func setPageHeaders(h http.Header, frameSrc string) {
	h.Set("Content-Security-Policy", "default-src 'none'; frame-src "+frameSrc+
		"; frame-ancestors 'none'; form-action 'none'; base-uri 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Permissions-Policy", permissionsPolicy)
}

// publicNotFound answers the app origin's unknown paths, unknown slugs and
// files that cannot be shown with the 404 page; methods other than GET and
// HEAD get 405.
func (s *Server) publicNotFound(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.renderError(w, r, http.StatusMethodNotAllowed, "Method not allowed",
			"This address can only be read.")
		return
	}
	s.renderError(w, r, http.StatusNotFound, "Not found",
		"There is no file at this address. The link may be mistyped, or the file is no longer shared.")
}

// publicError logs err and answers with the generic 500 page.
func (s *Server) publicError(w http.ResponseWriter, r *http.Request, err error) {
	s.logFor(r).Error("public page failed", "path", r.URL.Path, "err", err)
	s.renderError(w, r, http.StatusInternalServerError, "Something went wrong",
		"The file could not be shown right now. Please try again in a moment.")
}

func (s *Server) renderError(w http.ResponseWriter, r *http.Request, status int, title, msg string) {
	h := w.Header()
	setPageHeaders(h, "'none'")
	h.Set("Cache-Control", "no-cache")
	err := s.pages.render(w, r, status, "error.html", errorPage{
		Assets: s.pages.assets, Status: status, Title: title, Message: msg,
	})
	if err != nil {
		s.logFor(r).Error("rendering error page", "err", err)
		http.Error(w, http.StatusText(status), status)
	}
}

// staticFiles serves the embedded static/ files (the pages' CSS and script)
// with an ETag; addresses that carry the content hash (?v=, see assetURL)
// may be cached for a year.
func (s *Server) staticFiles() http.Handler {
	type asset struct {
		body        []byte
		contentType string
		version     string
	}
	assets := map[string]asset{}
	// Reading the embedded FS cannot fail; newPageRenderer has read it too.
	entries, _ := fs.ReadDir(staticFS, "static")
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, _ := fs.ReadFile(staticFS, path.Join("static", e.Name()))
		sum := sha256.Sum256(b)
		ctype := mime.TypeByExtension(path.Ext(e.Name()))
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		assets[e.Name()] = asset{body: b, contentType: ctype, version: hex.EncodeToString(sum[:6])}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := assets[r.URL.Path[len("/static/"):]]
		if !ok {
			s.publicNotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.contentType)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("ETag", `"`+a.version+`"`)
		if r.URL.Query().Get("v") == a.version {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "public, max-age=300")
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
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

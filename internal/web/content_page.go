package web

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// contentPage serves /p/{slug}/{revision} on the content origin: the HTML of
// the live revision of a published page of an Agency account, or of any
// stored revision with a valid preview token for it. The outer page on the
// app origin frames it; opened any other way it is redirected there (a
// top-level visit, so the visitor gets the download control) or refused.
func (s *Server) contentPage(w http.ResponseWriter, r *http.Request) {
	slug, revText := r.PathValue("slug"), r.PathValue("revision")
	rev, err := strconv.Atoi(revText)
	if err != nil || rev < 1 || strconv.Itoa(rev) != revText {
		s.contentNotFound(w, r)
		return
	}
	token := ""
	if r.URL.RawQuery != "" {
		token = r.URL.Query().Get("preview")
	}
	previewOK := false
	if token != "" {
		granted, ok := s.verifyPreview(slug, token)
		previewOK = ok && granted == rev
	}

	// Sec-Fetch-Dest tells how the browser will use the response
	// (https://www.w3.org/TR/fetch-metadata/). The page is served only into
	// a frame. A request without the header (a browser from before fetch
	// metadata, a plain client) cannot show that it is the outer page's
	// frame, and a custom page is never shown without the service's
	// control: it gets a short page of the service's own instead. Browsers
	// send the header only to potentially trustworthy origins (https, and
	// http on loopback), so a content origin must be one of those; serve
	// warns otherwise.
	switch r.Header.Get("Sec-Fetch-Dest") {
	case "iframe", "frame":
	case "document":
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, s.outerURL(slug, token, previewOK), http.StatusFound)
		return
	case "":
		s.contentFrameOnly(w, r, s.outerURL(slug, token, previewOK))
		return
	default:
		w.Header().Set("Cache-Control", "no-store")
		s.textError(w, r, fileframe.Errorf(fileframe.CodeForbidden, "Forbidden: this page can only be shown in its frame."))
		return
	}

	// Passwords (public_password.go): a protected link's page is served
	// only with the access token its outer page put in the frame's address.
	locked, ok := s.contentLinkAccess(w, r, slug, rev)
	if !ok {
		return
	}
	html, ok := s.contentRevision(w, r, slug, rev, previewOK)
	if !ok {
		return
	}
	h := w.Header()
	h["Content-Type"] = htmlContentType
	h["Etag"] = html.etag
	if previewOK {
		h["Cache-Control"] = s.hdr.noStore
	} else {
		// Revalidated on every use, so a page taken back to draft stops
		// being served at once.
		h["Cache-Control"] = s.hdr.noCache
	}
	if locked {
		h["Cache-Control"] = privateNoStore // Passwords (public_password.go)
	}
	defer release(w, hold(r, int64(len(html.body))))
	if whole(r) {
		writeWhole(w, html.body, html.length)
		return
	}
	serveContent(w, r, time.Time{}, bytes.NewReader(html.body))
}

// outerURL returns the address of the outer page of the page at slug, with
// the preview token when it is valid.
func (s *Server) outerURL(slug, token string, previewOK bool) string {
	to := s.publicURL("/f/" + slug)
	if previewOK {
		to += "?preview=" + url.QueryEscape(token)
	}
	return to
}

// frameOnlyPage is what a request for a custom page without Sec-Fetch-Dest
// gets: a page of the service, with no byte of the custom page, leading to
// the outer page. It is served with the sandbox CSP like every answer of
// the content origin, which leaves it a plain link.
var frameOnlyPage = template.Must(template.New("frame-only").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Open the download page</title></head>
<body>
<p>This page can only be shown on its download page.</p>
<p><a href="{{.}}" target="_top">Open the download page</a></p>
</body>
</html>
`))

// contentFrameOnly answers 403 with frameOnlyPage linking to outer.
func (s *Server) contentFrameOnly(w http.ResponseWriter, r *http.Request, outer string) {
	var b bytes.Buffer
	if err := frameOnlyPage.Execute(&b, outer); err != nil {
		s.textError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h["Content-Type"] = htmlContentType
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusForbidden)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

// pageHTMLCacheMax bounds the bytes of live pages' HTML kept in memory
// (Server.pageHTML): a few hundred typical pages, or eight of the largest.
const pageHTMLCacheMax = 8 << 20

// htmlContentType is the Content-Type of the content origin's pages.
var htmlContentType = []string{"text/html; charset=utf-8"}

// contentRevision returns the HTML of revision rev of the page at slug, with
// its ETag, if it may be served; otherwise it writes 404 (or 500 on a store
// failure).
//
// The file, owner and page come from the public cache. The live revision's
// HTML comes from memory when it is there: a revision never changes, and
// Server.pageHTML keeps HTML by its SHA-256 and the prelude's
// (contentETagKey), so what is found there is exactly what the store holds
// with the prelude of the file as it is now (content_prelude.go); the
// entry, which is never stale, says which revision is live and its key. Other revisions (previews) are read from
// the store every time.
func (s *Server) contentRevision(w http.ResponseWriter, r *http.Request, slug string, rev int, preview bool) (*cachedBlob, bool) {
	ctx := r.Context()
	fail := func(err error) (*cachedBlob, bool) {
		if fileframe.IsNotFound(err) {
			s.contentNotFound(w, r)
		} else {
			s.textError(w, r, err)
		}
		return nil, false
	}
	e, err := s.publicRecord(ctx, slug)
	if err != nil {
		// Link controls (public_gone.go): a removed file's link is 410.
		if fileframe.IsNotFound(err) && s.contentLinkGone(w, r, slug, nil) {
			return nil, false
		}
		return fail(err)
	}
	if e.acct.Disabled || !e.acct.Plan.CustomPages() || !e.hasPage {
		return fail(fileframe.Errorf(fileframe.ENOTFOUND, "Not found."))
	}
	// Link controls (public_gone.go): an expired or used-up link serves no
	// page, not even a preview: 410.
	if s.contentLinkGone(w, r, slug, e) {
		return nil, false
	}
	live := e.page.LiveRevision == rev
	// A running A/B test (stats.go) shows its revisions to the public
	// while the page is published.
	if !preview && !live && !(e.page.Published() && e.inTest(rev)) {
		return fail(fileframe.Errorf(fileframe.ENOTFOUND, "Not found."))
	}
	if key := e.liveKey.Load(); live && key != nil {
		if html, ok := s.pageHTML.get(*key); ok {
			return html, true
		}
	}
	revision, err := s.store.Revision(ctx, e.file.ID, rev)
	if err != nil {
		return fail(err)
	}
	// The prelude carries the file's facts (content_prelude.go), which
	// e was read with: a rename makes a new entry, so a new key.
	prelude := preludeFor(s.factsOf(e.file))
	// What is served: the HTML with its remote resources rewritten to
	// the kept copies (service/page_assets.go), when it has any.
	doc, sum := revision.HTML, revision.SHA256
	if revision.Served != nil {
		doc, sum = revision.Served, revision.ServedSHA256
	}
	key := contentETagKey(sum, prelude)
	if !live {
		return &cachedBlob{body: withPrelude(doc, prelude), etag: []string{`"` + key + `"`}}, true
	}
	e.liveKey.Store(&key)
	return s.pageHTML.put(key, withPrelude(doc, prelude)), true
}

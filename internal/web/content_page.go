package web

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// sandboxHeaders sets the content origin's headers on every response before
// anything else runs, so that errors (404, 405, 500, …) carry them too. The
// CSP sandbox gives the page an opaque origin: it can run its inline scripts
// but reaches no cookies, storage, network or other window.
func (s *Server) sandboxHeaders(next http.Handler) http.Handler {
	csp := "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
		"img-src data: https:; font-src data: https:; media-src data: https:; connect-src 'none'; " +
		"form-action 'none'; base-uri 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; " +
		"object-src 'none'; manifest-src 'none'; frame-ancestors " + s.AppOrigin()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("Permissions-Policy", permissionsPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Vary", "Sec-Fetch-Dest")
		next.ServeHTTP(w, r)
	})
}

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
	// (https://www.w3.org/TR/fetch-metadata/). Old browsers and curl send
	// none; the CSP sandbox still holds for them.
	switch r.Header.Get("Sec-Fetch-Dest") {
	case "", "iframe", "frame":
	case "document":
		to := s.publicURL("/f/" + slug)
		if previewOK {
			to += "?preview=" + url.QueryEscape(token)
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, to, http.StatusFound)
		return
	default:
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, "Forbidden: this page can only be shown in its frame.", http.StatusForbidden)
		return
	}

	revision, ok := s.contentRevision(w, r, slug, rev, previewOK)
	if !ok {
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("ETag", `"`+revision.SHA256+`"`)
	if previewOK {
		h.Set("Cache-Control", "no-store")
	} else {
		// Revalidated on every use, so a page taken back to draft stops
		// being served at once.
		h.Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(revision.HTML))
}

// contentRevision loads revision rev of the page at slug if it may be
// served; otherwise it writes 404 (or 500 on a store failure).
func (s *Server) contentRevision(w http.ResponseWriter, r *http.Request, slug string, rev int, preview bool) (fileframe.Revision, bool) {
	ctx := r.Context()
	fail := func(err error) (fileframe.Revision, bool) {
		if fileframe.IsNotFound(err) {
			s.contentNotFound(w, r)
		} else {
			s.contentError(w, r, err)
		}
		return fileframe.Revision{}, false
	}
	// The file, owner and page come from the public cache; the revision's
	// HTML (up to 1 MiB) is read from the store.
	e, err := s.publicRecord(ctx, slug)
	if err != nil {
		return fail(err)
	}
	if e.acct.Disabled || !e.acct.Plan.CustomPages() || !e.hasPage {
		return fail(fileframe.Errorf(fileframe.ENOTFOUND, "Not found."))
	}
	if !preview && e.page.LiveRevision != rev {
		return fail(fileframe.Errorf(fileframe.ENOTFOUND, "Not found."))
	}
	revision, err := s.store.Revision(ctx, e.file.ID, rev)
	if err != nil {
		return fail(err)
	}
	return revision, true
}

// contentNotFound answers every other request to the content origin: 404 in
// plain text, or 405 for a method other than GET and HEAD (the origin serves
// nothing else).
func (s *Server) contentNotFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Method not allowed.", http.StatusMethodNotAllowed)
		return
	}
	http.Error(w, "Not found.", http.StatusNotFound)
}

// contentError logs err and answers 500 without its text.
func (s *Server) contentError(w http.ResponseWriter, r *http.Request, err error) {
	s.logFor(r).Error("content page failed", "path", r.URL.Path, "err", err)
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "Internal error.", http.StatusInternalServerError)
}

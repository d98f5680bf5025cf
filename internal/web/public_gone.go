package web

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Link controls on the public side (issue 12): a link that has ended, by
// its expiry or its download limit, or whose file the collector removed
// after it ended (fileframe.GoneLink), answers 410 Gone on every public
// path of its slug (/f/{slug}, its download, its images and whatever else
// goes through publicLookupEntry) and on the content origin's
// /p/{slug}/{revision}. The answer is a page of the service's own
// (templates/gone.html), never the custom page nor the owner's template
// text, and never stored by any cache.
//
// Expiry needs no invalidation: the time is compared with the server's
// clock (Server.now) at every request, so every instance stops at the
// same moment. A download limit is counted in the store as downloads
// finish (public_limit.go), so a limited link's state is read afresh at
// each request rather than trusted from the public cache, which another
// instance's count reaches only with its change notification.

// gonePage is the data of gone.html.
type gonePage struct {
	Assets  assetURLs
	Status  int
	Title   string
	Message string
}

// goneDate formats when a link ended for a visitor.
func goneDate(t time.Time) string {
	return t.UTC().Format("2 January 2006 at 15:04 UTC")
}

// linkGone is the error that an ended link of f (state expired or used
// up) answers with: its code (link_expired, link_used_up: 410), a heading
// and a message that say when or why, and nothing the owner wrote.
func linkGone(f fileframe.File, state fileframe.LinkState) error {
	if state == fileframe.LinkExpired {
		return failure(fileframe.CodeLinkExpired, "This link has expired",
			"This link expired on "+goneDate(f.Link.ExpiresAt)+". Ask the person who shared it for a new link.")
	}
	msg := "This link allowed " + strconv.FormatInt(f.Link.MaxDownloads, 10) + " downloads, and all of them have been made. Ask the person who shared it for a new link."
	if f.Link.MaxDownloads == 1 {
		msg = "This was a one-time link, and it has already been downloaded. Ask the person who shared it for a new link."
	}
	return failure(fileframe.CodeLinkUsedUp, "This link has been used up", msg)
}

// removedLinkGone is the error that the link of a removed file answers
// with.
func removedLinkGone(g fileframe.GoneLink) error {
	if g.Reason == fileframe.LinkExpired {
		return failure(fileframe.CodeLinkExpired, "This link has expired",
			"This link has expired, and its file was removed on "+goneDate(g.At)+". Ask the person who shared it for a new link.")
	}
	return failure(fileframe.CodeLinkUsedUp, "This link has been used up",
		"This link allowed a limited number of downloads, all of them have been made, and its file was removed on "+goneDate(g.At)+". Ask the person who shared it for a new link.")
}

// endedLink returns the error that e's link answers with when it has
// ended at the server's clock, and nil while it is live. A link without
// an expiry or a limit costs two comparisons: the public paths of other
// links do not change speed. A limited link's count is read from the
// store (see above); a file deleted meanwhile is ENOTFOUND.
func (s *Server) endedLink(ctx context.Context, e *publicEntry) error {
	f := e.file
	if f.Link.ExpiresAt.IsZero() && !f.Limited() {
		return nil
	}
	now := s.now()
	state := f.LinkState(now)
	if state == fileframe.LinkLive && f.Limited() {
		fresh, err := s.store.FileBySlug(ctx, f.Slug)
		if err != nil {
			return err
		}
		f, state = fresh, fresh.LinkState(now)
	}
	if state == fileframe.LinkLive {
		return nil
	}
	return linkGone(f, state)
}

// publicLinkEnded answers /f/{slug} and its subpaths with the gone page,
// and reports true, when e's link has ended (publicLookupEntry's hook).
func (s *Server) publicLinkEnded(w http.ResponseWriter, r *http.Request, e *publicEntry) bool {
	err := s.endedLink(r.Context(), e)
	switch {
	case err == nil:
		return false
	case fileframe.IsNotFound(err):
		s.publicLookupError(w, r, err)
	default:
		s.publicGone(w, r, err)
	}
	return true
}

// goneSlug returns the error of the removed file's link at slug, or nil
// when slug is no such link (or the store cannot say).
func (s *Server) goneSlug(ctx context.Context, slug string) error {
	g, err := s.store.GoneLinkBySlug(ctx, slug)
	if err != nil {
		if !fileframe.IsNotFound(err) && ctx.Err() == nil {
			s.log.Warn("reading a gone link failed; answering 404", "err", err)
		}
		return nil
	}
	return removedLinkGone(g)
}

// publicSlugGone answers with the gone page, and reports true, when the
// slug of r, which has no file, is the link of a removed file
// (publicLookupError's hook).
func (s *Server) publicSlugGone(w http.ResponseWriter, r *http.Request) bool {
	err := s.goneSlug(r.Context(), r.PathValue("slug"))
	if err == nil {
		return false
	}
	s.publicGone(w, r, err)
	return true
}

// publicGone answers on the app origin with the gone page for err (a
// link_expired or link_used_up error); any other error gets publicError.
func (s *Server) publicGone(w http.ResponseWriter, r *http.Request, err error) {
	code, k := kindOf(err)
	if code != fileframe.CodeLinkExpired && code != fileframe.CodeLinkUsedUp {
		s.publicError(w, r, err)
		return
	}
	h := w.Header()
	s.setPageHeaders(h, s.hdr.cspNone)
	// The page says when the link ended; and a renewed link must be seen
	// at once, so nothing keeps this answer.
	h.Set("Cache-Control", "no-store")
	if rerr := s.pages.render(w, r, k.status, "gone.html", gonePage{
		Assets: s.pages.assets, Status: k.status, Title: fileframe.ErrorTitle(err), Message: fileframe.ErrorMessage(err),
	}); rerr != nil {
		s.logFor(r).Error("rendering the gone page", "err", rerr)
		http.Error(w, http.StatusText(k.status), k.status)
	}
}

// contentLinkGone answers the content origin's request for a page of the
// link at slug, and reports true, when the link has ended or its file was
// removed (contentRevision's hook). e is nil when slug has no file.
func (s *Server) contentLinkGone(w http.ResponseWriter, r *http.Request, slug string, e *publicEntry) bool {
	var err error
	if e == nil {
		err = s.goneSlug(r.Context(), slug)
	} else {
		err = s.endedLink(r.Context(), e)
	}
	switch {
	case err == nil:
		return false
	case fileframe.IsNotFound(err):
		s.contentNotFound(w, r)
		return true
	}
	code, k := kindOf(err)
	if code != fileframe.CodeLinkExpired && code != fileframe.CodeLinkUsedUp {
		s.textError(w, r, err)
		return true
	}
	// Its own template, without the app origin's stylesheet, which the
	// content origin's sandbox CSP (set on every answer) would block.
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if rerr := s.pages.render(w, r, k.status, "gone_content.html", gonePage{
		Status: k.status, Title: fileframe.ErrorTitle(err), Message: fileframe.ErrorMessage(err),
	}); rerr != nil {
		s.logFor(r).Error("rendering the gone page", "err", rerr)
		http.Error(w, http.StatusText(k.status), k.status)
	}
	return true
}

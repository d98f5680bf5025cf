package web

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The public read paths (/f/{slug}, /f/{slug}/download and the content
// origin's /p/{slug}/{revision}) answer from a cache of what they need to
// know per slug: the file, its owner's plan and state, its page's revision
// numbers and the rendered public page. A hit reads nothing from the store
// and executes no template.
//
// The cache is never stale. Every entry is tagged with the store's
// generation (fileframe.ChangeWatcher), read before the records were; a
// request first reads the current generation and uses an entry only when
// its tag is equal. Any commit that can affect visitors, by this process,
// by the admin CLI or by another instance, changes the generation, and the
// whole cache is dropped at the next fill: writes are rare next to reads,
// so per-record invalidation would buy little. This process's own writes
// also bump a counter of its own (Server.ownWrites, which the use cases of
// internal/service bump through service.Config.Changed) added to the generation,
// so they never wait for the store to notice them.
//
// A store that cannot watch for changes gets no cache: every request reads
// it afresh, through the same code.

// publicCacheSize bounds the entries kept; an entry is a few kilobytes
// (mostly the rendered page).
const publicCacheSize = 10_000

// publicEntry is what the public paths know about one slug. Entries are
// shared between requests and never modified, but for page, which is filled
// once on first use.
type publicEntry struct {
	gen  uint64
	file fileframe.File
	// acct is the owner, without its password hash.
	acct fileframe.Account
	// page is the file's custom page, when it has one and its owner's plan
	// shows custom pages; hasPage is false otherwise.
	page    fileframe.Page
	hasPage bool
	// template is the file's template page (its own appearance, else its
	// account's default) when its owner's plan shows templates;
	// hasTemplate is false otherwise.
	template    resolvedTemplate
	hasTemplate bool
	// items are a collection's files, in order (public_collection.go);
	// nil for a file.
	items []fileframe.File
	// test is the running A/B test of a published page (stats.go), nil
	// when none runs; testPages are the rendered pages of its revisions,
	// in its order, each filled on first use.
	test      *fileframe.PageTest
	testPages []atomic.Pointer[renderedPage]
	// variant is what the public page shows when no test runs.
	variant fileframe.Variant

	rendered atomic.Pointer[renderedPage] // the public /f/{slug} page
	// liveKey is the key in Server.pageHTML of the live revision's HTML as
	// served (contentETagKey of its SHA-256 and of the prelude with this
	// entry's file's facts), known once the content origin has served it;
	// the HTML is there while it fits.
	liveKey atomic.Pointer[string]
	ref     atomic.Bool // used since the clock hand last passed
}

// renderedPage is a public page ready to be written: its body and the
// header values that depend on it, as slices that are set, never changed.
type renderedPage struct {
	body          []byte
	csp           []string
	contentLength []string
}

// publicCache holds entries by slug, evicting with the clock algorithm (an
// approximation of least-recently-used in which a hit only sets a flag).
type publicCache struct {
	mu     sync.RWMutex
	gen    uint64 // the generation of every entry held
	bySlug map[string]int
	ring   []*publicEntry
	hand   int
	max    int
}

func newPublicCache(max int) *publicCache {
	return &publicCache{bySlug: make(map[string]int), max: max}
}

// get returns the entry of slug if it was read under generation gen.
func (c *publicCache) get(slug string, gen uint64) *publicEntry {
	c.mu.RLock()
	i, ok := c.bySlug[slug]
	var e *publicEntry
	if ok {
		e = c.ring[i]
	}
	c.mu.RUnlock()
	if e == nil || e.gen != gen {
		return nil
	}
	if !e.ref.Load() {
		e.ref.Store(true)
	}
	return e
}

// put adds e. An entry of a newer generation than the cache's drops every
// other; one of an older generation is not kept.
func (c *publicCache) put(e *publicEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case e.gen < c.gen:
		return
	case e.gen > c.gen:
		clear(c.bySlug)
		clear(c.ring)
		c.ring, c.hand, c.gen = c.ring[:0], 0, e.gen
	}
	slug := e.file.Slug
	if i, ok := c.bySlug[slug]; ok {
		c.ring[i] = e
		return
	}
	if len(c.ring) < c.max {
		c.bySlug[slug] = len(c.ring)
		c.ring = append(c.ring, e)
		return
	}
	for {
		old := c.ring[c.hand]
		if old.ref.Load() {
			old.ref.Store(false)
			c.hand = (c.hand + 1) % c.max
			continue
		}
		delete(c.bySlug, old.file.Slug)
		c.ring[c.hand] = e
		c.bySlug[slug] = c.hand
		c.hand = (c.hand + 1) % c.max
		return
	}
}

// generation returns the generation to read and tag entries under, and
// false when nothing may be cached (no watcher, or it failed).
func (s *Server) generation(ctx context.Context) (uint64, bool) {
	if s.changes == nil {
		return 0, false
	}
	own := s.ownWrites.Load()
	g, err := s.changes.Generation(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("reading the store's generation failed; serving uncached", "err", err)
		}
		return 0, false
	}
	return g + own, true
}

// publicRecord returns what the public paths know about slug, from the
// cache or read afresh. A slug without a file, or whose owner is missing,
// is ENOTFOUND; a disabled owner is left to the caller.
//
// Requests that miss the same slug in the same generation at once (the
// whole cache is dropped by every change, so under load that is every
// request then) share one read: without it, 1,000 connections after a
// change each ran the reads below and rendered the page, queueing on the
// store's pool for seconds. The shared read goes on without the first
// caller's cancellation, so that one client leaving fails no other.
func (s *Server) publicRecord(ctx context.Context, slug string) (*publicEntry, error) {
	gen, cacheable := s.generation(ctx)
	if !cacheable {
		return s.readPublicRecord(ctx, slug, gen, false)
	}
	if e := s.cache.get(slug, gen); e != nil {
		return e, nil
	}
	v, err, _ := s.fills.Do(strconv.FormatUint(gen, 10)+"/"+slug, func() (any, error) {
		return s.readPublicRecord(context.WithoutCancel(ctx), slug, gen, true)
	})
	if err != nil {
		return nil, err
	}
	return v.(*publicEntry), nil
}

// readPublicRecord reads what the public paths know about slug from the
// store, tagged with gen, and caches it when cacheable.
func (s *Server) readPublicRecord(ctx context.Context, slug string, gen uint64, cacheable bool) (*publicEntry, error) {
	f, err := s.store.FileBySlug(ctx, slug)
	if err != nil {
		return nil, err
	}
	if !f.Shared {
		// A file received through a file request has no public link
		// until its owner shares it: everything public answers as if
		// the file did not exist (the cache keeps no entry, so sharing
		// it needs no invalidation beyond the store's generation).
		return nil, fileframe.Errorf(fileframe.ENOTFOUND, "File not found.")
	}
	acct, err := s.store.AccountByID(ctx, f.AccountID)
	if err != nil {
		return nil, err
	}
	acct.PasswordHash = ""
	e := &publicEntry{gen: gen, file: f, acct: acct}
	if f.IsCollection() {
		if e.items, err = s.collectionItems(ctx, f); err != nil {
			return nil, err
		}
	}
	if !acct.Disabled && acct.Plan.CustomPages() {
		page, err := s.store.PageByFile(ctx, f.ID)
		if err == nil {
			e.page, e.hasPage = page, true
		} else if !fileframe.IsNotFound(err) {
			return nil, err
		}
	}
	if !acct.Disabled && acct.Plan.Templates() {
		a, err := s.effectiveAppearance(ctx, f)
		if err != nil {
			return nil, err
		}
		e.template, e.hasTemplate = resolveTemplate(a)
	}
	switch {
	case e.hasPage && e.page.Published():
		e.variant = fileframe.PageVariant(e.page.LiveRevision)
		t, err := s.store.RunningPageTest(ctx, f.ID)
		if err == nil {
			e.test, e.testPages = &t, make([]atomic.Pointer[renderedPage], len(t.Revisions))
		} else if !fileframe.IsNotFound(err) {
			return nil, err
		}
	case e.hasTemplate:
		e.variant = fileframe.TemplateVariant(e.template.appearance.Template)
	default:
		e.variant = fileframe.VariantDefault
	}
	if cacheable {
		s.cache.put(e)
	}
	return e, nil
}

// effectiveAppearance returns the appearance of file f: its own, else its
// account's default (zero when neither is set). It does not look at the
// plan.
func (s *Server) effectiveAppearance(ctx context.Context, f fileframe.File) (fileframe.Appearance, error) {
	a, err := s.store.FileAppearance(ctx, f.ID)
	if err != nil || !a.IsZero() {
		return a, err
	}
	return s.store.AccountAppearance(ctx, f.AccountID)
}

// publicPage returns e's public /f/{slug} page, rendering it on first use:
// the outer page of the published custom page (framing revision rev, the
// live one or one of a running test's), else the template page of the
// file's appearance, else the default page.
func (s *Server) publicPage(ctx context.Context, e *publicEntry, rev int) (*renderedPage, error) {
	slot := &e.rendered
	if e.test != nil {
		for i, n := range e.test.Revisions {
			if n == rev {
				slot = &e.testPages[i]
			}
		}
	}
	if p := slot.Load(); p != nil {
		return p, nil
	}
	p, err := s.renderPublicPage(ctx, e, rev)
	if err != nil {
		return nil, err
	}
	slot.Store(p)
	return p, nil
}

// shown returns what e's public page shows the visitor of r: its variant,
// the test it is part of, and the page revision it frames (0 for a
// template or the default page). During a test the revision is the
// visitor's (PageTest.Assign), the same on every visit.
func (s *Server) shown(r *http.Request, e *publicEntry) (fileframe.Variant, fileframe.TestID, int) {
	if e.test == nil {
		return e.variant, "", e.variant.Revision()
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	rev := e.test.Assign(host, r.UserAgent())
	return fileframe.PageVariant(rev), e.test.ID, rev
}

// inTest reports whether rev is shown by e's running test.
func (e *publicEntry) inTest(rev int) bool {
	return e.test != nil && slices.Contains(e.test.Revisions, rev)
}

// pagePreviews puts the previews of e's page into fv: the file's own, or
// those of the first files of a collection; it returns them for the
// page's policy.
func (s *Server) pagePreviews(ctx context.Context, e *publicEntry, fv *fileView) ([]*previewView, error) {
	if e.file.IsCollection() {
		return s.itemPreviews(ctx, e, fv)
	}
	v, err := s.filePreview(ctx, e, e.file)
	if err != nil || v == nil {
		return nil, err
	}
	fv.Preview = v
	return []*previewView{v}, nil
}

// renderPublicPage renders e's public page (publicPage's, which keeps
// it). A protected link's page is rendered for each visitor with it
// (protectedFile): its preview's addresses carry access tokens.
func (s *Server) renderPublicPage(ctx context.Context, e *publicEntry, rev int) (*renderedPage, error) {
	data := filePage{Assets: s.pages.assets, File: entryView(e)}
	// Link previews' meta tags (public_card.go).
	social, err := s.socialFor(ctx, e)
	if err != nil {
		return nil, err
	}
	data.File.Social = social
	var body []byte
	csp := s.hdr.cspNone
	switch {
	case e.hasPage && e.page.Published():
		csp = s.hdr.cspContent
		data.FrameURL = s.contentPageURL(e.file.Slug, rev, "")
		body, err = s.pages.renderBytes("outer.html", data)
	case e.hasTemplate:
		// Previews (public_preview.go), on the template and default pages
		// only.
		views, perr := s.pagePreviews(ctx, e, &data.File)
		if perr != nil {
			return nil, perr
		}
		var policy string
		body, policy, err = s.renderTemplatePage(e.template, data.File, publicImageURLs(e.file.Slug, e.template.appearance), false, "'none'")
		csp = []string{previewPolicy(policy, s.ContentOrigin(), views...)}
	default:
		views, perr := s.pagePreviews(ctx, e, &data.File)
		if perr != nil {
			return nil, perr
		}
		if len(views) > 0 {
			csp = []string{previewPolicy(csp[0], s.ContentOrigin(), views...)}
		}
		body, err = s.pages.renderBytes("default.html", data)
	}
	if err != nil {
		return nil, err
	}
	return &renderedPage{body: body, csp: csp, contentLength: []string{strconv.Itoa(len(body))}}, nil
}

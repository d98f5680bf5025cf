package web

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image/color"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fileframe/fileframe/internal/card"
	"github.com/fileframe/fileframe/internal/fileframe"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/sync/singleflight"
)

// Link previews (links12.md, "Social previews"). Messengers (Slack,
// WhatsApp, iMessage, LinkedIn, Discord, …) fetch /f/{slug} without
// cookies and read Open Graph and Twitter meta tags from its <head>; the
// public pages carry them (templates: "social", filled by socialFor), and
// og:image is /f/{slug}/card.png, a card that this file has package card
// draw from the file's appearance.
//
// What a card or a tag shows depends on the link: a password-protected
// link shows only what its owner allows (Link.Reveal), and an ended link
// has no card (410). A published custom page may supply its own title,
// description and https image in its <head>; they win over the defaults.
//
// Bounds: at most GOMAXPROCS cards are drawn at once (one request for a
// card that is being drawn waits for it rather than drawing it again);
// a logo is decoded only when its header declares at most
// card.MaxLogoPixels; drawn cards are kept in a least-recently-used cache
// of cardCacheMax bytes, keyed by the SHA-256 of everything drawn, so a
// changed name, appearance or logo is a new card and a stale one is never
// served.

// siteName is og:site_name.
const siteName = "Fileframe"

// genericTitle is the title of a protected link that reveals nothing.
const genericTitle = "A file shared with you"

// Bounds of the card machinery.
const (
	// cardCacheMax bounds the bytes of drawn cards kept: a card is 15 to
	// 60 kB, so a few hundred cards.
	cardCacheMax = 16 << 20
	// cardWait is how long a request waits for a drawing slot before it
	// is answered 503.
	cardWait = 10 * time.Second
	// pageMetaMax bounds the custom pages whose head tags are kept.
	pageMetaMax = 4096
	// pageHeadMax bounds the bytes of a custom page read for its head.
	pageHeadMax = 256 << 10
	// pageHeadFirst is what is read of a page for its head first: the
	// whole head of most pages. Only a head that goes on past it (a large
	// inline style or script before the meta tags) is read again, up to
	// pageHeadMax. BenchmarkPageTitle: 16 KiB of a 256 KiB page is read
	// in about half the time of all of it on SQLite, a fifth on
	// PostgreSQL.
	pageHeadFirst = 16 << 10
)

// socialMeta is the data of the "social" template: the link preview tags
// of a public page.
type socialMeta struct {
	SiteName    string
	Title       string
	Description string
	URL         string
	Image       string
	ImageAlt    string
	// CardImage is set when Image is Fileframe's card (its size and type
	// are known), not a custom page's own image.
	CardImage   bool
	ImageWidth  int
	ImageHeight int
}

// cards is the server's card machinery: the renderer, the cache, the
// drawing slots, and the tags read from custom pages.
type cards struct {
	renderer *card.Renderer
	slots    chan struct{}
	wait     time.Duration // for a slot, before 503 (cardWait)
	flight   singleflight.Group
	// drawing is how many cards are being drawn; peak the most at once
	// (for tests and metrics).
	drawing, peak atomic.Int64

	mu    sync.Mutex
	lru   *list.List // of *cardEntry, most recently used first
	byKey map[string]*list.Element
	size  int
	max   int

	metaMu sync.Mutex
	// pageMeta holds the head tags of live revisions by their SHA-256;
	// revSHA the SHA-256 of a file's revision, so that rendering the
	// outer page again does not read the revision again.
	pageMeta map[string]pageMeta
	revSHA   map[revisionRef]string
}

type cardEntry struct {
	key  string
	body []byte
}

type revisionRef struct {
	file fileframe.FileID
	rev  int
}

// newCards returns the card machinery with GOMAXPROCS drawing slots.
func newCards() (*cards, error) {
	r, err := card.New()
	if err != nil {
		return nil, err
	}
	return &cards{
		renderer: r,
		slots:    make(chan struct{}, max(1, runtime.GOMAXPROCS(0))),
		wait:     cardWait,
		lru:      list.New(),
		byKey:    make(map[string]*list.Element),
		max:      cardCacheMax,
		pageMeta: make(map[string]pageMeta),
		revSHA:   make(map[revisionRef]string),
	}, nil
}

func (c *cards) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cardEntry).body, true
}

func (c *cards) put(key string, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok || len(body) > c.max {
		return
	}
	c.byKey[key] = c.lru.PushFront(&cardEntry{key: key, body: body})
	c.size += len(body)
	for c.size > c.max {
		el := c.lru.Back()
		e := el.Value.(*cardEntry)
		c.lru.Remove(el)
		delete(c.byKey, e.key)
		c.size -= len(e.body)
	}
}

// cardSpec is everything a card is drawn from; its hash names the card.
type cardSpec struct {
	Version  int
	Title    string
	Detail   string
	Headline string
	Footer   string
	Locked   bool
	Accent   string // #rrggbb
	Logo     string // the logo's blob key (blobs are content-addressed)
}

// cardVersion changes when the drawing changes, so that caches (ours,
// and the messengers' behind the ETag) take the new look.
const cardVersion = 1

func (c cardSpec) key() string {
	b, _ := json.Marshal(c) // strings and ints only: it cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// reveal is what a link's previews may show.
type reveal int

const (
	revealAll     reveal = iota // not protected
	revealName                  // protected, name and size allowed
	revealNothing               // protected, nothing allowed
)

func revealOf(f fileframe.File) reveal {
	switch {
	case f.Link.PasswordHash == "":
		return revealAll
	case f.Link.Reveal == fileframe.RevealName:
		return revealName
	}
	return revealNothing
}

// cardSpecOf is the card of e's link.
func (s *Server) cardSpecOf(e *publicEntry) cardSpec {
	c := cardSpec{Version: cardVersion, Footer: s.cfg.BaseURL.Hostname(), Accent: builtinTemplates[0].Accent}
	if e.hasTemplate {
		a := e.template.appearance
		c.Accent = e.template.tmpl.Accent
		if accent, ok := parseAccent(a.Accent); ok {
			c.Accent = accent
		}
		// The owner's branding (colour, logo) is on the password page
		// too, so a protected link's card keeps it.
		c.Logo = a.LogoKey
		if revealOf(e.file) == revealAll {
			c.Headline = a.Headline
		}
	}
	switch revealOf(e.file) {
	case revealNothing:
		c.Title, c.Detail, c.Locked = genericTitle, "Protected with a password", true
	case revealName:
		c.Title, c.Detail, c.Locked = e.file.Name, humanSize(e.file.Size), true
	default:
		c.Title, c.Detail = e.file.Name, humanSize(e.file.Size)
	}
	return c
}

// socialFor returns the link preview tags of e's public page. The
// password page of a protected link uses it too: it reveals only what the
// owner allows.
func (s *Server) socialFor(ctx context.Context, e *publicEntry) (*socialMeta, error) {
	base := "/f/" + url.PathEscape(e.file.Slug)
	m := &socialMeta{
		SiteName:    siteName,
		URL:         s.publicURL(base),
		Image:       s.publicURL(base + "/card.png"),
		CardImage:   true,
		ImageWidth:  card.Width,
		ImageHeight: card.Height,
	}
	size := humanSize(e.file.Size)
	switch revealOf(e.file) {
	case revealNothing:
		m.Title = genericTitle
		m.Description = "Protected with a password."
		m.ImageAlt = genericTitle
		return m, nil
	case revealName:
		m.Title, m.Description = e.file.Name, size
		m.ImageAlt = e.file.Name + ", " + size
		return m, nil
	}
	m.Title, m.Description = e.file.Name, size
	if e.hasTemplate {
		if h := strings.TrimSpace(e.template.appearance.Headline); h != "" {
			m.Description = size + " · " + h
		}
	}
	m.ImageAlt = e.file.Name + ", " + size
	if e.hasPage && e.page.Published() {
		pm, err := s.livePageMeta(ctx, e)
		if err != nil {
			return nil, err
		}
		if pm.Title != "" {
			m.Title = pm.Title
		}
		if pm.Description != "" {
			m.Description = pm.Description
		}
		if pm.Image != "" {
			m.Image, m.CardImage = pm.Image, false
			m.ImageAlt = m.Title
		}
	}
	return m, nil
}

// pageMeta is what a custom page's <head> says about it for previews.
type pageMeta struct {
	Title, Description, Image string
}

// livePageMeta returns the head tags of e's live revision, cached by its
// SHA-256.
func (s *Server) livePageMeta(ctx context.Context, e *publicEntry) (pageMeta, error) {
	c := s.cards
	ref := revisionRef{e.file.ID, e.page.LiveRevision}
	c.metaMu.Lock()
	sha, ok := c.revSHA[ref]
	pm, hit := c.pageMeta[sha]
	c.metaMu.Unlock()
	if ok && hit {
		return pm, nil
	}
	// Only the head is read: the rest of a page (up to a MiB) and its
	// served copy are not needed here.
	sha, head, err := s.store.RevisionHead(ctx, e.file.ID, e.page.LiveRevision, pageHeadFirst)
	if err != nil {
		return pageMeta{}, err
	}
	c.metaMu.Lock()
	pm, hit = c.pageMeta[sha]
	c.metaMu.Unlock()
	if !hit {
		var ended bool
		if pm, ended = readPageMeta(head); !ended && len(head) == pageHeadFirst {
			if _, head, err = s.store.RevisionHead(ctx, e.file.ID, e.page.LiveRevision, pageHeadMax); err != nil {
				return pageMeta{}, err
			}
			pm, _ = readPageMeta(head)
		}
	}
	c.metaMu.Lock()
	defer c.metaMu.Unlock()
	// Crude but bounded: past the limit, start again.
	if len(c.pageMeta) >= pageMetaMax || len(c.revSHA) >= pageMetaMax {
		clear(c.pageMeta)
		clear(c.revSHA)
	}
	c.pageMeta[sha] = pm
	c.revSHA[ref] = sha
	return pm, nil
}

// Limits of what a custom page's head may say, in characters.
const (
	maxMetaTitle       = 200
	maxMetaDescription = 400
)

// readPageMeta reads og:title (else <title>), og:description (else the
// description meta) and an https og:image from the head of doc, stopping
// at the first element that does not belong in a head, at </head>, or
// after pageHeadMax bytes. ended is false when it stopped only because
// doc (or pageHeadMax) ended: a longer doc could say more.
func readPageMeta(doc []byte) (m pageMeta, ended bool) {
	z := html.NewTokenizer(io.LimitReader(bytes.NewReader(doc), pageHeadMax))
	z.SetMaxBuf(pageHeadMax)
	var og, plain pageMeta
	inTitle := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return og.or(plain), false
		case html.TextToken:
			if inTitle && plain.Title == "" {
				plain.Title = string(z.Text())
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Head:
				return og.or(plain), true
			case atom.Title:
				inTitle = false
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch atom.Lookup(name) {
			case atom.Html, atom.Head, atom.Link, atom.Style, atom.Script, atom.Base, atom.Noscript, atom.Template:
			case atom.Title:
				inTitle = tt == html.StartTagToken
			case atom.Meta:
				var property, metaName, content string
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					switch string(k) {
					case "property":
						property = strings.ToLower(strings.TrimSpace(string(v)))
					case "name":
						metaName = strings.ToLower(strings.TrimSpace(string(v)))
					case "content":
						content = string(v)
					}
				}
				// Some pages write og: tags with name= instead of
				// property=; both are read.
				for _, key := range []string{property, metaName} {
					switch key {
					case "og:title":
						og.Title = firstOf(og.Title, content)
					case "og:description":
						og.Description = firstOf(og.Description, content)
					case "og:image", "og:image:url", "og:image:secure_url":
						if httpsURL(content) {
							og.Image = firstOf(og.Image, strings.TrimSpace(content))
						}
					case "description":
						plain.Description = firstOf(plain.Description, content)
					}
				}
			default:
				// The body has begun.
				return og.or(plain), true
			}
		}
	}
}

// or fills m's empty texts from d, and makes every text one clean line.
func (m pageMeta) or(d pageMeta) pageMeta {
	m.Title = oneLine(firstOf(m.Title, d.Title), maxMetaTitle)
	m.Description = oneLine(firstOf(m.Description, d.Description), maxMetaDescription)
	return m
}

func firstOf(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// oneLine collapses s's white space and cuts it to n characters, the
// last of them "…" when it is cut.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	if cut := truncateRunes(s, n); cut != s {
		return truncateRunes(cut, n-1) + "…"
	}
	return s
}

// httpsURL reports whether s is an absolute https address: a preview's
// image must not be fetched from a page's relative or insecure address.
func httpsURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil
}

// publicCard serves GET /f/{slug}/card.png: the link's preview card. It
// never counts as a download, and needs no password (the card of a
// protected link shows only what its owner allows).
func (s *Server) publicCard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	slug := r.PathValue("slug")
	e, err := s.publicRecord(ctx, slug)
	if fileframe.IsNotFound(err) {
		// A link whose file was removed when it ended is gone, not unknown.
		if _, gerr := s.store.GoneLinkBySlug(ctx, slug); gerr == nil {
			cardGone(w, r)
			return
		}
	}
	if err != nil {
		s.publicLookupError(w, r, err)
		return
	}
	if e.acct.Disabled {
		s.publicNotFound(w, r)
		return
	}
	if e.file.LinkState(s.now()) != fileframe.LinkLive {
		cardGone(w, r)
		return
	}
	spec := s.cardSpecOf(e)
	key := spec.key()
	etag := `"card-` + key[:32] + `"`
	h := w.Header()
	setImageHeaders(h)
	// Made to be shown by other sites and apps.
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	h.Set("Content-Type", "image/png")
	h.Set("Cache-Control", "public, max-age=300")
	if protected(e.file) || !e.file.Link.ExpiresAt.IsZero() && e.file.Link.ExpiresAt.Sub(s.now()) < 5*time.Minute {
		// What a protected link's card shows can change with its owner's
		// choice (reveal), and an ending link's card must not outlive it
		// in a shared cache: revalidated every time (the ETag makes that
		// cheap).
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("ETag", etag)
	// Answered before anything is drawn (ServeContent would need the body).
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagListHas(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body, err := s.drawCard(ctx, key, spec)
	if err != nil {
		h.Del("ETag")
		h.Del("Cache-Control")
		s.textError(w, r, err)
		return
	}
	serveContent(w, r, time.Time{}, bytes.NewReader(body))
}

// cardGone answers the card of an ended link: 410 in plain text.
func cardGone(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	http.Error(w, "Gone: this link has ended, and has no preview.", http.StatusGone)
}

// etagListHas reports whether the If-None-Match value list names etag
// (weak comparison, RFC 9110 §13.1.2), or is "*".
func etagListHas(list, etag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// drawCard returns the card of spec (named key) from the cache, or draws
// it in one of the drawing slots. Requests for a card that is being drawn
// wait for that drawing.
func (s *Server) drawCard(ctx context.Context, key string, spec cardSpec) ([]byte, error) {
	c := s.cards
	if b, ok := c.get(key); ok {
		return b, nil
	}
	ch := c.flight.DoChan(key, func() (any, error) {
		// Not the first caller's context: the others wait on this drawing.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.wait)
		defer cancel()
		select {
		case c.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, fileframe.Errorf(fileframe.CodeBusy, "Busy: too many preview cards are being drawn; try again shortly.")
		}
		defer func() { <-c.slots }()
		if b, ok := c.get(key); ok {
			return b, nil
		}
		n := c.drawing.Add(1)
		defer c.drawing.Add(-1)
		for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
		}
		b, err := s.renderCard(ctx, spec)
		if err != nil {
			return nil, err
		}
		c.put(key, b)
		return b, nil
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.([]byte), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// renderCard draws spec. A logo that cannot be read or decoded, or that
// is too large to decode, is left out (and logged): the card is still
// worth showing.
func (s *Server) renderCard(ctx context.Context, spec cardSpec) ([]byte, error) {
	colors := deriveAccent(spec.Accent)
	c := card.Card{
		Title:    spec.Title,
		Detail:   spec.Detail,
		Headline: spec.Headline,
		Footer:   spec.Footer,
		Locked:   spec.Locked,
		Accent:   rgba(colors.Accent),
		OnAccent: rgba(colors.OnAccent),
		Ink:      rgba(colors.Ink),
	}
	if spec.Logo != "" {
		logo, err := s.readLogo(ctx, spec.Logo)
		if err == nil {
			c.Logo, err = card.DecodeLogo(logo)
		}
		if err != nil {
			s.log.Warn("preview card drawn without its logo", "logo", spec.Logo, "err", err)
		}
	}
	return s.cards.renderer.PNG(c)
}

// readLogo reads the logo blob key, at most maxImageBytes of it (what an
// upload may be).
func (s *Server) readLogo(ctx context.Context, key string) ([]byte, error) {
	blob, err := s.blobs.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer blob.Body.Close()
	return io.ReadAll(io.LimitReader(blob.Body, maxImageBytes))
}

// rgba is the colour #rrggbb.
func rgba(hex string) color.RGBA {
	c := hexRGB(hex)
	return color.RGBA{uint8(c[0]), uint8(c[1]), uint8(c[2]), 0xff}
}

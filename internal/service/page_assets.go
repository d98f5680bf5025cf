package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/fileframe/fileframe/internal/fetch"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
)

// Zero egress (issue 16). A custom page names its images, fonts and media
// by absolute https URLs, as the contract says, but a visitor's browser
// never fetches them: the content origin's CSP allows only data: and its
// own /a/ path. When a revision is stored, Fileframe fetches each such
// resource once, itself (internal/fetch, the hostile-input fetcher), keeps
// the bytes in the blob store under their SHA-256, and stores the HTML the
// revision is served as, with those URLs rewritten to /a/<sha256>.<ext> on
// the content origin (htmlcheck.Rewrite). docs/api.md, "Images, fonts and
// media", tells page authors what happens; docs/security.md, "Zero
// egress", states the guarantee.

// Finding rules of a page's remote resources (besides htmlcheck's).
const (
	// RuleAssetRefused (an error): the URL points at a loopback, private
	// or other special-use address, or its bytes are not what the element
	// needs (an image that does not decode, an SVG, HTML, too large).
	RuleAssetRefused = "asset.refused"
	// RuleAssetLimit (an error): more remote resources, or more of their
	// bytes, than one page may keep.
	RuleAssetLimit = "asset.limit"
	// RuleAssetUnavailable (a warning): the resource could not be
	// fetched now (no answer, an error status, a time-out); the page is
	// stored and served without it, and a retry may keep it later.
	RuleAssetUnavailable = "asset.unavailable"
)

// Limits of one page's remote resources.
const (
	// MaxPageAssets is how many distinct remote resources a page may name.
	MaxPageAssets = 40
	// MaxPageAssetBytes is how many bytes of them a page may keep.
	MaxPageAssetBytes = 64 << 20
	// pageFetchBudget is how long storing a page may spend fetching its
	// resources, all together; what has not arrived by then is
	// unavailable (a warning).
	pageFetchBudget = 20 * time.Second
	// pageFetchParallel is how many of one page's resources are fetched
	// at once (the fetcher bounds them process-wide too).
	pageFetchParallel = 4
)

// assetHints are the hints of the asset rules' findings.
var assetHints = map[string]string{
	RuleAssetRefused: "Link images, fonts and media on a public https:// host with bytes of the element's kind (PNG, JPEG, GIF, WebP or BMP images; WOFF, WOFF2, TrueType or OpenType fonts; MP4, WebM, Ogg, MP3, WAV or FLAC media; WebVTT tracks), or inline them as data: URIs.",
	RuleAssetLimit:   fmt.Sprintf("Name at most %d distinct remote resources, with at most %d MiB between them; inline small ones as data: URIs.", MaxPageAssets, MaxPageAssetBytes>>20),
	RuleAssetUnavailable: "Check that the URL opens in a browser; the page is served without this resource until it is fetched. " +
		"Send the page again, or retry its fetches (POST /api/files/{id}/page/revisions/{revision}/refetch), once it is reachable.",
}

// assetFinding returns the finding of rule at ref.
func assetFinding(rule string, ref htmlcheck.Ref, msg string) htmlcheck.Finding {
	sev := htmlcheck.SeverityError
	if rule == RuleAssetUnavailable {
		sev = htmlcheck.SeverityWarning
	}
	return htmlcheck.Finding{Rule: rule, Severity: sev, Message: msg, Line: ref.Line, Column: ref.Column,
		Excerpt: ref.Excerpt, Hint: assetHints[rule], URL: ref.URL}
}

// assetKey names a resource of a page: the same URL loaded as two kinds is
// two resources; URLs that differ only in their fragment (which is never
// sent) are one.
func assetKey(kind, url string) string {
	if i := strings.IndexByte(url, '#'); i >= 0 {
		url = url[:i]
	}
	return kind + " " + url
}

// keptAssets is the outcome of keepAssets.
type keptAssets struct {
	assets []fileframe.PageAsset // one per distinct resource, in the order the page names them
	served []byte                // the HTML to serve; nil when there is nothing to rewrite
	errors []htmlcheck.Finding   // refused resources and limits: the page is refused
	warns  []htmlcheck.Finding   // unavailable resources
}

// keepAssets fetches the remote resources that refs (of doc, from its
// check) name and that prev does not keep already, puts their bytes in
// the blob store, and returns them with the HTML doc is served as. A
// resource prev keeps is not fetched again (an edited page reuses its
// images). Refused resources are findings with errors; with store false
// (a check), nothing is put in the blob store.
func (s *Service) keepAssets(ctx context.Context, acct fileframe.AccountID, doc []byte, refs []htmlcheck.Ref, prev []fileframe.PageAsset, store bool) (keptAssets, error) {
	var out keptAssets
	if len(refs) == 0 {
		return out, nil
	}
	known := make(map[string]fileframe.PageAsset, len(prev))
	for _, a := range prev {
		if a.Kept() {
			known[assetKey(a.Kind, a.URL)] = a
		}
	}
	// The distinct resources, each with the first place the page names it.
	index := map[string]int{}
	var firsts []htmlcheck.Ref
	for _, r := range refs {
		k := assetKey(r.Kind, r.URL)
		if _, ok := index[k]; ok {
			continue
		}
		index[k] = len(firsts)
		firsts = append(firsts, r)
	}
	out.assets = make([]fileframe.PageAsset, len(firsts))
	now := s.now()
	for i, r := range firsts {
		out.assets[i] = fileframe.PageAsset{URL: r.URL, Kind: r.Kind, FetchedAt: now}
		if i >= MaxPageAssets {
			out.assets[i].Problem = "over the limit of remote resources"
			if i == MaxPageAssets {
				out.errors = append(out.errors, assetFinding(RuleAssetLimit, r, fmt.Sprintf(
					"The page names %d distinct remote images, fonts and media; at most %d are kept, and this is number %d.", len(firsts), MaxPageAssets, i+1)))
			}
		}
	}
	if len(out.errors) > 0 {
		return out, nil
	}

	budget, cancel := context.WithTimeout(ctx, pageFetchBudget)
	defer cancel()
	var mu sync.Mutex
	var total int64
	g, gctx := errgroup.WithContext(budget)
	g.SetLimit(pageFetchParallel)
	for i, r := range firsts {
		if a, ok := known[assetKey(r.Kind, r.URL)]; ok {
			a.FetchedAt = out.assets[i].FetchedAt
			out.assets[i] = a
			mu.Lock()
			total += a.Size
			mu.Unlock()
			continue
		}
		g.Go(func() error {
			a := &out.assets[i]
			res, err := s.fetchFor(gctx, acct, r)
			if err != nil {
				var p *fetch.Problem
				switch {
				case errors.As(err, &p) && p.Refused:
					a.Problem = p.Reason
					mu.Lock()
					out.errors = append(out.errors, assetFinding(RuleAssetRefused, r, fmt.Sprintf("The %s %s is refused: %s.", r.Kind, r.URL, p.Reason)))
					mu.Unlock()
				case errors.As(err, &p):
					a.Problem = p.Reason
				case ctx.Err() != nil:
					return ctx.Err() // the caller gave up
				default:
					a.Problem = fmt.Sprintf("it was not fetched within the page's %s budget", pageFetchBudget)
				}
				return nil
			}
			mu.Lock()
			total += int64(len(res.Body))
			over := total > MaxPageAssetBytes
			mu.Unlock()
			if over {
				a.Problem = "over the page's limit of remote bytes"
				mu.Lock()
				out.errors = append(out.errors, assetFinding(RuleAssetLimit, r, fmt.Sprintf(
					"The page's remote images, fonts and media come to more than %d MiB with %s.", MaxPageAssetBytes>>20, r.URL)))
				mu.Unlock()
				return nil
			}
			if store {
				info, err := s.blobs.Put(gctx, bytes.NewReader(res.Body))
				if err != nil {
					return fmt.Errorf("keeping %s: %w", r.URL, err)
				}
				if info.Key != res.SHA256 {
					return fmt.Errorf("keeping %s: the blob store keyed it %s, not %s", r.URL, info.Key, res.SHA256)
				}
			}
			a.SHA256, a.Type, a.Ext, a.Size = res.SHA256, res.Type, res.Ext, int64(len(res.Body))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return keptAssets{}, err
	}
	// Findings in the order of the page, unavailable ones as warnings.
	sortFindings(out.errors)
	for i, a := range out.assets {
		if !a.Kept() && a.Problem != "" && !refusedAt(out.errors, firsts[i]) {
			out.warns = append(out.warns, assetFinding(RuleAssetUnavailable, firsts[i], fmt.Sprintf(
				"The %s %s could not be fetched, so the page is served without it: %s.", firsts[i].Kind, firsts[i].URL, a.Problem)))
		}
	}
	out.served = htmlcheck.Rewrite(doc, refs, func(r htmlcheck.Ref) string {
		a := out.assets[index[assetKey(r.Kind, r.URL)]]
		if !a.Kept() {
			return ""
		}
		return AssetPath(a)
	})
	return out, nil
}

// AssetPath returns the address of a kept resource on the content origin,
// relative to it: /a/<sha256>.<ext>.
func AssetPath(a fileframe.PageAsset) string { return "/a/" + a.SHA256 + "." + a.Ext }

// refusedAt reports whether errs has a finding at ref's place.
func refusedAt(errs []htmlcheck.Finding, ref htmlcheck.Ref) bool {
	for _, f := range errs {
		if f.Line == ref.Line && f.Column == ref.Column && f.URL == ref.URL {
			return true
		}
	}
	return false
}

// sortFindings orders findings by their place in the page.
func sortFindings(fs []htmlcheck.Finding) {
	slices.SortFunc(fs, func(a, b htmlcheck.Finding) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
}

// withAssetFindings adds kept's findings to res, and returns the rejection
// of a page with errors among them.
func withAssetFindings(res htmlcheck.Result, kept keptAssets) (htmlcheck.Result, error) {
	res.Errors = append(res.Errors, kept.errors...)
	res.Warnings = append(res.Warnings, kept.warns...)
	if len(kept.errors) == 0 {
		return res, nil
	}
	first := kept.errors[0]
	return res, &PageRejected{fileframe.Errorf(fileframe.CodeHTMLInvalid,
		"%d of the page's remote images, fonts or media cannot be kept, so the page was not stored; the first is %s at line %d: %s Each element of errors gives the rule, where it is and a hint; fix them all and send the whole document again.",
		len(kept.errors), first.Rule, first.Line, first.Message), res}
}

// CheckPageResources runs the HTML rules on doc (CheckPage) and fetches
// its remote resources as SavePage would for account a, keeping nothing:
// the same findings as saving the page, nothing stored.
func (s *Service) CheckPageResources(ctx context.Context, a fileframe.Account, doc []byte) (htmlcheck.Result, error) {
	res, err := s.CheckPage(ctx, doc)
	if err != nil {
		return res, err
	}
	kept, err := s.keepAssets(ctx, a.ID, doc, res.Refs, nil, false)
	if err != nil {
		return res, err
	}
	return withAssetFindings(res, kept)
}

// PageAssets returns the remote resources that revision rev of f's page
// (one of a's files) names, and what Fileframe keeps of them.
func (s *Service) PageAssets(ctx context.Context, a fileframe.Account, f fileframe.File, rev int) ([]fileframe.PageAsset, error) {
	if f.AccountID != a.ID {
		return nil, fileNotFound(f.ID)
	}
	return s.store.RevisionAssets(ctx, f.ID, rev)
}

// RefetchAssets fetches again the remote resources that revision rev of
// f's page (one of a's files) could not keep, and serves the revision with
// those that now arrive. A resource that is now refused (its name moved to
// a private address, say) stays out with the reason; the revision is not
// refused, since it was stored. The result lists the revision's resources
// and carries the findings of those still missing.
func (s *Service) RefetchAssets(ctx context.Context, a fileframe.Account, f fileframe.File, rev int) ([]fileframe.PageAsset, htmlcheck.Result, error) {
	if err := customPages(a); err != nil {
		return nil, htmlcheck.Result{}, err
	}
	if f.AccountID != a.ID {
		return nil, htmlcheck.Result{}, fileNotFound(f.ID)
	}
	r, err := s.store.Revision(ctx, f.ID, rev)
	if err != nil {
		return nil, htmlcheck.Result{}, err
	}
	prev, err := s.store.RevisionAssets(ctx, f.ID, rev)
	if err != nil {
		return nil, htmlcheck.Result{}, err
	}
	res, err := s.CheckPage(ctx, r.HTML)
	if err != nil {
		return nil, res, err
	}
	kept, err := s.keepAssets(ctx, a.ID, r.HTML, res.Refs, prev, true)
	if err != nil {
		return nil, res, err
	}
	if err := s.store.SetRevisionAssets(ctx, f.ID, rev, kept.served, kept.assets, s.quotas[a.Plan].Storage); err != nil {
		return nil, res, err
	}
	s.changed()
	// Only the resources' findings: the rules' warnings were given when
	// the revision was stored.
	out := htmlcheck.Result{Errors: kept.errors, Warnings: kept.warns}
	return kept.assets, out, nil
}

// fetchFor fetches r for account acct, with at most pageFetchParallel of
// acct's fetches at once, whatever the number of its pages being stored
// or checked: the fetcher's slots are few (fetch.DefaultMaxConcurrent),
// and an account that kept them all busy with hosts that never answer
// would leave every other account's pages without their images (outside
// attack, docs/security.md).
func (s *Service) fetchFor(ctx context.Context, acct fileframe.AccountID, r htmlcheck.Ref) (fetch.Resource, error) {
	release, err := s.accountFetches.acquire(ctx, acct)
	if err != nil {
		return fetch.Resource{}, err
	}
	defer release()
	return s.fetcher.Fetch(ctx, r.URL, fetch.Kind(r.Kind))
}

// accountSlots bounds work per account: each account has n slots.
type accountSlots struct {
	n  int64
	mu sync.Mutex
	m  map[fileframe.AccountID]*accountSlot
}

type accountSlot struct {
	sem   *semaphore.Weighted
	users int
}

func newAccountSlots(n int64) *accountSlots {
	return &accountSlots{n: n, m: map[fileframe.AccountID]*accountSlot{}}
}

// acquire waits for one of id's slots (or ctx's end) and returns its
// release.
func (a *accountSlots) acquire(ctx context.Context, id fileframe.AccountID) (func(), error) {
	a.mu.Lock()
	sl := a.m[id]
	if sl == nil {
		sl = &accountSlot{sem: semaphore.NewWeighted(a.n)}
		a.m[id] = sl
	}
	sl.users++
	a.mu.Unlock()
	done := func() {
		a.mu.Lock()
		if sl.users--; sl.users == 0 {
			delete(a.m, id)
		}
		a.mu.Unlock()
	}
	if err := sl.sem.Acquire(ctx, 1); err != nil {
		done()
		return nil, err
	}
	return func() { sl.sem.Release(1); done() }, nil
}

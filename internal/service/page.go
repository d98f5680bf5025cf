package service

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
	"golang.org/x/sync/semaphore"
)

// PageRejected is the error of SavePage and CheckPage for HTML that breaks
// the rules: Code is CodeHTMLTooLarge (over htmlcheck.MaxSize, with the
// html.size finding) or CodeHTMLInvalid (with the check's errors and
// warnings in Result).
type PageRejected struct {
	Err    *fileframe.Error
	Result htmlcheck.Result
}

func (e *PageRejected) Error() string { return e.Err.Error() }

// Unwrap lets fileframe.ErrorCode and errors.As find the *fileframe.Error.
func (e *PageRejected) Unwrap() error { return e.Err }

// checkWait is how long a page check waits for its turn (checkSlots)
// before it gives up with CodeBusy.
const checkWait = 5 * time.Second

// newCheckSlots bounds the HTML checks running at once: each takes a core
// for milliseconds (tens on hostile input) and memory in proportion to
// the page, so more at once than cores only queues them in the scheduler
// while holding their memory.
func newCheckSlots() *semaphore.Weighted {
	return semaphore.NewWeighted(int64(max(runtime.GOMAXPROCS(0), 2)))
}

// CheckPage runs the HTML rules on doc, the same as SavePage, without
// storing anything. A page that breaks them is a *PageRejected; the
// result's warnings are there either way.
func (s *Service) CheckPage(ctx context.Context, doc []byte) (htmlcheck.Result, error) {
	wait, cancel := context.WithTimeout(ctx, checkWait)
	defer cancel()
	if err := s.checks.Acquire(wait, 1); err != nil {
		if ctx.Err() != nil {
			return htmlcheck.Result{}, ctx.Err()
		}
		return htmlcheck.Result{}, fileframe.Errorf(fileframe.CodeBusy,
			"The server is checking many pages at the moment. Send the page again in a few seconds.")
	}
	res := htmlcheck.Check(doc, htmlcheck.Options{ServiceHosts: s.serviceHosts})
	s.checks.Release(1)
	if len(doc) > htmlcheck.MaxSize {
		return res, &PageRejected{fileframe.Errorf(fileframe.CodeHTMLTooLarge,
			"The html field is %d bytes; the limit is %d bytes (1 MiB) of UTF-8. Make the page smaller (shrink or recompress inlined data: images, or link them by absolute https:// URL; drop unused CSS and JavaScript) and send it again.",
			len(doc), htmlcheck.MaxSize), res}
	}
	if !res.OK() {
		first := res.Errors[0]
		return res, &PageRejected{fileframe.Errorf(fileframe.CodeHTMLInvalid,
			"The HTML breaks %d page rule(s), so it was not stored; the first is %s at line %d: %s Each element of errors gives the rule, where it is and a hint; fix them all and send the whole document again.",
			len(res.Errors), first.Rule, first.Line, first.Message), res}
	}
	return res, nil
}

// PageMode says what saving a page does to what is live.
type PageMode struct {
	// Publish makes the saved revision live.
	Publish bool
	// KeepLive, without Publish, leaves the live revision live; without
	// either, a published page goes back to draft (the seed endpoint's
	// contract).
	KeepLive bool
}

// SavePage stores doc as the next revision of the custom page of file f,
// one of a's files, as mode says. HTML equal to the latest revision's adds
// no revision (the page's SameAsLatest). The account must be on Agency;
// the HTML must pass the rules (CheckPage). The result carries the rules'
// warnings.
func (s *Service) SavePage(ctx context.Context, a fileframe.Account, f fileframe.File, doc []byte, mode PageMode) (fileframe.Page, htmlcheck.Result, error) {
	if err := customPages(a); err != nil {
		return fileframe.Page{}, htmlcheck.Result{}, err
	}
	if f.AccountID != a.ID {
		return fileframe.Page{}, htmlcheck.Result{}, fileNotFound(f.ID)
	}
	if err := s.CheckSpace(ctx); err != nil {
		return fileframe.Page{}, htmlcheck.Result{}, err
	}
	res, err := s.CheckPage(ctx, doc)
	if err != nil {
		return fileframe.Page{}, res, err
	}
	// Its remote resources (page_assets.go): those the latest revision
	// keeps are reused, the others fetched now.
	var prev []fileframe.PageAsset
	if len(res.Refs) > 0 {
		if p, err := s.store.PageByFile(ctx, f.ID); err == nil {
			if prev, err = s.store.RevisionAssets(ctx, f.ID, p.LatestRevision); err != nil && !fileframe.IsNotFound(err) {
				return fileframe.Page{}, res, err
			}
		} else if !fileframe.IsNotFound(err) {
			return fileframe.Page{}, res, err
		}
	}
	kept, err := s.keepAssets(ctx, a.ID, doc, res.Refs, prev, true)
	if err != nil {
		return fileframe.Page{}, res, err
	}
	if res, err = withAssetFindings(res, kept); err != nil {
		return fileframe.Page{}, res, err
	}
	page, err := s.store.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: doc, Publish: mode.Publish, KeepLive: mode.KeepLive, At: s.now(),
		Served: kept.served, Assets: kept.assets, StorageLimit: s.quotas[a.Plan].Storage})
	if fileframe.IsNotFound(err) {
		return fileframe.Page{}, res, fileNotFound(f.ID) // deleted meanwhile
	} else if err != nil {
		return fileframe.Page{}, res, fmt.Errorf("saving the page of file %s: %w", f.ID, err)
	}
	s.changed()
	return page, res, nil
}

// PublishRevision makes revision rev of the custom page of file f (one of
// a's files) the live page, without storing a new revision (publish and
// restore); rev 0 unpublishes the page. A revision that is not kept is
// not found. The revision is checked again against the page rules as they
// are now (CheckPage): one saved under older rules, which a newer version
// of Fileframe refuses, is not published.
func (s *Service) PublishRevision(ctx context.Context, a fileframe.Account, f fileframe.File, rev int) (fileframe.Page, error) {
	if err := customPages(a); err != nil {
		return fileframe.Page{}, err
	}
	if f.AccountID != a.ID {
		return fileframe.Page{}, fileNotFound(f.ID)
	}
	if rev > 0 {
		r, err := s.store.Revision(ctx, f.ID, rev)
		if err != nil {
			return fileframe.Page{}, err
		}
		if res, err := s.CheckPage(ctx, r.HTML); err != nil {
			var rejected *PageRejected
			if !errors.As(err, &rejected) {
				return fileframe.Page{}, err
			}
			msg := fmt.Sprintf("Revision %d is over the size limit of the page rules as they are now, so it was not published. Save a smaller page as a new revision.", rev)
			if len(res.Errors) > 0 {
				first := res.Errors[0]
				msg = fmt.Sprintf("Revision %d breaks %d of the page rules as they are now (they changed after it was saved), so it was not published; the first is %s at line %d: %s Edit it and save it as a new revision.",
					rev, len(res.Errors), first.Rule, first.Line, first.Message)
			}
			return fileframe.Page{}, &PageRejected{fileframe.Errorf(rejected.Err.Code, "%s", msg), res}
		}
	}
	page, err := s.store.SetLiveRevision(ctx, f.ID, rev, s.now())
	if err != nil {
		return fileframe.Page{}, err
	}
	s.changed()
	return page, nil
}

// PublishLatest makes the latest revision of f's page live. A file
// without a page is not found.
func (s *Service) PublishLatest(ctx context.Context, a fileframe.Account, f fileframe.File) (fileframe.Page, error) {
	if err := customPages(a); err != nil {
		return fileframe.Page{}, err
	}
	page, err := s.store.PageByFile(ctx, f.ID)
	if err != nil {
		return fileframe.Page{}, err
	}
	return s.PublishRevision(ctx, a, f, page.LatestRevision)
}

// customPages returns plan_required unless the account may use custom
// pages and API keys (Agency).
func customPages(a fileframe.Account) error {
	if a.Plan.CustomPages() {
		return nil
	}
	return fileframe.Errorf(fileframe.CodePlanRequired,
		"The account is on the %s plan; custom pages and API keys need the Agency plan.", a.Plan.Name())
}

// fileNotFound is the error of a file that does not exist or is another
// account's: the two are never told apart.
func fileNotFound(id fileframe.FileID) error {
	return fileframe.Errorf(fileframe.ENOTFOUND, "There is no file %q in this account.", id)
}

// IsPageRejected returns the rejection of err, if it is one.
func IsPageRejected(err error) (*PageRejected, bool) {
	var pr *PageRejected
	ok := errors.As(err, &pr)
	return pr, ok
}

// Page returns the custom page of f, one of a's files: its latest and live
// revisions. A file without a page is ENOTFOUND.
func (s *Service) Page(ctx context.Context, a fileframe.Account, f fileframe.File) (fileframe.Page, error) {
	if f.AccountID != a.ID {
		return fileframe.Page{}, fileNotFound(f.ID)
	}
	return s.store.PageByFile(ctx, f.ID)
}

// Revisions lists the kept revisions of f's page, newest first, without
// their HTML. A file without a page is ENOTFOUND.
func (s *Service) Revisions(ctx context.Context, a fileframe.Account, f fileframe.File) ([]fileframe.Revision, error) {
	if f.AccountID != a.ID {
		return nil, fileNotFound(f.ID)
	}
	return s.store.Revisions(ctx, f.ID)
}

// Revision returns revision n of f's page with its HTML; one that is not
// kept is ENOTFOUND.
func (s *Service) Revision(ctx context.Context, a fileframe.Account, f fileframe.File, n int) (fileframe.Revision, error) {
	if f.AccountID != a.ID {
		return fileframe.Revision{}, fileNotFound(f.ID)
	}
	return s.store.Revision(ctx, f.ID, n)
}

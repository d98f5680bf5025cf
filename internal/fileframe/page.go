package fileframe

import (
	"context"
	"time"
)

// Page is the custom download page attached to a file. Every stored POST is a
// revision with a number (1, 2, ...); at most one revision is live.
type Page struct {
	FileID         FileID
	LatestRevision int // the revision most recently stored
	LiveRevision   int // the published revision; 0 when the page is a draft
	UpdatedAt      time.Time
	// SameAsLatest is set by SavePage when the HTML was the same as the
	// latest revision's, so that no revision was added (LatestRevision is
	// that revision).
	SameAsLatest bool
}

// Published reports whether the page is live.
func (p Page) Published() bool { return p.LiveRevision > 0 }

// State returns "published" or "draft".
func (p Page) State() string {
	if p.Published() {
		return "published"
	}
	return "draft"
}

// Revision is one stored version of a page. Identical HTML is stored once,
// by content hash, however many revisions refer to it.
type Revision struct {
	FileID      FileID
	Number      int
	SHA256      string // hex SHA-256 of HTML
	Size        int
	HTML        []byte // filled by Store.Revision, empty in listings
	CreatedAt   time.Time
	PublishedAt time.Time // zero when this revision was never published
}

// PageWrite is one POST of custom HTML: a new revision, published or a draft.
type PageWrite struct {
	FileID  FileID
	HTML    []byte
	Publish bool
	// KeepLive, without Publish, leaves the live revision as it is instead
	// of taking the page offline (the REST API's drafts; the seed endpoint's
	// drafts unpublish).
	KeepLive bool
	At       time.Time
}

// RevisionsKept is how many of a page's latest revisions are kept; revisions
// that were ever published are kept beyond that.
const RevisionsKept = 50

// PageStore keeps custom pages and their revisions. Errors follow Store's
// conventions.
type PageStore interface {
	// SavePage stores w.HTML as the page's next revision, atomically: the
	// revision number, the HTML and the page's live/draft state change
	// together or not at all, and concurrent calls for one file are
	// serialised (the last to commit wins). With Publish the new revision
	// becomes live; with KeepLive the live revision stays; with neither the
	// page becomes a draft (not live), even if it was published. HTML equal
	// to the latest revision's adds no revision: the latest one is
	// published, kept or taken offline the same way, and the answer has
	// SameAsLatest. Identical HTML is stored once. Old revisions beyond
	// RevisionsKept that were never published are pruned. The file must
	// exist (else ENOTFOUND).
	SavePage(ctx context.Context, w PageWrite) (Page, error)
	// PageByFile returns a file's custom page; ENOTFOUND when it has none.
	PageByFile(ctx context.Context, id FileID) (Page, error)
	// Revision returns one revision of a file's page with its HTML.
	Revision(ctx context.Context, id FileID, number int) (Revision, error)
	// Revisions lists a page's kept revisions, newest first, without HTML.
	Revisions(ctx context.Context, id FileID) ([]Revision, error)
	// SetLiveRevision publishes an existing revision of the file's page
	// (number ≥ 1) or unpublishes the page (number 0), without storing a
	// new revision. A revision that is not kept is ENOTFOUND.
	SetLiveRevision(ctx context.Context, id FileID, number int, at time.Time) (Page, error)
}

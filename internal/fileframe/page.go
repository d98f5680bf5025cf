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
	FileID FileID
	Number int
	SHA256 string // hex SHA-256 of HTML
	Size   int
	HTML   []byte // filled by Store.Revision, empty in listings
	// Served is the HTML the content origin serves for this revision when
	// it differs from HTML: the page's remote resources rewritten to the
	// copies Fileframe keeps (PageAsset). Filled by Store.Revision; nil
	// when the page is served as posted.
	Served       []byte
	ServedSHA256 string // hex SHA-256 of Served; "" when Served is nil
	CreatedAt    time.Time
	PublishedAt  time.Time // zero when this revision was never published
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
	// Served and Assets are what the revision is served as and what it
	// keeps of its remote resources (PageStore.SetRevisionAssets). When
	// the HTML is the same as the latest revision's, they replace the
	// latest revision's (sending a page again retries its fetches).
	Served []byte
	Assets []PageAsset
	// StorageLimit is the account's storage quota (0: none). Kept
	// resources count against it once each (Usage.Bytes): a write whose
	// resources bring the account's usage up and over it is refused with
	// CodeQuotaExceeded, and nothing is stored.
	StorageLimit int64
}

// Kinds of PageAsset: what the element that names the URL loads it as.
const (
	AssetImage = "image"
	AssetFont  = "font"
	AssetMedia = "media" // audio and video
	AssetTrack = "track" // text tracks (WebVTT)
)

// PageAsset is a remote resource that a revision names by an absolute
// https URL (an image, a font, audio or video, a text track), and what
// Fileframe keeps of it. Visitors' browsers never fetch such a URL: when
// the revision is stored, Fileframe fetches it once, keeps the bytes in
// the blob store under their SHA-256 (shared by every revision and page
// that names the same bytes), and the content origin serves the revision
// with the URL rewritten to its own copy (docs/api.md, "Images, fonts and
// media").
type PageAsset struct {
	URL  string // as the page names it, decoded
	Kind string // AssetImage, AssetFont, AssetMedia or AssetTrack
	// SHA256 is the key of the kept bytes in the blob store; "" when the
	// resource could not be fetched (Problem says why).
	SHA256 string
	Type   string // the Content-Type it is served with; "" when not kept
	Ext    string // the extension of its address on the content origin
	Size   int64
	// Problem says why it is not kept: it could not be fetched when the
	// revision was stored, and the page is served without it until a
	// retry succeeds. "" when kept.
	Problem   string
	FetchedAt time.Time // the last attempt
}

// Kept reports whether Fileframe keeps the resource's bytes.
func (a PageAsset) Kept() bool { return a.SHA256 != "" }

// AnyKept reports whether Fileframe keeps the bytes of any of assets: only
// then can storing them add to the account's storage (Usage.Bytes).
func AnyKept(assets []PageAsset) bool {
	for _, a := range assets {
		if a.Kept() {
			return true
		}
	}
	return false
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
	// RevisionHead returns a revision's SHA-256 and at most max bytes of
	// the start of its HTML as posted (not as served): what a reader of
	// the page's head needs, without the rest of a page of up to a MiB
	// and its served copy. ENOTFOUND as Revision.
	RevisionHead(ctx context.Context, id FileID, number int, max int) (sha256 string, head []byte, err error)
	// Revisions lists a page's kept revisions, newest first, without HTML.
	Revisions(ctx context.Context, id FileID) ([]Revision, error)
	// SetLiveRevision publishes an existing revision of the file's page
	// (number ≥ 1) or unpublishes the page (number 0), without storing a
	// new revision. A revision that is not kept is ENOTFOUND.
	SetLiveRevision(ctx context.Context, id FileID, number int, at time.Time) (Page, error)
	// RevisionAssets lists the remote resources a kept revision names, in
	// the order the page first names them; ENOTFOUND for a revision that
	// is not kept.
	RevisionAssets(ctx context.Context, id FileID, number int) ([]PageAsset, error)
	// SetRevisionAssets replaces what a kept revision keeps of its remote
	// resources and the HTML it is served as (served nil: as posted),
	// after a retry of its fetches, within storageLimit as PageWrite's
	// StorageLimit; ENOTFOUND for a revision that is not kept.
	SetRevisionAssets(ctx context.Context, id FileID, number int, served []byte, assets []PageAsset, storageLimit int64) error
	// Asset returns a kept resource by the SHA-256 of its bytes (its
	// Type, Ext and Size) when a kept revision keeps it; else ENOTFOUND.
	Asset(ctx context.Context, sha256 string) (PageAsset, error)
}

package fileframe

import "time"

// Page is the custom download page attached to a file. Every stored POST is a
// revision with a number (1, 2, ...); at most one revision is live.
type Page struct {
	FileID         FileID
	LatestRevision int // the revision most recently stored
	LiveRevision   int // the published revision; 0 when the page is a draft
	UpdatedAt      time.Time
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
	At      time.Time
}

// RevisionsKept is how many of a page's latest revisions are kept; revisions
// that were ever published are kept beyond that.
const RevisionsKept = 50

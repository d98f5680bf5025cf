package fileframe

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Statistics (issue 14): what visitors of a link did, counted privately.
//
// Three events are counted: a view (a visitor's outer, template or default
// page; never a HEAD, a prefetch or a crawler), a click (a download that
// starts at byte 0: the control, or the link itself) and a download (a
// response that reached the file's last byte). Each is tied to the file,
// the Variant that was shown, and, per day, to the referrer's host, the UTM
// parameters of the page's address and the device class.
//
// Nothing identifies a visitor: no cookie is set and no address stored.
// Unique visitors per day come from a 64-bit hash of the day's salt, the
// file, the visitor's address and user agent (VisitorHash); the salt is
// made on first use of its day, shared by every instance through the
// store, and deleted by the day's rollup (RollupStats), after which the
// hashes cannot be recomputed and are deleted too, leaving only counts.
//
// Servers gather events in memory and write them in batches (AddStats),
// as they do download counts; what a crash can lose is what one batch
// holds (docs/performance.md, "Statistics").

// StatEvent is a kind of event.
type StatEvent uint8

const (
	StatView StatEvent = 1 << iota
	StatClick
	StatDownload
)

// Variant names what a visitor was shown: "page:N" for revision N of the
// custom page, "template:NAME" for a template appearance, "default" for the
// neutral default page. At most MaxVariant bytes.
type Variant string

// VariantDefault is the neutral default page.
const VariantDefault Variant = "default"

// MaxVariant is the longest Variant.
const MaxVariant = 64

// PageVariant is revision n of the custom page.
func PageVariant(n int) Variant { return Variant("page:" + strconv.Itoa(n)) }

// TemplateVariant is the template appearance named name.
func TemplateVariant(name string) Variant { return Variant("template:" + name) }

// Revision returns the page revision of a "page:N" variant, and 0 for any
// other.
func (v Variant) Revision() int {
	s, ok := strings.CutPrefix(string(v), "page:")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// Device classes.
const (
	DeviceDesktop = "desktop"
	DevicePhone   = "phone"
	DeviceTablet  = "tablet"
	DeviceOther   = "other"
)

// Source dimensions: what StatSourceKey.Dim names.
const (
	DimReferrer    = "referrer"
	DimUTMSource   = "utm_source"
	DimUTMMedium   = "utm_medium"
	DimUTMCampaign = "utm_campaign"
	DimDevice      = "device"
)

// Source values that are not a host or a UTM value: a view without a
// Referer (or from the service's own pages); and one whose Referer names
// no host, or whose value came after the day's bound of distinct values
// (web/stats.go) was reached.
const (
	ReferrerNone  = "(none)"
	ReferrerOther = "(other)"
)

// StatDims are the source dimensions, in the order reports list them.
var StatDims = []string{DimReferrer, DimUTMSource, DimUTMMedium, DimUTMCampaign, DimDevice}

// MaxSourceValue is the longest value of a source dimension kept, in
// bytes; longer ones are cut.
const MaxSourceValue = 100

// StatCounts are counts of each event.
type StatCounts struct {
	Views, Clicks, Downloads int64
}

// Add adds o to c.
func (c *StatCounts) Add(o StatCounts) {
	c.Views += o.Views
	c.Clicks += o.Clicks
	c.Downloads += o.Downloads
}

// Count adds one event of kind e.
func (c *StatCounts) Count(e StatEvent) {
	switch e {
	case StatView:
		c.Views++
	case StatClick:
		c.Clicks++
	case StatDownload:
		c.Downloads++
	}
}

// TestID names an A/B test (PageTest); "" outside any.
type TestID string

// StatKey is a file's counts in one hour (unix seconds, a multiple of 3600)
// for one variant, during one test or none.
type StatKey struct {
	File    FileID
	Hour    int64
	Variant Variant
	Test    TestID
}

// StatSourceKey is a file's counts in one day (unix seconds of 00:00 UTC)
// from one value of a source dimension.
type StatSourceKey struct {
	File  FileID
	Day   int64
	Dim   string
	Value string
}

// StatVisitorKey is one visitor's day with a file's variant.
type StatVisitorKey struct {
	File    FileID
	Day     int64
	Variant Variant
	Test    TestID
	Visitor uint64 // VisitorHash
}

// StatBatch is what a server gathered since its last write.
type StatBatch struct {
	Hours   map[StatKey]StatCounts
	Sources map[StatSourceKey]StatCounts
	// Visitors are the events (StatEvent bits, or'ed) each visitor had.
	Visitors map[StatVisitorKey]StatEvent
}

// NewStatBatch returns an empty batch.
func NewStatBatch() *StatBatch {
	return &StatBatch{
		Hours:    make(map[StatKey]StatCounts),
		Sources:  make(map[StatSourceKey]StatCounts),
		Visitors: make(map[StatVisitorKey]StatEvent),
	}
}

// Empty reports whether b holds nothing.
func (b *StatBatch) Empty() bool {
	return len(b.Hours) == 0 && len(b.Sources) == 0 && len(b.Visitors) == 0
}

// Merge adds o to b.
func (b *StatBatch) Merge(o *StatBatch) {
	for k, c := range o.Hours {
		v := b.Hours[k]
		v.Add(c)
		b.Hours[k] = v
	}
	for k, c := range o.Sources {
		v := b.Sources[k]
		v.Add(c)
		b.Sources[k] = v
	}
	for k, e := range o.Visitors {
		b.Visitors[k] |= e
	}
}

// Events is how many events b holds.
func (b *StatBatch) Events() int64 {
	var n int64
	for _, c := range b.Hours {
		n += c.Views + c.Clicks + c.Downloads
	}
	return n
}

// DayStart returns the unix seconds of 00:00 UTC of t's day.
func DayStart(t time.Time) int64 {
	u := t.Unix()
	return u - ((u%86400)+86400)%86400
}

// HourStart returns the unix seconds of the start of t's hour.
func HourStart(t time.Time) int64 {
	u := t.Unix()
	return u - ((u%3600)+3600)%3600
}

// StatRow is one row of a report: the counts of a time bucket, a variant
// or a source, with the day's unique visitors where known.
type StatRow struct {
	// At is the bucket's start (series); zero otherwise.
	At      time.Time
	Variant Variant // variant rows
	Test    TestID  // variant rows of a test
	Dim     string  // source rows
	Value   string  // source rows
	File    FileID  // account overview rows
	StatCounts
	// Visitors are the unique visitors (per day, summed over days) who
	// saw a page; Converted those of them who completed a download. Both
	// are -1 in hourly series, where they are not kept.
	Visitors, Converted int64
}

// StatQuery selects the figures of a report.
type StatQuery struct {
	Account AccountID
	File    FileID // "" for the account overview
	// From and To bound the time: [From, To).
	From, To time.Time
	Hourly   bool   // series per hour instead of per day
	Test     TestID // only events during this test
}

// StatReport is what StatsStore.Stats returns.
type StatReport struct {
	Totals   StatRow
	Series   []StatRow // per hour or day, oldest first, with empty buckets
	Variants []StatRow // per variant, most viewed first
	Sources  []StatRow // per dimension (StatDims' order), then most viewed first
	Files    []StatRow // account overview: per file, most viewed first
}

// PageTest is an A/B test of a file's page: visitors of the published link
// see one of Revisions, chosen evenly from a hash of Secret and what their
// request says of them, so that each stays on a variant without a cookie.
type PageTest struct {
	ID        TestID
	FileID    FileID
	AccountID AccountID
	Revisions []int
	Secret    []byte
	StartedAt time.Time
	EndedAt   time.Time // zero while it runs
	// Promoted is the revision published when it ended; 0 when none was.
	Promoted int
}

// NewTestID returns a new random test ID.
func NewTestID() TestID { return TestID("ab_" + RandomBase62(16)) }

// Valid reports whether id has the shape NewTestID gives.
func (id TestID) Valid() bool { return validID(string(id), "ab_", 16) }

// Running reports whether the test has not ended.
func (t PageTest) Running() bool { return t.EndedAt.IsZero() }

// MaxTestVariants is the most revisions a test shows.
const MaxTestVariants = 4

// StatsStore keeps statistics and A/B tests. Errors follow Store's
// conventions.
type StatsStore interface {
	// AddStats adds the batch in one transaction: counts to the hourly and
	// daily rows, visitors' events to their day. Counts of files that no
	// longer exist are dropped.
	AddStats(ctx context.Context, b *StatBatch) error
	// StatsSalt returns the salt of the day (unix seconds of 00:00 UTC),
	// made with generate on first use; every caller gets the same one. A
	// day whose salt was deleted by RollupStats is ENOTFOUND.
	StatsSalt(ctx context.Context, day int64, generate func() []byte) ([]byte, error)
	// RollupStats turns every day before the day of cutoff into counts:
	// each day's unique visitors and converters are added to its daily
	// rows, and its visitor hashes and salt deleted; hourly rows before
	// keepHours and daily rows before keepDays (unix seconds) are deleted.
	// It returns the number of visitor hashes it rolled up.
	RollupStats(ctx context.Context, cutoff time.Time, keepHours, keepDays int64) (int64, error)
	// Stats returns the report of q.
	Stats(ctx context.Context, q StatQuery) (StatReport, error)

	// CreatePageTest starts t (ID, Secret and StartedAt set by the
	// caller). A file has at most one running test: ECONFLICT otherwise.
	CreatePageTest(ctx context.Context, t PageTest) error
	// PageTests returns the file's tests, newest first.
	PageTests(ctx context.Context, file FileID) ([]PageTest, error)
	// RunningPageTest returns the file's running test, or ENOTFOUND.
	RunningPageTest(ctx context.Context, file FileID) (PageTest, error)
	// EndPageTest ends the running test id at at, recording promoted (the
	// revision its caller published, or 0). ENOTFOUND when the test is not
	// running.
	EndPageTest(ctx context.Context, id TestID, promoted int, at time.Time) (PageTest, error)
}

// FormatRevisions is how stores keep a test's revisions: "3,5".
func FormatRevisions(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// ParseRevisions reads what FormatRevisions wrote.
func ParseRevisions(s string) []int {
	var ns []int
	for _, p := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(p); err == nil {
			ns = append(ns, n)
		}
	}
	return ns
}

// VisitorHash is a visitor's 64-bit hash for a day's counts of one file:
// the first 8 bytes of the SHA-256 of the day's secret salt followed by
// the file, the client address and the user agent (each NUL-separated).
// Without the salt, which lives one day, it cannot be recomputed from an
// address. It allocates nothing for the usual lengths: it runs on every
// view.
func VisitorHash(salt []byte, file FileID, addr, userAgent string) uint64 {
	var b [320]byte
	buf := append(b[:0], salt...)
	buf = append(buf, file...)
	buf = append(buf, 0)
	buf = append(buf, addr...)
	buf = append(buf, 0)
	buf = append(buf, userAgent...)
	sum := sha256.Sum256(buf)
	return binary.BigEndian.Uint64(sum[:8])
}

// Assign returns the revision the test shows a visitor with that address
// and user agent: the same one every time, the revisions evenly over
// visitors. Nothing is stored, and no cookie is needed.
func (t PageTest) Assign(addr, userAgent string) int {
	if len(t.Revisions) == 0 {
		return 0
	}
	h := VisitorHash(t.Secret, t.FileID, addr, userAgent)
	// The high bits, by multiplication: no modulo bias worth the name for
	// at most MaxTestVariants revisions.
	hi, _ := bits.Mul64(h, uint64(len(t.Revisions)))
	return t.Revisions[hi]
}

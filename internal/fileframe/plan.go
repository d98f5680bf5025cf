package fileframe

import "time"

// Plan is an account's subscription level.
type Plan string

// The plans, in increasing order. Free: upload and share with the neutral
// default page. Pro: also template appearances and branding. Agency: also
// custom pages and API keys.
const (
	PlanFree   Plan = "free"
	PlanPro    Plan = "pro"
	PlanAgency Plan = "agency"
)

// ParsePlan returns the plan named s, or an EINVALID error.
func ParsePlan(s string) (Plan, error) {
	switch p := Plan(s); p {
	case PlanFree, PlanPro, PlanAgency:
		return p, nil
	}
	return "", Errorf(EINVALID, "Unknown plan %q: use free, pro or agency.", s)
}

// CustomPages reports whether the plan may use API keys and custom pages.
func (p Plan) CustomPages() bool { return p == PlanAgency }

// Templates reports whether the plan may use template appearances.
func (p Plan) Templates() bool { return p == PlanPro || p == PlanAgency }

// Name returns the plan's name as people read it: Free, Pro or Agency.
func (p Plan) Name() string {
	switch p {
	case PlanFree:
		return "Free"
	case PlanPro:
		return "Pro"
	case PlanAgency:
		return "Agency"
	}
	return string(p)
}

// Quota is what one plan may store: Storage bytes in all (the sum of the
// account's file sizes, a file stored twice counting twice, as the owner
// sees it, and the images of its appearances, each appearance counting its
// own), Files files at most, and files of at most File bytes each. Zero is
// unlimited.
type Quota struct {
	Storage int64
	File    int64
	Files   int64
	// DefaultExpiry is how long a new file's link lives when its owner
	// does not say; MaxExpiry the longest an owner may set. Zero: no
	// default (links live until the owner ends them), no maximum.
	DefaultExpiry, MaxExpiry time.Duration
}

// Usage is what an account holds against its Quota, as a Store counts it:
// Bytes of its files, of its appearances' images, of its upload
// reservations and of the remote resources its pages keep (PageAsset,
// each distinct one once); Files, its files and reservations (each one a
// file to be).
type Usage struct {
	Bytes, Files int64
}

// Fits returns a CodeQuotaExceeded error unless size more bytes fit in
// q.Storage beside u, and a CodeFileCountExceeded one unless one more file
// fits in q.Files. The messages are the store's; the use cases, which know
// the plan, word their own.
func (u Usage) Fits(size int64, q Quota) error {
	if q.Storage > 0 && u.Bytes+size > q.Storage {
		return QuotaExceeded()
	}
	if q.Files > 0 && u.Files+1 > q.Files {
		return Errorf(CodeFileCountExceeded, "The account keeps as many files as its plan allows.")
	}
	return nil
}

// QuotaExceeded is a Store's answer to what does not fit in an account's
// storage (a new error each time: an *Error's Title can be set).
func QuotaExceeded() error {
	return Errorf(CodeQuotaExceeded, "This does not fit in what is left of the account's storage.")
}

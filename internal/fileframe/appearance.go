package fileframe

import (
	"context"
	"time"
)

// Appearance is a template-based look of a file's download page: one of the
// built-in templates plus branding. An account has a default appearance; a
// file may override it. The zero Appearance means "none set".
type Appearance struct {
	Template   string // name of a built-in template; empty = none set
	Headline   string
	Message    string
	Accent     string // CSS colour, #rrggbb
	LogoKey    string // blob key of the logo image, or empty
	Background string // blob key of the background image, or empty
	// LogoBytes and BackgroundBytes are the images' sizes, which count in
	// the account's storage (Quota); UnmeasuredImage when an image stored
	// before sizes were kept has not been measured yet (it counts as 0).
	LogoBytes, BackgroundBytes int64
}

// UnmeasuredImage is the size of an appearance image that was stored
// before Fileframe kept image sizes and is not measured yet
// (Store.UnmeasuredImages, SetImageBytes).
const UnmeasuredImage = -1

// ImageBytes is what a's images count in its account's storage.
func (a Appearance) ImageBytes() int64 {
	return max(a.LogoBytes, 0) + max(a.BackgroundBytes, 0)
}

// IsZero reports whether no appearance is set.
func (a Appearance) IsZero() bool { return a == Appearance{} }

// AccountUsage is an account with what it stores, for the admin page.
type AccountUsage struct {
	Account
	Files int64
	Bytes int64
}

// FileListing is a file with the state of its custom page and its own
// appearance, for the file list of the web application.
type FileListing struct {
	File
	LatestRevision int // 0 when the file has no custom page
	LiveRevision   int // 0 unless the page is published
	// Appearance is the file's own appearance (FileAppearance), zero when
	// it has none.
	Appearance Appearance
}

// AppearanceStore keeps the appearances of accounts and of files. Errors
// follow Store's conventions.
type AppearanceStore interface {
	// SetAccountAppearance sets the account's default appearance (the zero
	// value clears it). When a's images (ImageBytes) are larger than the
	// ones it replaces, the account's storage as Reserve counts it at now,
	// with a's images instead of the old ones, must fit in limit (≤ 0 is
	// unlimited), or nothing changes and the error has code
	// CodeQuotaExceeded; check and write are one atomic step, as Reserve's.
	SetAccountAppearance(ctx context.Context, id AccountID, a Appearance, limit int64, now time.Time) error
	// AccountAppearance returns the account's default appearance (zero when
	// none is set).
	AccountAppearance(ctx context.Context, id AccountID) (Appearance, error)
	// SetFileAppearance sets the file's own appearance, overriding the
	// account's (the zero value clears the override), under limit as
	// SetAccountAppearance.
	SetFileAppearance(ctx context.Context, id FileID, a Appearance, limit int64, now time.Time) error
	// FileAppearance returns the file's own appearance (zero when none).
	FileAppearance(ctx context.Context, id FileID) (Appearance, error)
	// UnmeasuredImages returns the keys of appearance images whose size
	// is UnmeasuredImage, at most limit of them.
	UnmeasuredImages(ctx context.Context, limit int) ([]string, error)
	// SetImageBytes sets the size of every unmeasured appearance image
	// with blob key key.
	SetImageBytes(ctx context.Context, key string, bytes int64) error
}

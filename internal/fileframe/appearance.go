package fileframe

import "context"

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
	// value clears it).
	SetAccountAppearance(ctx context.Context, id AccountID, a Appearance) error
	// AccountAppearance returns the account's default appearance (zero when
	// none is set).
	AccountAppearance(ctx context.Context, id AccountID) (Appearance, error)
	// SetFileAppearance sets the file's own appearance, overriding the
	// account's (the zero value clears the override).
	SetFileAppearance(ctx context.Context, id FileID, a Appearance) error
	// FileAppearance returns the file's own appearance (zero when none).
	FileAppearance(ctx context.Context, id FileID) (Appearance, error)
}

package fileframe

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

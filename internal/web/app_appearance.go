package web

import (
	"context"
	"net/http"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// appearanceRoutes registers the appearance editors (account branding and
// per-file override).
func (s *Server) appearanceRoutes(mux *http.ServeMux) {
}

// appearanceSection is the data of the "file_appearance" template
// (templates/app_appearance.html): the appearance part of a file's page.
type appearanceSection struct {
	FileID fileframe.FileID
	CSRF   string
}

// fileAppearanceSection returns the appearance part of the page of file f,
// owned by the signed-in account acct; csrf is the session's form token.
func (s *Server) fileAppearanceSection(ctx context.Context, acct fileframe.Account, f fileframe.File, csrf string) (appearanceSection, error) {
	return appearanceSection{FileID: f.ID, CSRF: csrf}, nil
}

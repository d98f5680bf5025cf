package web

import "net/http"

// uploadRoutes registers the resumable (tus) and plain upload endpoints.
func (s *Server) uploadRoutes(mux *http.ServeMux) {
}

// uploadPanel is the data of the "upload_panel" template
// (templates/app_upload.html), which the file list shows. Styles and
// Scripts are what the page must load for it (appPage.Styles, .Scripts).
type uploadPanel struct {
	Styles  []string
	Scripts []string
}

// uploadPanel returns the upload panel of the file list.
func (s *Server) uploadPanel() uploadPanel {
	return uploadPanel{}
}

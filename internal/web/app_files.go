package web

import "net/http"

// fileRoutes registers the file list, the file page, rename, delete and the custom page panel.
func (s *Server) fileRoutes(mux *http.ServeMux) {
}

package web

import "net/http"

// appearanceRoutes registers the appearance editors (account branding and per-file override).
func (s *Server) appearanceRoutes(mux *http.ServeMux) {
}

package web

import "net/http"

// uploadRoutes registers the resumable (tus) and plain upload endpoints.
func (s *Server) uploadRoutes(mux *http.ServeMux) {
}

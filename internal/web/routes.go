package web

import "net/http"

// AppHandler returns the handler of the app origin: the API, the public
// download pages and the operational endpoints. It never serves custom-page
// bytes.
func (s *Server) AppHandler() http.Handler {
	mux := http.NewServeMux()

	// API, authenticated by key (api_*.go).
	mux.HandleFunc("POST /api/campaign/custom-html", s.apiCustomHTML)
	mux.HandleFunc("/api/campaign/custom-html", s.apiMethodNotAllowed)
	mux.HandleFunc("/api/", s.apiNotFound)

	// Public pages (public_*.go).
	mux.HandleFunc("GET /f/{slug}", s.publicFile)
	mux.HandleFunc("GET /f/{slug}/download", s.publicDownload)
	mux.Handle("GET /static/", s.staticFiles())

	// App, session (app_*.go). Every state-changing form also passes the
	// standard cross-origin protection before its CSRF token is checked.
	mux.HandleFunc("GET /{$}", s.appHandler(s.appHome))
	mux.Handle("GET /setup", http.HandlerFunc(s.setup))
	mux.Handle("POST /setup", s.crossOrigin(http.HandlerFunc(s.setup)))
	mux.HandleFunc("GET /signup", s.appHandler(s.signup))
	mux.Handle("POST /signup", s.crossOrigin(s.appHandler(s.signup)))
	mux.HandleFunc("GET /login", s.appHandler(s.login))
	mux.Handle("POST /login", s.crossOrigin(s.appHandler(s.login)))
	mux.Handle("POST /logout", s.crossOrigin(s.appHandler(s.logout)))
	mux.HandleFunc("GET /account", s.appHandler(s.account))
	mux.Handle("POST /account/password", s.crossOrigin(s.appHandler(s.changePassword)))
	// API keys (app_keys.go).
	mux.HandleFunc("GET /keys", s.appHandler(s.keys))
	mux.Handle("POST /keys", s.crossOrigin(s.appHandler(s.createKey)))
	mux.Handle("POST /keys/{id}/revoke", s.crossOrigin(s.appHandler(s.revokeKey)))
	// Files (app_files.go), uploads (app_upload.go) and appearances
	// (app_appearance.go) register their own routes.
	s.fileRoutes(mux)
	s.uploadRoutes(mux)
	s.appearanceRoutes(mux)
	// Admin (app_admin.go): admins only; anyone else gets a 404.
	mux.HandleFunc("GET /admin", s.appHandler(s.admin))
	mux.Handle("POST /admin/accounts/{id}/plan", s.crossOrigin(s.appHandler(s.adminSetPlan)))
	mux.Handle("POST /admin/accounts/{id}/disable", s.crossOrigin(s.appHandler(s.adminDisable)))
	mux.Handle("POST /admin/accounts/{id}/enable", s.crossOrigin(s.appHandler(s.adminEnable)))

	// Operations (ops.go): /healthz for anyone (load balancers); /readyz
	// and /metrics only with the operations token, else on OpsHandler.
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /readyz", s.opsOnly(http.HandlerFunc(s.readyz)))
	mux.Handle("GET /metrics", s.opsOnly(s.metricsHandler()))

	mux.HandleFunc("/", s.publicNotFound)
	return s.observe("app", mux)
}

// ContentHandler returns the handler of the content origin, which serves the
// bytes of custom pages and nothing else (content_*.go). Every response it
// makes, errors included, carries the sandbox CSP and nosniff.
func (s *Server) ContentHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /p/{slug}/{revision}", s.contentPage)
	mux.HandleFunc("/", s.contentNotFound)
	return s.observe("content", s.sandboxHeaders(mux))
}

// OpsHandler returns the handler of the operations listener (serve's
// --ops-addr), meant for a private network: /healthz, /readyz and /metrics,
// without a token, and nothing else.
func (s *Server) OpsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", s.metricsHandler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Not found: this listener serves /healthz, /readyz and /metrics.", http.StatusNotFound)
	})
	return s.observe("ops", mux)
}

// HostHandler serves both origins on one listener, choosing by the Host
// header: requests for the content origin's host get ContentHandler, all
// others AppHandler. It is used when the content origin is a separate domain
// behind the same reverse proxy, instead of a second listener.
func (s *Server) HostHandler() http.Handler {
	app, content := s.AppHandler(), s.ContentHandler()
	contentHost := s.cfg.ContentOrigin.Host
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == contentHost {
			content.ServeHTTP(w, r)
			return
		}
		app.ServeHTTP(w, r)
	})
}

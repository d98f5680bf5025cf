package web

import (
	"net/http"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// route is one route of an origin: its ServeMux pattern, the group that
// says who may call it, and its handler with that group's guard around it.
type route struct {
	pattern string
	group   group
	handler http.Handler
}

// group names who may call a route. Every route of the app origin is in
// exactly one; TestRouteGuards sends each route of every group but public
// and ops a request that lacks what the group needs, and fails when the
// route answers anything but the group's refusal.
type group string

const (
	// groupPublic: anyone: the download links, their pages and images, the
	// static files, and the answers to unknown addresses.
	groupPublic group = "public"
	// groupKey: an API key, checked by the handler in DESIGN.md's order
	// of checks (401 before 403 before 429 …): api_auth.go.
	groupKey group = "API key"
	// groupVisitor: the pages and forms of someone signed out (sign-in,
	// sign-up, the one-time setup); forms need the anonymous CSRF token.
	groupVisitor group = "visitor"
	// groupSession: a signed-in owner; state changes also need the
	// cross-origin protection and the session's CSRF token (guard.go).
	groupSession group = "session"
	// groupPro: a signed-in owner on the Pro or the Agency plan
	// (appearances), with the CSRF token for state changes.
	groupPro group = "pro"
	// groupAgency: a signed-in owner on the Agency plan, with the CSRF
	// token.
	groupAgency group = "agency"
	// groupAdmin: a signed-in administrator (anyone else gets the
	// ordinary 404), with the CSRF token for state changes.
	groupAdmin group = "admin"
	// groupTus: resumable uploads: a signed-in owner with the session's
	// CSRF token in X-CSRF-Token on a state change, or a general API key
	// (Authorization: Bearer) of an Agency account; and an upload ID of the
	// owner's own (tusSession).
	groupTus group = "tus"
	// groupRequest: a sender's uploads to a file request: a visit cookie
	// of the request, and the visit's token on a state change
	// (public_request.go).
	groupRequest group = "request"
	// groupOps: the operations endpoints; /readyz and /metrics need the
	// operations token on the app origin (opsOnly).
	groupOps group = "ops"
)

// appRoutes lists every route of the app origin, by group.
func (s *Server) appRoutes() []route {
	g := func(gd guard, h appFunc) http.Handler { return s.wrap(gd, h) }
	rs := []route{
		// Public: download links (public_*.go), appearance images on the
		// public pages, static files.
		{"GET /f/{slug}", groupPublic, http.HandlerFunc(s.publicFile)},
		{"GET /f/{slug}/download", groupPublic, http.HandlerFunc(s.publicDownload)},
		// One file of a collection, behind the collection's gates
		// (public_collection.go).
		{"GET /f/{slug}/files/{fileId}", groupPublic, http.HandlerFunc(s.publicCollectionFile)},
		{"GET /f/{slug}/logo", groupPublic, s.publicImage("logo")},
		{"GET /f/{slug}/background", groupPublic, s.publicImage("background")},
		// The link preview card, og:image (public_card.go).
		{"GET /f/{slug}/card.png", groupPublic, http.HandlerFunc(s.publicCard)},
		// An image preview's thumbnail (public_preview.go).
		{"GET /f/{slug}/thumb/{file}", groupPublic, http.HandlerFunc(s.publicThumb)},
		{"GET /static/", groupPublic, s.staticFiles()},

		// Discovery (public_llms.go): the API for agents, from docs/.
		{"GET /llms.txt", groupPublic, s.llmsText()},
		{"GET /llms-full.txt", groupPublic, s.llmsFullText()},

		// API, by key (api_*.go): every endpoint runs the pipeline of
		// api_call.go (key, plan, key scope, rate limits, body,
		// Idempotency-Key); each path answers other methods 405.
		{"POST /api/campaign/custom-html", groupKey, s.apiCustomHTML()},
		{"/api/campaign/custom-html", groupPublic, s.apiMethods("POST")},
		{"GET /api/files", groupKey, s.api(apiEndpoint{run: s.apiListFiles})},
		{"POST /api/files", groupKey, s.apiUploadFiles()},
		{"/api/files", groupPublic, s.apiMethods("GET", "POST")},
		{"GET /api/files/{id}", groupKey, s.api(apiEndpoint{run: s.apiGetFile})},
		{"PATCH /api/files/{id}", groupKey, s.api(apiEndpoint{body: bodyJSON, mergePatch: true, general: true, scope: "Changing files", run: s.apiRenameFile})},
		{"DELETE /api/files/{id}", groupKey, s.api(apiEndpoint{general: true, scope: "Deleting files", run: s.apiDeleteFile})},
		{"/api/files/{id}", groupPublic, s.apiMethods("GET", "PATCH", "DELETE")},
		{"GET /api/files/{id}/page", groupKey, s.api(apiEndpoint{run: s.apiGetPage})},
		{"/api/files/{id}/page", groupPublic, s.apiMethods("GET")},
		{"GET /api/files/{id}/page/revisions", groupKey, s.api(apiEndpoint{run: s.apiListRevisions})},
		{"POST /api/files/{id}/page/revisions", groupKey, s.api(apiEndpoint{body: bodyJSON, run: s.apiSaveRevision})},
		{"/api/files/{id}/page/revisions", groupPublic, s.apiMethods("GET", "POST")},
		{"GET /api/files/{id}/page/revisions/{rev}", groupKey, s.api(apiEndpoint{run: s.apiGetRevision})},
		{"/api/files/{id}/page/revisions/{rev}", groupPublic, s.apiMethods("GET")},
		{"POST /api/files/{id}/page/revisions/{rev}/restore", groupKey, s.api(apiEndpoint{body: bodyOptionalJSON, run: s.apiRestoreRevision})},
		{"/api/files/{id}/page/revisions/{rev}/restore", groupPublic, s.apiMethods("POST")},
		{"POST /api/files/{id}/page/revisions/{rev}/refetch", groupKey, s.api(apiEndpoint{body: bodyOptionalJSON, run: s.apiRefetch})},
		{"/api/files/{id}/page/revisions/{rev}/refetch", groupPublic, s.apiMethods("POST")},
		{"POST /api/files/{id}/page/publish", groupKey, s.api(apiEndpoint{body: bodyOptionalJSON, run: s.apiPublish})},
		{"/api/files/{id}/page/publish", groupPublic, s.apiMethods("POST")},
		{"POST /api/files/{id}/page/unpublish", groupKey, s.api(apiEndpoint{body: bodyOptionalJSON, run: s.apiUnpublish})},
		{"/api/files/{id}/page/unpublish", groupPublic, s.apiMethods("POST")},
		// Collections (api_collections.go).
		{"POST /api/collections", groupKey, s.api(apiEndpoint{body: bodyJSON, general: true, scope: "Creating collections", run: s.apiCreateCollection})},
		{"/api/collections", groupPublic, s.apiMethods("POST")},
		{"GET /api/collections/{id}", groupKey, s.api(apiEndpoint{run: s.apiGetCollection})},
		{"/api/collections/{id}", groupPublic, s.apiMethods("GET")},
		{"POST /api/collections/{id}/files", groupKey, s.api(apiEndpoint{body: bodyJSON, general: true, scope: "Changing collections", run: s.apiAddToCollection})},
		{"/api/collections/{id}/files", groupPublic, s.apiMethods("POST")},
		{"DELETE /api/collections/{id}/files/{fileId}", groupKey, s.api(apiEndpoint{general: true, scope: "Changing collections", run: s.apiRemoveFromCollection})},
		{"/api/collections/{id}/files/{fileId}", groupPublic, s.apiMethods("DELETE")},
		{"POST /api/files/{id}/share", groupKey, s.api(apiEndpoint{body: bodyOptionalJSON, general: true, scope: "Sharing files", run: s.apiShareFile})},
		{"/api/files/{id}/share", groupPublic, s.apiMethods("POST")},
		// File requests (api_requests.go).
		{"GET /api/requests", groupKey, s.api(apiEndpoint{general: true, scope: "Working with file requests", run: s.apiListRequests})},
		{"POST /api/requests", groupKey, s.api(apiEndpoint{body: bodyJSON, general: true, scope: "Working with file requests", run: s.apiCreateRequest})},
		{"/api/requests", groupPublic, s.apiMethods("GET", "POST")},
		{"GET /api/requests/{id}", groupKey, s.api(apiEndpoint{general: true, scope: "Working with file requests", run: s.apiGetRequest})},
		{"DELETE /api/requests/{id}", groupKey, s.api(apiEndpoint{general: true, scope: "Working with file requests", run: s.apiDeleteRequest})},
		{"/api/requests/{id}", groupPublic, s.apiMethods("GET", "DELETE")},
		{"POST /api/requests/{id}/close", groupKey, s.api(apiEndpoint{body: bodyOptionalJSON, general: true, scope: "Working with file requests", run: s.apiCloseRequest})},
		{"/api/requests/{id}/close", groupPublic, s.apiMethods("POST")},
		// Statistics and A/B tests (api_stats.go).
		{"GET /api/stats", groupKey, s.api(apiEndpoint{general: true, scope: "Reading the account's statistics", run: s.apiAccountStats})},
		{"/api/stats", groupPublic, s.apiMethods("GET")},
		{"GET /api/files/{id}/stats", groupKey, s.api(apiEndpoint{run: s.apiFileStats})},
		{"/api/files/{id}/stats", groupPublic, s.apiMethods("GET")},
		{"GET /api/files/{id}/tests", groupKey, s.api(apiEndpoint{run: s.apiListTests})},
		{"POST /api/files/{id}/tests", groupKey, s.api(apiEndpoint{body: bodyJSON, run: s.apiStartTest})},
		{"/api/files/{id}/tests", groupPublic, s.apiMethods("GET", "POST")},
		{"GET /api/files/{id}/tests/{testId}", groupKey, s.api(apiEndpoint{run: s.apiGetTest})},
		{"/api/files/{id}/tests/{testId}", groupPublic, s.apiMethods("GET")},
		{"POST /api/files/{id}/tests/{testId}/end", groupKey, s.api(apiEndpoint{body: bodyOptionalJSON, run: s.apiEndTest})},
		{"/api/files/{id}/tests/{testId}/end", groupPublic, s.apiMethods("POST")},
		// Webhooks (api_webhooks.go).
		{"GET /api/webhooks", groupKey, s.api(apiEndpoint{general: true, scope: webhooksScope, run: s.apiListWebhooks})},
		{"POST /api/webhooks", groupKey, s.api(apiEndpoint{body: bodyJSON, general: true, scope: webhooksScope, run: s.apiCreateWebhook})},
		{"/api/webhooks", groupPublic, s.apiMethods("GET", "POST")},
		{"GET /api/webhooks/{id}", groupKey, s.api(apiEndpoint{general: true, scope: webhooksScope, run: s.apiGetWebhook})},
		{"PATCH /api/webhooks/{id}", groupKey, s.api(apiEndpoint{body: bodyJSON, mergePatch: true, general: true, scope: webhooksScope, run: s.apiPauseWebhook})},
		{"DELETE /api/webhooks/{id}", groupKey, s.api(apiEndpoint{general: true, scope: webhooksScope, run: s.apiDeleteWebhook})},
		{"/api/webhooks/{id}", groupPublic, s.apiMethods("GET", "PATCH", "DELETE")},
		{"GET /api/webhooks/{id}/deliveries", groupKey, s.api(apiEndpoint{general: true, scope: webhooksScope, run: s.apiListDeliveries})},
		{"/api/webhooks/{id}/deliveries", groupPublic, s.apiMethods("GET")},
		{"POST /api/webhooks/{id}/deliveries/{deliveryId}/retry", groupKey, s.api(apiEndpoint{body: bodyOptionalJSON, general: true, scope: webhooksScope, run: s.apiRetryDelivery})},
		{"/api/webhooks/{id}/deliveries/{deliveryId}/retry", groupPublic, s.apiMethods("POST")},
		{"POST /api/html/check", groupKey, s.api(apiEndpoint{body: bodyJSON, run: s.apiCheckHTML})},
		{"/api/html/check", groupPublic, s.apiMethods("POST")},
		// The API's description (api_openapi.go), for anyone.
		{"GET " + openAPIPath, groupPublic, http.HandlerFunc(s.apiOpenAPI)},
		{"/api/", groupPublic, http.HandlerFunc(s.apiNotFound)},
		// MCP (mcp.go): the same operations as tools, over streamable
		// HTTP, stateless. Every request, whatever its method, passes the
		// API's key, plan and rate limits first; the SDK answers the rest
		// (POST only).
		{mcpPath, groupKey, s.mcpHandler()},

		// Visitors (app_pages.go).
		{"GET /{$}", groupVisitor, g(visitor, s.appHome)},
		{"GET /setup", groupVisitor, g(setupScreen, s.setup)},
		{"POST /setup", groupVisitor, g(setupScreen, s.setup)},
		{"GET /signup", groupVisitor, g(visitor, s.signup)},
		{"POST /signup", groupVisitor, g(visitorForm, s.signup)},
		{"GET /login", groupVisitor, g(visitor, s.login)},
		{"POST /login", groupVisitor, g(visitorForm, s.login)},
		// Passwords on links (public_password.go): the password page's form,
		// with the anonymous CSRF token and the cross-origin protection
		// (not visitorForm, which lets a signed-in browser pass unchecked).
		{"POST /f/{slug}/unlock", groupVisitor, s.crossOrigin(http.HandlerFunc(s.unlockLink))},

		// Signed-in owners: the account, files, uploads, appearances, keys.
		{"POST /logout", groupSession, g(ownerForm, s.logout)},
		{"GET /account", groupSession, g(ownerPage, s.account)},
		{"POST /account/password", groupSession, g(ownerForm, s.changePassword)},
		{"GET /files", groupSession, g(ownerPage, s.files)},
		{"GET /files/{id}", groupSession, g(ownerPage, s.file)},
		{"POST /files/{id}/rename", groupSession, g(ownerForm, s.renameFile)},
		{"POST /files/{id}/link", groupSession, g(ownerForm, s.setLinkForm)},
		{"POST /files/{id}/delete", groupSession, g(ownerForm, s.deleteFile)},
		{"POST /files/upload", groupSession, g(ownerUpload, s.uploadForm)},
		// Collections (app_collections.go).
		{"POST /collections", groupSession, g(ownerForm, s.createCollection)},
		{"POST /files/{id}/collection/add", groupSession, g(ownerForm, s.addToCollection)},
		{"POST /files/{id}/collection/remove", groupSession, g(ownerForm, s.removeFromCollection)},
		{"GET /appearance", groupSession, g(ownerPage, s.appearance)},
		{"POST /appearance", groupPro, g(proForm, s.appearance)},
		{"GET /files/{id}/appearance", groupSession, g(ownerPage, s.appearance)},
		{"POST /files/{id}/appearance", groupPro, g(proForm, s.appearance)},
		{"GET /appearance/preview", groupPro, g(proHidden, s.appearancePreview)},
		{"GET /appearance/image/{kind}", groupSession, g(ownerHidden, s.appearanceImage)},
		{"GET /keys", groupSession, g(ownerPage, s.keys)},

		// Agency: custom pages and API keys (app_files.go, app_keys.go).
		{"POST /keys", groupAgency, g(agencyForm, s.createKey)},
		{"POST /keys/{id}/revoke", groupAgency, g(agencyForm, s.revokeKey)},
		{"POST /files/{id}/page", groupAgency, g(agencyForm.with(pageBody), s.savePage)},
		{"POST /files/{id}/publish", groupAgency, g(agencyForm, s.publishPage)},
		{"POST /files/{id}/unpublish", groupAgency, g(agencyForm, s.unpublishPage)},
		{"POST /files/{id}/revisions/{rev}/restore", groupAgency, g(agencyForm, s.restoreRevision)},
		{"POST /files/{id}/revisions/{rev}/refetch", groupAgency, g(agencyForm, s.refetchAssets)},
		{"POST /files/{id}/keys", groupAgency, g(agencyForm, s.createPageKey)},

		// Webhooks (app_webhooks.go): the list and each endpoint's delivery
		// log for any owner (Agency to add, pause, delete, send again).
		{"GET /webhooks", groupSession, g(ownerPage, s.webhooks)},
		{"GET /webhooks/{id}", groupSession, g(ownerPage, s.webhookLog)},
		{"POST /webhooks", groupAgency, g(agencyForm, s.createWebhook)},
		{"POST /webhooks/{id}/delete", groupAgency, g(agencyForm, s.deleteWebhook)},
		{"POST /webhooks/{id}/pause", groupAgency, g(agencyForm, s.pauseWebhook(true))},
		{"POST /webhooks/{id}/resume", groupAgency, g(agencyForm, s.pauseWebhook(false))},
		{"POST /webhooks/{id}/deliveries/{deliveryId}/retry", groupAgency, g(agencyForm, s.retryDelivery)},

		// Statistics (app_stats.go) for every plan: a file's and the
		// account's, as pages and CSV. A/B tests (app_pagetests.go): starting
		// one needs Agency, as publishing does; ending one (and promoting a
		// revision, which the service checks against the plan) any owner, so
		// that an account no longer on Agency can still stop its test.
		{"GET /stats", groupSession, g(ownerPage, s.accountStats)},
		{"GET /stats.csv", groupSession, g(ownerPage, s.accountStatsCSV)},
		{"GET /files/{id}/stats", groupSession, g(ownerPage, s.fileStats)},
		{"GET /files/{id}/stats.csv", groupSession, g(ownerPage, s.fileStatsCSV)},
		{"POST /files/{id}/tests", groupAgency, g(agencyForm, s.startTest)},
		{"POST /files/{id}/tests/{testId}/end", groupSession, g(ownerForm, s.endTest)},

		// Administrators (app_admin.go).
		{"GET /admin", groupAdmin, g(adminOnly, s.admin)},
		{"POST /admin/accounts/{id}/plan", groupAdmin, g(adminOnlyForm, s.adminSetPlan)},
		{"POST /admin/accounts/{id}/disable", groupAdmin, g(adminOnlyForm, s.adminDisable)},
		{"POST /admin/accounts/{id}/enable", groupAdmin, g(adminOnlyForm, s.adminEnable)},

		// Operations (ops.go): /healthz for anyone (load balancers);
		// /readyz and /metrics only with the operations token, else on
		// OpsHandler's listener.
		{"GET /healthz", groupOps, http.HandlerFunc(s.healthz)},
		{"GET /readyz", groupOps, s.opsOnly(http.HandlerFunc(s.readyz))},
		{"GET /metrics", groupOps, s.opsOnly(s.metricsHandler())},

		// Everything else: the public 404 (405 for a method other than
		// GET and HEAD).
		{"/", groupPublic, http.HandlerFunc(s.publicNotFound)},

		// File requests (public_request.go): the request's page for
		// anyone with the link; its password form and its plain upload
		// form (the visit's cookie and token, the cross-origin
		// protection).
		{"GET /r/{slug}", groupPublic, http.HandlerFunc(s.publicRequest)},
		{"POST /r/{slug}/unlock", groupVisitor, s.crossOrigin(http.HandlerFunc(s.unlockRequest))},
		{"POST /r/{slug}/upload", groupRequest, s.crossOrigin(http.HandlerFunc(s.requestUploadForm))},
		// The owner's requests (app_requests.go).
		{"GET /requests", groupSession, g(ownerPage, s.requests)},
		{"POST /requests", groupSession, g(ownerForm, s.createRequest)},
		{"GET /requests/{id}", groupSession, g(ownerPage, s.request)},
		{"POST /requests/{id}/close", groupSession, g(ownerForm, s.closeRequest)},
		{"POST /requests/{id}/delete", groupSession, g(ownerForm, s.deleteRequest)},
		{"POST /files/{id}/share", groupSession, g(ownerForm, s.shareFile)},
		{"GET /files/{id}/download", groupSession, g(ownerPage, s.ownerDownload)},
	}
	// Resumable uploads (app_upload_tus.go), when the server keeps
	// unfinished uploads.
	if t := s.tus; t != nil {
		rs = append(rs,
			route{"POST " + tusBasePath + "{$}", groupTus, s.tusRoute(t.h.PostFile)},
			route{"HEAD " + tusBasePath + "{id}", groupTus, withoutMetadata(s.tusRoute(s.tusSettle(t, t.h.HeadFile)))},
			route{"PATCH " + tusBasePath + "{id}", groupTus, s.tusRoute(s.tusSettle(t, t.h.PatchFile))},
			route{"DELETE " + tusBasePath + "{id}", groupTus, s.tusRoute(t.h.DelFile)},
			// A file request's uploads (public_request.go).
			route{"POST /r/{slug}" + requestTusPath + "{$}", groupRequest, s.requestTusRoute(t.h.PostFile)},
			route{"HEAD /r/{slug}" + requestTusPath + "{id}", groupRequest, s.requestTusRoute(s.tusSettle(t, t.h.HeadFile))},
			route{"PATCH /r/{slug}" + requestTusPath + "{id}", groupRequest, s.requestTusRoute(s.tusSettle(t, t.h.PatchFile))},
			route{"DELETE /r/{slug}" + requestTusPath + "{id}", groupRequest, s.requestTusRoute(t.h.DelFile)},
		)
	}
	return rs
}

// AppHandler returns the handler of the app origin: the API, the web
// application, the public download pages and the operational endpoints
// (appRoutes). It never serves custom-page bytes.
func (s *Server) AppHandler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range s.appRoutes() {
		mux.Handle(r.pattern, r.handler)
	}
	return s.observe("app", s.appHostOnly(s.refuseEncodedBodies(mux)))
}

// contentRoutes lists every route of the content origin, which serves the
// bytes of custom pages and of previewed media and PDFs, and nothing else
// (content_*.go). Every response it
// makes, errors included, carries the sandbox's headers (sandboxHeaders).
func (s *Server) contentRoutes() []route {
	return []route{
		{"GET /p/{slug}/{revision}", groupPublic, http.HandlerFunc(s.contentPage)},
		{"GET /a/{name}", groupPublic, http.HandlerFunc(s.contentAsset)},
		// Previews (content_preview.go): a video's, audio's or PDF's
		// bytes, the frame that draws a PDF's first page, and pdf.js.
		{"GET /v/{slug}/{file}", groupPublic, http.HandlerFunc(s.contentPreview)},
		{"GET /v/{slug}/{file}/pdf", groupPublic, http.HandlerFunc(s.contentPDF)},
		{"GET " + pdfjsPath + "{name}", groupPublic, http.HandlerFunc(s.contentPDFJS)},
		{"/", groupPublic, http.HandlerFunc(s.contentNotFound)},
	}
}

// ContentHandler returns the handler of the content origin (contentRoutes).
func (s *Server) ContentHandler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range s.contentRoutes() {
		mux.Handle(r.pattern, r.handler)
	}
	return s.observe("content", s.sandboxHeaders(mux))
}

// opsRoutes lists the routes of the operations listener (serve's
// --ops-addr), meant for a private network: /healthz, /readyz and
// /metrics, without a token, and nothing else.
func (s *Server) opsRoutes() []route {
	return []route{
		{"GET /healthz", groupOps, http.HandlerFunc(s.healthz)},
		{"GET /readyz", groupOps, http.HandlerFunc(s.readyz)},
		{"GET /metrics", groupOps, s.metricsHandler()},
		{"/", groupOps, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.textError(w, r, fileframe.Errorf(fileframe.ENOTFOUND, "Not found: this listener serves /healthz, /readyz and /metrics."))
		})},
	}
}

// OpsHandler returns the handler of the operations listener (opsRoutes).
func (s *Server) OpsHandler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range s.opsRoutes() {
		mux.Handle(r.pattern, r.handler)
	}
	return s.observe("ops", mux)
}

// HostHandler serves both origins on one listener, choosing by the Host
// header: requests for the content origin's host get ContentHandler, all
// others AppHandler. It is used when the content origin is a separate domain
// behind the same reverse proxy, instead of a second listener.
func (s *Server) HostHandler() http.Handler {
	app, content := s.AppHandler(), s.ContentHandler()
	scheme := s.cfg.ContentOrigin.Scheme
	contentHost := canonicalHost(scheme, s.cfg.ContentOrigin.Host)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sameHost(scheme, r.Host, contentHost) {
			content.ServeHTTP(w, r)
			return
		}
		app.ServeHTTP(w, r)
	})
}

package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// The owner's side of file requests (public_request.go is the senders'):
// the list with its form, one request with what it received, and the
// one-click Share of a received file.

// requestRow is one request as the owner's pages show it.
type requestRow struct {
	ID, Title, Message, URL, Page string
	State                         string
	Received, MaxFiles            int64
	ReceivedSize, MaxSize         string
	Expires, Created              string
	Password                      bool
}

func (s *Server) newRequestRow(req fileframe.Request) requestRow {
	row := requestRow{
		ID: string(req.ID), Title: req.Title, Message: req.Message, URL: s.publicURL(req.URL()),
		Page: "/requests/" + url.PathEscape(string(req.ID)), State: string(req.State(s.now())),
		Received: req.Received, MaxFiles: req.MaxFiles, ReceivedSize: humanSize(req.ReceivedBytes), MaxSize: humanSize(req.MaxBytes),
		Created: req.CreatedAt.UTC().Format("2 Jan 2006 15:04 UTC"), Password: req.PasswordHash != "",
	}
	if !req.ExpiresAt.IsZero() {
		row.Expires = req.ExpiresAt.UTC().Format("2 Jan 2006 15:04 UTC")
	}
	return row
}

// requestsPage is the data of app_requests.html.
type requestsPage struct {
	appPage
	Requests []requestRow
}

// requestPage is the data of app_request.html.
type requestDetail struct {
	appPage
	Request  requestRow
	Received []receivedRow
}

// receivedRow is one received file: who sent it, when, and its state.
type receivedRow struct {
	ID, Name, Size, Sender, Email, At, Download, Share, Link string
	Shared                                                   bool
}

// requests serves GET /requests: the account's requests and the form that
// makes one.
func (s *Server) requests(w http.ResponseWriter, r *http.Request, user *signedIn) {
	s.renderRequests(w, r, user, http.StatusOK, nil)
}

func (s *Server) renderRequests(w http.ResponseWriter, r *http.Request, user *signedIn, status int, form func(*requestsPage)) {
	list, err := s.svc.Requests(r.Context(), user.account)
	if err != nil {
		s.appError(w, r, user, err)
		return
	}
	p := requestsPage{appPage: s.newAppPage("Requests", user)}
	p.Styles = append(p.Styles, appAssetURL("app_files.css"))
	switch r.URL.Query().Get("done") {
	case "deleted":
		p.Notice = "The request was deleted. The files it received stay in your file list."
	}
	for _, req := range list {
		p.Requests = append(p.Requests, s.newRequestRow(req))
	}
	if form != nil {
		form(&p)
	}
	s.renderApp(w, r, status, "app_requests.html", p)
}

// parseRequestForm reads the request form's fields (and the API's, in
// the same words): max size like "100MB" or "2GiB", expiry like "7d".
func parseRequestForm(get func(string) string) (service.NewRequest, string, string) {
	nr := service.NewRequest{Title: get("title"), Message: get("message"), Password: get("password")}
	files := strings.TrimSpace(get("max_files"))
	if files == "" {
		files = "10"
	}
	n, err := strconv.ParseInt(files, 10, 64)
	if err != nil {
		return nr, "max_files", "Enter a number of files, like 10."
	}
	nr.MaxFiles = n
	size := strings.TrimSpace(get("max_size"))
	if size == "" {
		size = "1GiB"
	}
	b, err := humanize.ParseBytes(size)
	if err != nil || b > 1<<62 {
		return nr, "max_size", "Enter a size, like 500MB or 2GiB."
	}
	nr.MaxBytes = int64(b)
	if e := strings.TrimSpace(get("expires")); e != "" {
		d, err := service.ParseLifetime(e)
		if err != nil {
			return nr, "expires", "Enter how long the request stays open, like 7d or 36h."
		}
		nr.ExpiresIn = d
	}
	return nr, "", ""
}

// createRequest serves POST /requests.
func (s *Server) createRequest(w http.ResponseWriter, r *http.Request, user *signedIn) {
	nr, field, msg := parseRequestForm(r.PostFormValue)
	var req fileframe.Request
	var err error
	if msg == "" {
		req, err = s.svc.CreateRequest(r.Context(), user.account, nr)
		if fileframe.ErrorCode(err) == fileframe.CodeInvalidField {
			field, msg = "", fileframe.ErrorMessage(err)
		} else if err != nil {
			s.appError(w, r, user, err)
			return
		}
	}
	if msg != "" {
		s.renderRequests(w, r, user, http.StatusUnprocessableEntity, func(p *requestsPage) {
			for _, k := range []string{"title", "message", "max_files", "max_size", "expires"} {
				p.Form[k] = r.PostFormValue(k)
			}
			p.Errors[field] = msg
		})
		return
	}
	appRedirect(w, r, "/requests/"+url.PathEscape(string(req.ID))+"?done=created")
}

var requestGone = failure(fileframe.CodeRequestNotFound, "Request not found",
	"There is no such request in your account. It may have been deleted.")

// request serves GET /requests/{id}: who sent what and when.
func (s *Server) request(w http.ResponseWriter, r *http.Request, user *signedIn) {
	req, files, err := s.svc.OwnRequest(r.Context(), user.account, fileframe.RequestID(r.PathValue("id")))
	if s.failed(w, r, user, err, requestGone) {
		return
	}
	p := requestDetail{appPage: s.newAppPage(req.Title, user), Request: s.newRequestRow(req)}
	p.Styles = append(p.Styles, appAssetURL("app_files.css"))
	switch r.URL.Query().Get("done") {
	case "created":
		p.Notice = "The request is ready. Send its link to whoever should send you files."
	case "shared":
		p.Notice = "The file is shared: its link works now."
	case "closed":
		p.Notice = "The request is closed: it takes no more files."
	}
	for i := len(files) - 1; i >= 0; i-- { // newest first
		f := files[i]
		p.Received = append(p.Received, receivedRow{
			ID: string(f.File.ID), Name: f.File.Name, Size: humanSize(f.File.Size), Sender: f.SenderName, Email: f.SenderEmail,
			At:       f.CreatedAt.UTC().Format("2 Jan 2006 15:04 UTC"),
			Download: "/files/" + url.PathEscape(string(f.File.ID)) + "/download",
			Share:    "/files/" + url.PathEscape(string(f.File.ID)) + "/share",
			Link:     s.publicURL(f.File.URL()), Shared: f.File.Shared,
		})
	}
	s.renderApp(w, r, http.StatusOK, "app_request.html", p)
}

// closeRequest serves POST /requests/{id}/close.
func (s *Server) closeRequest(w http.ResponseWriter, r *http.Request, user *signedIn) {
	id := fileframe.RequestID(r.PathValue("id"))
	if err := s.svc.CloseRequest(r.Context(), user.account, id); !s.failed(w, r, user, err, requestGone) {
		appRedirect(w, r, "/requests/"+url.PathEscape(string(id))+"?done=closed")
	}
}

// deleteRequest serves POST /requests/{id}/delete; the received files stay.
func (s *Server) deleteRequest(w http.ResponseWriter, r *http.Request, user *signedIn) {
	if r.PostFormValue("confirm") != "yes" {
		s.appError(w, r, user, failure(fileframe.CodeInvalidField, "Not deleted",
			"Tick the box to confirm, then press Delete. The files the request received stay in your file list."))
		return
	}
	err := s.svc.DeleteRequest(r.Context(), user.account, fileframe.RequestID(r.PathValue("id")))
	if !s.failed(w, r, user, err, requestGone) {
		appRedirect(w, r, "/requests?done=deleted")
	}
}

// shareFile serves POST /files/{id}/share: a received file's link starts
// working. It goes back where the form said (its request's page), else
// to the file's page.
func (s *Server) shareFile(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, err := s.svc.ShareFile(r.Context(), user.account, fileframe.FileID(r.PathValue("id")))
	if s.failed(w, r, user, err, fileGone) {
		return
	}
	if back := r.PostFormValue("back"); strings.HasPrefix(back, "/requests/r_") && fileframe.RequestID(strings.TrimPrefix(back, "/requests/")).Valid() {
		appRedirect(w, r, back+"?done=shared")
		return
	}
	appRedirect(w, r, fileURL(f, ""))
}

// ownerDownload serves GET /files/{id}/download: the owner's own copy of
// a file, shared or not, always as an attachment with the download's
// headers (nosniff, the sandbox CSP): a received file is a stranger's
// bytes and never opens on the app origin. It is not counted.
func (s *Server) ownerDownload(w http.ResponseWriter, r *http.Request, user *signedIn) {
	f, ok := s.ownFile(w, r, user)
	if !ok {
		return
	}
	blob, err := s.blobs.Open(r.Context(), f.BlobKey)
	if err != nil {
		s.appError(w, r, user, fault(err))
		return
	}
	defer blob.Body.Close()
	h := w.Header()
	h.Set("Content-Type", downloadType(f.ContentType))
	s.setDownloadHeaders(h)
	h.Set("Content-Disposition", contentDisposition(f.Name))
	h["Cache-Control"] = privateNoStore
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute + time.Duration(float64(f.Size)/minDownloadRate*float64(time.Second))))
	serveContent(w, r, f.CreatedAt, blob.Body)
}

package web

import (
	"context"
	"net/http"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// File requests in the REST API (docs/api.md, "File requests"): the
// owner's side of public_request.go, for a general key of an Agency
// account. Each operation is its service use case, as the web app's.

// apiFileRequest is a file request as the API describes it.
type apiFileRequest struct {
	ID      fileframe.RequestID `json:"requestId"`
	Title   string              `json:"title"`
	Message string              `json:"message"`
	// State is open, closed or expired.
	State         string `json:"state"`
	MaxFiles      int64  `json:"maxFiles"`
	MaxBytes      int64  `json:"maxBytes"`
	Received      int64  `json:"received"`
	ReceivedBytes int64  `json:"receivedBytes"`
	Password      bool   `json:"password"`
	// Slug names the public page /r/<slug> (URL); PublicURL is it with
	// the base URL.
	Slug      string     `json:"slug"`
	URL       string     `json:"url"`
	PublicURL string     `json:"publicUrl"`
	ExpiresAt *time.Time `json:"expiresAt"`
	ClosedAt  *time.Time `json:"closedAt"`
	CreatedAt time.Time  `json:"createdAt"`
}

func (s *Server) apiRequestOf(r fileframe.Request) apiFileRequest {
	return apiFileRequest{
		ID: r.ID, Title: r.Title, Message: r.Message, State: string(r.State(s.now())),
		MaxFiles: r.MaxFiles, MaxBytes: r.MaxBytes, Received: r.Received, ReceivedBytes: r.ReceivedBytes,
		Password: r.PasswordHash != "", Slug: r.Slug, URL: r.URL(), PublicURL: s.publicURL(r.URL()),
		ExpiresAt: timeOrNil(r.ExpiresAt), ClosedAt: timeOrNil(r.ClosedAt), CreatedAt: r.CreatedAt.UTC(),
	}
}

// requestAnswer is one request, with what it received when asked for it.
type requestAnswer struct {
	OK bool `json:"ok"`
	apiFileRequest
	Files []receivedFile `json:"files,omitzero"`
}

// receivedFile is a file received through a request: the file (private
// until shared) and who sent it when.
type receivedFile struct {
	apiFile
	SenderName  string    `json:"senderName"`
	SenderEmail string    `json:"senderEmail"`
	ReceivedAt  time.Time `json:"receivedAt"`
}

// apiCreateRequest is POST /api/requests with {"title", "message",
// "maxFiles", "maxBytes", "expiresIn", "password"}.
func (s *Server) apiCreateRequest(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	o, err := parseJSONObject(c.body, false)
	if err != nil {
		return 0, nil, err
	}
	o.only("title", "message", "maxFiles", "maxBytes", "expiresIn", "password")
	nr := service.NewRequest{MaxFiles: int64(o.positive("maxFiles")), MaxBytes: int64(o.positive("maxBytes"))}
	nr.Title, _ = o.string("title")
	nr.Message, _ = o.string("message")
	nr.Password, _ = o.string("password")
	expires, _ := o.string("expiresIn")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	if nr.MaxFiles == 0 || nr.MaxBytes == 0 {
		return 0, nil, fileframe.Errorf(fileframe.CodeInvalidField, "maxFiles and maxBytes are required: how many files, and how many bytes in all, the request takes.")
	}
	if expires != "" {
		if nr.ExpiresIn, err = service.ParseLifetime(expires); err != nil {
			return 0, nil, fileframe.Errorf(fileframe.CodeInvalidField, "expiresIn must be a lifetime such as 7d, 36h or 90m.")
		}
	}
	req, err := s.svc.CreateRequest(r.Context(), c.caller.account, nr)
	if err != nil {
		return 0, nil, err
	}
	w.Header().Set("Location", "/api/requests/"+string(req.ID))
	return http.StatusCreated, requestAnswer{OK: true, apiFileRequest: s.apiRequestOf(req)}, nil
}

// requestList is the answer of GET /api/requests.
type requestList struct {
	OK       bool             `json:"ok"`
	Requests []apiFileRequest `json:"requests"`
}

// apiListRequests is GET /api/requests: every request, newest first.
func (s *Server) apiListRequests(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	list, err := s.svc.Requests(r.Context(), c.caller.account)
	if err != nil {
		return 0, nil, err
	}
	out := requestList{OK: true, Requests: []apiFileRequest{}}
	for _, req := range list {
		out.Requests = append(out.Requests, s.apiRequestOf(req))
	}
	return http.StatusOK, out, nil
}

// apiGetRequest is GET /api/requests/{id}: the request with the files it
// received, oldest first.
func (s *Server) apiGetRequest(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	out, err := s.requestOp(r.Context(), c.caller, fileframe.RequestID(r.PathValue("id")))
	return http.StatusOK, out, err
}

// requestOp describes one of the caller's requests with what it received.
func (s *Server) requestOp(ctx context.Context, c apiCaller, id fileframe.RequestID) (requestAnswer, error) {
	req, files, err := s.svc.OwnRequest(ctx, c.account, id)
	if err != nil {
		return requestAnswer{}, err
	}
	out := requestAnswer{OK: true, apiFileRequest: s.apiRequestOf(req), Files: []receivedFile{}}
	for _, f := range files {
		out.Files = append(out.Files, receivedFile{apiFile: s.apiFileOf(f.File, 0, 0),
			SenderName: f.SenderName, SenderEmail: f.SenderEmail, ReceivedAt: f.CreatedAt.UTC()})
	}
	return out, nil
}

// apiCloseRequest is POST /api/requests/{id}/close.
func (s *Server) apiCloseRequest(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	id := fileframe.RequestID(r.PathValue("id"))
	if err := s.svc.CloseRequest(r.Context(), c.caller.account, id); err != nil {
		return 0, nil, err
	}
	out, err := s.requestOp(r.Context(), c.caller, id)
	return http.StatusOK, out, err
}

// deletedRequest is the answer of DELETE /api/requests/{id}.
type deletedRequest struct {
	OK      bool                `json:"ok"`
	ID      fileframe.RequestID `json:"requestId"`
	Deleted bool                `json:"deleted"`
}

// apiDeleteRequest is DELETE /api/requests/{id}; the files stay.
func (s *Server) apiDeleteRequest(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	id := fileframe.RequestID(r.PathValue("id"))
	if err := s.svc.DeleteRequest(r.Context(), c.caller.account, id); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, deletedRequest{OK: true, ID: id, Deleted: true}, nil
}

// apiShareFile is POST /api/files/{id}/share: a received file's link
// starts working.
func (s *Server) apiShareFile(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	if f, err = s.svc.ShareFile(r.Context(), c.caller.account, f.ID); err != nil {
		return 0, nil, err
	}
	file, err := s.fileOp(r.Context(), c.caller, f)
	return http.StatusOK, fileAnswer{OK: true, apiFile: file}, err
}

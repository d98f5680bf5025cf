package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
)

// problemTypeBase prefixes a problem's code to make its "type" URI. The URI
// names the kind of problem and stays stable; docs/api.md lists every code.
const problemTypeBase = "https://fileframe.dev/problems/"

// internalDetail is the only detail a 500 ever carries.
const internalDetail = "The server failed to handle the request. Nothing about it was your fault; retry later, and if it keeps failing give the operator the requestId."

// problem is an RFC 9457 problem details object with Fileframe's extension
// members.
type problem struct {
	Type     string              `json:"type"`
	Title    string              `json:"title"`
	Status   int                 `json:"status"`
	Detail   string              `json:"detail"`
	OK       bool                `json:"ok"`
	Code     string              `json:"code"`
	Errors   []htmlcheck.Finding `json:"errors"`            // always an array
	Warnings []htmlcheck.Finding `json:"warnings,omitzero"` // with html_invalid only
	// Files are the files that an upload request stored before it failed.
	Files     []uploadedFile `json:"files,omitzero"`
	RequestID string         `json:"requestId"`
}

// findingsError is an API error that comes with validation findings: the
// html_invalid error (with the check's errors and warnings) and
// html_too_large (with an html.size finding).
type findingsError struct {
	err      *fileframe.Error
	errors   []htmlcheck.Finding
	warnings []htmlcheck.Finding
}

func (e *findingsError) Error() string { return e.err.Error() }
func (e *findingsError) Unwrap() error { return e.err }

// apiError writes err as a problem+json response. The status and title
// come from the code of the first *fileframe.Error in err's chain
// (errorKinds); any other error is a 500 whose body says nothing of the
// cause, which is logged instead.
func (s *Server) apiError(w http.ResponseWriter, r *http.Request, err error) {
	if s.clientGone(w, r, err) {
		return
	}
	body := problemOf(r.Context(), err)
	if body.Code == fileframe.EINTERNAL {
		s.logFor(r).Error("api: internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}

	h := w.Header()
	switch body.Code {
	case fileframe.CodeUnauthorized:
		h.Set("WWW-Authenticate", "Bearer")
	case fileframe.CodeMethodNotAllowed:
		if h.Get("Allow") == "" {
			h.Set("Allow", http.MethodPost)
		}
	case fileframe.CodeBusy, fileframe.CodeUnavailable:
		setBusyRetry(h)
	}
	s.noteOutage(r.Context(), r.URL.Path, body.Code, err)
	s.writeAPIJSON(w, "application/problem+json", body.Status, body)
}

// problemOf is the problem details object of err, for the REST API's
// answers (apiError) and MCP's error results (mcp.go): the status, title
// and code from err's code (errorKinds), its message, and its findings.
// A server fault (EINTERNAL) says nothing of its cause: the caller logs it.
func problemOf(ctx context.Context, err error) problem {
	code, k := kindOf(err)
	detail := fileframe.ErrorMessage(err)
	if code == fileframe.EINTERNAL {
		detail = internalDetail
	}
	body := problem{
		Type:      problemTypeBase + code,
		Title:     k.title,
		Status:    k.status,
		Detail:    detail,
		Code:      code,
		Errors:    []htmlcheck.Finding{},
		RequestID: requestID(ctx),
	}
	var stored *storedFilesError
	if errors.As(err, &stored) {
		body.Files = stored.files
	}
	var fe *findingsError
	if code != fileframe.EINTERNAL && errors.As(err, &fe) {
		body.Errors = nonNil(fe.errors)
		if fe.err.Code == fileframe.CodeHTMLInvalid {
			body.Warnings = nonNil(fe.warnings)
		}
	}
	return body
}

// writeAPIJSON writes v as the body of an API response. Every API response
// is private to its caller and never cached.
func (s *Server) writeAPIJSON(w http.ResponseWriter, contentType string, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Excerpts of HTML are easier to read, for agent and person alike, as
	// "<a download>" than as "\u003ca download\u003e"; the body is JSON, served
	// with nosniff, so no browser treats it as HTML.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only unencodable Go values get here, which the types above never are.
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-store")
	setDataHeaders(h)
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// nonNil returns fs, or an empty slice for nil, so that JSON gets [] rather
// than null.
func nonNil(fs []htmlcheck.Finding) []htmlcheck.Finding {
	if fs == nil {
		return []htmlcheck.Finding{}
	}
	return fs
}

// apiNotFound answers every /api/ path that is not an endpoint.
func (s *Server) apiNotFound(w http.ResponseWriter, r *http.Request) {
	s.apiError(w, r, fileframe.Errorf(fileframe.ENOTFOUND,
		"There is no API endpoint at this path. See /llms.txt for the API, or /api/openapi.json."))
}

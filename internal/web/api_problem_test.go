package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
	"github.com/fileframe/fileframe/internal/service"
)

// TestAPIProblemStatuses checks the one mapping from codes to statuses
// (STYLE.md: "one function maps codes to HTTP statuses") for every code of
// DESIGN.md's "Error body".
func TestAPIProblemStatuses(t *testing.T) {
	var logs bytes.Buffer
	s := &Server{log: slog.New(slog.NewJSONHandler(&logs, nil))}
	for _, tt := range []struct {
		err    error
		status int
		code   string
	}{
		{fileframe.Errorf(fileframe.CodeUnauthorized, "m"), 401, "unauthorized"},
		{fileframe.Errorf(fileframe.CodePlanRequired, "m"), 403, "plan_required"},
		{fileframe.Errorf(fileframe.CodeRateLimited, "m"), 429, "rate_limited"},
		{fileframe.Errorf(fileframe.CodeUnsupportedMediaType, "m"), 415, "unsupported_media_type"},
		{fileframe.Errorf(fileframe.CodeBodyTooLarge, "m"), 413, "body_too_large"},
		{fileframe.Errorf(fileframe.CodeInvalidJSON, "m"), 400, "invalid_json"},
		{fileframe.Errorf(fileframe.CodeInvalidField, "m"), 400, "invalid_field"},
		{fileframe.Errorf(fileframe.CodeFileIDRequired, "m"), 400, "file_id_required"},
		{fileframe.Errorf(fileframe.CodeFileIDNotAllowed, "m"), 400, "file_id_not_allowed"},
		{fileframe.Errorf(fileframe.CodeFileNotFound, "m"), 404, "file_not_found"},
		{fileframe.Errorf(fileframe.CodeHTMLRequired, "m"), 400, "html_required"},
		{fileframe.Errorf(fileframe.CodeHTMLTooLarge, "m"), 413, "html_too_large"},
		{fileframe.Errorf(fileframe.CodeHTMLInvalid, "m"), 422, "html_invalid"},
		{fileframe.Errorf(fileframe.CodeMethodNotAllowed, "m"), 405, "method_not_allowed"},
		{fileframe.Errorf(fileframe.ENOTFOUND, "m"), 404, "not_found"},
		{fileframe.Errorf(fileframe.EINTERNAL, "m"), 500, "internal"},
		// A wrapped *Error keeps its code.
		{fmt.Errorf("context: %w", fileframe.Errorf(fileframe.CodeFileNotFound, "m")), 404, "file_not_found"},
		// Store codes the API never answers with are internal.
		{fileframe.Errorf(fileframe.ECONFLICT, "secret conflict"), 500, "internal"},
		{fileframe.Errorf(fileframe.EINVALID, "secret invalid"), 500, "internal"},
		{errors.New("disk full at /var/lib/secret"), 500, "internal"},
	} {
		t.Run(fmt.Sprint(tt.err), func(t *testing.T) {
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodPost, customHTMLPath, nil)
			r = r.WithContext(withRequestID(r.Context(), "req-1"))
			s.apiError(w, r, tt.err)
			if w.Code != tt.status {
				t.Errorf("status: got %d, want %d", w.Code, tt.status)
			}
			var p problem
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if p.Code != tt.code || p.Status != tt.status || p.Type != problemTypeBase+tt.code || p.RequestID != "req-1" || p.OK {
				t.Errorf("body: got %+v", p)
			}
			if tt.status == 500 {
				if p.Detail != internalDetail || strings.Contains(w.Body.String(), "secret") {
					t.Errorf("500 body leaks its cause: %s", w.Body)
				}
				if !strings.Contains(logs.String(), "req-1") {
					t.Errorf("500 cause not logged with its request ID: %s", logs.String())
				}
			}
		})
	}
}

// TestAPIProblemFindings checks the findings members: errors is always an
// array, warnings comes with html_invalid only.
func TestAPIProblemFindings(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	f := htmlcheck.Finding{Rule: "inline.script", Message: "m", Line: 3, Column: 5, Excerpt: `<script src="x">`, Hint: "h"}
	invalid := fileframe.Errorf(fileframe.CodeHTMLInvalid, "m")
	tooLarge := fileframe.Errorf(fileframe.CodeHTMLTooLarge, "m")
	for _, tt := range []struct {
		name         string
		err          error
		errors       int
		warningsJSON string // "" when the member must be absent
	}{
		{"plain error", fileframe.Errorf(fileframe.CodeFileIDRequired, "m"), 0, ""},
		{"html_invalid without warnings", pageRejection(&service.PageRejected{Err: invalid, Result: htmlcheck.Result{Errors: []htmlcheck.Finding{f}}}), 1, "[]"},
		{"html_invalid with warnings", pageRejection(&service.PageRejected{Err: invalid, Result: htmlcheck.Result{Errors: []htmlcheck.Finding{f, f}, Warnings: []htmlcheck.Finding{f}}}), 2, "[{"},
		{"html_too_large", pageRejection(&service.PageRejected{Err: tooLarge, Result: htmlcheck.Result{Errors: []htmlcheck.Finding{f}}}), 1, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			s.apiError(w, httptest.NewRequest(http.MethodPost, customHTMLPath, nil), tt.err)
			var body map[string]json.RawMessage
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			var errs []map[string]any
			if err := json.Unmarshal(body["errors"], &errs); err != nil || errs == nil || len(errs) != tt.errors {
				t.Errorf("errors: got %s, want an array of %d", body["errors"], tt.errors)
			}
			warnings, has := body["warnings"]
			switch {
			case tt.warningsJSON == "" && has:
				t.Errorf("warnings present: %s", warnings)
			case tt.warningsJSON != "" && !strings.HasPrefix(string(warnings), tt.warningsJSON):
				t.Errorf("warnings: got %s, want %s…", warnings, tt.warningsJSON)
			}
			// Excerpts stay readable: no \u003c escapes.
			if tt.errors > 0 && !strings.Contains(w.Body.String(), `"excerpt":"<script src=\"x\">"`) {
				t.Errorf("excerpt not written as is: %s", w.Body)
			}
		})
	}
}

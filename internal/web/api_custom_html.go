package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
	"github.com/fileframe/fileframe/internal/service"
	"github.com/go-json-experiment/json/jsontext"
)

// customHTMLPath is the seed's endpoint, which stores a custom page.
const customHTMLPath = "/api/campaign/custom-html"

// maxCustomHTMLBody caps the request body. It is well above the 1 MiB limit
// on the html field because JSON escaping inflates HTML (every quote and
// newline takes two bytes, a "<" written as \u003c six).
const maxCustomHTMLBody = 8 << 20

// customHTMLResponse is the body of a 200 answer. The first four fields are
// the spec's; the others are additions (DESIGN.md, "Response").
type customHTMLResponse struct {
	OK         bool                `json:"ok"`
	Slug       string              `json:"slug"`
	URL        string              `json:"url"`
	Published  bool                `json:"published"`
	Revision   int                 `json:"revision"`
	PublicURL  string              `json:"publicUrl"`
	PreviewURL string              `json:"previewUrl,omitempty"`
	Warnings   []htmlcheck.Finding `json:"warnings"`
}

// apiCustomHTML is POST /api/campaign/custom-html: it stores the HTML as
// the next revision of a file's custom page, published or as a draft.
func (s *Server) apiCustomHTML() http.Handler {
	return s.api(apiEndpoint{body: bodyJSON, run: s.customHTML})
}

// customHTML runs the checks of DESIGN.md's "Order of checks" that follow
// the pipeline's (api), the first failure winning, and then stores the
// page. Headers that belong to a failure (Retry-After) are set on w here.
func (s *Server) customHTML(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	key := c.caller.key
	// 400 invalid_json, invalid_field
	req, err := parseCustomHTMLRequest(c.body)
	if err != nil {
		return 0, nil, err
	}

	// 400 file_id_required, file_id_not_allowed
	fileID, err := targetFile(key, req.FileID)
	if err != nil {
		return 0, nil, err
	}

	// 404: another account's file is "not found" too, so that a key
	// cannot tell which file IDs exist.
	file, err := s.reachFile(r.Context(), c.caller, fileID)
	if err != nil {
		return 0, nil, err
	}

	// 400 html_required
	if req.HTML == "" {
		return 0, nil, fileframe.Errorf(fileframe.CodeHTMLRequired,
			"The body has no html, or html is empty. Put the whole page, one complete HTML document as a JSON string, in the html field.")
	}

	// 413 html_too_large, then 422, then stored: the same use case as
	// the app's page form.
	resp, err := s.savePageOp(r.Context(), c.caller, file, []byte(req.HTML), req.Publish, false)
	if err != nil {
		if fileframe.ErrorCode(err) == fileframe.CodeBusy {
			w.Header().Set("Retry-After", "5")
		}
		return 0, nil, err
	}
	return http.StatusOK, resp.customHTMLResponse, nil
}

// savedPage is the answer of an API call that stores a page revision: the
// seed endpoint's answer, and for the REST API whether a revision was
// added.
type savedPage struct {
	customHTMLResponse
	// Created is false when the HTML was the same as the latest
	// revision's, which then is Revision.
	Created bool `json:"created"`
}

// savePageOp stores doc as a revision of f's page (service.SavePage):
// published, a draft that takes the page offline (the seed endpoint), or
// with keepLive a draft that leaves the live revision alone.
func (s *Server) savePageOp(ctx context.Context, c apiCaller, f fileframe.File, doc []byte, publish, keepLive bool) (savedPage, error) {
	page, check, err := s.svc.SavePage(ctx, c.account, f, doc, service.PageMode{Publish: publish, KeepLive: keepLive})
	if rej, ok := service.IsPageRejected(err); ok {
		return savedPage{}, pageRejection(rej)
	} else if fileframe.IsNotFound(err) {
		return savedPage{}, fileNotFound(f.ID) // deleted meanwhile
	} else if fileframe.ErrorCode(err) == fileframe.CodeBusy {
		return savedPage{}, err
	} else if err != nil {
		return savedPage{}, fmt.Errorf("saving the page of file %s: %w", f.ID, err)
	}
	s.logCtx(ctx).Info("api: custom page stored", "key_id", c.key.ID, "file_id", f.ID,
		"revision", page.LatestRevision, "published", page.Published(), "new_revision", !page.SameAsLatest, "bytes", len(doc))
	resp := customHTMLResponse{
		OK:        true,
		Slug:      f.Slug,
		URL:       f.URL(),
		Published: page.LiveRevision == page.LatestRevision,
		Revision:  page.LatestRevision,
		PublicURL: s.publicURL(f.URL()),
		Warnings:  nonNil(check.Warnings),
	}
	if !resp.Published {
		resp.PreviewURL = s.publicPreviewURL(f, page.LatestRevision)
	}
	return savedPage{customHTMLResponse: resp, Created: !page.SameAsLatest}, nil
}

// targetFile applies the fileId rules: a page-bound key acts on its own file
// (a fileId, if given, must be that file); a general key needs a fileId.
func targetFile(key fileframe.Key, fileID fileframe.FileID) (fileframe.FileID, error) {
	if key.Kind == fileframe.KeyPage {
		if fileID != "" && fileID != key.FileID {
			return "", fileframe.Errorf(fileframe.CodeFileIDNotAllowed,
				"This API key is bound to the page of one file, and fileId %q is a different file. Leave fileId out: the key already says which page to update.",
				truncate(string(fileID), 100))
		}
		return key.FileID, nil
	}
	if fileID == "" {
		return "", fileframe.Errorf(fileframe.CodeFileIDRequired,
			"This is a general API key, so the body must say which file the page belongs to: add \"fileId\": \"<file ID>\". The file ID is the last part of the file's address in the app (.../files/<file ID>).")
	}
	return fileID, nil
}

func fileNotFound(id fileframe.FileID) error {
	return fileframe.Errorf(fileframe.CodeFileNotFound,
		"No file with ID %q belongs to the account of this API key. Check the fileId: it is the last part of the file's address in the app (.../files/<file ID>).",
		truncate(string(id), 100))
}

// pageRejection is the API's error for HTML the rules refuse: the
// rejection's code and message, with its findings.
func pageRejection(rej *service.PageRejected) error {
	return &findingsError{err: rej.Err, errors: rej.Result.Errors, warnings: rej.Result.Warnings}
}

// customHTMLRequest is the body of POST /api/campaign/custom-html, parsed.
type customHTMLRequest struct {
	// HTML is the page; "" when html is absent, null or "".
	HTML string
	// Publish is true only for "publish": true; absent, null and false are
	// all false (a draft).
	Publish bool
	// FileID is the target file; "" when fileId is absent, null or "".
	FileID fileframe.FileID
}

// parseCustomHTMLRequest turns a request body into a customHTMLRequest. Its
// errors are invalid_json (not UTF-8, not JSON, or not one JSON object) and
// invalid_field (html or fileId that is not a string, publish that is not a
// boolean; null counts as absent for all three). Field names match exactly,
// unknown fields are ignored, and when a name appears twice the last value
// counts (as everywhere in encoding/json).
//
// It reads the body as tokens with jsontext (the token layer of what is to
// be encoding/json/v2), which scans and unquotes the page, most of the body,
// once: encoding/json, unmarshalling into a map of raw values and then the
// html value, scanned it five times and took a quarter of a page POST's CPU
// (docs/performance.md, "Page POSTs: where the time goes").
func parseCustomHTMLRequest(body []byte) (customHTMLRequest, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return customHTMLRequest{}, invalidJSON("The request body is empty. Send a JSON object such as {\"html\": \"<!doctype html>...\", \"publish\": true}.")
	}
	if !utf8.Valid(body) {
		return customHTMLRequest{}, invalidJSON("The request body is not valid UTF-8. Encode the JSON, and the HTML in it, as UTF-8.")
	}
	// As encoding/json: a name given twice is allowed (the last counts), and
	// an escaped lone surrogate (\ud800) becomes U+FFFD. The raw bytes are
	// valid UTF-8, checked above.
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	tok, err := dec.ReadToken()
	if err != nil {
		return customHTMLRequest{}, jsonSyntax(body, err)
	}
	switch k := tok.Kind(); k {
	case '{':
	case 'n':
		return customHTMLRequest{}, invalidJSON("The request body is JSON null; it must be a JSON object such as {\"html\": \"...\"}.")
	default:
		return customHTMLRequest{}, invalidJSON("The request body is a JSON %s; it must be a JSON object such as {\"html\": \"...\"}.", jsonKindName(k))
	}
	// field is the last value of a field: its kind (0 when absent) and,
	// for a string or a boolean, its value.
	type field struct {
		kind jsontext.Kind
		str  string
		b    bool
	}
	var html, publish, fileID field
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return customHTMLRequest{}, jsonSyntax(body, err)
		}
		var f *field
		switch tok.String() {
		case "html":
			f = &html
		case "publish":
			f = &publish
		case "fileId":
			f = &fileID
		}
		if kind := dec.PeekKind(); f == nil || kind == '{' || kind == '[' {
			// An unknown field, or one that holds an object or an array
			// only in an error, which names its kind: skipped (and checked).
			if err := dec.SkipValue(); err != nil {
				return customHTMLRequest{}, jsonSyntax(body, err)
			}
			if f != nil {
				*f = field{kind: kind}
			}
			continue
		}
		v, err := dec.ReadToken()
		if err != nil {
			return customHTMLRequest{}, jsonSyntax(body, err)
		}
		*f = field{kind: v.Kind()}
		switch f.kind {
		case '"':
			f.str = v.String()
		case 't', 'f':
			f.b = v.Bool()
		}
	}
	if _, err := dec.ReadToken(); err != nil { // the object's closing brace
		return customHTMLRequest{}, jsonSyntax(body, err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		if err != nil {
			return customHTMLRequest{}, jsonSyntax(body, err)
		}
		return customHTMLRequest{}, invalidJSON("The request body holds more than one JSON value. Send exactly one JSON object, such as {\"html\": \"...\"}.")
	}

	var req customHTMLRequest
	var problems []string
	switch html.kind {
	case 0, 'n':
	case '"':
		req.HTML = html.str
	default:
		problems = append(problems, "html must be a string (the whole HTML document), got "+jsonKindName(html.kind))
	}
	switch publish.kind {
	case 0, 'n':
	case 't', 'f':
		req.Publish = publish.b
	default:
		problems = append(problems, "publish must be true or false (a JSON boolean, not a string), got "+jsonKindName(publish.kind))
	}
	switch fileID.kind {
	case 0, 'n':
	case '"':
		req.FileID = fileframe.FileID(fileID.str)
	default:
		problems = append(problems, "fileId must be a string, got "+jsonKindName(fileID.kind))
	}
	if len(problems) > 0 {
		return customHTMLRequest{}, fileframe.Errorf(fileframe.CodeInvalidField,
			"%s. Fix the field type and send the request again.", strings.Join(problems, "; "))
	}
	return req, nil
}

// jsonSyntax is the invalid_json error for err, a jsontext decoder's error
// on body, with the line and column where it stopped. Its wording and
// position are encoding/json's, as the API has always given them: the body
// is checked again by json.Unmarshal, on this path only.
func jsonSyntax(body []byte, err error) error {
	var raw json.RawMessage
	if uerr := json.Unmarshal(body, &raw); uerr != nil {
		var syntax *json.SyntaxError
		if errors.As(uerr, &syntax) {
			line, col := position(body, syntax.Offset)
			return invalidJSON(
				"The request body is not valid JSON: %s, at line %d, column %d (byte %d). Send exactly one JSON object, with the HTML as a JSON string (quotes, backslashes and control characters escaped).",
				syntax.Error(), line, col, syntax.Offset)
		}
	}
	return invalidJSON("The request body is not valid JSON: %s. Send exactly one JSON object, with the HTML as a JSON string (quotes, backslashes and control characters escaped).", err)
}

// jsonKindName names a JSON kind as the API's errors do.
func jsonKindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func invalidJSON(format string, args ...any) error {
	return fileframe.Errorf(fileframe.CodeInvalidJSON, format, args...)
}

// isNull reports whether a raw JSON value is null.
func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// jsonKind names the type of a raw, valid JSON value.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	// A value's first byte is its kind, as jsontext numbers kinds; a
	// number's ('-' or a digit) is none of the others.
	return jsonKindName(jsontext.Kind(raw[0]))
}

// position returns the 1-based line and column (counted in bytes) of the
// byte at which a json.SyntaxError stopped: its Offset counts the bytes read,
// the offending one included.
func position(b []byte, offset int64) (line, col int) {
	i := int(min(max(offset-1, 0), int64(len(b))))
	before := b[:i]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = i - bytes.LastIndexByte(before, '\n')
	return line, col
}

// truncate shortens s to at most n bytes, on a rune boundary, for echoing
// client input in a detail.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// publicPreviewURL is the full address of the signed link that shows
// revision rev of f's page as visitors would see it, for the preview
// lifetime.
func (s *Server) publicPreviewURL(f fileframe.File, rev int) string {
	token := s.previewToken(f.Slug, rev, s.now().Add(s.cfg.PreviewTTL))
	return s.publicURL(f.URL()) + "?preview=" + url.QueryEscape(token)
}

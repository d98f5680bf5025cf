package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
	"github.com/fileframe/fileframe/internal/service"
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

// apiCustomHTML handles POST /api/campaign/custom-html: it stores the HTML
// as the next revision of a file's custom page, published or as a draft.
func (s *Server) apiCustomHTML(w http.ResponseWriter, r *http.Request) {
	resp, err := s.customHTML(w, r)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	s.writeAPIJSON(w, "application/json", http.StatusOK, resp)
}

// customHTML runs the checks of DESIGN.md's "Order of checks" one after the
// other, the first failure winning, and then stores the page. Headers that
// belong to a failure (Retry-After, Connection: close) are set on w here;
// the caller writes the response.
func (s *Server) customHTML(w http.ResponseWriter, r *http.Request) (customHTMLResponse, error) {
	// 401
	caller, err := s.authenticate(r)
	if err != nil {
		return customHTMLResponse{}, err
	}
	key := caller.key
	s.touchKey(r, key)

	// 403
	if !caller.account.Plan.CustomPages() {
		return customHTMLResponse{}, fileframe.Errorf(fileframe.CodePlanRequired,
			"The account that owns this API key is on the %s plan; the API needs the Agency plan. Ask the account owner to upgrade: the same key works again as soon as the account is on Agency.",
			caller.account.Plan)
	}

	// 429
	if err := s.rateLimit(w, r, key); err != nil {
		return customHTMLResponse{}, err
	}

	// 415
	if err := checkJSONContentType(r.Header.Get("Content-Type")); err != nil {
		return customHTMLResponse{}, err
	}

	// 413 body_too_large
	body, err := s.readCustomHTMLBody(w, r)
	if err != nil {
		return customHTMLResponse{}, err
	}

	// 400 invalid_json, invalid_field
	req, err := parseCustomHTMLRequest(body)
	if err != nil {
		return customHTMLResponse{}, err
	}

	// 400 file_id_required, file_id_not_allowed
	fileID, err := targetFile(key, req.FileID)
	if err != nil {
		return customHTMLResponse{}, err
	}

	// 404: another account's file is "not found" too, so that a key
	// cannot tell which file IDs exist.
	file, err := s.svc.OwnFile(r.Context(), caller.account, fileID)
	if fileframe.IsNotFound(err) {
		return customHTMLResponse{}, fileNotFound(fileID)
	} else if err != nil {
		return customHTMLResponse{}, fmt.Errorf("looking up file %s: %w", fileID, err)
	}

	// 400 html_required
	if req.HTML == "" {
		return customHTMLResponse{}, fileframe.Errorf(fileframe.CodeHTMLRequired,
			"The body has no html, or html is empty. Put the whole page, one complete HTML document as a JSON string, in the html field.")
	}

	// 413 html_too_large, then 422, then stored: the same use case as
	// the app's page form.
	doc := []byte(req.HTML)
	page, check, err := s.svc.SavePage(r.Context(), caller.account, file, doc, req.Publish)
	if rej, ok := service.IsPageRejected(err); ok {
		return customHTMLResponse{}, pageRejection(rej)
	} else if fileframe.IsNotFound(err) {
		return customHTMLResponse{}, fileNotFound(fileID) // deleted meanwhile
	} else if fileframe.ErrorCode(err) == fileframe.CodeBusy {
		w.Header().Set("Retry-After", "5")
		return customHTMLResponse{}, err
	} else if err != nil {
		return customHTMLResponse{}, fmt.Errorf("saving the page of file %s: %w", file.ID, err)
	}
	s.logFor(r).Info("api: custom page stored", "key_id", key.ID, "file_id", file.ID,
		"revision", page.LatestRevision, "published", page.Published(), "bytes", len(doc))

	resp := customHTMLResponse{
		OK:        true,
		Slug:      file.Slug,
		URL:       file.URL(),
		Published: page.Published(),
		Revision:  page.LatestRevision,
		PublicURL: s.publicURL(file.URL()),
		Warnings:  nonNil(check.Warnings),
	}
	if !resp.Published {
		token := s.previewToken(file.Slug, page.LatestRevision, s.now().Add(s.cfg.PreviewTTL))
		resp.PreviewURL = s.publicURL(file.URL()) + "?preview=" + url.QueryEscape(token)
	}
	return resp, nil
}

// rateLimit takes a token from the key's bucket and from the client
// address's bucket. When either is empty it sets Retry-After and returns a
// rate_limited error.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, key fileframe.Key) error {
	ok, wait := s.allow(r, "key:"+string(key.ID), s.cfg.KeyRate, s.cfg.KeyBurst)
	what := fmt.Sprintf("this API key (%g requests a second on average, bursts of %d)", s.cfg.KeyRate, max(s.cfg.KeyBurst, 1))
	if ok {
		ok, wait = s.allow(r, clientBucket(r.RemoteAddr), s.cfg.IPRate, s.cfg.IPBurst)
		what = fmt.Sprintf("your network address (%g requests a second on average, bursts of %d)", s.cfg.IPRate, max(s.cfg.IPBurst, 1))
	}
	if ok {
		return nil
	}
	secs := retryAfterSeconds(wait)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	return fileframe.Errorf(fileframe.CodeRateLimited,
		"Too many requests for %s. Wait %d seconds (the Retry-After header) and send the same request again.", what, secs)
}

// allow takes a token from a bucket of the rate limiter. A limiter that
// fails (a shared one whose database is unreachable) lets the request pass:
// the error is logged, and the API stays up without limits rather than
// going down with the limiter.
func (s *Server) allow(r *http.Request, bucket string, perSecond float64, burst int) (bool, time.Duration) {
	ok, wait, err := s.limits.Allow(r.Context(), bucket, perSecond, burst, s.now())
	if err != nil {
		s.logFor(r).Error("api: rate limiter failed; letting the request pass", "bucket", bucket, "err", err)
		return true, 0
	}
	return ok, wait
}

// checkJSONContentType accepts application/json with any parameters (such
// as charset=utf-8) and refuses anything else.
func checkJSONContentType(header string) error {
	mediaType, _, err := mime.ParseMediaType(header)
	if header == "" || err != nil || mediaType != "application/json" {
		got := "no Content-Type header"
		if header != "" {
			got = fmt.Sprintf("Content-Type %q", truncate(header, 100))
		}
		return fileframe.Errorf(fileframe.CodeUnsupportedMediaType,
			"The request has %s. Send the body as a JSON object with `Content-Type: application/json`.", got)
	}
	return nil
}

// readCustomHTMLBody reads the request body, refusing one larger than
// maxCustomHTMLBody without reading past the cap: a declared Content-Length
// over it is refused before reading anything, and a body of unknown length
// is cut off by http.MaxBytesReader. After a refusal the connection is
// closed, so the rest of the body is never read.
func (s *Server) readCustomHTMLBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	tooLarge := func() error {
		w.Header().Set("Connection", "close")
		return fileframe.Errorf(fileframe.CodeBodyTooLarge,
			"The request body is larger than %d bytes (8 MiB), so it was not read. The html field may hold at most %d bytes (1 MiB); shrink the page (inline smaller images, drop unused CSS) and send it again.",
			maxCustomHTMLBody, htmlcheck.MaxSize)
	}
	if r.ContentLength > maxCustomHTMLBody {
		return nil, tooLarge()
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(min(r.ContentLength, 2<<20)))
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, s.idleBody(w, r.Body), maxCustomHTMLBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, tooLarge()
	} else if stalled(err) {
		return nil, fileframe.Errorf(fileframe.CodeRequestTimeout,
			"No byte of the request body arrived for too long, so the server stopped waiting. Nothing was stored; send the request again.")
	} else if err != nil {
		return nil, fileframe.Errorf(fileframe.CodeInvalidJSON,
			"The request body could not be read to its end: the connection broke, or the body was shorter than its Content-Length. Send the request again.")
	}
	return buf.Bytes(), nil
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
func parseCustomHTMLRequest(body []byte) (customHTMLRequest, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return customHTMLRequest{}, invalidJSON("The request body is empty. Send a JSON object such as {\"html\": \"<!doctype html>...\", \"publish\": true}.")
	}
	if !utf8.Valid(body) {
		return customHTMLRequest{}, invalidJSON("The request body is not valid UTF-8. Encode the JSON, and the HTML in it, as UTF-8.")
	}
	// A map rather than a struct, so that names match exactly: encoding/json
	// matches struct fields case-insensitively, which would take "FILEID" for
	// fileId.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			line, col := position(body, syntax.Offset)
			return customHTMLRequest{}, invalidJSON(
				"The request body is not valid JSON: %s, at line %d, column %d (byte %d). Send exactly one JSON object, with the HTML as a JSON string (quotes, backslashes and control characters escaped).",
				syntax.Error(), line, col, syntax.Offset)
		case errors.As(err, &typ):
			return customHTMLRequest{}, invalidJSON("The request body is a JSON %s; it must be a JSON object such as {\"html\": \"...\"}.", typ.Value)
		default:
			return customHTMLRequest{}, invalidJSON("The request body is not a JSON object. Send a JSON object such as {\"html\": \"...\"}.")
		}
	}
	if fields == nil {
		return customHTMLRequest{}, invalidJSON("The request body is JSON null; it must be a JSON object such as {\"html\": \"...\"}.")
	}

	var req customHTMLRequest
	var problems []string
	if raw, ok := fields["html"]; ok && !isNull(raw) {
		if kind := jsonKind(raw); kind != "string" {
			problems = append(problems, "html must be a string (the whole HTML document), got "+kind)
		} else if err := json.Unmarshal(raw, &req.HTML); err != nil {
			return customHTMLRequest{}, invalidJSON("The html string could not be decoded: %s.", err)
		}
	}
	if raw, ok := fields["publish"]; ok && !isNull(raw) {
		switch string(bytes.TrimSpace(raw)) {
		case "true":
			req.Publish = true
		case "false":
		default:
			problems = append(problems, "publish must be true or false (a JSON boolean, not a string), got "+jsonKind(raw))
		}
	}
	if raw, ok := fields["fileId"]; ok && !isNull(raw) {
		var id string
		if kind := jsonKind(raw); kind != "string" {
			problems = append(problems, "fileId must be a string, got "+kind)
		} else if err := json.Unmarshal(raw, &id); err != nil {
			return customHTMLRequest{}, invalidJSON("The fileId string could not be decoded: %s.", err)
		}
		req.FileID = fileframe.FileID(id)
	}
	if len(problems) > 0 {
		return customHTMLRequest{}, fileframe.Errorf(fileframe.CodeInvalidField,
			"%s. Fix the field type and send the request again.", strings.Join(problems, "; "))
	}
	return req, nil
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
	switch raw[0] {
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

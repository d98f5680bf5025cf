package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
)

// apiBody says what the body of an API endpoint's request is; the zero
// value is none read (GET, DELETE).
type apiBody int

const (
	// bodyJSON: a JSON object, Content-Type application/json, at most
	// maxCustomHTMLBody bytes.
	bodyJSON apiBody = iota + 1
	// bodyOptionalJSON: as bodyJSON, or no body at all (publish,
	// unpublish), which counts as {}.
	bodyOptionalJSON
	// bodyStream: the endpoint streams the body itself (uploads); it sets
	// apiCall.fingerprint once it has read the whole body.
	bodyStream
)

// apiEndpoint is one operation of the API: what its request carries, what
// key it needs, and the function that does it.
type apiEndpoint struct {
	body apiBody
	// general: the operation needs a general key; a page-bound key gets
	// key_scope, with scope naming what it tried ("Uploading files").
	general bool
	scope   string
	// mergePatch: the body may also be application/merge-patch+json
	// (PATCH).
	mergePatch bool
	// run does the operation and returns the status and the JSON body of
	// its answer, or an error that apiError answers. It may set headers
	// on w (Location, Retry-After).
	run func(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error)
	// fingerprint reads a bodyStream request's body to its end and
	// returns the fingerprint that run would have set (a retry of a
	// request whose answer is kept is compared without running it).
	fingerprint func(w http.ResponseWriter, r *http.Request, c *apiCall) (string, error)
}

// apiCall is an API request that passed authentication, the plan, the
// key's scope and the rate limits, with its body when the endpoint reads
// one.
type apiCall struct {
	caller apiCaller
	body   []byte
	// fingerprint identifies the request for Idempotency-Key: set by the
	// pipeline from the body for JSON endpoints, by run for bodyStream
	// ones (only when the whole body was read and the request succeeded).
	fingerprint string
}

// api returns the handler of an API endpoint: every endpoint answers in
// DESIGN.md's order of checks, which this pipeline runs the first part of
// (401 key, 403 plan and key scope, 429 rate limits, 415 Content-Type,
// 413/408 body), then the Idempotency-Key (400, 409, 422) for a POST that
// has one, then the endpoint's own checks and work.
func (s *Server) api(e apiEndpoint) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, resp, err := s.runAPI(w, r, e)
		switch {
		case err != nil:
			s.apiError(w, r, err)
		case status != 0: // 0: answered already (a replay, an idempotent run)
			s.writeAPIJSON(w, "application/json", status, resp)
		}
	})
}

func (s *Server) runAPI(w http.ResponseWriter, r *http.Request, e apiEndpoint) (int, any, error) {
	caller, err := s.admit(w, r, e.general, e.scope)
	if err != nil {
		return 0, nil, err
	}
	c := &apiCall{caller: caller}
	// 415, 413, 408
	if err := checkBodyEncoding(r); err != nil {
		return 0, nil, err
	}
	if e.body == bodyJSON || e.body == bodyOptionalJSON {
		empty := r.ContentLength == 0 && r.Header.Get("Content-Type") == ""
		if e.body == bodyJSON || !empty {
			if err := checkJSONContentType(r.Header.Get("Content-Type"), e.mergePatch); err != nil {
				return 0, nil, err
			}
			if c.body, err = s.readCustomHTMLBody(w, r); err != nil {
				return 0, nil, err
			}
		}
		c.fingerprint = requestFingerprint(r, c.body)
	}
	if r.Method == http.MethodPost {
		if key, ok := r.Header[idempotencyHeader]; ok {
			return s.idempotent(w, r, e, c, key)
		}
	}
	return e.run(w, r, c)
}

// admit runs the checks every API request passes first, the REST API's
// and MCP's (mcp.go) alike: 401 the key, 403 the plan and, when general is
// set, the key's kind (scope names what needs a general key), 429 the rate
// limits. It returns who the request acts for.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, general bool, scope string) (apiCaller, error) {
	// 401
	caller, err := s.authenticate(r)
	if err != nil {
		return apiCaller{}, err
	}
	s.touchKey(r, caller.key)
	// 403
	if !caller.account.Plan.CustomPages() {
		return apiCaller{}, fileframe.Errorf(fileframe.CodePlanRequired,
			"The account that owns this API key is on the %s plan; the API needs the Agency plan. Ask the account owner to upgrade: the same key works again as soon as the account is on Agency.",
			caller.account.Plan)
	}
	if general {
		if err := needGeneralKey(caller, scope); err != nil {
			return apiCaller{}, err
		}
	}
	// 429
	if err := s.rateLimit(w, r, caller.key); err != nil {
		return apiCaller{}, err
	}
	return caller, nil
}

// needGeneralKey refuses a page-bound key with key_scope: scope names
// what it tried ("Uploading files").
func needGeneralKey(c apiCaller, scope string) error {
	if c.key.Kind != fileframe.KeyGeneral {
		return fileframe.Errorf(fileframe.CodeKeyScope,
			"This is a page-bound key (ffp_), which reaches one file's page only. %s needs a general key (ffk_).", scope)
	}
	return nil
}

// rateLimit takes a token from the key's bucket and from the client
// address's bucket, and says what is left of both in the RateLimit and
// RateLimit-Policy headers of the answer (draft-ietf-httpapi-ratelimit-
// headers). When either bucket is empty it sets Retry-After and returns a
// rate_limited error.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, key fileframe.Key) error {
	h := w.Header()
	h.Set("RateLimit-Policy", fmt.Sprintf(`"key";q=%d;w=%d, "address";q=%d;w=%d`,
		max(s.cfg.KeyBurst, 1), refillSeconds(s.cfg.KeyRate, s.cfg.KeyBurst),
		max(s.cfg.IPBurst, 1), refillSeconds(s.cfg.IPRate, s.cfg.IPBurst)))
	state := func(name string, d fileframe.RateDecision) string {
		return fmt.Sprintf(`"%s";r=%d;t=%d`, name, d.Remaining, int64(math.Ceil(d.Reset.Seconds())))
	}
	d := s.allow(r, "key:"+string(key.ID), s.cfg.KeyRate, s.cfg.KeyBurst)
	what := fmt.Sprintf("this API key (%g requests a second on average, bursts of %d)", s.cfg.KeyRate, max(s.cfg.KeyBurst, 1))
	limits := state("key", d)
	if d.Allowed {
		d = s.allow(r, clientBucket(r.RemoteAddr), s.cfg.IPRate, s.cfg.IPBurst)
		what = fmt.Sprintf("your network address (%g requests a second on average, bursts of %d)", s.cfg.IPRate, max(s.cfg.IPBurst, 1))
		limits += ", " + state("address", d)
	}
	h.Set("RateLimit", limits)
	if d.Allowed {
		return nil
	}
	secs := retryAfterSeconds(d.RetryAfter)
	h.Set("Retry-After", strconv.FormatInt(secs, 10))
	return fileframe.Errorf(fileframe.CodeRateLimited,
		"Too many requests for %s. Wait %d seconds (the Retry-After header) and send the same request again.", what, secs)
}

// refillSeconds is how long an empty bucket takes to fill: the window of
// its RateLimit-Policy, in whole seconds, at least 1.
func refillSeconds(perSecond float64, burst int) int64 {
	if perSecond <= 0 {
		return 1
	}
	return max(int64(math.Ceil(float64(max(burst, 1))/perSecond)), 1)
}

// allow takes a token from a bucket of the rate limiter. A limiter that
// fails (a shared one whose database is unreachable) lets the request pass:
// the error is logged, and the API stays up without limits rather than
// going down with the limiter.
func (s *Server) allow(r *http.Request, bucket string, perSecond float64, burst int) fileframe.RateDecision {
	d, err := s.limits.Allow(r.Context(), bucket, perSecond, burst, s.now())
	if err != nil {
		level := slog.LevelError
		if fileframe.ErrorCode(err) == fileframe.CodeUnavailable {
			level = slog.LevelWarn // the database is out of reach: not a fault of the code
		}
		s.logFor(r).Log(r.Context(), level, "api: rate limiter failed; letting the request pass", "bucket", bucket, "err", err)
		return fileframe.RateDecision{Allowed: true, Remaining: max(burst, 1) - 1}
	}
	return d
}

// checkBodyEncoding refuses a request body sent with a Content-Encoding
// other than identity. Go's server does not decode request bodies, and a
// file or page is stored as its bytes arrive: a gzip body would be stored
// (and later served) still compressed, under its plain name.
func checkBodyEncoding(r *http.Request) error {
	if r.ContentLength == 0 {
		return nil // no body: nothing to decode
	}
	for _, v := range r.Header.Values("Content-Encoding") {
		for _, coding := range strings.Split(v, ",") {
			coding = strings.TrimSpace(coding)
			if coding == "" || strings.EqualFold(coding, "identity") {
				continue
			}
			return fileframe.Errorf(fileframe.CodeUnsupportedEncoding,
				"The request body is sent with Content-Encoding %q, which Fileframe does not decode: it would store the encoded bytes. Send the body as it is, without Content-Encoding.",
				truncate(coding, 40))
		}
	}
	return nil
}

// refuseEncodedBodies answers 415 to a request of the application (a form,
// a tus upload) whose body has a Content-Encoding. The REST API (under
// /api/) and MCP check it themselves, at the 415 step of the API's order
// of checks (runAPI, mcpHandler), after the key, and answer problem+json.
func (s *Server) refuseEncodedBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Header["Content-Encoding"]; ok && !strings.HasPrefix(r.URL.Path, "/api/") && r.URL.Path != mcpPath {
			if err := checkBodyEncoding(r); err != nil {
				w.Header().Set("Connection", "close")
				s.textError(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// checkJSONContentType accepts application/json with any parameters (such
// as charset=utf-8), and application/merge-patch+json when mergePatch is
// set, and refuses anything else.
func checkJSONContentType(header string, mergePatch bool) error {
	mediaType, _, err := mime.ParseMediaType(header)
	if header != "" && err == nil && (mediaType == "application/json" || mergePatch && mediaType == "application/merge-patch+json") {
		return nil
	}
	got := "no Content-Type header"
	if header != "" {
		got = fmt.Sprintf("Content-Type %q", truncate(header, 100))
	}
	return fileframe.Errorf(fileframe.CodeUnsupportedMediaType,
		"The request has %s. Send the body as a JSON object with `Content-Type: application/json`.", got)
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

// reachFile returns the file of the account that the caller's key may
// act on: any of the account's files for a general key, its own file for
// a page-bound key. Any other ID, another account's included, is
// file_not_found, so that a key cannot tell which IDs exist.
func (s *Server) reachFile(ctx context.Context, c apiCaller, id fileframe.FileID) (fileframe.File, error) {
	if !fileframe.LooksLikeFileID(string(id)) {
		return fileframe.File{}, fileNotFound(id)
	}
	if c.key.Kind == fileframe.KeyPage && id != c.key.FileID {
		return fileframe.File{}, fileframe.Errorf(fileframe.CodeFileNotFound,
			"This page-bound key reaches only its own file, %s; there is no file %q it can act on. Use a general key (ffk_) for the account's other files.",
			c.key.FileID, truncate(string(id), 100))
	}
	f, err := s.svc.OwnFile(ctx, c.account, id)
	if fileframe.IsNotFound(err) {
		return fileframe.File{}, fileNotFound(id)
	} else if err != nil {
		return fileframe.File{}, fmt.Errorf("looking up file %s: %w", id, err)
	}
	return f, nil
}

// pathFile is reachFile for the file named by the {id} of the path.
func (s *Server) pathFile(r *http.Request, c apiCaller) (fileframe.File, error) {
	return s.reachFile(r.Context(), c, fileframe.FileID(r.PathValue("id")))
}

// apiMethods answers a method an API path does not take: 405 with the
// methods it does take in Allow.
func (s *Server) apiMethods(allow ...string) http.Handler {
	if slices.Contains(allow, http.MethodGet) {
		allow = append(allow, http.MethodHead) // the mux answers HEAD with GET
	}
	list := strings.Join(allow, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", list)
		s.apiError(w, r, fileframe.Errorf(fileframe.CodeMethodNotAllowed,
			"%s is not allowed on %s: it takes %s. See /llms.txt or /api/openapi.json for the API.", r.Method, r.URL.Path, list))
	})
}

// timeOrNil is t for JSON, or nil (null) for the zero time.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

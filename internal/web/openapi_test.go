package web

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// The API's contract, openapi.json, is kept true by validating every
// request to /api/ and every answer of every test against it: the test
// environment's app origin is served through checkContract (startTestEnv),
// so tests need do nothing, whichever client they use.
//
// The validator is pb33f/libopenapi-validator: it reads OpenAPI 3.1 as
// such (JSON Schema 2020-12: type arrays with "null", const,
// unevaluatedProperties, $ref beside other keywords), validates response
// headers as well as bodies, and says what to fix. kin-openapi's
// openapi3filter is built around 3.0 schemas, and its 3.1 support is
// partial.

// contract is openapi.json, parsed, with what validates against it.
type contract struct {
	model *v3.Document
	// full validates requests with their bodies; noBody without them, for
	// a request whose body the test harness could not keep whole.
	full, noBody validator.Validator
	schemas      schema_validation.SchemaValidator
}

// loadContract parses openapi.json once for the whole test binary.
var loadContract = sync.OnceValues(func() (*contract, error) {
	opts := []config.Option{config.WithFormatAssertions()}
	build := func(opts ...config.Option) (validator.Validator, *v3.Document, error) {
		doc, err := libopenapi.NewDocument(openAPIDocument)
		if err != nil {
			return nil, nil, err
		}
		v, errs := validator.NewValidator(doc, opts...)
		if len(errs) > 0 {
			return nil, nil, errs[0]
		}
		m, err := doc.BuildV3Model()
		if err != nil {
			return nil, nil, err
		}
		return v, &m.Model, nil
	}
	full, model, err := build(opts...)
	if err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	noBody, _, err := build(append(opts, config.WithoutRequestBodyValidation())...)
	if err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	return &contract{model: model, full: full, noBody: noBody,
		schemas: schema_validation.NewSchemaValidator(opts...)}, nil
})

// maxContractBody is how much of a request's body the contract check keeps
// to validate; a larger one (a big upload) is validated without its body.
const maxContractBody = 16 << 20

// checkContract serves next, and validates each request to /api/ (but the
// document itself) and its answer against openapi.json, failing t with
// what differs.
//
// Every answer is validated. A request is validated only when it was
// answered with success: whatever the server accepts must be what the
// document allows, while the requests it refuses are, in tests, mostly
// mistakes made on purpose (no key, a body that is not JSON), which the
// document describes by its error answers. So tests need no mark for an
// invalid request.
//
// The 404 of an unknown /api/ path and the 405 of a method a path does not
// take come from the router's fallbacks, not from an operation, and
// OpenAPI cannot list them: they are validated against the Problem schema.
func checkContract(t testing.TB, next http.Handler) http.Handler {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == openAPIPath {
			next.ServeHTTP(w, r)
			return
		}
		body := &keptBody{r: r.Body}
		r.Body = body
		answer := &keptAnswer{ResponseWriter: w}
		next.ServeHTTP(answer, r)
		if r.Context().Err() != nil {
			return // the client went away: nobody reads this answer
		}
		if problems := c.check(r, body, answer); len(problems) > 0 {
			t.Errorf("openapi.json does not describe %s %s → %d:\n%s\nrequest body: %s\nanswer: %s",
				r.Method, r.URL.RequestURI(), answer.status(), strings.Join(problems, "\n"),
				quoteStart(body.buf.Bytes()), quoteStart(answer.body.Bytes()))
		}
	})
}

// check validates a request and its answer, and returns what differs.
func (c *contract) check(r *http.Request, body *keptBody, answer *keptAnswer) []string {
	status := answer.status()
	success := status < 400
	wholeBody := success && body.readRest()

	req := r.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(body.buf.Bytes()))
	resp := &http.Response{
		StatusCode: status,
		Header:     answer.header(),
		Body:       io.NopCloser(bytes.NewReader(answer.body.Bytes())),
		Request:    req,
	}

	var problems []string
	add := func(what string, errs []*liberrors.ValidationError) {
		for _, e := range errs {
			problems = append(problems, "  "+what+": "+describe(e))
		}
	}
	if fallback(status, resp.Header, answer.body.Bytes()) {
		if got := resp.Header.Get("Content-Type"); got != "application/problem+json" {
			problems = append(problems, fmt.Sprintf("  answer: Content-Type %q, want application/problem+json", got))
		}
		_, errs := c.schemas.ValidateSchemaBytes(c.schema("Problem"), answer.body.Bytes())
		add("answer", errs)
		return problems
	}
	_, errs := c.full.ValidateHttpResponse(req, resp)
	add("answer", errs)
	if success {
		v := c.noBody
		if wholeBody {
			v = c.full
			req.Body = io.NopCloser(bytes.NewReader(body.buf.Bytes()))
		}
		_, errs := v.ValidateHttpRequest(req)
		add("request", errs)
	}
	return problems
}

// fallback reports whether an answer is one of the router's fallbacks:
// not_found for an unknown path, method_not_allowed for a method that a
// path does not take.
func fallback(status int, h http.Header, body []byte) bool {
	var p struct{ Code string }
	if json.Unmarshal(body, &p) != nil {
		return false
	}
	return status == http.StatusNotFound && p.Code == "not_found" ||
		status == http.StatusMethodNotAllowed && p.Code == "method_not_allowed" && h.Get("Allow") != ""
}

// schema returns a schema of the document's components.
func (c *contract) schema(name string) *base.Schema {
	return c.model.Components.Schemas.GetOrZero(name).Schema()
}

// describe says what a validation error is about, on one line per failure.
func describe(e *liberrors.ValidationError) string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Reason != "" && e.Reason != e.Message {
		b.WriteString(": " + e.Reason)
	}
	for _, f := range e.SchemaValidationErrors {
		where := f.FieldPath
		if where == "" {
			where = f.KeywordLocation
		}
		fmt.Fprintf(&b, "\n      at %s: %s", where, f.Reason)
	}
	return b.String()
}

// quoteStart quotes the start of a body for a failure message.
func quoteStart(b []byte) string {
	const n = 600
	if len(b) > n {
		return fmt.Sprintf("%q… (%d bytes)", b[:n], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// keptBody is a request body that keeps a copy of what is read from it,
// up to maxContractBody.
type keptBody struct {
	r        io.ReadCloser
	buf      bytes.Buffer
	overflow bool
	eof      bool
}

func (b *keptBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.keep(p[:n])
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *keptBody) keep(p []byte) {
	if b.buf.Len()+len(p) > maxContractBody {
		b.overflow = true
		return
	}
	b.buf.Write(p)
}

// Close leaves the body open, for readRest; the server closes it after the
// handler.
func (b *keptBody) Close() error { return nil }

// readRest reads what the handler left of the body, and reports whether
// the whole body is kept.
func (b *keptBody) readRest() bool {
	if !b.eof && !b.overflow {
		_, err := io.Copy(io.Discard, io.LimitReader(b, maxContractBody+1))
		if err != nil {
			return false
		}
	}
	return b.eof && !b.overflow
}

// keptAnswer is a ResponseWriter that keeps a copy of the answer's status,
// headers and body (up to maxContractBody).
type keptAnswer struct {
	http.ResponseWriter
	code    int
	headers http.Header
	body    bytes.Buffer
}

func (a *keptAnswer) WriteHeader(code int) {
	if a.code == 0 && code >= 200 {
		a.code, a.headers = code, a.ResponseWriter.Header().Clone()
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *keptAnswer) Write(p []byte) (int, error) {
	if a.code == 0 {
		a.WriteHeader(http.StatusOK)
	}
	if a.body.Len()+len(p) <= maxContractBody {
		a.body.Write(p)
	}
	return a.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (a *keptAnswer) Unwrap() http.ResponseWriter { return a.ResponseWriter }

func (a *keptAnswer) status() int {
	if a.code == 0 {
		return http.StatusOK
	}
	return a.code
}

func (a *keptAnswer) header() http.Header {
	if a.headers == nil {
		return a.ResponseWriter.Header().Clone()
	}
	return a.headers
}

// TestOpenAPIDocument checks openapi.json against the OpenAPI 3.1 schema,
// and that every $ref in it resolves.
func TestOpenAPIDocument(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	if ok, errs := c.full.ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("openapi.json is not valid OpenAPI 3.1: %s", describe(e))
		}
	}
	doc, err := libopenapi.NewDocument(openAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := doc.BuildV3Model(); err != nil {
		t.Errorf("openapi.json: %v", err)
	}
	if c.model.Version != "3.1.0" {
		t.Errorf("openapi: got %q, want 3.1.0", c.model.Version)
	}
	// Every POST takes an Idempotency-Key.
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		if op := item.Post; op != nil && !slices.ContainsFunc(op.Parameters, func(p *v3.Parameter) bool {
			return p.Name == "Idempotency-Key" && p.In == "header"
		}) {
			t.Errorf("POST %s: no Idempotency-Key parameter", path)
		}
	}
}

// wildcard matches a path parameter of a ServeMux pattern or of an OpenAPI
// path ({id}, {rest...}, {$}).
var wildcard = regexp.MustCompile(`\{[^}]*\}`)

// TestOpenAPIRoutes checks that the API's routes (appRoutes) and the
// document's operations are the same: a route under /api/ with a method
// and no operation is undocumented, an operation without its route is a
// promise the server does not keep. Routes without a method are the
// router's fallbacks (405, 404), which no operation describes.
func TestOpenAPIRoutes(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t)
	// Each operation by its method and its path with the parameters'
	// names left out ({id} and {fileId} are one path).
	routed, documented := map[string]string{}, map[string]string{}
	for _, rt := range e.srv.appRoutes() {
		method, path, ok := strings.Cut(rt.pattern, " ")
		if !ok || !strings.HasPrefix(path, "/api/") {
			continue
		}
		routed[method+" "+wildcard.ReplaceAllString(path, "{}")] = rt.pattern
	}
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			op := strings.ToUpper(method) + " " + path
			documented[strings.ToUpper(method)+" "+wildcard.ReplaceAllString(path, "{}")] = op
		}
	}
	for _, op := range slices.Sorted(maps.Keys(routed)) {
		if _, ok := documented[op]; !ok {
			t.Errorf("route %s (routes.go) is not in openapi.json", routed[op])
		}
	}
	for _, op := range slices.Sorted(maps.Keys(documented)) {
		if _, ok := routed[op]; !ok {
			t.Errorf("openapi.json has %s, which routes.go does not route", documented[op])
		}
	}
}

// TestOpenAPIErrorCodes checks that the document's ErrorCode lists every
// code that errors.go answers, and that each error answer of an operation
// (BadRequest, NotFound, …) lists only codes of its status.
func TestOpenAPIErrorCodes(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, v := range c.schema("ErrorCode").Enum {
		listed[v.Value] = true
	}
	for code := range errorKinds {
		if !listed[code] {
			t.Errorf("error code %q (errors.go) is not in openapi.json's ErrorCode", code)
		}
	}
	if !listed[fileframe.EINTERNAL] {
		t.Errorf("error code %q is not in openapi.json's ErrorCode", fileframe.EINTERNAL)
	}
	statusOf := map[string]int{fileframe.EINTERNAL: internalKind.status}
	for code, k := range errorKinds {
		statusOf[code] = k.status
	}
	for name, resp := range c.model.Components.Responses.FromOldest() {
		media := resp.Content.GetOrZero("application/problem+json")
		if media == nil {
			continue
		}
		props := media.Schema.Schema().Properties
		want, err := strconv.Atoi(props.GetOrZero("status").Schema().Const.Value)
		if err != nil {
			t.Errorf("response %s: status is not a const integer: %v", name, err)
		}
		code := props.GetOrZero("code").Schema()
		codes := []string{}
		if code.Const != nil {
			codes = append(codes, code.Const.Value)
		}
		for _, v := range code.Enum {
			codes = append(codes, v.Value)
		}
		if len(codes) == 0 {
			t.Errorf("response %s lists no code", name)
		}
		for _, cd := range codes {
			if !listed[cd] {
				t.Errorf("response %s: code %q is not in ErrorCode", name, cd)
			}
			if got, ok := statusOf[cd]; ok && got != want {
				t.Errorf("response %s (status %d) lists %q, which errors.go answers with %d", name, want, cd, got)
			}
		}
	}
}

// recordingTB is a testing.TB that keeps what would fail the test.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	failed []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

// TestCheckContract checks that checkContract fails a test on the drift it
// exists for, and lets alone what the document allows.
func TestCheckContract(t *testing.T) {
	const (
		stored  = `{"ok":true,"slug":"AbC123abc123","url":"/f/AbC123abc123","published":true,"revision":1,"publicUrl":"http://x.example/f/AbC123abc123","warnings":[]}`
		problem = `{"type":"https://fileframe.dev/problems/%[1]s","title":"T","status":%[2]d,"detail":"D","ok":false,"code":"%[1]s","errors":[],"requestId":"r1"}`
		goodReq = `{"html":"<!doctype html>","publish":true}`
	)
	json := "application/json"
	tests := []struct {
		name       string
		method     string
		path       string
		reqBody    string
		status     int
		header     []string // name, value, …; an empty value removes the header
		body       string
		wantFailed string // what the failure names; "" when nothing may fail
	}{
		{name: "as documented", status: 200, header: []string{"Content-Type", json}, body: stored},
		{name: "a member missing", status: 200, header: []string{"Content-Type", json},
			body: strings.Replace(stored, `"revision":1,`, "", 1), wantFailed: "revision"},
		{name: "an undocumented member", status: 200, header: []string{"Content-Type", json},
			body: strings.Replace(stored, `"ok":true,`, `"ok":true,"extra":1,`, 1), wantFailed: "extra"},
		{name: "a member of the wrong type", status: 200, header: []string{"Content-Type", json},
			body: strings.Replace(stored, `"revision":1`, `"revision":"1"`, 1), wantFailed: "revision"},
		{name: "no X-Request-ID", status: 200, header: []string{"Content-Type", json, "X-Request-ID", ""},
			body: stored, wantFailed: "X-Request-ID"},
		{name: "a cacheable answer", status: 200, header: []string{"Content-Type", json, "Cache-Control", "max-age=60"},
			body: stored, wantFailed: "Cache-Control"},
		{name: "an undocumented status", status: 418, header: []string{"Content-Type", "application/problem+json"},
			body: fmt.Sprintf(problem, "internal", 418), wantFailed: "418"},
		{name: "a problem as plain JSON", status: 400, header: []string{"Content-Type", json},
			body: fmt.Sprintf(problem, "invalid_json", 400), wantFailed: "application/json"},
		{name: "a code of another status", status: 400, header: []string{"Content-Type", "application/problem+json"},
			body: fmt.Sprintf(problem, "html_invalid", 400), wantFailed: "code"},
		{name: "a 401 without its challenge", status: 401, header: []string{"Content-Type", "application/problem+json", "WWW-Authenticate", ""},
			body: fmt.Sprintf(problem, "unauthorized", 401), wantFailed: "WWW-Authenticate"},
		{name: "a 429 without Retry-After", status: 429, header: []string{"Content-Type", "application/problem+json"},
			body: fmt.Sprintf(problem, "rate_limited", 429), wantFailed: "Retry-After"},
		{name: "an accepted request the document refuses", reqBody: `{"html":"<!doctype html>","publish":"yes"}`,
			status: 200, header: []string{"Content-Type", json}, body: stored, wantFailed: "publish"},
		{name: "a refused request is not validated", reqBody: `{"html":1}`,
			status: 400, header: []string{"Content-Type", "application/problem+json"}, body: fmt.Sprintf(problem, "invalid_field", 400)},
		{name: "an unknown path's 404", path: "/api/nothing", status: 404,
			header: []string{"Content-Type", "application/problem+json"}, body: fmt.Sprintf(problem, "not_found", 404)},
		{name: "an unknown path's 404, malformed", path: "/api/nothing", status: 404,
			header: []string{"Content-Type", "application/problem+json"}, body: `{"code":"not_found"}`, wantFailed: "requestId"},
		{name: "an undocumented route", path: "/api/nothing", status: 200,
			header: []string{"Content-Type", json}, body: `{"ok":true}`, wantFailed: "/api/nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			h := checkContract(rec, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				h := w.Header()
				h.Set("X-Request-ID", "r1")
				h.Set("Cache-Control", "no-store")
				h.Set("WWW-Authenticate", "Bearer")
				for i := 0; i+1 < len(tt.header); i += 2 {
					if v := tt.header[i+1]; v != "" {
						h.Set(tt.header[i], v)
					} else {
						h.Del(tt.header[i])
					}
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			method, path, body := cmp.Or(tt.method, http.MethodPost), cmp.Or(tt.path, customHTMLPath), cmp.Or(tt.reqBody, goodReq)
			req := httptest.NewRequest(method, path, strings.NewReader(body))
			req.Header.Set("Content-Type", json)
			req.Header.Set("Authorization", "Bearer ffk_"+strings.Repeat("a", 40))
			h.ServeHTTP(httptest.NewRecorder(), req)
			got := strings.Join(rec.failed, "\n")
			switch {
			case tt.wantFailed == "" && got != "":
				t.Errorf("failed the test:\n%s", got)
			case tt.wantFailed != "" && got == "":
				t.Errorf("let it pass, want a failure about %s", tt.wantFailed)
			case tt.wantFailed != "" && !strings.Contains(strings.ToLower(got), strings.ToLower(tt.wantFailed)):
				t.Errorf("failure does not name %s:\n%s", tt.wantFailed, got)
			}
		})
	}
}

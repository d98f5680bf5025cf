package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/html"

	"github.com/fileframe/fileframe/docs"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// bearer is an http.RoundTripper that sends an API key with every request,
// as an MCP client configured with an Authorization header does.
type bearer struct {
	key  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.base.RoundTrip(r)
}

// mcpConnect connects the SDK's client to the test server's /mcp with key,
// speaking the given protocol version ("" for the SDK's latest, which
// connects with one server/discover request; older ones with initialize
// and initialized).
func mcpConnect(e *testEnv, key, version string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "fileframe-test", Version: "1"}, nil)
	return client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             e.app.URL + mcpPath,
		HTTPClient:           &http.Client{Transport: bearer{key, http.DefaultTransport}},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

// mustConnect is mcpConnect that fails the test on an error and closes
// the session when the test ends.
func mustConnect(t *testing.T, e *testEnv, key string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcpConnect(e, key, "")
	if err != nil {
		t.Fatalf("connecting to %s: %v", mcpPath, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and fails the test on a protocol error (a tool's
// own error is a result with IsError).
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// toolOK asserts that res succeeded and returns its structured content,
// which must equal the JSON of its text.
func toolOK(t *testing.T, name string, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s: an error result: %s", name, resultText(res))
	}
	got, ok := res.StructuredContent.(map[string]any)
	if !ok {
		t.Fatalf("%s: structured content %T, want an object", name, res.StructuredContent)
	}
	var text map[string]any
	if err := json.Unmarshal([]byte(resultText(res)), &text); err != nil {
		t.Errorf("%s: text content is not the JSON of the result: %v", name, err)
	} else if fmt.Sprint(text) != fmt.Sprint(got) {
		t.Errorf("%s: text content %v differs from structured content %v", name, text, got)
	}
	if got["ok"] != true {
		t.Errorf("%s: ok %v, want true", name, got["ok"])
	}
	return got
}

// toolProblem asserts that res is an error result whose text is the REST
// API's problem details object with the given code and status, and
// returns it.
func toolProblem(t *testing.T, name string, res *mcp.CallToolResult, status int, code string) map[string]any {
	t.Helper()
	if !res.IsError {
		t.Fatalf("%s: got a success, want error %s: %s", name, code, resultText(res))
	}
	if res.StructuredContent != nil {
		t.Errorf("%s: an error result with structured content %v (it would not match the output schema)", name, res.StructuredContent)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(resultText(res)), &p); err != nil {
		t.Fatalf("%s: error text is not JSON: %v\n%s", name, err, resultText(res))
	}
	if p["code"] != code || p["status"] != float64(status) || p["type"] != problemTypeBase+code || p["ok"] != false {
		t.Errorf("%s: got code %v status %v type %v ok %v, want %s %d (detail: %v)", name, p["code"], p["status"], p["type"], p["ok"], code, status, p["detail"])
	}
	for _, m := range []string{"title", "detail", "requestId"} {
		if s, _ := p[m].(string); s == "" {
			t.Errorf("%s: member %s: got %v, want a non-empty string", name, m, p[m])
		}
	}
	if _, ok := p["errors"].([]any); !ok {
		t.Errorf("%s: errors: got %v, want an array", name, p["errors"])
	}
	return p
}

// resultText is the text of a result's first content.
func resultText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return fmt.Sprintf("%T", res.Content[0])
}

// mcpToolNames are the tools /mcp offers.
var mcpToolNames = []string{
	"account_stats", "add_to_collection", "check_html", "create_collection", "create_request", "create_webhook", "delete_file", "delete_webhook", "end_page_test",
	"file_stats", "get_collection", "get_file", "get_page", "get_request", "get_revision", "list_deliveries", "list_files", "list_requests", "list_revisions",
	"list_webhooks", "page_tests", "pause_webhook", "publish_page", "refetch_assets", "remove_from_collection", "rename_file", "restore_revision", "retry_delivery",
	"save_draft", "set_link", "share_file", "start_page_test", "unpublish_page", "upload_file",
}

// TestMCPToolsTableAgrees: docs/api.md's table of tools names every tool
// the server lists, and no other (the four collection tools were once
// missing from it).
func TestMCPToolsTableAgrees(t *testing.T) {
	api := docs.API()
	start := strings.Index(api, "### Tools\n")
	if start < 0 {
		t.Fatal(`api.md has no "### Tools" section`)
	}
	section := api[start+len("### Tools\n"):]
	if end := strings.Index(section, "\n#"); end >= 0 {
		section = section[:end]
	}
	var names []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(section, -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	if !slices.Equal(names, mcpToolNames) {
		t.Errorf("api.md's tools table lists %v; the server's tools are %v", names, mcpToolNames)
	}
}

// mcpDestructiveTools are the tools that destroy what cannot be brought
// back.
var mcpDestructiveTools = []string{"delete_file", "delete_webhook"}

// mcpReadTools are the tools that only read whose names do not say so
// (get_…, list_…).
var mcpReadTools = []string{"check_html", "file_stats", "account_stats", "page_tests"}

// TestMCPTools lists the tools over the SDK's client: every tool with a
// description, an input schema whose properties are described, an output
// schema, and annotations that say which ones only read and which one
// destroys.
func TestMCPTools(t *testing.T) {
	fx := newAPIFixture(t)
	cs := mustConnect(t, fx.e, fx.general)
	if got := cs.InitializeResult().ServerInfo.Name; got != "fileframe" {
		t.Errorf("server name %q, want fileframe", got)
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "publish_page") {
		t.Errorf("instructions do not explain the flow: %q", cs.InitializeResult().Instructions)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 40 {
			t.Errorf("%s: description %q is too short to guide an agent", tool.Name, tool.Description)
		}
		in, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Type        any    `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(in, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: input schema %s, want an object schema", tool.Name, in)
		}
		for name, p := range schema.Properties {
			if p.Description == "" || p.Type == nil {
				t.Errorf("%s: input %s has no type or no description: %s", tool.Name, name, in)
			}
		}
		// create_webhook's fileId is a filter: left out, every file.
		if _, ok := schema.Properties["fileId"]; ok && !slices.Contains(schema.Required, "fileId") && tool.Name != "create_webhook" {
			t.Errorf("%s: fileId is not required: %s", tool.Name, in)
		}
		out, _ := json.Marshal(tool.OutputSchema)
		if !strings.Contains(string(out), `"ok"`) {
			t.Errorf("%s: output schema %s, want the answer's object", tool.Name, out)
		}
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		readOnly := strings.HasPrefix(tool.Name, "get_") || strings.HasPrefix(tool.Name, "list_") || slices.Contains(mcpReadTools, tool.Name)
		if a.ReadOnlyHint != readOnly {
			t.Errorf("%s: readOnlyHint %v, want %v", tool.Name, a.ReadOnlyHint, readOnly)
		}
		destructive := a.DestructiveHint != nil && *a.DestructiveHint
		if !readOnly && destructive != slices.Contains(mcpDestructiveTools, tool.Name) {
			t.Errorf("%s: destructiveHint %v", tool.Name, destructive)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, mcpToolNames) {
		t.Errorf("tools %v, want %v", names, mcpToolNames)
	}

	// Clients of the earlier protocol versions (initialize, then each
	// request on its own) reach the same tools, as the same caller.
	for _, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		old, err := mcpConnect(fx.e, fx.page, version)
		if err != nil {
			t.Fatalf("connecting with protocol %s: %v", version, err)
		}
		if got := old.InitializeResult().ProtocolVersion; got != version {
			t.Errorf("protocol %s: the server chose %s", version, got)
		}
		list := toolOK(t, "list_files", callTool(t, old, "list_files", nil))
		if files := list["files"].([]any); len(files) != 1 || files[0].(map[string]any)["id"] != string(fx.file.ID) {
			t.Errorf("protocol %s: list_files with a page-bound key: %v", version, list)
		}
		old.Close()
	}
	for _, tool := range list.Tools {
		if tool.Name == "save_draft" || tool.Name == "publish_page" {
			for _, rule := range []string{"complete HTML document", "inline", "data:", "https:", "bottom right", "bottom on phones"} {
				if !strings.Contains(tool.Description, rule) {
					t.Errorf("%s: description does not say %q: %s", tool.Name, rule, tool.Description)
				}
			}
		}
	}
}

// TestMCPFlow runs an agent's whole flow through the tools, as the REST
// API's tests run it through the endpoints: upload, check (findings with
// hints), a draft beside nothing live, publish (the link shows the page),
// a second draft that leaves the live page alone, unpublish, restore,
// the revisions, rename and delete.
func TestMCPFlow(t *testing.T) {
	fx := newAPIFixture(t)
	e := fx.e
	cs := mustConnect(t, e, fx.general)

	content := []byte("Quarterly numbers\n")
	up := toolOK(t, "upload_file", callTool(t, cs, "upload_file", map[string]any{
		"name": "q3.txt", "contentBase64": base64.StdEncoding.EncodeToString(content),
	}))
	id, _ := up["id"].(string)
	slug, _ := up["slug"].(string)
	if up["name"] != "q3.txt" || up["size"] != float64(len(content)) || up["publicUrl"] != e.app.URL+"/f/"+slug {
		t.Fatalf("upload_file: %v", up)
	}
	if cp := up["customPage"].(map[string]any); cp["state"] != "none" {
		t.Errorf("a new file's page: %v, want state none", cp)
	}
	file, err := e.store.FileByID(context.Background(), fileframe.FileID(id))
	if err != nil {
		t.Fatalf("the uploaded file is not stored: %v", err)
	}
	if _, body := e.get(e.app.URL + "/f/" + slug + "/download"); string(body) != string(content) {
		t.Errorf("download: got %q, want %q", body, content)
	}

	// check_html: the findings a save would get, nothing stored.
	bad := toolOK(t, "check_html", callTool(t, cs, "check_html", map[string]any{"html": pageWithExternalScript}))
	if bad["valid"] != false || bad["code"] != "html_invalid" {
		t.Errorf("check_html of a bad page: %v", bad)
	}
	checkFindings(t, "errors", bad["errors"])
	if good := toolOK(t, "check_html", callTool(t, cs, "check_html", map[string]any{"html": validPage})); good["valid"] != true {
		t.Errorf("check_html of a good page: %v", good)
	}
	toolProblem(t, "check_html", callTool(t, cs, "check_html", map[string]any{"html": ""}), 400, "html_required")

	// save_draft refuses a bad page with the REST API's findings.
	p := toolProblem(t, "save_draft", callTool(t, cs, "save_draft", map[string]any{"fileId": id, "html": pageWithExternalScript}), 422, "html_invalid")
	checkFindings(t, "errors", p["errors"])
	if _, ok := p["warnings"].([]any); !ok {
		t.Errorf("html_invalid without warnings: %v", p)
	}
	if _, err := e.store.PageByFile(context.Background(), file.ID); !fileframe.IsNotFound(err) {
		t.Errorf("a refused page was stored: %v", err)
	}

	draft := toolOK(t, "save_draft", callTool(t, cs, "save_draft", map[string]any{"fileId": id, "html": validPage}))
	if draft["revision"] != 1.0 || draft["published"] != false || draft["created"] != true {
		t.Errorf("save_draft: %v", draft)
	}
	if !strings.HasPrefix(draft["previewUrl"].(string), e.app.URL+"/f/"+slug+"?preview=") {
		t.Errorf("save_draft previewUrl: %v", draft["previewUrl"])
	}
	page := toolOK(t, "get_page", callTool(t, cs, "get_page", map[string]any{"fileId": id}))
	if page["state"] != "draft" || page["liveRevision"] != nil || page["latestRevision"] != 1.0 || page["previewUrl"] == nil {
		t.Errorf("get_page after a draft: %v", page)
	}
	if frame := outerFrame(t, e, slug); frame != "" {
		t.Errorf("a draft is live: the outer page frames %q", frame)
	}

	pub := toolOK(t, "publish_page", callTool(t, cs, "publish_page", map[string]any{"fileId": id}))
	if pub["state"] != "published" || pub["liveRevision"] != 1.0 {
		t.Errorf("publish_page: %v", pub)
	}
	if frame, want := outerFrame(t, e, slug), e.srv.ContentOrigin()+"/p/"+slug+"/1"; frame != want {
		t.Errorf("published: the outer page frames %q, want %q", frame, want)
	}

	// A second draft leaves the live revision alone.
	second := strings.Replace(validPage, "Spring launch</h1>", "Summer launch</h1>", 1)
	if d := toolOK(t, "save_draft", callTool(t, cs, "save_draft", map[string]any{"fileId": id, "html": second})); d["revision"] != 2.0 || d["published"] != false {
		t.Errorf("second save_draft: %v", d)
	}
	page = toolOK(t, "get_page", callTool(t, cs, "get_page", map[string]any{"fileId": id}))
	if page["state"] != "published" || page["liveRevision"] != 1.0 || page["latestRevision"] != 2.0 || page["previewUrl"] == nil {
		t.Errorf("get_page after a draft beside the live page: %v", page)
	}
	if frame := outerFrame(t, e, slug); !strings.HasSuffix(frame, "/p/"+slug+"/1") {
		t.Errorf("a draft changed the live page: the outer page frames %q", frame)
	}

	un := toolOK(t, "unpublish_page", callTool(t, cs, "unpublish_page", map[string]any{"fileId": id}))
	if un["state"] != "draft" || un["liveRevision"] != nil {
		t.Errorf("unpublish_page: %v", un)
	}
	if frame := outerFrame(t, e, slug); frame != "" {
		t.Errorf("unpublished: the outer page still frames %q", frame)
	}

	rest := toolOK(t, "restore_revision", callTool(t, cs, "restore_revision", map[string]any{"fileId": id, "revision": 1, "publish": true}))
	if rest["revision"] != 3.0 || rest["published"] != true || rest["created"] != true {
		t.Errorf("restore_revision: %v", rest)
	}
	if frame := outerFrame(t, e, slug); !strings.HasSuffix(frame, "/p/"+slug+"/3") {
		t.Errorf("restored: the outer page frames %q, want revision 3", frame)
	}
	toolProblem(t, "restore_revision", callTool(t, cs, "restore_revision", map[string]any{"fileId": id, "revision": 9}), 404, "revision_not_found")

	revs := toolOK(t, "list_revisions", callTool(t, cs, "list_revisions", map[string]any{"fileId": id}))
	var order []float64
	for _, r := range revs["revisions"].([]any) {
		rev := r.(map[string]any)
		order = append(order, rev["revision"].(float64))
		if live := rev["revision"] == 3.0; rev["live"] != live {
			t.Errorf("revision %v: live %v, want %v", rev["revision"], rev["live"], live)
		}
	}
	if !slices.Equal(order, []float64{3, 2, 1}) || revs["nextCursor"] != nil {
		t.Errorf("list_revisions: %v, want 3, 2, 1 and no next page", revs)
	}
	first := toolOK(t, "list_revisions", callTool(t, cs, "list_revisions", map[string]any{"fileId": id, "limit": 2}))
	next := toolOK(t, "list_revisions", callTool(t, cs, "list_revisions", map[string]any{"fileId": id, "limit": 2, "cursor": first["nextCursor"]}))
	if len(first["revisions"].([]any)) != 2 || len(next["revisions"].([]any)) != 1 {
		t.Errorf("list_revisions by 2: %v then %v", first, next)
	}
	toolProblem(t, "list_revisions", callTool(t, cs, "list_revisions", map[string]any{"fileId": id, "limit": 101}), 400, "invalid_field")

	rev := toolOK(t, "get_revision", callTool(t, cs, "get_revision", map[string]any{"fileId": id, "revision": 2}))
	if rev["html"] != second || rev["live"] != false || rev["size"] != float64(len(second)) {
		t.Errorf("get_revision 2: %v", rev)
	}
	toolProblem(t, "get_revision", callTool(t, cs, "get_revision", map[string]any{"fileId": id, "revision": 7}), 404, "revision_not_found")

	// The files: the new one first, with its page's state.
	list := toolOK(t, "list_files", callTool(t, cs, "list_files", map[string]any{"limit": 1}))
	files := list["files"].([]any)
	if len(files) != 1 || files[0].(map[string]any)["id"] != id || list["nextCursor"] == nil {
		t.Fatalf("list_files limit 1: %v", list)
	}
	if cp := files[0].(map[string]any)["customPage"].(map[string]any); cp["state"] != "published" || cp["liveRevision"] != 3.0 {
		t.Errorf("list_files customPage: %v", cp)
	}
	// limit 0 is refused as the REST API refuses it (it was taken as
	// absent: the fifth outside attack's row 188).
	toolProblem(t, "list_files", callTool(t, cs, "list_files", map[string]any{"limit": 0}), 400, "invalid_field")
	rest2 := toolOK(t, "list_files", callTool(t, cs, "list_files", map[string]any{"cursor": list["nextCursor"]}))
	if n := len(rest2["files"].([]any)); n != 2 {
		t.Errorf("list_files after the cursor: %d files, want the fixture's 2", n)
	}

	renamed := toolOK(t, "rename_file", callTool(t, cs, "rename_file", map[string]any{"fileId": id, "name": "Q3 numbers.txt"}))
	if renamed["name"] != "Q3 numbers.txt" || renamed["slug"] != slug {
		t.Errorf("rename_file: %v", renamed)
	}
	if got := toolOK(t, "get_file", callTool(t, cs, "get_file", map[string]any{"fileId": id})); got["name"] != "Q3 numbers.txt" {
		t.Errorf("get_file after rename_file: %v", got)
	}
	del := toolOK(t, "delete_file", callTool(t, cs, "delete_file", map[string]any{"fileId": id}))
	if del["deleted"] != true || del["id"] != id {
		t.Errorf("delete_file: %v", del)
	}
	toolProblem(t, "get_file", callTool(t, cs, "get_file", map[string]any{"fileId": id}), 404, "file_not_found")
	if resp, _ := e.get(e.app.URL + "/f/" + slug); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a deleted file's link: %d, want 404", resp.StatusCode)
	}
}

// outerFrame fetches /f/<slug> and returns its iframe's src ("" when it
// shows no custom page).
func outerFrame(t *testing.T, e *testEnv, slug string) string {
	t.Helper()
	resp, body := e.get(e.app.URL + "/f/" + slug)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /f/%s: %d", slug, resp.StatusCode)
	}
	doc, err := html.Parse(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := htmlAttr(findTag(doc, "iframe"), "src")
	return src
}

// TestMCPUploadLimits checks upload_file's own refusals: a file over 8 MiB
// (pointing to the streaming upload), content that is not base64, a bad
// name; and that base64 with line breaks is taken.
func TestMCPUploadLimits(t *testing.T) {
	fx := newAPIFixture(t)
	cs := mustConnect(t, fx.e, fx.general)
	big := base64.StdEncoding.EncodeToString(make([]byte, maxMCPUpload+1))
	p := toolProblem(t, "upload_file", callTool(t, cs, "upload_file", map[string]any{"name": "big.bin", "contentBase64": big}), 413, "body_too_large")
	if d := p["detail"].(string); !strings.Contains(d, "POST /api/files") || !strings.Contains(d, "fileframe remote upload") {
		t.Errorf("detail does not point to the streaming upload: %s", d)
	}
	toolProblem(t, "upload_file", callTool(t, cs, "upload_file", map[string]any{"name": "x.txt", "contentBase64": "not base64!"}), 400, "invalid_field")
	toolProblem(t, "upload_file", callTool(t, cs, "upload_file", map[string]any{"name": "", "contentBase64": "aGk="}), 400, "invalid_field")

	wrapped := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("line of text\n", 20)))
	wrapped = wrapped[:76] + "\r\n" + wrapped[76:]
	up := toolOK(t, "upload_file", callTool(t, cs, "upload_file", map[string]any{"name": "notes.txt", "contentBase64": wrapped}))
	if up["size"] != float64(20*len("line of text\n")) {
		t.Errorf("upload_file of wrapped base64: %v", up)
	}
	// Arguments that do not fit the input schema are refused before the
	// tool runs, as an error result too.
	if res := callTool(t, cs, "upload_file", map[string]any{"name": "x.txt"}); !res.IsError {
		t.Errorf("upload_file without contentBase64: %s", resultText(res))
	}
}

// TestMCPKeyScope checks a page-bound key (its own file only; upload,
// rename and delete need a general key) and another account's file
// (file_not_found, as if it did not exist).
func TestMCPKeyScope(t *testing.T) {
	fx := newAPIFixture(t)
	cs := mustConnect(t, fx.e, fx.page)
	list := toolOK(t, "list_files", callTool(t, cs, "list_files", nil))
	if files := list["files"].([]any); len(files) != 1 || files[0].(map[string]any)["id"] != string(fx.file.ID) {
		t.Errorf("list_files with a page-bound key: %v, want only its file", list)
	}
	own := map[string]any{"fileId": string(fx.file.ID), "html": validPage}
	if d := toolOK(t, "save_draft", callTool(t, cs, "save_draft", own)); d["revision"] != 1.0 {
		t.Errorf("save_draft of its own file: %v", d)
	}
	toolOK(t, "publish_page", callTool(t, cs, "publish_page", map[string]any{"fileId": string(fx.file.ID)}))
	for _, tool := range []string{"get_file", "get_page", "unpublish_page", "list_revisions"} {
		toolProblem(t, tool, callTool(t, cs, tool, map[string]any{"fileId": string(fx.file2.ID)}), 404, "file_not_found")
	}
	toolProblem(t, "save_draft", callTool(t, cs, "save_draft", map[string]any{"fileId": string(fx.file2.ID), "html": validPage}), 404, "file_not_found")
	toolProblem(t, "upload_file", callTool(t, cs, "upload_file", map[string]any{"name": "a.txt", "contentBase64": "aGk="}), 403, "key_scope")
	toolProblem(t, "rename_file", callTool(t, cs, "rename_file", map[string]any{"fileId": string(fx.file.ID), "name": "b.pdf"}), 403, "key_scope")
	toolProblem(t, "delete_file", callTool(t, cs, "delete_file", map[string]any{"fileId": string(fx.file.ID)}), 403, "key_scope")
	if _, err := fx.e.store.FileByID(context.Background(), fx.file.ID); err != nil {
		t.Errorf("the page-bound key's file after a refused delete: %v", err)
	}

	// Another account's file is not found, whatever the tool.
	gen := mustConnect(t, fx.e, fx.general)
	other := string(fx.otherFile.ID)
	for tool, args := range map[string]map[string]any{
		"get_file":       {"fileId": other},
		"get_page":       {"fileId": other},
		"save_draft":     {"fileId": other, "html": validPage},
		"publish_page":   {"fileId": other},
		"unpublish_page": {"fileId": other},
		"get_revision":   {"fileId": other, "revision": 1},
		"delete_file":    {"fileId": other},
		"rename_file":    {"fileId": other, "name": "mine.zip"},
	} {
		toolProblem(t, tool, callTool(t, gen, tool, args), 404, "file_not_found")
	}
	if _, err := fx.e.store.PageByFile(context.Background(), fx.otherFile.ID); !fileframe.IsNotFound(err) {
		t.Errorf("another account's file got a page: %v", err)
	}
	if f, err := fx.e.store.FileByID(context.Background(), fx.otherFile.ID); err != nil || f.Name != fx.otherFile.Name {
		t.Errorf("another account's file after rename and delete: %v %v", f.Name, err)
	}
}

// mcpInitialize is the body of an MCP initialize request.
const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// TestMCPRefusals checks that /mcp refuses as the REST API does, with
// problem+json before MCP starts: no key or a bad one (401 with
// WWW-Authenticate), a Pro account's key (403), a body over the cap
// (413); and that an admitted answer carries the RateLimit headers.
func TestMCPRefusals(t *testing.T) {
	fx := newAPIFixture(t)
	send := func(auth, body string) apiResult {
		t.Helper()
		return fx.send(t, apiRequest{path: mcpPath, auth: auth, body: body})
	}
	checkProblem(t, send("", mcpInitialize), http.StatusUnauthorized, "unauthorized")
	checkProblem(t, send("Bearer "+fx.unknownButOK, mcpInitialize), http.StatusUnauthorized, "unauthorized")
	checkProblem(t, send("Bearer "+fx.revoked, mcpInitialize), http.StatusUnauthorized, "unauthorized")
	checkProblem(t, send("Bearer "+fx.pro, mcpInitialize), http.StatusForbidden, "plan_required")
	checkProblem(t, send("Bearer "+fx.downgraded, mcpInitialize), http.StatusForbidden, "plan_required")
	checkProblem(t, send("Bearer "+fx.general, strings.Repeat(" ", maxMCPBody+1)), http.StatusRequestEntityTooLarge, "body_too_large")
	// Another Content-Type, or an encoded body: 415 in problem+json as
	// the REST API answers, not the SDK's plain text (twenty-first
	// outside attack, row 36).
	for _, ct := range []string{"text/plain", "none", "application/x-www-form-urlencoded"} {
		checkProblem(t, fx.send(t, apiRequest{path: mcpPath, auth: "Bearer " + fx.general, contentType: ct, body: mcpInitialize}), http.StatusUnsupportedMediaType, "unsupported_media_type")
	}
	req, _ := http.NewRequest(http.MethodPost, fx.e.app.URL+mcpPath, strings.NewReader(mcpInitialize))
	req.Header.Set("Authorization", "Bearer "+fx.general)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	if resp, body := fx.e.do(req); resp.StatusCode != http.StatusUnsupportedMediaType || resp.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(body), `"unsupported_content_encoding"`) {
		t.Errorf("gzip body: %d %s %s; want 415 problem+json unsupported_content_encoding", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	// A JSON-RPC batch would be many calls for one token (the outside
	// attack's 150 uploads in one request): refused, nothing done.
	batch := "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upload_file","arguments":{"name":"b.txt","contentBase64":"aGk="}}},`, 3), ",") + "]"
	checkProblem(t, send("Bearer "+fx.general, "\n "+batch), http.StatusBadRequest, "invalid_json")
	if files, _ := fx.e.store.FilesByAccount(t.Context(), fx.agency.ID); len(files) != 2 {
		t.Errorf("after the refused batch the account has %d files, want its 2", len(files))
	}

	// The SDK's client cannot connect with those keys.
	for _, key := range []string{fx.pro, fx.unknownButOK} {
		if cs, err := mcpConnect(fx.e, key, ""); err == nil {
			cs.Close()
			t.Errorf("connected with a refused key %.8s…", key)
		}
	}

	req, _ = http.NewRequest(http.MethodPost, fx.e.app.URL+mcpPath, strings.NewReader(mcpInitialize))
	req.Header.Set("Authorization", "Bearer "+fx.general)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, body := fx.e.do(req)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"serverInfo"`) {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp.Header.Get("RateLimit") == "" || resp.Header.Get("RateLimit-Policy") == "" {
		t.Errorf("initialize: no RateLimit headers: %v", resp.Header)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a stateless server gave a session ID")
	}

	// A request stands alone, as docs/api.md's curl example sends it:
	// tools/list without initialize first.
	req, _ = http.NewRequest(http.MethodPost, fx.e.app.URL+mcpPath, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+fx.general)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, body = fx.e.do(req)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(body), `"name":"save_draft"`) {
		t.Errorf("tools/list alone: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ = http.NewRequest(method, fx.e.app.URL+mcpPath, nil)
		req.Header.Set("Authorization", "Bearer "+fx.general)
		if resp, _ := fx.e.do(req); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s %s: %d, Allow %q; want 405, POST", method, mcpPath, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

// TestMCPRateLimit checks that every request to /mcp takes a token of the
// key's bucket: with a burst of 4, connecting takes one (server/discover),
// and of six parallel calls three are answered and three refused with
// 429, which the client reports without losing its session.
func TestMCPRateLimit(t *testing.T) {
	fx := newAPIFixture(t, func(c *Config) { c.KeyRate, c.KeyBurst = 0.001, 4 })
	cs := mustConnect(t, fx.e, fx.general)
	var mu sync.Mutex
	var ok, limited int
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "check_html", Arguments: map[string]any{"html": validPage}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && !res.IsError:
				ok++
			case err != nil && strings.Contains(err.Error(), "Too Many Requests"):
				limited++
			default:
				t.Errorf("check_html: %v %v", res, err)
			}
		})
	}
	wg.Wait()
	if ok != 3 || limited != 3 {
		t.Errorf("six calls with three tokens left: %d answered, %d refused with 429; want 3 and 3", ok, limited)
	}
	res := fx.send(t, apiRequest{path: mcpPath, auth: "Bearer " + fx.general, body: mcpInitialize})
	checkProblem(t, res, http.StatusTooManyRequests, "rate_limited")
	if res.resp.Header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After")
	}
}

// failingList is a store whose ListFiles fails with a cause that must
// not reach a client.
type failingList struct{ fileframe.Store }

func (failingList) ListFiles(context.Context, fileframe.FileQuery) ([]fileframe.FileListing, error) {
	return nil, errors.New("disk on fire at /var/lib/secret")
}

// TestMCPInternalError checks that a server fault in a tool is an error
// result with code internal whose detail says nothing of the cause, which
// is logged with the request ID, as apiError does; and that the SDK's
// per-request session lines stay out of the log.
func TestMCPInternalError(t *testing.T) {
	fx := newAPIFixture(t, func(c *Config) { c.Store = failingList{c.Store} })
	cs := mustConnect(t, fx.e, fx.general)
	p := toolProblem(t, "list_files", callTool(t, cs, "list_files", nil), 500, "internal")
	if p["detail"] != internalDetail || strings.Contains(resultText(callTool(t, cs, "list_files", nil)), "fire") {
		t.Errorf("internal error detail %q", p["detail"])
	}
	logs := fx.e.logs.String()
	if !strings.Contains(logs, `"msg":"mcp: internal error"`) || !strings.Contains(logs, "disk on fire") || !strings.Contains(logs, `"request_id":"`+p["requestId"].(string)+`"`) {
		t.Errorf("the cause is not logged with the request ID %v:\n%s", p["requestId"], logs)
	}
	if strings.Contains(logs, "session connected") {
		t.Errorf("the SDK's info lines are logged:\n%s", logs)
	}
}

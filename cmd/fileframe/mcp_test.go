package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// badPage breaks the inline.script rule.
const badPage = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Launch</title>
<script src="https://cdn.example.com/app.js"></script></head><body><h1>Launch</h1></body></html>`

// agencyKey makes an Agency account with a general API key on the data in
// dir, with the CLI, and returns the key.
func agencyKey(t *testing.T, dir string) string {
	t.Helper()
	data := []string{"--data", dir}
	mustCLI(t, append([]string{"account", "create", "--email", "agent@example.com", "--plan", "agency"}, data...)...)
	k := cliJSON(t, append([]string{"key", "create", "--email", "agent@example.com"}, data...)...)
	return k["key"].(string)
}

// stdioSession starts `fileframe mcp` with env and connects the SDK's
// client to it over its stdin and stdout.
func stdioSession(t *testing.T, stderr *lockedBuffer, env ...string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(binPath, "mcp")
	cmd.Env = cleanEnv(env...)
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "fileframe-cli-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to fileframe mcp: %v\nstderr: %s", err, stderr)
	}
	return cs, cmd
}

// TestMCPStdio runs `fileframe mcp` against a running server, driven by the
// SDK's client over the process's stdin and stdout: it offers exactly the
// server's tools, forwards calls (results and tools' errors as the server
// gives them), turns the server's refusals (429) into tool errors, and
// exits 0 when the agent closes stdin.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startServe(t, dir, "--key-rate", "0.001", "--key-burst", "12")
	key := agencyKey(t, dir)

	var stderr lockedBuffer
	cs, cmd := stdioSession(t, &stderr, "FILEFRAME_URL="+p.app+"/", "FILEFRAME_KEY="+key)
	ctx := context.Background()
	local, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The same tools, schemas and all, as the server's /mcp lists.
	direct, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             p.app + "/mcp",
		HTTPClient:           mcpHTTPClient(p.app+"/mcp", key),
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatalf("connecting to %s/mcp: %v", p.app, err)
	}
	remote, err := direct.ListTools(ctx, nil)
	direct.Close()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(local.Tools)
	want, _ := json.Marshal(remote.Tools)
	if string(got) != string(want) || len(local.Tools) < 10 {
		t.Errorf("fileframe mcp lists\n%s\nthe server lists\n%s", got, want)
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "publish_page") {
		t.Errorf("instructions not passed on: %q", cs.InitializeResult().Instructions)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "check_html", Arguments: map[string]any{"html": badPage}})
	if err != nil {
		t.Fatal(err)
	}
	check, _ := res.StructuredContent.(map[string]any)
	if res.IsError || check["valid"] != false || check["code"] != "html_invalid" {
		t.Fatalf("check_html of a bad page: %v %v", res.IsError, res.StructuredContent)
	}
	if errs, _ := check["errors"].([]any); len(errs) == 0 || errs[0].(map[string]any)["hint"] == "" {
		t.Errorf("check_html findings without hints: %v", check["errors"])
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "upload_file", Arguments: map[string]any{
		"name": "notes.txt", "contentBase64": base64.StdEncoding.EncodeToString([]byte("notes")),
	}})
	if err != nil || res.IsError {
		t.Fatalf("upload_file: %v %v", err, res)
	}
	up := res.StructuredContent.(map[string]any)
	if resp, body := httpGet(t, up["publicUrl"].(string)+"/download"); resp.StatusCode != http.StatusOK || string(body) != "notes" {
		t.Errorf("the uploaded file's download: %d %q", resp.StatusCode, body)
	}

	// A tool's error comes back as the server made it.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_page", Arguments: map[string]any{"fileId": "f_AAAAAAAAAAAAAAAA"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := problemOf(t, res); p["code"] != "file_not_found" || p["status"] != 404.0 {
		t.Errorf("get_page of no file: %v", p)
	}

	// Once the key's bucket is empty, the server's 429 is a tool error
	// with its problem details, and the session goes on.
	limited := false
	for range 12 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_files"})
		if err != nil {
			t.Fatalf("list_files: %v", err)
		}
		if res.IsError {
			if p := problemOf(t, res); p["code"] != "rate_limited" || !strings.Contains(p["detail"].(string), "Wait") {
				t.Fatalf("list_files: %v", p)
			}
			limited = true
			break
		}
	}
	if !limited {
		t.Errorf("12 more calls with a burst of 12: never rate limited")
	}

	if err := cs.Close(); err != nil {
		t.Errorf("closing: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("fileframe mcp exited %d after stdin closed, want 0; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("serving %d tools of %s/mcp", len(remote.Tools), p.app)) {
		t.Errorf("stderr %q does not say what it serves", stderr.String())
	}
}

// problemOf asserts that res is a tool's error whose text is a problem
// details object, and returns it.
func problemOf(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if !res.IsError || len(res.Content) != 1 {
		t.Fatalf("got %v, want one error content", res)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &p); err != nil {
		t.Fatalf("error text is not JSON: %v: %v", err, res.Content[0])
	}
	return p
}

// TestMCPStdioRefusals checks what `fileframe mcp` says when it cannot
// serve: no server or key (usage, exit 2), a key the server refuses (the
// server's detail, exit 1), never anything on stdout.
func TestMCPStdioRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startServe(t, dir)
	// A server whose /mcp sends elsewhere on its own origin: not followed.
	var followed atomic.Bool
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp" {
			http.Redirect(w, r, "/login", http.StatusTemporaryRedirect)
			return
		}
		if r.URL.Path == "/nowhere/mcp" {
			w.WriteHeader(http.StatusFound) // a redirect without a Location
			return
		}
		followed.Store(true)
		http.Error(w, "not here", http.StatusNotFound)
	}))
	t.Cleanup(redirecting.Close)
	tests := []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"no url", []string{"FILEFRAME_KEY=ffk_x"}, nil, exitUsage, "set FILEFRAME_URL or pass --url"},
		{"no key", []string{"FILEFRAME_URL=" + p.app}, nil, exitUsage, "set FILEFRAME_KEY or pass --key"},
		{"bad url", nil, []string{"--url", "files.example.com", "--key", "ffk_x"}, exitUsage, "want the server's base URL"},
		{"unknown key", nil, []string{"--url", p.app, "--key", "ffk_" + strings.Repeat("a", 40)}, exitError, "(unauthorized): This API key is not known"},
		{"not an api key", []string{"FILEFRAME_URL=" + p.app, "FILEFRAME_KEY=secret"}, nil, exitError, "is not a Fileframe API key"},
		{"redirect", nil, []string{"--url", redirecting.URL, "--key", "ffk_" + strings.Repeat("a", 40)}, exitError, "the server redirected /mcp to /login instead of answering"},
		{"redirect without a location", nil, []string{"--url", redirecting.URL + "/nowhere", "--key", "ffk_" + strings.Repeat("a", 40)}, exitError, "302 Found to /nowhere/mcp, a redirect without a Location"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binPath, append([]string{"mcp"}, tt.args...)...)
			cmd.Env = cleanEnv(tt.env...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
		})
	}
	if followed.Load() {
		t.Error("fileframe mcp followed /mcp's redirect on the same origin")
	}

	// A password in --url is not printed in the line that names the server.
	key := agencyKey(t, dir)
	withUser := strings.Replace(p.app, "http://", "http://ops:hunter2@", 1)
	cmd := exec.Command(binPath, "mcp", "--url", withUser, "--key", key)
	cmd.Env = cleanEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr // stdin is empty: it serves, reads EOF and stops
	if err := cmd.Run(); err != nil {
		t.Fatalf("fileframe mcp with a user in --url: %v; stderr %q", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "serving") || strings.Contains(stderr.String(), "hunter2") {
		t.Errorf("stderr %q: want the serving line, without the password", stderr.String())
	}
	// Nor in a refusal, nor in a usage error.
	for _, args := range [][]string{
		{"--url", withUser, "--key", "ffk_" + strings.Repeat("b", 40)},
		{"--url", withUser + "/?x=1", "--key", key},
		{"--url", "http://ops:hunter2@127.0.0.1:%zz", "--key", key},
	} {
		cmd := exec.Command(binPath, append([]string{"mcp"}, args...)...)
		cmd.Env = cleanEnv()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		cmd.Run()
		if cmd.ProcessState.ExitCode() == 0 || stderr.Len() == 0 || strings.Contains(stderr.String(), "hunter2") {
			t.Errorf("mcp %q: exit %d, stderr %q; want a refusal without the password", args, cmd.ProcessState.ExitCode(), stderr.String())
		}
	}
	if r := runCLI(t, "help"); !slices.ContainsFunc(strings.Split(r.stdout, "\n"), func(l string) bool {
		return strings.HasPrefix(strings.TrimSpace(l), "fileframe mcp ")
	}) {
		t.Errorf("help does not list fileframe mcp:\n%s", r.stdout)
	}
}

// TestMCPStdioBadLines sends `fileframe mcp` lines that are not JSON-RPC
// 2.0 messages, before initialize and after it: each gets one error
// response with id null (-32700 for a line that is not JSON, -32600 for
// the rest), nothing of it is echoed or logged, blank lines get nothing,
// the requests around them are answered, and at EOF it exits 0.
func TestMCPStdioBadLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startServe(t, dir)
	key := agencyKey(t, dir)

	cmd := exec.Command(binPath, "mcp")
	cmd.Env = cleanEnv("FILEFRAME_URL="+p.app, "FILEFRAME_KEY="+key)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	answers := make(chan map[string]any, 100)
	go func() {
		defer close(answers)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"not JSON": sc.Text()}
			}
			answers <- m
		}
	}()
	var got []map[string]any
	await := func(ids ...float64) {
		t.Helper()
		timeout := time.After(time.Minute)
		for _, id := range ids {
			for !slices.ContainsFunc(got, func(m map[string]any) bool { return m["id"] == id }) {
				select {
				case m, ok := <-answers:
					if !ok {
						cmd.Wait()
						t.Fatalf("fileframe mcp ended (exit %d) before answering id %v; answers %v\nstderr:\n%s", cmd.ProcessState.ExitCode(), id, got, stderr.String())
					}
					got = append(got, m)
				case <-timeout:
					t.Fatalf("no answer to id %v in a minute; answers %v\nstderr:\n%s", id, got, stderr.String())
				}
			}
		}
	}
	send := func(lines ...string) {
		t.Helper()
		for _, l := range lines {
			if _, err := io.WriteString(stdin, l+"\n"); err != nil {
				t.Logf("writing to stdin: %v", err) // the process has ended: await says so
				return
			}
		}
	}
	// ping is a ping request with id of exactly n bytes.
	ping := func(id, n int) string {
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"pad":"`, id)
		return head + strings.Repeat("a", n-len(head)-len(`"}}}`)) + `"}}}`
	}
	const secret = "ffk_not-for-any-log"
	const (
		parseError     = -32700
		invalidRequest = -32600
	)
	var want []float64 // the codes of the error responses, in order
	bad := func(line string, code float64) string {
		want = append(want, code)
		return line
	}

	send(
		bad(`{oops "`+secret+`"`, parseError),
		"",
		bad(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, invalidRequest), // a batch, valid before MCP 2025-06-18
		bad(`{"jsonrpc":"1.0","id":2,"method":"ping","params":{"key":"`+secret+`"}}`, invalidRequest),
		bad(ping(3, mcpMaxLine+1), invalidRequest),
		bad(strings.Repeat("x", mcpMaxLine)+`{"jsonrpc":"2.0","id":99,"method":"ping"}`, invalidRequest), // its end is not read as a line
		" \t\r",
		`{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
	)
	await(10)
	send(
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		bad(`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`, invalidRequest),
		bad(`[]`, invalidRequest),
		bad(`42`, invalidRequest),
		bad(`null`, invalidRequest),
		bad(`{"id":6,"method":"ping"}`, invalidRequest),
		bad(`{"jsonrpc":"2.0"}`, invalidRequest),
		bad(`{"jsonrpc":"2.0","id":true,"method":"ping"}`, invalidRequest),
		bad(`{"jsonrpc":"2.0","id":7,"method":"ping"} {"jsonrpc":"2.0","id":8,"method":"ping"}`, parseError),
		"",
		ping(11, mcpMaxLine),
		`  {"jsonrpc":"2.0","id":13,"method":"ping"} `+"\r",
		`{"jsonrpc":"2.0","id":12,"method":"tools/list"}`,
	)
	await(11, 12, 13)
	stdin.Close()
	for m := range answers {
		got = append(got, m)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("fileframe mcp after stdin closed: %v, want exit 0; stderr:\n%s", err, stderr.String())
	}

	var codes []float64
	for _, m := range got {
		if m["jsonrpc"] != "2.0" {
			t.Errorf("answer %v: not JSON-RPC 2.0", m)
		}
		e, isError := m["error"].(map[string]any)
		switch id, hasID := m["id"]; {
		case isError && hasID && id == nil:
			codes = append(codes, e["code"].(float64))
			if msg, _ := e["message"].(string); msg == "" {
				t.Errorf("error %v without a message", e)
			}
		case isError:
			t.Errorf("error answer %v: want id null", m)
		case id != 10.0 && id != 11.0 && id != 12.0 && id != 13.0:
			t.Errorf("answer to id %v: only 10 to 13 are requests", id)
		}
	}
	if !slices.Equal(codes, want) {
		t.Errorf("error codes %v, want %v", codes, want)
	}
	for _, m := range got {
		switch m["id"] {
		case 10.0:
			if r, _ := m["result"].(map[string]any); r["protocolVersion"] != "2025-11-25" {
				t.Errorf("initialize: %v", m)
			}
		case 11.0, 13.0:
			if _, ok := m["result"].(map[string]any); !ok {
				t.Errorf("ping: %v", m)
			}
		case 12.0:
			if r, _ := m["result"].(map[string]any); r == nil || len(r["tools"].([]any)) < 10 {
				t.Errorf("tools/list: %v", m)
			}
		}
	}
	if all := fmt.Sprint(got) + stderr.String(); strings.Contains(all, secret) || strings.Contains(all, "oops") || strings.Contains(stderr.String(), key) {
		t.Errorf("a bad line's content or the key echoed:\nanswers %v\nstderr:\n%s", got, stderr.String())
	}
	if n := strings.Count(stderr.String(), "answered with a JSON-RPC error"); n != len(want) {
		t.Errorf("stderr notes %d bad lines, want %d:\n%s", n, len(want), stderr.String())
	}
}

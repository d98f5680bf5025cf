package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	fileclient "github.com/fileframe/fileframe/internal/client"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runMCP is `fileframe mcp`: an MCP server on stdin and stdout for a local
// agent (a desktop app that starts MCP servers as commands), which
// forwards every call to a Fileframe server's /mcp over HTTP with an API
// key. It lists the server's tools and serves them as they are, so each
// tool has one implementation, the server's. Only MCP goes to stdout;
// what it has to say goes to stderr. A line on stdin that is not a JSON-RPC
// 2.0 message is answered with a JSON-RPC error, and the session goes on
// (mcpStdin).
func runMCP(ctx context.Context, c *CLI, fs *flag.FlagSet, args []string) error {
	urlFlag := fs.String("url", "", "the Fileframe server's base URL, e.g. https://files.example.com (default $FILEFRAME_URL)")
	keyFlag := fs.String("key", "", "an API key of an Agency account, ffk_… or ffp_… (default $FILEFRAME_KEY)")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	endpoint, key, err := c.mcpTarget(*urlFlag, *keyFlag)
	if err != nil {
		return err
	}
	shown := redactURL(endpoint) // what messages name: no password of --url

	version := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		version = info.Main.Version
	}
	// The SDK's own logging says when sessions start and end; only its
	// warnings and errors are worth an agent's log.
	logger := slog.New(slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	client := mcp.NewClient(&mcp.Implementation{Name: "fileframe-mcp", Version: version}, &mcp.ClientOptions{Logger: logger})
	remote, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: mcpHTTPClient(endpoint, key),
		// The server is stateless: it never sends anything unasked.
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		return fmt.Errorf("connecting to %s: %s", shown, refusal(err))
	}
	defer remote.Close()

	info := remote.InitializeResult()
	server := mcp.NewServer(&mcp.Implementation{Name: info.ServerInfo.Name, Title: info.ServerInfo.Title, Version: info.ServerInfo.Version},
		&mcp.ServerOptions{Instructions: info.Instructions, Logger: logger})
	n := 0
	for tool, err := range remote.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing the tools of %s: %s", shown, refusal(err))
		}
		server.AddTool(tool, forward(remote, tool.Name))
		n++
	}
	fmt.Fprintf(c.Stderr, "fileframe mcp: serving %d tools of %s on stdin and stdout\n", n, shown)

	stdout := &mcpStdout{w: c.Stdout}
	err = server.Run(ctx, &mcp.IOTransport{
		Reader: io.NopCloser(newMCPStdin(c.stdin(), stdout, logger)),
		Writer: stdout,
		// A line and its newline, which is what mcpStdin hands on: the SDK's
		// own bound never ends the session.
		MaxLineLength: mcpMaxLine + 1,
	})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil // the agent closed stdin, or the process was told to stop
	}
	return err
}

// mcpTarget returns the MCP endpoint and the key of `fileframe mcp`: the
// flags, else $FILEFRAME_URL and $FILEFRAME_KEY.
func (c *CLI) mcpTarget(base, key string) (endpoint, bearer string, err error) {
	if base == "" {
		base, _ = c.Env("FILEFRAME_URL")
	}
	if key == "" {
		key, _ = c.Env("FILEFRAME_KEY")
	}
	if base == "" {
		return "", "", usagef("no server: set FILEFRAME_URL or pass --url (the server's base URL, e.g. https://files.example.com)")
	}
	u, err := url.Parse(base)
	if err != nil {
		// Not echoed: it may hold a password.
		return "", "", usagef("--url is not a URL: want the server's base URL, http:// or https:// and a host, e.g. https://files.example.com")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", "", usagef("--url %q: want the server's base URL, http:// or https:// and a host, e.g. https://files.example.com", u.Redacted())
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return "", "", usagef("no API key: set FILEFRAME_KEY or pass --key (an API key of an Agency account, made in the app or with `fileframe key create`)")
	}
	return strings.TrimSuffix(u.String(), "/") + "/mcp", key, nil
}

// forward is the handler of a tool of the remote server: the call is sent
// on as it is, and its result (a success or a tool's error) comes back as
// it is. A call the server refuses over HTTP (429 rate_limited, a key
// revoked meanwhile) or that cannot reach it becomes a tool error too, so
// that the agent sees why and can try again.
func forward(remote *mcp.ClientSession, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := remote.CallTool(ctx, &mcp.CallToolParams{Meta: req.Params.Meta, Name: name, Arguments: req.Params.Arguments})
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: problemText(err)}}}, nil
		}
		return res, nil
	}
}

// mcpHTTPClient is the HTTP client of `fileframe mcp`: the key goes to the
// server's origin only, no redirect is followed, and an answer larger
// than client.MaxAnswer is an error, not memory spent on it.
//
// /mcp answers where it is; a redirect means the URL is not the server's
// app origin (a proxy's sign-in page, another path), and following one,
// even on the same origin, would send a call's POST on as a GET without
// its body, as the remote commands' client refuses to (internal/client).
func mcpHTTPClient(endpoint, key string) *http.Client {
	own, _ := url.Parse(endpoint)
	return &http.Client{
		Transport: keyTransport{key: key, origin: own, base: fileclient.CappedTransport(http.DefaultTransport)},
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if !fileclient.SameOrigin(r.URL, own) {
				return fmt.Errorf("the server redirected to %s, another origin; the key is not sent there", r.URL.Redacted())
			}
			return fmt.Errorf("the server redirected %s to %s instead of answering; is --url the server's app origin?", via[len(via)-1].URL.Path, r.URL.Path)
		},
	}
}

// keyTransport sends the API key with every request to the server, and
// turns a refusal in problem+json (401, 403, 413, 429, …) into an error
// that carries the problem, so that its detail reaches the user instead
// of a bare status text.
type keyTransport struct {
	key    string
	origin *url.URL // the only origin the key is sent to
	base   http.RoundTripper
}

// How keyTransport rides out a server that answers 503 with Retry-After
// (busy, or its database or file storage out of reach for a moment): at
// most mcpRetries more tries, each after its Retry-After if that is at
// most mcpMaxWait.
const (
	mcpRetries = 5
	mcpMaxWait = 10 * time.Second
)

func (k keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if k.origin != nil && fileclient.SameOrigin(r.URL, k.origin) {
		r.Header.Set("Authorization", "Bearer "+k.key)
	}
	resp, err := k.base.RoundTrip(r)
	// The server answers 503 before it runs anything of the request (the
	// key's check, or the request's admission, could not be made), and a
	// tool's own failure is a tool result, never an HTTP status: a 503
	// can be sent again, body and all, as `fileframe remote` does.
	for try := 0; err == nil && resp.StatusCode == http.StatusServiceUnavailable && try < mcpRetries; try++ {
		wait, ok := fileclient.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
		if !ok || wait > mcpMaxWait || (r.Body != nil && r.GetBody == nil) {
			break
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-time.After(wait):
		}
		again := r.Clone(r.Context())
		if r.GetBody != nil {
			if again.Body, err = r.GetBody(); err != nil {
				return nil, err
			}
		}
		resp, err = k.base.RoundTrip(again)
	}
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") == "" {
		// A redirect to nowhere, which http.Client hands back as an
		// answer rather than to CheckRedirect: refused as any redirect.
		resp.Body.Close()
		return nil, fmt.Errorf("the server answered %s to %s, a redirect without a Location, instead of answering; is --url the server's app origin?", resp.Status, r.URL.Path)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode < 400 || mt != "application/problem+json" {
		return resp, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: reading its answer: %w", resp.Status, err)
	}
	p := &problemError{status: resp.Status, body: bytes.TrimSpace(body)}
	if json.Unmarshal(body, &p.problem) != nil || p.problem.Code == "" {
		return nil, fmt.Errorf("%s: %s", resp.Status, body)
	}
	return nil, p
}

// problemError is a request the server refused with problem details.
type problemError struct {
	status  string
	body    []byte
	problem struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	}
}

func (e *problemError) Error() string {
	return fmt.Sprintf("%s (%s): %s", e.status, e.problem.Code, e.problem.Detail)
}

// refusal is what a user reads of err: the server's status, code and
// detail when it refused the request, else the error.
func refusal(err error) string {
	var p *problemError
	if errors.As(err, &p) {
		return p.Error()
	}
	return err.Error()
}

// problemText is what an agent reads of err in a tool's error result: the
// server's problem details object (JSON, as a tool's own errors carry it)
// when it refused the request, else the error.
func problemText(err error) string {
	var p *problemError
	if errors.As(err, &p) {
		return string(p.body)
	}
	return err.Error()
}

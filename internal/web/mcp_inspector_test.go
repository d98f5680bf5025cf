package web

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// mcpInspectorDir holds a real MCP client from outside this repository,
// @modelcontextprotocol/inspector-cli (on the TypeScript SDK), pinned by
// package-lock.json; `npm ci` there installs it into node_modules (not
// committed).
const mcpInspectorDir = "testdata/mcp-inspector"

const mcpInspectorHint = "TestMCPInspectorCLI needs Node.js 20 or later and @modelcontextprotocol/inspector-cli in " +
	"internal/web/" + mcpInspectorDir + "/node_modules; scripts/ensure-mcp-inspector installs them " +
	"(apt-get install -y nodejs npm; npm ci in that folder)"

// inspectorResult is what `inspector --cli` prints for tools/list and
// tools/call: the JSON-RPC result.
type inspectorResult struct {
	Tools []struct {
		Name         string         `json:"name"`
		InputSchema  map[string]any `json:"inputSchema"`
		OutputSchema map[string]any `json:"outputSchema"`
	} `json:"tools"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

// TestMCPInspectorCLI drives /mcp with the MCP Inspector's CLI, the way a
// person checks an MCP server by hand: tools/list, and tools/call of
// check_html, save_draft and a call that fails, with the key in an
// Authorization header. The TypeScript SDK under it checks structured
// content against each tool's output schema, errors included: an error
// result must carry none. It fails, never skips, without Node.js or the
// package.
func TestMCPInspectorCLI(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("no node on PATH: %v\n%s", err, mcpInspectorHint)
	}
	cli, err := filepath.Abs(filepath.Join(mcpInspectorDir, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("%v\n%s", err, mcpInspectorHint)
	}
	fx := newAPIFixture(t)
	inspect := func(args ...string) inspectorResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		all := append([]string{cli, "--cli", fx.e.app.URL + mcpPath, "--transport", "http",
			"--header", "Authorization: Bearer " + fx.general}, args...)
		cmd := exec.CommandContext(ctx, node, all...)
		// The CLI finds its package.json by testing "../package.json"
		// against the working directory but importing it relative to its
		// own file (build/index.js); in its own build directory both name
		// the same file.
		cmd.Dir = filepath.Dir(cli)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("inspector %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.Bytes(), stderr.Bytes())
		}
		var res inspectorResult
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("inspector %v: stdout is not a JSON result: %v\n%s\nstderr: %s", args, err, stdout.Bytes(), stderr.Bytes())
		}
		return res
	}

	list := inspect("--method", "tools/list")
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema["type"] != "object" || tool.OutputSchema["type"] != "object" {
			t.Errorf("%s: input schema %v, output schema %v", tool.Name, tool.InputSchema, tool.OutputSchema)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, mcpToolNames) {
		t.Errorf("tools/list: %v, want %v", names, mcpToolNames)
	}

	check := inspect("--method", "tools/call", "--tool-name", "check_html", "--tool-arg", "html="+pageWithExternalScript)
	if check.IsError || check.StructuredContent["valid"] != false || check.StructuredContent["code"] != "html_invalid" {
		t.Fatalf("check_html of a bad page: %+v", check)
	}
	checkFindings(t, "errors", check.StructuredContent["errors"])

	saved := inspect("--method", "tools/call", "--tool-name", "save_draft",
		"--tool-arg", "fileId="+string(fx.file.ID), "--tool-arg", "html="+validPage)
	if saved.IsError || saved.StructuredContent["revision"] != 1.0 || saved.StructuredContent["published"] != false {
		t.Errorf("save_draft: %+v", saved)
	}

	bad := inspect("--method", "tools/call", "--tool-name", "save_draft",
		"--tool-arg", "fileId="+string(fx.file.ID), "--tool-arg", "html="+pageWithExternalScript)
	if !bad.IsError || len(bad.Content) != 1 || bad.StructuredContent != nil {
		t.Fatalf("save_draft of a bad page: %+v", bad)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(bad.Content[0].Text), &p); err != nil || p["code"] != "html_invalid" {
		t.Fatalf("save_draft of a bad page: error text %q (%v)", bad.Content[0].Text, err)
	}
	checkFindings(t, "errors", p["errors"])
}

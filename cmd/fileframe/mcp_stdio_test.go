package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// testMCPStdin is an mcpStdin on in with lines of at most max bytes and a
// 16-byte read buffer, so that lines come in pieces; its answers go to out.
func testMCPStdin(in io.Reader, out io.Writer, max int) *mcpStdin {
	return &mcpStdin{r: bufio.NewReaderSize(in, 16), out: &mcpStdout{w: out}, log: slog.New(slog.DiscardHandler), max: max}
}

func TestMCPStdin(t *testing.T) {
	const (
		ping  = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		parse = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}` + "\n"
		batch = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a JSON-RPC batch; send one message a line (MCP 2025-06-18 dropped batches)"}}` + "\n"
		bad   = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: not a JSON-RPC request, notification or response with \"jsonrpc\":\"2.0\""}}` + "\n"
		long  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a line longer than 64 bytes"}}` + "\n"
	)
	tests := []struct {
		name, in    string
		sdk, stdout string // what the SDK reads, what is answered on stdout
	}{
		{"a request", ping + "\n", ping + "\n", ""},
		{"a notification and a response", `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":"a","result":{}}` + "\n",
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":"a","result":{}}` + "\n", ""},
		{"white space cut", " \t" + ping + " \r\n", ping + "\n", ""},
		{"the last line without its newline", ping + "\n" + ping, ping + "\n" + ping + "\n", ""},
		{"blank lines", "\n \n\r\n\t\n" + ping + "\n\n", ping + "\n", ""},
		{"nothing", "", "", ""},
		{"not JSON", "{oops\n" + ping + "\n", ping + "\n", parse},
		{"two messages on a line", `{"jsonrpc":"2.0","method":"a"} {"jsonrpc":"2.0","method":"b"}` + "\n", "", parse},
		{"a message over two lines", "{\"jsonrpc\":\"2.0\",\n\"method\":\"ping\"}\n", "", parse + parse},
		{"a batch", "[" + ping + "]\n" + ping + "\n", ping + "\n", batch},
		{"an empty batch", "[]\n", "", batch},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}` + "\n" + ping + "\n", ping + "\n", bad},
		{"no jsonrpc", `{"id":1,"method":"ping"}` + "\n", "", bad},
		{"JSONRPC", `{"JSONRPC":"2.0","id":1,"method":"ping"}` + "\n", "", bad},
		{"not an object", "42\nnull\n\"ping\"\ntrue\n", "", bad + bad + bad + bad},
		{"an id that is an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}` + "\n", "", bad},
		{"a method that is a number", `{"jsonrpc":"2.0","id":1,"method":1}` + "\n", "", bad},
		{"neither request nor response", `{"jsonrpc":"2.0"}` + "\n", "", bad},
		{"a line of 64 bytes", pad64 + "\n", pad64 + "\n", ""},
		{"a line of 65 bytes", pad64 + " \n" + ping + "\n", ping + "\n", long},
		{"a long line with a message at its end", strings.Repeat("x", 64) + ping + "\n" + ping + "\n", ping + "\n", long},
		{"a long last line without its newline", ping + "\n" + strings.Repeat("x", 200), ping + "\n", long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout bytes.Buffer
			sdk, err := io.ReadAll(iotest.OneByteReader(testMCPStdin(strings.NewReader(tt.in), &stdout, 64)))
			if err != nil {
				t.Fatalf("reading: %v", err)
			}
			if string(sdk) != tt.sdk {
				t.Errorf("the SDK reads\n%q\nwant\n%q", sdk, tt.sdk)
			}
			if stdout.String() != tt.stdout {
				t.Errorf("stdout\n%q\nwant\n%q", stdout.String(), tt.stdout)
			}
		})
	}
}

// pad64 is a ping of 64 bytes.
const pad64 = `{"jsonrpc":"2.0","id":123,"method":"ping","params":{"_meta":{}}}`

func TestMCPStdinErrors(t *testing.T) {
	// A line cut off by a failing stdin is not handed on.
	broken := errors.New("stdin broke")
	in := io.MultiReader(strings.NewReader(pad64+"\n{\"jsonrpc\":\"2.0\""), &failOnce{err: broken})
	s := testMCPStdin(in, io.Discard, 64)
	got, err := io.ReadAll(s)
	if want := pad64 + "\n"; string(got) != want || !errors.Is(err, broken) {
		t.Errorf("got %q, %v; want %q, %v", got, err, want, broken)
	}
	if n, err := s.Read(make([]byte, 8)); n != 0 || !errors.Is(err, broken) {
		t.Errorf("read again: %d, %v; want 0, %v", n, err, broken)
	}
	// An answer that cannot be written ends the reading.
	closed := errors.New("stdout closed")
	got, err = io.ReadAll(testMCPStdin(strings.NewReader("{oops\n"+pad64+"\n"), errWriter{closed}, 64))
	if len(got) != 0 || !errors.Is(err, closed) {
		t.Errorf("got %q, %v; want nothing, %v", got, err, closed)
	}
}

// failOnce fails once, then ends.
type failOnce struct{ err error }

func (f *failOnce) Read([]byte) (int, error) {
	err := f.err
	if err == nil {
		return 0, io.EOF
	}
	f.err = nil
	return 0, err
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// FuzzMCPStdin checks that whatever comes on stdin, the SDK reads only
// JSON-RPC messages of at most max bytes, one a line, and every other
// line is answered with a parse error or an invalid request, id null.
func FuzzMCPStdin(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"{oops\n\n[1]\r\n" + pad64 + "\n",
		`{"jsonrpc":"1.0","id":1,"method":"ping"} ` + "\n" + strings.Repeat("x", 70),
		`{"jsonrpc":"2.0","id":1,"result":{}}{}` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var stdout bytes.Buffer
		sdk, err := io.ReadAll(testMCPStdin(bytes.NewReader(in), &stdout, 64))
		if err != nil {
			t.Fatal(err)
		}
		handed := 0
		if len(sdk) > 0 {
			if sdk[len(sdk)-1] != '\n' {
				t.Fatalf("the SDK reads %q: not a line", sdk)
			}
			for _, line := range bytes.Split(sdk[:len(sdk)-1], []byte("\n")) {
				if _, err := jsonrpc.DecodeMessage(line); err != nil || len(line) > 64 || len(bytes.TrimSpace(line)) != len(line) {
					t.Fatalf("the SDK reads %q: %v", line, err)
				}
				handed++
			}
		}
		answered := 0
		for _, line := range strings.SplitAfter(stdout.String(), "\n") {
			if line == "" {
				continue
			}
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   jsonrpc.Error   `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" || string(m.ID) != "null" ||
				(m.Error.Code != jsonrpc.CodeParseError && m.Error.Code != jsonrpc.CodeInvalidRequest) || !strings.HasSuffix(line, "\n") {
				t.Fatalf("answer %q: %v", line, err)
			}
			answered++
		}
		if lines := bytes.Count(in, []byte("\n")) + 1; handed+answered > lines {
			t.Fatalf("%d lines handed on and %d answered of %d", handed, answered, lines)
		}
	})
}

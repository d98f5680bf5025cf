package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpMaxLine is the longest line `fileframe mcp` takes on stdin, its
// newline not counted: the SDK's own bound, as much as the server's /mcp
// takes in a request's body (internal/web's maxMCPBody).
const mcpMaxLine = mcp.DefaultMaxLineLength

// mcpStdin is stdin for the MCP transport: it hands the SDK only lines
// that are JSON-RPC 2.0 messages, and answers any other line itself with
// a JSON-RPC error, so that the session goes on. The SDK ends a session
// on the first message it cannot read (go-sdk's ioConn.Read: any error
// ends jsonrpc2's read loop), where JSON-RPC 2.0 answers with an error
// and MCP's stdio transport delimits messages with newlines
// (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#stdio).
//
// A line is checked with the SDK's own decoder, jsonrpc.DecodeMessage,
// so what is handed on is what the SDK reads; it goes on as it came, white
// space around it cut (the SDK's framing takes nothing after a message
// but its newline), followed by a newline, and is read out of Read before
// the next line is read, so the SDK's frame never spans two lines. The
// answers:
//
//   - a line that is not JSON: -32700 Parse error;
//   - a JSON array, a JSON-RPC batch: -32600 Invalid Request, once for the
//     array. MCP 2025-06-18 dropped batches and the SDK ends the session on
//     one from then on; earlier versions allowed them, but the SDK's batch
//     bookkeeping ends the session on ids reused across batches, so none
//     is handed on;
//   - any other JSON the SDK cannot read as a request, a notification or
//     a response (no "jsonrpc":"2.0", not an object, an id that is neither
//     a string nor a number, …): -32600 Invalid Request;
//   - a line longer than max: -32600 Invalid Request; it is read to its
//     newline, at most max+1 bytes of it kept, and its rest is not a line.
//
// Every answer has "id": null, as JSON-RPC 2.0 says when the id could not
// be read, and is the same whatever the line held: nothing of a line is
// echoed or logged, as it may hold a key or a file. Blank lines are
// skipped. At the end of stdin Read returns io.EOF, as the SDK expects.
type mcpStdin struct {
	r    *bufio.Reader
	out  *mcpStdout
	log  *slog.Logger
	max  int
	buf  []byte // the line being read
	n    int    // the lines read, for the log
	rest []byte // what the SDK has not yet read of the last good line
	err  error  // from stdin, or from writing an answer: Read's from now on
}

func newMCPStdin(r io.Reader, out *mcpStdout, log *slog.Logger) *mcpStdin {
	return &mcpStdin{r: bufio.NewReaderSize(r, 64<<10), out: out, log: log, max: mcpMaxLine}
}

// Read is io.Reader's: the next good line and its newline, a line at a
// time.
func (s *mcpStdin) Read(p []byte) (int, error) {
	for len(s.rest) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		line, long, err := s.readLine()
		if s.err = err; err != nil && !errors.Is(err, io.EOF) {
			continue // a line cut off by a failing stdin is no line
		}
		if len(line) == 0 && !long {
			continue
		}
		if code, message := s.check(line, long); code != 0 {
			s.log.Warn("fileframe mcp: a line on stdin is not a JSON-RPC 2.0 message; answered with a JSON-RPC error", "line", s.n, "code", code)
			if err := s.out.answer(code, message); err != nil {
				s.err = fmt.Errorf("answering line %d of stdin: %w", s.n, err)
			}
			continue
		}
		s.rest = append(line, '\n')
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

// readLine reads the next line of stdin, white space around it cut. A
// line longer than s.max is read to its end but not kept: long is true.
// The error is stdin's, io.EOF at its end; the last line may lack its
// newline.
func (s *mcpStdin) readLine() (line []byte, long bool, err error) {
	if cap(s.buf) > 1<<20 {
		s.buf = nil // a long line's room is not kept for the session
	}
	s.buf = s.buf[:0]
	s.n++
	for {
		chunk, err := s.r.ReadSlice('\n')
		if !long && len(s.buf)+len(chunk) <= s.max+1 { // the line and its newline
			s.buf = append(s.buf, chunk...)
		} else {
			long = true
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if content := bytes.TrimSuffix(s.buf, []byte("\n")); long || len(content) > s.max {
			return nil, true, err
		}
		return bytes.TrimSpace(s.buf), false, err
	}
}

// check returns the JSON-RPC error code and message that answer a line,
// or 0 for a line the SDK can read.
func (s *mcpStdin) check(line []byte, long bool) (code int64, message string) {
	switch {
	case long:
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a line longer than %d bytes", s.max)
	case !json.Valid(line):
		return jsonrpc.CodeParseError, "Parse error: the line is not JSON"
	case line[0] == '[':
		return jsonrpc.CodeInvalidRequest, "Invalid Request: a JSON-RPC batch; send one message a line (MCP 2025-06-18 dropped batches)"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return jsonrpc.CodeInvalidRequest, `Invalid Request: not a JSON-RPC request, notification or response with "jsonrpc":"2.0"`
	}
	return 0, ""
}

// mcpStdout is stdout for the MCP transport, written by the SDK and by
// mcpStdin's answers: one message and its newline a Write (as go-sdk's
// ioConn.Write does), one Write at a time, so that messages never mix. It
// closes nothing: the process's stdout stays open when the transport ends.
type mcpStdout struct {
	mu sync.Mutex
	w  io.Writer
}

func (o *mcpStdout) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.w.Write(p)
}

func (o *mcpStdout) Close() error { return nil }

// answer writes a JSON-RPC error response with id null.
func (o *mcpStdout) answer(code int64, message string) error {
	data, err := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", nil, &jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return err
	}
	_, err = o.Write(append(data, '\n'))
	return err
}

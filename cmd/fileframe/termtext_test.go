package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestTermText(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf":                     "report.pdf",
		"a\tb\nc":                        "a\tb\nc",
		"\x1b]0;PWNED\x07title":          "\uFFFD]0;PWNED\uFFFDtitle",
		"\x1b[2J":                        "\uFFFD[2J",
		"line\rover":                     "line\uFFFDover",
		"c1\u009b31m":                    "c1\uFFFD31m",
		"invoice\u202efdp.exe":           "invoice\uFFFDfdp.exe",
		"日本語 ✓":                          "日本語 ✓",
		"\x1b]8;;http://evil.example/\a": "\uFFFD]8;;http://evil.example/\uFFFD",
	} {
		if got := termText(in); got != want {
			t.Errorf("termText(%q) = %q, want %q", in, got, want)
		}
	}
	// A C1 control split between two writes.
	var b bytes.Buffer
	w := &termWriter{w: &b}
	w.Write([]byte("x\xc2"))
	w.Write([]byte("\x9by"))
	if b.String() != "x\uFFFDy" {
		t.Errorf("split C1: got %q", b.String())
	}
}

// TestRemoteTextIsNotTerminalInput: names and details from a server are
// printed without the escape sequences a hostile server puts in them (the
// outside attack set the window title, cleared the screen and planted a
// hidden link through `remote files`); --json stays exact.
func TestRemoteTextIsNotTerminalInput(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/files":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"ok":true,"files":[{"id":"f_a","name":"\u001b]0;PWNED\u0007\u001b[2J\u001b]8;;http://evil.example/\u001b\\name\u202e","size":1,"type":"x","slug":"s","url":"/f/s","publicUrl":"http://x/f/s","page":"/files/f_a","downloads":0,"createdAt":"2026-01-01T00:00:00Z","customPage":{"state":"none","liveRevision":null,"latestRevision":null}}],"nextCursor":null}`))
		default:
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(404)
			w.Write([]byte(`{"type":"x","title":"t","status":404,"detail":"\u001b[2Jgone","ok":false,"code":"file_not_found","errors":[],"requestId":"r"}`))
		}
	}))
	defer srv.Close()
	run := func(args ...string) (string, string) {
		var stdout, stderr bytes.Buffer
		c := &CLI{Stdout: &stdout, Stderr: &stderr, Env: envOf("FILEFRAME_URL", srv.URL, "FILEFRAME_KEY", "ffk_"+strings.Repeat("a", 40))}
		c.Run(context.Background(), append([]string{"remote"}, args...))
		return stdout.String(), stderr.String()
	}
	out, _ := run("files")
	if strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, "name") {
		t.Errorf("remote files printed terminal input: %q", out)
	}
	out, _ = run("files", "--json")
	if !strings.Contains(out, `\u001b]0;PWNED`) {
		t.Errorf("--json changed the server's name: %q", out)
	}
	_, errOut := run("file", "f_b")
	if strings.Contains(errOut, "\x1b") || !strings.Contains(errOut, "gone") {
		t.Errorf("the error's detail reached the terminal as is: %q", errOut)
	}
}

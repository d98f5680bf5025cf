package main

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/postgres/pgtest"
)

// TestServeDatabaseOutOfReach takes serve's PostgreSQL out of reach (a
// proxy in between ends every connection and refuses new ones) and brings
// it back. Meanwhile every surface answers 503 with Retry-After and says
// what is wrong, never 500; /readyz reports the store unavailable; an
// upload is refused whole; the log has warnings, no error. When the
// database is back, the same process serves again, and the binary's
// client, started during the outage, gets its answer by retrying.
func TestServeDatabaseOutOfReach(t *testing.T) {
	t.Parallel()
	proxy := pgtest.NewProxy(t, newTestDatabase(t))
	env := []string{"FILEFRAME_DATABASE_URL=" + proxy.URL, "FILEFRAME_OPS_TOKEN=" + scaleOpsToken}
	data := t.TempDir() // the CLI's and serve's: the file's bytes are on its disk
	cliData := []string{"--data", data}
	cli := func(args ...string) map[string]any {
		t.Helper()
		return cliJSONEnv(t, env, append(args, cliData...)...)
	}
	cli("account", "create", "--email", "agent@example.com", "--plan", "agency")
	src := filepath.Join(t.TempDir(), "brief.txt")
	if err := os.WriteFile(src, []byte("the brief"), 0o644); err != nil {
		t.Fatal(err)
	}
	slug := cli("file", "add", src, "--email", "agent@example.com")["slug"].(string)
	key := cli("key", "create", "--email", "agent@example.com")["key"].(string)
	p := startServeEnv(t, env, data)

	api := func(method, path string, body []byte, contentType string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, p.app+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		return httpDo(t, req)
	}
	countFiles := func() int {
		t.Helper()
		resp, body := api(http.MethodGet, "/api/files", nil, "")
		var list struct{ Files []json.RawMessage }
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &list) != nil {
			t.Fatalf("GET /api/files: %d %s", resp.StatusCode, body)
		}
		return len(list.Files)
	}
	if n := countFiles(); n != 1 {
		t.Fatalf("GET /api/files lists %d files, want 1", n)
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, _ := mw.CreateFormFile("file", "during-the-outage.txt")
	part.Write([]byte("sent while the database was away"))
	mw.Close()

	proxy.Cut()
	unavailable := func(what string, resp *http.Response, body []byte, in string) {
		t.Helper()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), in) {
			t.Errorf("%s with the database out of reach: %d, Retry-After %q, body:\n%s\nwant 503 with Retry-After and %q",
				what, resp.StatusCode, resp.Header.Get("Retry-After"), body, in)
		}
	}
	resp, body := api(http.MethodGet, "/api/files", nil, "")
	unavailable("GET /api/files", resp, body, `"code":"unavailable"`)
	resp, body = api(http.MethodPost, "/api/files", form.Bytes(), mw.FormDataContentType())
	unavailable("POST /api/files", resp, body, `"code":"unavailable"`)
	resp, body = httpGet(t, p.app+"/f/"+slug)
	unavailable("GET /f/<slug>", resp, body, "database is out of reach")
	resp, body = httpGet(t, p.app+"/f/"+slug+"/download")
	unavailable("GET /f/<slug>/download", resp, body, "database is out of reach")
	resp, body = httpGet(t, p.app+"/login")
	unavailable("GET /login", resp, body, "database is out of reach")
	resp, body = httpGet(t, p.app+"/readyz", "Authorization", "Bearer "+scaleOpsToken)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"store":"unavailable"`) {
		t.Errorf("GET /readyz with the database out of reach: %d %s, want 503 with the store unavailable", resp.StatusCode, body)
	}

	// The client, started now, retries on 503 after Retry-After (2 s): the
	// database is back before its retries run out.
	clientDone := make(chan cliResult, 1)
	go func() {
		clientDone <- remoteRun(t, []string{"FILEFRAME_URL=" + p.app, "FILEFRAME_KEY=" + key, "HOME=" + t.TempDir()}, "remote", "files", "--json")
	}()
	time.Sleep(time.Second)
	proxy.Restore()
	r := <-clientDone
	if r.code != 0 || !strings.Contains(r.stdout, `"ok":true`) {
		t.Errorf("fileframe remote files across the outage: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if n := countFiles(); n != 1 {
		t.Errorf("after the outage, GET /api/files lists %d files, want 1: the refused upload stored nothing", n)
	}
	resp, body = httpGet(t, p.app+"/f/"+slug)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /f/<slug> after the outage: %d %s", resp.StatusCode, body)
	}
	for line := range strings.SplitSeq(p.stderr.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("serve logged an error for an outage of the database, a warning's matter: %s", line)
		}
	}
	if !strings.Contains(p.stderr.String(), "database out of reach: a request was answered 503") {
		t.Errorf("serve did not warn that it answered 503 for the database; stderr:\n%s", p.stderr)
	}
}

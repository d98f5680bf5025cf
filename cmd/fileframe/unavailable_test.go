package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/faultproxy"
	"github.com/fileframe/fileframe/internal/postgres/pgtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeDatabaseOutOfReach takes serve's PostgreSQL out of reach (a
// proxy in between ends every connection and refuses new ones) and brings
// it back. Meanwhile every surface answers 503 with Retry-After and says
// what is wrong, never 500; /readyz reports the store unavailable; an
// upload is refused whole; the log has warnings, no error. When the
// database is back, the same process serves again, and the binary's
// clients, `remote` and `mcp`, started during the outage, get their
// answers by retrying.
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
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"store":"unavailable"`) || resp.Header.Get("Retry-After") == "" {
		t.Errorf("GET /readyz with the database out of reach: %d, Retry-After %q, %s; want 503 with Retry-After and the store unavailable",
			resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// What can be no link's is not found, whether or not the database
	// answers.
	for _, path := range []string{"/f/a.b", "/f/a.b/download", "/f/%2e%2e", "/f/" + strings.Repeat("x", 3000), "/f/a%2Fb"} {
		if resp, body := httpGet(t, p.app+path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %.40s with the database out of reach: %d %.200s, want 404", path, resp.StatusCode, body)
		}
	}

	// The client, started now, retries on 503 after Retry-After (2 s): the
	// database is back before its retries run out.
	// So does `fileframe mcp`, which lists the server's tools as it starts.
	clientDone := make(chan cliResult, 1)
	go func() {
		clientDone <- remoteRun(t, []string{"FILEFRAME_URL=" + p.app, "FILEFRAME_KEY=" + key, "HOME=" + t.TempDir()}, "remote", "files", "--json")
	}()
	var mcpStderr lockedBuffer
	mcpTools := make(chan error, 1)
	go func() {
		cmd := exec.Command(binPath, "mcp")
		cmd.Env = cleanEnv("FILEFRAME_URL="+p.app, "FILEFRAME_KEY="+key)
		cmd.Stderr = &mcpStderr
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "outage-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			mcpTools <- fmt.Errorf("connecting: %w", err)
			return
		}
		defer cs.Close()
		tools, err := cs.ListTools(ctx, nil)
		if err == nil && len(tools.Tools) < 10 {
			err = fmt.Errorf("%d tools, want the server's", len(tools.Tools))
		}
		mcpTools <- err
	}()
	time.Sleep(time.Second)
	proxy.Restore()
	r := <-clientDone
	if r.code != 0 || !strings.Contains(r.stdout, `"ok":true`) {
		t.Errorf("fileframe remote files across the outage: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if err := <-mcpTools; err != nil {
		t.Errorf("fileframe mcp started in the outage: %v; stderr:\n%s", err, mcpStderr.String())
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
	if !strings.Contains(p.stderr.String(), "database or file storage out of reach: a request was answered 503") {
		t.Errorf("serve did not warn that it answered 503 for the database; stderr:\n%s", p.stderr)
	}
}

// TestServeS3OutOfReach takes serve's S3 server out of reach (a proxy in
// between ends every connection and refuses new ones) and brings it back.
// Meanwhile a download, an upload and every tus request are 503 with
// Retry-After, and no answer names the S3 server, its bucket or tusd's
// store (tusd sends a store's error text as its body); /readyz reports the
// blobs unavailable; the log has warnings, no error. When the server is
// back, the tus upload begun before the outage resumes from where it was
// and its file downloads whole.
func TestServeS3OutOfReach(t *testing.T) {
	t.Parallel()
	s3srv := startS3(t)
	proxy := faultproxy.New(t, strings.TrimPrefix(s3srv.endpoint, "http://"))
	through := s3srv
	through.endpoint = "http://" + proxy.Addr
	s3env := s3Env(t, through)
	env := append(s3env, "FILEFRAME_DATABASE_URL="+newTestDatabase(t), "FILEFRAME_OPS_TOKEN="+scaleOpsToken)
	var bucket string
	for _, kv := range s3env {
		if b, ok := strings.CutPrefix(kv, "FILEFRAME_S3_BUCKET="); ok {
			bucket = b
		}
	}
	p, key := startAgencyServe(t, env)

	do := func(method, url string, body []byte, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, url, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return httpDo(t, req)
	}
	content := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	resp, body := do(http.MethodPost, p.app+"/api/files?name=kept.bin", content, "Content-Type", "application/octet-stream")
	var kept struct{ Slug string }
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &kept) != nil {
		t.Fatalf("POST /api/files: %d %s", resp.StatusCode, body)
	}
	tus := func(method, url string, body []byte, header ...string) (*http.Response, []byte) {
		t.Helper()
		return do(method, url, body, append(header, "Tus-Resumable", "1.0.0")...)
	}
	resp, body = tus(http.MethodPost, p.app+"/uploads/tus/", nil, "Upload-Length", strconv.Itoa(len(content)),
		"Upload-Metadata", "filename "+base64.StdEncoding.EncodeToString([]byte("resumed.bin")))
	upload := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusCreated || upload == "" {
		t.Fatalf("tus POST: %d %s", resp.StatusCode, body)
	}
	half := len(content) / 2
	patch := func(from, to int) (*http.Response, []byte) {
		t.Helper()
		return tus(http.MethodPatch, upload, content[from:to], "Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(from))
	}
	if resp, body := patch(0, half); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("tus PATCH of the first half: %d %s", resp.StatusCode, body)
	}

	proxy.Cut()
	unavailable := func(what string, resp *http.Response, body []byte) {
		t.Helper()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s with S3 out of reach: %d, Retry-After %q, body:\n%s\nwant 503 with Retry-After", what, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		for _, secret := range []string{proxy.Addr, s3srv.endpoint, bucket, "s3store", "operation error"} {
			if strings.Contains(string(body), secret) {
				t.Errorf("%s with S3 out of reach: the answer shows %q:\n%s", what, secret, body)
			}
		}
	}
	resp, body = httpGet(t, p.app+"/f/"+kept.Slug+"/download")
	unavailable("GET /f/<slug>/download", resp, body)
	resp, body = do(http.MethodPost, p.app+"/api/files?name=refused.bin", content[:1000], "Content-Type", "application/octet-stream")
	unavailable("POST /api/files", resp, body)
	resp, body = tus(http.MethodPost, p.app+"/uploads/tus/", nil, "Upload-Length", "10",
		"Upload-Metadata", "filename "+base64.StdEncoding.EncodeToString([]byte("new.bin")))
	unavailable("tus POST", resp, body)
	resp, body = tus(http.MethodHead, upload, nil)
	unavailable("tus HEAD", resp, body)
	resp, body = patch(half, len(content))
	unavailable("tus PATCH", resp, body)
	resp, body = httpGet(t, p.app+"/readyz", "Authorization", "Bearer "+scaleOpsToken)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"blobs":"unavailable"`) {
		t.Errorf("GET /readyz with S3 out of reach: %d %s, want 503 with the blobs unavailable", resp.StatusCode, body)
	}

	proxy.Restore()
	resp, _ = tus(http.MethodHead, upload, nil)
	if got := resp.Header.Get("Upload-Offset"); resp.StatusCode != http.StatusOK || got != strconv.Itoa(half) {
		t.Fatalf("tus HEAD once S3 is back: %d, Upload-Offset %q, want 200 and %d", resp.StatusCode, got, half)
	}
	resp, body = patch(half, len(content))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("tus PATCH of the second half once S3 is back: %d %s", resp.StatusCode, body)
	}
	resp, body = do(http.MethodGet, p.app+"/api/files", nil)
	var list struct {
		Files []struct{ Name, Slug string }
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &list) != nil {
		t.Fatalf("GET /api/files: %d %s", resp.StatusCode, body)
	}
	names := map[string]string{}
	for _, f := range list.Files {
		names[f.Name] = f.Slug
	}
	if len(names) != 2 || names["kept.bin"] == "" || names["resumed.bin"] == "" {
		t.Fatalf("files after the outage: %v, want kept.bin and resumed.bin only", names)
	}
	for _, slug := range names {
		if resp, got := httpGet(t, p.app+"/f/"+slug+"/download"); resp.StatusCode != http.StatusOK || !bytes.Equal(got, content) {
			t.Errorf("download of %s after the outage: %d, %d bytes, want the %d sent", slug, resp.StatusCode, len(got), len(content))
		}
	}
	for line := range strings.SplitSeq(p.stderr.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("serve logged an error for an outage of S3, a warning's matter: %s", line)
		}
	}
}

// TestServeTusLockLost takes PostgreSQL out of reach while two tus PATCHes
// stream. The instance's tus locks live on one database connection; the
// first query on it after the cut (the second PATCH's unlock) finds it
// lost, and with it every lock, so the request still holding one must
// stop. It was answered tusd's 400 ERR_UPLOAD_INTERRUPTED, which tells
// the client that it sent a newer request itself and which tus clients
// do not retry; it is 503 ERR_UNAVAILABLE with Retry-After, and the upload
// resumes from its acknowledged offset once the database is back.
func TestServeTusLockLost(t *testing.T) {
	t.Parallel()
	proxy := pgtest.NewProxy(t, newTestDatabase(t))
	env := []string{"FILEFRAME_DATABASE_URL=" + proxy.URL}
	p, key := startAgencyServe(t, env)

	content := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	const sent = 64 << 10
	tusReq := func(method, url string, body io.Reader, header ...string) *http.Request {
		t.Helper()
		req, err := http.NewRequest(method, url, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Tus-Resumable", "1.0.0")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return req
	}
	create := func(name string) string {
		t.Helper()
		resp, body := httpDo(t, tusReq(http.MethodPost, p.app+"/uploads/tus/", nil, "Upload-Length", strconv.Itoa(len(content)),
			"Upload-Metadata", "filename "+base64.StdEncoding.EncodeToString([]byte(name))))
		if resp.StatusCode != http.StatusCreated || resp.Header.Get("Location") == "" {
			t.Fatalf("tus POST: %d %s", resp.StatusCode, body)
		}
		return resp.Header.Get("Location")
	}
	uploadA, uploadB := create("a.bin"), create("b.bin")
	type answer struct {
		resp *http.Response
		body []byte
		err  error
	}
	// streaming starts a PATCH from offset 0 whose body is what is then
	// written to the returned pipe.
	streaming := func(upload string) (*io.PipeWriter, chan answer) {
		pr, pw := io.Pipe()
		done := make(chan answer, 1)
		go func() {
			req := tusReq(http.MethodPatch, upload, pr, "Content-Type", "application/offset+octet-stream", "Upload-Offset", "0")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- answer{err: err}
				return
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			done <- answer{resp, body, err}
		}()
		if _, err := pw.Write(content[:sent]); err != nil {
			t.Fatal(err)
		}
		return pw, done
	}
	pwA, doneA := streaming(uploadA)
	pwB, doneB := streaming(uploadB)
	defer pwA.Close()
	time.Sleep(500 * time.Millisecond) // both PATCHes hold their locks

	proxy.Cut()
	pwB.Close() // B's PATCH ends; its unlock finds the lock connection lost
	b := <-doneB
	if b.err != nil || b.resp.StatusCode != http.StatusNoContent {
		t.Fatalf("PATCH of B, ended by its client: %+v %s, want 204", b.resp, b.body)
	}
	var a answer
	select {
	case a = <-doneA:
	case <-time.After(10 * time.Second):
		t.Fatal("PATCH of A still running 10 s after its lock was lost")
	}
	if a.err != nil {
		t.Fatalf("PATCH of A: %v", a.err)
	}
	if a.resp.StatusCode != http.StatusServiceUnavailable || a.resp.Header.Get("Retry-After") == "" || !strings.Contains(string(a.body), "ERR_UNAVAILABLE") {
		t.Errorf("PATCH of A whose lock went with the database connection: %d, Retry-After %q, %s; want 503 ERR_UNAVAILABLE with Retry-After",
			a.resp.StatusCode, a.resp.Header.Get("Retry-After"), a.body)
	}

	proxy.Restore()
	var offset int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, body := httpDo(t, tusReq(http.MethodHead, uploadA, nil))
		if resp.StatusCode == http.StatusOK {
			offset, _ = strconv.Atoi(resp.Header.Get("Upload-Offset"))
			break
		}
		if resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("HEAD of A once the database is back: %d %s", resp.StatusCode, body)
		}
	}
	if offset > sent {
		t.Fatalf("A's offset is %d, more than the %d bytes sent", offset, sent)
	}
	resp, body := httpDo(t, tusReq(http.MethodPatch, uploadA, bytes.NewReader(content[offset:]),
		"Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(offset)))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("PATCH of the rest of A from %d: %d %s", offset, resp.StatusCode, body)
	}
	link := resp.Header.Get("Fileframe-File-Url")
	if resp, got := httpGet(t, link+"/download"); resp.StatusCode != http.StatusOK || !bytes.Equal(got, content) {
		t.Errorf("download of A (%q): %d, %d bytes, want the %d sent", link, resp.StatusCode, len(got), len(content))
	}
	for line := range strings.SplitSeq(p.stderr.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("serve logged an error for an outage of the database, a warning's matter: %s", line)
		}
	}
}

// startAgencyServe starts serve with env on a data directory of its own,
// with an Agency account made first by the CLI, and returns it and a
// general API key of the account.
func startAgencyServe(t *testing.T, env []string) (*serveProc, string) {
	t.Helper()
	data := t.TempDir()
	cli := func(args ...string) map[string]any {
		t.Helper()
		return cliJSONEnv(t, env, append(args, "--data", data)...)
	}
	cli("account", "create", "--email", "agent@example.com", "--plan", "agency")
	key := cli("key", "create", "--email", "agent@example.com")["key"].(string)
	return startServeEnv(t, env, data), key
}

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/blob/s3/s3test"
	"github.com/fileframe/fileframe/internal/postgres/pgtest"
)

// The scale-out test needs a real PostgreSQL server and a real S3 server.
// It never skips without them: it fails, saying how to get them.

// newTestDatabase creates a fresh database on the PostgreSQL test server
// (pgtest), drops it when the test ends and returns its URL.
func newTestDatabase(t *testing.T) string {
	t.Helper()
	return pgtest.NewDatabase(t, "fileframe_scale_")
}

// s3Server is an S3 server for the test.
type s3Server struct{ endpoint, accessKey, secretKey string }

// startS3 returns the server named by FILEFRAME_TEST_S3_ENDPOINT (with
// FILEFRAME_TEST_S3_ACCESS_KEY and _SECRET_KEY), or starts versitygw, from
// PATH or $(go env GOPATH)/bin, on a free loopback port for the test.
func startS3(t *testing.T) s3Server {
	t.Helper()
	if ep := os.Getenv("FILEFRAME_TEST_S3_ENDPOINT"); ep != "" {
		s := s3Server{ep, os.Getenv("FILEFRAME_TEST_S3_ACCESS_KEY"), os.Getenv("FILEFRAME_TEST_S3_SECRET_KEY")}
		if s.accessKey == "" || s.secretKey == "" {
			t.Fatalf("FILEFRAME_TEST_S3_ENDPOINT is set but FILEFRAME_TEST_S3_ACCESS_KEY or FILEFRAME_TEST_S3_SECRET_KEY is not")
		}
		return s
	}
	srv, err := s3test.Start(t.TempDir())
	if err != nil {
		t.Fatalf("%v\n%s", err, s3test.InstallHint)
	}
	t.Cleanup(func() { srv.Stop() })
	return s3Server{srv.Endpoint, srv.AccessKey, srv.SecretKey}
}

// runCLIEnv is runCLI with extra variables in the environment.
func runCLIEnv(t *testing.T, env []string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = cleanEnv(env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running fileframe %s: %v", strings.Join(args, " "), err)
	}
	r := cliResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	if r.code != 0 {
		t.Fatalf("fileframe %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// cliJSONEnv is cliJSON with extra variables in the environment.
func cliJSONEnv(t *testing.T, env []string, args ...string) map[string]any {
	t.Helper()
	r := runCLIEnv(t, env, append(args, "--json")...)
	var v map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("fileframe %s: stdout is not JSON: %v\n%s", strings.Join(args, " "), err, r.stdout)
	}
	return v
}

// TestScaleOut runs instances of `fileframe serve` as processes on one
// PostgreSQL database and one S3 bucket (issue 5), with the admin CLI
// beside them on the same backends: what is done through one instance is
// seen at once through the other.
// scaleOpsToken lets the scale-out test read /readyz on the app origin.
const scaleOpsToken = "scale-test-ops-token-0123456789"

// s3Env is the environment that puts an instance's blobs in a fresh
// bucket of s3srv, its secret in a file.
func s3Env(t *testing.T, s3srv s3Server) []string {
	t.Helper()
	secretFile := filepath.Join(t.TempDir(), "s3-secret")
	if err := os.WriteFile(secretFile, []byte(s3srv.secretKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{
		"FILEFRAME_S3_ENDPOINT=" + s3srv.endpoint,
		"FILEFRAME_S3_BUCKET=fileframe-scale-" + strings.ToLower(rand.Text()[:12]),
		"FILEFRAME_S3_ACCESS_KEY=" + s3srv.accessKey,
		"FILEFRAME_S3_SECRET_KEY_FILE=" + secretFile,
		"FILEFRAME_S3_PATH_STYLE=true",
	}
}

// scaleEnv starts a fresh PostgreSQL database and an S3 server for a
// scale test, and returns the environment that points serve and the CLI
// at them, and a runner of admin commands (--json) on them. The backends
// come from the environment, the secret from a file, as an operator would
// set them; every instance gets a data directory of its own, which none of
// them uses.
func scaleEnv(t *testing.T) (db string, s3srv s3Server, env []string, cli func(args ...string) map[string]any) {
	t.Helper()
	db = newTestDatabase(t)
	s3srv = startS3(t)
	env = append(s3Env(t, s3srv), "FILEFRAME_DATABASE_URL="+db, "FILEFRAME_OPS_TOKEN="+scaleOpsToken)
	cliData := []string{"--data", t.TempDir()}
	cli = func(args ...string) map[string]any {
		t.Helper()
		return cliJSONEnv(t, env, append(args, cliData...)...)
	}
	return db, s3srv, env, cli
}

func TestScaleOut(t *testing.T) {
	t.Parallel()
	db, s3srv, env, cli := scaleEnv(t)

	// The CLI works against PostgreSQL and S3 before any server runs;
	// migrate brings the fresh database to the newest schema.
	// (002 adds the shared rate limits; later migrations may follow.)
	if v, _ := cli("migrate")["schemaVersion"].(float64); v < 2 {
		t.Errorf("migrate on PostgreSQL: schemaVersion %v, want at least 2", v)
	}
	cli("account", "create", "--email", "agent@example.com", "--plan", "agency")
	fileBytes := make([]byte, 300<<10)
	mrand.NewChaCha8([32]byte{5}).Read(fileBytes)
	src := filepath.Join(t.TempDir(), "Quarterly report.bin")
	if err := os.WriteFile(src, fileBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	f := cli("file", "add", src, "--email", "agent@example.com")
	fileID, slug := f["fileId"].(string), f["slug"].(string)
	pageKey := cli("key", "create", "--email", "agent@example.com", "--file", fileID)["key"].(string)
	general := cli("key", "create", "--email", "agent@example.com")

	// A small burst, refilled slowly, so that the test can exhaust it.
	limits := []string{"--key-burst", "2", "--key-rate", "0.01"}
	a := startServeEnv(t, env, t.TempDir(), limits...)
	b := startServeEnv(t, env, t.TempDir(), limits...)
	for _, p := range []*serveProc{a, b} {
		if !strings.HasPrefix(p.store, "PostgreSQL at ") || !strings.HasPrefix(p.blobs, "S3 bucket fileframe-scale-") {
			t.Errorf("serve prints store %q and blobs %q, want PostgreSQL and S3", p.store, p.blobs)
		}
		if strings.Contains(p.store+p.blobs+p.stderr.String(), s3srv.secretKey) {
			t.Errorf("serve printed the S3 secret key")
		}
		resp, body := httpGet(t, p.app+"/readyz", "Authorization", "Bearer "+scaleOpsToken)
		if want := `{"status":"ok","checks":{"store":"ok","blobs":"ok"},"backends":{"store":"postgres","blobs":"s3"}}`; resp.StatusCode != 200 || strings.TrimSpace(string(body)) != want {
			t.Errorf("GET /readyz: %d %s, want 200 %s", resp.StatusCode, body, want)
		}
	}

	// A page posted through A is served by B: the outer page and the bytes
	// on B's content origin.
	if status, res := postPage(t, a.app, pageKey, true); status != http.StatusOK || res["published"] != true {
		t.Fatalf("POST custom-html through A = %d %v, want 200 published", status, res)
	}
	frame := outerPage(t, b, slug)
	if resp, body := httpGet(t, frame, "Sec-Fetch-Dest", "iframe"); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "fileframe-serve-test-page") {
		t.Fatalf("GET %s (B's content origin) as an iframe: %d, body lacks the page:\n%s", frame, resp.StatusCode, body)
	}

	// A download through B is the file the CLI added, byte for byte.
	download(t, b, slug, fileBytes)

	// A resumable upload stalled on A is finished through B.
	resumeOnAnotherInstance(t, db, a, b, cli)
	// Nor can one account pair its object with another's multipart upload.
	foreignMultipartID(t, a, cli)
	longerChunkedPatch(t, a, cli)

	// The key's burst of 2: one POST above through A, one more through A;
	// then B refuses, because the bucket is shared.
	if status, res := postPage(t, a.app, pageKey, true); status != http.StatusOK {
		t.Fatalf("second POST through A = %d %v, want 200 (burst of 2)", status, res)
	}
	body, _ := json.Marshal(map[string]any{"html": testPage, "publish": true})
	req, _ := http.NewRequest(http.MethodPost, b.app+"/api/campaign/custom-html", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+pageKey)
	req.Header.Set("Content-Type", "application/json")
	resp, raw := httpDo(t, req)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("POST through B after A used the burst = %d %s, want 429", resp.StatusCode, raw)
	}
	if ra := resp.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("429 from B: Retry-After %q, want seconds to wait", ra)
	}

	// An Idempotency-Key kept by A answers the retry sent to B: the same
	// answer, and no second revision (its revision number says so).
	idemKey := cli("key", "create", "--email", "agent@example.com")["key"].(string)
	idem := func(p *serveProc) (*http.Response, []byte) {
		body, _ := json.Marshal(map[string]any{"html": testPage + "<!-- idem -->", "publish": true})
		req, _ := http.NewRequest(http.MethodPost, p.app+"/api/files/"+fileID+"/page/revisions", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+idemKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "scale-out-retry")
		return httpDo(t, req)
	}
	r1, b1 := idem(a)
	r2, b2 := idem(b)
	if r1.StatusCode != http.StatusCreated || r2.StatusCode != http.StatusCreated || !bytes.Equal(b1, b2) || r2.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry through B of a POST through A: %d %s / %d %q %s, want the same 201 replayed",
			r1.StatusCode, b1, r2.StatusCode, r2.Header.Get("Idempotent-Replayed"), b2)
	}

	// A key used through B, then revoked, is refused by B at once.
	generalKey := general["key"].(string)
	if status, res := postPageFor(t, b.app, generalKey, fileID); status != http.StatusOK {
		t.Fatalf("POST with the general key through B = %d %v, want 200", status, res)
	}
	cli("key", "revoke", "--email", "agent@example.com", general["keyId"].(string))
	for _, p := range []*serveProc{b, a} {
		if status, res := postPageFor(t, p.app, generalKey, fileID); status != http.StatusUnauthorized {
			t.Fatalf("POST with the revoked key through %s = %d %v, want 401", p.app, status, res)
		}
	}

	// With --download-redirect, a third instance sends the download to the
	// S3 server, which returns the same bytes under the file's name.
	c := startServeEnv(t, env, t.TempDir(), "--download-redirect")
	resp, _ = httpGet(t, c.app+"/f/"+slug+"/download")
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, s3srv.endpoint+"/") {
		t.Fatalf("download through C = %d to %q, want 302 to the S3 server %s", resp.StatusCode, loc, s3srv.endpoint)
	}
	resp, got := httpGet(t, loc)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, fileBytes) {
		t.Fatalf("GET the presigned URL = %d, %d bytes; want 200 and the %d bytes added", resp.StatusCode, len(got), len(fileBytes))
	}
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
	if err != nil || params["filename"] != "Quarterly report.bin" {
		t.Errorf("presigned download's Content-Disposition %q, want an attachment named Quarterly report.bin", resp.Header.Get("Content-Disposition"))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/octet-stream" {
		t.Errorf("presigned download's Content-Type %q, want application/octet-stream", ct)
	}
	// HEAD stays on the instance, headers only.
	req, _ = http.NewRequest(http.MethodHead, c.app+"/f/"+slug+"/download", nil)
	if resp, _ := httpDo(t, req); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Length") != fmt.Sprint(len(fileBytes)) {
		t.Errorf("HEAD through C = %d, Content-Length %q; want 200, %d", resp.StatusCode, resp.Header.Get("Content-Length"), len(fileBytes))
	}

	// Link controls (issue 12): expiry and one-time links on every instance.
	linksAcrossInstances(t, db, a, b, c, cli)

	for _, p := range []*serveProc{a, b, c} {
		p.stop()
		p.checkJSONLogs()
	}
}

// postPageFor posts the test page for fileID with a general key.
func postPageFor(t *testing.T, app, key, fileID string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"html": testPage, "publish": true, "fileId": fileID})
	req, _ := http.NewRequest(http.MethodPost, app+"/api/campaign/custom-html", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, b := httpDo(t, req)
	var v map[string]any
	json.Unmarshal(b, &v)
	return resp.StatusCode, v
}

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"html"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// testPage is a small, valid, complete custom page.
const testPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Quarterly report</title>
<style>body { font-family: system-ui, sans-serif; margin: 2rem; }</style>
</head>
<body>
<h1>Your quarterly report is ready</h1>
<p>Marker: fileframe-serve-test-page.</p>
</body>
</html>
`

// postPage posts html to the API with key and returns the status and body.
func postPage(t *testing.T, app, key string, publish bool) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"html": testPage, "publish": publish})
	req, _ := http.NewRequest(http.MethodPost, app+"/api/campaign/custom-html", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, b := httpDo(t, req)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("POST custom-html: %d, body is not JSON: %q", resp.StatusCode, b)
	}
	return resp.StatusCode, v
}

var iframeSrc = regexp.MustCompile(`<iframe[^>]*\ssrc="([^"]+)"`)

// outerPage fetches /f/<slug> and returns the address its iframe shows.
func outerPage(t *testing.T, p *serveProc, slug string) string {
	t.Helper()
	resp, body := httpGet(t, p.app+"/f/"+slug)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /f/%s: %d", slug, resp.StatusCode)
	}
	m := iframeSrc.FindSubmatch(body)
	if m == nil {
		t.Fatalf("GET /f/%s has no iframe:\n%s", slug, body)
	}
	src := html.UnescapeString(string(m[1]))
	if !strings.HasPrefix(src, p.content+"/") {
		t.Fatalf("iframe src %q is not on the content origin %s", src, p.content)
	}
	return src
}

// download fetches the file and checks it is byte-identical to want.
func download(t *testing.T, p *serveProc, slug string, want []byte) {
	t.Helper()
	resp, body := httpGet(t, p.app+"/f/"+slug+"/download")
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want) {
		t.Fatalf("download: %d, %d bytes; want 200 and the %d bytes added", resp.StatusCode, len(body), len(want))
	}
}

// TestServe runs the server as a process and the admin CLI beside it on the
// same data: publish a page with a CLI-made key, revoke the key, download,
// shut down with SIGTERM, restart.
func TestServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startServe(t, dir)

	app, err := url.Parse(p.app)
	if err != nil || app.Scheme != "http" || app.Hostname() != "127.0.0.1" || app.Port() == "0" {
		t.Fatalf("app origin %q, want http://127.0.0.1:<port>", p.app)
	}
	// The content origin is another site than the app's (ports do not
	// count): localhost.
	content, err := url.Parse(p.content)
	if err != nil || content.Hostname() != "localhost" || content.Port() == "0" || content.Port() == app.Port() {
		t.Fatalf("content origin %q, want http://localhost:<another port>", p.content)
	}
	if abs, _ := filepath.Abs(dir); p.store != "SQLite "+filepath.Join(abs, "fileframe.db") || p.blobs != "disk "+filepath.Join(abs, "blobs") {
		t.Errorf("store and blobs lines %q, %q; want SQLite and disk in %q", p.store, p.blobs, abs)
	}

	// The CLI, while the server runs.
	data := []string{"--data", dir}
	mustCLI(t, append([]string{"account", "create", "--email", "agent@example.com", "--plan", "agency"}, data...)...)
	fileBytes := make([]byte, 200<<10)
	rand.NewChaCha8([32]byte{1}).Read(fileBytes)
	src := filepath.Join(t.TempDir(), "deck.bin")
	if err := os.WriteFile(src, fileBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	f := cliJSON(t, append([]string{"file", "add", src, "--email", "agent@example.com"}, data...)...)
	fileID, slug := f["fileId"].(string), f["slug"].(string)
	k := cliJSON(t, append([]string{"key", "create", "--email", "agent@example.com", "--file", fileID}, data...)...)
	key := k["key"].(string)

	status, res := postPage(t, p.app, key, true)
	if status != http.StatusOK || res["ok"] != true || res["published"] != true || res["url"] != "/f/"+slug {
		t.Fatalf("POST custom-html = %d %v; want 200, ok, published, url /f/%s", status, res, slug)
	}
	frame := outerPage(t, p, slug)
	resp, body := httpGet(t, frame, "Sec-Fetch-Dest", "iframe")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "fileframe-serve-test-page") {
		t.Fatalf("GET %s as an iframe: %d, body lacks the page:\n%s", frame, resp.StatusCode, body)
	}
	// localhost is both loopback addresses: whichever a browser tries, it
	// reaches this content origin.
	hosts := []string{"127.0.0.1"}
	if l, err := net.Listen("tcp", "[::1]:0"); err == nil {
		l.Close()
		hosts = append(hosts, "[::1]")
	}
	for _, host := range hosts {
		u := strings.Replace(frame, "localhost", host, 1)
		if resp, body := httpGet(t, u, "Sec-Fetch-Dest", "iframe"); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "fileframe-serve-test-page") {
			t.Errorf("GET %s as an iframe: %d, want the page", u, resp.StatusCode)
		}
	}

	// A revocation by the CLI takes effect at once.
	mustCLI(t, append([]string{"key", "revoke", "--email", "agent@example.com", k["keyId"].(string)}, data...)...)
	if status, res := postPage(t, p.app, key, true); status != http.StatusUnauthorized {
		t.Fatalf("POST with a revoked key = %d %v, want 401", status, res)
	}

	download(t, p, slug, fileBytes)
	download(t, p, slug, fileBytes)

	start := time.Now()
	p.stop()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("shutdown took %s, want a few seconds", d)
	}
	p.checkJSONLogs()

	// Restarted on the same data, the page is still published.
	p2 := startServe(t, dir)
	frame2 := outerPage(t, p2, slug)
	if resp, body := httpGet(t, frame2, "Sec-Fetch-Dest", "iframe"); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "fileframe-serve-test-page") {
		t.Errorf("after restart, GET %s: %d", frame2, resp.StatusCode)
	}
	p2.stop()

	// The downloads were counted and survived the shutdown.
	store := openTestStore(t, dir)
	file, err := store.FileByID(context.Background(), fileframe.FileID(fileID))
	if err != nil {
		t.Fatal(err)
	}
	if file.Downloads != 2 {
		t.Errorf("Downloads = %d after two downloads and a shutdown, want 2", file.Downloads)
	}
}

// TestServeContentOriginOnOneListener checks that --content-origin without
// --content-addr serves both origins on the app listener, told apart by
// Host.
func TestServeContentOriginOnOneListener(t *testing.T) {
	t.Parallel()
	p := startServe(t, t.TempDir(), "--content-origin", "http://usercontent.example.test")
	if p.content != "http://usercontent.example.test" {
		t.Fatalf("content line %q, want the configured origin", p.content)
	}
	req, _ := http.NewRequest(http.MethodGet, p.app+"/healthz", nil)
	req.Host = "usercontent.example.test"
	resp, _ := httpDo(t, req)
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") {
		t.Errorf("a request for the content host got CSP %q, want the content origin's sandbox CSP", csp)
	}
	if resp, _ := httpGet(t, p.app+"/healthz"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz on the app host: %d, want 200", resp.StatusCode)
	}
	p.stop()
}

// TestServeShutdownFinishesDownload starts a slow download, sends SIGTERM
// while it is in flight, and checks that the download completes byte for
// byte before the server exits 0.
func TestServeShutdownFinishesDownload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startServe(t, dir)
	data := []string{"--data", dir}
	mustCLI(t, append([]string{"account", "create", "--email", "big@example.com"}, data...)...)
	// Far larger than the loopback socket buffers, so most of it is still to
	// be sent when the signal arrives.
	big := make([]byte, 32<<20)
	rand.NewChaCha8([32]byte{2}).Read(big)
	src := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(src, big, 0o644); err != nil {
		t.Fatal(err)
	}
	f := cliJSON(t, append([]string{"file", "add", src, "--email", "big@example.com"}, data...)...)

	resp, err := http.Get(p.app + "/f/" + f["slug"].(string) + "/download")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("download: %d", resp.StatusCode)
	}
	h := sha256.New()
	if _, err := io.CopyN(h, resp.Body, 1<<20); err != nil {
		t.Fatal(err)
	}
	p.signal(syscall.SIGTERM)
	buf := make([]byte, 256<<10)
	n := int64(1 << 20)
	signalled := time.Now()
	for {
		m, err := resp.Body.Read(buf)
		h.Write(buf[:m])
		n += int64(m)
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("download cut off after %d of %d bytes: %v", n, len(big), err)
		}
		if time.Since(signalled) < 500*time.Millisecond {
			select {
			case <-p.done:
				t.Fatalf("serve exited with a download in flight (%d of %d bytes read)", n, len(big))
			default:
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if want := sha256.Sum256(big); n != int64(len(big)) || !bytes.Equal(h.Sum(nil), want[:]) {
		t.Fatalf("downloaded %d bytes with a different hash, want the %d bytes added", n, len(big))
	}
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("serve exited %d, want 0; stderr:\n%s", code, p.stderr)
	}
}

// TestServeSlowHeadersTimeout checks that a client sending its headers a
// byte at a time is disconnected after --read-header-timeout.
func TestServeSlowHeadersTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 500 * time.Millisecond
	p := startServe(t, t.TempDir(), "--read-header-timeout", timeout.String())
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.app, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	closed := make(chan time.Duration, 1)
	go func() {
		io.Copy(io.Discard, conn) // returns when the server hangs up
		closed <- time.Since(start)
	}()
	request := "GET /healthz HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("X-Slow: yes\r\n", 100)
	ticker := time.NewTicker(50 * time.Millisecond)
	defer ticker.Stop()
	for i := 0; ; i++ {
		select {
		case d := <-closed:
			if d < timeout-50*time.Millisecond {
				t.Fatalf("disconnected after %s, before the %s timeout", d, timeout)
			}
			// The server still serves others.
			if resp, _ := httpGet(t, p.app+"/healthz"); resp.StatusCode != http.StatusOK {
				t.Errorf("GET /healthz after the slow client: %d", resp.StatusCode)
			}
			p.stop()
			return
		case <-ticker.C:
			if i >= len(request) || time.Since(start) > 10*time.Second {
				t.Fatalf("still connected after %s of slow headers, want a hang-up after %s", time.Since(start), timeout)
			}
			conn.Write([]byte{request[i]}) // fails once the server has hung up
		}
	}
}

// TestServeOpsListener: with --ops-addr the operations endpoints are on a
// listener of their own, and the app origin keeps only /healthz.
func TestServeOpsListener(t *testing.T) {
	t.Parallel()
	p := startServe(t, t.TempDir(), "--ops-addr", "127.0.0.1:0")
	ops, ok := strings.CutSuffix(p.ops, " (/healthz, /readyz, /metrics)")
	if !ok || !strings.HasPrefix(ops, "http://127.0.0.1:") {
		t.Fatalf("ops line %q, want the listener's URL", p.ops)
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if resp, _ := httpGet(t, ops+path); resp.StatusCode != http.StatusOK {
			t.Errorf("ops %s: %d, want 200", path, resp.StatusCode)
		}
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 404, "/metrics": 404} {
		if resp, _ := httpGet(t, p.app+path); resp.StatusCode != want {
			t.Errorf("app %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	p.stop()
	p.checkJSONLogs()

	// Without either, the banner says where the endpoints are not.
	q := startServe(t, t.TempDir())
	if !strings.HasPrefix(q.ops, "none") {
		t.Errorf("ops line without --ops-addr: %q", q.ops)
	}
	q.stop()
}

// TestServeShutdownTimeoutExitsZero: a download whose client stops reading
// is cut off when --shutdown-timeout ends, with a warning, and serve still
// exits 0 as the README says: nothing stored was lost (issue 15, item 5).
func TestServeShutdownTimeoutExitsZero(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startServe(t, dir, "--shutdown-timeout", "1s")
	data := []string{"--data", dir}
	mustCLI(t, append([]string{"account", "create", "--email", "stall@example.com"}, data...)...)
	big := make([]byte, 32<<20)
	src := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(src, big, 0o644); err != nil {
		t.Fatal(err)
	}
	f := cliJSON(t, append([]string{"file", "add", src, "--email", "stall@example.com"}, data...)...)
	resp, err := http.Get(p.app + "/f/" + f["slug"].(string) + "/download")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.CopyN(io.Discard, resp.Body, 1<<20); err != nil {
		t.Fatal(err)
	}
	// The client reads no more: the download cannot finish.
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("serve exited %d after cutting off a stalled download, want 0; stderr:\n%s", code, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "shutdown timed out") {
		t.Errorf("no warning about the cut-off request in the log:\n%s", p.stderr)
	}
}

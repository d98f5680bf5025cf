package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// keyTus speaks the tus protocol to the test server with an API key in
// Authorization and, when b is set, that browser's cookies as well.
type keyTus struct {
	e   *testEnv
	key string
	b   *appBrowser
}

func (c keyTus) request(method, url string, body io.Reader, header ...string) (*http.Response, string) {
	c.e.t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		c.e.t.Fatal(err)
	}
	req.Header.Set("Tus-Resumable", "1.0.0")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if c.b != nil {
		return c.b.send(req)
	}
	resp, raw := c.e.do(req)
	return resp, string(raw)
}

func (c keyTus) createResp(name string, size int) (*http.Response, string) {
	meta := "filename " + base64.StdEncoding.EncodeToString([]byte(name))
	return c.request(http.MethodPost, c.e.app.URL+tusBasePath, nil,
		"Upload-Length", strconv.Itoa(size), "Upload-Metadata", meta)
}

func (c keyTus) create(name string, size int) string {
	c.e.t.Helper()
	resp, body := c.createResp(name, size)
	if resp.StatusCode != http.StatusCreated {
		c.e.t.Fatalf("tus POST with a key: got %d, want 201: %s", resp.StatusCode, body)
	}
	return resp.Header.Get("Location")
}

func (c keyTus) patch(url string, offset int, chunk []byte) (*http.Response, string) {
	c.e.t.Helper()
	return c.request(http.MethodPatch, url, bytes.NewReader(chunk),
		"Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(offset))
}

func (c keyTus) offset(url string) int {
	c.e.t.Helper()
	resp, body := c.request(http.MethodHead, url, nil)
	if resp.StatusCode != http.StatusOK {
		c.e.t.Fatalf("tus HEAD with a key: got %d, want 200: %s", resp.StatusCode, body)
	}
	n, err := strconv.Atoi(resp.Header.Get("Upload-Offset"))
	if err != nil {
		c.e.t.Fatalf("tus HEAD: Upload-Offset %q", resp.Header.Get("Upload-Offset"))
	}
	return n
}

// tusProblem checks that a tus answer is the API's problem+json with the
// given status and code.
func tusProblem(t *testing.T, resp *http.Response, body string, status int, code string) {
	t.Helper()
	res := apiResult{resp: resp, raw: []byte(body)}
	if err := json.Unmarshal(res.raw, &res.body); err != nil {
		t.Fatalf("answer %d is not JSON: %v\n%s", resp.StatusCode, err, body)
	}
	checkProblem(t, res, status, code)
}

// TestTusWithKey uploads with a general key of an Agency account, as the
// client in the binary does: create, patch, a dropped connection, HEAD,
// resume, complete; no CSRF token and no cookie anywhere.
func TestTusWithKey(t *testing.T) {
	uploads := t.TempDir()
	e := newTestEnv(t, withUploads(uploads))
	a := e.account(fileframe.PlanAgency)
	key, _ := e.key(a, "")
	c := keyTus{e: e, key: key}
	content := randomBytes(t, 300<<10)
	url := c.create("deck.pdf", len(content))
	if !strings.HasPrefix(url, e.app.URL+tusBasePath+string(a.ID)+".") {
		t.Errorf("Location: got %q, want an upload of account %s", url, a.ID)
	}
	first := 100 << 10
	resp, body := c.patch(url, 0, content[:first])
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Upload-Offset") != strconv.Itoa(first) {
		t.Fatalf("first PATCH: got %d offset %q: %s", resp.StatusCode, resp.Header.Get("Upload-Offset"), body)
	}
	if off := c.offset(url); off != first {
		t.Fatalf("HEAD: offset %d, want %d", off, first)
	}

	// A PATCH that drops after 50 KiB, then a resume from the server's
	// offset.
	binPath := filepath.Join(uploads, path.Base(url))
	arrived := func() bool { return fileSize(binPath) == int64(first+50<<10) }
	req, _ := http.NewRequest(http.MethodPatch, url, &failingBody{bytes.NewReader(content[first : first+50<<10]), arrived})
	req.ContentLength = int64(len(content) - first)
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/offset+octet-stream")
	req.Header.Set("Upload-Offset", strconv.Itoa(first))
	if resp, err := http.DefaultTransport.RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Fatalf("interrupted PATCH: got %d, want a failed request", resp.StatusCode)
	}
	off := c.offset(url)
	if off != first+50<<10 {
		t.Fatalf("offset after the drop: got %d, want %d", off, first+50<<10)
	}
	resp, body = c.patch(url, off, content[off:])
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("final PATCH: got %d: %s", resp.StatusCode, body)
	}
	id := fileframe.FileID(resp.Header.Get(headerFileID))
	f, err := e.store.FileByID(context.Background(), id)
	if err != nil {
		t.Fatalf("FileByID(%q): %v", id, err)
	}
	if f.AccountID != a.ID || f.Name != "deck.pdf" || f.Size != int64(len(content)) {
		t.Errorf("file: got %+v", f)
	}
	if got := e.downloadLink(resp.Header.Get(headerFileURL)); !bytes.Equal(got, content) {
		t.Errorf("downloaded %d bytes, not the %d uploaded", len(got), len(content))
	}
	// A client that lost the last answer asks again and learns the file.
	resp, _ = c.request(http.MethodHead, url, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Upload-Offset") != strconv.Itoa(len(content)) || resp.Header.Get(headerFileID) != string(f.ID) {
		t.Errorf("HEAD of the finished upload: got %d offset %q file %q", resp.StatusCode, resp.Header.Get("Upload-Offset"), resp.Header.Get(headerFileID))
	}
}

// fileSize is the size of the file at p, or -1.
func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// TestTusKeyRefused: what a key may not do on the tus endpoint, and that a
// request with a key is judged by the key alone, whatever its cookies.
func TestTusKeyRefused(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()), func(c *Config) { c.KeyRate, c.KeyBurst = 0.001, 50 })
	owner := e.member("owner@example.com", fileframe.PlanAgency)
	key, _ := e.key(owner, "")
	c := keyTus{e: e, key: key}
	url := c.create("a.txt", 10)

	other := e.account(fileframe.PlanAgency)
	otherKey, _ := e.key(other, "")
	pageFile := e.file(owner, "page.txt", []byte("x"))
	pageKey, _ := e.key(owner, pageFile.ID)
	free := e.account(fileframe.PlanFree)
	freeKey, _ := e.key(free, "")
	ownerSession, _ := signedInUploader(e, "ownerb@example.com", fileframe.PlanAgency)
	// A browser signed in as the upload's owner.
	ownerBrowser := newAppBrowser(e)
	ownerBrowser.login("owner@example.com", testPassword)

	patch := []string{"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0"}
	for _, tt := range []struct {
		name   string
		c      keyTus
		method string
		url    string
		header []string
		status int
		code   string // a problem+json code; "" for tus's plain text
	}{
		{"POST with a page-bound key", keyTus{e: e, key: pageKey}, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Length", "3"}, 403, "key_scope"},
		{"HEAD with a page-bound key", keyTus{e: e, key: pageKey}, http.MethodHead, url, nil, 403, ""},
		{"PATCH with a page-bound key", keyTus{e: e, key: pageKey}, http.MethodPatch, url, patch, 403, "key_scope"},
		{"POST with a Free account's key", keyTus{e: e, key: freeKey}, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Length", "3"}, 403, "plan_required"},
		{"POST with an unknown key", keyTus{e: e, key: "ffk_" + strings.Repeat("a", 40)}, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Length", "3"}, 401, "unauthorized"},
		{"POST with Basic auth", keyTus{e: e}, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Length", "3", "Authorization", "Basic dTpw"}, 401, "unauthorized"},
		{"HEAD of another account's upload", keyTus{e: e, key: otherKey}, http.MethodHead, url, nil, 404, ""},
		{"PATCH of another account's upload", keyTus{e: e, key: otherKey}, http.MethodPatch, url, patch, 404, "not_found"},
		{"DELETE of another account's upload", keyTus{e: e, key: otherKey}, http.MethodDelete, url, nil, 404, "not_found"},
		{"POST without a key or a session", keyTus{e: e}, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Length", "3"}, 401, ""},
		{"PATCH without a key or a session", keyTus{e: e}, http.MethodPatch, url, patch, 401, ""},
		// The owner's own session beside another account's key: the key
		// decides, and the upload is not its account's.
		{"owner's session with another account's key", keyTus{e: e, key: otherKey, b: ownerBrowser}, http.MethodPatch, url, patch, 404, "not_found"},
		// A signed-in session (with its CSRF token) beside an unknown key:
		// refused as the key, not let through as the session.
		{"session with an unknown key", keyTus{e: e, key: "ffk_" + strings.Repeat("b", 40), b: ownerSession.b}, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Length", "3", csrfHeader, ownerSession.csrf}, 401, "unauthorized"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := tt.c.request(tt.method, tt.url, strings.NewReader("abc"), tt.header...)
			if tt.code != "" {
				tusProblem(t, resp, body, tt.status, tt.code)
			} else if resp.StatusCode != tt.status {
				t.Errorf("got %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
		})
	}
	// Nothing above touched the upload; the key of the owner, beside
	// another account's session and no CSRF token, finishes it.
	if off := c.offset(url); off != 0 {
		t.Errorf("offset: got %d, want 0", off)
	}
	mixed := keyTus{e: e, key: key, b: ownerSession.b}
	if resp, body := mixed.patch(url, 0, []byte("0123456789")); resp.StatusCode != http.StatusNoContent || resp.Header.Get(headerFileID) == "" {
		t.Fatalf("owner's key with another session's cookie: got %d %q: %s", resp.StatusCode, resp.Header.Get(headerFileID), body)
	} else if f, err := e.store.FileByID(context.Background(), fileframe.FileID(resp.Header.Get(headerFileID))); err != nil || f.AccountID != owner.ID {
		t.Errorf("the file is account %q's (%v), want the key's %s", f.AccountID, err, owner.ID)
	}
	// The owner may cancel an upload with the key.
	cancelled := c.create("b.txt", 10)
	if resp, body := c.request(http.MethodDelete, cancelled, nil); resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE with the key: got %d: %s", resp.StatusCode, body)
	}
}

// TestTusKeyRateLimited: every tus request with a key counts against the
// key's bucket, and the 429 is the API's, with Retry-After.
func TestTusKeyRateLimited(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()), func(c *Config) { c.KeyRate, c.KeyBurst = 0.001, 2 })
	a := e.account(fileframe.PlanAgency)
	key, _ := e.key(a, "")
	c := keyTus{e: e, key: key}
	url := c.create("a.txt", 10)
	c.offset(url)
	resp, body := c.request(http.MethodHead, url, nil)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("third request of a burst of 2: got %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	resp, body = c.patch(url, 0, []byte("0123456789"))
	tusProblem(t, resp, body, http.StatusTooManyRequests, "rate_limited")
}

// TestTusKeyQuotaConcurrent: two uploads with one key at once, against
// storage that fits one of them: one is created, the other refused, and
// one file is stored.
func TestTusKeyQuotaConcurrent(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()), withQuotas)
	a := e.account(fileframe.PlanAgency)
	key, _ := e.key(a, "")
	c := keyTus{e: e, key: key}
	contents := [][]byte{randomBytes(t, 600), randomBytes(t, 600)}
	type result struct {
		created, stored int
		body            string
	}
	results := make([]result, 2)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range contents {
		wg.Go(func() {
			<-start
			resp, body := c.createResp("part"+strconv.Itoa(i)+".bin", len(contents[i]))
			results[i] = result{created: resp.StatusCode, body: body}
			if resp.StatusCode != http.StatusCreated {
				return
			}
			resp, body = c.patch(resp.Header.Get("Location"), 0, contents[i])
			results[i].stored, results[i].body = resp.StatusCode, body
		})
	}
	close(start)
	wg.Wait()
	var ok, refused int
	for i, r := range results {
		switch {
		case r.created == http.StatusCreated && r.stored == http.StatusNoContent:
			ok++
		case r.created == http.StatusRequestEntityTooLarge && strings.Contains(r.body, "storage is left"):
			refused++
		default:
			t.Errorf("upload %d: created %d, stored %d: %s", i, r.created, r.stored, r.body)
		}
	}
	if ok != 1 || refused != 1 {
		t.Errorf("got %d stored and %d refused, want 1 and 1", ok, refused)
	}
	files, err := e.store.FilesByAccount(context.Background(), a.ID)
	if err != nil || len(files) != 1 {
		t.Errorf("files: got %d (%v), want 1", len(files), err)
	}
}

// A PATCH of unknown length (chunked) whose body is longer than what the
// upload lacks is answered 413 and makes no file: tusd stores the bytes up
// to the upload's length and finishes it whatever the body held after
// them, so a file cut from what the client sent appeared beside the 413.
// A body of the right length, chunked, still finishes the upload.
func TestTusLongerChunkedBodyMakesNoFile(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()))
	a := e.account(fileframe.PlanAgency)
	key, _ := e.key(a, "")
	c := keyTus{e: e, key: key}
	content := randomBytes(t, 100)
	chunked := func(parts ...[]byte) io.Reader { // not a *bytes.Reader: no Content-Length
		rs := make([]io.Reader, len(parts))
		for i, p := range parts {
			rs[i] = bytes.NewReader(p)
		}
		return io.MultiReader(rs...)
	}
	for _, tt := range []struct {
		name string
		body io.Reader
	}{
		{"150 bytes at once", chunked(append(append([]byte{}, content...), randomBytes(t, 50)...))},
		{"100 bytes, then 1", chunked(content, []byte{'x'})},
		{"99 bytes, then 2", chunked(content[:99], content[99:], []byte{'x'})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := c.create("over.bin", len(content))
			resp, body := c.request(http.MethodPatch, url, tt.body,
				"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0")
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("PATCH: got %d: %s, want 413", resp.StatusCode, body)
			}
			if off := c.offset(url); off >= len(content) {
				t.Errorf("offset after the 413: %d, want less than the upload's %d", off, len(content))
			}
			files, err := e.store.FilesByAccount(context.Background(), a.ID)
			if err != nil || len(files) != 0 {
				t.Errorf("files after the 413: %d (%v), want none", len(files), err)
			}
			c.request(http.MethodDelete, url, nil)
		})
	}
	url := c.create("right.bin", len(content))
	resp, body := c.request(http.MethodPatch, url, chunked(content[:60], content[60:]),
		"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get(headerFileID) == "" {
		t.Fatalf("PATCH of the right length, chunked: got %d file %q: %s", resp.StatusCode, resp.Header.Get(headerFileID), body)
	}
	f, err := e.store.FileByID(context.Background(), fileframe.FileID(resp.Header.Get(headerFileID)))
	if err != nil || f.Size != int64(len(content)) {
		t.Fatalf("file: %+v, %v", f, err)
	}
	if got := e.downloadLink(resp.Header.Get(headerFileURL)); !bytes.Equal(got, content) {
		t.Errorf("downloaded %d bytes, not the %d uploaded", len(got), len(content))
	}
	if strings.Contains(e.logs.String(), `"level":"ERROR"`) {
		t.Errorf("a client's body was logged as a server error:\n%s", e.logs.String())
	}
}

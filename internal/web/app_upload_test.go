package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	tusd "github.com/tus/tusd/v2/pkg/handler"
)

// withUploads keeps unfinished tus uploads in a temporary directory.
func withUploads(dir string) func(*Config) {
	return func(c *Config) { c.UploadDir = dir }
}

// randomBytes returns n random bytes.
func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// tusClient speaks the tus protocol to the test server with an
// appBrowser's session.
type tusClient struct {
	b    *appBrowser
	csrf string
}

// signedInUploader signs a new member on plan in and returns its tus client.
func signedInUploader(e *testEnv, email string, plan fileframe.Plan) (*tusClient, fileframe.Account) {
	e.t.Helper()
	a := e.member(email, plan)
	b := newAppBrowser(e)
	b.login(email, testPassword)
	return &tusClient{b: b, csrf: b.token("/account")}, a
}

func (c *tusClient) request(method, url string, body io.Reader, header ...string) (*http.Response, string) {
	c.b.e.t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		c.b.e.t.Fatal(err)
	}
	req.Header.Set("Tus-Resumable", "1.0.0")
	if c.csrf != "" {
		req.Header.Set(csrfHeader, c.csrf)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.b.send(req)
}

// create starts a tus upload and returns its absolute URL, failing the
// test unless the server answers 201.
func (c *tusClient) create(name string, size int) string {
	c.b.e.t.Helper()
	resp, body := c.createResp(name, size)
	if resp.StatusCode != http.StatusCreated {
		c.b.e.t.Fatalf("tus POST: got %d, want 201: %s", resp.StatusCode, body)
	}
	return resp.Header.Get("Location")
}

func (c *tusClient) createResp(name string, size int) (*http.Response, string) {
	meta := "filename " + base64.StdEncoding.EncodeToString([]byte(name))
	return c.request(http.MethodPost, c.b.e.app.URL+tusBasePath, nil,
		"Upload-Length", strconv.Itoa(size), "Upload-Metadata", meta)
}

func (c *tusClient) patch(url string, offset int, chunk []byte) (*http.Response, string) {
	c.b.e.t.Helper()
	return c.request(http.MethodPatch, url, bytes.NewReader(chunk),
		"Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(offset))
}

func (c *tusClient) offset(url string) int {
	c.b.e.t.Helper()
	resp, _ := c.request(http.MethodHead, url, nil)
	if resp.StatusCode != http.StatusOK {
		c.b.e.t.Fatalf("tus HEAD: got %d, want 200", resp.StatusCode)
	}
	n, err := strconv.Atoi(resp.Header.Get("Upload-Offset"))
	if err != nil {
		c.b.e.t.Fatalf("tus HEAD: Upload-Offset %q", resp.Header.Get("Upload-Offset"))
	}
	return n
}

// failingBody sends its bytes, waits until the server has them (arrived),
// then fails, as a connection that drops midway.
type failingBody struct {
	r       io.Reader
	arrived func() bool
}

func (f *failingBody) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if errors.Is(err, io.EOF) {
		for deadline := time.Now().Add(10 * time.Second); !f.arrived() && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		return n, errors.New("connection dropped")
	}
	return n, err
}

// interruptedPatch sends a PATCH announcing len(rest) bytes whose body
// fails once the server has written the first sent bytes to the file at
// binPath (a filestore upload's data).
func (c *tusClient) interruptedPatch(url string, offset int, rest []byte, sent int, binPath string) {
	c.b.e.t.Helper()
	arrived := func() bool {
		fi, err := os.Stat(binPath)
		return err == nil && fi.Size() == int64(offset+sent)
	}
	req, err := http.NewRequest(http.MethodPatch, url, &failingBody{bytes.NewReader(rest[:sent]), arrived})
	if err != nil {
		c.b.e.t.Fatal(err)
	}
	req.ContentLength = int64(len(rest))
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set(csrfHeader, c.csrf)
	req.Header.Set("Content-Type", "application/offset+octet-stream")
	req.Header.Set("Upload-Offset", strconv.Itoa(offset))
	for k, v := range c.b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	if resp, err := http.DefaultTransport.RoundTrip(req); err == nil {
		resp.Body.Close()
		c.b.e.t.Fatalf("interrupted PATCH: got %d, want a failed request", resp.StatusCode)
	}
	if !arrived() {
		c.b.e.t.Fatalf("the server did not write the %d bytes sent before the drop", sent)
	}
}

// downloadLink fetches a file's bytes through its public download link.
func (e *testEnv) downloadLink(publicURL string) []byte {
	e.t.Helper()
	resp, body := e.get(publicURL + "/download")
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("GET %s/download: got %d; log:\n%s", publicURL, resp.StatusCode, e.logs)
	}
	return body
}

func TestTusUploadInterruptedAndResumed(t *testing.T) {
	uploads := t.TempDir()
	e := newTestEnv(t, withUploads(uploads))
	c, a := signedInUploader(e, "up@example.com", fileframe.PlanFree)
	content := randomBytes(t, 300<<10)
	url := c.create("report 2026.pdf", len(content))
	if !strings.HasPrefix(url, e.app.URL+tusBasePath+string(a.ID)+".") {
		t.Errorf("Location: got %q, want an upload of account %s under %s", url, a.ID, tusBasePath)
	}

	// The first 100 KiB arrive whole; the next PATCH drops after 50 KiB.
	first := 100 << 10
	resp, body := c.patch(url, 0, content[:first])
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Upload-Offset") != strconv.Itoa(first) {
		t.Fatalf("first PATCH: got %d offset %q: %s", resp.StatusCode, resp.Header.Get("Upload-Offset"), body)
	}
	c.interruptedPatch(url, first, content[first:], 50<<10, filepath.Join(uploads, path.Base(url)))

	// Resume: ask where the server is, send the rest from there.
	off := c.offset(url)
	if off != first+50<<10 {
		t.Fatalf("offset after the drop: got %d, want %d", off, first+50<<10)
	}
	partial, err := os.Stat(filepath.Join(uploads, path.Base(url)))
	if err != nil {
		t.Fatalf("the unfinished upload's bytes: %v", err)
	}
	resp, body = c.patch(url, off, content[off:])
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("final PATCH: got %d: %s", resp.StatusCode, body)
	}
	id := fileframe.FileID(resp.Header.Get(headerFileID))
	f, err := e.store.FileByID(context.Background(), id)
	if err != nil {
		t.Fatalf("FileByID(%q from %s): %v", id, headerFileID, err)
	}
	if f.AccountID != a.ID || f.Name != "report 2026.pdf" || f.Size != int64(len(content)) || f.ContentType != "application/pdf" {
		t.Errorf("file: got %+v", f)
	}
	if got, want := resp.Header.Get(headerFileURL), e.app.URL+"/f/"+f.Slug; got != want {
		t.Errorf("%s: got %q, want %q", headerFileURL, got, want)
	}
	if got, want := resp.Header.Get(headerFilePage), "/files/"+string(f.ID); got != want {
		t.Errorf("%s: got %q, want %q", headerFilePage, got, want)
	}
	if got := e.downloadLink(resp.Header.Get(headerFileURL)); !bytes.Equal(got, content) {
		t.Errorf("downloaded %d bytes, not the %d uploaded", len(got), len(content))
	}
	// On disk the finished upload's file became the blob (linked, not
	// written a second time).
	b, err := e.blobs.Open(context.Background(), f.BlobKey)
	if err != nil {
		t.Fatal(err)
	}
	blobFile, _ := b.Body.(*os.File).Stat()
	b.Body.Close()
	if !os.SameFile(blobFile, partial) {
		t.Errorf("the blob is a copy of the upload's file, not the file itself")
	}

	// A client that lost the final answer and asks again learns that the
	// upload is complete, and which file it made, instead of starting
	// again.
	resp, _ = c.request(http.MethodHead, url, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Upload-Offset") != strconv.Itoa(len(content)) ||
		resp.Header.Get("Upload-Length") != strconv.Itoa(len(content)) || resp.Header.Get(headerFileID) != string(f.ID) {
		t.Errorf("HEAD of a finished upload: got %d, offset %q, length %q, file %q; want 200, complete, %s",
			resp.StatusCode, resp.Header.Get("Upload-Offset"), resp.Header.Get("Upload-Length"), resp.Header.Get(headerFileID), f.ID)
	}
	// Not to another account, though: its upload IDs are not its own.
	other, _ := signedInUploader(e, "other@example.com", fileframe.PlanFree)
	if resp, _ := other.request(http.MethodHead, url, nil); resp.StatusCode != http.StatusNotFound || resp.Header.Get(headerFileID) != "" {
		t.Errorf("HEAD of another account's finished upload: got %d with file %q, want 404", resp.StatusCode, resp.Header.Get(headerFileID))
	}
	// Once the file is deleted, the upload is unknown.
	if _, err := e.store.DeleteFile(context.Background(), f.ID); err != nil {
		t.Fatal(err)
	}
	if resp, _ := c.request(http.MethodHead, url, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("HEAD of an upload whose file was deleted: got %d, want 404", resp.StatusCode)
	}
	if left, _ := os.ReadDir(uploads); len(left) != 0 {
		t.Errorf("upload directory keeps %d entries after the upload", len(left))
	}
}

func TestTusRefused(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()))
	c, _ := signedInUploader(e, "a@example.com", fileframe.PlanFree)
	url := c.create("a.txt", 10)
	other, _ := signedInUploader(e, "b@example.com", fileframe.PlanFree)
	anon := &tusClient{b: newAppBrowser(e)}
	noCSRF := &tusClient{b: c.b}
	wrongCSRF := &tusClient{b: c.b, csrf: other.csrf}
	for _, tt := range []struct {
		name   string
		c      *tusClient
		method string
		url    string
		header []string
		want   int
	}{
		{"POST without session", anon, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Length", "3"}, 401},
		{"HEAD without session", anon, http.MethodHead, url, nil, 401},
		{"PATCH without session", anon, http.MethodPatch, url, []string{"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0"}, 401},
		{"POST without CSRF header", noCSRF, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Length", "3"}, 403},
		{"PATCH without CSRF header", noCSRF, http.MethodPatch, url, []string{"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0"}, 403},
		{"DELETE without CSRF header", noCSRF, http.MethodDelete, url, nil, 403},
		{"PATCH with another session's token", wrongCSRF, http.MethodPatch, url, []string{"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0"}, 403},
		{"POST from another site", c, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Length", "3", "Sec-Fetch-Site", "cross-site"}, 403},
		{"HEAD of another account's upload", other, http.MethodHead, url, nil, 404},
		{"PATCH of another account's upload", other, http.MethodPatch, url, []string{"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0"}, 404},
		{"POST without a length", c, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Defer-Length", "1", "Upload-Metadata", "filename YS50eHQ="}, 400},
		{"POST without a name", c, http.MethodPost, e.app.URL + tusBasePath, []string{"Upload-Length", "3"}, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := tt.c.request(tt.method, tt.url, strings.NewReader("abc"), tt.header...)
			if resp.StatusCode != tt.want {
				t.Errorf("got %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
		})
	}
	// Nothing above touched the upload.
	if off := c.offset(url); off != 0 {
		t.Errorf("offset: got %d, want 0", off)
	}
	if resp, body := c.patch(url, 0, []byte("0123456789")); resp.StatusCode != http.StatusNoContent || resp.Header.Get(headerFileID) == "" {
		t.Errorf("owner's PATCH: got %d %q: %s", resp.StatusCode, resp.Header.Get(headerFileID), body)
	}
	// The owner may cancel an upload (tus-js-client's abort(true)).
	cancelled := c.create("b.txt", 10)
	if resp, body := c.request(http.MethodDelete, cancelled, nil); resp.StatusCode != http.StatusNoContent {
		t.Errorf("owner's DELETE: got %d: %s", resp.StatusCode, body)
	}
	if resp, _ := c.request(http.MethodHead, cancelled, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("HEAD of a cancelled upload: got %d, want 404", resp.StatusCode)
	}
}

func TestTusDisabledWithoutStore(t *testing.T) {
	e := newTestEnv(t)
	c, _ := signedInUploader(e, "a@example.com", fileframe.PlanFree)
	// The public pages' catch-all answers (405 for a POST).
	if resp, _ := c.createResp("a.txt", 3); resp.StatusCode/100 != 4 || resp.Header.Get("Location") != "" {
		t.Errorf("tus POST without an upload store: got %d %q, want a 4xx", resp.StatusCode, resp.Header.Get("Location"))
	}
	if p := e.srv.uploadPanel(); p.Tus != "" {
		t.Errorf("panel's tus endpoint without an upload store: got %q, want none (the script keeps the plain form)", p.Tus)
	}
}

// quotas is small per-plan limits for the tests.
var testQuotas = map[fileframe.Plan]fileframe.Quota{
	fileframe.PlanFree:   {Storage: 1000, File: 600},
	fileframe.PlanAgency: {Storage: 1000, File: 600},
}

func withQuotas(c *Config) { c.Quotas = testQuotas }

func TestTusQuota(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()), withQuotas)
	c, a := signedInUploader(e, "q@example.com", fileframe.PlanFree)

	resp, body := c.createResp("big.bin", 601)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "the Free plan takes files of up to 600 B") {
		t.Errorf("file over the plan's limit: got %d: %s", resp.StatusCode, body)
	}
	e.file(a, "old.bin", randomBytes(t, 500))
	resp, body = c.createResp("next.bin", 501)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "only 500 B of the Free plan's 1000 B of storage is left") {
		t.Errorf("file over the storage left: got %d: %s", resp.StatusCode, body)
	}

	// Accepted at creation, refused at completion: another file took the
	// room meanwhile.
	content := randomBytes(t, 400)
	url := c.create("late.bin", len(content))
	e.file(a, "meanwhile.bin", randomBytes(t, 200))
	resp, body = c.patch(url, 0, content)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "storage is left") {
		t.Errorf("completion over the quota: got %d: %s", resp.StatusCode, body)
	}
	files, err := e.store.FilesByAccount(context.Background(), a.ID)
	if err != nil || len(files) != 2 {
		t.Errorf("files after the refusal: got %d (%v), want the 2 stored before", len(files), err)
	}
	if resp, _ := c.request(http.MethodHead, url, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("HEAD of the refused upload: got %d, want 404 (removed)", resp.StatusCode)
	}
}

// multipartBody returns a multipart/form-data body of fields (name, value
// pairs; a name starting with "@" is a file part "file" named by the rest,
// whose content is value).
func multipartBody(t *testing.T, fields ...string) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for i := 0; i+1 < len(fields); i += 2 {
		var err error
		if name, ok := strings.CutPrefix(fields[i], "@"); ok {
			var fw io.Writer
			if fw, err = w.CreateFormFile("file", name); err == nil {
				_, err = fw.Write([]byte(fields[i+1]))
			}
		} else {
			err = w.WriteField(fields[i], fields[i+1])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	return w.FormDataContentType(), &buf
}

func (e *testEnv) apiUpload(key, contentType, query string, body io.Reader) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.app.URL+"/api/files"+query, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return e.do(req)
}

// apiUploadOK uploads through the API and returns the 201 answer, failing
// the test on any other.
func (e *testEnv) apiUploadOK(key, contentType, query string, content io.Reader) uploadResponse {
	t := e.t
	t.Helper()
	resp, body := e.apiUpload(key, contentType, query, content)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("got %d %q, want 201 JSON: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var got uploadResponse
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestAPIUploadFiles(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanAgency)
	key, _ := e.key(a, "")
	one, two := randomBytes(t, 70<<10), []byte("plain text\n")

	t.Run("raw", func(t *testing.T) {
		got := e.apiUploadOK(key, "application/octet-stream", "?name=data%201.bin", bytes.NewReader(one))
		if got.Name != "data 1.bin" || got.Size != int64(len(one)) || got.URL != "/f/"+got.Slug ||
			got.PublicURL != e.app.URL+got.URL || got.Page != "/files/"+string(got.ID) || len(got.Files) != 1 || !got.OK {
			t.Errorf("answer: got %+v", got)
		}
		if b := e.downloadLink(got.PublicURL); !bytes.Equal(b, one) {
			t.Errorf("downloaded %d bytes, not the %d uploaded", len(b), len(one))
		}
	})
	t.Run("multipart, two files", func(t *testing.T) {
		ct, body := multipartBody(t, "note", "ignored", "@one.bin", string(one), "@two.txt", string(two))
		got := e.apiUploadOK(key, ct, "", body)
		if len(got.Files) != 2 || got.ID != got.Files[0].ID || got.Files[0].Name != "one.bin" || got.Files[1].Name != "two.txt" {
			t.Fatalf("answer: got %+v", got)
		}
		for i, want := range [][]byte{one, two} {
			if b := e.downloadLink(got.Files[i].PublicURL); !bytes.Equal(b, want) {
				t.Errorf("file %d: downloaded %q…, not what was uploaded", i, b[:min(len(b), 16)])
			}
		}
		f, err := e.store.FileByID(context.Background(), got.Files[1].ID)
		if err != nil || f.AccountID != a.ID || f.ContentType != "text/plain; charset=utf-8" {
			t.Errorf("stored file: got %+v, %v", f, err)
		}
	})
}

func TestAPIUploadRefused(t *testing.T) {
	e := newTestEnv(t, withQuotas)
	agency := e.account(fileframe.PlanAgency)
	key, _ := e.key(agency, "")
	proKey, _ := e.key(e.account(fileframe.PlanPro), "")
	pageKey, _ := e.key(agency, e.file(agency, "page.html", []byte("x")).ID)
	bigCT, bigBody := multipartBody(t, "@big.bin", string(randomBytes(t, 601)))
	noFileCT, noFileBody := multipartBody(t, "note", "no file here")
	for _, tt := range []struct {
		name, key, ct, query string
		body                 io.Reader
		status               int
		code                 string
	}{
		{"no key", "", "application/octet-stream", "?name=a", strings.NewReader("a"), 401, fileframe.CodeUnauthorized},
		{"Pro account", proKey, "application/octet-stream", "?name=a", strings.NewReader("a"), 403, fileframe.CodePlanRequired},
		{"page-bound key", pageKey, "application/octet-stream", "?name=a", strings.NewReader("a"), 403, fileframe.CodeKeyScope},
		{"raw without a name", key, "application/octet-stream", "", strings.NewReader("a"), 400, fileframe.CodeInvalidField},
		{"name with a line break", key, "application/octet-stream", "?name=a%0Ab", strings.NewReader("a"), 400, fileframe.CodeInvalidField},
		{"multipart without a file", key, noFileCT, "", noFileBody, 400, fileframe.CodeInvalidField},
		{"raw over the file limit", key, "application/octet-stream", "?name=big", bytes.NewReader(randomBytes(t, 601)), 413, fileframe.CodeFileTooLarge},
		{"multipart over the file limit", key, bigCT, "", bigBody, 413, fileframe.CodeFileTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := e.apiUpload(tt.key, tt.ct, tt.query, tt.body)
			var p problem
			json.Unmarshal(body, &p)
			if resp.StatusCode != tt.status || p.Code != tt.code || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("got %d %q, want %d %q: %s", resp.StatusCode, p.Code, tt.status, tt.code, body)
			}
		})
	}
	files, _ := e.store.FilesByAccount(context.Background(), agency.ID)
	if len(files) != 1 {
		t.Errorf("files after the refusals: got %d, want only the page-bound key's", len(files))
	}
	// What fits still goes in, and the storage quota counts it.
	e.apiUploadOK(key, "application/octet-stream", "?name=a", bytes.NewReader(randomBytes(t, 600)))
	resp, body := e.apiUpload(key, "application/octet-stream", "?name=b", bytes.NewReader(randomBytes(t, 500)))
	if resp.StatusCode != 413 || !strings.Contains(string(body), fileframe.CodeQuotaExceeded) {
		t.Errorf("over the storage quota: got %d: %s", resp.StatusCode, body)
	}
	// 1000 B less the page file (1 B) and the file above (600 B).
	ct, mp := multipartBody(t, "@c.bin", string(randomBytes(t, 500)))
	resp, body = e.apiUpload(key, ct, "", mp)
	if resp.StatusCode != 413 || !strings.Contains(string(body), "larger than the 399 B left of the Agency plan's 1000 B of storage") {
		t.Errorf("multipart over the storage quota: got %d: %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequest(http.MethodPut, e.app.URL+"/api/files", nil)
	if resp, _ := e.do(req); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, POST, HEAD" {
		t.Errorf("PUT /api/files: got %d, Allow %q; want 405, GET, POST, HEAD", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestUploadForm(t *testing.T) {
	e := newTestEnv(t, withQuotas)
	c, a := signedInUploader(e, "form@example.com", fileframe.PlanFree)
	post := func(ct string, body io.Reader, header ...string) (*http.Response, string) {
		t.Helper()
		h := append([]string{"Content-Type", ct}, header...)
		c := &tusClient{b: c.b}
		return c.request(http.MethodPost, e.app.URL+uploadFormPath, body, h...)
	}
	content := randomBytes(t, 200)

	ct, body := multipartBody(t, "csrf", c.csrf, "@one.bin", string(content))
	resp, _ := post(ct, body)
	files, _ := e.store.FilesByAccount(context.Background(), a.ID)
	if len(files) != 1 || resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/files/"+string(files[0].ID) {
		t.Fatalf("one file: got %d to %q, %d files", resp.StatusCode, resp.Header.Get("Location"), len(files))
	}
	if b := e.downloadLink(e.app.URL + files[0].URL()); !bytes.Equal(b, content) {
		t.Errorf("downloaded %d bytes, not the %d uploaded", len(b), len(content))
	}

	ct, body = multipartBody(t, "csrf", c.csrf, "@a.txt", "a", "@b.txt", "b")
	if resp, _ := post(ct, body); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/files" {
		t.Errorf("two files: got %d to %q, want 303 to /files", resp.StatusCode, resp.Header.Get("Location"))
	}

	for _, tt := range []struct {
		name   string
		fields []string
		header []string
		want   int
	}{
		{"no token", []string{"@c.txt", "c"}, nil, 403},
		{"token after the file", []string{"@c.txt", "c", "csrf", c.csrf}, nil, 403},
		// The first character changed ("x" put in its place was, one run
		// in 64, the token's own).
		{"wrong token", []string{"csrf", flipFirst(c.csrf), "@c.txt", "c"}, nil, 403},
		{"from another site", []string{"csrf", c.csrf, "@c.txt", "c"}, []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"no file chosen", []string{"csrf", c.csrf}, nil, 400},
		{"over the file limit", []string{"csrf", c.csrf, "@big.bin", string(randomBytes(t, 601))}, nil, 413},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ct, body := multipartBody(t, tt.fields...)
			if resp, page := post(ct, body, tt.header...); resp.StatusCode != tt.want {
				t.Errorf("got %d, want %d: %s", resp.StatusCode, tt.want, page)
			}
		})
	}
	if files, _ := e.store.FilesByAccount(context.Background(), a.ID); len(files) != 3 {
		t.Errorf("files: got %d, want 3", len(files))
	}

	ct, body = multipartBody(t, "csrf", c.csrf, "@a.txt", "a")
	anon := &tusClient{b: newAppBrowser(e)}
	if resp, _ := anon.request(http.MethodPost, e.app.URL+uploadFormPath, body, "Content-Type", ct); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("signed out: got %d to %q, want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestUploadPanelRenders(t *testing.T) {
	e := newTestEnv(t, withUploads(filepath.Join(t.TempDir(), "uploads")))
	var buf bytes.Buffer
	data := struct {
		CSRF   string
		Upload uploadPanel
	}{"tok", e.srv.uploadPanel()}
	if err := e.srv.pages.tmpl.ExecuteTemplate(&buf, "upload_panel", data); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`action="/files/upload"`, `enctype="multipart/form-data"`, `data-tus="/uploads/tus/"`,
		`data-csrf="tok"`, `data-csrf-header="X-CSRF-Token"`, `<input type="hidden" name="csrf" value="tok">`,
		`<label class="upload-label" for="upload-file">`, `id="upload-file" type="file" name="file" multiple`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("panel lacks %s:\n%s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), "style=") || strings.Contains(buf.String(), "<script") {
		t.Errorf("panel has inline style or script, which the app CSP blocks")
	}
	for _, asset := range append(e.srv.uploadPanel().Styles, e.srv.uploadPanel().Scripts...) {
		if resp, _ := e.get(e.app.URL + asset); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: got %d", asset, resp.StatusCode)
		}
	}
}

// TestTusUploadIDsExact: an upload is reachable only by its exact ID and
// only by its own account. An attacker who knows (or guesses) another
// account's upload ID and puts it after a prefix of its own, with any
// encoding of a slash, a dot or a backslash, gets 404 on HEAD, PATCH and
// DELETE, and the victim's upload is untouched (issue 9, item 1).
func TestTusUploadIDsExact(t *testing.T) {
	uploads := t.TempDir()
	e := newTestEnv(t, withUploads(uploads))
	victim, _ := signedInUploader(e, "victim@example.com", fileframe.PlanFree)
	content := randomBytes(t, 1000)
	vurl := victim.create("secret.pdf", len(content))
	if resp, body := victim.patch(vurl, 0, content[:400]); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("victim's PATCH: got %d: %s", resp.StatusCode, body)
	}
	vid := path.Base(vurl)
	attacker, a := signedInUploader(e, "attacker@example.com", fileframe.PlanFree)
	own := string(a.ID)
	base := e.app.URL + tusBasePath
	var ids []string
	for _, sep := range []string{"%2F", "%2f", "%252F", "%5C", "%5c", "/", "%2F.%2F", "%C0%AF", "%E2%88%95"} {
		for _, dots := range []string{"..", "%2E%2E", "%2e%2e", ".%2E", "%252E%252E"} {
			ids = append(ids, own+".x"+sep+dots+sep+vid)
		}
	}
	ids = append(ids,
		vid,                              // the victim's ID itself
		strings.ToUpper(vid[:2])+vid[2:], // its account prefix in another case
		own+"."+vid,                      // own prefix, victim's rest
		own+"."+strings.SplitN(vid, ".", 2)[1], // own account, victim's random part
		own+"%2E"+strings.SplitN(vid, ".", 2)[1],
		own+".x%00"+vid,
		own+". "+vid,
	)
	for _, id := range ids {
		for _, m := range []struct {
			method string
			header []string
		}{
			{http.MethodHead, nil},
			{http.MethodPatch, []string{"Content-Type", "application/offset+octet-stream", "Upload-Offset", "400"}},
			{http.MethodDelete, nil},
		} {
			resp, body := attacker.request(m.method, base+id, strings.NewReader("EVIL"), m.header...)
			// A raw "/../" is cleaned by the router first: a redirect
			// to the cleaned path, where the ID is the victim's bare ID.
			if resp.StatusCode < 300 || resp.StatusCode >= 500 || resp.Header.Get("Upload-Offset") != "" {
				t.Errorf("%s %s: got %d (offset %q), want a 4xx (or the router's 3xx) that says nothing: %s",
					m.method, id, resp.StatusCode, resp.Header.Get("Upload-Offset"), body)
			}
		}
	}
	// The victim's upload is as it was, and finishes as the victim's.
	if off := victim.offset(vurl); off != 400 {
		t.Errorf("victim's offset after the attacks: got %d, want 400", off)
	}
	resp, body := victim.patch(vurl, 400, content[400:])
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("victim's last PATCH: got %d: %s", resp.StatusCode, body)
	}
	if got := e.downloadLink(resp.Header.Get(headerFileURL)); !bytes.Equal(got, content) {
		t.Errorf("the victim's file has %d bytes, not the %d sent", len(got), len(content))
	}
	files, err := e.store.FilesByAccount(context.Background(), a.ID)
	if err != nil || len(files) != 0 {
		t.Errorf("attacker's files: got %d (%v), want none", len(files), err)
	}
}

func TestTusUploadAccount(t *testing.T) {
	acct := fileframe.AccountID("a_" + strings.Repeat("A", 16))
	random := strings.Repeat("z", tusRandomLen)
	for _, tt := range []struct {
		id string
		ok bool
	}{
		{string(acct) + "." + random, true},
		{string(acct) + "." + random + "+0b6c5ee4-51f1-4b3e-8d6a-9b5e2c9b8f00", true}, // versitygw
		{string(acct) + "." + random + "+VXBsb2FkIElE.ZvciA2aWWp_bmcn~cyBteS1=", true},
		{newTusUploadID(acct), true},
		{"", false},
		{string(acct), false},
		{string(acct) + ".", false},
		{string(acct) + "." + random[1:], false},
		{string(acct) + "." + random + "z", false},
		{string(acct) + "." + random + "+", false},
		{string(acct) + "." + random + "+a/b", false},
		{string(acct) + "." + random + "+a%2Fb", false},
		{string(acct) + "." + random + "+a\\b", false},
		{string(acct) + "." + random + "+a b", false},
		{string(acct) + ".x/../" + string(acct) + "." + random, false},
		{"A_" + strings.Repeat("A", 16) + "." + random, false},
		{"a_" + strings.Repeat("A", 15) + "." + random, false},
		{"a_" + strings.Repeat("A", 15) + "é." + random, false},
		{string(acct) + "." + strings.Repeat("z", tusRandomLen-1) + ".", false},
		{string(acct) + "." + random + "\x00", false},
	} {
		got, ok := tusUploadAccount(tt.id)
		if ok != tt.ok || (ok && got != acct) {
			t.Errorf("tusUploadAccount(%q): got %q, %v; want ok=%v", tt.id, got, ok, tt.ok)
		}
	}
}

// FuzzTusUploadAccount: whatever the input, an ID that is accepted names a
// valid account and holds nothing a store could take for a path.
func FuzzTusUploadAccount(f *testing.F) {
	f.Add("a_AAAAAAAAAAAAAAAA.zzzzzzzzzzzzzzzzzzzzzzzz")
	f.Add("a_AAAAAAAAAAAAAAAA.zzzzzzzzzzzzzzzzzzzzzzzz+0b6c5ee4-51f1")
	f.Add("a_AAAAAAAAAAAAAAAA.x/../a_BBBBBBBBBBBBBBBB.zzzzzzzzzzzzzzzzzzzzzzzz")
	f.Fuzz(func(t *testing.T, id string) {
		acct, ok := tusUploadAccount(id)
		if !ok {
			return
		}
		if !acct.Valid() || !strings.HasPrefix(id, string(acct)+".") {
			t.Fatalf("%q: accepted with account %q", id, acct)
		}
		if strings.ContainsAny(id, "/\\% \x00") || strings.Contains(id, "..") {
			t.Fatalf("%q: accepted with a path character", id)
		}
	})
}

// TestTusStoreRefusesForeignIDs: the store behind the tus endpoint refuses
// any ID that is not an upload ID, even if a route forgot to check.
func TestTusStoreRefusesForeignIDs(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()))
	c, _ := signedInUploader(e, "s@example.com", fileframe.PlanFree)
	id := path.Base(c.create("a.txt", 10))
	store := e.srv.tus.composer.Core
	ctx := context.Background()
	if _, err := store.GetUpload(ctx, id); err != nil {
		t.Fatalf("GetUpload(%q): %v", id, err)
	}
	for _, bad := range []string{"x/../" + id, "../" + id, id + "/..", id[:len(id)-1] + "\x00"} {
		if _, err := store.GetUpload(ctx, bad); !errors.Is(err, tusd.ErrNotFound) {
			t.Errorf("GetUpload(%q): got %v, want ErrNotFound", bad, err)
		}
		if _, err := store.NewUpload(ctx, tusd.FileInfo{ID: bad, Size: 1}); err == nil {
			t.Errorf("NewUpload(%q): created", bad)
		}
	}
}

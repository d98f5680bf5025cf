package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// sender is a stranger's browser on a file request's page: its visit
// cookie and the visit's token, read from the page.
type sender struct {
	b     *appBrowser
	slug  string
	token string
}

// openRequestPage opens /r/<slug> in a new browser and reads the visit's
// token from the page.
func openRequestPage(t *testing.T, e *testEnv, slug string) *sender {
	t.Helper()
	s := &sender{b: newAppBrowser(e), slug: slug}
	resp, body := s.b.get("/r/" + slug)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /r/%s: %d %s", slug, resp.StatusCode, body)
	}
	s.token = pageToken(t, body)
	return s
}

var dataCSRF = regexp.MustCompile(`data-csrf="([^"]+)"`)

func pageToken(t *testing.T, body string) string {
	t.Helper()
	m := dataCSRF.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the request page has no upload form: %s", body)
	}
	return m[1]
}

// tus sends one tus request of the sender's visit.
func (s *sender) tus(method, rawURL string, body []byte, header ...string) (*http.Response, string) {
	s.b.e.t.Helper()
	req, err := http.NewRequest(method, rawURL, bytes.NewReader(body))
	if err != nil {
		s.b.e.t.Fatal(err)
	}
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set(csrfHeader, s.token)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return s.b.send(req)
}

// create starts a tus upload of size bytes named name; it returns the
// answer and the upload's address.
func (s *sender) create(name string, size int, sender string) (*http.Response, string) {
	meta := "filename " + base64.StdEncoding.EncodeToString([]byte(name))
	if sender != "" {
		meta += ",senderName " + base64.StdEncoding.EncodeToString([]byte(sender))
	}
	resp, body := s.tus(http.MethodPost, s.b.e.app.URL+"/r/"+s.slug+"/tus/", nil,
		"Upload-Length", strconv.Itoa(size), "Upload-Metadata", meta)
	return resp, resp.Header.Get("Location") + body[:0]
}

// send uploads content through tus, in one PATCH; it returns the status of
// the creation, else of the PATCH.
func (s *sender) send(name string, content []byte) int {
	s.b.e.t.Helper()
	resp, loc := s.create(name, len(content), "Ann")
	if resp.StatusCode != http.StatusCreated {
		return resp.StatusCode
	}
	if want := s.b.e.app.URL + "/r/" + s.slug + "/tus/"; !strings.HasPrefix(loc, want) {
		s.b.e.t.Fatalf("Location %q, want it under %q", loc, want)
	}
	resp, _ = s.tus(http.MethodPatch, loc, content, "Upload-Offset", "0", "Content-Type", "application/offset+octet-stream")
	return resp.StatusCode
}

// form sends files through the plain form, with the token first.
func (s *sender) form(files map[string][]byte) (*http.Response, string) {
	s.b.e.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", s.token)
	mw.WriteField("name", "Bob")
	mw.WriteField("email", "bob@example.com")
	for name, content := range files {
		w, _ := mw.CreateFormFile("file", name)
		w.Write(content)
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, s.b.e.app.URL+"/r/"+s.slug+"/upload", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return s.b.send(req)
}

// newFileRequest makes a request of a on the test server.
func newFileRequest(t *testing.T, e *testEnv, a fileframe.Account, nr service.NewRequest) fileframe.Request {
	t.Helper()
	if nr.Title == "" {
		nr.Title = "Send me the contracts"
	}
	req, err := e.srv.svc.CreateRequest(context.Background(), a, nr)
	if err != nil {
		t.Fatalf("CreateRequest: %v", err)
	}
	return req
}

func receivedNames(t *testing.T, e *testEnv, id fileframe.RequestID, visit string) []string {
	t.Helper()
	files, err := e.store.ReceivedFiles(context.Background(), id, visit)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.File.Name)
	}
	return names
}

func TestRequestSendAndShare(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()))
	owner := e.member("owner@example.com", fileframe.PlanPro)
	req := newFileRequest(t, e, owner, service.NewRequest{Message: "Two files, <b>please</b>.", MaxFiles: 5, MaxBytes: 1 << 20})

	ann := openRequestPage(t, e, req.Slug)
	resp, page := ann.b.get("/r/" + req.Slug)
	if !strings.Contains(page, "Two files, &lt;b&gt;please&lt;/b&gt;.") || strings.Contains(page, "<b>please") {
		t.Errorf("the request's message is not escaped text: %s", page)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self'") || !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("request page CSP %q", csp)
	}
	content := randomBytes(t, 5000)
	if got := ann.send(`<img src=x onerror=alert(1)>.html`, content); got != http.StatusNoContent {
		t.Fatalf("tus upload: %d, want 204", got)
	}
	if got, _ := ann.form(map[string][]byte{"notes.txt": []byte("hello")}); got.StatusCode != http.StatusSeeOther {
		t.Fatalf("plain form upload: %d, want 303", got.StatusCode)
	}
	_, page = ann.b.get("/r/" + req.Slug + "?sent=1")
	if !strings.Contains(page, "&lt;img src=x onerror=alert(1)&gt;.html") || !strings.Contains(page, "notes.txt") || strings.Contains(page, "<img src=x") {
		t.Errorf("the visit's list does not show both names as text: %s", page)
	}

	// Another visit sees none of it, and cannot reach the first visit's
	// unfinished upload.
	bob := openRequestPage(t, e, req.Slug)
	_, page = bob.b.get("/r/" + req.Slug)
	if strings.Contains(page, "notes.txt") {
		t.Errorf("another visit sees the first visit's files")
	}
	_, loc := ann.create("half.bin", 10, "")
	for _, m := range []string{http.MethodHead, http.MethodPatch, http.MethodDelete} {
		if resp, _ := bob.tus(m, loc, nil, "Upload-Offset", "0", "Content-Type", "application/offset+octet-stream"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s of another visit's upload: %d, want 404", m, resp.StatusCode)
		}
	}
	ann.tus(http.MethodDelete, loc, nil)

	// Received files are the owner's, private until shared.
	rf, err := e.store.ReceivedFiles(context.Background(), req.ID, "")
	if err != nil || len(rf) != 2 {
		t.Fatalf("received %d files, %v; want 2", len(rf), err)
	}
	var html fileframe.File
	for _, f := range rf {
		if strings.HasSuffix(f.File.Name, ".html") {
			html = f.File
			if f.SenderName != "Ann" {
				t.Errorf("sender of the tus upload: %q, want Ann", f.SenderName)
			}
		} else if f.SenderName != "Bob" || f.SenderEmail != "bob@example.com" {
			t.Errorf("sender of the form upload: %q %q", f.SenderName, f.SenderEmail)
		}
		if f.File.AccountID != owner.ID || f.File.Shared {
			t.Errorf("received file %+v: want the owner's, unshared", f.File)
		}
	}
	for _, path := range []string{"/f/" + html.Slug, "/f/" + html.Slug + "/download", "/f/" + html.Slug + "/card.png"} {
		if resp, _ := e.get(e.app.URL + path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s of an unshared file: %d, want 404", path, resp.StatusCode)
		}
	}

	// The owner sees who sent what, downloads as an attachment, shares.
	o := newAppBrowser(e)
	o.login("owner@example.com", testPassword)
	_, page = o.get("/requests/" + string(req.ID))
	if !strings.Contains(page, "Bob") || !strings.Contains(page, "bob@example.com") || !strings.Contains(page, "&lt;img src=x") {
		t.Errorf("the owner's request page does not list the senders: %s", page)
	}
	resp, body := o.get("/files/" + string(html.ID) + "/download")
	if resp.StatusCode != http.StatusOK || body != string(content) || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" || strings.Contains(resp.Header.Get("Content-Type"), "html") {
		t.Errorf("owner download: %d %v", resp.StatusCode, resp.Header)
	}
	csrf := o.token("/requests/" + string(req.ID))
	resp, _ = o.post("/files/"+string(html.ID)+"/share", url.Values{"csrf": {csrf}, "back": {"/requests/" + string(req.ID)}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/requests/"+string(req.ID)+"?done=shared" {
		t.Fatalf("share: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := e.get(e.app.URL + "/f/" + html.Slug); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /f/<slug> once shared: %d, want 200", resp.StatusCode)
	}
}

func TestRequestLimits(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()), func(c *Config) {
		c.Quotas = map[fileframe.Plan]fileframe.Quota{fileframe.PlanFree: {Storage: 3000}}
		c.RequestUploads = RateLimit{PerSecond: 1, Burst: 1000}
	})
	owner := e.account(fileframe.PlanFree)

	t.Run("count and size", func(t *testing.T) {
		req := newFileRequest(t, e, owner, service.NewRequest{MaxFiles: 2, MaxBytes: 1000})
		s := openRequestPage(t, e, req.Slug)
		if got := s.send("big.bin", make([]byte, 1001)); got != http.StatusRequestEntityTooLarge {
			t.Errorf("a file over the request's size: %d, want 413", got)
		}
		if got := s.send("a.bin", make([]byte, 600)); got != http.StatusNoContent {
			t.Fatalf("first file: %d", got)
		}
		if got := s.send("b.bin", make([]byte, 401)); got != http.StatusRequestEntityTooLarge {
			t.Errorf("a file over what is left: %d, want 413", got)
		}
		if resp, page := s.form(map[string][]byte{"b.txt": make([]byte, 401)}); resp.StatusCode != http.StatusRequestEntityTooLarge ||
			!strings.Contains(page, "size limit") {
			t.Errorf("a form file over what is left: %d, want 413 with the reason", resp.StatusCode)
		}
		if resp, page := s.form(map[string][]byte{"b.txt": make([]byte, 300)}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("second file by form: %d %s", resp.StatusCode, page)
		}
		if got := s.send("c.bin", []byte("x")); got != http.StatusConflict {
			t.Errorf("a file beyond the count: %d, want 409", got)
		}
		if resp, _ := s.form(map[string][]byte{"c.txt": []byte("x")}); resp.StatusCode != http.StatusConflict {
			t.Errorf("a form file beyond the count: %d, want 409", resp.StatusCode)
		}
	})

	t.Run("the owner's quota", func(t *testing.T) {
		req := newFileRequest(t, e, owner, service.NewRequest{MaxFiles: 10, MaxBytes: 3000})
		s := openRequestPage(t, e, req.Slug)
		// 900 of the 3000 bytes are taken by the first subtest.
		if got := s.send("fits.bin", make([]byte, 2000)); got != http.StatusNoContent {
			t.Fatalf("a file within the quota: %d", got)
		}
		if got := s.send("over.bin", make([]byte, 101)); got != http.StatusRequestEntityTooLarge {
			t.Errorf("a file over the owner's quota: %d, want 413", got)
		}
	})

	t.Run("closed and expired", func(t *testing.T) {
		closed := newFileRequest(t, e, owner, service.NewRequest{MaxFiles: 10, MaxBytes: 1000})
		s := openRequestPage(t, e, closed.Slug)
		_, loc := s.create("late.bin", 3, "")
		if err := e.srv.svc.CloseRequest(context.Background(), owner, closed.ID); err != nil {
			t.Fatal(err)
		}
		if resp, _ := s.b.get("/r/" + closed.Slug); resp.StatusCode != http.StatusGone {
			t.Errorf("GET of a closed request: %d, want 410", resp.StatusCode)
		}
		if resp, _ := s.tus(http.MethodPatch, loc, []byte("abc"), "Upload-Offset", "0", "Content-Type", "application/offset+octet-stream"); resp.StatusCode != http.StatusGone {
			t.Errorf("finishing an upload after the close: %d, want 410", resp.StatusCode)
		}
		if resp, _ := s.form(map[string][]byte{"x.txt": []byte("x")}); resp.StatusCode != http.StatusGone {
			t.Errorf("a form upload to a closed request: %d, want 410", resp.StatusCode)
		}
		if n := receivedNames(t, e, closed.ID, ""); len(n) != 0 {
			t.Errorf("a closed request received %v", n)
		}
		// A request lasts at least a minute (CreateRequest): one that ended
		// is made in the store.
		expiring, err := e.store.CreateRequest(context.Background(), fileframe.Request{AccountID: owner.ID, Title: "Ended",
			MaxFiles: 10, MaxBytes: 1000, CreatedAt: time.Now().Add(-time.Hour), ExpiresAt: time.Now().Add(-time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if resp, body := e.get(e.app.URL + "/r/" + expiring.Slug); resp.StatusCode != http.StatusGone || !strings.Contains(string(body), "no longer takes files") {
			t.Errorf("GET of an expired request: %d, want 410", resp.StatusCode)
		}
		if resp, _ := e.get(e.app.URL + "/r/AAAAAAAAAAAA"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET of an unknown request: %d, want 404", resp.StatusCode)
		}
	})

	t.Run("password", func(t *testing.T) {
		req := newFileRequest(t, e, owner, service.NewRequest{MaxFiles: 10, MaxBytes: 1000, Password: "open sesame"})
		b := newAppBrowser(e)
		resp, page := b.get("/r/" + req.Slug)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "protected by a password") || strings.Contains(page, "data-csrf") {
			t.Fatalf("a protected request without the password: %d, want its password form", resp.StatusCode)
		}
		if _, ok := b.cookies[requestCookieName]; ok {
			t.Errorf("a protected request started a visit before the password")
		}
		csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)[1]
		if resp, _ := b.post("/r/"+req.Slug+"/unlock", url.Values{"csrf": {csrf}, "password": {"wrong"}}); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a wrong password: %d, want 401", resp.StatusCode)
		}
		if resp, _ := b.post("/r/"+req.Slug+"/unlock", url.Values{"csrf": {csrf}, "password": {"open sesame"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("the right password: %d, want 303", resp.StatusCode)
		}
		_, page = b.get("/r/" + req.Slug)
		s := &sender{b: b, slug: req.Slug, token: pageToken(t, page)}
		if got := s.send("in.bin", []byte("abc")); got != http.StatusNoContent {
			t.Errorf("an upload after the password: %d", got)
		}
		// Without the visit: nothing goes in.
		stranger := &sender{b: newAppBrowser(e), slug: req.Slug, token: s.token}
		if got := stranger.send("no.bin", []byte("abc")); got != http.StatusForbidden {
			t.Errorf("a tus upload without the visit: %d, want 403", got)
		}
	})

	t.Run("parallel uploads race for the last places", func(t *testing.T) {
		const places, tries = 3, 12
		req := newFileRequest(t, e, owner, service.NewRequest{MaxFiles: places, MaxBytes: 1000})
		var wg sync.WaitGroup
		var mu sync.Mutex
		statuses := map[int]int{}
		for i := range tries {
			s := openRequestPage(t, e, req.Slug)
			wg.Go(func() {
				var got int
				if i%2 == 0 {
					got = s.send(fmt.Sprintf("t%d.bin", i), []byte("abc"))
				} else {
					resp, _ := s.form(map[string][]byte{fmt.Sprintf("f%d.bin", i): []byte("abc")})
					got = resp.StatusCode
				}
				mu.Lock()
				statuses[got]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if n := len(receivedNames(t, e, req.ID, "")); n != places || statuses[http.StatusNoContent]+statuses[http.StatusSeeOther] != places {
			t.Errorf("%d uploads at once to a request of %d: %d stored, answers %v", tries, places, n, statuses)
		}
	})
}

func TestRequestRateLimit(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()), func(c *Config) {
		c.RequestUploads = RateLimit{PerSecond: 0.001, Burst: 2}
	})
	owner := e.account(fileframe.PlanFree)
	req := newFileRequest(t, e, owner, service.NewRequest{MaxFiles: 10, MaxBytes: 1000})
	s := openRequestPage(t, e, req.Slug)
	for i := range 2 {
		if got := s.send(fmt.Sprintf("%d.bin", i), []byte("abc")); got != http.StatusNoContent {
			t.Fatalf("upload %d within the rate: %d", i, got)
		}
	}
	resp, _ := s.create("third.bin", 3, "")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("an upload over the rate: %d, Retry-After %q; want 429 with it", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp, _ := s.form(map[string][]byte{"x.txt": []byte("x")}); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a form upload over the rate: %d, want 429", resp.StatusCode)
	}
	// Another request has its own bucket.
	other := newFileRequest(t, e, owner, service.NewRequest{MaxFiles: 10, MaxBytes: 1000})
	if got := openRequestPage(t, e, other.Slug).send("ok.bin", []byte("abc")); got != http.StatusNoContent {
		t.Errorf("an upload to another request: %d, want 204", got)
	}
}

// countingReserves is a store that counts Reserve calls.
type countingReserves struct {
	fileframe.Store
	n atomic.Int64
}

func (c *countingReserves) Reserve(ctx context.Context, r fileframe.Reservation, q fileframe.Quota, now time.Time) (int64, error) {
	c.n.Add(1)
	return c.Store.Reserve(ctx, r, q, now)
}

// TestRequestFormUploadsNearTheLimit: form uploads (whose size is not
// known before their bytes) into a request with less room left than a
// reservation step fit exactly as many as the room takes, also in
// parallel, each with a handful of reservations (docs/security.md, attack
// rows 375 and 376: each byte after the first reservation took one of its own, and a
// 30 KB file waited 30 to 60 s; ten parallel senders got one file in
// where three fit).
func TestRequestFormUploadsNearTheLimit(t *testing.T) {
	var counting *countingReserves
	e := newTestEnv(t, withUploads(t.TempDir()), func(c *Config) {
		counting = &countingReserves{Store: c.Store}
		c.Store = counting
		c.RequestUploads = RateLimit{PerSecond: 1, Burst: 1000}
	})
	owner := e.account(fileframe.PlanFree)
	req := newFileRequest(t, e, owner, service.NewRequest{MaxFiles: 100, MaxBytes: 100_000})
	content := bytes.Repeat([]byte("q"), 30_000)

	// One after another: two fit.
	for i := range 2 {
		s := openRequestPage(t, e, req.Slug)
		before := counting.n.Load()
		if resp, page := s.form(map[string][]byte{fmt.Sprintf("s%d.bin", i): content}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("form upload %d: %d %s", i, resp.StatusCode, page)
		}
		if n := counting.n.Load() - before; n > 8 {
			t.Errorf("form upload %d of 30 KB took %d reservations, want a handful", i, n)
		}
	}
	// Ten at once with 40 KB left: exactly one more fits.
	var wg sync.WaitGroup
	var ok, full atomic.Int64
	for i := range 10 {
		s := openRequestPage(t, e, req.Slug)
		wg.Go(func() {
			resp, _ := s.form(map[string][]byte{fmt.Sprintf("p%d.bin", i): content})
			switch resp.StatusCode {
			case http.StatusSeeOther:
				ok.Add(1)
			case http.StatusRequestEntityTooLarge:
				full.Add(1)
			default:
				t.Errorf("parallel form upload: %d, want 303 or 413", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || full.Load() != 9 {
		t.Errorf("ten parallel 30 KB uploads with 40 KB left: %d in, %d refused; want 1 and 9", ok.Load(), full.Load())
	}
	if got, _ := e.store.RequestByID(context.Background(), req.ID); got.Received != 3 || got.ReceivedBytes != 90_000 {
		t.Errorf("the request received %d files, %d bytes; want 3, 90000", got.Received, got.ReceivedBytes)
	}
}

// TestRequestFormStalls: a sender whose form stops arriving, in a file's
// bytes or between parts, gets 408; one whose form is cut, 400; neither is
// logged as a server error (the outside attack's row 399).
func TestRequestFormStalls(t *testing.T) {
	e := newTestEnv(t, withUploads(t.TempDir()), func(c *Config) { c.UploadIdleTimeout = 300 * time.Millisecond })
	owner := e.account(fileframe.PlanFree)
	req := newFileRequest(t, e, owner, service.NewRequest{MaxFiles: 10, MaxBytes: 1 << 20})
	host := strings.TrimPrefix(e.app.URL, "http://")
	const boundary = "XyZrequest"
	for _, tt := range []struct {
		name   string
		part   string
		stall  bool
		status int
	}{
		{"stalls inside a file", "\r\n--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n\r\n" + strings.Repeat("x", 3000), true, http.StatusRequestTimeout},
		{"stalls between parts", "\r\n--" + boundary + "\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAnn", true, http.StatusRequestTimeout},
		{"cut inside a file", "\r\n--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n\r\n" + strings.Repeat("x", 3000), false, http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openRequestPage(t, e, req.Slug)
			head := fmt.Sprintf("POST /r/%s/upload HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\nOrigin: %s\r\n"+
				"Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: 100000\r\n\r\n",
				req.Slug, host, s.b.cookieHeader(), e.app.URL, boundary)
			first := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n" + s.token
			if status, body := rawExchange(t, host, head, first+tt.part, tt.stall); status != tt.status {
				t.Errorf("got %d, want %d:\n%s", status, tt.status, body)
			}
		})
	}
	if strings.Contains(e.logs.String(), `"level":"ERROR"`) {
		t.Errorf("a sender's stall or cut was logged as a server error:\n%s", e.logs.String())
	}
}

// outageBlobs is a blob store whose Put fails, as S3 out of reach does,
// while down is set.
type outageBlobs struct {
	fileframe.Blobs
	down *atomic.Bool
}

func (b outageBlobs) Put(ctx context.Context, r io.Reader) (fileframe.BlobInfo, error) {
	if b.down.Load() {
		return fileframe.BlobInfo{}, fmt.Errorf("s3: put: %w", fileframe.Errorf(fileframe.CodeUnavailable, "The file storage is out of reach just now."))
	}
	return b.Blobs.Put(ctx, r)
}

// TestRequestFormBlobsOutOfReach: a sender's form upload while the blob
// store is out of reach is 503 with Retry-After, saying so, and warned of
// in the log, like every other 503 of an outage (the eighteenth attack,
// row 662: no Retry-After, logged at INFO); once it is back, the same form
// goes through.
func TestRequestFormBlobsOutOfReach(t *testing.T) {
	var down atomic.Bool
	e := newTestEnv(t, withUploads(t.TempDir()), func(c *Config) {
		c.Blobs = outageBlobs{Blobs: c.Blobs, down: &down}
	})
	owner := e.account(fileframe.PlanFree)
	req := newFileRequest(t, e, owner, service.NewRequest{MaxFiles: 10, MaxBytes: 100_000})
	s := openRequestPage(t, e, req.Slug)
	down.Store(true)
	resp, page := s.form(map[string][]byte{"contract.pdf": []byte("%PDF-1.7 signed")})
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(page, "out of reach") {
		t.Errorf("form upload with the blob store out of reach: %d, Retry-After %q, page:\n%s\nwant 503 with Retry-After saying so",
			resp.StatusCode, resp.Header.Get("Retry-After"), page)
	}
	if !strings.Contains(e.logs.String(), "database or file storage out of reach: a request was answered 503") {
		t.Errorf("the 503 was not warned of:\n%s", e.logs.String())
	}
	down.Store(false)
	if resp, page := s.form(map[string][]byte{"contract.pdf": []byte("%PDF-1.7 signed")}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("form upload once the blob store is back: %d %s, want 303", resp.StatusCode, page)
	}
}

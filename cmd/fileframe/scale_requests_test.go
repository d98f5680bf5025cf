package main

import (
	"bytes"
	"context"
	"encoding/base64"
	mrand "math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/postgres"
)

// requestSender is a stranger's browser on a file request's page: a
// cookie jar (the visit cookie, which instances sharing the store all
// accept) and the visit's token read from the page.
type requestSender struct {
	t      *testing.T
	client *http.Client
	token  string
}

var visitToken = regexp.MustCompile(`data-csrf="([^"]+)"`)

func newRequestSender(t *testing.T, page string) *requestSender {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	s := &requestSender{t: t, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	resp, body := s.do(http.MethodGet, page, nil)
	m := visitToken.FindSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("GET %s: %d, no upload form:\n%s", page, resp.StatusCode, body)
	}
	s.token = string(m[1])
	return s
}

func (s *requestSender) do(method, url string, body []byte, header ...string) (*http.Response, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("X-CSRF-Token", s.token)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp, b.Bytes()
}

// upload sends content as name through tus: created through the first
// instance's endpoint, its bytes split over every instance's (each
// PATCH resumes what the one before sent). It returns the status of the
// creation when it fails, else of the last PATCH.
func (s *requestSender) upload(slug, name string, content []byte, through ...*serveProc) int {
	s.t.Helper()
	meta := "filename " + base64.StdEncoding.EncodeToString([]byte(name))
	resp, _ := s.do(http.MethodPost, through[0].app+"/r/"+slug+"/tus/", nil,
		"Upload-Length", strconv.Itoa(len(content)), "Upload-Metadata", meta)
	if resp.StatusCode != http.StatusCreated {
		return resp.StatusCode
	}
	loc := resp.Header.Get("Location")
	id := loc[len(through[0].app+"/r/"+slug+"/tus/"):]
	step := len(content)/len(through) + 1
	status := 0
	for i, p := range through {
		from, to := i*step, min((i+1)*step, len(content))
		resp, body := s.do(http.MethodPatch, p.app+"/r/"+slug+"/tus/"+id, content[from:to],
			"Upload-Offset", strconv.Itoa(from), "Content-Type", "application/offset+octet-stream")
		if resp.StatusCode != http.StatusNoContent {
			s.t.Logf("PATCH through %s: %d %s", p.app, resp.StatusCode, body)
		}
		status = resp.StatusCode
	}
	return status
}

// TestScaleRequests checks file requests on instances sharing PostgreSQL
// and S3: a sender's upload starts on one instance and ends on another;
// the received file is private on every instance until the owner shares
// it through one, then served byte for byte by the other; and senders
// racing through both instances for a request's last places get exactly
// that many files in.
func TestScaleRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _, env, cli := scaleEnv(t)
	cli("account", "create", "--email", "owner@example.com", "--plan", "agency")
	key := cli("key", "create", "--email", "owner@example.com")["key"].(string)
	a := startServeEnv(t, env, t.TempDir(), "--request-upload-burst", "100")
	b := startServeEnv(t, env, t.TempDir(), "--request-upload-burst", "100")
	store, err := postgres.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	req := cli("request", "create", "--email", "owner@example.com", "--title", "Scans", "--max-files", "5", "--max-size", "10MiB", "--base-url", a.app)
	slug, id := req["slug"].(string), fileframe.RequestID(req["requestId"].(string))
	if req["url"] != a.app+"/r/"+slug {
		t.Errorf("request create --json url %v, want %s", req["url"], a.app+"/r/"+slug)
	}
	content := make([]byte, 3<<20)
	mrand.NewChaCha8([32]byte{13}).Read(content)
	s := newRequestSender(t, a.app+"/r/"+slug)
	if got := s.upload(slug, "scan.pdf", content, a, b); got != http.StatusNoContent {
		t.Fatalf("an upload begun on A and finished on B: %d, want 204", got)
	}
	files, err := store.ReceivedFiles(ctx, id, "")
	if err != nil || len(files) != 1 {
		t.Fatalf("ReceivedFiles: %d, %v; want 1", len(files), err)
	}
	f := files[0].File
	for _, p := range []*serveProc{a, b} {
		if resp, _ := httpGet(t, p.app+"/f/"+f.Slug+"/download"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("download of the unshared file through %s: %d, want 404", p.app, resp.StatusCode)
		}
	}
	share, _ := http.NewRequest(http.MethodPost, a.app+"/api/files/"+string(f.ID)+"/share", nil)
	share.Header.Set("Authorization", "Bearer "+key)
	if resp, body := httpDo(t, share); resp.StatusCode != http.StatusOK {
		t.Fatalf("share through A: %d %s", resp.StatusCode, body)
	}
	download(t, b, f.Slug, content)

	// Eight senders race for the last places of a request of three,
	// through both instances at once.
	race := cli("request", "create", "--email", "owner@example.com", "--title", "Race", "--max-files", "3", "--max-size", "1MiB")
	raceSlug, raceID := race["slug"].(string), fileframe.RequestID(race["requestId"].(string))
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for i := range 8 {
		p := []*serveProc{a, b}[i%2]
		sender := newRequestSender(t, p.app+"/r/"+raceSlug)
		wg.Go(func() {
			got := sender.upload(raceSlug, "part"+strconv.Itoa(i)+".bin", []byte("0123456789"), p)
			mu.Lock()
			statuses[got]++
			mu.Unlock()
		})
	}
	wg.Wait()
	received, err := store.ReceivedFiles(ctx, raceID, "")
	if err != nil || len(received) != 3 || statuses[http.StatusNoContent] != 3 || statuses[http.StatusConflict] != 5 {
		t.Errorf("8 senders racing for 3 places on two instances: %d stored (%v), answers %v; want 3 stored, 3×204 and 5×409", len(received), err, statuses)
	}
	for _, p := range []*serveProc{a, b} {
		p.stop()
		p.checkJSONLogs()
	}
}

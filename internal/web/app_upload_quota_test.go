package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestQuotaHoldsUnderConcurrency: with 1 MB of storage, 20 uploads of
// 800 kB at once store one file, through every way a file comes in: the
// API's multipart and raw bodies, the form without JavaScript, and tus,
// whose uploads reserve their room when they are created (issue 9, item
// 2: 6 to 10 of 20 were stored before reservations, and 15 tus uploads
// were all created and filled).
func TestQuotaHoldsUnderConcurrency(t *testing.T) {
	const (
		quota = 1_000_000
		size  = 800_000
		n     = 20
	)
	quotas := func(c *Config) {
		c.Quotas = map[fileframe.Plan]fileframe.Quota{
			fileframe.PlanFree:   {Storage: quota},
			fileframe.PlanAgency: {Storage: quota},
		}
	}
	content := randomBytes(t, size)
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	// parallel sends n requests made by newReq at once and returns how many
	// got each status.
	parallel := func(t *testing.T, newReq func(i int) *http.Request) map[int]int {
		t.Helper()
		statuses := map[int]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			req := newReq(i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				resp, err := noRedirects.Do(req)
				if err != nil {
					t.Errorf("request %d: %v", i, err)
					return
				}
				resp.Body.Close()
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			}()
		}
		close(start)
		wg.Wait()
		return statuses
	}
	// stored checks the account's files: at most the quota, and exactly
	// want files.
	stored := func(t *testing.T, e *testEnv, a fileframe.AccountID, want int) {
		t.Helper()
		files, err := e.store.FilesByAccount(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, f := range files {
			sum += f.Size
		}
		if len(files) != want || sum > quota {
			t.Errorf("stored %d files, %d bytes; want %d files within %d bytes", len(files), sum, want, quota)
		}
	}

	t.Run("API multipart", func(t *testing.T) {
		e := newTestEnv(t, quotas)
		a := e.account(fileframe.PlanAgency)
		key, _ := e.key(a, "")
		got := parallel(t, func(i int) *http.Request {
			ct, body := multipartBody(t, "@f"+strconv.Itoa(i)+".bin", string(content))
			req, _ := http.NewRequest(http.MethodPost, e.app.URL+"/api/files", body)
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", ct)
			return req
		})
		if got[http.StatusCreated] != 1 || got[http.StatusRequestEntityTooLarge] != n-1 {
			t.Errorf("statuses: got %v, want one 201 and %d 413", got, n-1)
		}
		stored(t, e, a.ID, 1)
	})

	t.Run("API raw body", func(t *testing.T) {
		e := newTestEnv(t, quotas)
		a := e.account(fileframe.PlanAgency)
		key, _ := e.key(a, "")
		got := parallel(t, func(i int) *http.Request {
			req, _ := http.NewRequest(http.MethodPost, e.app.URL+"/api/files?name=f"+strconv.Itoa(i)+".bin", bytes.NewReader(content))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/octet-stream")
			return req
		})
		if got[http.StatusCreated] != 1 || got[http.StatusRequestEntityTooLarge] != n-1 {
			t.Errorf("statuses: got %v, want one 201 and %d 413", got, n-1)
		}
		stored(t, e, a.ID, 1)
	})

	t.Run("form without JavaScript", func(t *testing.T) {
		e := newTestEnv(t, quotas)
		c, a := signedInUploader(e, "form@example.com", fileframe.PlanFree)
		got := parallel(t, func(i int) *http.Request {
			ct, body := multipartBody(t, "csrf", c.csrf, "@f"+strconv.Itoa(i)+".bin", string(content))
			req, _ := http.NewRequest(http.MethodPost, e.app.URL+uploadFormPath, body)
			req.Header.Set("Content-Type", ct)
			for k, v := range c.b.cookies {
				req.AddCookie(&http.Cookie{Name: k, Value: v})
			}
			return req
		})
		if got[http.StatusSeeOther] != 1 || got[http.StatusRequestEntityTooLarge] != n-1 {
			t.Errorf("statuses: got %v, want one 303 and %d 413", got, n-1)
		}
		stored(t, e, a.ID, 1)
	})

	t.Run("tus", func(t *testing.T) {
		e := newTestEnv(t, quotas, withUploads(t.TempDir()))
		c, a := signedInUploader(e, "tus@example.com", fileframe.PlanFree)
		var mu sync.Mutex
		var created []string
		tusReq := func(method, url string, body []byte, header ...string) *http.Request {
			req, _ := http.NewRequest(method, url, bytes.NewReader(body))
			req.Header.Set("Tus-Resumable", "1.0.0")
			req.Header.Set(csrfHeader, c.csrf)
			for k, v := range c.b.cookies {
				req.AddCookie(&http.Cookie{Name: k, Value: v})
			}
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			return req
		}
		var wg sync.WaitGroup
		statuses := map[int]int{}
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				meta := "filename " + base64.StdEncoding.EncodeToString([]byte("f"+strconv.Itoa(i)+".bin"))
				resp, err := http.DefaultClient.Do(tusReq(http.MethodPost, e.app.URL+tusBasePath, nil,
					"Upload-Length", strconv.Itoa(size), "Upload-Metadata", meta))
				if err != nil {
					t.Errorf("tus POST: %v", err)
					return
				}
				resp.Body.Close()
				mu.Lock()
				defer mu.Unlock()
				statuses[resp.StatusCode]++
				if resp.StatusCode == http.StatusCreated {
					created = append(created, resp.Header.Get("Location"))
				}
			}()
		}
		wg.Wait()
		if statuses[http.StatusCreated] != 1 || statuses[http.StatusRequestEntityTooLarge] != n-1 {
			t.Fatalf("tus creations: got %v, want one 201 and %d 413", statuses, n-1)
		}
		// The one created fills and becomes the file; then its room is the
		// file's, and another upload of the rest fits, and no more.
		resp, body := c.patch(created[0], 0, content)
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("PATCH: got %d: %s", resp.StatusCode, body)
		}
		stored(t, e, a.ID, 1)
		if resp, body := c.createResp("rest.bin", quota-size); resp.StatusCode != http.StatusCreated {
			t.Errorf("an upload of what is left: got %d: %s", resp.StatusCode, body)
		}
		if resp, _ := c.createResp("more.bin", 1); resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("an upload beyond the quota while another holds the rest: got %d, want 413", resp.StatusCode)
		}
	})

	t.Run("a cancelled tus upload gives its room back", func(t *testing.T) {
		e := newTestEnv(t, quotas, withUploads(t.TempDir()))
		c, _ := signedInUploader(e, "cancel@example.com", fileframe.PlanFree)
		url := c.create("a.bin", size)
		if resp, _ := c.createResp("b.bin", size); resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("second upload while the first holds the room: got %d, want 413", resp.StatusCode)
		}
		if resp, body := c.request(http.MethodDelete, url, nil); resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: got %d: %s", resp.StatusCode, body)
		}
		c.create("b.bin", size)
	})
}

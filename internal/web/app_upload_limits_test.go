package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestAppearanceImagesCountInQuota: appearance images count in the storage
// quota beside files (issue 9, outside attack B6: five files' appearances
// stored 19 MB beyond a 1 MB quota). An appearance whose images do not fit
// is refused with the editor, as filled, saying why, and its images are
// not kept; files then find the room the images take.
func TestAppearanceImagesCountInQuota(t *testing.T) {
	e := newTestEnv(t, func(c *Config) {
		c.Quotas = map[fileframe.Plan]fileframe.Quota{fileframe.PlanPro: {Storage: 100_000}}
		c.Now = func() time.Time { return time.Now().Add(2 * fileframe.BlobGrace) }
	})
	ctx := context.Background()
	b, a := signedInAs(e, "pro@example.com", fileframe.PlanPro)
	f := e.file(a, "report.pdf", bytes.Repeat([]byte("x"), 50_000))
	big := append(pngImage(t), make([]byte, 60_000)...)
	resp, body := b.postEditor("/appearance", url.Values{"template": {"photo"}, "headline": {"Kept as typed"}},
		editorFile{"logo", "logo.png", big})
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "do not fit in what is left of the Pro plan") ||
		!strings.Contains(body, `value="Kept as typed"`) {
		t.Fatalf("an appearance over the quota: got %d, want 413 with the editor saying so:\n%s", resp.StatusCode, body)
	}
	if got, _ := e.store.AccountAppearance(ctx, a.ID); !got.IsZero() {
		t.Errorf("an appearance over the quota was stored: %+v", got)
	}
	sum := sha256.Sum256(big)
	if _, err := e.blobs.Stat(ctx, hex.EncodeToString(sum[:])); !fileframe.IsNotFound(err) {
		t.Errorf("the refused logo's blob: %v, want ENOTFOUND", err)
	}

	logo := append(pngImage(t), make([]byte, 30_000)...)
	resp, body = b.postEditor("/appearance", url.Values{"template": {"photo"}}, editorFile{"logo", "logo.png", logo})
	wantSaved(t, resp, body, "/appearance")
	look, _ := e.store.AccountAppearance(ctx, a.ID)
	if look.LogoBytes != int64(len(logo)) {
		t.Errorf("the logo's size: got %d, want %d", look.LogoBytes, len(logo))
	}
	// The same logo on the file's own appearance counts again: the quota
	// is what the owner sees, each appearance with its images.
	resp, body = b.postEditor("/files/"+string(f.ID)+"/appearance", url.Values{"template": {"card"}}, editorFile{"background", "b.png", logo})
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a file appearance beyond the quota: got %d, want 413:\n%s", resp.StatusCode, body)
	}
	// Saving again with the same images (new words) fits at any time.
	resp, body = b.postEditor("/appearance", url.Values{"template": {"bold"}, "headline": {"New"}})
	wantSaved(t, resp, body, "/appearance")

	// 50,000 + ~30,100 used: a file of 25,000 does not fit, one of 15,000 does.
	c := &tusClient{b: b, csrf: b.token("/account")}
	for _, tt := range []struct {
		size   int
		status int
	}{{25_000, http.StatusRequestEntityTooLarge}, {15_000, http.StatusSeeOther}} {
		ct, form := multipartBody(t, "csrf", c.csrf, "@f.bin", strings.Repeat("y", tt.size))
		req, _ := http.NewRequest(http.MethodPost, e.app.URL+uploadFormPath, form)
		req.Header.Set("Content-Type", ct)
		if resp, body := b.send(req); resp.StatusCode != tt.status {
			t.Errorf("a file of %d bytes beside the images: got %d, want %d:\n%s", tt.size, resp.StatusCode, tt.status, body)
		}
	}
	// Removing the logo gives its room back.
	resp, body = b.postEditor("/appearance", url.Values{"template": {"bold"}, "logo_remove": {"1"}})
	wantSaved(t, resp, body, "/appearance")
	if err := e.srv.svc.ReserveUpload(ctx, a, "probe", "p.bin", 100_000-65_000); err != nil {
		t.Errorf("the logo's room after removing it: %v", err)
	}
}

// TestUploadFileCounts: the plan's number of files holds under parallel
// uploads, empty files included, and one request sends at most
// maxFilesPerRequest files, the answer listing those it stored (issue 9,
// B6: 3,000 empty files in one request, without end).
func TestUploadFileCounts(t *testing.T) {
	t.Run("the plan's number of files, in parallel", func(t *testing.T) {
		e := newTestEnv(t, func(c *Config) {
			c.Quotas = map[fileframe.Plan]fileframe.Quota{fileframe.PlanAgency: {Files: 5}}
		})
		a := e.account(fileframe.PlanAgency)
		key, _ := e.key(a, "")
		var wg sync.WaitGroup
		var mu sync.Mutex
		statuses := map[int]int{}
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, body := e.apiUpload(key, "application/octet-stream", "?name=e"+strconv.Itoa(i), bytes.NewReader(nil))
				if resp.StatusCode == http.StatusRequestEntityTooLarge && !bytes.Contains(body, []byte(`"code":"file_count_exceeded"`)) {
					t.Errorf("413 without file_count_exceeded: %s", body)
				}
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if statuses[http.StatusCreated] != 5 || statuses[http.StatusRequestEntityTooLarge] != 15 {
			t.Errorf("20 empty files at once against 5: got %v", statuses)
		}
		if files, _ := e.store.FilesByAccount(context.Background(), a.ID); len(files) != 5 {
			t.Errorf("stored %d files, want 5", len(files))
		}
	})

	parts := func(n int, extra ...string) []string {
		fields := extra
		for i := range n {
			fields = append(fields, "@f"+strconv.Itoa(i)+".txt", "x")
		}
		return fields
	}
	t.Run("API: at most 100 files a request", func(t *testing.T) {
		e := newTestEnv(t)
		a := e.account(fileframe.PlanAgency)
		key, _ := e.key(a, "")
		ct, body := multipartBody(t, parts(maxFilesPerRequest+1)...)
		resp, got := e.apiUpload(key, ct, "", body)
		var p struct {
			Code  string         `json:"code"`
			Files []uploadedFile `json:"files"`
		}
		json.Unmarshal(got, &p)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || p.Code != fileframe.CodeTooManyFiles || len(p.Files) != maxFilesPerRequest {
			t.Fatalf("101 files in one request: got %d %q with %d files listed, want 413 too_many_files listing 100", resp.StatusCode, p.Code, len(p.Files))
		}
		if files, _ := e.store.FilesByAccount(context.Background(), a.ID); len(files) != maxFilesPerRequest || p.Files[0].Name != "f0.txt" {
			t.Errorf("stored %d files (first listed %q), want the first 100", len(files), p.Files[0].Name)
		}
		ct, body = multipartBody(t, parts(maxFilesPerRequest)...)
		if resp, got := e.apiUpload(key, ct, "", body); resp.StatusCode != http.StatusCreated {
			t.Errorf("100 files in one request: got %d %s", resp.StatusCode, got)
		}
	})

	t.Run("form: at most 100 files a request", func(t *testing.T) {
		e := newTestEnv(t)
		c, a := signedInUploader(e, "many@example.com", fileframe.PlanFree)
		ct, form := multipartBody(t, parts(maxFilesPerRequest+1, "csrf", c.csrf)...)
		req, _ := http.NewRequest(http.MethodPost, e.app.URL+uploadFormPath, form)
		req.Header.Set("Content-Type", ct)
		resp, body := c.b.send(req)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "at most 100 files") {
			t.Errorf("101 files in one form: got %d, want 413 saying so:\n%s", resp.StatusCode, body)
		}
		if files, _ := e.store.FilesByAccount(context.Background(), a.ID); len(files) != maxFilesPerRequest {
			t.Errorf("stored %d files, want the first 100", len(files))
		}
	})
}

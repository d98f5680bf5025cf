package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fileframe/fileframe/internal/postgres"
)

// TestScaleOutPreviews: two instances on one PostgreSQL database and one
// S3 bucket share an image's thumbnail, made once (one row, one blob,
// the same bytes from both, however many ask at once), and serve a PDF's
// ranges from the content origin (issue 13).
func TestScaleOutPreviews(t *testing.T) {
	t.Parallel()
	db := newTestDatabase(t)
	env := append(s3Env(t, startS3(t)), "FILEFRAME_DATABASE_URL="+db)
	cliData := []string{"--data", t.TempDir()}
	cli := func(args ...string) map[string]any {
		t.Helper()
		return cliJSONEnv(t, env, append(args, cliData...)...)
	}
	cli("account", "create", "--email", "photos@example.com", "--plan", "free")
	img := image.NewRGBA(image.Rect(0, 0, 1600, 1000))
	for y := range 1000 {
		for x := range 1600 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 120, 255})
		}
	}
	var pngBytes bytes.Buffer
	if err := png.Encode(&pngBytes, img); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	photo, pdf := filepath.Join(dir, "photo.png"), filepath.Join(dir, "report.pdf")
	pdfBytes := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("% padding\n"), 50_000)...)
	if err := os.WriteFile(photo, pngBytes.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pdf, pdfBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	pf := cli("file", "add", photo, "--email", "photos@example.com")
	df := cli("file", "add", pdf, "--email", "photos@example.com")
	a := startServeEnv(t, env, t.TempDir())
	b := startServeEnv(t, env, t.TempDir())

	thumbPath := "/f/" + pf["slug"].(string) + "/thumb/" + pf["fileId"].(string)
	var mu sync.Mutex
	bodies := map[string]int{}
	var wg sync.WaitGroup
	for i := range 8 {
		app := a.app
		if i%2 == 1 {
			app = b.app
		}
		wg.Go(func() {
			resp, err := http.Get(app + thumbPath)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" {
				t.Errorf("thumbnail from %s: %d %s", app, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			mu.Lock()
			bodies[resp.Header.Get("Etag")+string(body)]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(bodies) != 1 {
		t.Errorf("the instances served %d different thumbnails, want one", len(bodies))
	}

	store, err := postgres.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sum := sha256.Sum256(pngBytes.Bytes())
	p, err := store.Preview(context.Background(), hex.EncodeToString(sum[:]))
	if err != nil || p.Width != 720 || p.Height != 450 {
		t.Errorf("the stored preview: %+v, %v", p, err)
	}
	for body := range bodies {
		if want := `"` + p.ThumbKey + `"`; body[:len(want)] != want {
			t.Errorf("served ETag %.70s, want the stored thumbnail %s", body, want)
		}
	}

	// The PDF's bytes, by range, from the other instance's content origin.
	req, _ := http.NewRequest(http.MethodGet, b.content+"/v/"+df["slug"].(string)+"/"+df["fileId"].(string), nil)
	req.Header.Set("Range", "bytes=100000-100099")
	req.Header.Set("Sec-Fetch-Dest", "empty")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, pdfBytes[100000:100100]) || resp.Header.Get("Content-Type") != "application/pdf" {
		t.Errorf("a PDF range from S3: %d %s, %q", resp.StatusCode, resp.Header.Get("Content-Type"), got)
	}
}

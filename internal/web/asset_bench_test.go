// Benchmarks of storing custom pages through the REST API (the real
// router, real SQLite and disk blobs), with and without remote images that
// the server fetches (zero egress, service/page_assets.go). The remote
// host is a TLS server on loopback (assets_harness_test.go). Figures and
// the command are in docs/performance.md, "Zero egress".

package web

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/sqlite"
)

// pageBench is a server with an Agency account of 32 files and its key.
type pageBench struct {
	h     http.Handler
	key   string
	files []fileframe.File
	next  atomic.Int64
}

func newPageBench(b *testing.B) *pageBench {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "fileframe.db"))
	if err != nil {
		b.Fatal(err)
	}
	blobs, err := disk.Open(filepath.Join(dir, "blobs"))
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(Config{
		Store: store, Blobs: blobs, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		BaseURL:       &url.URL{Scheme: "http", Host: "127.0.0.1:8080"},
		ContentOrigin: &url.URL{Scheme: "http", Host: "127.0.0.1:8081"},
		PreviewSecret: bytes.Repeat([]byte("s"), 32),
		KeyRate:       1e6, KeyBurst: 1e6, IPRate: 1e6, IPBurst: 1e6,
		Fetcher: testFetcher(),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		srv.Close(ctx)
		store.Close()
	})
	acct, err := store.CreateAccount(ctx, fileframe.Account{Email: "bench@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		b.Fatal(err)
	}
	secret, hash, prefix := fileframe.NewKeySecret(fileframe.KeyGeneral)
	if _, err := store.CreateKey(ctx, fileframe.Key{AccountID: acct.ID, Kind: fileframe.KeyGeneral, Hash: hash, Prefix: prefix, Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	pb := &pageBench{h: srv.AppHandler(), key: secret}
	for i := range 32 {
		info, err := blobs.Put(ctx, strings.NewReader(fmt.Sprint("file ", i)))
		if err != nil {
			b.Fatal(err)
		}
		f, err := store.CreateFile(ctx, fileframe.File{AccountID: acct.ID, Name: fmt.Sprintf("f%d.pdf", i), Size: info.Size,
			BlobKey: info.Key, ContentType: "application/pdf"})
		if err != nil {
			b.Fatal(err)
		}
		pb.files = append(pb.files, f)
	}
	return pb
}

// benchPage is a page of about 20 KB, distinct by n, naming imgs.
func benchPage(n int64, imgs []string) string {
	var s strings.Builder
	s.WriteString(`<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Launch</title></head><body>`)
	fmt.Fprintf(&s, "<h1>Version %d</h1>", n)
	for _, img := range imgs {
		fmt.Fprintf(&s, `<img src="%s" alt="">`, img)
	}
	for s.Len() < 20_000 {
		s.WriteString("<p>A paragraph of the launch page, written to fill it to a usual size.</p>\n")
	}
	s.WriteString("</body></html>")
	return s.String()
}

// post stores a new revision of one of the files, naming imgs.
func (pb *pageBench) post(b *testing.B, imgs []string) {
	n := pb.next.Add(1)
	f := pb.files[n%int64(len(pb.files))]
	body := fmt.Sprintf(`{"html":%q,"publish":true}`, benchPage(n, imgs))
	req := httptest.NewRequest(http.MethodPost, "/api/files/"+string(f.ID)+"/page/revisions", strings.NewReader(body))
	req.RemoteAddr = "127.0.0.1:50000"
	req.Host = "127.0.0.1:8080"
	req.Header.Set("Authorization", "Bearer "+pb.key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	pb.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated || bytes.Contains(rec.Body.Bytes(), []byte(`"asset.`)) {
		b.Errorf("POST: %d %s", rec.Code, rec.Body.String())
	}
}

// BenchmarkPostPage stores 20 KB pages over the API, 8 requests at a time:
// without remote images; with 4 that are fetched on every POST (new
// addresses each time, so none is reused); with 4 that the previous
// revision keeps (reused, not fetched); and without remote images while
// other requests wait on a remote host that takes 2 s to answer (fetching
// must not hold up pages that fetch nothing).
func BenchmarkPostPage(b *testing.B) {
	host := newAssetHost(b, "bench.assets.test")
	pic := solidPNG(b, 64, 64, color.RGBA{30, 60, 90, 255})
	var seq atomic.Int64
	host.serveAll("image/png", pic)
	fresh := func() []string {
		n := seq.Add(1)
		return []string{
			fmt.Sprintf("%s/new/%d-a.png", host.origin, n), fmt.Sprintf("%s/new/%d-b.png", host.origin, n),
			fmt.Sprintf("%s/new/%d-c.png", host.origin, n), fmt.Sprintf("%s/new/%d-d.png", host.origin, n),
		}
	}
	kept := []string{host.origin + "/k/a.png", host.origin + "/k/b.png", host.origin + "/k/c.png", host.origin + "/k/d.png"}

	run := func(b *testing.B, imgs func() []string) {
		pb := newPageBench(b)
		for range len(pb.files) { // every file's latest revision has the images kept
			pb.post(b, imgs())
		}
		b.SetParallelism(4) // 8 requests at a time on 2 cores
		b.ResetTimer()
		b.RunParallel(func(p *testing.PB) {
			for p.Next() {
				pb.post(b, imgs())
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	}
	b.Run("remote=none", func(b *testing.B) { run(b, func() []string { return nil }) })
	b.Run("remote=4-fetched", func(b *testing.B) { run(b, fresh) })
	b.Run("remote=4-kept", func(b *testing.B) { run(b, func() []string { return kept }) })
	b.Run("remote=none,beside-slow-fetches", func(b *testing.B) {
		slow := newAssetHost(b, "slow.assets.test")
		slow.delay = 2 * time.Second
		slow.serveAll("image/png", pic)
		pb := newPageBench(b)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 8 { // 8 requests at a time waiting on the slow host
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					n := seq.Add(1)
					pb.post(b, []string{fmt.Sprintf("%s/slow/%d.png", slow.origin, n)})
				}
			})
		}
		time.Sleep(200 * time.Millisecond) // the slow fetches are under way
		b.SetParallelism(4)
		b.ResetTimer()
		b.RunParallel(func(p *testing.PB) {
			for p.Next() {
				pb.post(b, nil)
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		b.StopTimer()
		close(stop)
		wg.Wait()
	})
}

// Benchmarks of the public read paths through the real handler (real SQLite,
// real disk blobs, the full middleware), recorded with httptest.NewRecorder.
//
// Recorded on the 2-core dev machine with:
//
//	go test -run '^$' -bench 'OuterPage|DefaultPage|PublicTemplatePage|Download4KiB' -benchmem ./internal/web
//
//	cpu: AMD EPYC (2 cores, shared, noisy)
//	BenchmarkOuterPage-2      14455   86783 ns/op  10787 B/op  249 allocs/op
//	BenchmarkDefaultPage-2    10221  116316 ns/op  10843 B/op  237 allocs/op
//	BenchmarkDownload4KiB-2   10352  115469 ns/op  15135 B/op  149 allocs/op
//
// A CPU profile of BenchmarkOuterPage puts most of the time in the SQLite
// reads (FileBySlug, AccountByID, PageByFile) and about a quarter in
// html/template; nothing in between allocates per byte served.

package web

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/sqlite"
)

// benchServer is a Server on real parts for benchmarks, with one file of the
// given size on an Agency account, with a published page when publish is set.
func benchServer(b *testing.B, size int, publish bool, opts ...func(*Config)) (http.Handler, fileframe.File) {
	b.Helper()
	srv, f := benchServerLook(b, size, publish, fileframe.Appearance{}, opts...)
	return srv.AppHandler(), f
}

// benchServerLook is benchServer with look as the account's default
// appearance, returning the Server itself.
func benchServerLook(b *testing.B, size int, publish bool, look fileframe.Appearance, opts ...func(*Config)) (*Server, fileframe.File) {
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
	cfg := Config{
		Store:              store,
		Blobs:              blobs,
		Logger:             slog.New(slog.NewJSONHandler(io.Discard, nil)),
		BaseURL:            &url.URL{Scheme: "http", Host: "127.0.0.1:8080"},
		ContentOrigin:      &url.URL{Scheme: "http", Host: "127.0.0.1:8081"},
		PreviewSecret:      bytes.Repeat([]byte("s"), 32),
		CountFlushInterval: time.Second,
	}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := New(cfg)
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
	info, err := blobs.Put(ctx, bytes.NewReader(deterministicBytes(size)))
	if err != nil {
		b.Fatal(err)
	}
	f, err := store.CreateFile(ctx, fileframe.File{
		AccountID: acct.ID, Name: "Quarterly report.pdf", Size: info.Size, BlobKey: info.Key,
		ContentType: "application/pdf",
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := store.SetAccountAppearance(ctx, acct.ID, look, 0, time.Now()); err != nil {
		b.Fatal(err)
	}
	if publish {
		_, err := store.SavePage(ctx, fileframe.PageWrite{
			FileID: f.ID, HTML: []byte(customHTML("bench")), Publish: true, At: time.Now(),
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return srv, f
}

func benchGet(b *testing.B, h http.Handler, path string, wantBytes int) {
	b.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.RemoteAddr = "127.0.0.1:50000"
	req.Host = "127.0.0.1:8080" // the app answers only under its own name
	// As a browser asks, for the content origin's pages: in a frame; with
	// a browser's User-Agent, so that the statistics count it.
	req.Header.Set("Sec-Fetch-Dest", "iframe")
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || (wantBytes > 0 && rec.Body.Len() != wantBytes) {
			b.Fatalf("GET %s: %d with %d bytes", path, rec.Code, rec.Body.Len())
		}
	}
}

func BenchmarkOuterPage(b *testing.B) {
	h, f := benchServer(b, 1000, true)
	benchGet(b, h, "/f/"+f.Slug, 0)
}

func BenchmarkDefaultPage(b *testing.B) {
	h, f := benchServer(b, 1000, false)
	benchGet(b, h, "/f/"+f.Slug, 0)
}

// BenchmarkPublicTemplatePage is BenchmarkDefaultPage with a template
// appearance: both are one cache lookup and one write of a pre-rendered
// page, so they should take the same time.
func BenchmarkPublicTemplatePage(b *testing.B) {
	srv, f := benchServerLook(b, 1000, false, fileframe.Appearance{
		Template: "card", Headline: "Your report is ready", Message: "Thanks for working with us.", Accent: "#0f766e",
	})
	benchGet(b, srv.AppHandler(), "/f/"+f.Slug, 0)
}

// BenchmarkContentPage is the content origin's /p/{slug}/{revision}, the
// bytes of the published page that the outer page frames.
func BenchmarkContentPage(b *testing.B) {
	srv, f := benchServerLook(b, 1000, true, fileframe.Appearance{})
	benchGet(b, srv.ContentHandler(), "/p/"+f.Slug+"/1", len(withPrelude([]byte(customHTML("bench")), preludeFor(srv.factsOf(f)))))
}

func BenchmarkDownload4KiB(b *testing.B) {
	h, f := benchServer(b, 4096, false)
	benchGet(b, h, "/f/"+f.Slug+"/download", 4096)
}

// The same two paths with statistics off (serve --stats=false): what
// counting a visitor costs, as a ratio measured in one run.
func statsOff(c *Config) { c.StatsOff = true }

func BenchmarkOuterPageStatsOff(b *testing.B) {
	h, f := benchServer(b, 1000, true, statsOff)
	benchGet(b, h, "/f/"+f.Slug, 0)
}

func BenchmarkDownload4KiBStatsOff(b *testing.B) {
	h, f := benchServer(b, 4096, false, statsOff)
	benchGet(b, h, "/f/"+f.Slug+"/download", 4096)
}

package storetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// BenchSavePage stores 20 KB pages, each a new revision with new HTML,
// spread over 16 pages, from a few and from many concurrent writers, as
// concurrent API calls do. Every SavePage must be durable when it returns,
// so this is the figure behind "POST custom-html, 20 KB page, acknowledged
// = durable" in DESIGN.md. Pruning keeps each page at 50 revisions. A
// backend's BenchmarkSavePage calls it; newStore makes a fresh store and
// closes it when b ends.
func BenchSavePage(b *testing.B, newStore func(b *testing.B) fileframe.Store) {
	for _, parallelism := range []int{1, 8} {
		writers := parallelism * runtime.GOMAXPROCS(0)
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) { benchSavePage(b, newStore(b), parallelism) })
	}
}

func benchSavePage(b *testing.B, s fileframe.Store, parallelism int) {
	a, err := s.CreateAccount(b.Context(), fileframe.Account{Email: "bench@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		b.Fatalf("CreateAccount: %v", err)
	}
	var files []fileframe.FileID
	for range 16 {
		f, err := s.CreateFile(b.Context(), fileframe.File{AccountID: a.ID, Name: "f"})
		if err != nil {
			b.Fatalf("CreateFile: %v", err)
		}
		files = append(files, f.ID)
	}
	var page bytes.Buffer
	page.WriteString("<!doctype html><html><head><title>Bench</title></head><body><!-- 0000000000000000 -->")
	for page.Len() < 20_000-len("</body></html>") {
		page.WriteString("<p>A paragraph of an AI-written download page.</p>\n")
	}
	page.WriteString("</body></html>")
	const stampAt = len("<!doctype html><html><head><title>Bench</title></head><body><!-- ")

	var seq atomic.Int64
	b.SetBytes(int64(page.Len()))
	b.SetParallelism(parallelism)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		html := bytes.Clone(page.Bytes())
		for pb.Next() {
			n := seq.Add(1)
			copy(html[stampAt:], fmt.Sprintf("%016d", n)) // distinct HTML: no deduplication
			_, err := s.SavePage(b.Context(), fileframe.PageWrite{
				FileID: files[n%int64(len(files))], HTML: html, Publish: n%2 == 0, At: time.Now(),
			})
			if err != nil {
				b.Errorf("SavePage: %v", err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "saves/s")
}

// BenchFileBySlug looks up random files among 10,000 by their public slug,
// the one store read on every /f/<slug> view that misses the public cache.
// A backend's BenchmarkFileBySlug calls it.
func BenchFileBySlug(b *testing.B, newStore func(b *testing.B) fileframe.Store) {
	s := newStore(b)
	a, err := s.CreateAccount(b.Context(), fileframe.Account{Email: "bench@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		b.Fatalf("CreateAccount: %v", err)
	}
	slugs := make([]string, 10_000)
	for i := range slugs {
		f, err := s.CreateFile(b.Context(), fileframe.File{
			AccountID: a.ID, Name: "report.pdf", Size: 1 << 20, ContentType: "application/pdf", BlobKey: "k",
		})
		if err != nil {
			b.Fatalf("CreateFile: %v", err)
		}
		slugs[i] = f.Slug
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			slug := slugs[rand.IntN(len(slugs))]
			f, err := s.FileBySlug(b.Context(), slug)
			if err != nil || f.Slug != slug {
				b.Errorf("FileBySlug(%s): got %q, %v", slug, f.Slug, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
}

// BenchPageTitle reads what a public page's cache miss needs for its
// title and description from the live revisions of 200 pages of 256 KiB,
// at random: "Revision" the whole revision (its HTML and the HTML it is
// served as), "RevisionHead" the hash and up to 256 KiB of the HTML,
// "RevisionHead16KiB" the first 16 KiB (the web layer's first read,
// pageHeadFirst). A backend's BenchmarkPageTitle calls it.
func BenchPageTitle(b *testing.B, newStore func(b *testing.B) fileframe.Store) {
	s := newStore(b)
	a, err := s.CreateAccount(b.Context(), fileframe.Account{Email: "bench@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		b.Fatalf("CreateAccount: %v", err)
	}
	ids := make([]fileframe.FileID, 200)
	for i := range ids {
		f, err := s.CreateFile(b.Context(), fileframe.File{AccountID: a.ID, Name: "report.pdf", Size: 1 << 20, ContentType: "application/pdf", BlobKey: "k"})
		if err != nil {
			b.Fatalf("CreateFile: %v", err)
		}
		if _, err := s.SavePage(b.Context(), fileframe.PageWrite{FileID: f.ID, HTML: pageHTML(i, 256<<10), Publish: true, At: time.Now()}); err != nil {
			b.Fatalf("SavePage: %v", err)
		}
		ids[i] = f.ID
	}
	read := map[string]func(id fileframe.FileID) (int, error){
		"Revision": func(id fileframe.FileID) (int, error) {
			r, err := s.Revision(b.Context(), id, 1)
			return len(r.HTML), err
		},
		"RevisionHead": func(id fileframe.FileID) (int, error) {
			_, head, err := s.RevisionHead(b.Context(), id, 1, 256<<10)
			return len(head), err
		},
		"RevisionHead16KiB": func(id fileframe.FileID) (int, error) {
			_, head, err := s.RevisionHead(b.Context(), id, 1, 16<<10)
			return len(head), err
		},
	}
	for _, name := range []string{"Revision", "RevisionHead", "RevisionHead16KiB"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if n, err := read[name](ids[rand.IntN(len(ids))]); err != nil || n == 0 {
					b.Fatalf("%s: %d bytes, %v", name, n, err)
				}
			}
		})
	}
}

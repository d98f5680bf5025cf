package sqlite

// Figures, on a shared 2-vCPU AMD EPYC VM with an ext4 virtio disk, while
// other builds and tests ran on it (load average 4 to 12, so the spread is
// wide); Go 1.26, modernc.org/sqlite 1.61.1 (SQLite 3.54.1):
//
//	go test -run '^$' -bench . -benchtime 3s -count 5 ./internal/sqlite
//
//	BenchmarkSavePage/writers=2-2     286 to 561 saves/s    (1.8 to 3.8 ms/op)
//	BenchmarkSavePage/writers=16-2    1157 to 1624 saves/s  (0.62 to 0.87 ms/op, 23 to 32 MB/s)
//	BenchmarkFileBySlug-2             43,678 to 66,336 lookups/s (15 to 23 µs/op)
//
// Every save is one fsync'd commit shared by the writes waiting for it
// (group commit, write.go); strace counts 0.2 fsync per save at 16 writers,
// 1.0 at 2 writers (each finds the writer free) and with a transaction per
// save. Run alternately with
// that earlier store (one transaction, one fsync per save) on the same
// machine, three rounds: writers=2 345 to 739 saves/s against 370 to 653,
// writers=16 852 to 1670 against 50 to 485. The figures are bounded by the
// disk's fsync latency, not CPU (the CPU profile is about a third busy).

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// BenchmarkSavePage stores 20 KB pages, each a new revision with new HTML,
// spread over 16 pages, from a few and from many concurrent writers, as
// concurrent API calls do. Every SavePage is durable when it returns
// (synchronous=FULL: an fsync of the WAL per commit), so this is the figure
// behind "POST custom-html, 20 KB page, acknowledged = durable, ≥ 1,000/s on
// SQLite" in DESIGN.md. Pruning keeps each page at 50 revisions.
func BenchmarkSavePage(b *testing.B) {
	for _, parallelism := range []int{1, 8} {
		writers := parallelism * runtime.GOMAXPROCS(0)
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) { benchmarkSavePage(b, parallelism) })
	}
}

func benchmarkSavePage(b *testing.B, parallelism int) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	defer s.Close()
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

// BenchmarkFileBySlug looks up random files among 10,000 by their public
// slug, the one store read on every /f/<slug> view.
func BenchmarkFileBySlug(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	defer s.Close()
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

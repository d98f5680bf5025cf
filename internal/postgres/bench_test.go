package postgres

// Figures, both backends in one run (AMD EPYC, 2 vCPUs, PostgreSQL 15 on
// loopback, default settings: fsync and synchronous_commit on; the machine
// was shared with other builds and fuzzers, load average 7-13, so single
// runs vary by 2-5x; medians of 3 runs):
//
//	go test -p 1 -run '^$' -bench 'BenchmarkSavePage|BenchmarkFileBySlug' -benchtime 3s -count 3 ./internal/sqlite ./internal/postgres
//
//	                              sqlite        postgres      postgres/sqlite
//	SavePage, writers=2           139 saves/s   781 saves/s   5.6x (sqlite runs: 115-327)
//	SavePage, writers=16          2140 saves/s  1012 saves/s  0.47x
//	FileBySlug (2 goroutines)     60000/s       19500/s       0.33x
//
// The same SavePage with a pool of 16 connections instead of the default
// max(4, CPUs), so that 16 writers commit together (PostgreSQL flushes the
// WAL once for the commits that wait on it together):
//
//	FILEFRAME_TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable&pool_max_conns=16' \
//	    go test -run '^$' -bench BenchmarkSavePage -benchtime 3s -count 3 ./internal/postgres
//
//	SavePage, writers=2           866 saves/s
//	SavePage, writers=16          1236 saves/s
//
// For scale, on the same machine minutes before, pgbench committing one
// 100-byte insert per transaction did 526 tps with 2 clients and 1844 with
// 16: a save costs about one WAL flush. A lookup costs one round trip to
// the server, against a read in process for SQLite; /f/<slug> views are
// meant to be served from a cache (DESIGN.md, "Performance targets").

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

// BenchmarkSavePage stores 20 KB pages, each a new revision with new HTML,
// spread over 16 pages, from a few and from many concurrent writers, as
// concurrent API calls do: the same work as internal/sqlite's
// BenchmarkSavePage. Every SavePage is durable when it returns (the server's
// default synchronous_commit=on: the WAL is flushed at commit); pruning keeps
// each page at 50 revisions. The pool has its default size, so many writers
// also queue for connections, as they would in a server.
func BenchmarkSavePage(b *testing.B) {
	for _, parallelism := range []int{1, 8} {
		writers := parallelism * runtime.GOMAXPROCS(0)
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) { benchmarkSavePage(b, parallelism) })
	}
}

func benchmarkSavePage(b *testing.B, parallelism int) {
	s := open(b, newDatabase(b))
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
	s := open(b, newDatabase(b))
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

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
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/storetest"
)

func newBenchStore(b *testing.B) fileframe.Store {
	return open(b, newDatabase(b))
}

// BenchmarkSavePage: see storetest.BenchSavePage.
func BenchmarkSavePage(b *testing.B) { storetest.BenchSavePage(b, newBenchStore) }

// BenchmarkFileBySlug: see storetest.BenchFileBySlug.
func BenchmarkFileBySlug(b *testing.B) { storetest.BenchFileBySlug(b, newBenchStore) }

func BenchmarkPageTitle(b *testing.B) { storetest.BenchPageTitle(b, newBenchStore) }

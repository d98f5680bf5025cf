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
	"path/filepath"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/storetest"
)

func newBenchStore(b *testing.B) fileframe.Store {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkSavePage: see storetest.BenchSavePage.
func BenchmarkSavePage(b *testing.B) { storetest.BenchSavePage(b, newBenchStore) }

// BenchmarkFileBySlug: see storetest.BenchFileBySlug.
func BenchmarkFileBySlug(b *testing.B) { storetest.BenchFileBySlug(b, newBenchStore) }

func BenchmarkPageTitle(b *testing.B) { storetest.BenchPageTitle(b, newBenchStore) }

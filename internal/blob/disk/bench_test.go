package disk

// Measured once, on a 2-vCPU AMD EPYC VM with an ext4 virtual disk whose
// sustained fsync'd write rate is about 337 MB/s (dd bs=1M count=2048
// conv=fsync), Go 1.26.8:
//
//	go test -run '^$' -bench . -benchtime 3s ./internal/blob/disk/
//
//	BenchmarkPut/1MiB-2              736    4180350 ns/op   250.83 MB/s   3918 B/op  41 allocs/op
//	BenchmarkPut/64MiB-2              33  203093938 ns/op   330.43 MB/s  11393 B/op  44 allocs/op
//	BenchmarkOpenRead/4KiB-2      382210       9497 ns/op   431.30 MB/s    568 B/op   7 allocs/op
//	BenchmarkOpenRead/65536KiB-2     471    7546115 ns/op  8893.17 MB/s    600 B/op   7 allocs/op
//
// Put of 64 MiB ran at the disk's rate through the page cache (a CPU
// profile showed write(2) copying into the cache and blocked on writeback;
// SHA-256 with SHA-NI, ~1.7 GB/s, took about a fifth of the time). Put of
// 1 MiB is bound by fsync latency: the file, its directory, and, for a blob
// in a new dir/ab/cd, that directory's parents.
//
// Since Put writes bodies of 1 MiB or more with O_DIRECT (put.go's
// writeBody), on another machine of the same kind, the builds before and
// after alternating, three runs of -benchtime 3s each (26 November 2026):
//
//	BenchmarkPut/1MiB     243-280 MB/s before, 385-433 after
//	BenchmarkPut/64MiB    406-440 MB/s before, 865-956 after
// Allocations are constant in the payload size. OpenRead reads from the page
// cache; 4 KiB is the cost of open, fstat, read and close.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fileframe/fileframe/internal/blob/blobtest"
	"github.com/fileframe/fileframe/internal/fileframe"
)

func newBenchBlobs(b *testing.B) fileframe.Blobs {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkPut(b *testing.B)      { blobtest.BenchPut(b, newBenchBlobs) }
func BenchmarkOpenRead(b *testing.B) { blobtest.BenchOpenRead(b, newBenchBlobs) }

// BenchmarkFinishUpload compares the two ways a finished resumable upload
// (a file in the data directory) becomes a blob: copied with Put, or moved
// with Adopt. Each iteration writes a fresh 64 MiB file first, untimed, as
// tusd's filestore leaves it (written, not synced), so Adopt's fsync pays
// for those pages. On the machine above, with other work running:
//
//	go test -run '^$' -bench FinishUpload -benchtime 10x -count 3 ./internal/blob/disk/
//
//	BenchmarkFinishUpload/put-2     10  104547811-111313702 ns/op  603-642 MB/s
//	BenchmarkFinishUpload/adopt-2   10   93087128-100591375 ns/op  667-721 MB/s
//
// Adopt is about a tenth faster here, and what matters more: it writes the
// upload's bytes to disk once instead of twice, and never needs room for two
// copies of a large file.
func BenchmarkFinishUpload(b *testing.B) {
	const size = 64 << 20
	content := make([]byte, size)
	for i := range content {
		content[i] = byte(i * 7)
	}
	for _, way := range []string{"put", "adopt"} {
		b.Run(way, func(b *testing.B) {
			s, err := Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			src := filepath.Join(b.TempDir(), "upload.bin")
			b.SetBytes(size)
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				content[0] = byte(i) // a new blob each time
				content[1] = byte(i >> 8)
				if err := os.WriteFile(src, content, 0o600); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if way == "adopt" {
					_, err = s.Adopt(b.Context(), src)
				} else {
					var f *os.File
					if f, err = os.Open(src); err == nil {
						_, err = s.Put(b.Context(), f)
						f.Close()
					}
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

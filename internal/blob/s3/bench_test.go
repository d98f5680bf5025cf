package s3

// Measured once against versitygw v1.8.0 (posix backend on the same ext4
// virtual disk, 127.0.0.1, keep-alive) started by TestMain, on a 2-vCPU AMD
// EPYC VM shared with other test runs (load average about 6), Go 1.26.8:
//
//	go test -run '^$' -bench . -benchtime 3s ./internal/blob/s3/
//
//	BenchmarkPut/1MiB-2               193   19639666 ns/op    53.39 MB/s   2407713 B/op   1535 allocs/op
//	BenchmarkPut/64MiB-2                5  713347128 ns/op    94.08 MB/s  43074828 B/op   6420 allocs/op
//	BenchmarkOpenRead/4KiB-2         3562    1133667 ns/op     3.61 MB/s     70113 B/op    964 allocs/op
//	BenchmarkOpenRead/65536KiB-2       91   40436482 ns/op  1659.61 MB/s     70091 B/op    962 allocs/op
//
// Put is bound by the server, not by this package: a CPU profile of the
// 64 MiB case shows the client busy about 5% of the time, two thirds of it
// in SHA-256 (ours, and SigV4's payload hash on plain HTTP). A Put is three
// requests (upload the temp, copy, delete the temp) and the server writes
// the payload to its disk at least twice; a bare 1 MiB PutObject alone
// takes about 15 ms on versitygw here, the copy of 1 MiB about 13 ms, of
// 64 MiB 0.3 to 1.9 s. On AWS the copy stays inside S3. Allocations
// are the uploader's part buffers (about PartSize × 5 for a multipart Put,
// freed after it; see uploadConcurrency), not the payload size.
// OpenRead of 4 KiB is two round trips (HeadObject, then one GetObject);
// 64 MiB is one GetObject streamed through a 256 KiB buffer.

import (
	"testing"

	"github.com/fileframe/fileframe/internal/blob/blobtest"
	"github.com/fileframe/fileframe/internal/fileframe"
)

func newBenchBlobs(b *testing.B) fileframe.Blobs {
	return newTestStore(b, nil)
}

func BenchmarkPut(b *testing.B)      { blobtest.BenchPut(b, newBenchBlobs) }
func BenchmarkOpenRead(b *testing.B) { blobtest.BenchOpenRead(b, newBenchBlobs) }

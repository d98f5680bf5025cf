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
	"encoding/binary"
	"fmt"
	"io"
	"testing"

	"github.com/fileframe/fileframe/internal/blob/blobtest"
)

// payload reads size bytes: a unique 8-byte prefix (so every Put stores a
// new blob instead of finding an existing one) and then a 1 MiB
// pseudo-random block over and over, so generating it costs a memcpy.
type payload struct {
	prefix [8]byte
	block  []byte
	off    int64
	size   int64
}

func newPayload(block []byte, n uint64, size int64) *payload {
	p := &payload{block: block, size: size}
	binary.LittleEndian.PutUint64(p.prefix[:], n)
	return p
}

func (p *payload) Read(b []byte) (int, error) {
	if p.off >= p.size {
		return 0, io.EOF
	}
	b = b[:min(int64(len(b)), p.size-p.off)]
	n := 0
	for n < len(b) {
		var m int
		if p.off < int64(len(p.prefix)) {
			m = copy(b[n:], p.prefix[p.off:])
		} else {
			m = copy(b[n:], p.block[p.off%int64(len(p.block)):])
		}
		n += m
		p.off += int64(m)
	}
	return n, nil
}

func randomBlock(b *testing.B) []byte {
	block := make([]byte, 1<<20)
	if _, err := io.ReadFull(blobtest.NewPseudoRandomReader(1, int64(len(block))), block); err != nil {
		b.Fatal(err)
	}
	return block
}

func BenchmarkPut(b *testing.B) {
	block := randomBlock(b)
	for _, size := range []int64{1 << 20, 64 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			s := newTestStore(b, nil)
			b.SetBytes(size)
			b.ReportAllocs()
			var n uint64
			for b.Loop() {
				n++
				if _, err := s.Put(b.Context(), newPayload(block, n, size)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOpenRead(b *testing.B) {
	block := randomBlock(b)
	for _, size := range []int64{4 << 10, 64 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			s := newTestStore(b, nil)
			info, err := s.Put(b.Context(), newPayload(block, 0, size))
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 256<<10)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				br, err := s.Open(b.Context(), info.Key)
				if err != nil {
					b.Fatal(err)
				}
				// Hide WriterTo/ReaderFrom so this measures reading the
				// response through one buffer, as io.Copy to a
				// connection does.
				n, err := io.CopyBuffer(struct{ io.Writer }{io.Discard}, struct{ io.Reader }{br.Body}, buf)
				br.Body.Close()
				if err != nil || n != size {
					b.Fatalf("read %d bytes, %v; want %d", n, err, size)
				}
			}
		})
	}
}

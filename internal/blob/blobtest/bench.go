package blobtest

import (
	"encoding/binary"
	"fmt"
	"io"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// BenchPut measures Put of 1 MiB and 64 MiB payloads, each a new blob, on a
// fresh store from newBlobs per size. A backend's BenchmarkPut calls it.
func BenchPut(b *testing.B, newBlobs func(b *testing.B) fileframe.Blobs) {
	block := randomBlock(b)
	for _, size := range []int64{1 << 20, 64 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			s := newBlobs(b)
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

// BenchOpenRead measures opening and reading a whole 4 KiB and 64 MiB blob.
// A backend's BenchmarkOpenRead calls it.
func BenchOpenRead(b *testing.B, newBlobs func(b *testing.B) fileframe.Blobs) {
	block := randomBlock(b)
	for _, size := range []int64{4 << 10, 64 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			s := newBlobs(b)
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
				// Hide WriterTo/ReaderFrom so this measures reading through
				// one buffer, as io.Copy to a connection does, not
				// io.Discard's own small one.
				n, err := io.CopyBuffer(struct{ io.Writer }{io.Discard}, struct{ io.Reader }{br.Body}, buf)
				br.Body.Close()
				if err != nil || n != size {
					b.Fatalf("read %d bytes, %v; want %d", n, err, size)
				}
			}
		})
	}
}

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
	if _, err := io.ReadFull(NewPseudoRandomReader(1, int64(len(block))), block); err != nil {
		b.Fatal(err)
	}
	return block
}

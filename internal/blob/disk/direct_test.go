package disk

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
)

// Put writes bodies of a block or more with O_DIRECT and the end of the
// last block through the page cache: every size around those boundaries,
// read in pieces as a slow client sends them, must come back whole.
func TestPutSizesAroundDirectBlocks(t *testing.T) {
	s, _ := newStore(t)
	const mib = directBufferSize
	for _, size := range []int{0, 1, 4095, 4096, mib - 1, mib, mib + 1, mib + 4095, mib + 4096, 3*mib + 17, 4 * mib} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			body := make([]byte, size)
			rand.Read(body)
			// HalfReader reads half of what is asked for each time, so the
			// blocks are filled by many reads.
			info, err := s.Put(t.Context(), iotest.HalfReader(bytes.NewReader(body)))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(body)
			if info.Key != hex.EncodeToString(sum[:]) || info.Size != int64(size) {
				t.Fatalf("Put = %s, %d bytes; want %x, %d", info.Key, info.Size, sum, size)
			}
			br, err := s.Open(t.Context(), info.Key)
			if err != nil {
				t.Fatal(err)
			}
			defer br.Body.Close()
			got, err := io.ReadAll(br.Body)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, body) {
				t.Fatalf("read back %d bytes, not the %d put", len(got), size)
			}
		})
	}
}

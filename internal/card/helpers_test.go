package card

import (
	"encoding/binary"
	"hash/crc32"
	"runtime"
)

// fixIHDRCRC rewrites the CRC of a PNG's IHDR chunk (type and 13 bytes of
// data at 12..29, CRC at 29..33).
func fixIHDRCRC(p []byte) {
	binary.BigEndian.PutUint32(p[29:33], crc32.ChecksumIEEE(p[12:29]))
}

// runtimeMem is the bytes allocated so far (runtime.MemStats.TotalAlloc).
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

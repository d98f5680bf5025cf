package sqlite

import "sync/atomic"

// The wal-index header, as SQLite documents it in "WAL-mode File Format"
// (https://www.sqlite.org/walformat.html#the_wal_index_file_format): the
// first 136 bytes of a WAL database's -shm file, whose first 96 are two
// copies of the 48-byte WalIndexHdr (a version, a change counter incremented
// by each commit, the last valid WAL frame, the WAL's salts and checksums).
// A committing writer rewrites both copies, the second first, before its
// commit returns; readers take no lock to read them (SQLite compares the two
// copies to detect a write in progress). Connections of different SQLite
// versions share this file, so its layout is part of the file format, not
// an implementation detail. The bytes that follow the two copies (the
// checkpoint information and read marks) change on reads and checkpoints,
// and are not looked at.
const (
	walHeaderBytes = 96
	walHeaderWords = walHeaderBytes / 4
	// walIndexVersion is WalIndexHdr.iVersion, the first word, since
	// SQLite 3.7.0.
	walIndexVersion = 3007000
)

// walHeader is the two copies of the wal-index header, as 32-bit words in
// the machine's byte order.
type walHeader [walHeaderWords]uint32

// walIndex is a read-only mapping of a database's -shm file.
type walIndex struct {
	mem   []byte
	words *walHeader
}

// header reads the two copies of the header, word by word.
func (x *walIndex) header() walHeader {
	var h walHeader
	for i := range h {
		h[i] = atomic.LoadUint32(&x.words[i])
	}
	return h
}

// valid reports whether the mapping holds an initialised wal-index header
// of a version this code knows: both copies equal, of version 3007000, with
// isInit (the header's 13th byte) set.
func (x *walIndex) valid() bool {
	h := x.header()
	const half = walHeaderWords / 2
	return [half]uint32(h[:half]) == [half]uint32(h[half:]) &&
		h[0] == walIndexVersion && x.mem[12] == 1
}

//go:build !unix

package diskspace

import "os"

// space cannot be read here: Check then never refuses, and the writes
// themselves report a full disk.
func space(string) (avail, total uint64, ok bool) { return 0, 0, false }

func allocate(f *os.File, size int64) error { return writeZeros(f, size) }

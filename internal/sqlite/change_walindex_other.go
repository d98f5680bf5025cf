//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package sqlite

// canMapWALIndex tells whether ChangeWatcher maps the wal-index on this
// platform.
const canMapWALIndex = false

// mapWALIndex returns nil: on this platform the watcher uses PRAGMA
// data_version.
func mapWALIndex(path string) (*walIndex, error) { return nil, nil }

func (x *walIndex) unmap() error { return nil }

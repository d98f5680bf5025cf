// Package disk implements fileframe.Blobs on the local file system: the
// embedded default blob store of a single instance.
//
// Blobs are content-addressed. A blob whose key (hex SHA-256) is abcdef… is
// the file dir/ab/cd/abcdef…; two levels of 256 directories keep any one
// directory small. Put writes into dir/tmp/ first and renames into place
// only once the bytes are on disk, so a blob file, once visible, is always
// complete; a crash leaves at most a temp file. Put holds a lock on its temp
// file while it writes, which the kernel drops when the process dies, so
// Open and CleanTemp (which serve runs at every clean-up) remove a crash's
// temp files as soon as they are two seconds old; files whose lock cannot be
// taken only once they are an hour old.
//
// Open hands out the blob file itself (an *os.File) as the reader, so
// http.ServeContent and io.Copy to a TCP connection use sendfile(2) and a
// download costs no user-space copy and constant memory.
package disk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fileframe/fileframe/internal/diskspace"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// staleTempAge is how long a temp file may go unmodified before Open and
// CleanTemp remove it even though its lock is held (or locks are not
// available). A Put in progress writes its temp file all the time, so only
// a write stalled for this long can lose it.
const staleTempAge = time.Hour

// orphanTempAge is how old a temp file whose lock is free must be before it
// is removed: a Put holds the lock from just after creating the file until
// the file is renamed into place, and that first gap lasts microseconds.
const orphanTempAge = 2 * time.Second

// Store keeps blobs in a directory. It implements fileframe.Blobs and is
// safe for concurrent use, also by several processes sharing the directory
// (such as the server and the admin CLI).
type Store struct {
	dir string // absolute
	tmp string // dir/tmp
	now func() time.Time
}

var _ fileframe.Blobs = (*Store)(nil)

// Open returns a Store keeping blobs under dir (created if missing, 0700).
// It removes the temp files a crash left in dir/tmp (CleanTemp).
func Open(dir string) (*Store, error) {
	return open(dir, time.Now)
}

func open(dir string, now func() time.Time) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("disk: %w", err)
	}
	s := &Store{dir: abs, tmp: filepath.Join(abs, "tmp"), now: now}
	if err := os.MkdirAll(s.tmp, 0o700); err != nil {
		return nil, fmt.Errorf("disk: create blob directory: %w", err)
	}
	if _, err := s.CleanTemp(context.Background(), staleTempAge); err != nil {
		return nil, err
	}
	return s, nil
}

// CleanTemp removes what Puts interrupted by a crash left in dir/tmp and
// returns how many files it removed: a temp file whose lock no process
// holds once it is orphanTempAge old, and any temp file not modified for
// olderThan. A Put in progress, of this process or another sharing the
// directory, holds its lock and keeps its file. Serve runs it at every
// clean-up, as it runs the S3 store's.
func (s *Store) CleanTemp(ctx context.Context, olderThan time.Duration) (int, error) {
	entries, err := os.ReadDir(s.tmp)
	if err != nil {
		return 0, fmt.Errorf("disk: read temp directory: %w", err)
	}
	now := s.now()
	removed := 0
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // finished or removed meanwhile
		} else if err != nil {
			return removed, fmt.Errorf("disk: stat temp file: %w", err)
		}
		age := now.Sub(info.ModTime())
		if info.IsDir() || age < orphanTempAge {
			continue
		}
		path := filepath.Join(s.tmp, e.Name())
		if age < olderThan && !writerGone(path) {
			continue
		}
		switch err := os.Remove(path); {
		case err == nil:
			removed++
		case !errors.Is(err, fs.ErrNotExist):
			return removed, fmt.Errorf("disk: remove stale temp file: %w", err)
		}
	}
	return removed, nil
}

// Delete removes the blob; deleting a missing blob is not an error. An
// invalid key is an EINVALID error. Emptied directories are kept: removing
// them could race with a Put creating a blob in them.
func (s *Store) Delete(ctx context.Context, key string) error {
	path, err := s.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("disk: delete blob: %w", err)
	}
	return nil
}

// CheckSpace returns an error of code CodeStorageFull (507) when the file
// system of the blob directory has no more than its reserve free
// (diskspace.Check): Put refuses new blobs then, and callers that are about
// to store something large can ask first.
func (s *Store) CheckSpace(ctx context.Context) error {
	return diskspace.Check(s.dir)
}

// Ping reports whether the blob directory is there and writable, by
// creating and removing a probe file in dir/tmp, and whether it has room
// (CheckSpace): a full disk is not ready.
func (s *Store) Ping(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.CheckSpace(ctx); err != nil {
		return err
	}
	if _, err := os.Stat(s.dir); err != nil {
		return fmt.Errorf("disk: ping: %w", err)
	}
	f, err := os.CreateTemp(s.tmp, "ping-*")
	if err != nil {
		return fmt.Errorf("disk: ping: %w", err)
	}
	name := f.Name()
	closeErr := f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("disk: ping: %w", err)
	}
	if closeErr != nil {
		return fmt.Errorf("disk: ping: %w", closeErr)
	}
	return nil
}

// path returns the file of the blob with key, or an EINVALID error if key is
// not 64 lowercase hex digits. Validating here, before any path is built, is
// what keeps a key from ever naming a file outside the store.
func (s *Store) path(key string) (string, error) {
	if !fileframe.IsBlobKey(key) {
		return "", fileframe.Errorf(fileframe.EINVALID, "Invalid blob key.")
	}
	return filepath.Join(s.dir, key[0:2], key[2:4], key), nil
}

// syncDir fsyncs a directory, making the entries created or renamed in it
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

package disk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Open returns the blob with key. Body's dynamic type is *os.File, the blob
// file itself: http.ServeContent answers ranges by seeking it, and net/http
// copies it to the connection with sendfile(2). Keep it that way; wrapping
// Body in any other type silently turns every download into a user-space
// copy. The caller closes Body.
//
// An unknown key is an ENOTFOUND error, an invalid one EINVALID.
func (s *Store) Open(ctx context.Context, key string) (fileframe.BlobReader, error) {
	path, err := s.path(key)
	if err != nil {
		return fileframe.BlobReader{}, err
	}
	if err := ctx.Err(); err != nil {
		return fileframe.BlobReader{}, err
	}
	f, err := withDescriptor(ctx, func() (*os.File, error) { return os.Open(path) })
	if errors.Is(err, fs.ErrNotExist) {
		return fileframe.BlobReader{}, notFound()
	} else if fileframe.ErrorCode(err) == fileframe.CodeBusy {
		return fileframe.BlobReader{}, err
	} else if err != nil {
		return fileframe.BlobReader{}, fmt.Errorf("disk: open: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fileframe.BlobReader{}, fmt.Errorf("disk: open: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return fileframe.BlobReader{}, notFound()
	}
	return fileframe.BlobReader{
		Body:     f,
		BlobInfo: fileframe.BlobInfo{Key: key, Size: fi.Size(), ModTime: fi.ModTime()},
	}, nil
}

// Stat returns the blob's size and modification time. An unknown key is an
// ENOTFOUND error, an invalid one EINVALID.
func (s *Store) Stat(ctx context.Context, key string) (fileframe.BlobInfo, error) {
	path, err := s.path(key)
	if err != nil {
		return fileframe.BlobInfo{}, err
	}
	if err := ctx.Err(); err != nil {
		return fileframe.BlobInfo{}, err
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileframe.BlobInfo{}, notFound()
	} else if err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: stat: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fileframe.BlobInfo{}, notFound()
	}
	return fileframe.BlobInfo{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

// Walk calls fn for every stored blob, in no particular order, stopping at
// fn's first error or when ctx is done. It lists only files at their
// content-addressed place (dir/ab/cd/abcd…), so temp files and anything else
// put in the directory are never reported as blobs. fn may delete the blob
// it is given.
func (s *Store) Walk(ctx context.Context, fn func(fileframe.BlobInfo) error) error {
	level1, err := readDirNames(s.dir)
	if err != nil {
		return fmt.Errorf("disk: walk: %w", err)
	}
	for _, a := range level1 {
		if !validPrefix(a) { // also skips tmp
			continue
		}
		level2, err := readDirNames(filepath.Join(s.dir, a))
		if err != nil {
			return fmt.Errorf("disk: walk: %w", err)
		}
		for _, b := range level2 {
			if !validPrefix(b) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			dir := filepath.Join(s.dir, a, b)
			entries, err := os.ReadDir(dir)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			} else if err != nil {
				return fmt.Errorf("disk: walk: %w", err)
			}
			for _, e := range entries {
				key := e.Name()
				if !fileframe.IsBlobKey(key) || key[0:2] != a || key[2:4] != b || !e.Type().IsRegular() {
					continue
				}
				fi, err := e.Info()
				if errors.Is(err, fs.ErrNotExist) {
					continue // deleted since ReadDir
				} else if err != nil {
					return fmt.Errorf("disk: walk: %w", err)
				}
				if err := fn(fileframe.BlobInfo{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readDirNames returns the names of the directories in dir.
func readDirNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// validPrefix reports whether name is two lowercase hex digits, the name of
// a directory of the blob layout.
func validPrefix(name string) bool {
	if len(name) != 2 {
		return false
	}
	for i := range 2 {
		c := name[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func notFound() error {
	return fileframe.Errorf(fileframe.ENOTFOUND, "Blob not found.")
}

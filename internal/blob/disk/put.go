package disk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/fileframe/fileframe/internal/diskspace"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// copyBufferSize is the size of the buffers Put copies through: large enough
// that the per-call cost of read, write and hashing is amortised.
const copyBufferSize = 256 << 10

var copyBuffers = sync.Pool{
	New: func() any {
		b := make([]byte, copyBufferSize)
		return &b
	},
}

// Put stores everything read from r and returns its key and size. It streams
// r into a temp file while hashing, fsyncs it, renames it to its
// content-addressed path and fsyncs that directory, so the blob is durable
// when Put returns. If the blob already exists the temp file is removed and
// the existing blob's modification time is set to now, so a collector of
// orphaned blobs that spares recent blobs does not race with this Put.
//
// Put stops with ctx's error once ctx is done, and with r's error if r
// fails; either way nothing is left behind.
func (s *Store) Put(ctx context.Context, r io.Reader) (fileframe.BlobInfo, error) {
	if err := ctx.Err(); err != nil {
		return fileframe.BlobInfo{}, err
	}
	if err := s.CheckSpace(ctx); err != nil {
		return fileframe.BlobInfo{}, err
	}
	f, err := withDescriptor(ctx, func() (*os.File, error) { return os.CreateTemp(s.tmp, "put-*") })
	if fileframe.ErrorCode(err) == fileframe.CodeBusy {
		return fileframe.BlobInfo{}, err
	} else if err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: put: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if f != nil {
			f.Close()
		}
		if tmp != "" {
			os.Remove(tmp)
		}
	}()
	// The lock tells CleanTemp that the file has a writer (store.go).
	if err := lockTemp(f); err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: put: lock temp file: %w", err)
	}

	h := sha256.New()
	bufp := copyBuffers.Get().(*[]byte)
	size, err := io.CopyBuffer(
		&hashingWriter{w: f, h: h},
		&ctxReader{ctx: ctx, r: r},
		*bufp,
	)
	copyBuffers.Put(bufp)
	if err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: put: %w", diskspace.Wrap(err))
	}
	if err := f.Sync(); err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: put: sync: %w", diskspace.Wrap(err))
	}
	fi, err := f.Stat()
	if err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: put: %w", err)
	}
	modTime := fi.ModTime()
	if err := ctx.Err(); err != nil {
		return fileframe.BlobInfo{}, err
	}

	// Installed while still open, so that the temp file's lock is held
	// until it is renamed away: CleanTemp never sees it without a writer.
	key := hex.EncodeToString(h.Sum(nil))
	existed, err := s.install(key, tmp, false)
	if err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: put: %w", diskspace.Wrap(err))
	}
	err = f.Close()
	f = nil
	if err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: put: %w", diskspace.Wrap(err))
	}
	if existed {
		modTime = s.now()
	} else {
		tmp = ""
	}
	return fileframe.BlobInfo{Key: key, Size: size, ModTime: modTime}, nil
}

// install puts the durable file src in place as the blob key, by renaming
// it (or, with link, by a hard link, leaving src where it is), and fsyncs
// the blob's directory. When the blob already exists it is kept, its
// modification time set to now, and src is left for the caller to remove
// (existed is true).
func (s *Store) install(key, src string, link bool) (existed bool, err error) {
	path, _ := s.path(key) // a hex SHA-256 is a valid key
	dir := filepath.Dir(path)
	if err := s.makeBlobDir(dir); err != nil {
		return false, err
	}
	// Touching the blob is also how we learn it already exists.
	now := s.now()
	switch err := os.Chtimes(path, now, now); {
	case err == nil:
		// Already stored: keep it. Another Put may have renamed it in an
		// instant ago and not yet synced the directory, so sync it below
		// all the same.
		existed = true
	case errors.Is(err, fs.ErrNotExist) && link:
		// Another Put or Adopt of the same content may have put it there
		// meanwhile: the same bytes, kept.
		if err := os.Link(src, path); errors.Is(err, fs.ErrExist) {
			existed = true
		} else if err != nil {
			return false, err
		}
	case errors.Is(err, fs.ErrNotExist):
		// Two Puts of the same content may both get here; the second rename
		// replaces a file with an identical one, which is harmless.
		if err := os.Rename(src, path); err != nil {
			return false, err
		}
	default:
		return false, err
	}
	if err := syncDir(dir); err != nil {
		return false, fmt.Errorf("sync directory: %w", err)
	}
	return existed, nil
}

// Adopt stores the file at path as a blob without copying its bytes as Put
// does: it reads the file once to hash it, fsyncs it and hard-links it at
// its content-addressed path, whose directory it fsyncs, so the blob is as
// durable as after Put and a large upload is not written twice. The blob's
// modification time is now, as after Put. The file stays at path (the
// blob and it share their bytes until its owner removes it): a finished
// tus upload keeps its data until its file is recorded, so that a crash
// in between leaves it whole. Where no link can be made (another file
// system, or one without hard links) the bytes are copied with Put; the
// file stays at path all the same.
func (s *Store) Adopt(ctx context.Context, path string) (fileframe.BlobInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: adopt: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	bufp := copyBuffers.Get().(*[]byte)
	size, err := io.CopyBuffer(h, &ctxReader{ctx: ctx, r: f}, *bufp)
	copyBuffers.Put(bufp)
	if err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: adopt: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: adopt: sync: %w", diskspace.Wrap(err))
	}
	// Blobs are private to the service, whatever mode the file had.
	if err := f.Chmod(0o600); err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: adopt: %w", err)
	}
	now := s.now()
	if err := os.Chtimes(path, now, now); err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: adopt: %w", err)
	}
	key := hex.EncodeToString(h.Sum(nil))
	_, err = s.install(key, path, true)
	if unlinkable(err) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fileframe.BlobInfo{}, fmt.Errorf("disk: adopt: %w", err)
		}
		return s.Put(ctx, f)
	} else if err != nil {
		return fileframe.BlobInfo{}, fmt.Errorf("disk: adopt: %w", diskspace.Wrap(err))
	}
	return fileframe.BlobInfo{Key: key, Size: size, ModTime: now}, nil
}

// unlinkable reports whether err says that a hard link cannot be made
// there: across file systems, on one without hard links, or to a file
// with too many.
func unlinkable(err error) bool {
	return errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EMLINK)
}

// makeBlobDir creates dir/ab/cd if missing and then fsyncs the directories
// that gained an entry, so the new directories survive a crash along with
// the blob renamed into them.
func (s *Store) makeBlobDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("disk: put: %w", err)
	}
	parent := filepath.Dir(dir)
	for _, d := range []string{parent, s.dir} {
		if err := syncDir(d); err != nil {
			return fmt.Errorf("disk: put: sync directory: %w", err)
		}
	}
	return nil
}

// hashingWriter writes to w and h. It is io.MultiWriter for exactly two
// writers, minus the allocation and the interface loop.
type hashingWriter struct {
	w io.Writer
	h hash.Hash
}

func (hw *hashingWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n]) // a hash.Hash never returns an error
	return n, err
}

// ctxReader is r that fails with ctx's error once ctx is done, so that a
// Put of a slow or endless stream stops when its request is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

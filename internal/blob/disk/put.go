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

	"github.com/ncw/directio"

	"github.com/fileframe/fileframe/internal/diskspace"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// copyBufferSize is the size of the buffers Adopt reads through: large
// enough that the per-call cost of read and hashing is amortised.
const copyBufferSize = 256 << 10

var copyBuffers = sync.Pool{
	New: func() any {
		b := make([]byte, copyBufferSize)
		return &b
	},
}

// spareBufferSize is the size of the buffers a Put copies through when
// maxDirectPuts hold the direct ones: as small as io.Copy's, since every
// client stalled in the middle of an upload holds one.
const spareBufferSize = 32 << 10

var spareBuffers = sync.Pool{
	New: func() any {
		b := make([]byte, spareBufferSize)
		return &b
	},
}

// directBufferSize is the size of the blocks Put writes with O_DIRECT: a
// direct write of 1 MiB keeps the device busy (dd to this machine's disk
// with O_DIRECT: 1.2-1.3 GB/s in blocks of 256 KiB, 1.8-1.9 GB/s in blocks
// of 1 MiB).
const directBufferSize = 1 << 20

// maxDirectPuts bounds the Puts that hold a direct buffer at once, and so
// the memory in those (32 MiB): a client that keeps many uploads open,
// each short of a block, would otherwise hold a MiB with each. A Put
// beyond them copies through a spare buffer and the page cache.
const maxDirectPuts = 32

var (
	directSlots   = make(chan struct{}, maxDirectPuts)
	directBuffers = sync.Pool{
		New: func() any {
			b := directio.AlignedBlock(directBufferSize) // aligned in memory as O_DIRECT requires
			return &b
		},
	}
)

// putBuffer returns the buffer a Put copies through: a direct buffer when
// one of maxDirectPuts is free (direct is true), else a spare buffer; and
// release, which gives it back.
func putBuffer() (buf []byte, direct bool, release func()) {
	select {
	case directSlots <- struct{}{}:
		bp := directBuffers.Get().(*[]byte)
		return *bp, true, func() { directBuffers.Put(bp); <-directSlots }
	default:
		bp := spareBuffers.Get().(*[]byte)
		return *bp, false, func() { spareBuffers.Put(bp) }
	}
}

// Put stores everything read from r and returns its key and size. It streams
// r into a temp file while hashing (see writeBody), fsyncs it, renames it to its
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
	buf, mayDirect, release := putBuffer()
	size, err := writeBody(f, &ctxReader{ctx: ctx, r: r}, h, buf, mayDirect)
	release()
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

// writeBody writes everything read from r to the new, empty file f and to
// h, through buf, and returns how many bytes it wrote.
//
// With mayDirect (buf is a direct buffer), a body that fills buf (1 MiB)
// is written with O_DIRECT, from buf to the device, in whole blocks of
// directio.AlignSize; the part of its last block that is not whole goes
// through the page cache. Put syncs the file before it answers anyway,
// and a buffered write costs this machine's kernel 1.3-2.7 s of CPU per
// GiB copied into the page cache (dd bs=256K: 400-800 MB/s), where a
// direct one takes 0.2-0.3 s (dd oflag=direct with fsync: 1.2-2.0 GB/s);
// nor does a large upload push the files being downloaded out of the page
// cache. Where the file system refuses direct I/O, when O_DIRECT is set or
// at the first direct write (a device whose blocks are larger than
// AlignSize), the rest is written through the page cache.
//
// Each block is hashed while it is written, on another core.
func writeBody(f *os.File, r io.Reader, h hash.Hash, buf []byte, mayDirect bool) (int64, error) {
	var size int64
	direct := false
	done := make(chan error, 1)
	for {
		n, rerr := io.ReadFull(r, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return size, rerr
		}
		if mayDirect && size == 0 && n == len(buf) {
			direct = setDirect(f, true) == nil
		}
		p := buf[:n]
		var w int
		var err error
		if n >= overlapHashing {
			// Hash on one core while the block is written on another:
			// both only read p.
			go func() {
				var err error
				w, err = writeBlock(f, p, &direct)
				done <- err
			}()
			h.Write(p) // a hash.Hash never returns an error
			err = <-done
		} else {
			h.Write(p)
			w, err = writeBlock(f, p, &direct)
		}
		size += int64(w)
		if err != nil {
			return size, err
		}
		if rerr != nil {
			return size, nil
		}
	}
}

// overlapHashing is the smallest block that writeBody hashes while it is
// written, rather than before: below it, starting a goroutine costs more
// than the hash.
const overlapHashing = 64 << 10

// writeBlock writes p to f: while *direct, its whole blocks of
// directio.AlignSize with O_DIRECT, and then the rest, if any, through the
// page cache, turning O_DIRECT off (*direct becomes false).
func writeBlock(f *os.File, p []byte, direct *bool) (int, error) {
	written := 0
	if whole := len(p) &^ (directio.AlignSize - 1); *direct && whole > 0 {
		w, err := f.Write(p[:whole])
		written += w
		p = p[w:]
		if err != nil && !errors.Is(err, syscall.EINVAL) {
			return written, err
		}
	}
	if *direct && len(p) > 0 {
		// A block that is not whole, or a device that refused a direct
		// write: the page cache from here on.
		if err := setDirect(f, false); err != nil {
			return written, err
		}
		*direct = false
	}
	w, err := f.Write(p)
	return written + w, err
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

package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Open returns the blob with key. It asks the server for the blob's size and
// modification time (HeadObject) and fetches no bytes yet: Body reads with
// ranged GETs, lazily. The first Read after Open or a Seek starts one GET
// from the current offset to the end and later Reads stream it; Seek only
// moves the offset (dropping the stream if the offset changes). So
// http.ServeContent, which seeks to a range and reads its length, fetches
// about that range, and a whole download is a single GET.
//
// Body's requests use ctx, so it is tied to the request it serves. The
// caller closes Body. An unknown key is an ENOTFOUND error, an invalid one
// EINVALID.
func (s *Store) Open(ctx context.Context, key string) (fileframe.BlobReader, error) {
	info, err := s.Stat(ctx, key)
	if err != nil {
		return fileframe.BlobReader{}, err
	}
	name, _ := s.objectName(key)
	return fileframe.BlobReader{
		Body:     &body{ctx: ctx, s: s, name: name, size: info.Size},
		BlobInfo: info,
	}, nil
}

// body is the io.ReadSeekCloser of an open blob.
type body struct {
	ctx    context.Context
	s      *Store
	name   string
	size   int64
	off    int64
	stream io.ReadCloser // a GET's body positioned at off, or nil
	closed bool
}

func (b *body) Read(p []byte) (int, error) {
	if b.closed {
		return 0, fs.ErrClosed
	}
	if b.off >= b.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if b.stream == nil {
		if err := b.get(); err != nil {
			return 0, err
		}
	}
	n, err := b.stream.Read(p)
	b.off += int64(n)
	switch {
	case err == io.EOF && b.off < b.size:
		// The connection ended early; a later Read starts a new GET.
		b.dropStream()
		if n > 0 {
			return n, nil
		}
		return 0, fmt.Errorf("s3: read %s: %w", b.name, io.ErrUnexpectedEOF)
	case err == io.EOF:
		b.dropStream()
	case err != nil:
		b.dropStream()
		return n, opError("read "+b.name, err)
	}
	return n, err
}

// get starts a GET of the bytes from b.off to the end.
func (b *body) get() error {
	out, err := b.s.client.GetObject(b.ctx, &s3.GetObjectInput{
		Bucket: &b.s.bucket,
		Key:    &b.name,
		Range:  aws.String("bytes=" + strconv.FormatInt(b.off, 10) + "-"),
	})
	if err != nil {
		return mapError("read", err)
	}
	// A server that ignores Range sends the object from its first byte,
	// which from any other offset would be the wrong bytes.
	if b.off > 0 && !strings.HasPrefix(aws.ToString(out.ContentRange), "bytes "+strconv.FormatInt(b.off, 10)+"-") {
		out.Body.Close()
		return fmt.Errorf("s3: read %s: asked for bytes from %d, got Content-Range %q", b.name, b.off, aws.ToString(out.ContentRange))
	}
	b.stream = out.Body
	return nil
}

func (b *body) dropStream() {
	if b.stream != nil {
		// Closing before the end closes the connection rather than
		// reading the rest of the object.
		b.stream.Close()
		b.stream = nil
	}
}

func (b *body) Seek(offset int64, whence int) (int64, error) {
	if b.closed {
		return 0, fs.ErrClosed
	}
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = b.off + offset
	case io.SeekEnd:
		abs = b.size + offset
	default:
		return 0, errors.New("s3: seek: invalid whence")
	}
	if abs < 0 {
		return 0, errors.New("s3: seek: negative position")
	}
	if abs != b.off {
		b.dropStream()
		b.off = abs
	}
	return abs, nil
}

func (b *body) Close() error {
	b.dropStream()
	b.closed = true
	return nil
}

// Walk calls fn for every stored blob, in no particular order, stopping at
// fn's first error or when ctx is done. It lists the objects under the
// prefix (ListObjectsV2, a page of up to 1,000 at a time) and reports only
// those at a blob's content-addressed place (<prefix>ab/cd/abcd…), so temp
// objects and anything else in the bucket are never taken for blobs. fn may
// delete the blob it is given.
func (s *Store) Walk(ctx context.Context, fn func(fileframe.BlobInfo) error) error {
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: &s.bucket,
		Prefix: aws.String(s.prefix),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return opError("walk", err)
		}
		for _, obj := range page.Contents {
			key := s.keyOf(aws.ToString(obj.Key))
			if key == "" {
				continue
			}
			info := fileframe.BlobInfo{Key: key, Size: aws.ToInt64(obj.Size), ModTime: aws.ToTime(obj.LastModified)}
			if err := fn(info); err != nil {
				return err
			}
		}
	}
	return nil
}

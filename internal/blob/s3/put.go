package s3

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Put stores everything read from r and returns its key and size.
//
// It streams r to a temp object <prefix>tmp/<random> while hashing it: a
// body shorter than PartSize in one PutObject, a longer one as a multipart
// upload of PartSize parts, two in flight at a time. Memory is bounded
// whatever the size: at most 4 × PartSize (32 MiB at the default) per Put in
// progress. Then the server copies the temp object to the blob's place
// (CopyObject; part by part with UploadPartCopy above 5 GiB) and the temp is
// deleted. Put returns once the server has acknowledged the copy, so the
// blob is as durable as the server makes its objects.
//
// The copy is made even when the blob already exists: it replaces the
// object with identical bytes, which refreshes its LastModified (the blob's
// ModTime), as fileframe.Blobs requires, and unlike a HEAD-then-skip cannot
// race with a collector deleting the blob in between. Concurrent Puts of
// the same content each copy; the last copy wins, and all are equal.
//
// Put stops with ctx's error once ctx is done and with r's error if r
// fails; either way it removes its temp object (and any unfinished
// multipart upload) with a fresh context, and leaves nothing under the key.
func (s *Store) Put(ctx context.Context, r io.Reader) (fileframe.BlobInfo, error) {
	if err := ctx.Err(); err != nil {
		return fileframe.BlobInfo{}, err
	}
	tmp := s.tempPrefix() + rand.Text()
	body := &hashingReader{ctx: ctx, r: r, h: sha256.New()}
	_, err := s.uploader.Upload(ctx, &s3.PutObjectInput{
		Bucket: &s.bucket,
		Key:    &tmp,
		Body:   body, // neither a Seeker nor a ReaderAt: the uploader streams it
	})
	if err != nil {
		s.dropTemp(ctx, tmp, err, err)
		return fileframe.BlobInfo{}, putError(ctx, err)
	}
	key := hex.EncodeToString(body.h.Sum(nil))
	name, _ := s.objectName(key) // a hex SHA-256 is a valid key
	modTime, err := s.copyObject(ctx, tmp, name, body.n)
	if err != nil {
		s.dropTemp(ctx, tmp, nil, err)
		return fileframe.BlobInfo{}, putError(ctx, err)
	}
	s.removeTemp(ctx, tmp, nil)
	return fileframe.BlobInfo{Key: key, Size: body.n, ModTime: modTime}, nil
}

// dropTemp removes a failed Put's temp object (removeTemp): before Put
// returns, unless the Put failed because the server is out of reach. Then
// the removal, as likely to wait for its whole cleanupTimeout as to
// succeed, goes on in the background, and the caller gets its 503 at once.
func (s *Store) dropTemp(ctx context.Context, tmp string, uploadErr, err error) {
	if unreachable(err) {
		go s.removeTemp(ctx, tmp, uploadErr)
		return
	}
	s.removeTemp(ctx, tmp, uploadErr)
}

// putError wraps err, making sure that a Put stopped by its context returns
// an error that errors.Is the context's error, whichever layer noticed.
func putError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("s3: put: %w (%v)", cerr, err)
	}
	return opError("put", err)
}

// removeTemp deletes the temp object tmp and, if uploadErr says a multipart
// upload was left unfinished, aborts it. It is best effort, with a context
// of its own so that it also runs for a Put whose context was cancelled;
// whatever it misses, CleanTemp collects later.
func (s *Store) removeTemp(ctx context.Context, tmp string, uploadErr error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	// The uploader leaves a failed multipart upload to this
	// (Uploader.LeavePartsOnError).
	var mu manager.MultiUploadFailure
	if errors.As(uploadErr, &mu) && mu.UploadID() != "" {
		s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
			Bucket:   &s.bucket,
			Key:      &tmp,
			UploadId: aws.String(mu.UploadID()),
		})
	}
	s.deleteObject(ctx, tmp)
}

// copyObject copies the object src to dst on the server and returns the
// new object's modification time.
func (s *Store) copyObject(ctx context.Context, src, dst string, size int64) (time.Time, error) {
	if size <= s.maxCopyObjectSize {
		out, err := s.client.CopyObject(ctx, &s3.CopyObjectInput{
			Bucket:     &s.bucket,
			Key:        &dst,
			CopySource: aws.String(s.copySource(src)),
		})
		if err != nil {
			return time.Time{}, fmt.Errorf("copy: %w", err)
		}
		if out.CopyObjectResult != nil && out.CopyObjectResult.LastModified != nil {
			return *out.CopyObjectResult.LastModified, nil
		}
	} else if err := s.copyParts(ctx, src, dst, size); err != nil {
		return time.Time{}, err
	}
	// CompleteMultipartUpload, and CopyObject on some servers, do not say
	// when the object was written.
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &dst})
	if err != nil {
		return time.Time{}, fmt.Errorf("copy: %w", err)
	}
	return aws.ToTime(out.LastModified), nil
}

// copyParts copies the object src of size bytes to dst as a multipart
// upload of UploadPartCopy parts, the only way S3 copies objects over 5 GiB.
func (s *Store) copyParts(ctx context.Context, src, dst string, size int64) (err error) {
	partSize := max(s.copyPartSize, (size+maxParts-1)/maxParts)
	n := int((size + partSize - 1) / partSize)
	created, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &s.bucket, Key: &dst})
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	uploadID := created.UploadId
	defer func() {
		if err != nil {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
			defer cancel()
			s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &s.bucket, Key: &dst, UploadId: uploadID})
		}
	}()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	parts := make([]types.CompletedPart, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range uploadConcurrency {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					continue // a part failed: drain next
				}
				first := int64(i) * partSize
				last := min(first+partSize, size) - 1
				out, err := s.client.UploadPartCopy(ctx, &s3.UploadPartCopyInput{
					Bucket:          &s.bucket,
					Key:             &dst,
					UploadId:        uploadID,
					PartNumber:      aws.Int32(int32(i + 1)),
					CopySource:      aws.String(s.copySource(src)),
					CopySourceRange: aws.String(fmt.Sprintf("bytes=%d-%d", first, last)),
				})
				if err != nil {
					cancel(fmt.Errorf("copy part %d: %w", i+1, err))
					continue
				}
				p := types.CompletedPart{PartNumber: aws.Int32(int32(i + 1))}
				if r := out.CopyPartResult; r != nil {
					p.ETag = r.ETag
					p.ChecksumCRC32, p.ChecksumCRC32C, p.ChecksumCRC64NVME = r.ChecksumCRC32, r.ChecksumCRC32C, r.ChecksumCRC64NVME
					p.ChecksumSHA1, p.ChecksumSHA256 = r.ChecksumSHA1, r.ChecksumSHA256
				}
				parts[i] = p
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	_, err = s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket:          &s.bucket,
		Key:             &dst,
		UploadId:        uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	})
	if err != nil {
		return fmt.Errorf("copy: complete: %w", err)
	}
	return nil
}

// copySource is the x-amz-copy-source value naming the object name: bucket
// and key, URL-encoded segment by segment. Spaces are encoded as %20, since
// a '+' would be read back as a plus.
func (s *Store) copySource(name string) string {
	segments := strings.Split(s.bucket+"/"+name, "/")
	for i, seg := range segments {
		segments[i] = strings.ReplaceAll(url.QueryEscape(seg), "+", "%20")
	}
	return strings.Join(segments, "/")
}

// hashingReader reads r, hashing and counting what it returns, and fails
// with ctx's error once ctx is done, so that a Put of a slow or endless
// stream stops when its request is cancelled. The uploader reads it from
// one goroutine only.
type hashingReader struct {
	ctx context.Context
	r   io.Reader
	h   hash.Hash
	n   int64
}

func (hr *hashingReader) Read(p []byte) (int, error) {
	if err := hr.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n]) // a hash.Hash never returns an error
	hr.n += int64(n)
	return n, err
}

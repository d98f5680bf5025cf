package s3

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// CleanTemp removes what Puts interrupted by a crash left under
// <prefix>tmp/: temp objects last modified more than olderThan ago, and
// unfinished multipart uploads that received no part for that long (S3
// keeps, and bills, their parts until they are aborted). It returns how
// many it removed. Open calls it with an hour.
//
// A Put in progress sends a part every PartSize bytes and its temp object
// lives only as long as the server-side copy, so only a Put stalled for
// olderThan can lose its temp. The comparison is against this machine's
// clock, so olderThan must be well above any clock skew with the server.
func (s *Store) CleanTemp(ctx context.Context, olderThan time.Duration) (int, error) {
	return s.cleanUnder(ctx, s.tempPrefix(), olderThan, "clean temp")
}

// cleanUnder removes the objects under prefix last modified more than
// olderThan ago and aborts the multipart uploads under it that received no
// part for that long; what names the work in errors.
func (s *Store) cleanUnder(ctx context.Context, prefix string, olderThan time.Duration, what string) (int, error) {
	cutoff := s.now().Add(-olderThan)
	removed := 0
	objects := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: &s.bucket,
		Prefix: aws.String(prefix),
	})
	for objects.HasMorePages() {
		page, err := objects.NextPage(ctx)
		if err != nil {
			return removed, opError(what, err)
		}
		for _, obj := range page.Contents {
			if !aws.ToTime(obj.LastModified).Before(cutoff) {
				continue
			}
			if err := s.deleteObject(ctx, aws.ToString(obj.Key)); err != nil {
				return removed, opError(what, err)
			}
			removed++
		}
	}

	uploads := s3.NewListMultipartUploadsPaginator(s.client, &s3.ListMultipartUploadsInput{
		Bucket: &s.bucket,
		Prefix: aws.String(prefix),
	})
	for uploads.HasMorePages() {
		page, err := uploads.NextPage(ctx)
		var apiErr smithy.APIError
		if errors.As(err, &apiErr) && apiErr.ErrorCode() == "NotImplemented" {
			return removed, nil // a server without the listing; nothing to find
		} else if err != nil {
			return removed, opError(what, err)
		}
		for _, up := range page.Uploads {
			if !aws.ToTime(up.Initiated).Before(cutoff) {
				continue
			}
			if stale, err := s.uploadIdleSince(ctx, up.Key, up.UploadId, cutoff); err != nil {
				return removed, opError(what, err)
			} else if !stale {
				continue
			}
			_, err := s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
				Bucket:   &s.bucket,
				Key:      up.Key,
				UploadId: up.UploadId,
			})
			if err != nil && !isNoSuchUpload(err) {
				return removed, opError(what, err)
			}
			removed++
		}
	}
	return removed, nil
}

// uploadIdleSince reports whether the multipart upload received no part
// after cutoff: a long upload still in progress is not a crash leftover.
func (s *Store) uploadIdleSince(ctx context.Context, key, uploadID *string, cutoff time.Time) (bool, error) {
	parts := s3.NewListPartsPaginator(s.client, &s3.ListPartsInput{Bucket: &s.bucket, Key: key, UploadId: uploadID})
	for parts.HasMorePages() {
		page, err := parts.NextPage(ctx)
		if isNoSuchUpload(err) {
			return false, nil // completed or aborted meanwhile
		} else if err != nil {
			return false, err
		}
		for _, p := range page.Parts {
			if !aws.ToTime(p.LastModified).Before(cutoff) {
				return false, nil
			}
		}
	}
	return true, nil
}

func isNoSuchUpload(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "NoSuchUpload"
}

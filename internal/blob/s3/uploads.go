package s3

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Client returns the store's S3 client, so that tusd's s3store keeps
// unfinished resumable uploads in the same bucket with the same settings.
func (s *Store) Client() *s3.Client { return s.client }

// Bucket returns the store's bucket.
func (s *Store) Bucket() string { return s.bucket }

// UploadsPrefix is where unfinished resumable uploads belong:
// <prefix>uploads/. Walk never lists them: they are not at a blob's place.
func (s *Store) UploadsPrefix() string { return s.prefix + "uploads/" }

// CleanUploads removes what unfinished uploads left under UploadsPrefix:
// objects last modified more than olderThan ago, and multipart uploads that
// received no part for that long. It returns how many it removed.
func (s *Store) CleanUploads(ctx context.Context, olderThan time.Duration) (int, error) {
	return s.cleanUnder(ctx, s.UploadsPrefix(), olderThan, "clean uploads")
}

package s3

import (
	"context"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
)

// Client returns the store's S3 client, so that tusd's s3store keeps
// unfinished resumable uploads in the same bucket with the same settings.
// Its errors that mean the server is out of reach say so in their text
// (outOfReachMark), which WrapError finds again: s3store keeps only the
// text of some errors ("unable to create multipart upload:\n%s"), and
// without it such an error was a 500 whenever the server was back by the
// time the blob store's ping asked.
func (s *Store) Client() *s3.Client {
	return s3.New(s.client.Options(), func(o *s3.Options) {
		o.APIOptions = append(slices.Clip(o.APIOptions), func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("FileframeOutOfReach",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					out, md, err := next.HandleInitialize(ctx, in)
					if err != nil && unreachable(err) {
						err = outOfReachError{err}
					}
					return out, md, err
				}), middleware.Before)
		})
	})
}

// outOfReachMark begins the text of an outOfReachError.
const outOfReachMark = "[the S3 server is out of reach] "

// outOfReachError is an error of Client's that means the server is out of
// reach, marked so in its text.
type outOfReachError struct{ err error }

func (e outOfReachError) Error() string { return outOfReachMark + e.err.Error() }
func (e outOfReachError) Unwrap() error { return e.err }

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

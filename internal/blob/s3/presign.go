package s3

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// PresignGet returns a URL that GETs the blob with key straight from the
// object store, valid for Config.PresignTTL, whose response carries the given
// Content-Disposition and Content-Type (each omitted when empty). A download
// can be redirected there to take its bytes off this service. It is signed
// locally, without a request, and does not check that the blob exists; the
// URL names Config.Endpoint, so clients must be able to reach that address.
// An invalid key is an EINVALID error.
func (s *Store) PresignGet(ctx context.Context, key, contentDisposition, contentType string) (string, error) {
	name, err := s.objectName(key)
	if err != nil {
		return "", err
	}
	in := &s3.GetObjectInput{Bucket: &s.bucket, Key: &name}
	if contentDisposition != "" {
		in.ResponseContentDisposition = &contentDisposition
	}
	if contentType != "" {
		in.ResponseContentType = &contentType
	}
	req, err := s.presigner.PresignGetObject(ctx, in)
	if err != nil {
		return "", fmt.Errorf("s3: presign: %w", err)
	}
	return req.URL, nil
}

package s3

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/fileframe/fileframe/internal/blob/s3/s3test"
)

// testServer is the S3 server every test of the package talks to: the one
// named by FILEFRAME_TEST_S3_ENDPOINT, or a versitygw that TestMain starts.
var testServer struct {
	endpoint, accessKey, secretKey string
}

// TestMain provides the S3 server. The tests never skip for want of one:
// without a server they fail, saying how to get one.
func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if ep := os.Getenv("FILEFRAME_TEST_S3_ENDPOINT"); ep != "" {
		testServer.endpoint = ep
		testServer.accessKey = os.Getenv("FILEFRAME_TEST_S3_ACCESS_KEY")
		testServer.secretKey = os.Getenv("FILEFRAME_TEST_S3_SECRET_KEY")
		if testServer.accessKey == "" || testServer.secretKey == "" {
			fmt.Fprintln(os.Stderr, "FILEFRAME_TEST_S3_ENDPOINT is set but FILEFRAME_TEST_S3_ACCESS_KEY or FILEFRAME_TEST_S3_SECRET_KEY is not")
			return 1
		}
		return m.Run()
	}
	root, err := os.MkdirTemp("", "fileframe-s3-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(root)
	srv, err := s3test.Start(root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "s3 tests: %v\n\n%s\n", err, s3test.InstallHint)
		return 1
	}
	testServer.endpoint, testServer.accessKey, testServer.secretKey = srv.Endpoint, srv.AccessKey, srv.SecretKey
	code := m.Run()
	if err := srv.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "s3 tests: stopping versitygw: %v\n", err)
	}
	return code
}

func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// testConfig returns a Config for a new, random bucket on the test server.
func testConfig() Config {
	return Config{
		Endpoint:  testServer.endpoint,
		Bucket:    "fileframe-test-" + strings.ToLower(rand.Text()),
		AccessKey: testServer.accessKey,
		SecretKey: testServer.secretKey,
		PathStyle: true,
	}
}

// newTestStore opens a store on a bucket of its own, changed first by
// configure if not nil, and empties and removes the bucket when t ends.
func newTestStore(t testing.TB, configure func(*Config)) *Store {
	t.Helper()
	cfg := testConfig()
	if configure != nil {
		configure(&cfg)
	}
	s, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { removeBucket(t, s.client, s.bucket) })
	return s
}

// removeBucket deletes everything in bucket, and then the bucket, so that a
// shared test server is left as it was found.
func removeBucket(t testing.TB, client *s3.Client, bucket string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	uploads, err := client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &bucket})
	if err == nil {
		for _, up := range uploads.Uploads {
			client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &bucket, Key: up.Key, UploadId: up.UploadId})
		}
	}
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: &bucket})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Errorf("cleanup: list %s: %v", bucket, err)
			return
		}
		for _, obj := range page.Contents {
			if _, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: obj.Key}); err != nil {
				t.Errorf("cleanup: delete %s: %v", aws.ToString(obj.Key), err)
			}
		}
	}
	if _, err := client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket}); err != nil {
		t.Errorf("cleanup: delete bucket %s: %v", bucket, err)
	}
}

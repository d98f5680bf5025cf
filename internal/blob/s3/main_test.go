package s3

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// testServer is the S3 server every test of the package talks to: the one
// named by FILEFRAME_TEST_S3_ENDPOINT, or a versitygw that TestMain starts.
var testServer struct {
	endpoint, accessKey, secretKey string
}

const installHint = `the s3 tests need an S3 server on loopback: install versitygw
	go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
or point the tests at a server with FILEFRAME_TEST_S3_ENDPOINT,
FILEFRAME_TEST_S3_ACCESS_KEY and FILEFRAME_TEST_S3_SECRET_KEY`

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
	stop, err := startVersitygw()
	if err != nil {
		fmt.Fprintf(os.Stderr, "s3 tests: %v\n\n%s\n", err, installHint)
		return 1
	}
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "s3 tests: stopping versitygw: %v\n", err)
	}
	return code
}

// findVersitygw looks in PATH and then in $(go env GOPATH)/bin, where go
// install puts it.
func findVersitygw() (string, error) {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", "versitygw")
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	return "", errors.New("versitygw not found in PATH nor in $(go env GOPATH)/bin")
}

// startVersitygw starts versitygw on a free loopback port, serving a new
// temporary directory, waits until it answers and returns how to stop it.
func startVersitygw() (stop func() error, err error) {
	bin, err := findVersitygw()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "fileframe-s3-test-")
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "data")
	if err := os.Mkdir(root, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	addr, err := freeLoopbackAddr()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	testServer.endpoint = "http://" + addr
	testServer.accessKey = "fileframetest"
	testServer.secretKey = rand.Text()

	var logs bytes.Buffer
	cmd := exec.Command(bin,
		"--access", testServer.accessKey, "--secret", testServer.secretKey,
		"--port", addr, "--keep-alive", "--quiet",
		"posix", root)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start versitygw: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() error {
		defer os.RemoveAll(dir)
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
			return nil
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			return errors.New("versitygw ignored SIGTERM for 10s; killed it")
		}
	}

	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(testServer.endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return stop, nil // any HTTP answer, even 403, means it is up
		}
		select {
		case err := <-exited:
			os.RemoveAll(dir)
			return nil, fmt.Errorf("versitygw exited (%v) before answering:\n%s", err, logs.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("versitygw did not answer on %s within 30s:\n%s", addr, logs.String())
		}
	}
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

package s3

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fileframe/fileframe/internal/blob/blobtest"
	"github.com/fileframe/fileframe/internal/fileframe"
)

func TestConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) fileframe.Blobs {
		return newTestStore(t, nil)
	})
}

// TestConformancePrefix runs the suite again on a store sharing its bucket
// with blobs of another prefix, which it must never see.
func TestConformancePrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("second conformance run skipped in -short mode")
	}
	blobtest.Run(t, func(t *testing.T) fileframe.Blobs {
		other := newTestStore(t, func(c *Config) { c.Prefix = "other/" })
		if _, err := other.Put(t.Context(), strings.NewReader("not yours")); err != nil {
			t.Fatal(err)
		}
		s, err := Open(t.Context(), Config{
			Endpoint: testServer.endpoint, Bucket: other.bucket, PathStyle: true,
			AccessKey: testServer.accessKey, SecretKey: testServer.secretKey,
			Prefix: "blobs",
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// recorder is an http.RoundTripper that records the requests it sends and
// counts the response body bytes their readers consume.
type recorder struct {
	mu   sync.Mutex
	reqs []*recorded
}

type recorded struct {
	method string
	url    *url.URL
	header http.Header
	read   atomic.Int64
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := &recorded{method: req.Method, url: req.URL, header: req.Header.Clone()}
	r.mu.Lock()
	r.reqs = append(r.reqs, rec)
	r.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, n: &rec.read}
	return resp, nil
}

// requests returns the recorded requests for which match is true.
func (r *recorder) requests(match func(*recorded) bool) []*recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	var got []*recorded
	for _, rec := range r.reqs {
		if match(rec) {
			got = append(got, rec)
		}
	}
	return got
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.reqs = nil
	r.mu.Unlock()
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func newRecordedStore(t *testing.T, configure func(*Config)) (*Store, *recorder) {
	rec := &recorder{}
	s := newTestStore(t, func(c *Config) {
		c.HTTPClient = &http.Client{Transport: rec}
		if configure != nil {
			configure(c)
		}
	})
	rec.reset()
	return s, rec
}

func isGet(r *recorded) bool { return r.method == http.MethodGet }

func TestOpenCreatesBucket(t *testing.T) {
	cfg := testConfig()
	probe, err := newStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := probe.Ping(t.Context()); err == nil {
		t.Fatalf("Ping before Open = nil, want an error: bucket %s should not exist yet", cfg.Bucket)
	}
	s, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Open on a missing bucket: %v", err)
	}
	t.Cleanup(func() { removeBucket(t, s.client, s.bucket) })
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("Ping after Open = %v, want nil", err)
	}
	if _, err := s.Put(t.Context(), strings.NewReader("first blob")); err != nil {
		t.Fatalf("Put: %v", err)
	}
	// Opening an existing bucket leaves it, and its blobs, as they are.
	again, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	if _, err := again.Stat(t.Context(), blobtest.KeyOf([]byte("first blob"))); err != nil {
		t.Errorf("Stat through second store: %v", err)
	}
}

func TestOpenInvalidConfig(t *testing.T) {
	valid := testConfig()
	tests := map[string]func(*Config){
		"NoBucket":         func(c *Config) { c.Bucket = "" },
		"NoAccessKey":      func(c *Config) { c.AccessKey = "" },
		"NoSecretKey":      func(c *Config) { c.SecretKey = "" },
		"PartSizeTooSmall": func(c *Config) { c.PartSize = 1 << 20 },
		"EndpointNoURL":    func(c *Config) { c.Endpoint = "127.0.0.1:9000" },
		"EndpointFTP":      func(c *Config) { c.Endpoint = "ftp://127.0.0.1" },
		"PrefixSlash":      func(c *Config) { c.Prefix = "/blobs" },
		"PrefixEmptySeg":   func(c *Config) { c.Prefix = "a//b" },
		"PresignTTLLong":   func(c *Config) { c.PresignTTL = 8 * 24 * time.Hour },
		"PresignTTLNeg":    func(c *Config) { c.PresignTTL = -time.Second },
	}
	for name, change := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := valid
			change(&cfg)
			if s, err := Open(t.Context(), cfg); err == nil {
				removeBucket(t, s.client, s.bucket)
				t.Errorf("Open(%+v) = nil error, want one", cfg)
			}
		})
	}
}

func TestOpenUnreachable(t *testing.T) {
	addr, err := freeLoopbackAddr() // nothing listens there any more
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Endpoint = "http://" + addr
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := Open(ctx, cfg); err == nil {
		t.Error("Open with nothing listening = nil error, want one")
	}
}

// TestPathStyle checks that requests name the bucket in the path, as
// self-hosted servers without wildcard DNS need.
func TestPathStyle(t *testing.T) {
	s, rec := newRecordedStore(t, nil)
	info, err := s.Put(t.Context(), strings.NewReader("path style"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stat(t.Context(), info.Key); err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests(func(*recorded) bool { return true })
	if len(reqs) == 0 {
		t.Fatal("no requests recorded")
	}
	host := strings.TrimPrefix(testServer.endpoint, "http://")
	for _, r := range reqs {
		if r.url.Host != host || !strings.HasPrefix(r.url.Path, "/"+s.bucket+"/") {
			t.Errorf("%s %s: want host %s and path /%s/…", r.method, r.url, host, s.bucket)
		}
	}
}

func TestLayout(t *testing.T) {
	s := newTestStore(t, func(c *Config) { c.Prefix = "blobs" })
	content := []byte("where does it go")
	info, err := s.Put(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	want := "blobs/" + info.Key[0:2] + "/" + info.Key[2:4] + "/" + info.Key
	if got := listObjects(t, s, ""); len(got) != 1 || got[0] != want {
		t.Errorf("objects in bucket = %v, want [%s]", got, want)
	}
	out, err := s.client.GetObject(t.Context(), &s3.GetObjectInput{Bucket: &s.bucket, Key: &want})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	if got, _ := io.ReadAll(out.Body); !bytes.Equal(got, content) {
		t.Errorf("object content = %q, want %q", got, content)
	}
}

func TestPrefixIsolatesStores(t *testing.T) {
	a := newTestStore(t, func(c *Config) { c.Prefix = "a/" })
	b, err := Open(t.Context(), Config{
		Endpoint: testServer.endpoint, Bucket: a.bucket, PathStyle: true,
		AccessKey: testServer.accessKey, SecretKey: testServer.secretKey,
		Prefix: "b",
	})
	if err != nil {
		t.Fatal(err)
	}
	root, err := Open(t.Context(), Config{ // no prefix: the whole bucket
		Endpoint: testServer.endpoint, Bucket: a.bucket, PathStyle: true,
		AccessKey: testServer.accessKey, SecretKey: testServer.secretKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]*Store{"a": a, "b": b, "root": root}
	keys := map[string]string{}
	for name, s := range stores {
		info, err := s.Put(t.Context(), strings.NewReader("only in "+name))
		if err != nil {
			t.Fatalf("Put into %s: %v", name, err)
		}
		keys[name] = info.Key
	}
	for name, s := range stores {
		var got []string
		if err := s.Walk(t.Context(), func(info fileframe.BlobInfo) error {
			got = append(got, info.Key)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0] != keys[name] {
			t.Errorf("store %s: Walk = %v, want [%s]", name, got, keys[name])
		}
		for other, key := range keys {
			if other == name {
				continue
			}
			if _, err := s.Stat(t.Context(), key); !fileframe.IsNotFound(err) {
				t.Errorf("store %s: Stat of %s's blob: err = %v, want ENOTFOUND", name, other, err)
			}
		}
	}
}

// TestPutMultipart checks the path of a body larger than PartSize: a
// multipart upload of the temp object, then a copy.
func TestPutMultipart(t *testing.T) {
	s, rec := newRecordedStore(t, func(c *Config) { c.PartSize = MinPartSize })
	const size = 12 << 20
	info, err := s.Put(t.Context(), blobtest.NewPseudoRandomReader(3, size))
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	want := hashOf(t, blobtest.NewPseudoRandomReader(3, size))
	if info.Key != want || info.Size != size {
		t.Fatalf("Put = %s, %d; want %s, %d", info.Key, info.Size, want, size)
	}
	parts := rec.requests(func(r *recorded) bool {
		return r.method == http.MethodPut && r.url.Query().Has("partNumber")
	})
	if got, want := len(parts), 3; got != want { // 5 + 5 + 2 MiB
		t.Errorf("UploadPart requests = %d, want %d", got, want)
	}
	br, err := s.Open(t.Context(), info.Key)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Body.Close()
	if got := hashOf(t, br.Body); got != want {
		t.Errorf("hash of stored content = %s, want %s", got, want)
	}
	assertNoTemps(t, s)
}

// TestPutCopyByParts takes the path of blobs over 5 GiB, which the server
// copies part by part, with the limit lowered to a few MiB.
func TestPutCopyByParts(t *testing.T) {
	s, rec := newRecordedStore(t, func(c *Config) { c.PartSize = MinPartSize })
	s.maxCopyObjectSize = MinPartSize
	s.copyPartSize = MinPartSize
	const size = 12<<20 + 1
	info, err := s.Put(t.Context(), blobtest.NewPseudoRandomReader(4, size))
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	copies := rec.requests(func(r *recorded) bool { return r.header.Get("X-Amz-Copy-Source-Range") != "" })
	if got, want := len(copies), 3; got != want {
		t.Errorf("UploadPartCopy requests = %d, want %d", got, want)
	}
	st, err := s.Stat(t.Context(), info.Key)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size != size || st.ModTime.IsZero() {
		t.Errorf("Stat = %+v, want size %d and a ModTime", st, size)
	}
	if !info.ModTime.Equal(st.ModTime) {
		t.Errorf("Put ModTime = %v, Stat ModTime = %v; want equal", info.ModTime, st.ModTime)
	}
	br, err := s.Open(t.Context(), info.Key)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Body.Close()
	if got, want := hashOf(t, br.Body), hashOf(t, blobtest.NewPseudoRandomReader(4, size)); got != want {
		t.Errorf("hash of stored content = %s, want %s", got, want)
	}
	assertNoTemps(t, s)
}

func TestPutFailureLeavesNoTemp(t *testing.T) {
	errBroken := errors.New("broken")
	tests := map[string]int64{
		"SinglePart": 1 << 20,
		"Multipart":  12 << 20,
	}
	for name, size := range tests {
		t.Run(name, func(t *testing.T) {
			s := newTestStore(t, func(c *Config) { c.PartSize = MinPartSize })
			r := io.MultiReader(blobtest.NewPseudoRandomReader(5, size), iotest.ErrReader(errBroken))
			if _, err := s.Put(t.Context(), r); !errors.Is(err, errBroken) {
				t.Fatalf("Put = %v, want %v", err, errBroken)
			}
			assertNoTemps(t, s)
			if got := listObjects(t, s, ""); len(got) != 0 {
				t.Errorf("objects after failed Put: %v", got)
			}
		})
	}
}

// TestPutCancelledLeavesNoUpload cancels a multipart Put midway: the
// uploader's own abort uses the cancelled context and fails, so Put must
// abort the upload itself.
func TestPutCancelledLeavesNoUpload(t *testing.T) {
	s := newTestStore(t, func(c *Config) { c.PartSize = MinPartSize })
	ctx, cancel := context.WithCancel(t.Context())
	r := &cancelAfter{r: blobtest.NewPseudoRandomReader(6, 64<<20), after: 11 << 20, cancel: cancel}
	if _, err := s.Put(ctx, r); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put = %v, want context.Canceled", err)
	}
	assertNoTemps(t, s)
}

// cancelAfter reads r and cancels once it has returned after bytes.
type cancelAfter struct {
	r      io.Reader
	n      int64
	after  int64
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.n >= c.after {
		c.cancel()
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestPutSameContentRefreshesModTime(t *testing.T) {
	s := newTestStore(t, nil)
	content := []byte("orphan collector, spare me")
	first, err := s.Put(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // Last-Modified counts whole seconds
	second, err := s.Put(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	if !second.ModTime.After(first.ModTime) {
		t.Errorf("second Put ModTime = %v, want after the first's %v", second.ModTime, first.ModTime)
	}
	st, err := s.Stat(t.Context(), first.Key)
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime.Equal(second.ModTime) {
		t.Errorf("Stat ModTime = %v, want the second Put's %v", st.ModTime, second.ModTime)
	}
}

func TestCleanTemp(t *testing.T) {
	s := newTestStore(t, nil)
	blob, err := s.Put(t.Context(), strings.NewReader("a blob, not a temp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tmp/crashed-1", "tmp/crashed-2"} {
		putObject(t, s, name, "partial")
	}
	up, err := s.client.CreateMultipartUpload(t.Context(), &s3.CreateMultipartUploadInput{Bucket: &s.bucket, Key: aws.String("tmp/crashed-3")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.client.UploadPart(t.Context(), &s3.UploadPartInput{
		Bucket: &s.bucket, Key: aws.String("tmp/crashed-3"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("part one"),
	}); err != nil {
		t.Fatal(err)
	}

	// Everything is fresh: nothing goes.
	if n, err := s.CleanTemp(t.Context(), time.Hour); err != nil || n != 0 {
		t.Fatalf("CleanTemp of fresh temps = %d, %v; want 0, nil", n, err)
	}
	if got := listObjects(t, s, "tmp/"); len(got) != 2 {
		t.Errorf("temps after CleanTemp of fresh ones = %v, want 2", got)
	}
	// Two hours later, temps and the upload are stale.
	s.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if n, err := s.CleanTemp(t.Context(), time.Hour); err != nil || n != 3 {
		t.Fatalf("CleanTemp of stale temps = %d, %v; want 3, nil", n, err)
	}
	assertNoTemps(t, s)
	if _, err := s.Stat(t.Context(), blob.Key); err != nil {
		t.Errorf("Stat of blob after CleanTemp: %v", err)
	}
}

func TestOpenRemovesStaleTemps(t *testing.T) {
	cfg := testConfig()
	s, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeBucket(t, s.client, s.bucket) })
	putObject(t, s, "tmp/crashed", "partial")
	if _, err := Open(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if got := listObjects(t, s, "tmp/"); len(got) != 1 {
		t.Errorf("Open removed a fresh temp: tmp/ = %v", got)
	}
	if _, err := open(t.Context(), cfg, func() time.Time { return time.Now().Add(61 * time.Minute) }); err != nil {
		t.Fatal(err)
	}
	assertNoTemps(t, s)
}

// TestWalkListsOnlyBlobs checks that temp objects, stray objects and objects
// out of their content-addressed place are not reported as blobs.
func TestWalkListsOnlyBlobs(t *testing.T) {
	s := newTestStore(t, nil)
	info, err := s.Put(t.Context(), strings.NewReader("the one blob"))
	if err != nil {
		t.Fatal(err)
	}
	other := blobtest.KeyOf([]byte("elsewhere"))
	for _, name := range []string{
		"tmp/" + info.Key,
		"tmp/ab/cd/" + other,
		"README",
		info.Key,
		info.Key[0:2] + "/stray",
		info.Key[0:2] + "/" + info.Key[2:4] + "/stray",
		info.Key[0:2] + "/" + info.Key[2:4] + "/" + other, // wrong place
		"zz/zz/" + other,
		"x/" + info.Key[0:2] + "/" + info.Key[2:4] + "/" + info.Key,
		strings.ToUpper(other[0:2]) + "/" + strings.ToUpper(other[2:4]) + "/" + strings.ToUpper(other),
	} {
		putObject(t, s, name, "junk")
	}
	var got []string
	if err := s.Walk(t.Context(), func(b fileframe.BlobInfo) error {
		got = append(got, b.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != info.Key {
		t.Errorf("Walk listed %v, want [%s]", got, info.Key)
	}
}

// TestWalkPages puts more blobs than one ListObjectsV2 page holds.
func TestWalkPages(t *testing.T) {
	if testing.Short() {
		t.Skip("1,100 blobs skipped in -short mode")
	}
	s := newTestStore(t, nil)
	const n = 1100
	want := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			content := []byte{byte(i), byte(i >> 8)}
			info, err := s.Put(t.Context(), bytes.NewReader(content))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			want[info.Key] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	got := 0
	if err := s.Walk(t.Context(), func(b fileframe.BlobInfo) error {
		if !want[b.Key] {
			t.Errorf("Walk listed unknown %s", b.Key)
		}
		got++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Errorf("Walk listed %d blobs, want %d", got, n)
	}
}

func TestInvalidKeyNeverLeavesStore(t *testing.T) {
	s := newTestStore(t, func(c *Config) { c.Prefix = "blobs/" })
	victims := []string{"victim", "blobs/tmp/victim"}
	for _, v := range victims {
		putObject(t, s, v, "precious")
	}
	for _, key := range []string{"../victim", "../../victim", "/victim", "victim", "tmp/victim", "..", "tmp", ""} {
		if err := s.Delete(t.Context(), key); fileframe.ErrorCode(err) != fileframe.EINVALID {
			t.Errorf("Delete(%q) = %v, want EINVALID", key, err)
		}
		if _, err := s.Open(t.Context(), key); fileframe.ErrorCode(err) != fileframe.EINVALID {
			t.Errorf("Open(%q) = %v, want EINVALID", key, err)
		}
		if _, err := s.PresignGet(t.Context(), key, "", ""); fileframe.ErrorCode(err) != fileframe.EINVALID {
			t.Errorf("PresignGet(%q) = %v, want EINVALID", key, err)
		}
	}
	for _, v := range victims {
		if _, err := s.client.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: &s.bucket, Key: &v}); err != nil {
			t.Errorf("object %s outside the store: %v", v, err)
		}
	}
}

func TestPingFailsWithoutBucket(t *testing.T) {
	cfg := testConfig()
	s, err := newStore(cfg) // never created
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(t.Context()); err == nil {
		t.Error("Ping of a missing bucket = nil, want an error")
	}
}

func TestPresignGet(t *testing.T) {
	s := newTestStore(t, func(c *Config) { c.PresignTTL = 2 * time.Minute })
	content := []byte("fetched straight from the object store\n")
	info, err := s.Put(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	const disposition = `attachment; filename="report 2030.txt"; filename*=UTF-8''report%202030%E2%82%AC.txt`
	u, err := s.PresignGet(t.Context(), info.Key, disposition, "text/plain; charset=utf-8")
	if err != nil {
		t.Fatalf("PresignGet: %v", err)
	}
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := parsed.Query().Get("X-Amz-Expires"), "120"; got != want {
		t.Errorf("X-Amz-Expires = %q, want %q", got, want)
	}
	resp, err := http.Get(u) // plain net/http, no credentials
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET presigned URL: status %d, body %s", resp.StatusCode, got)
	}
	if !bytes.Equal(got, content) {
		t.Errorf("body = %q, want %q", got, content)
	}
	if got := resp.Header.Get("Content-Disposition"); got != disposition {
		t.Errorf("Content-Disposition = %q, want %q", got, disposition)
	}
	if got, want := resp.Header.Get("Content-Type"), "text/plain; charset=utf-8"; got != want {
		t.Errorf("Content-Type = %q, want %q", got, want)
	}

	// A tampered URL is refused.
	q := parsed.Query()
	q.Set("response-content-disposition", "inline")
	parsed.RawQuery = q.Encode()
	resp2, err := http.Get(parsed.String())
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusForbidden {
		t.Errorf("GET tampered URL: status %d, want 403", resp2.StatusCode)
	}
}

// TestOpenRangedRead checks that Open fetches nothing, that a Seek and a
// Read fetch from the offset on, and that only what is read is taken from
// the response.
func TestOpenRangedRead(t *testing.T) {
	s, rec := newRecordedStore(t, nil)
	const size = 4 << 20
	content := make([]byte, size)
	if _, err := io.ReadFull(blobtest.NewPseudoRandomReader(8, size), content); err != nil {
		t.Fatal(err)
	}
	info, err := s.Put(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	rec.reset()
	br, err := s.Open(t.Context(), info.Key)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Body.Close()
	if _, err := br.Body.Seek(-1000, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	if _, err := br.Body.Seek(3_000_000, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if gets := rec.requests(isGet); len(gets) != 0 {
		t.Fatalf("GETs after Open and Seek = %d, want 0 (fetch lazily)", len(gets))
	}
	got := make([]byte, 1000)
	if _, err := io.ReadFull(br.Body, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, content[3_000_000:3_001_000]) {
		t.Error("bytes read at 3,000,000 differ")
	}
	gets := rec.requests(isGet)
	if len(gets) != 1 {
		t.Fatalf("GETs = %d, want 1", len(gets))
	}
	if got, want := gets[0].header.Get("Range"), "bytes=3000000-"; got != want {
		t.Errorf("Range = %q, want %q", got, want)
	}
	// Reading on continues the same GET.
	if _, err := io.ReadFull(br.Body, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, content[3_001_000:3_002_000]) {
		t.Error("bytes read at 3,001,000 differ")
	}
	if n := len(rec.requests(isGet)); n != 1 {
		t.Errorf("GETs after reading on = %d, want 1", n)
	}
	if err := br.Body.Close(); err != nil {
		t.Fatal(err)
	}
	if n := gets[0].read.Load(); n > 64<<10 {
		t.Errorf("read %d bytes of the response to read 2,000, want at most 64 KiB", n)
	}
	if _, err := br.Body.Read(got); err == nil {
		t.Error("Read after Close = nil error, want one")
	}
}

// TestOpenBlobDeletedMeanwhile: a blob deleted between Open and the first
// Read reads as not found.
func TestOpenBlobDeletedMeanwhile(t *testing.T) {
	s := newTestStore(t, nil)
	info, err := s.Put(t.Context(), strings.NewReader("short-lived"))
	if err != nil {
		t.Fatal(err)
	}
	br, err := s.Open(t.Context(), info.Key)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Body.Close()
	if err := s.Delete(t.Context(), info.Key); err != nil {
		t.Fatal(err)
	}
	if _, err := br.Body.Read(make([]byte, 10)); !fileframe.IsNotFound(err) {
		t.Errorf("Read of deleted blob: err = %v, want ENOTFOUND", err)
	}
}

// TestPutMemoryBounded puts 64 MiB and samples the heap meanwhile: what Put
// holds must stay within the uploader's bound, whatever the body's size.
func TestPutMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB Put skipped in -short mode")
	}
	s := newTestStore(t, func(c *Config) { c.PartSize = MinPartSize })
	// Collect garbage eagerly, so that the samples measure what Put holds
	// rather than how far the collector lets the heap grow.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse

	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	const size = 64 << 20
	info, err := s.Put(t.Context(), blobtest.NewPseudoRandomReader(9, size))
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if info.Size != size {
		t.Fatalf("Put size = %d, want %d", info.Size, size)
	}
	growth := int64(peak.Load()) - int64(base)
	// The uploader holds uploadConcurrency+2 parts at most (see
	// uploadConcurrency); one more part of slack covers the garbage its
	// first read leaves and the HTTP buffers.
	limit := s.partSize * (uploadConcurrency + 3)
	t.Logf("peak heap growth %.1f MiB for a %d MiB Put, limit %.1f MiB (part %d MiB, %d in flight)",
		float64(growth)/(1<<20), size>>20, float64(limit)/(1<<20), s.partSize>>20, uploadConcurrency)
	if growth >= limit {
		t.Errorf("peak heap growth during a %d MiB Put = %d bytes, want < %d", size>>20, growth, limit)
	}
}

func hashOf(t *testing.T, r io.Reader) string {
	t.Helper()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func putObject(t *testing.T, s *Store, name, content string) {
	t.Helper()
	if _, err := s.client.PutObject(t.Context(), &s3.PutObjectInput{
		Bucket: &s.bucket, Key: &name, Body: strings.NewReader(content),
	}); err != nil {
		t.Fatalf("PutObject %s: %v", name, err)
	}
}

// listObjects returns the names of the objects in the bucket that start
// with the store's prefix and then prefix.
func listObjects(t *testing.T, s *Store, prefix string) []string {
	t.Helper()
	var names []string
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix + prefix)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range page.Contents {
			names = append(names, aws.ToString(obj.Key))
		}
	}
	return names
}

// assertNoTemps checks that no temp object and no unfinished multipart
// upload is left under the store's tmp/.
func assertNoTemps(t *testing.T, s *Store) {
	t.Helper()
	for _, name := range listObjects(t, s, "tmp/") {
		t.Errorf("left in tmp/: %s", name)
	}
	out, err := s.client.ListMultipartUploads(t.Context(), &s3.ListMultipartUploadsInput{Bucket: &s.bucket, Prefix: aws.String(s.tempPrefix())})
	if err != nil {
		t.Fatal(err)
	}
	for _, up := range out.Uploads {
		t.Errorf("unfinished multipart upload left: %s", aws.ToString(up.Key))
	}
}

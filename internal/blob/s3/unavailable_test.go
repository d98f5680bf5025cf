package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/fileframe/fileframe/internal/faultproxy"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestUnreachableServerIsUnavailable takes the S3 server out of reach (a
// proxy in between ends every connection and refuses new ones): every
// operation of the store, and an error of another client of the bucket
// through WrapError, is CodeUnavailable, which the web layer answers 503
// with Retry-After, not an error without a code (a 500). A bucket that does
// not exist is not unavailability, nor is the end of the caller's context.
// Back, the same store works.
func TestUnreachableServerIsUnavailable(t *testing.T) {
	s := newTestStore(t, nil)
	info, err := s.Put(t.Context(), strings.NewReader("kept across the outage"))
	if err != nil {
		t.Fatal(err)
	}
	through, proxy, cfg := throughProxy(t, s, nil)

	proxy.Cut()
	ops := map[string]func() error{
		"Stat": func() error { _, err := through.Stat(t.Context(), info.Key); return err },
		"Open": func() error { _, err := through.Open(t.Context(), info.Key); return err },
		"Put": func() error {
			_, err := through.Put(t.Context(), bytes.NewReader(make([]byte, 1000)))
			return err
		},
		"Delete":    func() error { return through.Delete(t.Context(), info.Key) },
		"Ping":      func() error { return through.Ping(t.Context()) },
		"Walk":      func() error { return through.Walk(t.Context(), func(fileframe.BlobInfo) error { return nil }) },
		"CleanTemp": func() error { _, err := through.CleanTemp(t.Context(), time.Hour); return err },
		"WrapError": func() error {
			_, err := through.client.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: &through.bucket})
			if err == nil {
				return nil
			}
			return WrapError("another client", err)
		},
	}
	var wg sync.WaitGroup // at once: the SDK's three tries take about 2 s each
	for name, op := range ops {
		wg.Go(func() {
			if err := op(); fileframe.ErrorCode(err) != fileframe.CodeUnavailable {
				t.Errorf("%s with the S3 server out of reach: %v (code %s), want code %s", name, err, fileframe.ErrorCode(err), fileframe.CodeUnavailable)
			}
		})
	}
	wg.Wait()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := through.Stat(ctx, info.Key); fileframe.ErrorCode(err) == fileframe.CodeUnavailable {
		t.Errorf("Stat with the caller's context ended: %v, want no %s (the client went away)", err, fileframe.CodeUnavailable)
	}

	proxy.Restore()
	if got, err := through.Stat(t.Context(), info.Key); err != nil || got.Size != info.Size {
		t.Errorf("Stat once the server is back: %+v, %v", got, err)
	}

	cfg.Bucket = "fileframe-test-missing-" + strings.ToLower(time.Now().Format("150405.000000000"))
	cfg.Bucket = strings.ReplaceAll(cfg.Bucket, ".", "-")
	missing, err := newStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := missing.Ping(t.Context()); err == nil || fileframe.ErrorCode(err) == fileframe.CodeUnavailable {
		t.Errorf("Ping of a missing bucket: %v, want an error other than %s", err, fileframe.CodeUnavailable)
	}
}

// TestServerErrorIsUnavailable: a server that answers 503 SlowDown (or any
// 5xx) to every request, after the SDK's retries, is out of reach too; its
// 403 is not.
func TestServerErrorIsUnavailable(t *testing.T) {
	var status atomic.Int64
	status.Store(http.StatusServiceUnavailable)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := int(status.Load())
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(st)
		code := map[int]string{http.StatusServiceUnavailable: "SlowDown", http.StatusForbidden: "AccessDenied"}[st]
		w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>` + code + `</Code><Message>no</Message></Error>`))
	}))
	defer srv.Close()
	cfg := testConfig()
	cfg.Endpoint = srv.URL
	s, err := newStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("ab", 32)
	if _, err := s.Stat(t.Context(), key); fileframe.ErrorCode(err) != fileframe.CodeUnavailable {
		t.Errorf("Stat answered 503 SlowDown: %v, want code %s", err, fileframe.CodeUnavailable)
	}
	status.Store(http.StatusForbidden)
	if _, err := s.Stat(t.Context(), key); err == nil || fileframe.ErrorCode(err) == fileframe.CodeUnavailable {
		t.Errorf("Stat answered 403: %v, want an error other than %s", err, fileframe.CodeUnavailable)
	}
}

// TestPutOutOfReachAnswersAtOnce: a Put that failed because the server is
// out of reach returns its CodeUnavailable without waiting for the removal
// of what it began, which fails as slowly: its temp object, or its
// multipart upload. Here every PUT (an object or a part) is answered 503,
// and every DELETE (of the object, or the abort of the multipart upload)
// waits. Put waited for the removal's whole 30 s before, and for the
// uploader's own abort of a multipart upload (three more tries) after that
// had moved to the background.
func TestPutOutOfReachAnswersAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
	}{
		{"one PUT", 1000},
		{"multipart", int(MinPartSize) + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deletes := make(chan struct{}, 10)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml")
				switch {
				case r.Method == http.MethodDelete:
					deletes <- struct{}{}
					select {
					case <-r.Context().Done():
					case <-time.After(40 * time.Second):
					}
				case r.Method == http.MethodPost && r.URL.Query().Has("uploads"):
					w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>up-1</UploadId></InitiateMultipartUploadResult>`))
				default:
					io.Copy(io.Discard, r.Body)
					w.WriteHeader(http.StatusServiceUnavailable)
					w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>no</Message></Error>`))
				}
			}))
			defer srv.Close()
			defer srv.CloseClientConnections() // ends the removal's wait
			cfg := testConfig()
			cfg.Endpoint, cfg.PartSize = srv.URL, MinPartSize
			s, err := newStore(cfg)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = s.Put(t.Context(), bytes.NewReader(make([]byte, tc.size)))
			took := time.Since(start)
			if fileframe.ErrorCode(err) != fileframe.CodeUnavailable {
				t.Errorf("Put with every PUT answered 503: %v, want code %s", err, fileframe.CodeUnavailable)
			}
			if took > cleanupTimeout/2 {
				t.Errorf("Put returned after %v: it waited for the removal of what it began", took)
			}
			select {
			case <-deletes:
			case <-time.After(10 * time.Second):
				t.Error("the removal was not tried")
			}
		})
	}
}

// TestBlackHoledServerIsUnavailable puts the S3 server behind a proxy that
// keeps every connection open and forwards nothing (a network partition):
// without the idle timeout, every operation waited for as long as the
// partition lasted, and so did a download that was streaming when it
// began. Each now fails with CodeUnavailable, or the stream with an error,
// once the connection has been idle for IdleTimeout on each of the SDK's
// tries; a large upload whose bytes keep flowing is not cut, however much
// longer than IdleTimeout it takes; and the store works again once the
// partition heals.
func TestBlackHoledServerIsUnavailable(t *testing.T) {
	s := newTestStore(t, nil)
	big := bytes.Repeat([]byte("0123456789abcdef"), 4<<20/16*5) // 20 MiB
	info, err := s.Put(t.Context(), bytes.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	const idle = 300 * time.Millisecond
	through, proxy, _ := throughProxy(t, s, func(c *Config) { c.IdleTimeout = idle })

	// Progress is not idleness: 20 MiB up and down through the proxy, at
	// this machine's pace, with connections that give up after 300 ms
	// without a byte.
	if _, err := through.Put(t.Context(), bytes.NewReader(big)); err != nil {
		t.Fatalf("Put of 20 MiB through the proxy: %v", err)
	}
	// Nor is a slow link: at 4 MB/s, one write of a part takes longer
	// than the idle timeout, two parts go at once, and the last megabytes
	// written wait in the socket's send buffer for longer than it too,
	// before the server can answer.
	proxy.Throttle(4 << 20)
	if _, err := through.Put(t.Context(), bytes.NewReader(big)); err != nil {
		t.Fatalf("Put of 20 MiB through a 4 MB/s link: %v", err)
	}
	proxy.Throttle(0)
	r, err := through.Open(t.Context(), info.Key)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	head := make([]byte, 1<<20)
	if _, err := io.ReadFull(r.Body, head); err != nil {
		t.Fatalf("reading the first MiB: %v", err)
	}

	proxy.Hang()
	ops := map[string]func() error{
		"Stat": func() error { _, err := through.Stat(t.Context(), info.Key); return err },
		"Put": func() error {
			_, err := through.Put(t.Context(), bytes.NewReader(make([]byte, 1000)))
			return err
		},
		"Delete": func() error { return through.Delete(t.Context(), strings.Repeat("cd", 32)) },
		"Ping":   func() error { return through.Ping(t.Context()) },
		"the rest of a download": func() error {
			// A stream's failure is an outage too, so that the cut
			// answer is logged as one (a warning).
			_, err := io.Copy(io.Discard, r.Body)
			if err == nil {
				return errors.New("the download ended without an error")
			}
			return err
		},
	}
	var wg sync.WaitGroup
	for name, op := range ops {
		wg.Go(func() {
			start := time.Now()
			done := make(chan error, 1)
			go func() { done <- op() }()
			select {
			case err := <-done:
				if fileframe.ErrorCode(err) != fileframe.CodeUnavailable {
					t.Errorf("%s with the S3 server black-holed: %v (code %s), want code %s", name, err, fileframe.ErrorCode(err), fileframe.CodeUnavailable)
				}
				t.Logf("%s: failed after %v", name, time.Since(start).Round(time.Millisecond))
			case <-time.After(20 * time.Second):
				t.Errorf("%s still waiting 20 s into the partition", name)
			}
		})
	}
	wg.Wait()

	// Healed with its connections lost: what they held is not delivered
	// late (a Put's object landing after the bucket's clean-up began).
	proxy.Cut()
	proxy.Restore()
	if got, err := through.Stat(t.Context(), info.Key); err != nil || got.Size != info.Size {
		t.Errorf("Stat once the partition healed: %+v, %v", got, err)
	}
}

// TestUploadsClientErrorsKeepOutOfReach: tusd's s3store formats some of
// its client's errors with %s, which loses their chain; an error of
// Client's that means the server is out of reach still says so in its
// text, so WrapError makes it CodeUnavailable (the eighteenth attack, row
// 660: a tus POST was 500 when S3 came back before the blob store's ping
// asked). The text of any other error is no such mark.
func TestUploadsClientErrorsKeepOutOfReach(t *testing.T) {
	s := newTestStore(t, nil)
	through, proxy, _ := throughProxy(t, s, nil)
	name := through.UploadsPrefix() + "u1"
	create := func() error {
		_, err := through.Client().CreateMultipartUpload(t.Context(), &s3.CreateMultipartUploadInput{Bucket: &through.bucket, Key: &name})
		return err
	}
	proxy.Cut()
	err := create()
	if err == nil {
		t.Fatal("CreateMultipartUpload with the server out of reach: no error")
	}
	lost := fmt.Errorf("s3store: unable to create multipart upload:\n%s", err) // as s3store does
	if code := fileframe.ErrorCode(WrapError("tus upload", lost)); code != fileframe.CodeUnavailable {
		t.Errorf("WrapError of %q: code %s, want %s", lost, code, fileframe.CodeUnavailable)
	}
	proxy.Restore()

	missing := "no-such-bucket-" + strings.ToLower(time.Now().Format("150405"))
	_, err = through.Client().CreateMultipartUpload(t.Context(), &s3.CreateMultipartUploadInput{Bucket: &missing, Key: &name})
	if err == nil {
		t.Fatal("CreateMultipartUpload in a bucket that does not exist: no error")
	}
	lost = fmt.Errorf("s3store: unable to create multipart upload:\n%s", err)
	if code := fileframe.ErrorCode(WrapError("tus upload", lost)); code == fileframe.CodeUnavailable {
		t.Errorf("WrapError of %q: %s, want another code", lost, code)
	}
	if err := create(); err != nil {
		t.Errorf("CreateMultipartUpload once the server is back: %v", err)
	}
}

// throughProxy returns a store of s's bucket whose requests go through a
// faultproxy to the test server, changed first by configure if not nil;
// and the proxy, and the store's configuration.
func throughProxy(t *testing.T, s *Store, configure func(*Config)) (*Store, *faultproxy.Proxy, Config) {
	t.Helper()
	proxy := faultproxy.New(t, strings.TrimPrefix(testServer.endpoint, "http://"))
	cfg := testConfig()
	cfg.Bucket, cfg.Endpoint = s.bucket, "http://"+proxy.Addr
	if configure != nil {
		configure(&cfg)
	}
	through, err := newStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return through, proxy, cfg
}

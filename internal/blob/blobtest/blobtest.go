// Package blobtest is the conformance suite for implementations of
// fileframe.Blobs. Every backend calls Run from its own tests, so the local
// disk store and the S3 store are held to the same documented behaviour.
package blobtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Run runs the conformance suite. newBlobs is called once per subtest and
// must return an empty store that is cleaned up with t (t.TempDir,
// t.Cleanup).
func Run(t *testing.T, newBlobs func(t *testing.T) fileframe.Blobs) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, b fileframe.Blobs)
	}{
		{"PutKeyAndSize", testPutKeyAndSize},
		{"PutSameContentStoredOnce", testPutSameContentStoredOnce},
		{"PutEmpty", testPutEmpty},
		{"PutOddReaders", testPutOddReaders},
		{"PutReaderFailsMidway", testPutReaderFailsMidway},
		{"PutCancelledContext", testPutCancelledContext},
		{"PutCancelledMidway", testPutCancelledMidway},
		{"PutConcurrentSameContent", testPutConcurrentSameContent},
		{"PutOpenLarge", testPutOpenLarge},
		{"OpenContent", testOpenContent},
		{"OpenSeek", testOpenSeek},
		{"OpenServeContentRange", testOpenServeContentRange},
		{"OpenNotFound", testOpenNotFound},
		{"StatInfo", testStatInfo},
		{"StatNotFound", testStatNotFound},
		{"InvalidKeys", testInvalidKeys},
		{"Delete", testDelete},
		{"DeleteMissing", testDeleteMissing},
		{"WalkListsAll", testWalkListsAll},
		{"WalkEmpty", testWalkEmpty},
		{"WalkStopsAtError", testWalkStopsAtError},
		{"Ping", testPing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, newBlobs(t))
		})
	}
}

// KeyOf returns the key a Blobs store gives to content: its hex SHA-256.
func KeyOf(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// NewPseudoRandomReader returns a reader of size deterministic pseudo-random
// bytes derived from seed, generated as read, so large contents are never
// held in memory. Equal arguments give equal bytes.
func NewPseudoRandomReader(seed uint64, size int64) io.Reader {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	return io.LimitReader(rand.NewChaCha8(s), size)
}

func testPutKeyAndSize(t *testing.T, b fileframe.Blobs) {
	for _, content := range [][]byte{
		[]byte("x"),
		[]byte("hello, fileframe\n"),
		bytes.Repeat([]byte{0, 1, 2, 0xff}, 100_000),
	} {
		info, err := b.Put(t.Context(), bytes.NewReader(content))
		if err != nil {
			t.Fatalf("Put(%d bytes): %v", len(content), err)
		}
		if got, want := info.Key, KeyOf(content); got != want {
			t.Errorf("Put(%d bytes).Key = %q, want %q", len(content), got, want)
		}
		if got, want := info.Size, int64(len(content)); got != want {
			t.Errorf("Put(%d bytes).Size = %d, want %d", len(content), got, want)
		}
	}
}

func testPutSameContentStoredOnce(t *testing.T, b fileframe.Blobs) {
	content := []byte("same bytes, twice")
	first := mustPut(t, b, content)
	second := mustPut(t, b, content)
	if first.Key != second.Key {
		t.Errorf("second Put key = %q, want %q", second.Key, first.Key)
	}
	got := walkAll(t, b)
	if len(got) != 1 {
		t.Fatalf("Walk after two equal Puts listed %d blobs, want 1: %v", len(got), got)
	}
	if got[first.Key].Size != int64(len(content)) {
		t.Errorf("Walk size = %d, want %d", got[first.Key].Size, len(content))
	}
	assertContent(t, b, first.Key, content)
}

func testPutEmpty(t *testing.T, b fileframe.Blobs) {
	info := mustPut(t, b, nil)
	if got, want := info.Key, KeyOf(nil); got != want {
		t.Errorf("Put(empty).Key = %q, want %q", got, want)
	}
	if info.Size != 0 {
		t.Errorf("Put(empty).Size = %d, want 0", info.Size)
	}
	st, err := b.Stat(t.Context(), info.Key)
	if err != nil {
		t.Fatalf("Stat(empty): %v", err)
	}
	if st.Size != 0 {
		t.Errorf("Stat(empty).Size = %d, want 0", st.Size)
	}
	assertContent(t, b, info.Key, nil)
	if got := walkAll(t, b); len(got) != 1 {
		t.Errorf("Walk listed %d blobs, want 1 (the empty blob)", len(got))
	}
}

// testPutOddReaders feeds Put readers that are legal but unusual: one byte per
// Read, data returned together with io.EOF, short reads.
func testPutOddReaders(t *testing.T, b fileframe.Blobs) {
	content := bytes.Repeat([]byte("odd reader "), 5000)
	readers := map[string]func() io.Reader{
		"OneByte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(content)) },
		"DataErr": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(content)) },
		"Half":    func() io.Reader { return iotest.HalfReader(bytes.NewReader(content)) },
	}
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			info, err := b.Put(t.Context(), r())
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			if got, want := info.Key, KeyOf(content); got != want {
				t.Errorf("Key = %q, want %q", got, want)
			}
			if got, want := info.Size, int64(len(content)); got != want {
				t.Errorf("Size = %d, want %d", got, want)
			}
		})
	}
	assertContent(t, b, KeyOf(content), content)
}

// failingReader returns n bytes and then err.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func testPutReaderFailsMidway(t *testing.T, b fileframe.Blobs) {
	existing := mustPut(t, b, []byte("already here"))
	errBroken := errors.New("connection reset by test")
	// Large enough to span several internal buffers.
	r := &failingReader{r: NewPseudoRandomReader(1, 3<<20+17), err: errBroken}
	_, err := b.Put(t.Context(), r)
	if !errors.Is(err, errBroken) {
		t.Fatalf("Put with failing reader: err = %v, want one wrapping %v", err, errBroken)
	}
	got := walkAll(t, b)
	if len(got) != 1 {
		t.Errorf("Walk after failed Put listed %d blobs, want 1 (only the earlier blob): %v", len(got), got)
	}
	if _, ok := got[existing.Key]; !ok {
		t.Errorf("Walk after failed Put lost the earlier blob %s", existing.Key)
	}
}

func testPutCancelledContext(t *testing.T, b fileframe.Blobs) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	content := []byte("never stored")
	_, err := b.Put(ctx, bytes.NewReader(content))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Put with cancelled context: err = %v, want context.Canceled", err)
	}
	if got := walkAll(t, b); len(got) != 0 {
		t.Errorf("Walk after cancelled Put listed %d blobs, want 0: %v", len(got), got)
	}
	if _, err := b.Stat(t.Context(), KeyOf(content)); !fileframe.IsNotFound(err) {
		t.Errorf("Stat after cancelled Put: err = %v, want ENOTFOUND", err)
	}
}

// cancellingReader produces bytes and cancels its context once it has
// produced after bytes. Should Put ignore its context, the reader gives up
// 64 MiB later with errContextIgnored rather than filling the disk.
type cancellingReader struct {
	after  int64
	read   int64
	cancel context.CancelFunc
}

var errContextIgnored = errors.New("blobtest: Put kept reading after its context was cancelled")

func (c *cancellingReader) Read(p []byte) (int, error) {
	if c.read >= c.after {
		c.cancel()
	}
	if c.read >= c.after+64<<20 {
		return 0, errContextIgnored
	}
	for i := range p {
		p[i] = byte(c.read + int64(i))
	}
	c.read += int64(len(p))
	return len(p), nil
}

func testPutCancelledMidway(t *testing.T, b fileframe.Blobs) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := b.Put(ctx, &cancellingReader{after: 1 << 20, cancel: cancel})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Put cancelled midway: err = %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Put did not return a minute after its context was cancelled")
	}
	if got := walkAll(t, b); len(got) != 0 {
		t.Errorf("Walk after cancelled Put listed %d blobs, want 0: %v", len(got), got)
	}
}

func testPutConcurrentSameContent(t *testing.T, b fileframe.Blobs) {
	const n = 20
	content := bytes.Repeat([]byte("concurrent "), 50_000)
	want := KeyOf(content)
	var wg sync.WaitGroup
	errs := make([]error, n)
	keys := make([]string, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			info, err := b.Put(t.Context(), bytes.NewReader(content))
			errs[i], keys[i] = err, info.Key
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("Put #%d: %v", i, errs[i])
		} else if keys[i] != want {
			t.Errorf("Put #%d key = %q, want %q", i, keys[i], want)
		}
	}
	if got := walkAll(t, b); len(got) != 1 {
		t.Errorf("Walk after %d equal Puts listed %d blobs, want 1", n, len(got))
	}
	assertContent(t, b, want, content)
}

func testPutOpenLarge(t *testing.T, b fileframe.Blobs) {
	if testing.Short() {
		t.Skip("64 MiB round trip skipped in -short mode")
	}
	const size = 64 << 20
	h := sha256.New()
	if _, err := io.Copy(h, NewPseudoRandomReader(42, size)); err != nil {
		t.Fatal(err)
	}
	want := hex.EncodeToString(h.Sum(nil))

	info, err := b.Put(t.Context(), NewPseudoRandomReader(42, size))
	if err != nil {
		t.Fatalf("Put(64 MiB): %v", err)
	}
	if info.Key != want || info.Size != size {
		t.Fatalf("Put(64 MiB) = %s, %d; want %s, %d", info.Key, info.Size, want, size)
	}
	br, err := b.Open(t.Context(), want)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer br.Body.Close()
	if br.Size != size {
		t.Errorf("Open Size = %d, want %d", br.Size, size)
	}
	h.Reset()
	n, err := io.Copy(h, br.Body)
	if err != nil {
		t.Fatalf("reading Body: %v", err)
	}
	if n != size {
		t.Errorf("read %d bytes, want %d", n, size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("hash of read content = %s, want %s", got, want)
	}
}

func testOpenContent(t *testing.T, b fileframe.Blobs) {
	content := []byte("the exact bytes\x00\xff\n")
	info := mustPut(t, b, content)
	br, err := b.Open(t.Context(), info.Key)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer br.Body.Close()
	if br.Key != info.Key {
		t.Errorf("Open Key = %q, want %q", br.Key, info.Key)
	}
	if br.Size != int64(len(content)) {
		t.Errorf("Open Size = %d, want %d", br.Size, len(content))
	}
	if br.ModTime.IsZero() {
		t.Error("Open ModTime is zero")
	}
	got, err := io.ReadAll(br.Body)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if !bytes.Equal(got, content) {
		t.Errorf("content = %q, want %q", got, content)
	}
}

func testOpenSeek(t *testing.T, b fileframe.Blobs) {
	content := make([]byte, 100_000)
	if _, err := io.ReadFull(NewPseudoRandomReader(7, int64(len(content))), content); err != nil {
		t.Fatal(err)
	}
	size := int64(len(content))
	info := mustPut(t, b, content)
	br, err := b.Open(t.Context(), info.Key)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer br.Body.Close()

	// Each step seeks and then reads n bytes, checking the position the
	// seek reports and the bytes read there.
	steps := []struct {
		offset int64
		whence int
		pos    int64
		n      int
	}{
		{0, io.SeekEnd, size, 0},
		{10, io.SeekStart, 10, 100},
		{50, io.SeekCurrent, 160, 1000},
		{-100, io.SeekEnd, size - 100, 100},
		{-500, io.SeekCurrent, size - 500, 1},
		{0, io.SeekStart, 0, 1},
		{size - 1, io.SeekStart, size - 1, 1},
		{65_536, io.SeekStart, 65_536, 4096},
	}
	for _, s := range steps {
		pos, err := br.Body.Seek(s.offset, s.whence)
		if err != nil {
			t.Fatalf("Seek(%d, %d): %v", s.offset, s.whence, err)
		}
		if pos != s.pos {
			t.Fatalf("Seek(%d, %d) = %d, want %d", s.offset, s.whence, pos, s.pos)
		}
		got := make([]byte, s.n)
		if _, err := io.ReadFull(br.Body, got); err != nil {
			t.Fatalf("read %d bytes at %d: %v", s.n, pos, err)
		}
		if want := content[pos : pos+int64(s.n)]; !bytes.Equal(got, want) {
			t.Errorf("bytes at %d..%d differ", pos, pos+int64(s.n))
		}
	}
	// At the end, a read returns io.EOF.
	if _, err := br.Body.Seek(0, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	if n, err := br.Body.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Errorf("Read at end = %d, %v; want 0, io.EOF", n, err)
	}
}

// testOpenServeContentRange checks what the interface promises the Body is
// for: http.ServeContent answering a Range request.
func testOpenServeContentRange(t *testing.T, b fileframe.Blobs) {
	content := []byte(strings.Repeat("0123456789", 1000))
	info := mustPut(t, b, content)
	br, err := b.Open(t.Context(), info.Key)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer br.Body.Close()
	req := httptest.NewRequest("GET", "/download", nil)
	req.Header.Set("Range", "bytes=1005-1014")
	rec := httptest.NewRecorder()
	http.ServeContent(rec, req, "", br.ModTime, br.Body)
	if got, want := rec.Code, http.StatusPartialContent; got != want {
		t.Fatalf("status = %d, want %d", got, want)
	}
	if got, want := rec.Body.String(), "5678901234"; got != want {
		t.Errorf("range body = %q, want %q", got, want)
	}
	if got, want := rec.Header().Get("Content-Range"), fmt.Sprintf("bytes 1005-1014/%d", len(content)); got != want {
		t.Errorf("Content-Range = %q, want %q", got, want)
	}
}

func testOpenNotFound(t *testing.T, b fileframe.Blobs) {
	_, err := b.Open(t.Context(), KeyOf([]byte("never stored")))
	if got, want := fileframe.ErrorCode(err), fileframe.ENOTFOUND; got != want {
		t.Errorf("Open(unknown) code = %q (err %v), want %q", got, err, want)
	}
}

func testStatInfo(t *testing.T, b fileframe.Blobs) {
	content := []byte("stat me")
	before := time.Now().Add(-time.Minute)
	info := mustPut(t, b, content)
	st, err := b.Stat(t.Context(), info.Key)
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	if st.Key != info.Key {
		t.Errorf("Stat Key = %q, want %q", st.Key, info.Key)
	}
	if st.Size != int64(len(content)) {
		t.Errorf("Stat Size = %d, want %d", st.Size, len(content))
	}
	// Generous bounds: a remote store's clock may differ from ours.
	if st.ModTime.Before(before.Add(-time.Hour)) || st.ModTime.After(time.Now().Add(time.Hour)) {
		t.Errorf("Stat ModTime = %v, want about %v", st.ModTime, time.Now())
	}
}

func testStatNotFound(t *testing.T, b fileframe.Blobs) {
	_, err := b.Stat(t.Context(), KeyOf([]byte("never stored")))
	if got, want := fileframe.ErrorCode(err), fileframe.ENOTFOUND; got != want {
		t.Errorf("Stat(unknown) code = %q (err %v), want %q", got, err, want)
	}
}

// testInvalidKeys checks that anything but 64 lowercase hex digits names no
// blob: a store must never turn a key into a path outside itself.
func testInvalidKeys(t *testing.T, b fileframe.Blobs) {
	stored := mustPut(t, b, []byte("a real blob"))
	keys := []string{
		"",
		"../etc/passwd",
		"../../../../../../etc/passwd",
		"/etc/passwd",
		strings.ToUpper(stored.Key),
		stored.Key[:63],
		stored.Key + "0",
		stored.Key[:2] + "/" + stored.Key[2:4] + "/" + stored.Key,
		stored.Key[:62] + "/.",
		stored.Key[:63] + "\x00",
		stored.Key[:60] + "/../",
		"tmp",
		"..",
		".",
		strings.Repeat("g", 64),
		" " + stored.Key[1:],
	}
	validCode := func(err error) bool {
		c := fileframe.ErrorCode(err)
		return c == fileframe.ENOTFOUND || c == fileframe.EINVALID
	}
	for _, key := range keys {
		if br, err := b.Open(t.Context(), key); !validCode(err) {
			if err == nil {
				br.Body.Close()
			}
			t.Errorf("Open(%q): err = %v, want ENOTFOUND or EINVALID", key, err)
		}
		if _, err := b.Stat(t.Context(), key); !validCode(err) {
			t.Errorf("Stat(%q): err = %v, want ENOTFOUND or EINVALID", key, err)
		}
		if err := b.Delete(t.Context(), key); err != nil && !validCode(err) {
			t.Errorf("Delete(%q): err = %v, want nil, ENOTFOUND or EINVALID", key, err)
		}
	}
	assertContent(t, b, stored.Key, []byte("a real blob"))
}

func testDelete(t *testing.T, b fileframe.Blobs) {
	gone := mustPut(t, b, []byte("delete me"))
	kept := mustPut(t, b, []byte("keep me"))
	if err := b.Delete(t.Context(), gone.Key); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := b.Stat(t.Context(), gone.Key); !fileframe.IsNotFound(err) {
		t.Errorf("Stat after Delete: err = %v, want ENOTFOUND", err)
	}
	if _, err := b.Open(t.Context(), gone.Key); !fileframe.IsNotFound(err) {
		t.Errorf("Open after Delete: err = %v, want ENOTFOUND", err)
	}
	got := walkAll(t, b)
	if _, ok := got[gone.Key]; ok || len(got) != 1 {
		t.Errorf("Walk after Delete = %v, want only %s", got, kept.Key)
	}
	// The same content can be stored again.
	again := mustPut(t, b, []byte("delete me"))
	assertContent(t, b, again.Key, []byte("delete me"))
}

func testDeleteMissing(t *testing.T, b fileframe.Blobs) {
	if err := b.Delete(t.Context(), KeyOf([]byte("never stored"))); err != nil {
		t.Errorf("Delete(missing) = %v, want nil", err)
	}
	info := mustPut(t, b, []byte("twice deleted"))
	for i := range 2 {
		if err := b.Delete(t.Context(), info.Key); err != nil {
			t.Errorf("Delete #%d = %v, want nil", i+1, err)
		}
	}
}

func testWalkListsAll(t *testing.T, b fileframe.Blobs) {
	want := map[string]int64{}
	for i := range 30 {
		content := bytes.Repeat([]byte{byte(i)}, i*37)
		info := mustPut(t, b, content)
		want[info.Key] = int64(len(content))
	}
	got := walkAll(t, b)
	if len(got) != len(want) {
		t.Errorf("Walk listed %d blobs, want %d", len(got), len(want))
	}
	for key, size := range want {
		info, ok := got[key]
		if !ok {
			t.Errorf("Walk did not list %s", key)
			continue
		}
		if info.Size != size {
			t.Errorf("Walk %s size = %d, want %d", key, info.Size, size)
		}
		if info.ModTime.IsZero() {
			t.Errorf("Walk %s ModTime is zero", key)
		}
	}
}

func testWalkEmpty(t *testing.T, b fileframe.Blobs) {
	if got := walkAll(t, b); len(got) != 0 {
		t.Errorf("Walk of empty store listed %v", got)
	}
}

func testWalkStopsAtError(t *testing.T, b fileframe.Blobs) {
	for i := range 5 {
		mustPut(t, b, []byte{byte(i)})
	}
	errStop := errors.New("stop here")
	calls := 0
	err := b.Walk(t.Context(), func(fileframe.BlobInfo) error {
		calls++
		if calls == 2 {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) {
		t.Errorf("Walk = %v, want %v", err, errStop)
	}
	if calls != 2 {
		t.Errorf("fn called %d times, want 2 (Walk must stop at the first error)", calls)
	}
}

func testPing(t *testing.T, b fileframe.Blobs) {
	if err := b.Ping(t.Context()); err != nil {
		t.Errorf("Ping = %v, want nil", err)
	}
	// Ping leaves no blob behind.
	if got := walkAll(t, b); len(got) != 0 {
		t.Errorf("Walk after Ping listed %v", got)
	}
}

func mustPut(t *testing.T, b fileframe.Blobs, content []byte) fileframe.BlobInfo {
	t.Helper()
	info, err := b.Put(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatalf("Put(%d bytes): %v", len(content), err)
	}
	return info
}

func walkAll(t *testing.T, b fileframe.Blobs) map[string]fileframe.BlobInfo {
	t.Helper()
	got := map[string]fileframe.BlobInfo{}
	err := b.Walk(t.Context(), func(info fileframe.BlobInfo) error {
		if _, dup := got[info.Key]; dup {
			t.Errorf("Walk listed %s twice", info.Key)
		}
		got[info.Key] = info
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return got
}

func assertContent(t *testing.T, b fileframe.Blobs, key string, want []byte) {
	t.Helper()
	br, err := b.Open(t.Context(), key)
	if err != nil {
		t.Fatalf("Open(%s): %v", key, err)
	}
	defer br.Body.Close()
	got, err := io.ReadAll(br.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("content of %s: got %d bytes, want %d bytes (%q...)", key, len(got), len(want), truncate(want))
	}
	if br.Size != int64(len(want)) {
		t.Errorf("Open(%s).Size = %d, want %d", key, br.Size, len(want))
	}
}

func truncate(b []byte) []byte {
	if len(b) > 20 {
		return b[:20]
	}
	return b
}

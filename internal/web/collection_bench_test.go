// The memory of a collection's streamed ZIP (issue 13), through the real
// handler on a real listener, from real disk blobs:
//
//	FILEFRAME_BENCH_ZIP_MIB=256 go test -run '^$' -bench CollectionZip -benchtime 3x -benchmem ./internal/web
//
// It reports, beside B/op and allocs/op, the largest heap in use sampled
// every millisecond while the archives streamed (peak-heap-MiB, less the
// heap before) and the process's peak resident set (VmHWM, which also
// counts the test binary and the setup). Figures in docs/performance.md.

package web

import (
	"bufio"
	"context"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func BenchmarkCollectionZip(b *testing.B) {
	mib := 16
	if v, err := strconv.Atoi(os.Getenv("FILEFRAME_BENCH_ZIP_MIB")); err == nil && v > 0 {
		mib = v
	}
	const files = 4
	ctx := context.Background()
	srv, first := benchServerLook(b, 1, false, fileframe.Appearance{})
	var ids []fileframe.FileID
	for i := range files {
		rng := mrand.NewChaCha8([32]byte{byte(i + 1)})
		info, err := srv.blobs.Put(ctx, io.LimitReader(rng, int64(mib)<<20))
		if err != nil {
			b.Fatal(err)
		}
		f, err := srv.store.CreateFile(ctx, fileframe.File{AccountID: first.AccountID, Name: "part " + strconv.Itoa(i) + ".bin",
			Size: info.Size, BlobKey: info.Key, ContentType: "application/octet-stream"})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, f.ID)
	}
	c, err := srv.store.CreateCollection(ctx, fileframe.File{AccountID: first.AccountID, Name: "Big"}, ids, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.AppHandler())
	defer ts.Close()
	url := ts.URL + "/f/" + c.Slug + "/download"
	want := int64(files) * int64(mib) << 20

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	b.SetBytes(want)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Host = "127.0.0.1:8080"
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || n < want {
			b.Fatalf("GET the ZIP: %d, %d bytes, %v; want 200 and more than %d", resp.StatusCode, n, err, want)
		}
	}
	b.StopTimer()
	close(stop)
	<-sampled
	if p := peak.Load(); p > before.HeapInuse {
		b.ReportMetric(float64(p-before.HeapInuse)/(1<<20), "peak-heap-MiB")
	} else {
		b.ReportMetric(0, "peak-heap-MiB")
	}
	b.ReportMetric(float64(vmHWM())/(1<<10), "VmHWM-MiB")
}

// vmHWM returns the process's peak resident set in KiB (Linux), 0
// elsewhere.
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

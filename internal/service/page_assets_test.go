package service

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fetch"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// assetHost is the remote resources' host name in these tests; the
// fetcher's resolver maps it to the loopback server, and the test
// servers' certificate (httptest's) is for *.example.com.
const assetHost = "cdn.example.com"

// assetServer is a remote host of page resources on loopback, over TLS.
type assetServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int
	// missing answers 404 for paths while set, then serves them.
	missing atomic.Bool
	png     []byte
}

func newAssetServer(t *testing.T) *assetServer {
	t.Helper()
	a := &assetServer{hits: map[string]int{}, png: testPNG(t, 3)}
	a.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits[r.URL.Path]++
		a.mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/flaky/") && a.missing.Load():
			http.NotFound(w, r)
		case strings.HasSuffix(r.URL.Path, ".png"):
			w.Header().Set("Content-Type", "image/png")
			w.Write(a.png)
		case r.URL.Path == "/page.jpg":
			w.Header().Set("Content-Type", "image/jpeg")
			fmt.Fprint(w, "<!doctype html><script>alert(1)</script>")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// url returns the address of path on the server, under assetHost.
func (a *assetServer) url(path string) string {
	return "https://" + assetHost + ":" + a.srv.URL[strings.LastIndexByte(a.srv.URL, ':')+1:] + path
}

func (a *assetServer) hitsOf(path string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits[path]
}

// fetcher returns a fetcher that reaches the server (private addresses
// allowed, its certificate trusted, assetHost resolved to it) and knows
// no other name.
func (a *assetServer) fetcher() *fetch.Fetcher {
	pool := x509.NewCertPool()
	pool.AddCert(a.srv.Certificate())
	return fetch.New(fetch.Config{AllowPrivate: true, RootCAs: pool,
		Resolver: func(_ context.Context, host string) ([]netip.Addr, error) {
			if host == assetHost {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}})
}

func testPNG(t *testing.T, n int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	img.Set(0, 0, color.RGBA{200, 10, 10, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// assetPage is a page naming body's resources.
func assetPage(body string) []byte {
	return []byte(`<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>T</title></head><body>` +
		body + `</body></html>`)
}

// agencyWithFile returns an Agency account of s's store and one of its files.
func agencyWithFile(t *testing.T, s *Service, store fileframe.Store) (fileframe.Account, fileframe.File) {
	t.Helper()
	ctx := context.Background()
	a, err := store.CreateAccount(ctx, fileframe.Account{Email: fileframe.RandomBase62(8) + "@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.AddFile(ctx, NewFile{Account: a, Name: "a.txt", Size: 1, Body: strings.NewReader("a")})
	if err != nil {
		t.Fatal(err)
	}
	return a, f
}

// TestSavePageKeepsRemoteImages: a stored page's remote image is fetched
// once however often the page names it, kept in the blob store under its
// hash, and served from there; the HTML read back is as posted, and an
// edit of the page reuses the kept image without fetching it again.
func TestSavePageKeepsRemoteImages(t *testing.T) {
	ctx := context.Background()
	srv := newAssetServer(t)
	s, store, _ := testService(t, fileframe.Quota{})
	s.fetcher = srv.fetcher()
	a, f := agencyWithFile(t, s, store)

	img := srv.url("/hero.png")
	doc := assetPage(`<img src="` + img + `" alt="hero"><div style="background:url('` + img + `')">x</div>`)
	page, res, err := s.SavePage(ctx, a, f, doc, PageMode{Publish: true})
	if err != nil {
		t.Fatalf("SavePage: %v (%+v)", err, res)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %+v", res.Warnings)
	}
	if n := srv.hitsOf("/hero.png"); n != 1 {
		t.Errorf("the image was fetched %d times, want once", n)
	}
	sum := hexSum(srv.png)
	assets, err := store.RevisionAssets(ctx, f.ID, page.LatestRevision)
	if err != nil || len(assets) != 1 {
		t.Fatalf("RevisionAssets: %+v, %v", assets, err)
	}
	if got := assets[0]; got.URL != img || got.Kind != fileframe.AssetImage || got.SHA256 != sum || got.Type != "image/png" || got.Ext != "png" || got.Size != int64(len(srv.png)) {
		t.Errorf("asset: %+v", got)
	}
	b, err := s.blobs.Open(ctx, sum)
	if err != nil {
		t.Fatalf("the kept bytes are not in the blob store: %v", err)
	}
	b.Body.Close()
	rev, err := store.Revision(ctx, f.ID, page.LatestRevision)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rev.HTML, doc) {
		t.Errorf("the HTML read back is not the HTML posted")
	}
	served := string(rev.Served)
	if strings.Contains(served, assetHost) || strings.Count(served, "/a/"+sum+".png") != 2 {
		t.Errorf("served HTML still names the remote host, or not the copy twice:\n%s", served)
	}

	// An edit that keeps the image does not fetch it again.
	edited := bytes.Replace(doc, []byte("hero\""), []byte("the hero\""), 1)
	if _, _, err := s.SavePage(ctx, a, f, edited, PageMode{Publish: true}); err != nil {
		t.Fatal(err)
	}
	if n := srv.hitsOf("/hero.png"); n != 1 {
		t.Errorf("the edit fetched the image again (%d fetches)", n)
	}
	assets, _ = store.RevisionAssets(ctx, f.ID, page.LatestRevision+1)
	if len(assets) != 1 || assets[0].SHA256 != sum {
		t.Errorf("the edit's assets: %+v", assets)
	}
}

// TestSavePageRefusesBadResources: an image that is not an image, or on a
// private address, is a 422 finding of asset.refused with its URL and
// place, and nothing is stored; too many resources is asset.limit.
func TestSavePageRefusesBadResources(t *testing.T) {
	ctx := context.Background()
	srv := newAssetServer(t)
	s, store, _ := testService(t, fileframe.Quota{})
	s.fetcher = srv.fetcher()
	a, f := agencyWithFile(t, s, store)

	html := srv.url("/page.jpg")
	_, res, err := s.SavePage(ctx, a, f, assetPage("\n<p>x</p>\n  <img src=\""+html+"\" alt=x>"), PageMode{Publish: true})
	if fileframe.ErrorCode(err) != fileframe.CodeHTMLInvalid {
		t.Fatalf("HTML named as an image: %v", err)
	}
	if len(res.Errors) != 1 || res.Errors[0].Rule != RuleAssetRefused || res.Errors[0].URL != html || res.Errors[0].Line != 3 || res.Errors[0].Column != 13 {
		t.Errorf("findings: %+v", res.Errors)
	}
	if _, err := store.PageByFile(ctx, f.ID); !fileframe.IsNotFound(err) {
		t.Errorf("a refused page was stored: %v", err)
	}

	// The production fetcher refuses loopback, whatever the spelling.
	s.fetcher = fetch.New(fetch.Config{})
	for _, u := range []string{"https://127.0.0.1/x.png", "https://[::1]/x.png", "https://2130706433/x.png", "https://169.254.169.254/latest/meta-data.png"} {
		_, res, err := s.SavePage(ctx, a, f, assetPage(`<img src="`+u+`" alt=x>`), PageMode{Publish: true})
		if fileframe.ErrorCode(err) != fileframe.CodeHTMLInvalid || len(res.Errors) != 1 || res.Errors[0].Rule != RuleAssetRefused {
			t.Errorf("%s: %v, %+v", u, err, res.Errors)
		}
	}

	var many strings.Builder
	for i := range MaxPageAssets + 1 {
		fmt.Fprintf(&many, `<img src="https://%s/%d.png" alt=x>`, assetHost, i)
	}
	_, res, err = s.SavePage(ctx, a, f, assetPage(many.String()), PageMode{Publish: true})
	if fileframe.ErrorCode(err) != fileframe.CodeHTMLInvalid || len(res.Errors) != 1 || res.Errors[0].Rule != RuleAssetLimit {
		t.Errorf("%d images: %v, %+v", MaxPageAssets+1, err, res.Errors)
	}
}

// TestUnavailableResourceIsRetried: a resource that cannot be fetched now
// is a warning, and the page is stored and served without it; a retry
// once it is reachable keeps it and serves it, and signals the change.
func TestUnavailableResourceIsRetried(t *testing.T) {
	ctx := context.Background()
	srv := newAssetServer(t)
	s, store, _ := testService(t, fileframe.Quota{})
	s.fetcher = srv.fetcher()
	var changes atomic.Int64
	s.changed = func() { changes.Add(1) }
	a, f := agencyWithFile(t, s, store)

	srv.missing.Store(true)
	img, gone := srv.url("/flaky/late.png"), "https://nowhere.test/x.png"
	page, res, err := s.SavePage(ctx, a, f, assetPage(`<img src="`+img+`" alt=x><img src="`+gone+`" alt=y>`), PageMode{Publish: true})
	if err != nil {
		t.Fatalf("SavePage: %v", err)
	}
	if len(res.Warnings) != 2 || res.Warnings[0].Rule != RuleAssetUnavailable || res.Warnings[0].URL != img || res.Warnings[1].URL != gone {
		t.Errorf("warnings: %+v", res.Warnings)
	}
	rev, _ := store.Revision(ctx, f.ID, page.LatestRevision)
	if strings.Contains(string(rev.Served), assetHost) || strings.Contains(string(rev.Served), "nowhere.test") {
		t.Errorf("served HTML names a resource that was not kept:\n%s", rev.Served)
	}

	srv.missing.Store(false)
	changes.Store(0)
	assets, out, err := s.RefetchAssets(ctx, a, f, page.LatestRevision)
	if err != nil {
		t.Fatal(err)
	}
	if len(assets) != 2 || !assets[0].Kept() || assets[1].Kept() || len(out.Warnings) != 1 || out.Warnings[0].URL != gone {
		t.Errorf("after the retry: %+v, %+v", assets, out)
	}
	rev, _ = store.Revision(ctx, f.ID, page.LatestRevision)
	if !strings.Contains(string(rev.Served), "/a/"+hexSum(srv.png)+".png") {
		t.Errorf("served HTML after the retry:\n%s", rev.Served)
	}
	if changes.Load() != 1 {
		t.Errorf("the retry signalled %d changes, want 1", changes.Load())
	}
	// Another account's file is not found.
	other, _ := agencyWithFile(t, s, store)
	if _, _, err := s.RefetchAssets(ctx, other, f, page.LatestRevision); !fileframe.IsNotFound(err) {
		t.Errorf("RefetchAssets of another account's file: %v", err)
	}
}

// TestCheckPageResourcesKeepsNothing: a check fetches like a save and
// gives the same findings, and puts nothing in the blob store.
func TestCheckPageResourcesKeepsNothing(t *testing.T) {
	ctx := context.Background()
	srv := newAssetServer(t)
	s, _, free := testService(t, fileframe.Quota{})
	s.fetcher = srv.fetcher()
	res, err := s.CheckPageResources(ctx, free, assetPage(`<img src="`+srv.url("/ok.png")+`" alt=x><img src="`+srv.url("/page.jpg")+`" alt=y>`))
	if fileframe.ErrorCode(err) != fileframe.CodeHTMLInvalid || len(res.Errors) != 1 || res.Errors[0].Rule != RuleAssetRefused {
		t.Errorf("check: %v, %+v", err, res)
	}
	if _, err := s.blobs.Stat(ctx, hexSum(srv.png)); !fileframe.IsNotFound(err) {
		t.Errorf("a check kept the image: %v", err)
	}
}

// TestOneAccountCannotTakeEveryFetch: an account whose pages name hosts
// that never answer holds at most pageFetchParallel of the fetcher's
// slots, however many of its pages are checked at once, so another
// account's page still gets its images.
func TestOneAccountCannotTakeEveryFetch(t *testing.T) {
	ctx := context.Background()
	good := newAssetServer(t)
	var inFlight, most atomic.Int64
	stuck := make(chan struct{})
	hang := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		select {
		case <-stuck:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(stuck)
	pool := x509.NewCertPool()
	pool.AddCert(good.srv.Certificate())
	hangPort := hang.URL[strings.LastIndexByte(hang.URL, ':')+1:]
	s, store, _ := testService(t, fileframe.Quota{})
	s.fetcher = fetch.New(fetch.Config{AllowPrivate: true, RootCAs: pool, Timeout: time.Minute,
		Resolver: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}})
	attacker, _ := agencyWithFile(t, s, store)
	victim, vf := agencyWithFile(t, s, store)

	actx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range 6 { // 6 checks of 4 hanging images each: 24 fetches wanted
		var page strings.Builder
		for j := range 4 {
			fmt.Fprintf(&page, `<img src="https://hang.example.com:%s/%d-%d.png" alt="">`, hangPort, i, j)
		}
		wg.Go(func() { s.CheckPageResources(actx, attacker, assetPage(page.String())) })
	}
	for inFlight.Load() < pageFetchParallel {
		time.Sleep(10 * time.Millisecond)
	}
	_, res, err := s.SavePage(ctx, victim, vf, assetPage(`<img src="`+good.url("/v.png")+`" alt="">`), PageMode{Publish: true})
	if err != nil || len(res.Warnings) != 0 {
		t.Errorf("the other account's page: %v, %+v", err, res.Warnings)
	}
	if m := most.Load(); m > pageFetchParallel {
		t.Errorf("one account had %d fetches in flight, want at most %d", m, pageFetchParallel)
	}
	cancel()
	wg.Wait()
}

// TestKeptAssetsWithinStorageQuota: kept copies count against the
// account's storage quota, and pages saved at once cannot together keep
// more than it allows.
func TestKeptAssetsWithinStorageQuota(t *testing.T) {
	ctx := context.Background()
	pics := map[string][]byte{}
	for i := range 8 {
		pics[fmt.Sprintf("/n/%d.png", i)] = testPNG(t, 40+i)
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, ok := pics[r.URL.Path]; ok {
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	s, store, _ := testService(t, fileframe.Quota{})
	s.fetcher = fetch.New(fetch.Config{AllowPrivate: true, RootCAs: pool,
		Resolver: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}})
	a, _ := agencyWithFile(t, s, store)
	used := func() int64 {
		list, err := store.ListAccounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range list {
			if u.ID == a.ID {
				return u.Bytes
			}
		}
		return -1
	}
	var files []fileframe.File
	for i := range 8 {
		f, err := s.AddFile(ctx, NewFile{Account: a, Name: fmt.Sprintf("%d.txt", i), Size: 1, Body: strings.NewReader("x")})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	limit := used() + 3*int64(len(pics["/n/0.png"])) // room for about three
	s.quotas = map[fileframe.Plan]fileframe.Quota{fileframe.PlanAgency: {Storage: limit}}
	var wg sync.WaitGroup
	var ok, over atomic.Int64
	for i, f := range files {
		wg.Go(func() {
			_, _, err := s.SavePage(ctx, a, f, assetPage(fmt.Sprintf(`<img src="https://cdn.example.com:%s/n/%d.png" alt="">`, port, i)), PageMode{Publish: true})
			switch fileframe.ErrorCode(err) {
			case "":
				ok.Add(1)
			case fileframe.CodeQuotaExceeded:
				over.Add(1)
			default:
				t.Errorf("page %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if u := used(); u > limit || ok.Load() == 0 || over.Load() == 0 {
		t.Errorf("usage %d of %d after %d pages stored and %d refused", u, limit, ok.Load(), over.Load())
	}
}

// TestFragmentsNameOneResource: URLs that differ only in their fragment
// are fetched once and kept as one resource, so they do not count
// against the page's limit one by one.
func TestFragmentsNameOneResource(t *testing.T) {
	ctx := context.Background()
	srv := newAssetServer(t)
	s, store, _ := testService(t, fileframe.Quota{})
	s.fetcher = srv.fetcher()
	a, f := agencyWithFile(t, s, store)
	var body strings.Builder
	for i := range MaxPageAssets + 10 {
		fmt.Fprintf(&body, `<img src="%s#%d" alt="">`, srv.url("/frag.png"), i)
	}
	page, res, err := s.SavePage(ctx, a, f, assetPage(body.String()), PageMode{Publish: true})
	if err != nil {
		t.Fatalf("SavePage: %v %+v", err, res.Errors)
	}
	assets, _ := store.RevisionAssets(ctx, f.ID, page.LatestRevision)
	if len(assets) != 1 || srv.hitsOf("/frag.png") != 1 {
		t.Errorf("%d assets, %d fetches; want one of each", len(assets), srv.hitsOf("/frag.png"))
	}
	rev, _ := store.Revision(ctx, f.ID, page.LatestRevision)
	if n := strings.Count(string(rev.Served), "/a/"+hexSum(srv.png)+".png"); n != MaxPageAssets+10 {
		t.Errorf("the served page names the copy %d times, want %d", n, MaxPageAssets+10)
	}
}

package web

// The remote hosts of custom pages' images, fonts and media in tests: TLS
// servers on loopback under names in .test, with a certificate of a CA of
// this test process that the servers' fetcher (testFetcher) trusts. The
// fetcher resolves every .test name to 127.0.0.1 and no other name, so a
// page naming https://cdn.example.com/x.png gets its asset.unavailable
// warning at once, without a DNS query leaving the machine.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"image"
	"image/color"
	"image/png"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fetch"
)

// testTLS is this test process's CA and a certificate it signed for
// *.test names (one and two labels deep) and 127.0.0.1.
var testTLS = sync.OnceValues(func() (*x509.CertPool, tls.Certificate) {
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		return k
	}
	now := time.Now()
	caKey, leafKey := key(), key()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Fileframe test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		panic(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "assets.test"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		DNSNames:    []string{"*.test", "*.evil.test", "*.assets.test"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &leafKey.PublicKey, caKey)
	if err != nil {
		panic(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return pool, tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}
})

// testFetcher is the fetcher of the test servers: private addresses
// allowed (the remote hosts are on loopback), testTLS's CA trusted, .test
// names resolved to 127.0.0.1 and no other name resolved.
func testFetcher() *fetch.Fetcher {
	pool, _ := testTLS()
	return fetch.New(fetch.Config{AllowPrivate: true, RootCAs: pool,
		Resolver: func(_ context.Context, host string) ([]netip.Addr, error) {
			if strings.HasSuffix(strings.TrimSuffix(strings.ToLower(host), "."), ".test") {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}})
}

// assetHost is a remote host of page resources: it serves what put gave
// it, under name (a .test host), over TLS, and counts the requests.
type assetHost struct {
	srv    *httptest.Server
	origin string // https://<name>:<port>
	mu     sync.Mutex
	files  map[string]assetFile
	hits   map[string]int
	all    *assetFile    // served at every path not put, when set
	delay  time.Duration // before every answer
}

type assetFile struct {
	typ  string
	body []byte
}

func newAssetHost(t testing.TB, name string) *assetHost {
	t.Helper()
	_, cert := testTLS()
	h := &assetHost{files: map[string]assetFile{}, hits: map[string]int{}}
	h.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits[r.URL.Path]++
		f, ok := h.files[r.URL.Path]
		if !ok && h.all != nil {
			f, ok = *h.all, true
		}
		delay := h.delay
		h.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", f.typ)
		w.Write(f.body)
	}))
	h.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	h.srv.StartTLS()
	t.Cleanup(h.srv.Close)
	h.origin = "https://" + name + ":" + strconv.Itoa(h.srv.Listener.Addr().(*net.TCPAddr).Port)
	return h
}

// put serves body at path with the Content-Type typ, and returns its URL.
func (h *assetHost) put(path, typ string, body []byte) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[path] = assetFile{typ, body}
	return h.origin + path
}

// serveAll serves body with the Content-Type typ at every path not put.
func (h *assetHost) serveAll(typ string, body []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.all = &assetFile{typ, body}
}

// requests returns how many requests path had.
func (h *assetHost) requests(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[path]
}

// solidPNG returns a w×h PNG of one colour.
func solidPNG(t testing.TB, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

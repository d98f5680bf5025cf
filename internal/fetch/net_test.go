package fetch

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testNet stands in for the internet on loopback: a "public" server on
// 127.0.0.2 and a "private" one on 127.0.0.1, on the same port, so that a
// fetch that connected anywhere but the checked address would reach the
// private server and be counted; names are answered from a table. The
// test policy takes 127.0.0.2 and 127.0.0.3 (where nothing listens) as
// public and allows the servers' port; every other rule is production's.
type testNet struct {
	port     uint16
	roots    *x509.CertPool
	public   *httptest.Server
	private  *httptest.Server
	privHits atomic.Int64 // requests the private server saw

	mu      sync.Mutex
	names   map[string]func() ([]netip.Addr, error)
	dialled []netip.AddrPort
}

var (
	publicAddr  = netip.MustParseAddr("127.0.0.2")
	privateAddr = netip.MustParseAddr("127.0.0.1")
	deadAddr    = netip.MustParseAddr("127.0.0.3") // "public", nothing listens
)

// testNames are the names the test certificate covers.
var testNames = []string{"public.test", "private.test", "rebind.test", "mixed.test", "mixed2.test", "gone.test", "nxdomain.test", "empty.test"}

func newTestNet(t testing.TB, public http.Handler) *testNet {
	t.Helper()
	n := &testNet{names: map[string]func() ([]netip.Addr, error){}}
	cert, roots := testCertificate(t)
	n.roots = roots
	pubLn, privLn := listenPair(t)
	n.port = uint16(pubLn.Addr().(*net.TCPAddr).Port)
	n.public = startTLS(t, pubLn, cert, public)
	n.private = startTLS(t, privLn, cert, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.privHits.Add(1)
		w.Write(pngFile(t)) // were it reached, the fetch would succeed: a leak cannot hide
	}))
	n.answer("public.test", publicAddr)
	n.answer("private.test", privateAddr)
	n.answer("gone.test", deadAddr)
	n.answer("mixed.test", publicAddr, privateAddr)
	n.answer("mixed2.test", privateAddr, publicAddr)
	n.names["nxdomain.test"] = func() ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "no such host", Name: "nxdomain.test", IsNotFound: true}
	}
	n.names["empty.test"] = func() ([]netip.Addr, error) { return nil, nil }
	t.Cleanup(func() {
		if got := n.privHits.Load(); got != 0 {
			t.Errorf("the private server saw %d requests, want 0", got)
		}
	})
	return n
}

// listenPair listens on 127.0.0.2 and 127.0.0.1 on one port.
func listenPair(t testing.TB) (pub, priv net.Listener) {
	t.Helper()
	for range 20 {
		pub, err := net.Listen("tcp", publicAddr.String()+":0")
		if err != nil {
			t.Fatal(err)
		}
		port := pub.Addr().(*net.TCPAddr).Port
		priv, err := net.Listen("tcp", net.JoinHostPort(privateAddr.String(), strconv.Itoa(port)))
		if err == nil {
			return pub, priv
		}
		pub.Close()
	}
	t.Fatal("no port free on both 127.0.0.1 and 127.0.0.2")
	return nil, nil
}

func startTLS(t testing.TB, ln net.Listener, cert tls.Certificate, h http.Handler) *httptest.Server {
	s := httptest.NewUnstartedServer(h)
	s.Listener.Close()
	s.Listener = ln
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // clients that leave mid-handshake are the tests' point
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// testCertificate returns a certificate for testNames and the loopback
// addresses, and a pool of the authority that signed it.
func testCertificate(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	ca, caKey := issue(t, &x509.Certificate{
		Subject:               pkix.Name{CommonName: "fetch test CA"},
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}, nil, nil)
	leaf, key := issue(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "public.test"},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    testNames,
		IPAddresses: []net.IP{privateAddr.AsSlice(), publicAddr.AsSlice(), deadAddr.AsSlice()},
	}, ca, caKey)
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	return tls.Certificate{Certificate: [][]byte{leaf.Raw}, PrivateKey: key}, roots
}

// issue signs tmpl, valid for an hour either side of now, by parent
// (nil: by itself).
func issue(t testing.TB, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func (n *testNet) answer(name string, addrs ...netip.Addr) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.names[name] = func() ([]netip.Addr, error) { return addrs, nil }
}

func (n *testNet) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	answer := n.names[host]
	n.mu.Unlock()
	if answer == nil {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return answer()
}

// dialling records each address the fetcher is about to connect to and
// stops any off loopback, so that no test sends a packet elsewhere even
// if the code under test is wrong.
func (n *testNet) dialling(ap netip.AddrPort) error {
	n.mu.Lock()
	n.dialled = append(n.dialled, ap)
	n.mu.Unlock()
	if !ap.Addr().IsLoopback() {
		return fmt.Errorf("test: dial of %s off loopback stopped", ap)
	}
	return nil
}

func (n *testNet) config() Config {
	return Config{
		RootCAs:  n.roots,
		Resolver: n.resolve,
		Test: &TestPolicy{
			Public:  []netip.Prefix{netip.PrefixFrom(publicAddr, 32), netip.PrefixFrom(deadAddr, 32)},
			Ports:   []uint16{n.port},
			Dialing: n.dialling,
		},
	}
}

// url is https://host:port/path on the test servers' port.
func (n *testNet) url(host, path string) string {
	return "https://" + net.JoinHostPort(host, strconv.Itoa(int(n.port))) + path
}

func (n *testNet) dials() []netip.AddrPort {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]netip.AddrPort(nil), n.dialled...)
}

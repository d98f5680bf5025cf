package web

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/sqlite"
)

// testEnv is a whole Fileframe on real parts: SQLite in a temporary file,
// blobs on a temporary disk, and the app and content origins on two real
// loopback listeners.
type testEnv struct {
	t       *testing.T
	dir     string
	srv     *Server
	store   *sqlite.Store
	blobs   *disk.Store
	app     *httptest.Server
	content *httptest.Server
	// ops serves OpsHandler, as serve's --ops-addr listener does.
	ops  *httptest.Server
	logs *logBuffer
}

// newTestEnv starts a test environment; opts may change the Config before
// the server is built. Everything is closed when the test ends.
func newTestEnv(t *testing.T, opts ...func(*Config)) *testEnv {
	t.Helper()
	dir := t.TempDir()
	return startTestEnv(t, dir, opts...)
}

// startTestEnv starts a server on the data in dir (so a test can restart one).
func startTestEnv(t *testing.T, dir string, opts ...func(*Config)) *testEnv {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "fileframe.db"))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	blobs, err := disk.Open(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatalf("disk.Open: %v", err)
	}
	app := httptest.NewUnstartedServer(nil)
	content := httptest.NewUnstartedServer(nil)
	appURL, _ := url.Parse("http://" + app.Listener.Addr().String())
	contentURL, _ := url.Parse("http://" + content.Listener.Addr().String())
	logs := newLogBuffer()
	cfg := Config{
		Store:         store,
		Blobs:         blobs,
		Logger:        slog.New(slog.NewJSONHandler(logs, nil)),
		BaseURL:       appURL,
		ContentOrigin: contentURL,
		PreviewSecret: bytes.Repeat([]byte("s"), 32),
		// Pages' remote resources come from .test hosts on loopback
		// (assets_harness_test.go).
		Fetcher: testFetcher(),
	}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("web.New: %v", err)
	}
	// Every request to /api/ and its answer must be as openapi.json says.
	app.Config.Handler = checkContract(t, srv.AppHandler())
	content.Config.Handler = srv.ContentHandler()
	// As serve runs them: answers from memory are held (hold.go).
	app.Listener, content.Listener = Listener(app.Listener), Listener(content.Listener)
	app.Config.ConnContext = ConnContext
	content.Config.ConnContext = ConnContext
	app.Start()
	content.Start()
	ops := httptest.NewServer(srv.OpsHandler())
	e := &testEnv{t: t, dir: dir, srv: srv, store: store, blobs: blobs, app: app, content: content, ops: ops, logs: logs}
	t.Cleanup(e.stop)
	return e
}

// stop shuts the servers down the way serve does: listeners first, then the
// Server (which flushes counts), then the store. Calling it twice is fine.
func (e *testEnv) stop() {
	if e.app == nil {
		return
	}
	e.app.Close()
	e.content.Close()
	e.ops.Close()
	if err := e.srv.Close(context.Background()); err != nil {
		e.t.Errorf("Server.Close: %v", err)
	}
	if err := e.store.Close(); err != nil {
		e.t.Errorf("Store.Close: %v", err)
	}
	e.app = nil
}

// restart stops the server and starts a new one on the same data.
func (e *testEnv) restart(opts ...func(*Config)) *testEnv {
	e.stop()
	return startTestEnv(e.t, e.dir, opts...)
}

// account creates an account on the given plan.
func (e *testEnv) account(plan fileframe.Plan) fileframe.Account {
	e.t.Helper()
	a, err := e.store.CreateAccount(context.Background(), fileframe.Account{
		Email: fileframe.RandomBase62(8) + "@example.com", Plan: plan,
	})
	if err != nil {
		e.t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

// file stores content as a file of the account.
func (e *testEnv) file(a fileframe.Account, name string, content []byte) fileframe.File {
	e.t.Helper()
	ctx := context.Background()
	info, err := e.blobs.Put(ctx, bytes.NewReader(content))
	if err != nil {
		e.t.Fatalf("Blobs.Put: %v", err)
	}
	f, err := e.store.CreateFile(ctx, fileframe.File{
		AccountID: a.ID, Name: name, Size: info.Size, BlobKey: info.Key,
		ContentType: "application/octet-stream",
	})
	if err != nil {
		e.t.Fatalf("CreateFile: %v", err)
	}
	return f
}

// key creates an API key for the account (page-bound when file is set) and
// returns its secret.
func (e *testEnv) key(a fileframe.Account, file fileframe.FileID) (string, fileframe.Key) {
	e.t.Helper()
	kind := fileframe.KeyGeneral
	if file != "" {
		kind = fileframe.KeyPage
	}
	secret, hash, prefix := fileframe.NewKeySecret(kind)
	k, err := e.store.CreateKey(context.Background(), fileframe.Key{
		AccountID: a.ID, Kind: kind, FileID: file, Name: "test", Hash: hash, Prefix: prefix,
	})
	if err != nil {
		e.t.Fatalf("CreateKey: %v", err)
	}
	return secret, k
}

// do sends a request to one of the servers and returns the response with its
// body read.
func (e *testEnv) do(req *http.Request) (*http.Response, []byte) {
	e.t.Helper()
	return e.doVia(http.DefaultTransport, req)
}

// doVia is do through rt.
func (e *testEnv) doVia(rt http.RoundTripper, req *http.Request) (*http.Response, []byte) {
	e.t.Helper()
	// A test whose base URL is not the listener's address stands for a
	// reverse proxy in front of the server, which passes the public Host.
	if base := e.srv.cfg.BaseURL; req.URL.Host == strings.TrimPrefix(e.app.URL, "http://") && base.Host != req.URL.Host {
		req.Host = base.Host
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("reading %s: %v", req.URL, err)
	}
	return resp, body
}

// get fetches an absolute URL without following redirects.
func (e *testEnv) get(rawURL string, header ...string) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return e.do(req)
}

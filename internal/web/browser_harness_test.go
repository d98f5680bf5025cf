package web

// The real-browser harness of the sandbox suite (browser_sandbox_test.go,
// browser_connections_test.go): one headless Chromium for the whole
// package, and one headless Firefox ESR for the tests that run in both
// engines (browser_firefox_test.go; forEachEngine), a fresh browser context
// and tab per test, the app and content origins of a real server under
// distinct host names, and an attacker's server that records every request
// it gets. The helpers (eval, navigate, click, frame, …) work in either
// engine; what only Chromium's DevTools protocol can show (events, targets)
// is used in Chromium alone.
// DESIGN.md, "Public pages and the sandbox", lists what the suite proves;
// docs/security.md maps each guarantee to its test.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The three sites of the suite. Each name is under its own domain, as in the
// recommended production setup (a content origin on a registrable domain of
// its own); --host-resolver-rules sends them all to 127.0.0.1, so no traffic
// leaves the machine.
const (
	appHost     = "app.fileframe.test"
	contentHost = "pages.usercontent.test"
	evilHost    = "www.evil.test"
	// evilImageHost is the attacker's https host: its TLS server (the
	// images a page names; netProbe's TLS listener) sees every connection
	// a page manages to open to a host name that carries data.
	evilImageHost = "images.evil.test"
)

// Timeouts of the suite: generous, so a loaded CI machine does not fail it,
// but bounded, so a broken sandbox fails rather than hangs.
const (
	// browserStartTimeout bounds Chromium's start.
	browserStartTimeout = 60 * time.Second
	// actionTimeout bounds one step: a navigation, an evaluation, a click.
	actionTimeout = 20 * time.Second
	// waitTimeout bounds a poll for something that must happen (a page
	// reports it is done, a download completes).
	waitTimeout = 15 * time.Second
	// quietPeriod is how long a test watches for something that must NOT
	// happen (a request, a navigation, a download, a dialog) after the
	// hostile page reported that it made its attempts. The browser refuses
	// what the sandbox forbids synchronously, before any request; a request
	// that does get out reaches a loopback server within milliseconds (the
	// control test, TestBrowserHostilePagesWorkWithoutSandbox, sees them),
	// or within a few hundred on a machine under heavy load.
	quietPeriod = time.Second
	// pollInterval is the step of the suite's bounded polls.
	pollInterval = 25 * time.Millisecond
)

// chromiumPath is where Debian's chromium package installs the browser;
// FILEFRAME_CHROMIUM overrides it.
const chromiumPath = "/usr/bin/chromium"

// installHint tells whoever runs the suite how to get a browser.
const installHint = "the browser tests need Chromium at " + chromiumPath +
	" (or FILEFRAME_CHROMIUM=/path/to/chromium); install it with scripts/ensure-chromium " +
	"(sudo apt-get install -y chromium on Debian and Ubuntu)"

// sharedChromium is the one browser of the test binary. It starts when the
// first browser test asks for it and stops in TestMain.
var sharedChromium chromiumProcess

// TestMain stops the shared browser after the tests, so that no Chromium
// process or profile directory outlives the test binary.
func TestMain(m *testing.M) {
	code := m.Run()
	if code != 0 {
		// A failure may be the browser's own (a crash takes every test
		// after it down with "browser process exited"): show what it
		// printed.
		sharedChromium.printOutput()
		sharedFirefox.printOutput()
	}
	sharedChromium.stop()
	sharedFirefox.stop()
	os.Exit(code)
}

// printOutput writes the end of what the shared browser printed to stderr,
// if it ever started.
func (c *chromiumProcess) printOutput() {
	c.outputW.mu.Lock()
	out := c.output.String()
	c.outputW.mu.Unlock()
	if out == "" {
		return
	}
	if len(out) > 16000 {
		out = out[len(out)-16000:]
	}
	fmt.Fprintf(os.Stderr, "\n--- what Chromium printed (the end) ---\n%s\n--- end of Chromium's output ---\n", out)
}

// chromiumProcess is a headless Chromium started once and shared by the tests.
type chromiumProcess struct {
	once        sync.Once
	ctx         context.Context // the chromedp context of the browser's first tab
	cancel      func()          // stops the browser
	err         error           // why the browser could not start
	userDataDir string
	output      bytes.Buffer // what Chromium printed, for error messages
	outputW     lockedWriter
}

// browser returns the shared browser's context, starting Chromium on first
// use. A browser that cannot start fails the test: the suite never skips.
func (c *chromiumProcess) browser(t *testing.T) context.Context {
	t.Helper()
	c.once.Do(c.start)
	if c.err != nil {
		t.Fatalf("Chromium could not start: %v\n%s", c.err, installHint)
	}
	return c.ctx
}

func (c *chromiumProcess) start() {
	path := os.Getenv("FILEFRAME_CHROMIUM")
	if path == "" {
		path = chromiumPath
	}
	if _, err := exec.LookPath(path); err != nil {
		c.err = err
		return
	}
	dir, err := os.MkdirTemp("", "fileframe-chromium-")
	if err != nil {
		c.err = err
		return
	}
	c.userDataDir = dir
	c.outputW.w = &c.output
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.UserDataDir(dir),
		chromedp.CombinedOutput(&c.outputW),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("no-sandbox", true), // containers and CI run as root
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("window-size", "1280,800"),
		// Every *.test name is this machine: the suite sends traffic only
		// to loopback.
		chromedp.Flag("host-resolver-rules", "MAP *.test 127.0.0.1"),
		// Production serves both origins over https, so their pages are
		// secure contexts, where storage, service workers, the clipboard
		// and the other powerful APIs exist. Over plain http they would not
		// exist at all, and a test that sees them fail would prove nothing;
		// this flag makes the loopback http origins secure contexts (and
		// makes the browser send Sec-Fetch-* headers to them, as over https).
		chromedp.Flag("unsafely-treat-insecure-origin-as-secure",
			"*.fileframe.test,*.usercontent.test,*.evil.test"),
		// The https server of the residual-risk test uses httptest's
		// certificate; trust that key alone.
		chromedp.Flag("ignore-certificate-errors-spki-list", testCertSPKI()),
		// Cross-site frames get their own renderer process. It is already
		// the default of desktop Chromium; the flag makes sure memory
		// heuristics cannot turn it off, since the busy-loop test depends
		// on it.
		chromedp.Flag("site-per-process", true),
		// With the popup blocker on, a popup without a click would be
		// refused by it rather than by the sandbox. Off, the popup tests
		// prove the sandbox alone.
		chromedp.Flag("disable-popup-blocking", true),
		// Debian's Chromium ships with PartitionAlloc's detector of
		// callbacks bound to freed objects set to crash the whole browser
		// (FATAL "Detected dangling raw_ptr in unretained", SIGABRT). It
		// fires, about once in a few hundred tests, on Chromium's own
		// bookkeeping while the suite opens and closes browser contexts, and
		// then every test after it fails with "browser process exited". It is
		// a debugging aid for Chromium's developers, not part of the web
		// platform or of the sandbox under test. See
		// https://chromium.googlesource.com/chromium/src/+/main/docs/unretained_dangling_ptr_guide.md
		chromedp.Flag("disable-features", "PartitionAllocUnretainedDanglingPtr"),
	)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	c.cancel = func() { cancelTab(); cancelAlloc() }

	// The first Run binds the browser's life to its context, so it gets no
	// deadline; a watchdog stops a start that hangs.
	watchdog := time.AfterFunc(browserStartTimeout, c.cancel)
	err = chromedp.Do(ctx)
	if !watchdog.Stop() {
		err = fmt.Errorf("Chromium did not start within %v: %w", browserStartTimeout, err)
	}
	if err != nil {
		c.cancel()
		os.RemoveAll(dir)
		c.outputW.mu.Lock()
		out := c.output.String()
		c.outputW.mu.Unlock()
		if len(out) > 4000 {
			out = out[len(out)-4000:]
		}
		c.err = fmt.Errorf("%w\nChromium printed:\n%s", err, out)
		return
	}
	c.ctx = ctx
}

func (c *chromiumProcess) stop() {
	if c.ctx == nil {
		return
	}
	c.cancel()
	os.RemoveAll(c.userDataDir)
}

// variant is the way a visitor gets to a custom page: the published page at
// its public link, or a draft through its preview link. Every sandbox test
// runs for both.
type variant string

const (
	published variant = "published"
	preview   variant = "preview"
)

var variants = []variant{published, preview}

// forEachVariant runs test in Chromium once for each variant, as parallel
// subtests.
func forEachVariant(t *testing.T, test func(t *testing.T, b *browserEnv)) {
	t.Helper()
	for _, v := range variants {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			test(t, newBrowserEnv(t, v))
		})
	}
}

// forEachEngine runs test as forEachVariant does, and once more in Firefox
// (subtest "firefox"), for the published page: what the preview variant
// changes is the server's, not the browser's.
func forEachEngine(t *testing.T, test func(t *testing.T, b *browserEnv)) {
	t.Helper()
	forEachVariant(t, test)
	t.Run(string(firefox), func(t *testing.T) {
		t.Parallel()
		test(t, newBrowserEnvWith(t, envConfig{engine: firefox, variant: published}))
	})
}

// brokenSlug is a slug the store fails to look up, so that a test can make
// the content origin answer 500.
const brokenSlug = "broken-store"

// brokenStore is the real store, except that looking up brokenSlug fails.
type brokenStore struct {
	fileframe.Store
}

func (s brokenStore) FileBySlug(ctx context.Context, slug string) (fileframe.File, error) {
	if slug == brokenSlug {
		return fileframe.File{}, errors.New("the disk is on fire")
	}
	return s.Store.FileBySlug(ctx, slug)
}

// engine is the browser a test runs in.
type engine string

const (
	chromium engine = "chromium" // Debian's chromium, through chromedp (CDP)
	firefox  engine = "firefox"  // Debian's firefox-esr, through WebDriver BiDi (browser_firefox_test.go)
)

// envConfig says how a test's visitor reaches the service.
type envConfig struct {
	engine  engine
	variant variant
	// defaultOrigins names the app and content origins as `fileframe
	// serve` does when nothing is configured (an IP address and
	// DefaultContentOrigin) instead of appHost and contentHost, the
	// recommended set-up of a registrable domain each.
	defaultOrigins bool
	// persistentProfile uses Chromium's default browser context, a profile
	// as a person has, instead of a fresh incognito-like one: Chromium
	// opens <link rel=preconnect> connections only from the former. (Each
	// Firefox test has a browser context of its own, which preconnects.)
	persistentProfile bool
	// config changes the server's Config further (after the suite's own
	// changes), e.g. to count what is read from the blob store.
	config func(*Config)
}

// browserEnv is one sandbox test: a real server (testEnv) whose app and
// content origins are named appHost and contentHost, an attacker's server on
// evilHost, an agency account with one file and a general API key, and a
// fresh browser context with its own tab and download folder.
type browserEnv struct {
	*testEnv
	envConfig
	evil *evilServer

	account fileframe.Account
	file    fileframe.File
	genuine []byte // the file's bytes
	key     string // a general API key of the account

	// tab is the context of the test's tab: a chromedp context, or for
	// Firefox one that carries a firefoxTarget.
	tab       context.Context
	contextID cdp.BrowserContextID // Chromium: the tab's browser context
	downloads string               // the browser context's download folder

	frameMu  sync.Mutex
	frameCtx context.Context // the attached custom-page frame, see frame
	frameID  target.ID
}

// newBrowserEnv starts a sandbox test in Chromium.
func newBrowserEnv(t *testing.T, v variant) *browserEnv {
	t.Helper()
	return newBrowserEnvWith(t, envConfig{engine: chromium, variant: v})
}

func newBrowserEnvWith(t *testing.T, cfg envConfig) *browserEnv {
	t.Helper()
	var root context.Context
	var ff *firefoxProcess
	if cfg.engine == firefox {
		ff = sharedFirefox.browser(t)
		// The profile has one download folder: Firefox tests take turns.
		ff.serial.Lock()
		t.Cleanup(ff.serial.Unlock)
	} else {
		root = sharedChromium.browser(t)
	}
	e := newTestEnv(t, func(c *Config) {
		if cfg.defaultOrigins {
			c.ContentOrigin = DefaultContentOrigin(c.BaseURL, c.ContentOrigin)
		} else {
			c.BaseURL.Host = appHost + ":" + c.BaseURL.Port()
			c.ContentOrigin.Host = contentHost + ":" + c.ContentOrigin.Port()
		}
		c.Store = brokenStore{c.Store}
		c.KeyRate, c.KeyBurst, c.IPRate, c.IPBurst = 1000, 1000, 1000, 1000
		if cfg.config != nil {
			cfg.config(c)
		}
	})
	b := &browserEnv{testEnv: e, envConfig: cfg, evil: newEvilServer(t)}
	b.account = e.account(fileframe.PlanAgency)
	b.genuine = []byte("%PDF-1.7 the genuine report " + fileframe.RandomBase62(16))
	b.file = e.file(b.account, "report.pdf", b.genuine)
	b.key, _ = e.key(b.account, "")
	if ff != nil {
		b.openFirefoxTab(t, ff)
	} else {
		b.openChromiumTab(t, root)
	}
	return b
}

// openChromiumTab opens the test's tab in a fresh browser context (or the
// default one, for persistentProfile) with a download folder of its own.
func (b *browserEnv) openChromiumTab(t *testing.T, root context.Context) {
	t.Helper()
	// The download folder is made first, so that it is removed after the
	// browser context is closed (cleanups run last-in, first-out), never
	// under a download still being written.
	downloads := t.TempDir()
	var opts []chromedp.ContextOption
	if !b.persistentProfile {
		opts = append(opts, chromedp.WithNewBrowserContext())
	}
	tab, cancel := chromedp.NewContext(root, opts...)
	t.Cleanup(cancel)
	// As for the browser, the tab's first Run binds the tab's life to its
	// context; a watchdog bounds it.
	watchdog := time.AfterFunc(actionTimeout, cancel)
	err := chromedp.Do(tab)
	if !watchdog.Stop() || err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	b.tab = tab
	b.downloads = downloads
	b.callBrowser(t, func(ctx context.Context) error {
		info, err := chromedp.CallBrowser(ctx, target.GetTargetInfo, target.GetTargetInfoParams{
			TargetID: chromedp.FromContext(tab).Target.TargetID,
		})
		if err == nil {
			b.contextID = info.TargetInfo.BrowserContextID
		}
		return err
	})
	b.callBrowser(t, func(ctx context.Context) error {
		_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior:         browser.SetDownloadBehaviorBehaviorAllow,
			BrowserContextID: b.browserContextID(),
			DownloadPath:     b.downloads,
			EventsEnabled:    new(true),
		})
		return err
	})
}

// browserContextID is the ID of the test's own browser context.
func (b *browserEnv) browserContextID() cdp.BrowserContextID {
	return b.contextID
}

// appOrigin and contentOrigin are the server's origins as the browser sees them.
func (b *browserEnv) appOrigin() string     { return b.srv.AppOrigin() }
func (b *browserEnv) contentOrigin() string { return b.srv.ContentOrigin() }

// callBrowser runs f with a bounded context derived from the tab.
func (b *browserEnv) callBrowser(t *testing.T, f func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, actionTimeout)
	defer cancel()
	if err := f(ctx); err != nil {
		t.Fatal(err)
	}
}

// run runs a chromedp action in ctx (the tab or a frame of a Chromium test)
// with a bounded context.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// eval evaluates a JavaScript expression in ctx (the tab or a frame, in
// either engine), awaiting a promise, and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := tryEval[T](ctx, expr)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// tryEval is eval returning its error.
func tryEval[T any](ctx context.Context, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	if ft := firefoxOf(ctx); ft != nil {
		var v T
		err := ft.call(ctx, "eval", map[string]any{"expr": expr}, &v)
		return v, err
	}
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// navigate loads rawURL in the test's tab and waits for its load event.
func (b *browserEnv) navigate(t *testing.T, rawURL string) {
	t.Helper()
	if ft := firefoxOf(b.tab); ft != nil {
		ctx, cancel := context.WithTimeout(b.tab, actionTimeout)
		defer cancel()
		if err := ft.call(ctx, "goto", map[string]any{"url": rawURL}, nil); err != nil {
			t.Fatal(err)
		}
		return
	}
	run(t, b.tab, chromedp.Navigate(rawURL))
}

// location returns the tab's current address.
func (b *browserEnv) location(t *testing.T) string {
	t.Helper()
	return eval[string](t, b.tab, "location.href")
}

// poll evaluates cond every pollInterval until it is true, or fails the test
// after waitTimeout.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", waitTimeout, what)
		}
		time.Sleep(pollInterval)
	}
}

// hostile reads testdata/hostile/name and fills in its placeholders:
// {{EVIL}} (the attacker's origin), {{APP}}, {{CONTENT}}, {{SLUG}} (the
// test file's slug), {{BROKEN}} (brokenSlug) and those of more, given as
// old, new pairs.
func (b *browserEnv) hostile(name string, more ...string) []byte {
	b.t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hostile", name))
	if err != nil {
		b.t.Fatal(err)
	}
	return []byte(strings.NewReplacer(append([]string{
		"{{EVIL}}", b.evil.origin,
		"{{APP}}", b.appOrigin(),
		"{{CONTENT}}", b.contentOrigin(),
		"{{SLUG}}", b.file.Slug,
		"{{BROKEN}}", brokenSlug,
	}, more...)...).Replace(string(raw)))
}

// apiAnswer is what POST /api/campaign/custom-html answered.
type apiAnswer struct {
	Status     int    `json:"-"`
	Published  bool   `json:"published"`
	PublicURL  string `json:"publicUrl"`
	PreviewURL string `json:"previewUrl"`
	Errors     []struct {
		Rule string `json:"rule"`
	} `json:"errors"`
	raw []byte
}

// rules returns the rules of the answer's errors.
func (a apiAnswer) rules() []string {
	var rules []string
	for _, f := range a.Errors {
		rules = append(rules, f.Rule)
	}
	return rules
}

// post sends html as the test file's page through the real API, published
// or as a draft according to the variant.
func (b *browserEnv) post(t *testing.T, html []byte) apiAnswer {
	t.Helper()
	fields := map[string]any{"fileId": string(b.file.ID), "html": string(html)}
	if b.variant == published {
		fields["publish"] = true
	}
	body, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, b.app.URL+customHTMLPath, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+b.key)
	req.Header.Set("Content-Type", "application/json")
	resp, raw := b.do(req)
	a := apiAnswer{Status: resp.StatusCode, raw: raw}
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("API answer %d is not JSON: %v\n%s", resp.StatusCode, err, raw)
	}
	return a
}

// show stores html as the test file's custom page, published or as a draft
// according to the variant, and returns the address a visitor opens: the
// public link, or the draft's preview link.
//
// The page goes through the real API when htmlcheck accepts it. A page it
// rejects (an external script, <a download>, a link to another host …) is
// stored directly, below the API: the sandbox must hold even for a page that
// validation failed to catch.
func (b *browserEnv) show(t *testing.T, html []byte) string {
	t.Helper()
	a := b.post(t, html)
	switch a.Status {
	case http.StatusOK:
		if a.Published != (b.variant == published) {
			t.Fatalf("API: published %v for the %s variant", a.Published, b.variant)
		}
		if b.variant == published {
			return a.PublicURL
		}
		if a.PreviewURL == "" {
			t.Fatalf("API: a draft without previewUrl: %s", a.raw)
		}
		return a.PreviewURL
	case http.StatusUnprocessableEntity:
		t.Logf("htmlcheck rejects the page (%s); storing it below the API", strings.Join(a.rules(), ", "))
		page, err := b.store.SavePage(context.Background(), fileframe.PageWrite{
			FileID: b.file.ID, HTML: html, Publish: b.variant == published, At: time.Now(),
		})
		if err != nil {
			t.Fatalf("SavePage: %v", err)
		}
		public := b.srv.publicURL(b.file.URL())
		if b.variant == published {
			return public
		}
		token := b.srv.previewToken(b.file.Slug, page.LatestRevision, time.Now().Add(time.Hour))
		return public + "?preview=" + url.QueryEscape(token)
	default:
		t.Fatalf("API: status %d\n%s", a.Status, a.raw)
		return ""
	}
}

// open shows html as the test file's custom page, loads the visitor's address
// in the tab, attaches to the custom page's frame and waits until the page
// reports it is ready (document.documentElement.dataset.ready or .done set).
func (b *browserEnv) open(t *testing.T, html []byte) string {
	t.Helper()
	outer := b.show(t, html)
	b.navigate(t, outer)
	if got := b.location(t); got != outer {
		t.Fatalf("the tab is at %s after loading %s", got, outer)
	}
	b.waitFrame(t, "ready")
	return outer
}

// frame returns a context of the custom page's frame, in which eval runs.
// The page cannot send results out (that is what the sandbox forbids), so
// the test reads what the hostile page recorded about itself from inside.
//
// In Chromium it is a chromedp context attached to the frame: the content
// origin is another site, so Chromium runs the frame in a process of its
// own, as a target of type "iframe" (out-of-process iframe). In Firefox it
// names the frame by its address, which WebDriver BiDi reaches in whatever
// process it runs.
func (b *browserEnv) frame(t *testing.T) context.Context {
	t.Helper()
	if ft := firefoxOf(b.tab); ft != nil {
		prefix := b.contentOrigin() + "/"
		poll(t, "the custom page's frame", func() bool {
			return slices.ContainsFunc(b.firefoxFrames(t), func(u string) bool { return strings.HasPrefix(u, prefix) })
		})
		return ft.inFrame(b.tab, prefix)
	}
	b.frameMu.Lock()
	defer b.frameMu.Unlock()
	var info *target.Info
	poll(t, "the custom page's frame target", func() bool {
		info = b.frameTarget(t)
		return info != nil
	})
	if b.frameCtx != nil && b.frameID == info.TargetID {
		return b.frameCtx
	}
	// Detach, never close, on cancel: closing an iframe target would close
	// the tab.
	ctx, cancel := chromedp.NewContext(b.tab, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel())
	t.Cleanup(cancel)
	watchdog := time.AfterFunc(actionTimeout, cancel)
	err := chromedp.Do(ctx)
	if !watchdog.Stop() || err != nil {
		t.Fatalf("attaching to the frame %s: %v", info.URL, err)
	}
	b.frameCtx, b.frameID = ctx, info.TargetID
	return ctx
}

// frameTarget returns the target of the tab's frame on the content origin,
// or nil.
func (b *browserEnv) frameTarget(t *testing.T) *target.Info {
	t.Helper()
	for _, info := range b.targets(t) {
		if info.Type == "iframe" && strings.HasPrefix(info.URL, b.contentOrigin()+"/") {
			return info
		}
	}
	return nil
}

// frameDocuments returns, for each frame of the test's tab that runs in a
// process of its own (a target of type "iframe"), the address of the
// document it shows, read from inside: a frame whose navigation the browser
// refused shows its error page (chrome-error://chromewebdata/) while its
// target still carries the refused address.
//
// In Firefox, WebDriver BiDi gives each frame as the address it was sent
// to, the refused one included; the document it shows is read from inside.
func (b *browserEnv) frameDocuments(t *testing.T) []string {
	t.Helper()
	if ft := firefoxOf(b.tab); ft != nil {
		var docs []string
		for _, u := range b.firefoxFrames(t)[1:] {
			docs = append(docs, eval[string](t, ft.inFrame(b.tab, u), "document.documentURI"))
		}
		return docs
	}
	var docs []string
	for _, info := range b.targets(t) {
		if info.Type != "iframe" {
			continue
		}
		ctx, cancel := chromedp.NewContext(b.tab, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel())
		defer cancel()
		docs = append(docs, eval[string](t, ctx, `location.href`))
	}
	return docs
}

// targets lists the targets of the test's browser context.
func (b *browserEnv) targets(t *testing.T) []*target.Info {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, actionTimeout)
	defer cancel()
	all, err := chromedp.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mine []*target.Info
	for _, info := range all {
		if info.BrowserContextID == b.browserContextID() {
			mine = append(mine, info)
		}
	}
	return mine
}

// waitFrame waits until the custom page sets document.documentElement.dataset
// .ready or .done (for "ready"), or .done (for "done"). On a timeout it shows
// what the page recorded so far.
func (b *browserEnv) waitFrame(t *testing.T, state string) {
	t.Helper()
	frame := b.frame(t)
	expr := `document.documentElement.dataset.done === "1"`
	if state == "ready" {
		expr = `document.documentElement.dataset.ready === "1" || ` + expr
	}
	deadline := time.Now().Add(waitTimeout)
	for {
		ok, err := tryEval[bool](frame, expr)
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			sofar, _ := tryEval[string](frame, `JSON.stringify({results: window.results, dataset: document.documentElement.dataset, url: location.href})`)
			t.Fatalf("timed out after %v waiting for the custom page to be %s (last error: %v); so far: %s", waitTimeout, state, err, sofar)
		}
		time.Sleep(pollInterval)
	}
}

// results waits until the custom page is done and returns what it recorded
// in window.results: for each attempt, a short description of its outcome.
func (b *browserEnv) results(t *testing.T) map[string]string {
	t.Helper()
	b.waitFrame(t, "done")
	res := eval[map[string]string](t, b.frame(t), `window.results`)
	t.Logf("the page recorded: %s", fmtResults(res))
	return res
}

func fmtResults(res map[string]string) string {
	b, _ := json.MarshalIndent(res, "", "  ")
	return string(b)
}

// box is an element's rectangle in CSS pixels of the viewport.
type box struct{ X, Y, Width, Height float64 }

func (r box) center() (float64, float64) { return r.X + r.Width/2, r.Y + r.Height/2 }

// rect returns the bounding rectangle of the first element matching selector
// in ctx's document. The custom page's frame covers the whole viewport from
// its top left corner, so its coordinates are the tab's.
func rect(t *testing.T, ctx context.Context, selector string) box {
	t.Helper()
	r := eval[box](t, ctx, fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el) return null;
		const r = el.getBoundingClientRect();
		return {X: r.x, Y: r.y, Width: r.width, Height: r.height};
	})()`, selector))
	if r.Width == 0 || r.Height == 0 {
		t.Fatalf("element %s has no box: %+v", selector, r)
	}
	return r
}

// click sends a real left click (CDP input events, as from a mouse) at x, y
// of the tab's viewport.
func (b *browserEnv) click(t *testing.T, x, y float64) {
	t.Helper()
	if firefoxOf(b.tab) != nil {
		b.firefoxClick(t, x, y)
		return
	}
	run(t, b.tab, chromedp.MouseClickXY(x, y))
}

// clickInFrame clicks the centre of the first element matching selector in
// the custom page: a real click, with the user activation that comes with it.
// It waits until the element got the (trusted) click, so that a click that
// went nowhere fails here rather than as a missing outcome later.
func (b *browserEnv) clickInFrame(t *testing.T, selector string) {
	t.Helper()
	frame := b.frame(t)
	// The browser routes input to a frame by what the frame last painted.
	eval[bool](t, frame, painted)
	eval[bool](t, frame, fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		el.addEventListener("click", e => { if (e.isTrusted) el.dataset.testClicked = "1"; }, { capture: true, once: true });
		return true;
	})()`, selector))
	x, y := rect(t, frame, selector).center()
	b.click(t, x, y)
	poll(t, "the click to reach "+selector, func() bool {
		return eval[bool](t, frame, fmt.Sprintf(`document.querySelector(%q).dataset.testClicked === "1"`, selector))
	})
}

// painted is a script that resolves once the document has drawn two more
// frames: what it looked like before is then on screen.
const painted = `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`

// control is the download control's link in the outer page.
const control = "a[data-ff-download]"

// clickControl clicks the centre of the download control with real input
// events and waits until the genuine file is in the download folder.
func (b *browserEnv) clickControl(t *testing.T) {
	t.Helper()
	x, y := rect(t, b.tab, control).center()
	b.click(t, x, y)
	b.waitGenuineDownload(t)
}

// waitGenuineDownload waits until the download folder holds the genuine
// file, complete.
func (b *browserEnv) waitGenuineDownload(t *testing.T) {
	t.Helper()
	path := filepath.Join(b.downloads, b.file.Name)
	poll(t, "the genuine download in "+b.downloads, func() bool {
		got, err := os.ReadFile(path)
		return err == nil && bytes.Equal(got, b.genuine)
	})
}

// downloadedFiles lists the names in the download folder (complete files
// and partial downloads alike).
func (b *browserEnv) downloadedFiles(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(b.downloads)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// checkDownloads asserts that the download folder holds exactly the genuine
// file, or nothing when wantGenuine is false.
func (b *browserEnv) checkDownloads(t *testing.T, wantGenuine bool) {
	t.Helper()
	names := b.downloadedFiles(t)
	want := []string{}
	if wantGenuine {
		want = []string{b.file.Name}
	}
	if strings.Join(names, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("download folder holds %q, want %q", names, want)
	}
}

// evalTimed evaluates expr in ctx and returns how long the round trip took.
func evalTimed(t *testing.T, ctx context.Context, expr string) time.Duration {
	t.Helper()
	start := time.Now()
	_, err := tryEval[any](ctx, expr)
	d := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// evilServer is the attacker's site: a loopback server under evilHost that
// records every request it gets, WebSocket upgrades included. Pages under
// /host/ are the attacker's own pages that a test opens on purpose; any
// other request is a hit, something a custom page managed to send out.
type evilServer struct {
	srv    *httptest.Server
	origin string

	mu    sync.Mutex
	hits  []evilRequest
	pages map[string][]byte // /host/<name> → HTML
}

// evilRequest is a request that reached the attacker's server.
type evilRequest struct {
	Method, Path, Dest, Upgrade, Referer, Cookie string
}

func (r evilRequest) String() string {
	s := r.Method + " " + r.Path
	if r.Dest != "" {
		s += " (Sec-Fetch-Dest: " + r.Dest + ")"
	}
	if r.Upgrade != "" {
		s += " (Upgrade: " + r.Upgrade + ")"
	}
	return s
}

func newEvilServer(t *testing.T) *evilServer {
	t.Helper()
	e := &evilServer{pages: map[string][]byte{}}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	e.origin = "http://" + evilHost + ":" + strconv.Itoa(e.srv.Listener.Addr().(*net.TCPAddr).Port)
	return e
}

// testCertSPKI returns the base64 SHA-256 of the public key of the
// certificate every httptest TLS server uses, for Chromium's
// --ignore-certificate-errors-spki-list: the browser then trusts that one
// test certificate, whatever name it is used under, and no other.
func testCertSPKI() string {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	sum := sha256.Sum256(srv.Certificate().RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:])
}

func (e *evilServer) serve(w http.ResponseWriter, r *http.Request) {
	if page, ok := e.page(r.URL.Path); ok {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
		return
	}
	if r.URL.Path == "/favicon.ico" {
		http.NotFound(w, r)
		return
	}
	e.mu.Lock()
	e.hits = append(e.hits, evilRequest{
		Method: r.Method, Path: r.URL.RequestURI(),
		Dest: r.Header.Get("Sec-Fetch-Dest"), Upgrade: r.Header.Get("Upgrade"),
		Referer: r.Header.Get("Referer"), Cookie: r.Header.Get("Cookie"),
	})
	e.mu.Unlock()
	// Answer as generously as an attacker would, so that nothing fails
	// for want of a proper answer.
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case strings.HasSuffix(r.URL.Path, ".js"):
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "document.documentElement.dataset.evilScript = '1';")
	case strings.HasSuffix(r.URL.Path, ".png"):
		w.Header().Set("Content-Type", "image/png")
		png.Encode(w, image.NewGray(image.Rect(0, 0, 1, 1)))
	case strings.HasSuffix(r.URL.Path, ".css"):
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "html { outline: 9px solid red; }")
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>evil</title><p>gotcha</p>")
	}
}

// host serves html at /host/<name> and returns its address.
func (e *evilServer) host(name string, html []byte) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pages["/host/"+name] = html
	return e.origin + "/host/" + name
}

func (e *evilServer) page(path string) ([]byte, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.pages[path]
	return p, ok
}

// requests returns the hits so far.
func (e *evilServer) requests() []evilRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]evilRequest(nil), e.hits...)
}

// checkNoRequests waits quietPeriod and then asserts that no request reached
// the attacker's server.
func (b *browserEnv) checkNoRequests(t *testing.T) {
	t.Helper()
	time.Sleep(quietPeriod)
	if hits := b.evil.requests(); len(hits) > 0 {
		t.Errorf("%d request(s) reached %s, want none:\n%s", len(hits), evilHost, fmtRequests(hits))
	}
}

func fmtRequests(rs []evilRequest) string {
	var s strings.Builder
	for _, r := range rs {
		s.WriteString("\t" + r.String() + "\n")
	}
	return s.String()
}

// eventLog records the events of a target (the tab or a frame) from the
// moment it is made: chromedp calls the listener in the target's read loop,
// in order, so an event that arrived before a command's reply is in the log
// when the command returns.
type eventLog struct {
	mu     sync.Mutex
	events []any
}

// listen starts an eventLog of the target of ctx.
func listen(t *testing.T, ctx context.Context) *eventLog {
	t.Helper()
	l := &eventLog{}
	if err := chromedp.Listen(ctx, l.add); err != nil {
		t.Fatal(err)
	}
	return l
}

// listenBrowser starts an eventLog of the browser's own events (targets,
// downloads); they cover every test's browser context.
func listenBrowser(t *testing.T, ctx context.Context) *eventLog {
	t.Helper()
	l := &eventLog{}
	if err := chromedp.ListenBrowser(ctx, l.add); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *eventLog) add(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

// eventsOf returns the events of type E recorded so far.
func eventsOf[E any](l *eventLog) []*E {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*E
	for _, ev := range l.events {
		if e, ok := ev.(*E); ok {
			out = append(out, e)
		}
	}
	return out
}

// setCookie sets a cookie for the origin in the test's browser context, as
// the origin's own Set-Cookie would.
func (b *browserEnv) setCookie(t *testing.T, origin, name, value string, secureSameSiteNone bool) {
	t.Helper()
	if ft := firefoxOf(b.tab); ft != nil {
		u, err := url.Parse(origin)
		if err != nil {
			t.Fatal(err)
		}
		cookie := map[string]any{"name": name, "value": value, "domain": u.Hostname(), "path": "/"}
		if secureSameSiteNone {
			cookie["secure"], cookie["sameSite"] = true, "None"
		}
		ctx, cancel := context.WithTimeout(b.tab, actionTimeout)
		defer cancel()
		if err := ft.call(ctx, "setCookie", map[string]any{"cookie": cookie}, nil); err != nil {
			t.Fatal(err)
		}
		return
	}
	params := network.SetCookieParams{Name: name, Value: value, URL: origin + "/"}
	if secureSameSiteNone {
		params.Secure, params.SameSite = new(true), network.CookieSameSiteNone
	}
	b.callBrowser(t, func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, network.SetCookie, params)
		return err
	})
}

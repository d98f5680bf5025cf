package web

// The second engine of the browser suite: Debian's Firefox ESR, started once
// for the test binary, driven over WebDriver BiDi by puppeteer-core from a
// small Node program (testdata/firefox/driver.mjs) that the test runs and
// talks to over its stdin and stdout. The Go test starts Firefox itself,
// with a profile of its own, and the driver only connects: a puppeteer
// *launch* turns Firefox's site isolation (Fission) off, and the suite's
// responsiveness test depends on it.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// firefoxPath is where Debian's firefox-esr package installs the browser;
// FILEFRAME_FIREFOX overrides it.
const firefoxPath = "/usr/bin/firefox-esr"

// firefoxDriverDir holds driver.mjs, its package.json and package-lock.json;
// `npm ci` there installs puppeteer-core into node_modules.
const firefoxDriverDir = "testdata/firefox"

// firefoxHint tells whoever runs the suite how to get what the Firefox run
// needs.
const firefoxHint = "the browser tests need Firefox ESR at " + firefoxPath +
	" (or FILEFRAME_FIREFOX=/path/to/firefox), Node.js, and puppeteer-core in " +
	"internal/web/" + firefoxDriverDir + "/node_modules; scripts/ensure-firefox installs them " +
	"(apt-get install -y firefox-esr nodejs npm; npm ci in that folder)"

// sharedFirefox is the one Firefox of the test binary, started when the
// first Firefox test asks for it and stopped in TestMain.
var sharedFirefox firefoxProcess

// firefoxProcess is Firefox ESR and the Node driver connected to it.
type firefoxProcess struct {
	once      sync.Once
	err       error
	profile   string // the profile directory, removed at stop
	downloads string // the one download folder of the profile
	firefox   *exec.Cmd
	driver    *exec.Cmd
	stdin     io.WriteCloser
	output    bytes.Buffer // what Firefox and the driver printed
	outputW   lockedWriter

	mu      sync.Mutex
	nextID  int
	pending map[int]chan firefoxReply
	dead    error // set when the driver's output ended

	// serial is held by each Firefox test: the profile has one download
	// folder, so tests take turns.
	serial sync.Mutex
}

type firefoxReply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// firefoxPrefs are the profile's preferences (user.js). Firefox started
// with --remote-debugging-port also applies the remote agent's recommended
// preferences (no updates, telemetry, safe browsing, popup blocker; see
// remote/shared/RecommendedPreferences.sys.mjs) to those not set here.
func firefoxPrefs(downloads string) map[string]any {
	return map[string]any{
		// Every host name is this machine, as Chromium's
		// --host-resolver-rules does for *.test: the suite sends traffic
		// only to loopback, and nothing Firefox does in the background
		// leaves it.
		"network.dns.forceResolve": "127.0.0.1",
		"network.trr.mode":         5, // no DNS over HTTPS
		// WebRTC talks to STUN and TURN servers on loopback, where the
		// suite's listeners are (Firefox does not by default; any other
		// address it reaches without this).
		"media.peerconnection.ice.loopback": true,
		// As Chromium's --unsafely-treat-insecure-origin-as-secure: the
		// loopback http origins are secure contexts, as over https in
		// production, and get Sec-Fetch-* headers.
		"dom.securecontext.allowlist": strings.Join([]string{appHost, contentHost, evilHost, evilImageHost}, ","),
		// ... which makes the content origin's own http images "mixed
		// content" of a secure page, which Firefox upgrades to https on
		// the same port, where no TLS answers: the kept copies of pages'
		// remote images (/a/) would never show. In production both
		// origins are https (or http on localhost, never mixed content),
		// so nothing is upgraded; this keeps the test to what production
		// does (TestBrowserRemoteImagesShown).
		"security.mixed_content.upgrade_display_content": false,
		// Downloads go to the folder without asking.
		"browser.download.dir":                                  downloads,
		"browser.download.folderList":                           2,
		"browser.download.useDownloadDir":                       true,
		"browser.download.always_ask_before_handling_new_types": false,
		"browser.download.start_downloads_in_tmp_dir":           false,
		"browser.download.open_pdf_attachments_inline":          false,
		"browser.download.alwaysOpenPanel":                      false,
		// Site isolation (Fission), Firefox's default, stated: the
		// responsiveness test depends on it.
		"fission.autostart":                          true,
		"fission.webContentIsolationStrategy":        1,
		"browser.shell.checkDefaultBrowser":          false,
		"browser.startup.homepage_override.mstone":   "ignore",
		"datareporting.policy.dataSubmissionEnabled": false,
		"toolkit.telemetry.reportingpolicy.firstRun": false,
	}
}

// browser returns the shared Firefox, starting it on first use. A Firefox
// that cannot start fails the test: the suite never skips.
func (f *firefoxProcess) browser(t *testing.T) *firefoxProcess {
	t.Helper()
	f.once.Do(f.start)
	if f.err != nil {
		t.Fatalf("Firefox could not start: %v\n%s", f.err, firefoxHint)
	}
	return f
}

func (f *firefoxProcess) start() {
	f.outputW.w = &f.output
	if err := f.launch(); err != nil {
		f.err = fmt.Errorf("%w\n%s", err, f.printed())
		f.stop()
	}
}

// launch starts Firefox with a profile of its own, then the driver, and
// waits until the driver is connected.
func (f *firefoxProcess) launch() error {
	path := os.Getenv("FILEFRAME_FIREFOX")
	if path == "" {
		path = firefoxPath
	}
	if _, err := exec.LookPath(path); err != nil {
		return err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(firefoxDriverDir, "node_modules", "puppeteer-core")); err != nil {
		return fmt.Errorf("puppeteer-core is not installed: %w", err)
	}
	if f.profile, err = os.MkdirTemp("", "fileframe-firefox-"); err != nil {
		return err
	}
	f.downloads = filepath.Join(f.profile, "downloads")
	if err := os.Mkdir(f.downloads, 0o755); err != nil {
		return err
	}
	var prefs strings.Builder
	for k, v := range firefoxPrefs(f.downloads) {
		j, _ := json.Marshal(v)
		fmt.Fprintf(&prefs, "user_pref(%q, %s);\n", k, j)
	}
	if err := os.WriteFile(filepath.Join(f.profile, "user.js"), []byte(prefs.String()), 0o644); err != nil {
		return err
	}
	ws, err := f.startFirefox(path)
	if err != nil {
		return err
	}
	return f.startDriver(node, ws)
}

// startFirefox starts Firefox and returns the address of its WebDriver
// BiDi server, which it prints on stderr.
func (f *firefoxProcess) startFirefox(path string) (string, error) {
	f.firefox = exec.Command(path, "--headless", "--no-remote", "--profile", f.profile,
		"--remote-debugging-port=0", "--width=1280", "--height=800", "about:blank")
	f.firefox.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1")
	// Its own process group, so that stop ends its content processes too.
	f.firefox.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	f.firefox.Stdout = &f.outputW
	stderr, err := f.firefox.StderrPipe()
	if err != nil {
		return "", err
	}
	if err := f.firefox.Start(); err != nil {
		return "", err
	}
	endpoint := make(chan string, 1)
	go func() {
		listening := regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			f.outputW.Write([]byte(line + "\n"))
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case endpoint <- m[1]:
				default:
				}
			}
		}
		close(endpoint)
	}()
	select {
	case ws := <-endpoint:
		if ws != "" {
			return ws, nil
		}
		return "", errors.New("Firefox exited without printing its WebDriver BiDi address")
	case <-time.After(browserStartTimeout):
		return "", fmt.Errorf("Firefox printed no WebDriver BiDi address within %v", browserStartTimeout)
	}
}

// startDriver starts driver.mjs on the BiDi server at ws and waits until it
// is connected.
func (f *firefoxProcess) startDriver(node, ws string) error {
	f.driver = exec.Command(node, "driver.mjs", ws+"/session")
	f.driver.Dir = firefoxDriverDir
	f.driver.Stderr = &f.outputW
	var err error
	if f.stdin, err = f.driver.StdinPipe(); err != nil {
		return err
	}
	stdout, err := f.driver.StdoutPipe()
	if err != nil {
		return err
	}
	if err := f.driver.Start(); err != nil {
		return err
	}
	f.pending = map[int]chan firefoxReply{0: make(chan firefoxReply, 1)}
	ready := f.pending[0]
	go f.read(stdout)
	select {
	case r := <-ready:
		if r.Error != "" {
			return errors.New(r.Error)
		}
		return nil
	case <-time.After(browserStartTimeout):
		return fmt.Errorf("the driver did not connect within %v", browserStartTimeout)
	}
}

// read dispatches the driver's replies to their callers.
func (f *firefoxProcess) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r firefoxReply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			f.outputW.Write([]byte("driver: " + sc.Text() + "\n"))
			continue
		}
		f.mu.Lock()
		ch := f.pending[r.ID]
		delete(f.pending, r.ID)
		f.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	f.mu.Lock()
	f.dead = fmt.Errorf("the Firefox driver stopped: %v", sc.Err())
	for id, ch := range f.pending {
		ch <- firefoxReply{ID: id, Error: f.dead.Error()}
		delete(f.pending, id)
	}
	f.mu.Unlock()
}

// call sends one request to the driver and decodes its result into out
// (when out is not nil).
func (f *firefoxProcess) call(ctx context.Context, method string, params map[string]any, out any) error {
	f.mu.Lock()
	if f.dead != nil {
		f.mu.Unlock()
		return f.dead
	}
	f.nextID++
	id := f.nextID
	ch := make(chan firefoxReply, 1)
	f.pending[id] = ch
	line, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	_, err := f.stdin.Write(append(line, '\n'))
	f.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case r := <-ch:
		if r.Error != "" {
			return fmt.Errorf("firefox %s: %s", method, r.Error)
		}
		if out == nil {
			return nil
		}
		return json.Unmarshal(r.Result, out)
	case <-ctx.Done():
		f.mu.Lock()
		delete(f.pending, id)
		f.mu.Unlock()
		return fmt.Errorf("firefox %s: %w", method, ctx.Err())
	}
}

// printed returns the end of what Firefox and the driver printed.
func (f *firefoxProcess) printed() string {
	f.outputW.mu.Lock()
	defer f.outputW.mu.Unlock()
	out := f.output.String()
	if len(out) > 16000 {
		out = out[len(out)-16000:]
	}
	return out
}

// printOutput writes what Firefox printed to stderr, if it ever started.
func (f *firefoxProcess) printOutput() {
	if f.firefox == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "\n--- what Firefox and its driver printed (the end) ---\n%s\n--- end of Firefox's output ---\n", f.printed())
}

func (f *firefoxProcess) stop() {
	if f.stdin != nil {
		f.stdin.Close()
	}
	if f.driver != nil && f.driver.Process != nil {
		done := make(chan struct{})
		go func() { f.driver.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			f.driver.Process.Kill()
		}
	}
	if f.firefox != nil && f.firefox.Process != nil {
		syscall.Kill(-f.firefox.Process.Pid, syscall.SIGKILL)
		f.firefox.Wait()
	}
	if f.profile != "" {
		os.RemoveAll(f.profile)
	}
}

// firefoxTarget is a tab of the shared Firefox, or one of its frames: what
// a Firefox test's contexts carry where a Chromium test's carry a chromedp
// target (see eval, navigate, click).
type firefoxTarget struct {
	f     *firefoxProcess
	page  int    // the driver's number of the tab
	frame string // "" for the tab's document, else the address prefix of one of its frames
}

type firefoxKey struct{}

// firefoxOf returns the Firefox target ctx carries, or nil for a chromedp
// context.
func firefoxOf(ctx context.Context) *firefoxTarget {
	ft, _ := ctx.Value(firefoxKey{}).(*firefoxTarget)
	return ft
}

// call sends a request about the target's tab (and frame) to the driver.
func (ft *firefoxTarget) call(ctx context.Context, method string, params map[string]any, out any) error {
	p := map[string]any{"page": ft.page, "frame": ft.frame}
	maps.Copy(p, params)
	return ft.f.call(ctx, method, p, out)
}

// inFrame returns a context of ctx's tab's frame whose address starts with
// prefix.
func (ft *firefoxTarget) inFrame(ctx context.Context, prefix string) context.Context {
	return context.WithValue(ctx, firefoxKey{}, &firefoxTarget{f: ft.f, page: ft.page, frame: prefix})
}

// openFirefoxTab opens the test's tab in a browser context of its own; its
// downloads go to the profile's one folder, emptied for the test.
func (b *browserEnv) openFirefoxTab(t *testing.T, f *firefoxProcess) {
	t.Helper()
	entries, err := os.ReadDir(f.downloads)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(f.downloads, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	b.downloads = f.downloads
	ctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
	defer cancel()
	var page int
	if err := f.call(ctx, "newPage", nil, &page); err != nil {
		t.Fatalf("opening a Firefox tab: %v", err)
	}
	b.tab = context.WithValue(context.Background(), firefoxKey{}, &firefoxTarget{f: f, page: page})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
		defer cancel()
		if err := f.call(ctx, "closePage", map[string]any{"page": page}, nil); err != nil {
			t.Errorf("closing the Firefox tab: %v", err)
		}
	})
}

// firefoxFrames lists the addresses of the Firefox tab's frames, its own
// document first.
func (b *browserEnv) firefoxFrames(t *testing.T) []string {
	t.Helper()
	var urls []string
	ctx, cancel := context.WithTimeout(b.tab, actionTimeout)
	defer cancel()
	if err := firefoxOf(b.tab).call(ctx, "frames", nil, &urls); err != nil {
		t.Fatal(err)
	}
	return urls
}

// firefoxClick sends a real left click at x, y of the Firefox tab's
// viewport. Firefox dispatches WebDriver BiDi input actions into the
// document of the browsing context they name: unlike a person's click,
// which the parent process routes across processes, a click sent to the
// tab never enters the out-of-process frame of the custom page (the outer
// page gets it, aimed at the iframe element). So the harness takes the
// first step of that routing itself: the outer page's own hit test,
// elementFromPoint, says whether the point is on a frame of the content
// origin; if it is, the click is sent to that frame, at the same point of
// its viewport.
func (b *browserEnv) firefoxClick(t *testing.T, x, y float64) {
	t.Helper()
	ft := firefoxOf(b.tab)
	at := eval[struct {
		Src  string
		X, Y float64
	}](t, b.tab, fmt.Sprintf(`(() => {
		const el = document.elementFromPoint(%g, %g);
		if (!el || el.tagName !== "IFRAME") return {Src: "", X: 0, Y: 0};
		const r = el.getBoundingClientRect();
		return {Src: el.src, X: r.x + el.clientLeft, Y: r.y + el.clientTop};
	})()`, x, y))
	target := ft
	if strings.HasPrefix(at.Src, b.contentOrigin()+"/") {
		target = firefoxOf(b.frame(t))
		x, y = x-at.X, y-at.Y
	}
	ctx, cancel := context.WithTimeout(b.tab, actionTimeout)
	defer cancel()
	if err := target.call(ctx, "click", map[string]any{"x": x, "y": y}, nil); err != nil {
		t.Fatal(err)
	}
}

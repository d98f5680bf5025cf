package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath is where Debian's chromium package (scripts/ensure-chromium)
// puts the browser; FILEFRAME_CHROMIUM overrides it, as for the browser
// tests.
const chromiumPath = "/usr/bin/chromium"

// Time limits: the browser's start, and one screenshot from navigation to
// the written image.
const (
	startTimeout   = 60 * time.Second
	captureTimeout = 30 * time.Second
)

// size is a window the screens are captured in.
type size struct {
	name          string // the file name's suffix
	width, height int64  // CSS pixels; the images are as wide (scale 1)
	mobile        bool   // a phone: mobile viewport rules and touch
}

// sizes are the two windows of every screen: a laptop and a phone (the CSS
// viewport of an iPhone 14 or 15). A device scale factor of 1 keeps the
// images small.
var sizes = []size{
	{name: "desktop", width: 1280, height: 800},
	{name: "phone", width: 390, height: 844, mobile: true},
}

// browser is a headless Chromium with one browser context (its own cookie
// jar) per person.
type browser struct {
	ctx    context.Context // the first tab, whose life is the browser's
	cancel context.CancelFunc
	dir    string // the profile directory
	tabs   map[person]*tab
}

// tab is a person's tab, with the errors its pages logged since the last
// capture.
type tab struct {
	ctx  context.Context
	mu   sync.Mutex
	page string // the address being captured
	log  []string
}

// chromiumFlags are switches of the browser: no sandbox (containers and CI
// run as root), nothing that talks to Google, no first-run screens; the
// same as the browser tests' (internal/web/browser_harness_test.go).
var chromiumFlags = []string{
	"no-sandbox", "disable-gpu", "disable-background-networking", "disable-quic",
	"no-first-run", "no-default-browser-check", "disable-component-update", "disable-sync",
	"hide-scrollbars", "mute-audio",
}

// disabledFeatures turns off the detector of dangling pointers that Debian's
// Chromium sets to crash the browser on its own bugs (see the browser tests'
// harness for the details).
const disabledFeatures = "PartitionAllocUnretainedDanglingPtr"

// startBrowser starts a headless Chromium that ends with ctx or close. It
// sends the host:port names of hosts to their addresses, and treats them as
// secure origins, as the https of production would make them.
func startBrowser(ctx context.Context, hosts map[string]string) (_ *browser, err error) {
	path := os.Getenv("FILEFRAME_CHROMIUM")
	if path == "" {
		path = chromiumPath
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no Chromium at %s (run scripts/ensure-chromium, or set FILEFRAME_CHROMIUM): %w", path, err)
	}
	dir, err := os.MkdirTemp("", "fileframe-screenshots-chromium-")
	if err != nil {
		return nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(dir),
		chromedp.Flag("headless", "new"),
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-features", disabledFeatures),
	}
	for _, f := range chromiumFlags {
		opts = append(opts, chromedp.Flag(f, true))
	}
	var rules, origins []string
	for name, addr := range hosts {
		rules = append(rules, "MAP "+name+" "+addr)
		origins = append(origins, "http://"+strings.TrimSuffix(name, ":80"))
	}
	opts = append(opts,
		chromedp.Flag("host-resolver-rules", strings.Join(rules, ",")),
		chromedp.Flag("unsafely-treat-insecure-origin-as-secure", strings.Join(origins, ",")))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	b := &browser{ctx: tabCtx, dir: dir, tabs: map[person]*tab{}}
	b.cancel = func() { cancelTab(); cancelAlloc() }
	// The first Do starts the browser and binds its life to tabCtx, so it
	// cannot take a deadline; a watchdog stops a start that hangs.
	watchdog := time.AfterFunc(startTimeout, b.cancel)
	err = chromedp.Do(tabCtx)
	if !watchdog.Stop() {
		err = fmt.Errorf("Chromium did not start within %v: %w", startTimeout, err)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("starting Chromium at %s: %w", path, err), b.close())
	}
	return b, nil
}

// close stops the browser and removes its profile.
func (b *browser) close() error {
	b.cancel()
	return os.RemoveAll(b.dir)
}

// tabOf returns the person's tab, opening it in a browser context of its own
// with the cookies the person's client holds for the app origin.
func (b *browser) tabOf(p person, cookies []*http.Cookie) (*tab, error) {
	if t, ok := b.tabs[p]; ok {
		return t, nil
	}
	ctx, _ := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext()) // ends with the browser
	t := &tab{ctx: ctx}
	watchdog := time.AfterFunc(captureTimeout, func() { chromedp.Cancel(ctx) })
	err := chromedp.Do(ctx)
	if !watchdog.Stop() || err != nil {
		return nil, fmt.Errorf("opening a tab for %s: %v", p, err)
	}
	if err := chromedp.Listen(ctx, t.record); err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, captureTimeout)
	defer cancel()
	_, err = chromedp.Run(sctx, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		for _, c := range cookies {
			_, err := cdp.Call(ctx, target, network.SetCookie, network.SetCookieParams{
				Name: c.Name, Value: c.Value, URL: appOrigin, Path: "/", HTTPOnly: new(true),
				SameSite: network.CookieSameSiteLax,
			})
			if err != nil {
				return err
			}
		}
		if _, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: frameWatch}); err != nil {
			return err
		}
		// Pages that animate show their final state.
		_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
		})
		return err
	}))
	if err != nil {
		return nil, fmt.Errorf("preparing the tab of %s: %w", p, err)
	}
	b.tabs[p] = t
	return t, nil
}

// record keeps the errors a page logs (CSP violations and failed loads
// among them) and its uncaught exceptions.
func (t *tab) record(ev any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var msg string
	switch ev := ev.(type) {
	case *log.EventEntryAdded:
		// Warnings are left out: every page has some about the features
		// of its Permissions-Policy that this Chromium does not know
		// (public_file.go lists too many on purpose). The failed load of
		// a page that must answer an error status is what the screen
		// shows.
		if ev.Entry.Level != log.EntryLevelError || ev.Entry.Source == log.EntrySourceNetwork && ev.Entry.URL == t.page {
			return
		}
		msg = fmt.Sprintf("the page logged: %s (%s)", ev.Entry.Text, ev.Entry.URL)
	case *runtime.EventExceptionThrown:
		msg = "uncaught exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			msg += " " + ev.ExceptionDetails.Exception.Description
		}
	default:
		return
	}
	t.log = append(t.log, msg)
}

// takeLog returns what the tab logged since the last call.
func (t *tab) takeLog() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.log
	t.log = nil
	return l
}

// frameWatch runs in every document before its own scripts and notes each
// of its frames that fires load. A frame of another origin cannot be asked
// whether it is loaded, but its element's load event reaches the parent's
// document (not its window: https://dom.spec.whatwg.org/#get-the-parent).
const frameWatch = `window.__screenshotFrames = new WeakSet();
document.addEventListener("load", e => {
	if (e.target instanceof HTMLIFrameElement) window.__screenshotFrames.add(e.target);
}, true);`

// settled resolves once the page is ready to be photographed: its fonts
// loaded, its images decoded (else a large one may be painted from a rougher
// decode on one run than on the next), every frame that has an address loaded (those added or made
// visible after the page's load event too: lazy frames load once the window
// is as tall as the page), and two more frames painted. It resolves false
// when a frame does not load within 5 seconds.
const settled = `(async () => {
	await document.fonts.ready;
	await Promise.all([...document.images].map(i => i.decode().catch(() => {})));
	const loaded = () => [...document.querySelectorAll("iframe[src]")].every(f => window.__screenshotFrames.has(f));
	for (let i = 0; i < 200 && !loaded(); i++) await new Promise(r => setTimeout(r, 25));
	await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
	return loaded();
})()`

// capture loads rawURL in the tab at size sz and returns a screenshot of
// the whole page as PNG. The page must answer want, and must not redirect:
// a screen that sent its visitor to the sign-in page is not that screen.
//
// The whole page is photographed by making the window as tall as the page
// and capturing the window. Chromium's own full-page capture
// (captureBeyondViewport, chromedp.FullScreenshot) lays the page out again
// at its content size, which a scrolling table can make wider than the
// window: the phone's image came out 901 pixels wide with the page in its
// left part. A page that is really wider than the window is reported in
// warnings, not captured wider.
func (t *tab) capture(rawURL, click string, sz size, want int) (img []byte, warnings []string, err error) {
	ctx, cancel := context.WithTimeout(t.ctx, captureTimeout)
	defer cancel()
	t.mu.Lock()
	t.page = rawURL
	t.mu.Unlock()
	if err := t.resize(ctx, sz, sz.height); err != nil {
		return nil, nil, err
	}
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(rawURL))
	if err := checkResponse(rawURL, resp, err, want); err != nil {
		return nil, nil, err
	}
	if click != "" {
		resp, err := chromedp.RunResponse(ctx, chromedp.Click(click))
		if err := checkResponse(rawURL, resp, err, want); err != nil {
			return nil, nil, fmt.Errorf("after a click on %s: %w", click, err)
		}
	}
	if err := settle(ctx, rawURL); err != nil {
		return nil, nil, err
	}
	extent, err := chromedp.Run(ctx, chromedp.Evaluate[struct{ Width, Height int64 }](
		`({Width: document.documentElement.scrollWidth, Height: document.documentElement.scrollHeight})`))
	if err != nil {
		return nil, nil, err
	}
	if extent.Width > sz.width {
		warnings = append(warnings, fmt.Sprintf("the page is %d pixels wide, wider than the %d-pixel window", extent.Width, sz.width))
	}
	if extent.Height > sz.height {
		if err := t.resize(ctx, sz, extent.Height); err != nil {
			return nil, nil, err
		}
		if err := settle(ctx, rawURL); err != nil {
			return nil, nil, err
		}
	}
	if err := t.settleFrames(ctx); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", rawURL, err)
	}
	img, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return nil, nil, err
	}
	img, warning, err := t.waitFramePaint(ctx, img)
	if warning != "" {
		warnings = append(warnings, warning)
	}
	return img, warnings, err
}

// frameSettled resolves once a frame's document is loaded and drawn: its
// load event fired, its fonts loaded, its images decoded, and two more of
// its frames painted.
const frameSettled = `(async () => {
	if (document.readyState !== "complete") await new Promise(r => addEventListener("load", r, {once: true}));
	await document.fonts.ready;
	await Promise.all([...document.images].map(i => i.decode().catch(() => {})));
	await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
	return true;
})()`

// settleFrames waits, in each frame of the tab that runs in a process of its
// own (a cross-site frame, such as a custom page on the content origin), until
// frameSettled resolves, then for two more frames of the page. The page's
// own settled sees such a frame's load event, but not whether the frame's
// renderer has painted since: the published custom page came out as an
// empty page behind the control
// (https://www.chromium.org/developers/design-documents/oop-iframes/: an
// out-of-process frame draws into its own surface, which the page's
// compositor joins when it arrives).
func (t *tab) settleFrames(ctx context.Context) error {
	self := chromedp.FromContext(ctx).Target.TargetID
	all, err := chromedp.Targets(ctx)
	if err != nil {
		return err
	}
	var browserContext cdp.BrowserContextID
	for _, info := range all {
		if info.TargetID == self {
			browserContext = info.BrowserContextID
		}
	}
	for _, info := range all {
		if info.Type != "iframe" || info.BrowserContextID != browserContext {
			continue
		}
		// Detach, never close, when done: closing a frame's target
		// would close the tab.
		fctx, cancel := chromedp.NewContext(t.ctx, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel())
		// The frame's context is bounded by ctx's deadline.
		stop := context.AfterFunc(ctx, cancel)
		_, err := chromedp.Run(fctx, chromedp.Evaluate[bool](frameSettled, chromedp.EvalAwaitPromise))
		stop()
		cancel()
		if err != nil {
			return fmt.Errorf("waiting for its frame %s to paint: %w", info.URL, err)
		}
	}
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise))
	return err
}

// frameArea gives the screenshot's areas that its frames cover, less the
// download control drawn over them, in CSS pixels (the images are at scale
// 1).
const frameArea = `(() => {
	const box = el => { const r = el.getBoundingClientRect(); return {X: Math.round(r.x), Y: Math.round(r.y), W: Math.round(r.width), H: Math.round(r.height)}; };
	const control = document.querySelector(".ff-control");
	return {
		Frames: [...document.querySelectorAll("iframe[src]")].map(box),
		Control: control ? box(control) : null,
	};
})()`

type pixelBox struct{ X, Y, W, H int }

func (b *pixelBox) contains(x, y int) bool {
	return b != nil && x >= b.X && x < b.X+b.W && y >= b.Y && y < b.Y+b.H
}

// framePaintTimeout bounds the wait for a frame's content in the image.
const framePaintTimeout = 5 * time.Second

// waitFramePaint returns img once every frame's area in it shows content (see
// painted), taking the screenshot again until it does, for at most
// framePaintTimeout. A frame still blank then is reported in warning: a
// custom page may be one plain colour, though the demo's are not.
func (t *tab) waitFramePaint(ctx context.Context, img []byte) (_ []byte, warning string, err error) {
	area, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Frames  []pixelBox
		Control *pixelBox
	}](frameArea))
	if err != nil || len(area.Frames) == 0 {
		return img, "", err
	}
	deadline := time.Now().Add(framePaintTimeout)
	for {
		blank, err := blankFrame(img, area.Frames, area.Control)
		if err != nil || blank < 0 {
			return img, "", err
		}
		if time.Now().After(deadline) {
			return img, fmt.Sprintf("frame %d shows one colour after %v: an empty page?", blank, framePaintTimeout), nil
		}
		time.Sleep(100 * time.Millisecond)
		if img, err = chromedp.Run(ctx, chromedp.CaptureScreenshot()); err != nil {
			return nil, "", err
		}
	}
}

// blankFrame returns the index of the first of frames that shows a single
// colour in img, outside control, or -1 when each shows more. It samples a
// grid of points: a page that has painted its text, pictures or borders
// differs somewhere on it; one that has painted nothing, or only its
// background, does not.
func blankFrame(img []byte, frames []pixelBox, control *pixelBox) (int, error) {
	m, err := png.Decode(bytes.NewReader(img))
	if err != nil {
		return 0, err
	}
	const steps = 64
	for i, f := range frames {
		colours := map[color.RGBA]bool{}
		for sy := range steps {
			for sx := range steps {
				x, y := f.X+f.W*sx/steps, f.Y+f.H*sy/steps
				if control.contains(x, y) || !image.Pt(x, y).In(m.Bounds()) {
					continue
				}
				r, g, b, a := m.At(x, y).RGBA()
				colours[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}] = true
			}
		}
		if len(colours) <= 1 {
			return i, nil
		}
	}
	return -1, nil
}

// checkResponse says what is wrong with the answer to a navigation to
// rawURL (a loading error, another status than want, or a redirect away),
// or returns nil.
func checkResponse(rawURL string, resp *network.Response, err error, want int) error {
	switch {
	case err != nil:
		return fmt.Errorf("loading %s: %w", rawURL, err)
	case resp == nil:
		return fmt.Errorf("loading %s: no answer", rawURL)
	case int(resp.Status) != want:
		return fmt.Errorf("%s answered %d %s, want %d", rawURL, resp.Status, resp.StatusText, want)
	case resp.URL != rawURL:
		return fmt.Errorf("%s redirected to %s", rawURL, resp.URL)
	}
	return nil
}

// resize sets the window to sz's width and the given height, with sz's
// mobile emulation.
func (t *tab) resize(ctx context.Context, sz size, height int64) error {
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
	if sz.mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	_, err := chromedp.Run(ctx, chromedp.EmulateViewport(sz.width, height, opts...))
	return err
}

// settle waits until the page is ready to be photographed (see settled).
func settle(ctx context.Context, rawURL string) error {
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](settled, chromedp.EvalAwaitPromise))
	if err != nil {
		return fmt.Errorf("waiting for %s to settle: %w", rawURL, err)
	}
	if !ok {
		return fmt.Errorf("%s: a frame of the page did not load", rawURL)
	}
	return nil
}

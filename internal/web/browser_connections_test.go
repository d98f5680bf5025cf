package web

// Connections that the content origin's CSP does not govern: WebRTC (STUN
// and TURN servers, ICE candidates), resource hints (preconnect,
// dns-prefetch), srcdoc frames and Firefox's connections to a link's host,
// closed in Chromium by the Connection-Allowlist header (policy.go,
// sandboxHeaders) and in Firefox by the prelude (content_prelude.go); and
// the zero-egress test (21), which tries every way out at once. The
// attacker's listeners here are not only HTTP servers but a UDP socket, a
// TCP socket and a TLS server on 127.0.0.1 that record whatever reaches
// them.

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"image/color"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// netProbe is the attacker's listeners of other protocols than HTTP: a UDP
// socket (STUN and TURN over UDP, ICE connectivity checks), a TCP socket
// (TURN over TCP, connections to http: hosts) and a TLS server (the server
// name of connections to https: hosts), all on 127.0.0.1.
type netProbe struct {
	udp net.PacketConn
	tcp net.Listener
	tls *httptest.Server

	mu   sync.Mutex
	hits []string
}

func newNetProbe(t *testing.T) *netProbe {
	t.Helper()
	p := &netProbe{}
	var err error
	if p.udp, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.udp.Close() })
	if p.tcp, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.tcp.Close() })
	p.tls = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.add("https request for " + r.Host + r.URL.Path)
	}))
	p.tls.TLS = &tls.Config{GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		p.add("TLS hello for " + hello.ServerName)
		return nil, nil
	}}
	p.tls.StartTLS()
	t.Cleanup(p.tls.Close)
	go p.readUDP()
	go p.acceptTCP()
	return p
}

func (p *netProbe) add(hit string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hits = append(p.hits, hit)
}

func (p *netProbe) readUDP() {
	buf := make([]byte, 2048)
	for {
		n, _, err := p.udp.ReadFrom(buf)
		if err != nil {
			return
		}
		p.add(stunKind(buf[:n]) + " over UDP")
	}
}

func (p *netProbe) acceptTCP() {
	for {
		c, err := p.tcp.Accept()
		if err != nil {
			return
		}
		p.add("TCP connection")
		go func() {
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 2048)
			if n, _ := c.Read(buf); n > 0 {
				p.add(stunKind(buf[:n]) + " over TCP")
			}
		}()
	}
}

// stunKind names a STUN message (RFC 8489, RFC 8656): a binding request
// (to a STUN server, or with a USERNAME an ICE connectivity check to a
// peer) or a TURN allocate request; anything else by its size.
func stunKind(b []byte) string {
	const magicCookie = 0x2112A442
	if len(b) < 20 || binary.BigEndian.Uint32(b[4:8]) != magicCookie {
		return strconv.Itoa(len(b)) + " bytes"
	}
	switch binary.BigEndian.Uint16(b[0:2]) {
	case 0x0001:
		for attrs := b[20:]; len(attrs) >= 4; {
			typ, size := binary.BigEndian.Uint16(attrs[0:2]), int(binary.BigEndian.Uint16(attrs[2:4]))
			if typ == 0x0006 { // USERNAME
				return "ICE connectivity check"
			}
			attrs = attrs[min(len(attrs), 4+(size+3)/4*4):]
		}
		return "STUN binding request"
	case 0x0003:
		return "TURN allocate request"
	default:
		return fmt.Sprintf("STUN message 0x%04x", binary.BigEndian.Uint16(b[0:2]))
	}
}

// seen returns the hits so far.
func (p *netProbe) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.hits)
}

func (p *netProbe) port(a net.Addr) string {
	_, port, _ := net.SplitHostPort(a.String())
	return port
}

// page fills in the hostile page name's placeholders for the probe:
// {{UDP}}, {{TCP}} (also as {{HTTP}}), {{HTTPS}} and {{SECRET}}.
func (p *netProbe) page(b *browserEnv, name, secret string) []byte {
	tcp := p.port(p.tcp.Addr())
	return b.hostile(name, "{{UDP}}", p.port(p.udp.LocalAddr()), "{{TCP}}", tcp, "{{HTTP}}", tcp,
		"{{HTTPS}}", p.port(p.tls.Listener.Addr()), "{{SECRET}}", secret)
}

// secretLabel is a secret a page tries to send out in a host name.
func secretLabel() string {
	return "secret-" + strings.ToLower(fileframe.RandomBase62(10))
}

// tryWebRTC shows 18-webrtc.html as the custom page and returns what
// reached the probe once the page is done and quietPeriod more.
func (b *browserEnv) tryWebRTC(t *testing.T) []string {
	t.Helper()
	probe := newNetProbe(t)
	b.open(t, probe.page(b, "18-webrtc.html", secretLabel()))
	res := b.results(t)
	if len(res) < 7 {
		t.Fatalf("the page recorded %d outcomes, want one per attempt: did it run?", len(res))
	}
	b.checkNoRequests(t) // and waits quietPeriod
	return probe.seen()
}

// 18. WebRTC: an RTCPeerConnection whose constructor the page names only at
// run time, with a STUN server, with TURN servers over UDP and TCP
// (relay only), and with the attacker's address as a remote ICE candidate;
// and the constructor taken from an about:blank and a srcdoc frame of the
// page's own: nothing reaches the attacker's UDP or TCP listener, in
// Chromium and in Firefox. No CSP directive governs WebRTC. In Chromium the
// content origin's Connection-Allowlist (webrtc=block) stops it; Firefox
// implements neither that header nor CSP's webrtc directive, and there the
// prelude the content origin puts before the page's own scripts
// (content_prelude.go) removes the constructor from the page's window.
func TestBrowserNoWebRTC(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, b *browserEnv) {
		if hits := b.tryWebRTC(t); len(hits) > 0 {
			t.Errorf("%d packet(s) or connection(s) reached the attacker's listeners, want none:\n\t%s", len(hits), strings.Join(hits, "\n\t"))
		}
	})
}

// tryResourceHints shows 19-resource-hints.html as the custom page, clicks
// its <a ping>, and returns what reached the probe once the page is done
// and quietPeriod more.
func (b *browserEnv) tryResourceHints(t *testing.T, secret string) []string {
	t.Helper()
	probe := newNetProbe(t)
	b.open(t, probe.page(b, "19-resource-hints.html", secret))
	b.clickInFrame(t, "#ping")
	b.results(t)
	time.Sleep(quietPeriod)
	return probe.seen()
}

// 19. Resource hints to http: and https: hosts: <link rel=preconnect> in
// the markup and built by script, <link rel=dns-prefetch> (after a <meta> that tries
// to turn DNS prefetching back on), a preconnect in a <meta http-equiv=Link>,
// speculation rules (prefetch and prerender) and a clicked <a ping>: no
// connection reaches the attacker's TCP listener and no request its HTTP
// server, no TLS hello its TLS listener. CSP does not govern preconnect and
// dns-prefetch; the content origin's Connection-Allowlist admits the asset
// path alone, and its
// X-DNS-Prefetch-Control: off stops DNS prefetching for good (the suite's
// browsers resolve *.test locally, so it cannot watch DNS queries).
//
// The test runs in a person's kind of profile (persistentProfile): Chromium
// preconnects from no incognito context. In Firefox the markup's hints do
// connect (TestBrowserResidualFirefoxMarkupHints); the API refuses them.
func TestBrowserNoHTTPResourceHints(t *testing.T) {
	t.Parallel()
	for _, v := range variants {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			b := newBrowserEnvWith(t, envConfig{engine: chromium, variant: v, persistentProfile: true})
			for _, hit := range b.tryResourceHints(t, secretLabel()) {
				t.Errorf("reached the attacker: %s", hit)
			}
			b.checkNoRequests(t)
		})
	}
}

// The known residual of resource hints (docs/security.md, "Zero egress"),
// proven so that the documentation states facts.

// A resource hint in the markup still connects in Firefox, before any
// script runs: the prelude cannot reach what the parser makes, and Firefox
// consults no policy of the document before a preconnect. The API refuses
// such a page (htmlcheck's sandbox.resource_hint), so only a page that got
// past the checker could do it; this one is stored below the API. The
// same page's script-built hints reach nothing (the prelude), and in
// Chromium nothing at all does (Connection-Allowlist).
func TestBrowserResidualFirefoxMarkupHints(t *testing.T) {
	t.Parallel()
	for _, eng := range []engine{chromium, firefox} {
		t.Run(string(eng), func(t *testing.T) {
			t.Parallel()
			b := newBrowserEnvWith(t, envConfig{engine: eng, variant: published, persistentProfile: true})
			if a := b.post(t, b.hostile("19-resource-hints.html")); a.Status != http.StatusUnprocessableEntity || !slices.Contains(a.rules(), "sandbox.resource_hint") {
				t.Errorf("the API answered %d %v to the page, want 422 with sandbox.resource_hint", a.Status, a.rules())
			}
			secret := secretLabel()
			hits := b.tryResourceHints(t, secret)
			t.Logf("reached the attacker:\n\t%s", strings.Join(hits, "\n\t"))
			tcp := 0
			for _, hit := range hits {
				switch {
				case hit == "TCP connection":
					tcp++
				default:
					t.Errorf("reached the attacker: %s (only the markup's http: preconnects may, in Firefox)", hit)
				}
			}
			switch {
			case eng == chromium && tcp > 0:
				t.Errorf("%d connection(s) to the http: listener in Chromium, want none (TestBrowserNoHTTPResourceHints)", tcp)
			case eng == firefox && tcp == 0:
				t.Errorf("no connection to the http: listener in Firefox: has Firefox closed the gap? Update docs/security.md")
			}
			b.checkNoRequests(t) // no ping, no speculation rules, in either
		})
	}
}

// The control experiment of the tests above: 18-webrtc.html and
// 19-resource-hints.html, shown in a plain frame of the attacker's own site
// (no sandbox, no CSP, no Connection-Allowlist) in Chromium, do reach the
// listeners. Without it, "nothing arrived" could mean a page that never
// tried, or listeners the browser cannot reach.
func TestBrowserConnectionPagesWorkWithoutSandbox(t *testing.T) {
	t.Parallel()
	pages := []struct {
		name string
		want []string
	}{
		{"18-webrtc.html", []string{"STUN binding request over UDP", "TURN allocate request over UDP", "TURN allocate request over TCP", "ICE connectivity check over UDP"}},
		{"19-resource-hints.html", []string{"TCP connection", "TLS hello for "}},
	}
	for _, p := range pages {
		t.Run(strings.TrimSuffix(p.name, ".html"), func(t *testing.T) {
			t.Parallel()
			b := newBrowserEnvWith(t, envConfig{engine: chromium, variant: published, persistentProfile: true})
			probe := newNetProbe(t)
			b.evil.host(p.name, probe.page(b, p.name, secretLabel()))
			b.navigate(t, b.evil.host("wrapper", []byte(`<!doctype html><title>wrapper</title>`+
				`<iframe src="/host/`+p.name+`" width="800" height="600"></iframe>`)))
			poll(t, "the page to reach the listeners", func() bool {
				hits := probe.seen()
				for _, w := range p.want {
					if !slices.ContainsFunc(hits, func(h string) bool { return strings.HasPrefix(h, w) }) {
						return false
					}
				}
				return true
			})
		})
	}
}

// The control experiment of TestBrowserZeroEgress: 20-egress.html in a
// plain frame of the attacker's own site (no sandbox, no CSP, no
// Connection-Allowlist, no prelude) does reach the listeners, in both
// engines: its images, style sheets, fonts, script-built hints, fetches,
// srcdoc frame and beacon.
func TestBrowserEgressPageWorksWithoutSandbox(t *testing.T) {
	t.Parallel()
	for _, eng := range []engine{chromium, firefox} {
		t.Run(string(eng), func(t *testing.T) {
			t.Parallel()
			b := newBrowserEnvWith(t, envConfig{engine: eng, variant: published, persistentProfile: true})
			probe := newNetProbe(t)
			b.evil.host("20-egress.html", probe.page(b, "20-egress.html", secretLabel()))
			b.navigate(t, b.evil.host("wrapper", []byte(`<!doctype html><title>wrapper</title>`+
				`<iframe src="/host/20-egress.html" width="800" height="600"></iframe>`)))
			// Connections, not requests: a browser may carry many of the
			// page's requests over one connection, so the test counts the
			// hosts that got one and wants a script-built hint among them.
			reached := func() bool {
				hosts, hint := 0, false
				for _, h := range probe.seen() {
					if strings.HasPrefix(h, "TLS hello for ") {
						hosts++
						hint = hint || strings.HasPrefix(h, "TLS hello for link-")
					}
				}
				return hosts >= 5 && hint
			}
			for deadline := time.Now().Add(waitTimeout); !reached(); time.Sleep(pollInterval) {
				if time.Now().After(deadline) {
					t.Fatalf("after %v the listeners saw:\n\t%s\nwant TLS hellos for 5 hosts, a script-built hint's among them", waitTimeout, strings.Join(probe.seen(), "\n\t"))
				}
			}
		})
	}
}

// stunKind must tell the messages apart for the tests above to say what
// reached the attacker.
func TestSTUNKind(t *testing.T) {
	msg := func(typ uint16, attrs ...byte) []byte {
		b := binary.BigEndian.AppendUint16(nil, typ)
		b = binary.BigEndian.AppendUint16(b, uint16(len(attrs)))
		b = binary.BigEndian.AppendUint32(b, 0x2112A442)
		b = append(b, bytes.Repeat([]byte{7}, 12)...)
		return append(b, attrs...)
	}
	for _, tt := range []struct {
		in   []byte
		want string
	}{
		{msg(0x0001), "STUN binding request"},
		{msg(0x0001, 0x80, 0x22, 0, 3, 'f', 'o', 'o', 0, 0, 0x06, 0, 4, 'u', 's', 'e', 'r'), "ICE connectivity check"},
		{msg(0x0003, 0, 0x19, 0, 4, 17, 0, 0, 0), "TURN allocate request"},
		{msg(0x0101), "STUN message 0x0101"},
		{[]byte("GET / HTTP/1.1\r\n\r\n"), "18 bytes"},
	} {
		if got := stunKind(tt.in); got != tt.want {
			t.Errorf("stunKind(% x) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// An uploaded script is no script: the attacker's site loads a file of the
// app origin, uploaded as payload.js, with <script src>, and it does not
// run (application/octet-stream with nosniff), in both engines. Without
// that, any account could host scripts on the app origin, which the app's
// own CSP (script-src 'self') would then admit.
func TestBrowserUploadsDoNotRun(t *testing.T) {
	t.Parallel()
	for _, eng := range []engine{chromium, firefox} {
		t.Run(string(eng), func(t *testing.T) {
			t.Parallel()
			b := newBrowserEnvWith(t, envConfig{engine: eng, variant: published})
			info, err := b.blobs.Put(context.Background(), strings.NewReader(`window.pwned = "ran";`))
			if err != nil {
				t.Fatal(err)
			}
			f, err := b.store.CreateFile(context.Background(), fileframe.File{
				AccountID: b.account.ID, Name: "payload.js", Size: info.Size, BlobKey: info.Key,
				ContentType: "text/javascript; charset=utf-8",
			})
			if err != nil {
				t.Fatal(err)
			}
			b.navigate(t, b.evil.host("loader", []byte(`<!doctype html><title>loader</title>`+
				`<script src="`+b.appOrigin()+`/f/`+f.Slug+`/download" onload="window.loaded='load'" onerror="window.loaded='error'"></script>`)))
			poll(t, "the script tag to settle", func() bool { return eval[string](t, b.tab, `String(window.loaded)`) != "undefined" })
			if got := eval[string](t, b.tab, `String(window.pwned)`); got != "undefined" {
				t.Errorf("the uploaded script ran: window.pwned = %q", got)
			}
		})
	}
}

// forEveryVisitor runs test in both engines for both variants, as parallel
// subtests: chromium/published, chromium/preview, firefox/published,
// firefox/preview. Chromium runs in a person's kind of profile
// (persistentProfile), the only one from which it preconnects.
func forEveryVisitor(t *testing.T, test func(t *testing.T, b *browserEnv)) {
	t.Helper()
	for _, eng := range []engine{chromium, firefox} {
		for _, v := range variants {
			t.Run(string(eng)+"/"+string(v), func(t *testing.T) {
				t.Parallel()
				test(t, newBrowserEnvWith(t, envConfig{engine: eng, variant: v, persistentProfile: eng == chromium}))
			})
		}
	}
}

// tryEgress shows 20-egress.html as the custom page, clicks its link to
// the attacker's site last (a click navigates the frame, when it can), and
// returns what reached the attacker's listeners and logging server once the
// page is done and quietPeriod more.
func (b *browserEnv) tryEgress(t *testing.T, probe *netProbe) ([]string, []evilRequest) {
	t.Helper()
	b.open(t, probe.page(b, "20-egress.html", secretLabel()))
	res := b.results(t)
	if len(res) < 60 {
		t.Fatalf("the page recorded %d outcomes, want one per attempt: did it run?", len(res))
	}
	// A real click, unconfirmed: the frame's document may be gone
	// afterwards. The control experiment proves that the same click reaches
	// the attacker's listener when nothing stops it.
	frame := b.frame(t)
	eval[bool](t, frame, painted)
	x, y := rect(t, frame, "#away").center()
	b.click(t, x, y)
	time.Sleep(quietPeriod)
	return probe.seen(), b.evil.requests()
}

// 21. Zero egress: a page whose script builds, at run time, an address of
// its own on the attacker's listeners for every kind of request a page can
// make (images, srcset, SVG references, CSS properties, inserted and
// constructed style sheets, @import, @font-face and the FontFace API, audio,
// video, posters and tracks, every <link rel> in every way the DOM offers,
// <meta http-equiv=Link>, speculation rules, a srcdoc frame with scripts of
// its own, fetch, XHR, WebSocket, EventSource, sendBeacon, WebTransport,
// import(), a worker, a form, window.open, history, media session artwork)
// and then gets a real click on a link to the attacker's site: nothing
// reaches the attacker, no TCP connection, no TLS hello, no UDP packet,
// no request, in Chromium and in Firefox, published and in preview.
func TestBrowserZeroEgress(t *testing.T) {
	t.Parallel()
	forEveryVisitor(t, func(t *testing.T, b *browserEnv) {
		probe := newNetProbe(t)
		hits, requests := b.tryEgress(t, probe)
		if len(hits) > 0 {
			t.Errorf("%d connection(s) or packet(s) reached the attacker's listeners, want none:\n\t%s", len(hits), strings.Join(hits, "\n\t"))
		}
		if len(requests) > 0 {
			t.Errorf("%d request(s) reached %s, want none:\n%s", len(requests), evilHost, fmtRequests(requests))
		}
	})
}

// A page's remote images are shown, from Fileframe's copies: the page
// names an image on a third party's https host in its markup and its CSS;
// the server fetches each once when the page is stored, and the visitor's
// browser loads them from the content origin's /a/ path and never reaches
// the host. An image the same page builds by script at run time reaches
// nobody, and an image under another path of the content origin does not
// load (the policies name the asset path alone). In both engines, for the
// published page and its preview.
func TestBrowserRemoteImagesShown(t *testing.T) {
	t.Parallel()
	forEveryVisitor(t, func(t *testing.T, b *browserEnv) {
		host := newAssetHost(t, "cdn.assets.test")
		hero := host.put("/hero.png", "image/png", solidPNG(t, 30, 20, color.RGBA{200, 30, 30, 255}))
		bg := host.put("/bg.png", "image/png", solidPNG(t, 8, 8, color.RGBA{30, 30, 200, 255}))
		host.put("/runtime.png", "image/png", solidPNG(t, 2, 2, color.RGBA{0, 0, 0, 255}))
		b.open(t, []byte(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Assets</title>
<style>#bg{width:16px;height:16px;background:url("`+bg+`")}</style></head><body>
<img id="hero" src="`+hero+`" alt="">
<img id="elsewhere" alt="">
<img id="runtime" alt="">
<div id="bg"></div>
<script>
window.results = {};
const settle = i => new Promise(r => {
  if (i.complete && i.src) r(i.naturalWidth ? "loaded" : "failed"); else { i.onload = () => r("loaded"); i.onerror = () => r("failed"); } });
const css = getComputedStyle(document.getElementById("bg")).backgroundImage.slice(5, -2);
const bgImg = new Image(); bgImg.src = css;
const rt = document.getElementById("runtime"); rt.src = "`+host.origin+`/runtime.png";
document.getElementById("elsewhere").src = "`+b.contentOrigin()+`/elsewhere/x.png";
Promise.all([settle(document.getElementById("hero")), settle(document.getElementById("elsewhere")), settle(bgImg), settle(rt)]).then(([h, e, g, r]) => {
  Object.assign(results, {hero: h, heroSrc: document.getElementById("hero").currentSrc, elsewhere: e, bg: g, bgSrc: css, runtime: r});
  document.documentElement.dataset.done = "1"; });
</script></body></html>`))
		res := b.results(t)
		asset := b.contentOrigin() + "/a/"
		if res["hero"] != "loaded" || !strings.HasPrefix(fmt.Sprint(res["heroSrc"]), asset) {
			t.Errorf("the <img>: %v from %v, want loaded from %s…", res["hero"], res["heroSrc"], asset)
		}
		if res["bg"] != "loaded" || !strings.HasPrefix(fmt.Sprint(res["bgSrc"]), asset) {
			t.Errorf("the CSS background: %v from %v, want loaded from %s…", res["bg"], res["bgSrc"], asset)
		}
		if res["elsewhere"] != "failed" || res["runtime"] != "failed" {
			t.Errorf("an image under /elsewhere/ %v, one built by script %v, want both failed", res["elsewhere"], res["runtime"])
		}
		// The server fetched each once, when the page was stored; the
		// browser reached the host never.
		if h, g, r := host.requests("/hero.png"), host.requests("/bg.png"), host.requests("/runtime.png"); h != 1 || g != 1 || r != 0 {
			t.Errorf("requests at the image host: hero %d, background %d, script-built %d; want 1, 1, 0", h, g, r)
		}
		b.checkNoRequests(t)
	})
}

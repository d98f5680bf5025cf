package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// files are what the public server serves at /f/{name}, each with a
// Content-Type that Fetch must not believe.
func files(t testing.TB) map[string]struct {
	body []byte
	typ  string
} {
	type file = struct {
		body []byte
		typ  string
	}
	return map[string]file{
		"png":           {pngFile(t), "application/octet-stream"},
		"jpeg":          {jpegFile(t), "image/png"},
		"gif":           {gifFile(t), "text/html"},
		"webp-lossless": {readTestdata(t, "gopher-doc.1bpp.lossless.webp"), "image/webp"},
		"webp-lossy":    {readTestdata(t, "blue-purple-pink.lossy.webp"), "image/webp"},
		"bmp":           {bmpFile(t), "image/bmp"},
		"ttf":           {ttfFile(), "font/ttf"},
		"woff":          {woffFile(t, ttfFile()), "font/woff"},
		"woff2":         {woff2File(), "font/woff2"},
		"mp4":           {mp4File(), "video/mp4"},
		"webm":          {webmFile(), "video/webm"},
		"ogg":           {[]byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01vorbis"), "audio/ogg"},
		"mp3":           {[]byte("ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x00"), "audio/mpeg"},
		"wav":           {[]byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00"), "audio/wav"},
		"flac":          {[]byte("fLaC\x00\x00\x00\x22"), "audio/flac"},
		"vtt":           {[]byte(vttFile), "text/plain"},
		"svg":           {[]byte(svgScript), "image/svg+xml"},
		"html-as-png":   {[]byte(htmlDoc), "image/png"},
		"bomb":          {bombPNG(t, 100000, 100000), "image/png"},
		"bomb-area":     {bombPNG(t, 16384, 16384), "image/png"},
		"polyglot":      {polyglotPNG(), "image/png"},
		"truncated":     {pngFile(t)[:60], "image/png"},
	}
}

// publicHandler is the "public" server: files, redirects, statuses and
// misbehaving answers.
func publicHandler(t testing.TB) http.Handler {
	fs := files(t)
	bomb := gzipBomb()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /f/{name}", func(w http.ResponseWriter, r *http.Request) {
		f, ok := fs[r.PathValue("name")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", f.typ)
		w.Write(f.body)
	})
	// /redirect/{code}?to=URL answers code with Location: to.
	mux.HandleFunc("GET /redirect/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.PathValue("code"))
		w.Header().Set("Location", r.URL.Query().Get("to"))
		w.WriteHeader(code)
	})
	// /hops/{n} redirects n times, relative, then serves a PNG.
	mux.HandleFunc("GET /hops/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			w.Write(fs["png"].body)
			return
		}
		http.Redirect(w, r, strconv.Itoa(n-1), http.StatusFound)
	})
	mux.HandleFunc("GET /status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.PathValue("code"))
		w.WriteHeader(code)
	})
	// /endless sends a byte every 10ms for ever.
	mux.HandleFunc("GET /endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(fs["png"].body[:8])
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
				w.Write([]byte{0})
				w.(http.Flusher).Flush()
			}
		}
	})
	// /silent never answers.
	mux.HandleFunc("GET /silent", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	// /10gb declares 10 GiB and then sends nothing.
	mux.HandleFunc("GET /10gb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10737418240")
		w.Header().Set("Content-Type", "image/png")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	// /chunked/{mib} sends that many MiB chunked, without a length.
	mux.HandleFunc("GET /chunked/{mib}", func(w http.ResponseWriter, r *http.Request) {
		mib, _ := strconv.Atoi(r.PathValue("mib"))
		w.Write(fs["png"].body[:8])
		chunk := make([]byte, 64<<10)
		for range mib * 16 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("GET /gzip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "image/png")
		w.Write(bomb)
	})
	mux.HandleFunc("GET /big-header", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Filler", strings.Repeat("a", 100<<10))
		w.Write(fs["png"].body)
	})
	mux.HandleFunc("GET /echo-request", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Cookie") != "" || r.Header.Get("Referer") != "" || r.Header.Get("Accept-Encoding") != "identity" ||
			r.Header.Get("User-Agent") != DefaultUserAgent {
			http.Error(w, "unexpected request headers", http.StatusBadRequest)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "track", Value: "1"})
		w.Write(fs["png"].body)
	})
	mux.HandleFunc("GET /raw/", func(w http.ResponseWriter, r *http.Request) { w.Write(fs["png"].body) })
	return mux
}

// problem returns err as a *Problem, failing the test if it is not one.
func problem(t *testing.T, err error) *Problem {
	t.Helper()
	var p *Problem
	if !errors.As(err, &p) {
		t.Fatalf("err = %v (%T), want a *Problem", err, err)
	}
	return p
}

// wantProblem checks that err is a Problem, refused or not, whose reason
// holds every one of words.
func wantProblem(t *testing.T, err error, refused bool, words ...string) {
	t.Helper()
	p := problem(t, err)
	if p.Refused != refused {
		t.Errorf("Refused = %v, want %v (reason %q)", p.Refused, refused, p.Reason)
	}
	for _, w := range words {
		if !strings.Contains(p.Reason, w) {
			t.Errorf("reason %q does not say %q", p.Reason, w)
		}
	}
}

func TestFetchAccepts(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	f := New(n.config())
	fs := files(t)
	for _, tc := range []struct {
		name, kind, typ, ext string
	}{
		{"png", "image", "image/png", "png"},
		{"jpeg", "image", "image/jpeg", "jpg"},
		{"gif", "image", "image/gif", "gif"},
		{"webp-lossless", "image", "image/webp", "webp"},
		{"webp-lossy", "image", "image/webp", "webp"},
		{"bmp", "image", "image/bmp", "bmp"},
		{"ttf", "font", "font/ttf", "ttf"},
		{"woff", "font", "font/woff", "woff"},
		{"woff2", "font", "font/woff2", "woff2"},
		{"mp4", "media", "video/mp4", "mp4"},
		{"webm", "media", "video/webm", "webm"},
		{"ogg", "media", "audio/ogg", "ogg"},
		{"mp3", "media", "audio/mpeg", "mp3"},
		{"wav", "media", "audio/wav", "wav"},
		{"flac", "media", "audio/flac", "flac"},
		{"vtt", "track", "text/vtt; charset=utf-8", "vtt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := n.url("public.test", "/f/"+tc.name)
			r, err := f.Fetch(t.Context(), u, Kind(tc.kind))
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			want := fs[tc.name].body
			sum := sha256.Sum256(want)
			if r.Type != tc.typ || r.Ext != tc.ext || !bytes.Equal(r.Body, want) || r.SHA256 != hex.EncodeToString(sum[:]) || r.URL != u || r.Final != u {
				t.Errorf("got %s %s %d bytes sha %s url %s final %s, want %s %s %d bytes sha %x url %s",
					r.Type, r.Ext, len(r.Body), r.SHA256, r.URL, r.Final, tc.typ, tc.ext, len(want), sum, u)
			}
		})
	}
	if got := n.dials(); len(got) == 0 || got[0] != netip.AddrPortFrom(publicAddr, n.port) {
		t.Errorf("dialled %v, want only %v", got, netip.AddrPortFrom(publicAddr, n.port))
	}
}

// TestFetchRequest: no cookie kept, no Referer, identity asked for, the
// User-Agent sent; the path sent exactly as a browser sends it.
func TestFetchRequest(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	f := New(n.config())
	for range 2 { // the second would carry the cookie set by the first
		if _, err := f.Fetch(t.Context(), n.url("public.test", "/echo-request"), Image); err != nil {
			t.Fatalf("Fetch: %v", err)
		}
	}
	// A redirect's Location is read by the browser's parser too.
	r, err := f.Fetch(t.Context(), n.url("public.test", "/redirect/302?to="+url.QueryEscape("/raw/a%7Cb/%2F/c%3F%3Fd?q=%7B1%7D")), Image)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if want := n.url("public.test", "/raw/a%7Cb/%2F/c%3F%3Fd?q=%7B1%7D"); r.Final != want {
		t.Errorf("Final = %s, want %s", r.Final, want)
	}
}

func TestFetchBrowserParsing(t *testing.T) {
	var mu sync.Mutex
	var sent []string // request targets as the server read them
	public := publicHandler(t)
	n := newTestNet(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, r.RequestURI)
		mu.Unlock()
		public.ServeHTTP(w, r)
	}))
	f := New(n.config())
	port := strconv.Itoa(int(n.port))
	for _, tc := range []struct {
		in, final string
		sent      []string
	}{
		{"HTTPS://PUBLIC.TEST:" + port + "/f/png", n.url("public.test", "/f/png"), []string{"/f/png"}},
		{`https:\\public.test:` + port + `\f\png`, n.url("public.test", "/f/png"), []string{"/f/png"}},
		{" https://public.test:" + port + "/f/\tpng\n", n.url("public.test", "/f/png"), []string{"/f/png"}},
		{"https://public.test:" + port + "/x/../f/./png#frag", n.url("public.test", "/f/png"), []string{"/f/png"}},
		{"https://pub%6Cic.test:" + port + "/f/png", n.url("public.test", "/f/png"), []string{"/f/png"}},
		{"https://public.test:" + port + "/raw/a|b%2Fc?", n.url("public.test", "/raw/a|b%2Fc?"), []string{"/raw/a|b%2Fc?"}},
		{"https://public.test:" + port + "/raw/{x}?q={1}'", n.url("public.test", "/raw/%7Bx%7D?q={1}%27"), []string{"/raw/%7Bx%7D?q={1}%27"}},
		// A path starting with "//" goes in absolute form (Go's ServeMux
		// then redirects it to the clean path).
		{"https://public.test:" + port + "//f/png", n.url("public.test", "/f/png"), []string{n.url("public.test", "//f/png"), "/f/png"}},
		// An IPv4-mapped address is judged as the IPv4 address; the test
		// policy takes 127.0.0.2 as public.
		{"https://[::ffff:7f00:2]:" + port + "/f/png", "https://[::ffff:7f00:2]:" + port + "/f/png", []string{"/f/png"}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			mu.Lock()
			sent = nil
			mu.Unlock()
			r, err := f.Fetch(t.Context(), tc.in, Image)
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if r.Final != tc.final {
				t.Errorf("Final = %s, want %s", r.Final, tc.final)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(sent, tc.sent) {
				t.Errorf("the server read %q, want %q", sent, tc.sent)
			}
		})
	}
}

func TestFetchRedirects(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	f := New(n.config())
	for _, code := range []string{"301", "302", "303", "307", "308"} {
		for _, tc := range []struct {
			name, to string
			words    []string
		}{
			{"to a private name", n.url("private.test", "/f/png"), []string{"it redirects to", "private.test resolves to a loopback, private, link-local or other special-use address"}},
			{"to a private address", n.url("127.0.0.1", "/f/png"), []string{"its host is 127.0.0.1, a loopback address"}},
			{"to the metadata service", "https://169.254.169.254/latest/meta-data/", []string{"169.254.169.254, a link-local address"}},
			{"to http", "http://public.test:" + strconv.Itoa(int(n.port)) + "/f/png", []string{"it uses http:, and only https: URLs are fetched"}},
			{"to another port", "https://public.test:8443/f/png", []string{"it uses port 8443"}},
			{"to userinfo", "https://user:pw@public.test/f/png", []string{"user name or password"}},
		} {
			t.Run(code+" "+tc.name, func(t *testing.T) {
				_, err := f.Fetch(t.Context(), n.url("public.test", "/redirect/"+code+"?to="+url.QueryEscape(tc.to)), Image)
				wantProblem(t, err, true, tc.words...)
			})
		}
	}
	t.Run("five hops", func(t *testing.T) {
		if _, err := f.Fetch(t.Context(), n.url("public.test", "/hops/5"), Image); err != nil {
			t.Errorf("Fetch: %v", err)
		}
	})
	t.Run("six hops", func(t *testing.T) {
		_, err := f.Fetch(t.Context(), n.url("public.test", "/hops/6"), Image)
		wantProblem(t, err, true, "redirects more than 5 times")
	})
	t.Run("no location", func(t *testing.T) {
		_, err := f.Fetch(t.Context(), n.url("public.test", "/status/302"), Image)
		wantProblem(t, err, false, "302 Found without a Location")
	})
	t.Run("a location of too many segments", func(t *testing.T) {
		// The parser joins a path's segments in quadratic time.
		_, err := f.Fetch(t.Context(), n.url("public.test", "/redirect/302?to="+url.QueryEscape("/"+strings.Repeat("f/.", 300))), Image)
		wantProblem(t, err, true, "redirects to a URL with more than 256 slashes")
	})
	for _, d := range n.dials() {
		if d.Addr() != publicAddr {
			t.Errorf("dialled %s, want only %s", d, publicAddr)
		}
	}
}

// TestFetchRebinding: a name that answers public, then private. The
// address dialled is the one checked: every fetch either reads the public
// server or is refused naming the private address; nothing reaches the
// private server (checked at cleanup), even on a redirect to the same
// name, which is resolved and checked afresh.
func TestFetchRebinding(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	var calls atomic.Int64
	n.names["rebind.test"] = func() ([]netip.Addr, error) {
		if calls.Add(1)%2 == 1 {
			return []netip.Addr{publicAddr}, nil
		}
		return []netip.Addr{privateAddr}, nil
	}
	f := New(n.config())
	var ok, refusedN int
	for range 6 {
		_, err := f.Fetch(t.Context(), n.url("rebind.test", "/f/png"), Image)
		if err == nil {
			ok++
			continue
		}
		wantProblem(t, err, true, "rebind.test resolves to a loopback, private, link-local or other special-use address")
		refusedN++
	}
	if ok != 3 || refusedN != 3 {
		t.Errorf("%d fetched and %d refused, want 3 and 3", ok, refusedN)
	}
	// A redirect to itself: the first hop resolves public, the second private.
	calls.Store(0)
	_, err := f.Fetch(t.Context(), n.url("rebind.test", "/redirect/302?to=%2Ff%2Fpng"), Image)
	wantProblem(t, err, true, "it redirects to", "rebind.test resolves to a loopback")
	for _, d := range n.dials() {
		if d.Addr() != publicAddr {
			t.Errorf("dialled %s, want only %s", d, publicAddr)
		}
	}
}

// TestFetchMixedAnswers: one special-use answer among public ones
// refuses the name, whatever its place; nothing is dialled.
func TestFetchMixedAnswers(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	f := New(n.config())
	for _, name := range []string{"mixed.test", "mixed2.test"} {
		_, err := f.Fetch(t.Context(), n.url(name, "/f/png"), Image)
		wantProblem(t, err, true, name+" resolves to a loopback, private, link-local or other special-use address")
	}
	if d := n.dials(); len(d) != 0 {
		t.Errorf("dialled %v, want nothing", d)
	}
}

// TestFetchURLRefused: what the URL shows by itself is refused before
// any connection: its scheme, user name, port, and an IP address as host
// in every special-use family and spelling (the browser's: 2130706433 is
// 127.0.0.1).
func TestFetchURLRefused(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	f := New(n.config())
	p := ":" + strconv.Itoa(int(n.port))
	for _, tc := range []struct{ url, want string }{
		{"https://user:pw@public.test" + p + "/f/png", "user name or password"},
		{"https://user@public.test" + p + "/f/png", "user name or password"},
		{"https://:pw@public.test" + p + "/f/png", "user name or password"},
		{"https://public.test:8443/f/png", "it uses port 8443; only port 443 is fetched"},
		{"https://public.test:80/f/png", "it uses port 80"},
		{"http://public.test" + p + "/f/png", "it uses http:, and only https: URLs are fetched"},
		{"ftp://public.test/f/png", "it uses ftp:, and only https: URLs are fetched"},
		{"data:image/png;base64,AAAA", "it uses data:, and only https: URLs are fetched"},
		{"javascript:alert(1)", "it uses javascript:, and only https: URLs are fetched"},
		{"/f/png", "does not parse"},
		{"//public.test/f/png", "does not parse"},
		{"https://[::1/", "does not parse"},
		{"https://public.test" + p + "/" + strings.Repeat("f/.", 100000), "more than 256 slashes"},
		{"https://127.0.0.1" + p + "/f/png", "its host is 127.0.0.1, a loopback address"},
		{"https://2130706433" + p + "/f/png", "its host is 127.0.0.1, a loopback address"},
		{"https://0x7f.0.0.1" + p + "/", "its host is 127.0.0.1, a loopback address"},
		{"https://0177.0.0.1" + p + "/", "its host is 127.0.0.1, a loopback address"},
		{"https://0x7f000001" + p + "/", "its host is 127.0.0.1, a loopback address"},
		{"https://127.1" + p + "/", "its host is 127.0.0.1, a loopback address"},
		{"https://017700000001/", "its host is 127.0.0.1, a loopback address"},
		{"https://127.0.0.1.:443/", "its host is 127.0.0.1, a loopback address"},
		{"https://[::1]" + p + "/", "its host is ::1, a loopback address"},
		{"https://[::ffff:127.0.0.1]" + p + "/", "its host is 127.0.0.1 (written ::ffff:127.0.0.1), a loopback address"},
		{"https://[::ffff:a9fe:a9fe]/", "its host is 169.254.169.254 (written ::ffff:169.254.169.254), a link-local address (the cloud metadata service)"},
		{"https://0.0.0.0/", "its host is 0.0.0.0, the unspecified address"},
		{"https://0/", "its host is 0.0.0.0, the unspecified address"},
		{"https://[::]/", "its host is ::, the unspecified address"},
		{"https://169.254.169.254/latest/meta-data/", "its host is 169.254.169.254, a link-local address (the cloud metadata service)"},
		{"https://2852039166/", "its host is 169.254.169.254, a link-local address"},
		{"https://100.64.0.1/", "its host is 100.64.0.1, a shared (CGNAT) address"},
		{"https://100.127.255.254/", "its host is 100.127.255.254, a shared (CGNAT) address"},
		{"https://10.0.0.5/", "its host is 10.0.0.5, a private address"},
		{"https://172.16.0.1/", "its host is 172.16.0.1, a private address"},
		{"https://192.168.1.1/", "its host is 192.168.1.1, a private address"},
		{"https://192.0.2.1/", "its host is 192.0.2.1, a documentation address"},
		{"https://198.51.100.7/", "its host is 198.51.100.7, a documentation address"},
		{"https://203.0.113.9/", "its host is 203.0.113.9, a documentation address"},
		{"https://198.18.0.1/", "its host is 198.18.0.1, a benchmarking address"},
		{"https://192.0.0.8/", "its host is 192.0.0.8, a special-use address (192.0.0.0/24)"},
		{"https://240.0.0.1/", "its host is 240.0.0.1, a special-use address (240.0.0.0/4)"},
		{"https://255.255.255.255/", "its host is 255.255.255.255, a special-use address (240.0.0.0/4)"},
		{"https://224.0.0.1/", "its host is 224.0.0.1, a multicast address"},
		{"https://[fe80::1]/", "its host is fe80::1, a link-local address"},
		{"https://[fc00::1]/", "its host is fc00::1, a private address"},
		{"https://[fd12:3456::1]/", "its host is fd12:3456::1, a private address"},
		{"https://[ff02::1]/", "its host is ff02::1, a multicast address"},
		{"https://[2001:db8::1]/", "its host is 2001:db8::1, a documentation address"},
		{"https://[64:ff9b::7f00:1]/", "its host is 64:ff9b::7f00:1, a NAT64 address"},
		{"https://[64:ff9b::a00:5]/", "its host is 64:ff9b::a00:5, a NAT64 address"},
		{"https://[2002:7f00:1::]/", "its host is 2002:7f00:1::, a special-use address (2002::/16)"},
		{"https://[2001::1]/", "its host is 2001::1, a special-use address (2001::/23)"},
		{"https://[100::1]/", "its host is 100::1, a special-use address (outside 2000::/3"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := f.Fetch(t.Context(), tc.url, Image)
			wantProblem(t, err, true, tc.want)
		})
	}
	// Browsers read "https:///f/png" as host f, path /png.
	_, err := f.Fetch(t.Context(), "https:///f/png", Image)
	wantProblem(t, err, false, "its host f does not resolve")
	if d := n.dials(); len(d) != 0 {
		t.Errorf("dialled %v, want nothing", d)
	}
}

// TestFetchTime: a slow, endless body and an answer that never comes end
// at the budget, as unavailable; the caller's own context ending returns
// its error.
func TestFetchTime(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	cfg := n.config()
	cfg.Timeout = 500 * time.Millisecond
	f := New(cfg)
	// Which stage the budget ends in can race with the server's answer
	// to the closed connection (the silent server answers once it sees
	// the close): either way, the reason is the budget.
	for _, path := range []string{"/endless", "/silent"} {
		t.Run(path, func(t *testing.T) {
			start := time.Now()
			_, err := f.Fetch(t.Context(), n.url("public.test", path), Image)
			if d := time.Since(start); d > cfg.Timeout+5*time.Second {
				t.Errorf("Fetch took %s with a budget of %s", d, cfg.Timeout)
			}
			wantProblem(t, err, false, "within 500ms")
		})
	}
	t.Run("caller's context", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		_, err := New(n.config()).Fetch(ctx, n.url("public.test", "/silent"), Image)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the context's deadline", err)
		}
	})
}

// TestFetchCaps: sizes and encodings refused, before reading where the
// headers tell.
func TestFetchCaps(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	cfg := n.config()
	cfg.Timeout = 5 * time.Second
	f := New(cfg)
	t.Run("10 GB Content-Length", func(t *testing.T) {
		start := time.Now()
		_, err := f.Fetch(t.Context(), n.url("public.test", "/10gb"), Image)
		wantProblem(t, err, true, "the response is 10737418240 bytes; images may be at most 8 MiB")
		if d := time.Since(start); d > 2*time.Second { // the server sends no body: reading would wait out the budget
			t.Errorf("took %s: the body was waited for", d)
		}
	})
	t.Run("chunked over the cap", func(t *testing.T) {
		_, err := f.Fetch(t.Context(), n.url("public.test", "/chunked/9"), Image)
		wantProblem(t, err, true, "the response is more than 8 MiB; images may be at most 8 MiB")
	})
	t.Run("chunked under the font cap is read", func(t *testing.T) {
		_, err := f.Fetch(t.Context(), n.url("public.test", "/chunked/3"), Font)
		wantProblem(t, err, true, "not a font") // read in full, then judged
	})
	t.Run("chunked over the track cap", func(t *testing.T) {
		_, err := f.Fetch(t.Context(), n.url("public.test", "/chunked/2"), Track)
		wantProblem(t, err, true, "text tracks may be at most 1 MiB")
	})
	t.Run("gzip bomb", func(t *testing.T) {
		_, err := f.Fetch(t.Context(), n.url("public.test", "/gzip"), Image)
		wantProblem(t, err, true, "Content-Encoding: gzip")
	})
	t.Run("header over the cap", func(t *testing.T) {
		_, err := f.Fetch(t.Context(), n.url("public.test", "/big-header"), Image)
		wantProblem(t, err, false, "the request failed", "exceeded 65536 bytes")
	})
}

// TestFetchContent: bytes that are not what the kind needs are refused,
// whatever the Content-Type says.
func TestFetchContent(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	f := New(n.config())
	for _, tc := range []struct {
		name string
		kind Kind
		want []string
	}{
		{"svg", Image, []string{"an SVG image", "can carry script", "inline it"}},
		{"html-as-png", Image, []string{"the bytes are an HTML document, not an image"}},
		{"bomb", Image, []string{"the image is 100000x100000 pixels; images may be at most 16384 pixels a side"}},
		{"bomb-area", Image, []string{"16384x16384 pixels", "16777216 pixels in all"}},
		{"polyglot", Image, []string{"the bytes start as a PNG image but do not decode"}},
		{"truncated", Image, []string{"do not decode"}},
		{"png", Font, []string{"the bytes are a PNG image, not a font"}},
		{"html-as-png", Font, []string{"an HTML document, not a font"}},
		{"svg", Media, []string{"an SVG image, not audio or video"}},
		{"ttf", Media, []string{"not audio or video"}},
		{"vtt", Image, []string{"plain text, not an image"}},
		{"html-as-png", Track, []string{"an HTML document, not a WebVTT text track"}},
		{"png", Track, []string{"a PNG image, not a WebVTT text track"}},
	} {
		t.Run(tc.name+" as "+string(tc.kind), func(t *testing.T) {
			_, err := f.Fetch(t.Context(), n.url("public.test", "/f/"+tc.name), tc.kind)
			wantProblem(t, err, true, tc.want...)
		})
	}
	_, err := f.Fetch(t.Context(), n.url("public.test", "/f/png"), "script")
	wantProblem(t, err, true, `the kind "script" is none of image, font, media or track`)
}

// TestFetchBombAllocates: the 100000×100000 PNG (40 GB decoded) is
// refused on its header: the fetch allocates a few megabytes at most.
func TestFetchBombAllocates(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	f := New(n.config())
	u := n.url("public.test", "/f/bomb")
	f.Fetch(t.Context(), u, Image) // warm up the connection machinery
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := f.Fetch(t.Context(), u, Image)
	runtime.ReadMemStats(&after)
	wantProblem(t, err, true, "100000x100000")
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("the fetch allocated %d bytes, want under 16 MiB", got)
	}
}

// TestFetchUnavailable: what may work later is not refused.
func TestFetchUnavailable(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	f := New(n.config())
	for _, tc := range []struct{ url, want string }{
		{n.url("public.test", "/status/404"), "the server answered 404 Not Found"},
		{n.url("public.test", "/status/500"), "the server answered 500 Internal Server Error"},
		{n.url("public.test", "/status/204"), "the server answered 204 No Content"},
		{n.url("public.test", "/nowhere"), "404"},
		{n.url("gone.test", "/f/png"), "its server 127.0.0.3:" + strconv.Itoa(int(n.port)) + " refused the connection"},
		{n.url("nxdomain.test", "/f/png"), "its host nxdomain.test does not resolve (no such host)"},
		{n.url("unknown.test", "/f/png"), "its host unknown.test does not resolve"},
		{n.url("empty.test", "/f/png"), "its host empty.test has no address"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := f.Fetch(t.Context(), tc.url, Image)
			wantProblem(t, err, false, tc.want)
		})
	}
	t.Run("untrusted certificate", func(t *testing.T) {
		cfg := n.config()
		cfg.RootCAs = nil
		_, err := New(cfg).Fetch(t.Context(), n.url("public.test", "/f/png"), Image)
		wantProblem(t, err, false, "its TLS certificate is not valid (x509: certificate signed by unknown authority)")
	})
}

// TestFetchConcurrency: 50 fetches at once, with MaxConcurrent 3: the
// server never sees more than 3 in flight, and every fetch completes.
func TestFetchConcurrency(t *testing.T) {
	png := pngFile(t)
	var inFlight, most atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /slow.png", func(w http.ResponseWriter, r *http.Request) {
		now := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		w.Write(png)
	})
	n := newTestNet(t, mux)
	cfg := n.config()
	cfg.MaxConcurrent = 3
	f := New(cfg)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			_, err := f.Fetch(t.Context(), n.url("public.test", "/slow.png"), Image)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Fetch: %v", err)
		}
	}
	if got := most.Load(); got > 3 || got < 1 {
		t.Errorf("the server saw at most %d fetches in flight, want 1 to 3", got)
	}
}

// TestFetchWaitsForSlot: a caller waiting for a slot leaves when its
// context ends, with the context's error.
func TestFetchWaitsForSlot(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	cfg := n.config()
	cfg.MaxConcurrent = 1
	cfg.Timeout = 300 * time.Millisecond
	f := New(cfg)
	holding := make(chan struct{})
	go func() {
		defer close(holding)
		f.Fetch(context.Background(), n.url("public.test", "/silent"), Image)
	}()
	time.Sleep(50 * time.Millisecond) // let it take the slot
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := f.Fetch(ctx, n.url("public.test", "/f/png"), Image); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	<-holding
	// The slot is free again.
	if _, err := f.Fetch(t.Context(), n.url("public.test", "/f/png"), Image); err != nil {
		t.Errorf("Fetch after the slot was freed: %v", err)
	}
}

// TestFetchAllowPrivate: the operator flag lets loopback and any port
// through (and nothing else changes).
func TestFetchAllowPrivate(t *testing.T) {
	n := newTestNet(t, publicHandler(t))
	f := New(Config{AllowPrivate: true, RootCAs: n.roots, Resolver: n.resolve})
	r, err := f.Fetch(t.Context(), n.url("127.0.0.2", "/f/gif"), Image)
	if err != nil || r.Type != "image/gif" {
		t.Errorf("Fetch = %s, %v; want a GIF", r.Type, err)
	}
	_, err = f.Fetch(t.Context(), n.url("127.0.0.2", "/f/svg"), Image)
	wantProblem(t, err, true, "SVG")
	_, err = f.Fetch(t.Context(), "http://127.0.0.2/f/gif", Image)
	wantProblem(t, err, true, "only https: URLs are fetched")
}

// BenchmarkFetchPNG: a 100 KB PNG from loopback, each fetch a new TLS
// connection, a pinned dial and a full decode.
func BenchmarkFetchPNG(b *testing.B) {
	body := encoded(b, func(buf *bytes.Buffer) error { return pngEncodeNoise(buf, 182, 182) })
	mux := http.NewServeMux()
	mux.HandleFunc("GET /100k.png", func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	n := newTestNet(b, mux)
	f := New(n.config())
	u := n.url("public.test", "/100k.png")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := f.Fetch(context.Background(), u, Image); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(body)), "png-bytes")
}

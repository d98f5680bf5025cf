// Package fetch fetches the remote resources a custom download page names
// (images, fonts, audio and video, text tracks), once, on Fileframe's
// behalf, so that the page can be served with its own copies and its
// visitors' browsers contact no one else (the zero-egress promise, issue
// 16).
//
// # Threat model
//
// The page author chooses the URL, and may control its host, its DNS
// answers, its server, its redirects, its headers and its bytes. Fileframe
// runs the fetch from inside the operator's network, so the first aim is
// that a URL never reaches anything but a public https server (no
// server-side request forgery against loopback, the private network or a
// cloud metadata address); the second that no answer can exhaust memory,
// time or connections; the third that what is kept is exactly an image,
// font, media file or text track of a type the browser will handle as such,
// never markup or script.
//
// # Defences
//
//   - URLs are parsed as a browser parses them (WHATWG URL standard,
//     github.com/nlnwa/whatwg-url): 2130706433, 0x7f.1 and 0177.0.0.1 are
//     all 127.0.0.1, a backslash is a slash, and the request sends exactly
//     the path and query the browser would have sent.
//   - Only https: on port 443 is fetched; a URL with a user name or password
//     is refused. Config.AllowPrivate (the operator flag --fetch-private)
//     lifts the address and port rules for development and tests.
//   - Addresses are classified by code.dny.dev/ssrf (IANA special-use
//     registries: loopback, private, link-local, multicast, CGNAT,
//     documentation, benchmarking, unspecified, 6to4, Teredo, NAT64, and all
//     of IPv6 outside 2000::/3). An IPv4-mapped IPv6 address is judged as
//     the IPv4 address it reaches.
//   - The connection is pinned: the dialer resolves the name itself
//     (Config.Resolver), refuses the name if any of its answers is
//     special-use, and dials a checked address literally, so a name cannot
//     answer differently between the check and the connection (DNS
//     rebinding). The same Guardian runs again as the dialer's Control
//     function on the socket's address, so what is connected is what was
//     checked. Connections are not kept alive, so none outlives its check.
//   - Redirects are followed by hand, at most Config.MaxRedirects (5): each
//     Location is parsed relative to the current URL as a browser would and
//     goes through every check above again. No cookies are kept, no Referer
//     is sent, and no proxy is taken from the environment.
//   - Bounded time: one budget (Config.Timeout, 10s) covers the wait for
//     headers, every redirect and the whole body, so a slow, stalled or
//     endless answer ends at the budget.
//   - Bounded memory: response headers are capped (Config.MaxHeaderBytes);
//     a declared Content-Length over the kind's cap is refused before a byte
//     of the body is read; the body is read through an io.LimitReader at
//     the cap plus one; a compressed answer (any Content-Encoding but
//     identity) is refused, never decompressed; an image's size is read
//     from its header (DecodeConfig) and checked against the pixel caps
//     before it is decoded, so a decompression bomb never allocates; and
//     only two images are decoded at a time (a 16-megapixel decode takes
//     64 MB).
//   - Bounded connections: at most Config.MaxConcurrent fetches run at once
//     in a Fetcher (one Fetcher serves the process); callers beyond wait,
//     as long as their context lets them.
//   - Content is judged by its bytes, never by the remote Content-Type: an
//     image must fully decode (PNG, JPEG, GIF, WebP or BMP; of an animated
//     GIF the first frame; animated WebP does not decode and is refused); a
//     font must be WOFF or WOFF2 with a sound header, or TrueType/OpenType
//     or a collection that golang.org/x/image/font/sfnt parses; media must
//     sniff as MP4, WebM, Ogg, MP3, WAV or FLAC; a text track must be UTF-8
//     starting with WEBVTT. SVG is always refused (it can carry script), as
//     are HTML, XML and everything else. Resource.Type, the type Fileframe
//     serves the bytes with, comes from this sniffing.
//
// # Outcomes
//
// Fetch returns a *Problem. Refused means the URL or its bytes are refused
// whatever happens later (the caller reports a 422 finding); otherwise the
// resource is unavailable now (DNS failure, connection refused, TLS
// failure, an HTTP status other than 200, the budget ran out) and may be
// retried later. When the caller's own context ends, Fetch returns the
// context's error instead.
package fetch

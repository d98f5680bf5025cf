package web

import (
	"html/template"
	"mime"
	"net/http"
	"strings"
)

// This file owns every security header and sandbox attribute of both
// origins: the CSPs, Permissions-Policy, Connection-Allowlist, the
// custom page frame's sandbox, referrerpolicy and allow attributes (which
// the templates write with frameAttrs), and the headers set on the
// app origin's pages. DESIGN.md, "Public pages and the sandbox", and
// docs/security.md say why each is what it is; a change here is a change
// to the sandbox, and the browser suite is what proves it.

// permissionsPolicy turns every powerful feature off, on the app origin's
// pages and on the content origin alike. Browsers ignore (and log) features
// they do not know, so the list errs on the long side.
const permissionsPolicy = "accelerometer=(), ambient-light-sensor=(), autoplay=(), bluetooth=(), " +
	"browsing-topics=(), camera=(), clipboard-read=(), clipboard-write=(), display-capture=(), " +
	"encrypted-media=(), fullscreen=(), gamepad=(), geolocation=(), gyroscope=(), hid=(), " +
	"identity-credentials-get=(), idle-detection=(), local-fonts=(), magnetometer=(), " +
	"microphone=(), midi=(), otp-credentials=(), payment=(), picture-in-picture=(), " +
	"publickey-credentials-create=(), publickey-credentials-get=(), screen-wake-lock=(), " +
	"serial=(), storage-access=(), usb=(), web-share=(), window-management=(), " +
	"xr-spatial-tracking=()"

// frameSandbox is the sandbox attribute of the iframe that shows a custom
// page (the outer page, the file page's preview): scripts, and nothing
// else (no same-origin, forms, popups, top navigation, downloads, modals).
const frameSandbox = "allow-scripts"

// frameAllow is that iframe's allow attribute: it denies the features a
// page could otherwise ask the visitor for, on top of Permissions-Policy.
const frameAllow = "fullscreen 'none'; picture-in-picture 'none'; clipboard-read 'none'; clipboard-write 'none'; " +
	"payment 'none'; camera 'none'; microphone 'none'; geolocation 'none'; display-capture 'none'"

// policyFuncs give the templates the frame's attributes (frameAttrs:
// sandbox, referrerpolicy and allow), so that they are written in this
// file alone.
var policyFuncs = template.FuncMap{
	"frameAttrs": func() template.HTMLAttr {
		return template.HTMLAttr(`sandbox="` + frameSandbox + `" referrerpolicy="no-referrer" allow="` + frameAllow + `"`)
	},
}

// contentCSP is the Content-Security-Policy of every answer of the content
// origin, framed only by appOrigin. Its sandbox gives the page an opaque
// origin: it can run its inline scripts but reaches no cookies, storage,
// network or other window. Images, fonts and media come from data: URLs
// or from the content origin's own copies of the remote ones a page names
// (assetPath); any other address, https ones included, is refused, so a
// page loads nothing from anyone but Fileframe (docs/security.md, "Zero
// egress").
//
// The asset source is a path, contentOrigin + assetPath: the page's own
// address and every other page of the content origin stay refused. CSP
// matches a source path ending in "/" as a prefix
// (https://www.w3.org/TR/CSP3/#match-paths), and it would ignore the path
// after a redirect, but the asset route never redirects.
func contentCSP(appOrigin, contentOrigin string) string {
	assets := contentOrigin + assetPath
	return "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
		"img-src data: " + assets + "; font-src data: " + assets + "; media-src data: " + assets + "; connect-src 'none'; " +
		"form-action 'none'; base-uri 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; " +
		"object-src 'none'; manifest-src 'none'; frame-ancestors " + appOrigin
}

// assetPath is where the content origin serves the copies Fileframe keeps
// of a page's remote images, fonts and media: <contentOrigin>/a/<sha256>.<ext>.
const assetPath = "/a/"

// connectionAllowlist returns the content origin's Connection-Allowlist
// (https://wicg.github.io/connection-allowlists/, Chromium 152 and later):
// the one URLPattern of the asset path (as contentCSP's sources), no
// redirects (the asset route answers, never redirects), no WebRTC. It
// names no response-origin: a page's document connects to nothing else,
// not to its own address either, so in Chromium it cannot navigate its
// frame to another page of the content origin.
func connectionAllowlist(contentOrigin string) string {
	return `("` + contentOrigin + assetPath + `*");webrtc=block`
}

// sandboxHeaders sets the content origin's headers on every response before
// anything else runs, so that errors (404, 405, 500, …) carry them too.
//
// CSP does not govern every connection a page can open. The other headers
// close what they can of the rest:
//
//   - Connection-Allowlist lets the page's document connect to nothing but
//     the asset path, and blocks WebRTC altogether (webrtc=block; also its
//     default). WebRTC's STUN and TURN servers and ICE candidates, and
//     <link rel=preconnect> and dns-prefetch, are out of CSP's reach; the
//     allowlist stops them in Chromium, for the page and any frame it
//     makes, however the page spells a constructor's or element's name.
//     Firefox implements neither it nor CSP's webrtc directive, and opens
//     a preconnect's connection whatever the document's headers say
//     (Document::MaybePreconnect consults no policy of the document): there
//     the prelude the content origin serves before the page's scripts
//     removes WebRTC and keeps scripts from making resource hints
//     (content_prelude.go), and htmlcheck refuses them in the markup
//     (sandbox.resource_hint).
//   - X-DNS-Prefetch-Control: off asks Chromium and Firefox not to
//     prefetch DNS for the document; by both engines' rules a later <meta>
//     cannot turn it back on.
//
// What remains is in docs/security.md, "Zero egress".
func (s *Server) sandboxHeaders(next http.Handler) http.Handler {
	// Canonical keys and shared values, as on the public pages
	// (headerValues): Set would canonicalise each key and allocate each
	// value, on every answer.
	csp := []string{contentCSP(s.AppOrigin(), s.ContentOrigin())}
	allowlist := []string{connectionAllowlist(s.ContentOrigin())}
	off, vary := []string{"off"}, []string{"Sec-Fetch-Dest"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Security-Policy"] = csp
		h["Connection-Allowlist"] = allowlist
		h["X-Dns-Prefetch-Control"] = off
		h["Permissions-Policy"] = s.hdr.permissions
		h["X-Content-Type-Options"] = s.hdr.nosniff
		h["Referrer-Policy"] = s.hdr.noReferrer
		h["Vary"] = vary
		next.ServeHTTP(w, r)
	})
}

// pageCSP returns the CSP of the app origin's public HTML pages (the outer,
// default and error pages); frameSrc is the frame-src value ('none' or the
// content origin).
func pageCSP(frameSrc string) string {
	return "default-src 'none'; frame-src " + frameSrc +
		"; frame-ancestors 'none'; form-action 'none'; base-uri 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:"
}

// templateCSP is pageCSP of a template page whose inline style is allowed
// by styleSource; frameAncestors is 'none' for visitors and 'self' for the
// editor's live preview.
func templateCSP(styleSource, frameAncestors string) string {
	return "default-src 'none'; frame-src 'none'; frame-ancestors " + frameAncestors +
		"; form-action 'none'; base-uri 'none'; script-src 'self'; style-src 'self' " + styleSource + "; img-src 'self' data:"
}

// previewPolicy returns csp, a public page's policy (pageCSP,
// templateCSP), with what the page's file preview v loads from the
// content origin's /v/ (content_preview.go): a PDF's frame, or a video's
// or audio's bytes. A thumbnail is 'self' and text is in the page.
func previewPolicy(csp, contentOrigin string, views ...*previewView) string {
	frames, media := false, false
	for _, v := range views {
		if v == nil {
			continue
		}
		switch v.Kind {
		case previewPDF:
			frames = true
		case previewVideo, previewAudio:
			media = true
		}
	}
	if frames {
		csp = strings.Replace(csp, "frame-src 'none'", "frame-src "+contentOrigin+"/v/", 1)
	}
	if media {
		csp += "; media-src " + contentOrigin + "/v/"
	}
	return csp
}

// appCSP returns the Content-Security-Policy of the application's pages:
// scripts, styles, images and requests from the app origin only (no inline
// script or style), frames of the app origin (live previews) and of the
// content origin (draft previews in the visitors' sandbox), forms posting
// only to the app origin.
func appCSP(contentOrigin string) string {
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
		"frame-src 'self' " + contentOrigin + "; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
}

// imageCSP is the CSP of an uploaded image served from the app origin (an
// appearance's logo or background): opened on its own, nothing in it runs.
const imageCSP = "default-src 'none'; sandbox"

// headerValues are the values of the public pages' headers, built once in
// New, so that setting one costs a map assignment. They are shared between
// responses: net/http and the middleware only read or replace header
// values, never change them in place.
type headerValues struct {
	cspNone, cspContent                   []string // pageCSP of 'none' and of the content origin
	deny, sameOrigin, noReferrer, nosniff []string
	permissions, noCache, noStore, html   []string
	appCSP                                []string // the application's pages (appCSP)
	sandboxNone                           []string // imageCSP: what runs nothing
}

func newHeaderValues(contentOrigin string) headerValues {
	return headerValues{
		cspNone:     []string{pageCSP("'none'")},
		cspContent:  []string{pageCSP(contentOrigin)},
		deny:        []string{"DENY"},
		sameOrigin:  []string{"same-origin"},
		noReferrer:  []string{"no-referrer"},
		nosniff:     []string{"nosniff"},
		permissions: []string{permissionsPolicy},
		noCache:     []string{"no-cache"},
		noStore:     []string{"no-store"},
		html:        []string{"text/html; charset=utf-8"},
		appCSP:      []string{appCSP(contentOrigin)},
		sandboxNone: []string{imageCSP},
	}
}

// setPageHeaders sets the security headers of the app origin's HTML pages;
// csp is s.hdr.cspNone or s.hdr.cspContent.
func (s *Server) setPageHeaders(h http.Header, csp []string) {
	h["Content-Security-Policy"] = csp
	h["X-Frame-Options"] = s.hdr.deny
	h["Cross-Origin-Opener-Policy"] = s.hdr.sameOrigin
	h["Referrer-Policy"] = s.hdr.noReferrer
	h["X-Content-Type-Options"] = s.hdr.nosniff
	h["Permissions-Policy"] = s.hdr.permissions
}

// hsts is the Strict-Transport-Security of both origins over https (RFC
// 6797): a year, without includeSubDomains, since other hosts of the
// operator's domain are not ours to decide for. A reverse proxy that
// terminates TLS may set its own.
var hsts = []string{"max-age=31536000"}

// setHSTS sets Strict-Transport-Security; observe calls it on every
// answer of both origins when the base URL is https.
func setHSTS(h http.Header) { h["Strict-Transport-Security"] = hsts }

// setSubresourceHeaders sets the headers of what the app origin's pages
// load (static files, appearance images): nothing sniffed, nothing loaded
// by another site.
func setSubresourceHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// setImageHeaders sets the headers of an uploaded image served from the
// app origin: a subresource whose own address, opened on its own, runs
// nothing.
func setImageHeaders(h http.Header) {
	setSubresourceHeaders(h)
	h.Set("Content-Security-Policy", imageCSP)
	h.Set("Referrer-Policy", "no-referrer")
}

// setDownloadHeaders sets the security headers of a download (the file, or
// the redirect to it): its type is never sniffed, nothing of the link
// leaks in a Referer, and opened as a document it runs nothing.
func (s *Server) setDownloadHeaders(h http.Header) {
	h["X-Content-Type-Options"] = s.hdr.nosniff
	h["Referrer-Policy"] = s.hdr.noReferrer
	h["Content-Security-Policy"] = s.hdr.sandboxNone
}

// downloadType returns the Content-Type a download is served with: the
// file's own when it is a passive kind (images but SVG, audio, video,
// fonts, PDF, plain text, JSON, archives, office documents), else
// application/octet-stream. Content-Disposition: attachment does not stop
// <script src> or <link rel=stylesheet> on another site, nor a future HTML
// injection on the app origin (whose CSP allows 'self' scripts), from
// running an uploaded .js, .css, .html or .svg: with nosniff, a browser
// runs or applies nothing served as application/octet-stream.
func downloadType(t string) string {
	mt, _, err := mime.ParseMediaType(t)
	if err != nil || strings.ContainsAny(mt, " ") {
		return "application/octet-stream"
	}
	// Markup, scripts, style sheets, WebAssembly and Flash, in any of their
	// names (image/svg+xml-compressed is an SVG too).
	if strings.Contains(mt, "html") || strings.Contains(mt, "svg") || strings.Contains(mt, "flash") || strings.Contains(mt, "script") || strings.HasSuffix(mt, "+xml") ||
		strings.HasSuffix(mt, "/xml") || strings.Contains(mt, "xsl") || mt == "text/css" || mt == "application/wasm" {
		return "application/octet-stream"
	}
	for _, passive := range []string{"image/", "audio/", "video/", "font/", "application/vnd."} {
		if strings.HasPrefix(mt, passive) {
			return t
		}
	}
	switch mt {
	case "text/plain", "text/csv", "application/pdf", "application/json", "application/zip",
		"application/gzip", "application/x-tar", "application/x-7z-compressed", "application/msword",
		"application/rtf", "application/epub+zip":
		return t
	}
	return "application/octet-stream"
}

// setPreviewFrameHeaders sets the headers of the appearance editor's live
// preview, the one page of the app origin that may be framed, by the
// editor alone; csp is its templateCSP.
func (s *Server) setPreviewFrameHeaders(h http.Header, csp string) {
	s.setPageHeaders(h, []string{csp})
	h.Set("X-Frame-Options", "SAMEORIGIN")
}

// setDataHeaders sets the headers of an answer of data (JSON, plain
// text): nothing sniffed.
func setDataHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
}

package web

import (
	"bytes"

	"golang.org/x/net/html"
)

// prelude is the content origin's own script at the head of every custom
// page it serves, run before any script of the page: it removes the
// constructors of WebRTC peer connections from the page's window.
//
// WebRTC sends STUN and TURN requests and ICE checks over UDP and TCP to
// any host, out of CSP's reach: an exfiltration channel, and a way to
// learn the visitor's address. Chromium blocks it for the whole document by
// the Connection-Allowlist header (sandboxHeaders); Firefox implements
// neither that header nor CSP's webrtc directive, and has no policy a
// server can set against it. Removing the constructor holds in the page's
// own realm whatever the page calls it (window["RTC"+"PeerConnection"]),
// and a page has no other realm to take one from: its frames and workers
// are refused (frame-src, child-src and worker-src 'none'; a constructor
// taken from a frame of its own throws SecurityError in both engines) and
// it cannot open windows (the sandbox). The script then removes its own
// element, so the page's document is as it was written.
const prelude = `<script>(()=>{for(const n of["RTCPeerConnection","webkitRTCPeerConnection","mozRTCPeerConnection"])try{delete self[n]}catch{}document.currentScript.remove()})()</script>`

// preludeVersion names the prelude in the ETag of the pages served with
// it (contentETagKey), so that a new prelude is never answered 304 for a
// page served with an old one.
const preludeVersion = "1"

// withPrelude returns doc with prelude inserted where it runs first and
// changes nothing else: after a byte order mark, comments, white space and
// a doctype (before the doctype, a browser would render the page in quirks
// mode), before anything else. The parser puts a script met there in the
// document's head.
func withPrelude(doc []byte) []byte {
	at := preludeOffset(doc)
	out := make([]byte, 0, len(doc)+len(prelude))
	out = append(out, doc[:at]...)
	out = append(out, prelude...)
	return append(out, doc[at:]...)
}

// preludeOffset returns where withPrelude inserts the prelude.
func preludeOffset(doc []byte) int {
	pos := 0
	if bytes.HasPrefix(doc, []byte("\xef\xbb\xbf")) {
		pos = 3
	}
	z := html.NewTokenizer(bytes.NewReader(doc[pos:]))
	for {
		tt := z.Next()
		raw := len(z.Raw())
		switch {
		case tt == html.CommentToken,
			tt == html.TextToken && len(bytes.TrimLeft(z.Raw(), " \t\n\f\r")) == 0:
			pos += raw
		case tt == html.DoctypeToken:
			return pos + raw
		default:
			return pos
		}
	}
}

// contentETagKey is the key, in Server.pageHTML, and the ETag of a
// revision with SHA-256 sum as the content origin serves it (withPrelude).
func contentETagKey(sum string) string { return sum + "-p" + preludeVersion }

package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"golang.org/x/net/html"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The prelude is the content origin's own script at the head of every
// custom page it serves, run before any script of the page. It does two
// things.
//
// It removes the constructors of WebRTC peer connections from the page's
// window. WebRTC sends STUN and TURN requests and ICE checks over UDP and
// TCP to any host, out of CSP's reach: an exfiltration channel, and a way to
// learn the visitor's address. Chromium blocks it for the whole document by
// the Connection-Allowlist header (sandboxHeaders); Firefox implements
// neither that header nor CSP's webrtc directive, and has no policy a
// server can set against it. Removing the constructor holds in the page's
// own realm whatever the page calls it (window["RTC"+"PeerConnection"]),
// and a page has no other realm to take one from: its frames and workers
// are refused (frame-src, child-src and worker-src 'none'; a constructor
// taken from a frame of its own throws SecurityError in both engines) and
// it cannot open windows (the sandbox).
//
// It tells the page the file's facts (pageFacts): it defines a frozen,
// read-only window.fileframe, and once the document is parsed it writes
// them as the text (textContent, never markup) of the elements marked
// data-fileframe="name", "size" or "type", but not in anything clickable
// (a link, a button, an element with a role or a click handler): the page
// rules read labels before the name is known, and a file named "Download
// now" must not label a page's own link. The sandboxed frame has no other
// way to learn them (it cannot reach its parent or the network), and a page
// that shows them this way stays right when the file is renamed, without
// its stored HTML changing.
//
// The script then removes its own element, so the page's document is as it
// was written. The content origin's CSP allows it, like the page's own
// scripts, by script-src 'unsafe-inline': the policy has no hash or nonce
// (it could not have a hash, since the facts differ per file), and a page
// cannot be kept from running its own inline scripts.
const (
	preludeStart = `<script>(()=>{for(const n of["RTCPeerConnection","webkitRTCPeerConnection","mozRTCPeerConnection"])try{delete self[n]}catch{}` +
		`const f=Object.freeze(`
	preludeEnd = `);Object.defineProperty(self,"fileframe",{value:f,enumerable:true});` +
		`const fill=()=>{for(const e of document.querySelectorAll("[data-fileframe]")){const k=e.getAttribute("data-fileframe");` +
		`if(e.closest("a,button,label,summary,select,option,[role],[onclick],[tabindex],[contenteditable]"))continue;` +
		`if(k==="name"||k==="type")e.textContent=f[k];else if(k==="size")e.textContent=f.sizeText}};` +
		`document.readyState==="loading"?document.addEventListener("DOMContentLoaded",fill,{once:true}):fill();` +
		`document.currentScript.remove()})()</script>`
)

// pageFacts is what the prelude tells a custom page about its file, as
// window.fileframe. docs/api.md ("Page layout and the download control")
// documents the members.
type pageFacts struct {
	Name     string `json:"name"`
	Size     int64  `json:"size"`     // bytes
	SizeText string `json:"sizeText"` // as the download control shows it
	Type     string `json:"type"`     // the Content-Type of the download
	URL      string `json:"url"`      // the public link, /f/<slug> on the app origin
}

// factsOf returns the facts of file f.
func (s *Server) factsOf(f fileframe.File) pageFacts {
	return pageFacts{
		Name:     f.Name,
		Size:     f.Size,
		SizeText: humanSize(f.Size),
		Type:     downloadType(f.ContentType),
		URL:      s.publicURL(f.URL()),
	}
}

// preludeFor returns the prelude telling a page facts.
//
// The facts are a JSON object literal inside a <script> element, so a file
// name is data, never code or markup: encoding/json escapes quotes and
// backslashes, and also <, > and & (so neither "</script>" nor "<!--" can
// end or change the script element) and U+2028 and U+2029 (line
// terminators inside a JavaScript string before ES2019). The test with a
// file named </script><script>alert(1)</script>.pdf holds it to that.
func preludeFor(facts pageFacts) []byte {
	// pageFacts holds only strings and an integer, which Marshal cannot
	// fail on (it writes invalid UTF-8 as U+FFFD).
	obj, _ := json.Marshal(facts)
	out := make([]byte, 0, len(preludeStart)+len(obj)+len(preludeEnd))
	out = append(out, preludeStart...)
	out = append(out, obj...)
	return append(out, preludeEnd...)
}

// withPrelude returns doc with prelude inserted where it runs first and
// changes nothing else: after a byte order mark, comments, white space and
// a doctype (before the doctype, a browser would render the page in quirks
// mode), before anything else. The parser puts a script met there in the
// document's head.
func withPrelude(doc, prelude []byte) []byte {
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
// revision with SHA-256 sum as the content origin serves it with prelude
// (withPrelude). The key names the prelude by a hash of its bytes, so a
// new prelude script, and a file renamed or served from another base URL
// (new facts), are never answered 304 for a page served with the old one,
// nor served from the old entry.
func contentETagKey(sum string, prelude []byte) string {
	p := sha256.Sum256(prelude)
	return sum + "-p" + hex.EncodeToString(p[:8])
}

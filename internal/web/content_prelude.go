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
// custom page it serves, run before any script of the page. It does three
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
// it cannot open windows (the sandbox). A srcdoc frame would be one (Firefox
// loads it despite frame-src 'none', with scripts of its own): the second
// part keeps scripts from making one.
//
// It keeps the page's scripts from the connections Firefox opens without
// asking the document's policies: resource hints, srcdoc frames, and links
// to other sites (preludeGuard, below).
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
		preludeGuard + `const f=Object.freeze(`
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

// preludeGuard is the part of the prelude that keeps a page's scripts
// from making the connections Firefox opens without asking the document's
// policies (see the prelude's description above). It keeps one invariant:
// no <link> element gets an href, rel or imagesrcset attribute from a
// script, and no <iframe> a srcdoc attribute; the only ones that have them
// are those of the page's markup, where htmlcheck refuses resource hints
// and frames. Then no insertion into the document, however it is done,
// can start a preconnect, and no srcdoc frame, a document and JavaScript
// realm of its own that the prelude does not reach, can load.
//
// What sets attributes is hooked: setAttribute and its NS, Node and toggle
// forms, Attr's value (value, nodeValue, textContent), NamedNodeMap, the
// reflecting properties (href, rel, imageSrcset, srcdoc) and the <link>'s
// relList (a DOMTokenList it records when the page asks for it). So is what
// parses markup into elements: in an HTML document (the page's, and those
// it makes), innerHTML, outerHTML, insertAdjacentHTML, setHTMLUnsafe,
// setHTML, createContextualFragment, parseHTMLUnsafe and execCommand
// ("insertHTML") refuse markup with a <link or <iframe start tag or a
// declarative shadow root (whose closed contents no script can see); the
// HTML parser makes such an element only from those literal characters,
// in any letter case. document.write refuses any "<" (what it writes joins
// the rest of the page's source, so a lone "<" can start a tag). What an
// XML parser makes (DOMParser, XSLT, the markup properties in an XML
// document) may spell an XHTML <link> with a prefix or through an entity,
// so there the refused attributes are taken off the new elements, in
// templates' contents too, before the page gets them; DOMParser's HTML
// documents are treated so too.
//
// Refusals throw a DOMException (NotAllowedError) that names the reason.
// The hooks call the originals through Reflect.apply and getters captured
// before any page script runs, and convert each argument to a string once,
// so a page can neither replace a method the checks use nor hand them an
// object that converts to one name when checked and another when used.
//
// Links to other sites get no address either. Firefox opens a connection
// to a link's host as soon as the pointer is over the link or the link
// has the focus (even focus() from a script), and no event's default can
// be cancelled to stop it; the sandbox would refuse to follow the link
// anyway (the outer page's frame-src). So an <a>, <area> or SVG <a> may
// have an http or https href only to the content origin: setting another
// one is refused (the same hooks, and the reflecting href, host, … and
// SVG href.baseVal setters, which are checked after they set it), parsers'
// new links lose it, and a MutationObserver takes it off the links of the
// page's markup before any later script of the page runs (the parser
// performs a microtask checkpoint before each script) and before any input
// event, and off those of every shadow root attachShadow makes.
const preludeGuard = `{const R=Reflect.apply,D=Object.getOwnPropertyDescriptor,P=Object.defineProperty,S=String,SP=S.prototype,
lc=SP.toLowerCase,io=SP.indexOf,cc=SP.charCodeAt,sl=SP.slice,DE=DOMException,
ws=new WeakSet,wsa=WeakSet.prototype.add,wsh=WeakSet.prototype.has,wm=new WeakMap,wmg=WeakMap.prototype.get,wms=WeakMap.prototype.set,
H="http://www.w3.org/1999/xhtml",U=URL,here=location.href,own=new U(here).origin,MO=MutationObserver,mob=MO.prototype.observe,EP=Element.prototype,NP=Node.prototype,DP=Document.prototype,
g=(o,k)=>{const d=o&&D(o,k);return d&&(d.get||d.value)},
uo=g(U.prototype,"origin"),up=g(U.prototype,"protocol"),ln=g(EP,"localName"),ns=g(EP,"namespaceURI"),nt=g(NP,"nodeType"),od=g(NP,"ownerDocument"),pn=g(NP,"parentNode"),
an=g(Attr.prototype,"localName"),av=g(Attr.prototype,"value"),ga=EP.getAttribute,ae=g(Attr.prototype,"ownerElement"),ct=g(DP,"contentType"),
rm=EP.removeAttribute,ha=EP.hasAttribute,qs=[EP.querySelectorAll,DP.querySelectorAll,DocumentFragment.prototype.querySelectorAll],
nl=g(NodeList.prototype,"length"),ni=NodeList.prototype.item,tc=g(HTMLTemplateElement.prototype,"content"),

no=()=>{throw new DE("Fileframe's sandbox keeps scripts from giving a <link> an href, rel or imagesrcset, or an <iframe> a srcdoc: the browser would connect to their hosts.","NotAllowedError")},
bad=(e,n)=>{try{if(R(ns,e,[])!==H)return false;const l=R(ln,e,[]);
return l==="link"?n==="href"||n==="rel"||n==="imagesrcset":l==="iframe"&&n==="srcdoc"}catch{return false}},
low=v=>R(lc,S(v),[]),
ext=v=>{try{const u=new U(v,here),p=R(up,u,[]);return(p==="http:"||p==="https:")&&R(uo,u,[])!==own}catch{return false}},
anc=e=>{try{const l=R(ln,e,[]),n=R(ns,e,[]);return n===H?l==="a"||l==="area":l==="a"&&n==="http://www.w3.org/2000/svg"}catch{return false}},
nolink=()=>{throw new DE("Fileframe's sandbox keeps a page's links to other sites without an address: Firefox connects to a link's host when the pointer is over it, and the sandbox would not follow it anyway.","NotAllowedError")},
fix=e=>{if(anc(e))for(let j=0;j<2;j++){const k=j?"xlink:href":"href",v=R(ga,e,[k]);if(v!==null&&ext(v)){R(rm,e,[k]);return true}}return false},
anchors=r=>{const k=R(nt,r,[]);if(k===1)fix(r);const q=R(k===9?qs[1]:k===11?qs[2]:qs[0],r,["a,area"]),n=R(nl,q,[]);for(let i=0;i<n;i++)fix(R(ni,q,[i]))},
ok=m=>{m=R(lc,m,[]);if(R(io,m,["shadowrootmode"])>=0)return false;const t=["<link","<iframe"];
for(let j=0;j<2;j++){let i=0;while((i=R(io,m,[t[j],i]))>=0){i+=t[j].length;const c=R(cc,m,[i]);
if(c!==c||c===9||c===10||c===12||c===13||c===32||c===47||c===62)return false}}return true},
strip=r=>{anchors(r);const k=R(nt,r,[]),q=R(k===9?qs[1]:k===11?qs[2]:qs[0],r,["link,iframe,template"]),n=R(nl,q,[]);
for(let i=0;i<n;i++){const e=R(ni,q,[i]);if(R(ns,e,[])!==H)continue;const l=R(ln,e,[]);
if(l==="template")strip(R(tc,e,[]));else if(l==="link"){R(rm,e,["href"]);R(rm,e,["rel"]);R(rm,e,["imagesrcset"])}else R(rm,e,["srcdoc"])}},
hook=(o,k,w,f)=>{try{const d=D(o,k),v=d&&d[w];if(typeof v!=="function")return;
d[w]=w==="set"?D({set[k](x){return f(v,this,[x])}},k).set:w==="get"?D({get[k](){return f(v,this,[])}},k).get:{[k](...a){return f(v,this,a)}}[k];P(o,k,d)}catch{}},
doc=t=>{try{return R(nt,t,[])===9?t:R(od,t,[])}catch{return null}},
html=d=>{try{return R(ct,d,[])==="text/html"}catch{return false}},
parse=i=>(f,t,a)=>{const d=doc(t);let p=null;try{p=R(pn,t,[])}catch{}if(d&&html(d)){a[i]=S(a[i]);if(!ok(a[i]))no();const r=R(f,t,a);anchors(t);if(p)anchors(p);return r}
const r=R(f,t,a);strip(t);if(p)strip(p);return r},
attr=(f,e,a)=>{a[0]=S(a[0]);const n=low(a[0]);if(bad(e,n))no();if(a.length>1&&n==="href"&&anc(e)){a[1]=S(a[1]);if(ext(a[1]))nolink()}return R(f,e,a)},
toggle=(f,e,a)=>{a[0]=S(a[0]);if(bad(e,low(a[0])))no();return R(f,e,a)},
node=(f,e,a)=>{let n,v;try{n=low(R(an,a[0],[]));v=R(av,a[0],[])}catch{}if(n!=null){if(bad(e,n))no();if(n==="href"&&anc(e)&&ext(v))nolink()}return R(f,e,a)},
value=(f,t,a)=>{if(R(nt,t,[])===2){const e=R(ae,t,[]),n=low(R(an,t,[]));if(e&&bad(e,n))no();if(e&&n==="href"&&anc(e)){a[0]=S(a[0]);if(ext(a[0]))nolink()}}return R(f,t,a)};
hook(EP,"setAttribute","value",attr);hook(EP,"toggleAttribute","value",toggle);
hook(EP,"setAttributeNS","value",(f,e,a)=>{a[1]=S(a[1]);const q=low(a[1]),i=R(io,q,[":"]),n=i<0?q:R(sl,q,[i+1]);if(bad(e,n))no();if(n==="href"&&anc(e)){a[2]=S(a[2]);if(ext(a[2]))nolink()}return R(f,e,a)});
hook(EP,"setAttributeNode","value",node);hook(EP,"setAttributeNodeNS","value",node);
hook(Attr.prototype,"value","set",value);hook(NP,"nodeValue","set",value);hook(NP,"textContent","set",value);
hook(EP,"attributes","get",(f,e,a)=>{const m=R(f,e,a);R(wms,wm,[m,e]);return m});
for(const k of["setNamedItem","setNamedItemNS"])hook(NamedNodeMap.prototype,k,"value",(f,m,a)=>{const e=R(wmg,wm,[m]);if(e)node(()=>0,e,a);return R(f,m,a)});
for(const k of["href","rel","imageSrcset"])hook(HTMLLinkElement.prototype,k,"set",no);
hook(HTMLIFrameElement.prototype,"srcdoc","set",no);
hook(HTMLLinkElement.prototype,"relList","get",(f,e,a)=>{const l=R(f,e,a);R(wsa,ws,[l]);return l});
for(const k of["add","remove","toggle","replace"])hook(DOMTokenList.prototype,k,"value",(f,l,a)=>{if(R(wsh,ws,[l]))no();return R(f,l,a)});
hook(DOMTokenList.prototype,"value","set",(f,l,a)=>{if(R(wsh,ws,[l]))no();return R(f,l,a)});
for(const o of[EP,ShadowRoot.prototype]){hook(o,"innerHTML","set",parse(0));hook(o,"setHTMLUnsafe","value",parse(0));hook(o,"setHTML","value",parse(0))}
hook(EP,"outerHTML","set",parse(0));hook(EP,"insertAdjacentHTML","value",parse(1));
hook(Range.prototype,"createContextualFragment","value",(f,r,a)=>{const d=doc(R(g(Range.prototype,"startContainer"),r,[]));
if(d&&html(d)){a[0]=S(a[0]);if(!ok(a[0]))no();const x=R(f,r,a);anchors(x);return x}const x=R(f,r,a);strip(x);return x});
for(const k of["write","writeln"])hook(DP,k,"value",(f,d,a)=>{for(let i=0;i<a.length;i++){a[i]=S(a[i]);if(R(io,a[i],["<"])>=0)no()}return R(f,d,a)});
hook(DP,"execCommand","value",(f,d,a)=>{if(low(a[0])==="inserthtml"){a[2]=S(a[2]);if(!ok(a[2]))no()}return R(f,d,a)});
for(const k of["parseHTMLUnsafe","parseHTML"])hook(Document,k,"value",(f,d,a)=>{a[0]=S(a[0]);if(!ok(a[0]))no();const x=R(f,d,a);anchors(x);return x});
hook(DOMParser.prototype,"parseFromString","value",(f,p,a)=>{const d=R(f,p,a);strip(d);return d});
if(self.XSLTProcessor)for(const k of["transformToDocument","transformToFragment"])hook(XSLTProcessor.prototype,k,"value",(f,x,a)=>{const r=R(f,x,a);if(r)strip(r);return r});
for(const o of[HTMLAnchorElement.prototype,HTMLAreaElement.prototype])for(const k of["href","protocol","username","password","host","hostname","port","pathname","search","hash"])hook(o,k,"set",(f,e,a)=>{const r=R(f,e,a);if(fix(e))nolink();return r});
const sh=new WeakMap;hook(SVGAElement.prototype,"href","get",(f,e,a)=>{const h=R(f,e,a);R(wms,sh,[h,e]);return h});
hook(SVGAnimatedString.prototype,"baseVal","set",(f,h,a)=>{const r=R(f,h,a),e=R(wmg,sh,[h]);if(e&&fix(e))nolink();return r});
const roots=[document],mo=new MO(()=>{for(let i=0;i<roots.length;i++)anchors(roots[i])}),watch=r=>{roots[roots.length]=r;R(mob,mo,[r,{childList:true,subtree:true,attributes:true,attributeFilter:["href","xlink:href"]}])};R(mob,mo,[document,{childList:true,subtree:true,attributes:true,attributeFilter:["href","xlink:href"]}]);
hook(EP,"attachShadow","value",(f,e,a)=>{const r=R(f,e,a);watch(r);return r})}`

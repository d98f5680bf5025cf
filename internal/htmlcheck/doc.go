// Package htmlcheck validates the custom download pages that agency
// customers (usually AI agents) post through the API, before they are
// stored.
//
// A custom page is one complete HTML document that visitors see in a
// sandboxed iframe (scripts allowed, nothing else) with a strict
// Content-Security-Policy, under the service's own download control. Check
// rejects pages that cannot work there or that compete with or imitate
// that control, and warns about parts that the sandbox silently disables.
// Every finding says where (line and column, in runes), quotes the source
// and tells how to fix it, so that an agent can correct its HTML in one
// more try.
//
// Errors (the page is rejected):
//
//   - html.size: the document is larger than MaxSize (1 MiB).
//   - document.complete: not a whole document: no <html> start tag in
//     the source, no body content, or text (such as Markdown code fences)
//     before <html> or after </html>.
//   - document.single: more than one document concatenated: a second
//     <html>, <head> or <body> start tag, or a second <!DOCTYPE> after
//     content.
//   - inline.script: <script src>, <link rel=modulepreload>, static and
//     dynamic imports of modules by URL, importScripts.
//   - inline.style: <link rel=stylesheet>, CSS @import in <style> elements
//     and style attributes.
//   - image.source: an image that is not a data: URI or an absolute https:
//     URL: img src and srcset, picture source srcset, SVG image and
//     feImage href, video poster, input type=image, icon links, the legacy
//     background attribute, CSS url() and image-set() in <style> elements
//     and style attributes (read with CSS escapes decoded). Fragment
//     references such as url(#grad) are allowed.
//   - download.button: <a download>; links (a, area) and forms to this
//     service's /f/ or download URLs; links to executables and archives;
//     data: and blob: links; clickable elements (a, area, button,
//     summary, label, select, input type=button|submit|reset|image, ARIA
//     widget roles such as button, link, menuitem and tab, click and key
//     handlers, btn/button/cta classes) whose label is a call to
//     download, in English and the major languages. The label is the
//     element's text with its descendants' (SVG text, image alt text and
//     aria-label included), and its own aria-label, title, alt, and for
//     inputs value and placeholder. Any CSS string that a page can draw
//     as text (content, quotes, list markers, custom properties) and any
//     attribute that CSS draws with attr() is checked the same way,
//     whatever its selector, and counts when it is an imperative
//     ("Download now", not "Downloads"). Labels are read as a visitor
//     reads them: look-alike letters (Unicode confusables), styled and
//     full-width letters (NFKC), hidden characters, accents, spaced-out
//     letters, split words, letters hidden in between (by attributes,
//     inline styles or the rules of the page's style sheets; see
//     sheet.go and reshow.go), letters drawn in another order (bidi.go,
//     reorder.go) and words split across links side by side do not hide
//     a download word; see downloadReading and besideLabel. Only clickable elements are
//     checked, and only labels that are a call to action ("Download",
//     "Free download", "Télécharger maintenant", "Get the file"), so
//     prose such as "2M downloads" passes.
//   - phishing.clipboard: a script writes the clipboard and the page tells
//     the visitor to press Win+R, open PowerShell or a terminal, or paste
//     and press Enter (the ClickFix pattern). A copy button for a coupon
//     code passes.
//   - sandbox.resource_hint: <link rel> preconnect, dns-prefetch,
//     prefetch, prerender, preload, modulepreload or next with a URL, a
//     Link in <meta http-equiv>, and speculation rules: the browser
//     connects before any script runs, and CSP does not govern
//     preconnect and dns-prefetch.
//   - sandbox.srcdoc: <iframe srcdoc>: a document of its own, which Firefox
//     loads despite the sandbox and which the content origin's prelude
//     does not reach.
//   - sandbox.shadow_root: a closed declarative shadow root, whose
//     content the prelude cannot reach.
//
// Warnings (the page is accepted; the feature will not work):
//
//   - sandbox.form: forms cannot be submitted.
//   - sandbox.external_media: fonts, audio, video and tracks that are not
//     data: or https: URLs.
//   - sandbox.frame: iframe, frame, object, embed.
//   - sandbox.meta_refresh: <meta http-equiv=refresh>.
//   - sandbox.base: <base>.
//   - sandbox.window_open: window.open and links or forms with a target
//     that opens a new window.
//   - sandbox.top_navigation: top.location, parent.location,
//     target=_top and target=_parent.
//   - hygiene.doctype, hygiene.title, hygiene.viewport: no <!DOCTYPE>, no
//     or an empty <title>, no viewport <meta>.
//
// At most 20 errors and 5 warnings of each rule are reported (2 of each
// document.* rule), in source order: enough to show a repeated mistake
// without flooding the response.
//
// # Remote URLs
//
// Check also lists, in Result.Refs, every absolute https: URL that the
// page loads as an image, a font, audio or video, or a text track, in
// source order and duplicates included, as the browser reads it
// (character references and CSS escapes decoded, white space trimmed),
// with where it is: the places of image.source and
// sandbox.external_media (see Ref), a <source> or <track> only in the
// <picture>, <audio> or <video> that it serves; whatever the findings,
// but none for a document larger than MaxSize. Fileframe fetches them
// when a page is saved and serves the page with its own copies: Rewrite
// replaces them, at exactly the places Check recorded and written as each
// place needs (an attribute value, a srcset candidate, a CSS string),
// leaving the rest of the document byte for byte as it was; see Rewrite
// for what it writes. A URL that a script builds, or that the browser
// reads where these scanners do not look, is not listed and not
// rewritten; the content origin's Content-Security-Policy keeps it from
// loading. Such places are: url( written with escapes in its name
// (u\72l(…)), CSS src() and image(), SVG presentation attributes
// (fill="url(…)", mask, filter), MathML <mglyph src>, frames, srcdoc and
// objects (see sandbox.frame), and the CSS of an SVG <style> split by
// comments, CDATA sections or elements, which is read piece by piece.
//
// The document is tokenized with golang.org/x/net/html; CSS and JavaScript
// are searched with small scanners that know strings and comments well
// enough to find URLs and a handful of calls, not full parsers. Check is
// fast enough to run inline on every request: see BenchmarkCheck1MiB.
package htmlcheck

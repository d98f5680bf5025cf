package htmlcheck

// Rule names, as they appear in Finding.Rule.
const (
	RuleSize                 = "html.size"
	RuleDocumentComplete     = "document.complete"
	RuleDocumentSingle       = "document.single"
	RuleInlineScript         = "inline.script"
	RuleInlineStyle          = "inline.style"
	RuleImageSource          = "image.source"
	RuleDownloadButton       = "download.button"
	RulePhishingClipboard    = "phishing.clipboard"
	RuleSandboxForm          = "sandbox.form"
	RuleSandboxExternalMedia = "sandbox.external_media"
	RuleSandboxFrame         = "sandbox.frame"
	RuleSandboxMetaRefresh   = "sandbox.meta_refresh"
	RuleSandboxBase          = "sandbox.base"
	RuleSandboxWindowOpen    = "sandbox.window_open"
	RuleSandboxTopNavigation = "sandbox.top_navigation"
	RuleSandboxResourceHint  = "sandbox.resource_hint"
	RuleSandboxSrcdoc        = "sandbox.srcdoc"
	RuleSandboxShadowRoot    = "sandbox.shadow_root"
	RuleHygieneDoctype       = "hygiene.doctype"
	RuleHygieneTitle         = "hygiene.title"
	RuleHygieneViewport      = "hygiene.viewport"
)

// rule indexes the rules table.
type rule int

const (
	ruleSize rule = iota
	ruleDocumentComplete
	ruleDocumentSingle
	ruleInlineScript
	ruleInlineStyle
	ruleImageSource
	ruleDownloadButton
	rulePhishingClipboard
	ruleSandboxForm
	ruleSandboxExternalMedia
	ruleSandboxFrame
	ruleSandboxMetaRefresh
	ruleSandboxBase
	ruleSandboxWindowOpen
	ruleSandboxTopNavigation
	ruleSandboxResourceHint
	ruleSandboxSrcdoc
	ruleSandboxShadowRoot
	ruleHygieneDoctype
	ruleHygieneTitle
	ruleHygieneViewport
	numRules
)

// Caps on findings per rule keep a response small when a document repeats one
// mistake thousands of times; the first ones are enough to fix the pattern.
const (
	maxErrorsPerRule   = 20
	maxWarningsPerRule = 5
)

var rules = [numRules]struct {
	name string
	sev  Severity
	hint string
}{
	ruleSize: {RuleSize, SeverityError,
		"Make the document at most 1 MiB (1,048,576 bytes of UTF-8): shrink or recompress data: URI images, or link large images by absolute https:// URL instead."},
	ruleDocumentComplete: {RuleDocumentComplete, SeverityError,
		"Send one complete HTML document, <!DOCTYPE html><html><head>…</head><body>…</body></html>, with the visible content inside <body> and nothing (no Markdown code fences or explanations) before <html> or after </html>."},
	ruleDocumentSingle: {RuleDocumentSingle, SeverityError,
		"Send exactly one HTML document: merge the content into a single <html> element with one <head> and one <body>, and remove the second <!DOCTYPE>/<html>/<head>/<body>."},
	ruleInlineScript: {RuleInlineScript, SeverityError,
		"Put all JavaScript inline in <script> elements without src, and do not import modules by URL; the sandbox loads no external scripts. Copy the code you need into the page."},
	ruleInlineStyle: {RuleInlineStyle, SeverityError,
		"Inline the stylesheet in a <style> element in <head> and remove <link rel=stylesheet> and @import; external stylesheets are not loaded."},
	ruleImageSource: {RuleImageSource, SeverityError,
		"Use an absolute https:// URL for the image or embed it as a data: URI (data:image/png;base64,… or data:image/svg+xml,…); relative paths, http:, protocol-relative (//host) and other URLs do not load."},
	ruleDownloadButton: {RuleDownloadButton, SeverityError,
		"Remove this download button or link: the service draws its own download control over the page, at the bottom right (a bar along the bottom on phones). Rewording does not help: labels are read as a visitor reads them (look-alike or styled letters, hidden characters, spaced letters, CSS content, SVG text and image alt text included). Point visitors to the control with wording that is not a button or link (e.g. a paragraph saying \"use the download button at the bottom right\")."},
	rulePhishingClipboard: {RulePhishingClipboard, SeverityError,
		"Do not copy text to the visitor's clipboard while telling them to paste it into Run (Win+R), PowerShell, a terminal or a command prompt; remove the clipboard write or those instructions."},
	ruleSandboxForm: {RuleSandboxForm, SeverityWarning,
		"Forms cannot be submitted from the sandbox; remove the <form> or handle the input with inline JavaScript without submitting it anywhere."},
	ruleSandboxExternalMedia: {RuleSandboxExternalMedia, SeverityWarning,
		"Use an absolute https:// URL or a data: URI for fonts, audio, video and text tracks; relative and http: sources do not load in the sandbox."},
	ruleSandboxFrame: {RuleSandboxFrame, SeverityWarning,
		"Remove <iframe>, <object> and <embed>: the sandbox loads no frames or plugins. Inline the content or link to it with an https:// link instead."},
	ruleSandboxMetaRefresh: {RuleSandboxMetaRefresh, SeverityWarning,
		"Remove <meta http-equiv=\"refresh\">: the page cannot redirect or reload itself in the sandbox."},
	ruleSandboxBase: {RuleSandboxBase, SeverityWarning,
		"Remove <base>: the sandbox ignores it (base-uri 'none'); write absolute https:// URLs instead."},
	ruleSandboxWindowOpen: {RuleSandboxWindowOpen, SeverityWarning,
		"Popups are blocked in the sandbox: window.open and target=\"_blank\" do nothing. Show the content in the page (e.g. a dialog) or use a plain link without a target."},
	ruleSandboxTopNavigation: {RuleSandboxTopNavigation, SeverityWarning,
		"The page cannot navigate the top window (top.location, parent.location, target=\"_top\"/\"_parent\"); remove it, the visitor stays on the download page."},
	ruleSandboxResourceHint: {RuleSandboxResourceHint, SeverityError,
		"Remove the resource hint (<link rel=preconnect, dns-prefetch, prefetch, prerender, preload, modulepreload or next>, a Link in <meta http-equiv>, speculation rules): the browser connects to its host before any script runs, and the sandbox's Content-Security-Policy does not govern all of them. Images are fetched when they are used; a hint is not needed."},
	ruleSandboxSrcdoc: {RuleSandboxSrcdoc, SeverityError,
		"Remove the srcdoc frame and put its content in the page itself: a frame made from srcdoc is a document of its own that the service's safeguards do not reach, and in Firefox it loads despite the sandbox and can connect to other hosts."},
	ruleSandboxShadowRoot: {RuleSandboxShadowRoot, SeverityError,
		"Use shadowrootmode=\"open\" (or no shadow root): the content of a closed declarative shadow root is out of the service's safeguards' reach, and in Firefox a link in it connects to its host when hovered."},
	ruleHygieneDoctype: {RuleHygieneDoctype, SeverityWarning,
		"Start the document with <!DOCTYPE html> so browsers render it in standards mode."},
	ruleHygieneTitle: {RuleHygieneTitle, SeverityWarning,
		"Add a non-empty <title> inside <head> that names the page or the file."},
	ruleHygieneViewport: {RuleHygieneViewport, SeverityWarning,
		"Add <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"> inside <head> so the page fits phone screens."},
}

// knownRule reports whether name is one of the rule names above.
func knownRule(name string) bool {
	for _, r := range rules {
		if r.name == name {
			return true
		}
	}
	return false
}

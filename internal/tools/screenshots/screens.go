package main

import "net/http"

// screen is one screen of the app, captured at every size as
// <name>-<size>.png.
type screen struct {
	name  string // the file names' stem, stable: docs and links use it
	title string // for the index
	stage stage  // how far the instance is filled when it is taken
	as    person // whose browser looks at it
	// path is the address to open: a path of the app origin, or an absolute
	// URL.
	path func(d *demo) string
	// status is the status the page must answer; 0 means 200.
	status int
	// click, when set, is the CSS selector of a form's submit button to
	// click once the page is loaded: the screen is the page the form
	// answers with (at the same address, with the same status).
	click string
}

// at returns a screen's path function for a fixed path.
func at(p string) func(*demo) string { return func(*demo) string { return p } }

// publicLink returns a screen's path function for the public link of a demo
// file.
func publicLink(id string) func(*demo) string {
	return func(d *demo) string { return d.files[id].URL() }
}

// filePage returns a screen's path function for the page of a demo file
// in the app.
func filePage(id string) func(*demo) string {
	return func(d *demo) string { return "/files/" + string(d.files[id].ID) }
}

// fileStats returns a screen's path function for the stats page of a demo
// file.
func fileStats(id string) func(*demo) string {
	return func(d *demo) string { return filePage(id)(d) + "/stats" }
}

// screens lists every screen, in the order they are taken (by stage). A
// screen is listed once its route exists: the tool fails on any status but
// the expected one, so that it never captures a broken or missing page.
// Numbered names are the application's pages in the order a new user meets
// them; public-* are what visitors of a link see.
var screens = []screen{
	{name: "01-setup", title: "Setup (fresh instance)", stage: fresh, as: visitor, path: at("/setup")},
	{name: "02-login", title: "Sign in", stage: accounts, as: visitor, path: at("/login")},
	{name: "03-signup", title: "Sign up", stage: accounts, as: visitor, path: at("/signup")},
	{name: "04-files-empty", title: "Files, before the first upload", stage: accounts, as: member, path: at("/files")},
	{name: "05-files", title: "Files", stage: seeded, as: admin, path: at("/files")},
	{name: "06-file-page", title: "File page with a published custom page", stage: seeded, as: admin, path: filePage("lookbook")},
	{name: "07-file-page-draft", title: "File page with a draft custom page", stage: seeded, as: admin, path: filePage("guidelines")},
	{name: "08-file-page-free-plan", title: "File page on the Free plan", stage: seeded, as: member, path: filePage("photos")},
	{name: "09-appearance", title: "Appearance: the account's branding, with its live preview", stage: seeded, as: admin, path: at("/appearance")},
	{name: "10-file-appearance", title: "Appearance of one file", stage: seeded, as: admin, path: func(d *demo) string { return filePage("shoot")(d) + "/appearance" }},
	{name: "11-account", title: "Account (admin on Agency)", stage: seeded, as: admin, path: at("/account")},
	{name: "12-keys", title: "API keys", stage: seeded, as: admin, path: at("/keys")},
	{name: "13-keys-new-key", title: "API keys: a new key, shown once", stage: seeded, as: admin, path: at("/keys"), click: ".keys-form button[type=submit]"},
	{name: "14-keys-free-plan", title: "API keys on the Free plan", stage: seeded, as: member, path: at("/keys")},
	{name: "15-admin", title: "Admin: accounts", stage: seeded, as: admin, path: at("/admin")},
	{name: "16-not-found", title: "Not found (in the app)", stage: seeded, as: admin, path: at("/files/f_NoSuchFile00000"), status: http.StatusNotFound},
	{name: "17-collection-page", title: "A collection's page: its files, remove, add", stage: seeded, as: admin, path: filePage("campaign")},
	{name: "18-requests", title: "File requests", stage: seeded, as: admin, path: at("/requests")},
	{name: "19-request-received", title: "A file request: who sent what and when, Share per file", stage: seeded, as: admin, path: at("/requests/" + string(demoRequestID))},
	{name: "20-webhooks", title: "Webhooks: the endpoints and the form that adds one", stage: seeded, as: admin, path: at("/webhooks")},
	{name: "21-webhook-log", title: "A webhook's delivery log: state, attempts, last answer, next attempt, Send again", stage: seeded, as: admin, path: at("/webhooks/" + string(demoWebhookID))},
	{name: "22-webhooks-free-plan", title: "Webhooks on the Free plan", stage: seeded, as: member, path: at("/webhooks")},
	{name: "23-stats-file", title: "A file's stats: totals, the chart over 30 days, the pages shown and where visitors came from", stage: seeded, as: admin, path: fileStats("teaser")},
	{name: "24-ab-test-running", title: "A/B test of two revisions of a custom page, with enough visitors for a verdict", stage: seeded, as: admin, path: fileStats("offer")},
	{name: "25-stats-overview", title: "Stats of the whole account, file by file", stage: seeded, as: admin, path: at("/stats")},
	{name: "public-default", title: "Public link: default page", stage: seeded, as: visitor, path: publicLink("photos")},
	{name: "public-custom-page", title: "Public link: published custom page", stage: seeded, as: visitor, path: publicLink("lookbook")},
	{name: "public-template-minimal", title: "Public link: Minimal template", stage: seeded, as: visitor, path: publicLink("invoice")},
	{name: "public-template-bold", title: "Public link: Bold template", stage: seeded, as: visitor, path: publicLink("teaser")},
	{name: "public-template-photo", title: "Public link: Photo template", stage: seeded, as: visitor, path: publicLink("shoot")},
	{name: "public-template-card", title: "Public link: Card template (the account's appearance)", stage: seeded, as: visitor, path: publicLink("presskit")},
	{name: "public-collection", title: "Public link: a collection (the account's Card template), each file and all as one ZIP", stage: seeded, as: visitor, path: publicLink("campaign")},
	{name: "public-draft-preview", title: "Public link: draft preview", stage: seeded, as: visitor, path: func(d *demo) string { return d.previewURL }},
	{name: "public-password", title: "Public link: password page (the owner's look; the link reveals the file's name)", stage: seeded, as: visitor, path: publicLink("showreel")},
	{name: "public-preview-image", title: "Public link: default page previewing an image (a thumbnail made once)", stage: seeded, as: visitor, path: publicLink("dusk")},
	{name: "public-preview-pdf", title: "Public link: template page previewing a PDF's first page", stage: seeded, as: visitor, path: publicLink("catalogue")},
	{name: "public-request", title: "File request page (the owner's look), with what this visit sent", stage: seeded, as: sender, path: at("/r/" + demoRequestSlug)},
	{name: "public-not-found", title: "Public link: not found", stage: seeded, as: visitor, path: at("/f/no-such-link"), status: http.StatusNotFound},
}

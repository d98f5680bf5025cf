package htmlcheck

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// firstRoundExts are the endings executableExts had at fd5af59; a link
// to each of the others was accepted there.
var firstRoundExts = strings.Fields(`.exe .msi .dmg .pkg .apk .zip .rar .7z .tar .gz .tgz .bz2 .xz .iso
	.bat .cmd .ps1 .sh .jar .deb .rpm .appimage .scr .vbs .msix .appx .xapk .ipa`)

// linkEvasions are link targets (a href, or form actions) to a program,
// an archive, a program-launching scheme or this service's file pages
// that the checker at fd5af59 accepted (the second outside tester's
// list); testOptions names files.example.com and 127.0.0.1:8080 as the
// service's hosts.
var linkEvasions = []string{
	// Path parameters, Windows' trailing junk, double encoding.
	"/setup.exe;jsessionid=1",
	"/setup.exe;.txt",
	"https://dl.example.com/setup.exe%00",
	"https://dl.example.com/setup.exe::$DATA",
	"https://dl.example.com/setup%252eexe",
	// A final slash (the third outside tester's).
	"https://dl.example.com/setup.exe/",
	"/tools/setup.msi//",
	// The file name in the query.
	"/get?file=setup.exe",
	"/dl?name=x.msi&x=1",
	"https://dl.example.com/fetch?u=https%3A%2F%2Fcdn.example.com%2Finstaller.msi",
	"https://dl.example.com/get?f=tool.ps1&t=1",
	// Schemes that launch programs or fetch files outside the web.
	"ms-msdt:/id PCWDiagnostic /skip force",
	"search-ms:query=invoice&crumb=location:\\\\attacker.example\\share",
	"ms-appinstaller:?source=https://attacker.example/app.appinstaller",
	"ms-officecmd:{\"id\":3}",
	"ms-word:ofe|u|https://attacker.example/invoice.docx",
	"MS-EXCEL:ofv|u|https://attacker.example/a.xlsx",
	"file://attacker.example/share/invoice.pdf",
	"smb://attacker.example/share",
	"jar:https://attacker.example/app.zip!/",
	"itms-services://?action=download-manifest&url=https://attacker.example/m.plist",
	"intent://scan/#Intent;scheme=zxing;package=com.example;end",
	"onenote:https://attacker.example/a.one",
	"ms-settings:windowsdefender",
	"https://dl.example.com/get?f=book.xlam",
	// Read as browsers read URLs: tab, newline and controls dropped.
	"https://dl.example.com/setup.e\txe",
	"https://dl.example.com/setup.e\nxe",
	"da\tta:text/html,hi",
	"\x01data:application/octet-stream,MZ",
	"bl\nob:https://x.example/1",
	"\x01 ms-msdt:/id x",
	// This service's file pages, spelt as browsers accept them.
	"/%66/x",
	"/f%2Fslug",
	"\\f\\slug",
	"/f\t/slug",
	"https:/f/x",
	"https:\\\\files.example.com\\f\\x",
	"https:../../f/x",
	"https://files%2eexample.com/f/x",
	"http://0x7f.1:8080/f/x",
	"http://2130706433:8080/f/x",
	"http://127.1:8080/f/x",
	"http://0177.0.0.01:8080/f/x",
	"http://[::ffff:127.0.0.1]:8080/f/x",
	"https:///files.example.com/f/x",
	// Host names that browsers map (UTS #46) to the service's (fourth
	// outside attack, rows 20-21).
	"https://fileſ.example.com/f/x",
	"https://ｆｉｌｅｓ.example.com/f/x",
	"https://files。example。com/f/x",
	"https://files．example．com/f/x",
	"https://files｡example｡com/f/x",
	"https://files.exam\u00adple.com/f/x",
	"https://files.example.com\u200b/f/x",
	"https://FILES.EXAMPLE.ＣＯＭ/f/x",
	"https://files%E3%80%82example.com/f/x",
	"https://%EF%BD%86iles.example.com/f/x",
	"https://files.example.com。/f/x",
	"http://127。0。0。1:8080/f/x",
	"http://１２７.０.０.１:8080/f/x",
	"http://127.0.0.1\u200b:8080/f/x",
}

func linkEvasionRows() []string {
	rows := slices.Clone(linkEvasions)
	for _, ext := range executableExts {
		if !slices.Contains(firstRoundExts, ext) {
			rows = append(rows, "https://dl.example.com/tool"+ext)
		}
	}
	return rows
}

func TestLinkEvasions(t *testing.T) {
	for _, href := range linkEvasionRows() {
		t.Run(strconv.Quote(href), func(t *testing.T) {
			for _, body := range []string{
				`<a href="` + escapeAttr(href) + `">Read the guide</a>`,
				`<form action="` + escapeAttr(href) + `"><button>Send</button></form>`,
			} {
				r := Check([]byte(page(body)), testOptions)
				if got := ruleNames(r.Errors); !slices.Contains(got, RuleDownloadButton) {
					t.Errorf("%q: got errors %v, want %s", body, got, RuleDownloadButton)
				}
			}
		})
	}
}

// escapeAttr writes s as a double-quoted attribute value.
func escapeAttr(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `"`, "&quot;").Replace(s)
}

// TestLinksAllowed are links that the second round's reading of URLs
// must keep accepting.
func TestLinksAllowed(t *testing.T) {
	for _, href := range []string{
		"https://example.com", "https://www.example.com/about", "www.example.com",
		"https://example.com/?ref=example.com", "mailto:x@example.com", "tel:+1-555-0100",
		"https://docs.example.org/page?file=report.pdf&lang=en", "/files/report.pdf",
		"https://files.example.com/", "https://files.example.com/F/x",
		"https://docs.example.com/f/x", "https://files.example.com.evil.example/f/x",
		"http://127.0.0.2:8080/f/x", "http://127.0.0.1:9090/f/x",
		"https://example.com/setup.exe.html", "https://example.com/app.js.map#x",
		"https://example.com/page#setup.exe", "https://apps.apple.com/app/id1",
		"https://play.google.com/store/apps/details?id=com.example.app",
		"#top", "?page=2", "https://example.com/blog/python-3.12-released",
		"https://example.com/search?q=download+speed",
		// Web pages named like .js, .pl and .com files, and share links
		// whose parameter is a site (fourth outside attack, rows 35-37).
		"https://github.com/mrdoob/three.js", "https://github.com/vercel/next.js/",
		"https://github.com/chartjs/Chart.js", "https://en.wikipedia.org/wiki/Node.js",
		"https://stackoverflow.com/questions/tagged/node.js", "https://www.google.com/search?q=three.js",
		"https://example.com/blog/why-we-moved-to-next.js", "https://en.wikipedia.org/wiki/Booking.com",
		"https://web.archive.org/web/2020/https://example.com", "https://example.com/perl/script.pl",
		"https://twitter.com/intent/tweet?url=https://allegro.pl",
		"https://www.linkedin.com/sharing/share-offsite/?url=https://example.pl",
		"https://twitter.com/intent/tweet?url=https%3A%2F%2Fbrew.sh%2F&text=Homebrew",
		"https://www.facebook.com/sharer/sharer.php?u=https://get.sh",
	} {
		body := `<a href="` + escapeAttr(href) + `">Read the guide</a>`
		r := Check([]byte(page(body)), testOptions)
		for _, f := range r.Errors {
			t.Errorf("%q: got %s: %s", href, f.Rule, f.Message)
		}
	}
}

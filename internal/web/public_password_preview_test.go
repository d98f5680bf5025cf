package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestProtectedLinkPreviewTags: a messenger's crawler (no cookie) that
// fetches a protected link gets the password page with link preview tags
// that reveal only what the owner allows.
func TestProtectedLinkPreviewTags(t *testing.T) {
	e := newTestEnv(t, cheapHashes(t))
	a, f := e.agencyFile("quarterly report.pdf", []byte("the secret bytes"))
	e.setAccountLook(a, fileframe.Appearance{Template: "card", Headline: "Northwind Studio"})
	crawl := func() string {
		req, _ := http.NewRequest(http.MethodGet, e.app.URL+"/f/"+f.Slug, nil)
		req.Header.Set("User-Agent", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)")
		_, body := e.do(req)
		return string(body)
	}
	f = e.protect(a, f, linkPassword, fileframe.RevealNothing)
	body := crawl()
	if !isPasswordPage(body) || !strings.Contains(body, `<meta property="og:title" content="A file shared with you">`) {
		t.Fatalf("reveal nothing: not the password page with generic tags:\n%s", body)
	}
	// (The owner's headline is the page's branding, shown either way.)
	for _, leak := range []string{"quarterly report", "16 B"} {
		if strings.Contains(body, leak) {
			t.Errorf("reveal nothing: the page shows %q", leak)
		}
	}
	f = e.protect(a, f, linkPassword, fileframe.RevealName)
	body = crawl()
	if !strings.Contains(body, `<meta property="og:title" content="quarterly report.pdf">`) || !strings.Contains(body, `<meta property="og:description" content="16 B">`) {
		t.Errorf("reveal name: want the name and size in the tags:\n%s", body)
	}
}

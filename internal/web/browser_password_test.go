package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// protectedPage is the custom page of TestBrowserLinkPassword: it says when
// it has run.
const protectedPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Protected campaign</title></head>
<body>
<h1 id="marker">PROTECTED-CAMPAIGN-PAGE</h1>
<script>document.documentElement.dataset.ready = "1";</script>
</body>
</html>
`

// TestBrowserLinkPassword: in Chromium, a password-protected link with a
// published custom page first shows the password page (no frame, nothing
// of the custom page); after the password is typed, the custom page in its
// frame under the download control; and the content URL without the
// frame's access token is refused.
func TestBrowserLinkPassword(t *testing.T) {
	t.Parallel()
	env := newBrowserEnv(t, published)
	e, tab := env.testEnv, env.tab
	outer := env.show(t, []byte(protectedPage))
	pw := "a long link password"
	reveal := fileframe.RevealNothing
	if _, err := e.srv.svc.SetLink(context.Background(), env.account, env.file.ID, service.LinkChange{Password: &pw, Reveal: &reveal}); err != nil {
		t.Fatal(err)
	}

	env.navigate(t, outer)
	if !eval[bool](t, tab, `!!document.querySelector('form.ff-lock-form') && !document.querySelector('iframe')`) {
		t.Fatalf("not the password page: %s", eval[string](t, tab, "document.documentElement.outerHTML"))
	}
	if got := eval[string](t, tab, "document.body.innerText"); strings.Contains(got, "PROTECTED-CAMPAIGN-PAGE") || strings.Contains(got, "report.pdf") {
		t.Errorf("the password page shows the page or the file's name: %q", got)
	}
	if env.frameTarget(t) != nil {
		t.Errorf("the password page loaded the content origin")
	}

	// A wrong password first: the page again, with its error.
	run(t, tab, chromedp.SendKeys(chromedp.CSS("#ff-password"), "not the password"))
	run(t, tab, chromedp.Click(chromedp.CSS("button.ff-lock-button")))
	poll(t, "the wrong password's answer", func() bool {
		ok, err := tryEval[bool](tab, `!!document.querySelector('.ff-lock-error')`)
		return err == nil && ok
	})
	run(t, tab, chromedp.SendKeys(chromedp.CSS("#ff-password"), pw))
	run(t, tab, chromedp.Click(chromedp.CSS("button.ff-lock-button")))
	poll(t, "the outer page after the password", func() bool {
		ok, err := tryEval[bool](tab, `!!document.querySelector('iframe.ff-frame') && !!document.querySelector('#ff-control a.ff-download')`)
		return err == nil && ok
	})
	if got := env.location(t); got != outer {
		t.Errorf("after the password the tab is at %s, want %s", got, outer)
	}
	env.waitFrame(t, "ready")
	if got := eval[string](t, env.frame(t), "document.getElementById('marker').textContent"); got != "PROTECTED-CAMPAIGN-PAGE" {
		t.Errorf("the frame shows %q", got)
	}
	onTop := `(() => { const r = document.querySelector('.ff-download').getBoundingClientRect();
		const el = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
		return !!el && !!el.closest('.ff-download'); })()`
	if !eval[bool](t, tab, onTop) {
		t.Errorf("the download control is not on top at its centre")
	}
	// The cookie is the page's alone: no script of the page can read it.
	if got := eval[string](t, tab, "document.cookie"); strings.Contains(got, linkCookieName) {
		t.Errorf("document.cookie shows the link's cookie: %q", got)
	}

	// The frame's address without its access token, as a frame asks for
	// it: refused, and nothing of the page in the answer.
	frame := eval[string](t, tab, "document.querySelector('iframe.ff-frame').src")
	i := strings.Index(frame, "?access=")
	if i < 0 {
		t.Fatalf("the frame's address has no access token: %s", frame)
	}
	// The test's content origin has a name only the browser resolves.
	direct := e.content.URL + strings.TrimPrefix(frame[:i], env.contentOrigin())
	resp, body := e.get(direct, "Sec-Fetch-Dest", "iframe")
	if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "PROTECTED-CAMPAIGN-PAGE") {
		t.Errorf("the content URL without the password: got %d\n%s", resp.StatusCode, body)
	}
	// And in the browser: the frame sent to that address shows the
	// content origin's refusal, not the page.
	eval[bool](t, tab, `(() => { document.querySelector('iframe.ff-frame').src = `+strconv.Quote(frame[:i])+`; return true; })()`)
	poll(t, "the frame's refusal", func() bool {
		got, err := tryEval[string](env.frame(t), "location.href + ' ' + document.body.innerText")
		return err == nil && strings.HasPrefix(got, frame[:i]+" ") && strings.Contains(got, "protected by a password")
	})
	if got := eval[string](t, env.frame(t), "document.documentElement.outerHTML"); strings.Contains(got, "PROTECTED-CAMPAIGN-PAGE") {
		t.Errorf("the frame without its token shows the page:\n%s", got)
	}
}

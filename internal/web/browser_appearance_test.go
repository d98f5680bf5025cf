package web

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestBrowserAppearance: in a real browser, a template page's accent
// arrives through its hash-allowed <style> (the CSP lets it apply), the
// download control stays on top, and the editor's live preview follows the
// form as it is typed in.
func TestBrowserAppearance(t *testing.T) {
	t.Parallel()
	// The sandbox tests' environment, for its browser tab; its variant
	// does not matter here.
	env := newBrowserEnv(t, published)
	e, tab := env.testEnv, env.tab
	b, a := signedInAs(e, "pro@example.com", fileframe.PlanPro)
	f := e.file(a, "report.pdf", []byte("%PDF"))
	e.setAccountLook(a, fileframe.Appearance{Template: "bold", Headline: "Saved", Accent: "#123456"})
	app := env.appOrigin()
	env.callBrowser(t, func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{
			Name: "ff_session", Value: b.cookies["ff_session"], URL: app + "/",
		})
		return err
	})

	run(t, tab, chromedp.Navigate(app+"/f/"+f.Slug))
	if got := eval[string](t, tab, "getComputedStyle(document.body).backgroundColor"); got != "rgb(18, 52, 86)" {
		t.Errorf("the Bold page's background: got %s, want the accent rgb(18, 52, 86)", got)
	}
	if got := eval[string](t, tab, "getComputedStyle(document.querySelector('.ff-download')).color"); got != "rgb(18, 52, 86)" {
		t.Errorf("the control's text: got %s, want the accent on white", got)
	}
	onTop := `(() => { const r = document.querySelector('.ff-download').getBoundingClientRect();
		const el = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
		return !!el && !!el.closest('.ff-download'); })()`
	if !eval[bool](t, tab, onTop) {
		t.Errorf("the download control is not on top at its centre")
	}

	run(t, tab, chromedp.Navigate(app+"/appearance"))
	frameHas := func(expr string) func() bool {
		return func() bool {
			return eval[bool](t, tab, `(() => { const d = document.querySelector('[data-ap-frame]').contentDocument;
				return !!d && !!d.body && d.readyState === 'complete' && (`+expr+`); })()`)
		}
	}
	poll(t, "the preview of the saved appearance", frameHas(`d.body.dataset.template === 'bold' && d.body.innerText.includes('Saved')`))
	eval[bool](t, tab, `(() => { const h = document.querySelector('#ap-headline'); h.value = 'Typed live';
		h.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
	poll(t, "the preview of the typed headline", frameHas(`d.body.innerText.includes('Typed live')`))
	eval[bool](t, tab, `(() => { document.querySelector('input[name=template][value=card]').click(); return true; })()`)
	// A new template brings its own accent only in place of the old
	// template's: the accent chosen here is kept.
	poll(t, "the preview of the Card template", frameHas(`d.body.dataset.template === 'card' &&
		getComputedStyle(d.querySelector('.tpl-cover')).backgroundColor === 'rgb(18, 52, 86)'`))
	if got := eval[string](t, tab, "document.querySelector('#ap-accent').value"); got != "#123456" {
		t.Errorf("accent after changing template: got %s, want the chosen #123456 kept", got)
	}
	if got, _ := e.store.AccountAppearance(t.Context(), a.ID); got.Headline != "Saved" {
		t.Errorf("the live preview saved %+v", got)
	}
}

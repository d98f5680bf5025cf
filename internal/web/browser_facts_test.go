package web

// The file's facts a custom page shows (content_prelude.go) and the place
// of the download control that docs/api.md gives page authors, in a real
// browser.

import (
	"context"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/fileframe/fileframe/docs"
)

// factsPage shows the file's facts the two ways docs/api.md offers: marked
// elements, and window.fileframe read by the page's own script, which also
// records what it could change of the facts (nothing).
const factsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Facts</title>
</head>
<body>
<h1><span data-fileframe="name">placeholder</span></h1>
<p><span data-fileframe="size"></span> · <span data-fileframe="type"></span> · <b data-fileframe="url">not a fact it fills</b></p>
<p><a href="https://example.com/" id="in-link"><span data-fileframe="name">kept</span></a>
<button type="button" id="in-button" data-fileframe="name">kept</button>
<span role="button" id="in-role" data-fileframe="name">kept</span></p>
<script>
document.addEventListener("DOMContentLoaded", () => {
	const f = window.fileframe;
	try { f.name = "changed"; } catch {}
	try { window.fileframe = {name: "replaced"}; } catch {}
	try { delete window.fileframe; } catch {}
	window.results = {
		facts: JSON.stringify(window.fileframe),
		frozen: String(Object.isFrozen(window.fileframe) && window.fileframe === f),
		scripts: String(document.scripts.length),
	};
	document.documentElement.dataset.done = "1";
});
</script>
</body>
</html>
`

// TestBrowserFileFacts: a page with <span data-fileframe="name"> shows its
// file's name, size and type, and after a rename the new name, from the
// same stored HTML; window.fileframe has the facts and cannot be changed,
// and the prelude's own script is gone from the document.
func TestBrowserFileFacts(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b *browserEnv) {
		outer := b.open(t, []byte(factsPage))
		text := func(what string) string {
			return eval[string](t, b.frame(t), fmt.Sprintf(`document.querySelector('[data-fileframe=%q]').textContent`, what))
		}
		size := int64(len(b.genuine))
		for what, want := range map[string]string{
			"name": "report.pdf", "size": humanSize(size), "type": "application/octet-stream",
			"url": "not a fact it fills",
		} {
			if got := text(what); got != want {
				t.Errorf(`data-fileframe=%q shows %q, want %q`, what, got, want)
			}
		}
		// Nothing clickable gets the name as its label: a file named
		// "Download now.exe" must not label a page's own link or button.
		for _, id := range []string{"in-link", "in-button", "in-role"} {
			if got := eval[string](t, b.frame(t), fmt.Sprintf(`document.getElementById(%q).textContent`, id)); got != "kept" {
				t.Errorf("#%s shows %q: the name was written into something clickable", id, got)
			}
		}
		res := b.results(t)
		want := fmt.Sprintf(`{"name":"report.pdf","size":%d,"sizeText":%q,"type":"application/octet-stream","url":%q}`,
			size, humanSize(size), b.srv.publicURL(b.file.URL()))
		if res["facts"] != want {
			t.Errorf("window.fileframe is %s, want %s", res["facts"], want)
		}
		if res["frozen"] != "true" {
			t.Errorf("the page could change or replace window.fileframe")
		}
		if res["scripts"] != "1" {
			t.Errorf("the page's document has %s scripts, want its own one only", res["scripts"])
		}

		// Renamed, with the same revision: the page shows the new name.
		const renamed = "Renamed </script> report.pdf"
		if err := b.srv.svc.RenameFile(context.Background(), b.account, b.file.ID, renamed); err != nil {
			t.Fatalf("RenameFile: %v", err)
		}
		b.navigate(t, outer)
		poll(t, "the page to show the new name", func() bool {
			got, err := tryEval[string](b.frame(t), `document.readyState !== "loading" && document.querySelector('[data-fileframe=name]').textContent`)
			return err == nil && got == renamed
		})
		if got := eval[string](t, b.frame(t), `window.fileframe.name`); got != renamed {
			t.Errorf("after the rename, window.fileframe.name is %q, want %q", got, renamed)
		}
	})
}

// controlRoom is where docs/api.md ("Page layout and the download
// control") says the control is, read from its table.
type controlRoom struct {
	breakpoint int // the phone layout's widest window, from the CSS media query
	// Desktop.
	desktopEdge, desktopHeight, desktopMaxWidth int
	// Phone.
	phoneEdge, phoneHeight, phoneWrappedHeight, phoneInset int
	// leave is the room the document tells pages to leave at the bottom.
	leave int
}

// documentedRoom reads controlRoom from docs/api.md, and fails when a
// sentence it reads has been reworded: the test and the document must be
// changed together.
func documentedRoom(t *testing.T) controlRoom {
	t.Helper()
	doc := docs.API()
	num := func(re string, n int) []int {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(doc)
		if len(m) != n+1 {
			t.Fatalf("docs/api.md has no line matching %s", re)
		}
		var out []int
		for _, s := range m[1:] {
			v, _ := strconv.Atoi(s)
			out = append(out, v)
		}
		return out
	}
	var r controlRoom
	d := num(`(?m)^\| Desktop \(wider than (\d+) px\) \| fixed at the bottom right, (\d+) px from the right and bottom edges \| (\d+) px tall, up to (\d+) px wide`, 4)
	r.breakpoint, r.desktopEdge, r.desktopHeight, r.desktopMaxWidth = d[0], d[1], d[2], d[3]
	p := num(`(?m)^\| Phone \((\d+) px wide or less\) \| a bar across the bottom, (\d+) px from the left, right and bottom edges \| (\d+) px tall \((\d+) px when a long name wraps\), as wide as the window less (\d+) px`, 5)
	if p[0] != r.breakpoint {
		t.Fatalf("docs/api.md: the desktop is wider than %d px, the phone %d px wide or less", r.breakpoint, p[0])
	}
	r.phoneEdge, r.phoneHeight, r.phoneWrappedHeight, r.phoneInset = p[1], p[2], p[3], p[4]
	r.leave = num(`\*\*Leave (\d+) px free at the bottom\*\*`, 1)[0]
	return r
}

// TestBrowserControlPlace: the download control is where docs/api.md says,
// as large as it says, at 1280×800 and at 390×844 (a phone), for a short
// and a long file name, and the room it tells pages to leave at the bottom
// holds it.
func TestBrowserControlPlace(t *testing.T) {
	t.Parallel()
	room := documentedRoom(t)
	css, err := os.ReadFile("static/fileframe.css")
	if err != nil {
		t.Fatal(err)
	}
	if q := fmt.Sprintf("@media (max-width: %dpx)", room.breakpoint); !strings.Contains(string(css), q) {
		t.Errorf("static/fileframe.css has no %s, the phone layout docs/api.md names", q)
	}
	b := newBrowserEnv(t, published)
	outer := b.show(t, []byte(customHTML("place")))
	const slack = 3 // px: fonts and rounding
	near := func(got float64, want int) bool { return math.Abs(got-float64(want)) <= slack }
	long := "The complete Spring 2026 lookbook with credits and wholesale prices.pdf"
	for _, tt := range []struct {
		name          string
		width, height int64
		phone         bool
		file          string
	}{
		{"desktop short name", 1280, 800, false, "report.pdf"},
		{"desktop long name", 1280, 800, false, long},
		{"phone short name", 390, 844, true, "report.pdf"},
		{"phone long name", 390, 844, true, long},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := b.store.RenameFile(context.Background(), b.file.ID, tt.file); err != nil {
				t.Fatal(err)
			}
			b.srv.ownWrites.Add(1) // as service.Config.Changed would
			opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
			if tt.phone {
				opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
			}
			run(t, b.tab, chromedp.EmulateViewport(tt.width, tt.height, opts...))
			b.navigate(t, outer)
			r := rect(t, b.tab, control)
			left, right := r.X, float64(tt.width)-r.X-r.Width
			bottom := float64(tt.height) - r.Y - r.Height
			t.Logf("%dx%d, %q: the control is %.1f×%.1f px, %.1f px from the left, %.1f from the right, %.1f from the bottom",
				tt.width, tt.height, tt.file, r.Width, r.Height, left, right, bottom)
			if !tt.phone {
				if !near(right, room.desktopEdge) || !near(bottom, room.desktopEdge) {
					t.Errorf("the control is %.1f px from the right and %.1f from the bottom, docs/api.md says %d", right, bottom, room.desktopEdge)
				}
				if !near(r.Height, room.desktopHeight) {
					t.Errorf("the control is %.1f px tall, docs/api.md says %d", r.Height, room.desktopHeight)
				}
				if r.Width > float64(room.desktopMaxWidth+slack) || tt.file == long && !near(r.Width, room.desktopMaxWidth) {
					t.Errorf("the control is %.1f px wide, docs/api.md says up to %d (and so wide for a long name)", r.Width, room.desktopMaxWidth)
				}
			} else {
				if !near(left, room.phoneEdge) || !near(right, room.phoneEdge) || !near(bottom, room.phoneEdge) {
					t.Errorf("the control is %.1f, %.1f and %.1f px from the left, right and bottom, docs/api.md says %d", left, right, bottom, room.phoneEdge)
				}
				if want := int(tt.width) - room.phoneInset; !near(r.Width, want) {
					t.Errorf("the control is %.1f px wide, docs/api.md says the window less %d (%d)", r.Width, room.phoneInset, want)
				}
				want := room.phoneHeight
				if tt.file == long {
					want = room.phoneWrappedHeight
				}
				if !near(r.Height, want) {
					t.Errorf("the control is %.1f px tall, docs/api.md says %d", r.Height, want)
				}
			}
			if top := float64(tt.height) - r.Y; top > float64(room.leave) {
				t.Errorf("the control reaches %.1f px above the bottom, more than the %d px docs/api.md tells pages to leave", top, room.leave)
			}
		})
	}
}

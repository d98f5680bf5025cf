package web

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestPublicImages: a template page's images are served with their sniffed
// type, nosniff and a long cache for the versioned address; an image the
// page does not show, and anything on a plan without templates, is 404.
func TestPublicImages(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	img := pngImage(t)
	a := e.account(fileframe.PlanPro)
	f := e.file(a, "a.txt", []byte("hello"))
	logo := e.putBlob(img)
	e.setFileLook(f, fileframe.Appearance{Template: "minimal", LogoKey: logo})

	resp, body := e.appGet("/f/" + f.Slug + "/logo?v=" + logo[:16])
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, img) {
		t.Fatalf("logo: got %d with %d bytes, want 200 with the image", resp.StatusCode, len(body))
	}
	for name, want := range map[string]string{
		"Content-Type":            "image/png",
		"X-Content-Type-Options":  "nosniff",
		"Cache-Control":           "public, max-age=31536000, immutable",
		"Content-Security-Policy": "default-src 'none'; sandbox",
		"ETag":                    `"` + logo + `"`,
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	if resp, _ := e.appGet("/f/" + f.Slug + "/logo?v=old"); resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("an unversioned address: Cache-Control %q, want no-cache", resp.Header.Get("Cache-Control"))
	}
	if resp, _ := e.appGet("/f/"+f.Slug+"/logo", "If-None-Match", `"`+logo+`"`); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: got %d, want 304", resp.StatusCode)
	}
	if resp, _ := e.appGet("/f/" + f.Slug + "/background"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("no background set: got %d, want 404", resp.StatusCode)
	}

	// Not an image (as a file's bytes would be): never served.
	notImage := e.file(a, "b.txt", []byte("<html><script>alert(1)</script>"))
	e.setFileLook(notImage, fileframe.Appearance{Template: "minimal", LogoKey: notImage.BlobKey})
	if resp, body := e.appGet("/f/" + notImage.Slug + "/logo"); resp.StatusCode != http.StatusNotFound || bytes.Contains(body, []byte("alert(1)")) {
		t.Errorf("a blob that is no image: got %d, want 404", resp.StatusCode)
	}

	// Free: the appearance is not shown, nor its images.
	if err := e.store.SetAccountPlan(ctx, a.ID, fileframe.PlanFree); err != nil {
		t.Fatal(err)
	}
	if resp, _ := e.appGet("/f/" + f.Slug + "/logo"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("free account's logo: got %d, want 404", resp.StatusCode)
	}
	if resp, _ := e.appGet("/f/nope/logo"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown slug: got %d, want 404", resp.StatusCode)
	}
}

package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// presigningBlobs adds a fake PresignGet to real blobs: the URL it returns
// carries its arguments as query parameters.
type presigningBlobs struct {
	fileframe.Blobs
}

func (presigningBlobs) PresignGet(_ context.Context, key, disposition, ctype string) (string, error) {
	return "https://objects.example.net/bucket/" + key + "?" + url.Values{
		"response-content-disposition": {disposition},
		"response-content-type":        {ctype},
	}.Encode(), nil
}

func TestDownloadRedirect(t *testing.T) {
	e := newTestEnv(t, func(c *Config) {
		c.Blobs = presigningBlobs{c.Blobs}
		c.DownloadRedirect = true
	})
	content := []byte("redirected bytes")
	f := e.file(e.account(fileframe.PlanFree), "Résumé 2026.pdf", content)

	resp, _ := e.download("GET", f)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("status: got %d, want 302", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), "https://objects.example.net/bucket/"+f.BlobKey+"?") {
		t.Fatalf("Location: got %q, want the presigned URL of the blob", resp.Header.Get("Location"))
	}
	if got, want := loc.Query().Get("response-content-disposition"), contentDisposition(f.Name); got != want {
		t.Errorf("disposition: got %q, want %q", got, want)
	}
	if !strings.Contains(loc.Query().Get("response-content-disposition"), "filename*=utf-8''R%C3%A9sum%C3%A9") {
		t.Errorf("disposition has no RFC 6266 filename*: %q", loc.Query().Get("response-content-disposition"))
	}
	if got := loc.Query().Get("response-content-type"); got != "application/octet-stream" {
		t.Errorf("content type: got %q", got)
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control: got %q, want no-store", got)
	}

	// Counted: no Range and a Range from 0; not counted: a later range.
	e.download("GET", f, "Range", "bytes=0-3")
	e.download("GET", f, "Range", "bytes=4-")
	// HEAD is streamed, headers only, and not counted.
	resp, body := e.download("HEAD", f)
	if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Length") != "16" {
		t.Errorf("HEAD: got %d, %d bytes, Content-Length %q; want 200, none, 16", resp.StatusCode, len(body), resp.Header.Get("Content-Length"))
	}
	if err := e.srv.counts.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.downloads(f); got != 2 {
		t.Errorf("downloads: got %d, want 2", got)
	}
}

func TestDownloadRedirectNeedsPresigner(t *testing.T) {
	e := newTestEnv(t)
	cfg := e.srv.cfg
	cfg.DownloadRedirect = true
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "presign") {
		t.Errorf("New with DownloadRedirect on disk blobs: got %v, want an error about presigning", err)
	}
}

func TestReadyzNamesBackends(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.StoreKind, c.BlobsKind = "sqlite", "disk" })
	_, body := e.opsGet("/readyz")
	if got, want := strings.TrimSpace(string(body)), `{"status":"ok","checks":{"store":"ok","blobs":"ok"},"backends":{"store":"sqlite","blobs":"disk"}}`; got != want {
		t.Errorf("body: got %s, want %s", got, want)
	}
}

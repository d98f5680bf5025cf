package web

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// collectionOf makes a collection of the account's files through the
// service, as every surface does.
func (e *testEnv) collection(a fileframe.Account, name string, files ...fileframe.File) fileframe.File {
	e.t.Helper()
	ids := make([]fileframe.FileID, len(files))
	for i, f := range files {
		ids[i] = f.ID
	}
	c, err := e.srv.svc.CreateCollection(context.Background(), a, name, ids)
	if err != nil {
		e.t.Fatalf("CreateCollection: %v", err)
	}
	return c
}

// readZip reads body as a ZIP archive, failing the test when it is not
// one.
func readZip(t *testing.T, body []byte) *zip.Reader {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatalf("the download is not a ZIP archive: %v (%d bytes)", err, len(body))
	}
	return zr
}

func TestCollectionZip(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	big := deterministicBytes(3<<20 + 17) // past the blob cache, read from disk
	files := []fileframe.File{
		e.file(a, "report.pdf", []byte("%PDF-1.7 report")),
		e.file(a, "big.bin", big),
		e.file(a, "Report.pdf", []byte("another report")), // same name but for case
		e.file(a, "../../etc/passwd", []byte("root")),
		e.file(a, `C:\win\.hidden`, []byte("drive")),
		e.file(a, "empty.txt", nil),
	}
	c := e.collection(a, "Q3 deliverables", files...)

	resp, body := e.download(http.MethodGet, c)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /f/<collection>/download: got %d, want 200\n%.300s", resp.StatusCode, body)
	}
	for h, want := range map[string]string{
		"Content-Type":        "application/zip",
		"Content-Disposition": `attachment; filename="Q3 deliverables.zip"`,
		"Accept-Ranges":       "none",
	} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s: got %q, want %q", h, got, want)
		}
	}
	zr := readZip(t, body)
	wantNames := []string{"report.pdf", "big.bin", "Report (2).pdf", "_.._etc_passwd", "C__win_.hidden", "empty.txt"}
	if len(zr.File) != len(files) {
		t.Fatalf("entries: got %d, want %d", len(zr.File), len(files))
	}
	for i, zf := range zr.File {
		f := files[i]
		if zf.Name != wantNames[i] {
			t.Errorf("entry %d: name %q, want %q", i, zf.Name, wantNames[i])
		}
		if zf.Method != zip.Store {
			t.Errorf("entry %s: method %d, want Store", zf.Name, zf.Method)
		}
		if zf.UncompressedSize64 != uint64(f.Size) {
			t.Errorf("entry %s: size %d, want %d", zf.Name, zf.UncompressedSize64, f.Size)
		}
		if !zf.Modified.Equal(f.CreatedAt.Truncate(time.Second)) && zf.Modified.Unix() != f.CreatedAt.Unix() {
			t.Errorf("entry %s: modified %v, want %v", zf.Name, zf.Modified, f.CreatedAt)
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatalf("entry %s: %v", zf.Name, err)
		}
		got, err := io.ReadAll(rc) // checks the CRC too
		rc.Close()
		if err != nil {
			t.Fatalf("entry %s: %v", zf.Name, err)
		}
		want, _ := e.blobBytes(f)
		if !bytes.Equal(got, want) {
			t.Errorf("entry %s: %d bytes differ from the file's %d", zf.Name, len(got), len(want))
		}
	}

	// HEAD: the headers alone, never counted.
	resp, body = e.download(http.MethodHead, c)
	if resp.StatusCode != http.StatusOK || len(body) != 0 || resp.Header.Get("Content-Type") != "application/zip" {
		t.Errorf("HEAD: got %d, %d bytes, %q; want 200, none, application/zip", resp.StatusCode, len(body), resp.Header.Get("Content-Type"))
	}
	e.srv.counts.Flush(context.Background())
	if got := e.downloads(c); got != 1 {
		t.Errorf("downloads of the collection: got %d, want 1 (the GET, not the HEAD)", got)
	}
}

// blobBytes returns f's bytes from the blob store.
func (e *testEnv) blobBytes(f fileframe.File) ([]byte, error) {
	b, err := e.blobs.Open(context.Background(), f.BlobKey)
	if err != nil {
		return nil, err
	}
	defer b.Body.Close()
	return io.ReadAll(b.Body)
}

func TestCollectionPageAndItems(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanFree)
	f1 := e.file(a, "<b>notes</b>.txt", []byte("first file"))
	f2 := e.file(a, "photo.jpg", deterministicBytes(100_000))
	other := e.file(a, "not-in-it.txt", []byte("x"))
	c := e.collection(a, "Holiday", f1, f2)

	resp, body := e.get(e.app.URL + "/f/" + c.Slug)
	page := string(body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /f/<collection>: %d", resp.StatusCode)
	}
	for _, want := range []string{"Download all (ZIP)", "&lt;b&gt;notes&lt;/b&gt;.txt", "photo.jpg",
		`href="/f/` + c.Slug + `/files/` + string(f1.ID) + `"`, `href="/f/` + c.Slug + `/download"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the collection's page lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>notes") {
		t.Error("the collection's page carries a file name as markup")
	}

	item := func(id fileframe.FileID, header ...string) (*http.Response, []byte) {
		req := publicRequest(t, http.MethodGet, e.app.URL+"/f/"+c.Slug+"/files/"+string(id))
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return e.do(req)
	}
	resp, body = item(f2.ID)
	want, _ := e.blobBytes(f2)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want) || resp.Header.Get("Content-Disposition") != `attachment; filename=photo.jpg` {
		t.Errorf("one file through the collection: %d, %d bytes, %q", resp.StatusCode, len(body), resp.Header.Get("Content-Disposition"))
	}
	resp, body = item(f2.ID, "Range", "bytes=10-19")
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, want[10:20]) {
		t.Errorf("a range of one file: got %d, %d bytes; want 206 and bytes 10-19", resp.StatusCode, len(body))
	}
	for _, id := range []fileframe.FileID{other.ID, c.ID, "f_nothere", "..%2f..%2fx", "f_" + fileframe.FileID(strings.Repeat("a", 70))} {
		if resp, _ := item(id); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /f/<collection>/files/%s: got %d, want 404", id, resp.StatusCode)
		}
	}
	// /files/ of a file's link is not a thing.
	if resp, _ := e.get(e.app.URL + "/f/" + f1.Slug + "/files/" + string(f1.ID)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/f/<file>/files/<id>: got %d, want 404", resp.StatusCode)
	}

	// Removing a file keeps the link; the file is no longer reachable
	// through it, and the page no longer lists it.
	if _, err := e.srv.svc.RemoveFromCollection(context.Background(), a, c.ID, f1.ID); err != nil {
		t.Fatalf("RemoveFromCollection: %v", err)
	}
	if resp, _ := item(f1.ID); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a removed file through the collection: got %d, want 404", resp.StatusCode)
	}
	resp, body = e.get(e.app.URL + "/f/" + c.Slug)
	if resp.StatusCode != http.StatusOK || strings.Contains(string(body), "notes") || !strings.Contains(string(body), "photo.jpg") {
		t.Errorf("the page after a removal: %d, still lists the removed file or lost the other", resp.StatusCode)
	}
	resp, body = e.download(http.MethodGet, c)
	if zr := readZip(t, body); resp.StatusCode != http.StatusOK || len(zr.File) != 1 || zr.File[0].Name != "photo.jpg" {
		t.Errorf("the ZIP after a removal: %d, %d entries", resp.StatusCode, len(zr.File))
	}
	// Deleting a file of the collection drops it too.
	if _, _, err := e.srv.svc.DeleteFile(context.Background(), a, f2.ID); err != nil {
		t.Fatalf("DeleteFile: %v", err)
	}
	resp, body = e.download(http.MethodGet, c)
	if zr := readZip(t, body); resp.StatusCode != http.StatusOK || len(zr.File) != 0 {
		t.Errorf("the ZIP of an emptied collection: %d, %d entries; want 200, none", resp.StatusCode, len(zr.File))
	}
	// Deleting the collection keeps its files' bytes.
	f3 := e.file(a, "kept.txt", []byte("kept"))
	d := e.collection(a, "D", f3)
	if _, blobErr, err := e.srv.svc.DeleteFile(context.Background(), a, d.ID); err != nil || blobErr != nil {
		t.Fatalf("DeleteFile(collection): %v, %v", err, blobErr)
	}
	if got, err := e.blobBytes(f3); err != nil || string(got) != "kept" {
		t.Errorf("an item's bytes after its collection was deleted: %q, %v", got, err)
	}
	if resp, _ := e.get(e.app.URL + "/f/" + d.Slug); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a deleted collection's link: got %d, want 404", resp.StatusCode)
	}
}

func TestCollectionLinkControls(t *testing.T) {
	e := newTestEnv(t)
	a := e.account(fileframe.PlanPro)
	f1 := e.file(a, "a.txt", []byte("aaaa"))
	f2 := e.file(a, "b.txt", []byte("bbbbbbbb"))
	ctx := context.Background()

	t.Run("password", func(t *testing.T) {
		c := e.collection(a, "Secret", f1, f2)
		pw := "correct horse"
		if _, err := e.srv.svc.SetLink(ctx, a, c.ID, service.LinkChange{Password: &pw}); err != nil {
			t.Fatalf("SetLink: %v", err)
		}
		for _, path := range []string{"/download", "/files/" + string(f1.ID)} {
			resp, body := e.get(e.app.URL + "/f/" + c.Slug + path)
			if resp.StatusCode != http.StatusUnauthorized || bytes.Contains(body, []byte("aaaa")) {
				t.Errorf("%s without the password: got %d, want 401", path, resp.StatusCode)
			}
			resp, body = e.get(e.app.URL+"/f/"+c.Slug+path, "Fileframe-Password", pw)
			if resp.StatusCode != http.StatusOK || len(body) == 0 {
				t.Errorf("%s with the password: got %d, want 200", path, resp.StatusCode)
			}
		}
		resp, body := e.get(e.app.URL + "/f/" + c.Slug)
		if bytes.Contains(body, []byte("a.txt")) {
			t.Errorf("the password page of a collection lists its files (%d)", resp.StatusCode)
		}
	})

	t.Run("expiry", func(t *testing.T) {
		c := e.collection(a, "Expired", f1)
		if _, err := e.store.SetLink(ctx, c.ID, fileframe.Link{ExpiresAt: time.Now().Add(-time.Minute)}); err != nil {
			t.Fatalf("SetLink: %v", err)
		}
		for _, path := range []string{"", "/download", "/files/" + string(f1.ID)} {
			if resp, _ := e.get(e.app.URL + "/f/" + c.Slug + path); resp.StatusCode != http.StatusGone {
				t.Errorf("%s of an expired collection: got %d, want 410", path, resp.StatusCode)
			}
		}
	})

	t.Run("limit under parallel downloads", func(t *testing.T) {
		c := e.collection(a, "Limited", f1, f2)
		limit := int64(3)
		if _, err := e.srv.svc.SetLink(ctx, a, c.ID, service.LinkChange{MaxDownloads: &limit}); err != nil {
			t.Fatalf("SetLink: %v", err)
		}
		paths := []string{"/download", "/files/" + string(f1.ID), "/download", "/files/" + string(f2.ID)}
		var wg sync.WaitGroup
		var mu sync.Mutex
		complete := 0
		for i := range 12 {
			wg.Go(func() {
				path := paths[i%len(paths)]
				resp, err := http.Get(e.app.URL + "/f/" + c.Slug + path)
				if err != nil {
					t.Error(err)
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					return
				}
				if path == "/download" {
					if _, err := zip.NewReader(bytes.NewReader(body), int64(len(body))); err != nil {
						t.Errorf("a ZIP of a limited collection is broken: %v", err)
						return
					}
				}
				mu.Lock()
				complete++
				mu.Unlock()
			})
		}
		wg.Wait()
		if complete != int(limit) {
			t.Errorf("complete downloads of a collection limited to %d: got %d", limit, complete)
		}
		if got := mustStoreFile(t, e, c.ID); got.LinkDownloads != limit {
			t.Errorf("LinkDownloads: got %d, want %d", got.LinkDownloads, limit)
		}
		if resp, _ := e.get(e.app.URL + "/f/" + c.Slug + "/download"); resp.StatusCode != http.StatusGone {
			t.Errorf("a used-up collection: got %d, want 410", resp.StatusCode)
		}
	})
}

// mustStoreFile reads the file from the store.
func mustStoreFile(t *testing.T, e *testEnv, id fileframe.FileID) fileframe.File {
	t.Helper()
	f, err := e.store.FileByID(context.Background(), id)
	if err != nil {
		t.Fatalf("FileByID: %v", err)
	}
	return f
}

// TestZipNames: the names of a collection's ZIP unpack as one flat file
// each, anywhere: no directories or drive letters, no Windows device
// names, and names that one file system would take for the same file
// (case, Unicode composed or not) made distinct (the outside attack's
// row 355).
func TestZipNames(t *testing.T) {
	names := func(in ...string) []string {
		files := make([]fileframe.File, len(in))
		for i, n := range in {
			files[i] = fileframe.File{Name: n}
		}
		return zipNames(files)
	}
	for _, tt := range []struct {
		in, want []string
	}{
		{[]string{"../../etc/passwd", `..\win.ini`, "C:evil.txt", ".hidden"}, []string{"_.._etc_passwd", "_win.ini", "C_evil.txt", "hidden"}},
		{[]string{"CON", "nul.txt", "Com1.tar.gz", "console.txt", "LPT9 .doc"}, []string{"CON_", "nul_.txt", "Com1_.tar.gz", "console.txt", "LPT9 _.doc"}},
		{[]string{"report.pdf", "REPORT.pdf", "report (2).pdf"}, []string{"report.pdf", "REPORT (2).pdf", "report (2) (2).pdf"}},
		{[]string{"\u00e9.txt", "e\u0301.txt"}, []string{"\u00e9.txt", "\u00e9 (2).txt"}},
	} {
		if got := names(tt.in...); !slices.Equal(got, tt.want) {
			t.Errorf("zipNames(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// downBlobs is the real blob store, except that opening the blobs in down
// fails as an S3 server out of reach does.
type downBlobs struct {
	fileframe.Blobs
	mu   sync.Mutex
	down map[string]bool
}

func (b *downBlobs) Open(ctx context.Context, key string) (fileframe.BlobReader, error) {
	b.mu.Lock()
	down := b.down[key]
	b.mu.Unlock()
	if down {
		return fileframe.BlobReader{}, fileframe.Errorf(fileframe.CodeUnavailable, "The file storage is out of reach just now.")
	}
	return b.Blobs.Open(ctx, key)
}

// TestCollectionZipBlobsOutOfReach: a collection's ZIP whose first file
// cannot be read is 503 with Retry-After, not a 200 with an empty body, and
// is not counted; one whose later file cannot be read is cut off without
// the end of its body, so that the client sees a failed download rather
// than a ZIP that looks complete.
func TestCollectionZipBlobsOutOfReach(t *testing.T) {
	blobs := &downBlobs{down: map[string]bool{}}
	e := newTestEnv(t, func(c *Config) { blobs.Blobs = c.Blobs; c.Blobs = blobs })
	a := e.account(fileframe.PlanFree)
	one := e.file(a, "one.bin", deterministicBytes(100<<10)) // past the blob cache
	two := e.file(a, "two.bin", deterministicBytes(100<<10+1))
	c := e.collection(a, "pair", one, two)

	blobs.mu.Lock()
	blobs.down[one.BlobKey] = true
	blobs.mu.Unlock()
	resp, body := e.download(http.MethodGet, c)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("the ZIP with its first file out of reach: %d, Retry-After %q, %d bytes; want 503 with Retry-After",
			resp.StatusCode, resp.Header.Get("Retry-After"), len(body))
	}
	if err := e.srv.counts.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, err := e.store.FileByID(context.Background(), c.ID); err != nil || got.Downloads != 0 {
		t.Errorf("the refused ZIP was counted: %d downloads, %v", got.Downloads, err)
	}

	blobs.mu.Lock()
	blobs.down = map[string]bool{two.BlobKey: true}
	blobs.mu.Unlock()
	req, _ := http.NewRequest(http.MethodGet, e.app.URL+"/f/"+c.Slug+"/download", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || err == nil {
		t.Errorf("the ZIP with its second file out of reach: %d, %d bytes, read error %v; want 200 cut off with an error", res.StatusCode, len(got), err)
	}
}

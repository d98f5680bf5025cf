package storetest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// pageHTML returns a distinct HTML document of at least size bytes.
func pageHTML(n, size int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!doctype html><html><head><title>Page %d</title></head><body><h1>Version %d</h1>", n, n)
	for b.Len() < size {
		fmt.Fprintf(&b, "<p>Paragraph of version %d, written to fill the page.</p>\n", n)
	}
	b.WriteString("</body></html>")
	return b.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// savePage stores html as the file's next revision.
func savePage(t *testing.T, s fileframe.Store, id fileframe.FileID, html []byte, publish bool) fileframe.Page {
	t.Helper()
	p, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: id, HTML: html, Publish: publish, At: time.Now()})
	if err != nil {
		t.Fatalf("SavePage: %v", err)
	}
	return p
}

// revisionNumbers returns the numbers of the file's kept revisions, in the
// order Revisions lists them.
func revisionNumbers(t *testing.T, s fileframe.Store, id fileframe.FileID) []int {
	t.Helper()
	revs, err := s.Revisions(t.Context(), id)
	if err != nil {
		t.Fatalf("Revisions: %v", err)
	}
	var ns []int
	for _, r := range revs {
		ns = append(ns, r.Number)
	}
	return ns
}

// span returns the numbers from, from-1, ..., to.
func span(from, to int) []int {
	var ns []int
	for n := from; n >= to; n-- {
		ns = append(ns, n)
	}
	return ns
}

func testPages(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("SavePage numbers revisions 1, 2, 3", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		for n := 1; n <= 3; n++ {
			p := savePage(t, s, f.ID, pageHTML(n, 100), false)
			if p.LatestRevision != n || p.FileID != f.ID {
				t.Errorf("SavePage #%d: FileID, LatestRevision got %q, %d, want %q, %d", n, p.FileID, p.LatestRevision, f.ID, n)
			}
		}
	})

	t.Run("revisions are numbered per page", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		savePage(t, s, f.ID, pageHTML(1, 100), false)
		savePage(t, s, f.ID, pageHTML(2, 100), false)
		if p := savePage(t, s, g.ID, pageHTML(3, 100), false); p.LatestRevision != 1 {
			t.Errorf("first SavePage of a second file: LatestRevision got %d, want 1", p.LatestRevision)
		}
	})

	t.Run("SavePage with Publish makes that revision live", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		at := stamp
		p, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: pageHTML(1, 100), Publish: true, At: at})
		if err != nil {
			t.Fatalf("SavePage: %v", err)
		}
		want := fileframe.Page{FileID: f.ID, LatestRevision: 1, LiveRevision: 1, UpdatedAt: ms(at)}
		if p.UpdatedAt = ms(p.UpdatedAt); p != want {
			t.Errorf("SavePage: got %+v, want %+v", p, want)
		}
		got, err := s.PageByFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("PageByFile: %v", err)
		}
		if got.UpdatedAt = ms(got.UpdatedAt); got != want {
			t.Errorf("PageByFile: got %+v, want %+v", got, want)
		}
		if !got.Published() {
			t.Errorf("PageByFile: Published got false, want true")
		}
	})

	t.Run("SavePage without Publish stores a draft", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		p := savePage(t, s, f.ID, pageHTML(1, 100), false)
		if p.LatestRevision != 1 || p.LiveRevision != 0 {
			t.Errorf("SavePage: LatestRevision, LiveRevision got %d, %d, want 1, 0", p.LatestRevision, p.LiveRevision)
		}
	})

	t.Run("a later write without Publish makes a published page a draft", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		savePage(t, s, f.ID, pageHTML(1, 100), true)
		p := savePage(t, s, f.ID, pageHTML(2, 100), false)
		if p.LatestRevision != 2 || p.LiveRevision != 0 {
			t.Errorf("SavePage: LatestRevision, LiveRevision got %d, %d, want 2, 0", p.LatestRevision, p.LiveRevision)
		}
		got, err := s.PageByFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("PageByFile: %v", err)
		}
		if got.LatestRevision != 2 || got.LiveRevision != 0 || got.Published() {
			t.Errorf("PageByFile: LatestRevision, LiveRevision got %d, %d, want 2, 0 (a draft)", got.LatestRevision, got.LiveRevision)
		}
		// Publishing again makes the newest revision live.
		p = savePage(t, s, f.ID, pageHTML(3, 100), true)
		if p.LatestRevision != 3 || p.LiveRevision != 3 {
			t.Errorf("SavePage(publish): LatestRevision, LiveRevision got %d, %d, want 3, 3", p.LatestRevision, p.LiveRevision)
		}
	})

	t.Run("SavePage on a missing file is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newFile(t, s, newAccount(t, s).ID)
		_, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: "f_missing", HTML: pageHTML(1, 100), Publish: true, At: stamp})
		wantCode(t, "SavePage(missing file)", err, fileframe.ENOTFOUND)
		_, err = s.PageByFile(t.Context(), "f_missing")
		wantCode(t, "PageByFile(missing file) after SavePage", err, fileframe.ENOTFOUND)
	})

	t.Run("PageByFile, Revisions and Revision of a file without a page are ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		_, err := s.PageByFile(t.Context(), f.ID)
		wantCode(t, "PageByFile(no page)", err, fileframe.ENOTFOUND)
		_, err = s.Revisions(t.Context(), f.ID)
		wantCode(t, "Revisions(no page)", err, fileframe.ENOTFOUND)
		_, err = s.Revision(t.Context(), f.ID, 1)
		wantCode(t, "Revision(no page)", err, fileframe.ENOTFOUND)
	})

	t.Run("Revision returns the HTML byte-identical with its metadata", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		// Not all of it is UTF-8, and it holds NUL and CR bytes: HTML is bytes.
		odd := []byte("<!doctype html><html><body>é ✓ 😀 \x00 \r\n \xff\xfe</body></html>")
		big := pageHTML(1, 1<<20) // the API's limit, 1 MiB
		big = big[:1<<20]
		published := stamp
		drafted := stamp.Add(time.Minute)
		for _, c := range []struct {
			name    string
			html    []byte
			publish bool
			at      time.Time
		}{
			{"odd bytes, published", odd, true, published},
			{"1 MiB, draft", big, false, drafted},
		} {
			p, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: c.html, Publish: c.publish, At: c.at})
			if err != nil {
				t.Fatalf("SavePage(%s): %v", c.name, err)
			}
			r, err := s.Revision(t.Context(), f.ID, p.LatestRevision)
			if err != nil {
				t.Fatalf("Revision(%s): %v", c.name, err)
			}
			if !bytes.Equal(r.HTML, c.html) {
				t.Errorf("Revision(%s): HTML got %d bytes, want the %d bytes stored", c.name, len(r.HTML), len(c.html))
			}
			if r.FileID != f.ID || r.Number != p.LatestRevision || r.SHA256 != sha(c.html) || r.Size != len(c.html) {
				t.Errorf("Revision(%s): FileID, Number, SHA256, Size got %q, %d, %s, %d, want %q, %d, %s, %d",
					c.name, r.FileID, r.Number, r.SHA256, r.Size, f.ID, p.LatestRevision, sha(c.html), len(c.html))
			}
			if got, want := ms(r.CreatedAt), ms(c.at); !got.Equal(want) {
				t.Errorf("Revision(%s): CreatedAt got %v, want %v", c.name, got, want)
			}
			wantPublished := time.Time{}
			if c.publish {
				wantPublished = ms(c.at)
			}
			if got := ms(r.PublishedAt); !got.Equal(wantPublished) {
				t.Errorf("Revision(%s): PublishedAt got %v, want %v", c.name, got, wantPublished)
			}
		}
	})

	t.Run("Revision of a number never stored is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		savePage(t, s, f.ID, pageHTML(1, 100), true)
		for _, n := range []int{0, 2, -1} {
			_, err := s.Revision(t.Context(), f.ID, n)
			wantCode(t, fmt.Sprintf("Revision(%d)", n), err, fileframe.ENOTFOUND)
		}
	})

	t.Run("RevisionHead returns the hash and the first bytes of the HTML as posted", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		// Multi-byte characters straddle the cut: it counts bytes.
		html := append([]byte("<!doctype html><title>Ünïcødé</title>"), pageHTML(2, 300_000)...)
		savePage(t, s, f.ID, html, true)
		rev, err := s.Revision(t.Context(), f.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{0, 1, 24, 25, 4096, len(html) - 1, len(html), len(html) + 10, -1} {
			sum, head, err := s.RevisionHead(t.Context(), f.ID, 1, limit)
			if err != nil {
				t.Fatalf("RevisionHead(%d): %v", limit, err)
			}
			want := html[:min(max(limit, 0), len(html))]
			if sum != rev.SHA256 || !bytes.Equal(head, want) {
				t.Errorf("RevisionHead(%d): got %s and %d bytes (%q…), want %s and %d bytes", limit, sum, len(head), head[:min(len(head), 40)], rev.SHA256, len(want))
			}
		}
		other := newFile(t, s, newAccount(t, s).ID)
		for _, c := range []struct {
			id fileframe.FileID
			n  int
		}{{f.ID, 0}, {f.ID, 2}, {f.ID, -1}, {other.ID, 1}, {"f_missing", 1}, {f.ID, 1 << 40}} {
			_, _, err := s.RevisionHead(t.Context(), c.id, c.n, 100)
			wantCode(t, fmt.Sprintf("RevisionHead(%s, %d)", c.id, c.n), err, fileframe.ENOTFOUND)
		}
	})

	t.Run("identical HTML is stored once and refers to one hash", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		same, other := pageHTML(1, 2000), pageHTML(2, 2000)
		savePage(t, s, f.ID, same, false)
		savePage(t, s, f.ID, other, false)
		savePage(t, s, f.ID, same, true)
		savePage(t, s, g.ID, same, true)
		r1, err := s.Revision(t.Context(), f.ID, 1)
		if err != nil {
			t.Fatalf("Revision(1): %v", err)
		}
		r2, err := s.Revision(t.Context(), f.ID, 2)
		if err != nil {
			t.Fatalf("Revision(2): %v", err)
		}
		r3, err := s.Revision(t.Context(), f.ID, 3)
		if err != nil {
			t.Fatalf("Revision(3): %v", err)
		}
		rg, err := s.Revision(t.Context(), g.ID, 1)
		if err != nil {
			t.Fatalf("Revision(other file, 1): %v", err)
		}
		if r1.SHA256 != sha(same) || r3.SHA256 != r1.SHA256 || rg.SHA256 != r1.SHA256 {
			t.Errorf("SHA256 of identical HTML got %s, %s and %s (other file), want %s", r1.SHA256, r3.SHA256, rg.SHA256, sha(same))
		}
		if r2.SHA256 == r1.SHA256 {
			t.Errorf("SHA256 of different HTML got %s twice, want different hashes", r2.SHA256)
		}
		for _, r := range []fileframe.Revision{r1, r3, rg} {
			if !bytes.Equal(r.HTML, same) {
				t.Errorf("Revision(%s, %d): HTML differs from what was stored", r.FileID, r.Number)
			}
		}
	})

	t.Run("Revisions lists kept revisions newest first without HTML", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		var htmls [][]byte
		for n := 1; n <= 4; n++ {
			h := pageHTML(n, 300)
			htmls = append(htmls, h)
			_, err := s.SavePage(t.Context(), fileframe.PageWrite{
				FileID: f.ID, HTML: h, Publish: n == 2, At: stamp.Add(time.Duration(n) * time.Second),
			})
			if err != nil {
				t.Fatalf("SavePage: %v", err)
			}
		}
		revs, err := s.Revisions(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("Revisions: %v", err)
		}
		if len(revs) != 4 {
			t.Fatalf("Revisions: got %d revisions, want 4", len(revs))
		}
		for i, r := range revs {
			n := 4 - i
			h := htmls[n-1]
			at := ms(stamp.Add(time.Duration(n) * time.Second))
			if r.FileID != f.ID || r.Number != n || r.SHA256 != sha(h) || r.Size != len(h) || !ms(r.CreatedAt).Equal(at) {
				t.Errorf("Revisions[%d]: got %+v, want number %d, SHA256 %s, size %d, CreatedAt %v", i, r, n, sha(h), len(h), at)
			}
			if len(r.HTML) != 0 {
				t.Errorf("Revisions[%d]: HTML got %d bytes, want none in a listing", i, len(r.HTML))
			}
			if got, want := !r.PublishedAt.IsZero(), n == 2; got != want {
				t.Errorf("Revisions[%d] (number %d): published got %v, want %v", i, n, got, want)
			}
		}
	})

	t.Run("pruning keeps only the last RevisionsKept revisions", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		total := fileframe.RevisionsKept + 10
		for n := 1; n <= total; n++ {
			savePage(t, s, f.ID, pageHTML(n, 200), false)
		}
		if got, want := revisionNumbers(t, s, f.ID), span(total, total-fileframe.RevisionsKept+1); !slices.Equal(got, want) {
			t.Errorf("Revisions: numbers got %v, want %v", got, want)
		}
		_, err := s.Revision(t.Context(), f.ID, 1)
		wantCode(t, "Revision(pruned 1)", err, fileframe.ENOTFOUND)
		_, err = s.Revision(t.Context(), f.ID, total-fileframe.RevisionsKept)
		wantCode(t, "Revision(last pruned)", err, fileframe.ENOTFOUND)
		r, err := s.Revision(t.Context(), f.ID, total-fileframe.RevisionsKept+1)
		if err != nil {
			t.Fatalf("Revision(oldest kept): %v", err)
		}
		if want := pageHTML(total-fileframe.RevisionsKept+1, 200); !bytes.Equal(r.HTML, want) {
			t.Errorf("Revision(oldest kept): HTML differs from what was stored")
		}
	})

	t.Run("a revision that was ever published survives pruning", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		first := pageHTML(0, 200)
		savePage(t, s, f.ID, first, true)
		total := 1 + fileframe.RevisionsKept + 10
		for n := 2; n <= total; n++ {
			savePage(t, s, f.ID, pageHTML(n, 200), false)
		}
		want := append(span(total, total-fileframe.RevisionsKept+1), 1)
		if got := revisionNumbers(t, s, f.ID); !slices.Equal(got, want) {
			t.Errorf("Revisions: numbers got %v, want %v", got, want)
		}
		r, err := s.Revision(t.Context(), f.ID, 1)
		if err != nil {
			t.Fatalf("Revision(1, once published): %v", err)
		}
		if !bytes.Equal(r.HTML, first) || r.PublishedAt.IsZero() {
			t.Errorf("Revision(1): got %d bytes published at %v, want the stored HTML with its publication time", len(r.HTML), r.PublishedAt)
		}
		p, err := s.PageByFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("PageByFile: %v", err)
		}
		if p.LatestRevision != total || p.LiveRevision != 0 {
			t.Errorf("PageByFile: LatestRevision, LiveRevision got %d, %d, want %d, 0", p.LatestRevision, p.LiveRevision, total)
		}
	})

	t.Run("pruning keeps HTML that a kept revision shares", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		shared := pageHTML(0, 500)
		savePage(t, s, g.ID, shared, false) // another page with the same HTML
		savePage(t, s, f.ID, shared, false) // pruned below
		total := fileframe.RevisionsKept + 5
		for n := 2; n < total; n++ {
			savePage(t, s, f.ID, pageHTML(n, 200), false)
		}
		savePage(t, s, f.ID, shared, false) // kept, same HTML as the pruned revision 1
		_, err := s.Revision(t.Context(), f.ID, 1)
		wantCode(t, "Revision(pruned 1)", err, fileframe.ENOTFOUND)
		for _, c := range []struct {
			id fileframe.FileID
			n  int
		}{{f.ID, total}, {g.ID, 1}} {
			r, err := s.Revision(t.Context(), c.id, c.n)
			if err != nil {
				t.Fatalf("Revision(%s, %d): %v", c.id, c.n, err)
			}
			if !bytes.Equal(r.HTML, shared) {
				t.Errorf("Revision(%s, %d): HTML got %d bytes, want the %d shared bytes", c.id, c.n, len(r.HTML), len(shared))
			}
		}
	})

	t.Run("concurrent SavePage calls on one page are serialised", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		const writers = 50
		bodies := map[string]bool{} // SHA-256 of each body
		var wg sync.WaitGroup
		var mu sync.Mutex
		var numbers []int
		for i := range writers {
			html := pageHTML(i, 20_000)
			bodies[sha(html)] = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: html, Publish: true, At: time.Now()})
				if err != nil {
					t.Errorf("SavePage by writer %d: %v", i, err)
					return
				}
				mu.Lock()
				numbers = append(numbers, p.LatestRevision)
				mu.Unlock()
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		slices.Sort(numbers)
		if want := slices.Sorted(slices.Values(span(writers, 1))); !slices.Equal(numbers, want) {
			t.Errorf("revision numbers returned: got %v, want %v, each once", numbers, want)
		}
		if got, want := revisionNumbers(t, s, f.ID), span(writers, 1); !slices.Equal(got, want) {
			t.Errorf("Revisions: numbers got %v, want %v", got, want)
		}
		revs, err := s.Revisions(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("Revisions: %v", err)
		}
		seen := map[string]bool{}
		for _, r := range revs {
			if !bodies[r.SHA256] || seen[r.SHA256] {
				t.Errorf("revision %d: SHA256 %s is not one of the bodies written, or appears twice", r.Number, r.SHA256)
			}
			seen[r.SHA256] = true
		}
		p, err := s.PageByFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("PageByFile: %v", err)
		}
		if p.LatestRevision != writers || p.LiveRevision != writers {
			t.Errorf("PageByFile: LatestRevision, LiveRevision got %d, %d, want %d, %d", p.LatestRevision, p.LiveRevision, writers, writers)
		}
		live, err := s.Revision(t.Context(), f.ID, p.LiveRevision)
		if err != nil {
			t.Fatalf("Revision(live): %v", err)
		}
		if sha(live.HTML) != live.SHA256 || !bodies[live.SHA256] {
			t.Errorf("live revision: HTML (%d bytes) is not one of the bodies written, whole", len(live.HTML))
		}
	})
}

// revisionOf returns the file's revision number n, failing the test when it
// is not kept.
func revisionOf(t *testing.T, s fileframe.Store, id fileframe.FileID, n int) fileframe.Revision {
	t.Helper()
	r, err := s.Revision(t.Context(), id, n)
	if err != nil {
		t.Fatalf("Revision(%d): %v", n, err)
	}
	return r
}

func testLiveRevision(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("SetLiveRevision publishes an older revision without storing one", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		for n := 1; n <= 3; n++ {
			savePage(t, s, f.ID, pageHTML(n, 100), false)
		}
		at := stamp
		p, err := s.SetLiveRevision(t.Context(), f.ID, 2, at)
		if err != nil {
			t.Fatalf("SetLiveRevision(2): %v", err)
		}
		want := fileframe.Page{FileID: f.ID, LatestRevision: 3, LiveRevision: 2, UpdatedAt: ms(at)}
		if p.UpdatedAt = ms(p.UpdatedAt); p != want {
			t.Errorf("SetLiveRevision(2): got %+v, want %+v", p, want)
		}
		got, err := s.PageByFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("PageByFile: %v", err)
		}
		if got.UpdatedAt = ms(got.UpdatedAt); got != want {
			t.Errorf("PageByFile: got %+v, want %+v", got, want)
		}
		if r := revisionOf(t, s, f.ID, 2); !ms(r.PublishedAt).Equal(ms(at)) || r.PublishedAt.Location() != time.UTC {
			t.Errorf("Revision(2): PublishedAt got %v, want %v in UTC", r.PublishedAt, ms(at))
		}
		for _, n := range []int{1, 3} {
			if r := revisionOf(t, s, f.ID, n); !r.PublishedAt.IsZero() {
				t.Errorf("Revision(%d): PublishedAt got %v, want zero (never published)", n, r.PublishedAt)
			}
		}
		if got := revisionNumbers(t, s, f.ID); !slices.Equal(got, []int{3, 2, 1}) {
			t.Errorf("Revisions: numbers got %v, want [3 2 1] (no revision stored)", got)
		}
		// The next write numbers after the latest, not the live one.
		if p := savePage(t, s, f.ID, pageHTML(4, 100), false); p.LatestRevision != 4 || p.LiveRevision != 0 {
			t.Errorf("SavePage after SetLiveRevision: LatestRevision, LiveRevision got %d, %d, want 4, 0", p.LatestRevision, p.LiveRevision)
		}
	})

	t.Run("SetLiveRevision of a published revision keeps its first PublishedAt", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: pageHTML(1, 100), Publish: true, At: stamp}); err != nil {
			t.Fatalf("SavePage: %v", err)
		}
		savePage(t, s, f.ID, pageHTML(2, 100), true)
		p, err := s.SetLiveRevision(t.Context(), f.ID, 1, stamp.Add(time.Hour))
		if err != nil {
			t.Fatalf("SetLiveRevision(1): %v", err)
		}
		if p.LiveRevision != 1 || p.LatestRevision != 2 {
			t.Errorf("SetLiveRevision(1): LatestRevision, LiveRevision got %d, %d, want 2, 1", p.LatestRevision, p.LiveRevision)
		}
		if r := revisionOf(t, s, f.ID, 1); !ms(r.PublishedAt).Equal(ms(stamp)) {
			t.Errorf("Revision(1): PublishedAt got %v, want the first publication %v", r.PublishedAt, ms(stamp))
		}
	})

	t.Run("SetLiveRevision 0 unpublishes, and again is harmless", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		savePage(t, s, f.ID, pageHTML(1, 100), true)
		savePage(t, s, f.ID, pageHTML(2, 100), true)
		for range 2 {
			p, err := s.SetLiveRevision(t.Context(), f.ID, 0, stamp)
			if err != nil {
				t.Fatalf("SetLiveRevision(0): %v", err)
			}
			if p.LiveRevision != 0 || p.LatestRevision != 2 || p.Published() {
				t.Errorf("SetLiveRevision(0): LatestRevision, LiveRevision got %d, %d, want 2, 0", p.LatestRevision, p.LiveRevision)
			}
			got, err := s.PageByFile(t.Context(), f.ID)
			if err != nil {
				t.Fatalf("PageByFile: %v", err)
			}
			if got.LiveRevision != 0 || got.LatestRevision != 2 || !ms(got.UpdatedAt).Equal(ms(stamp)) {
				t.Errorf("PageByFile after SetLiveRevision(0): got %+v, want latest 2, live 0, updated %v", got, ms(stamp))
			}
		}
		// Revisions stay, with their publication times.
		if r := revisionOf(t, s, f.ID, 2); r.PublishedAt.IsZero() {
			t.Errorf("Revision(2) after unpublishing: PublishedAt got zero, want the time it was published")
		}
	})

	t.Run("SetLiveRevision of an unknown revision or page is ENOTFOUND and changes nothing", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, bare := newFile(t, s, a.ID), newFile(t, s, a.ID)
		savePage(t, s, f.ID, pageHTML(1, 100), true)
		savePage(t, s, f.ID, pageHTML(2, 100), false)
		for _, n := range []int{3, 100, -1} {
			_, err := s.SetLiveRevision(t.Context(), f.ID, n, stamp)
			wantCode(t, fmt.Sprintf("SetLiveRevision(%d)", n), err, fileframe.ENOTFOUND)
		}
		p, err := s.PageByFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("PageByFile: %v", err)
		}
		if p.LatestRevision != 2 || p.LiveRevision != 0 {
			t.Errorf("PageByFile after refused SetLiveRevision: LatestRevision, LiveRevision got %d, %d, want 2, 0", p.LatestRevision, p.LiveRevision)
		}
		for _, n := range []int{0, 1} {
			_, err := s.SetLiveRevision(t.Context(), bare.ID, n, stamp)
			wantCode(t, fmt.Sprintf("SetLiveRevision(file without a page, %d)", n), err, fileframe.ENOTFOUND)
			_, err = s.SetLiveRevision(t.Context(), "f_missing", n, stamp)
			wantCode(t, fmt.Sprintf("SetLiveRevision(missing file, %d)", n), err, fileframe.ENOTFOUND)
		}
		_, err = s.PageByFile(t.Context(), bare.ID)
		wantCode(t, "PageByFile(file without a page) after SetLiveRevision", err, fileframe.ENOTFOUND)
	})

	t.Run("SetLiveRevision of a pruned revision is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		total := fileframe.RevisionsKept + 3
		for n := 1; n <= total; n++ {
			savePage(t, s, f.ID, pageHTML(n, 100), false)
		}
		for _, n := range []int{1, total - fileframe.RevisionsKept} {
			_, err := s.SetLiveRevision(t.Context(), f.ID, n, stamp)
			wantCode(t, fmt.Sprintf("SetLiveRevision(pruned %d)", n), err, fileframe.ENOTFOUND)
		}
		oldest := total - fileframe.RevisionsKept + 1
		if p, err := s.SetLiveRevision(t.Context(), f.ID, oldest, stamp); err != nil || p.LiveRevision != oldest {
			t.Errorf("SetLiveRevision(oldest kept %d): got %+v, %v, want it live", oldest, p, err)
		}
	})

	t.Run("a revision made live by SetLiveRevision survives later pruning", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		for n := 1; n <= 3; n++ {
			savePage(t, s, f.ID, pageHTML(n, 100), false)
		}
		if _, err := s.SetLiveRevision(t.Context(), f.ID, 2, stamp); err != nil {
			t.Fatalf("SetLiveRevision(2): %v", err)
		}
		// Unpublished again, it was still published once, so it is kept.
		if _, err := s.SetLiveRevision(t.Context(), f.ID, 0, stamp); err != nil {
			t.Fatalf("SetLiveRevision(0): %v", err)
		}
		total := 3 + fileframe.RevisionsKept + 5
		for n := 4; n <= total; n++ {
			savePage(t, s, f.ID, pageHTML(n, 100), false)
		}
		want := append(span(total, total-fileframe.RevisionsKept+1), 2)
		if got := revisionNumbers(t, s, f.ID); !slices.Equal(got, want) {
			t.Errorf("Revisions: numbers got %v, want %v", got, want)
		}
		r := revisionOf(t, s, f.ID, 2)
		if string(r.HTML) != string(pageHTML(2, 100)) || r.PublishedAt.IsZero() {
			t.Errorf("Revision(2): got %d bytes published at %v, want the stored HTML with its publication time", len(r.HTML), r.PublishedAt)
		}
		if p, err := s.SetLiveRevision(t.Context(), f.ID, 2, stamp.Add(time.Hour)); err != nil || p.LiveRevision != 2 || p.LatestRevision != total {
			t.Errorf("SetLiveRevision(2) after pruning: got %+v, %v, want live 2, latest %d", p, err, total)
		}
	})
}

// testSameHTML: HTML equal to the latest revision's adds no revision, and
// KeepLive stores a draft without taking the live revision offline.
func testSameHTML(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	s := newStore(t)
	ctx := t.Context()
	a := newAccount(t, s)
	f := newFile(t, s, a.ID)
	one, two := pageHTML(1, 100), pageHTML(2, 100)

	p := savePage(t, s, f.ID, one, true)
	if p.LatestRevision != 1 || p.LiveRevision != 1 || p.SameAsLatest {
		t.Fatalf("first save: got %+v", p)
	}
	p = savePage(t, s, f.ID, one, true)
	if p.LatestRevision != 1 || p.LiveRevision != 1 || !p.SameAsLatest {
		t.Errorf("the same HTML again, published: got %+v, want revision 1 live, SameAsLatest", p)
	}
	if got := revisionNumbers(t, s, f.ID); !slices.Equal(got, []int{1}) {
		t.Errorf("revisions after the same HTML: got %v, want [1]", got)
	}

	// A draft of different HTML with KeepLive: revision 2, 1 stays live.
	p, err := s.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: two, KeepLive: true, At: time.Now()})
	if err != nil || p.LatestRevision != 2 || p.LiveRevision != 1 || p.SameAsLatest {
		t.Errorf("KeepLive draft: got %+v, %v; want latest 2, live 1", p, err)
	}
	if got, err := s.PageByFile(ctx, f.ID); err != nil || got.LiveRevision != 1 || got.LatestRevision != 2 {
		t.Errorf("PageByFile after a KeepLive draft: got %+v, %v", got, err)
	}
	// The same draft again with KeepLive: nothing changes.
	p, err = s.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: two, KeepLive: true, At: time.Now()})
	if err != nil || p.LatestRevision != 2 || p.LiveRevision != 1 || !p.SameAsLatest {
		t.Errorf("the same KeepLive draft again: got %+v, %v; want latest 2, live 1, SameAsLatest", p, err)
	}
	// The same HTML published: revision 2 goes live and is marked published.
	p = savePage(t, s, f.ID, two, true)
	if p.LatestRevision != 2 || p.LiveRevision != 2 || !p.SameAsLatest {
		t.Errorf("publishing the same HTML: got %+v, want revision 2 live", p)
	}
	if r := revisionOf(t, s, f.ID, 2); r.PublishedAt.IsZero() {
		t.Error("revision 2 published by a save of the same HTML has no PublishedAt")
	}
	// The same HTML as a plain draft (the seed endpoint's): offline.
	p = savePage(t, s, f.ID, two, false)
	if p.LatestRevision != 2 || p.LiveRevision != 0 || !p.SameAsLatest {
		t.Errorf("the same HTML as a draft: got %+v, want revision 2, not live", p)
	}
	// A different HTML equal to an older revision is a new revision.
	p = savePage(t, s, f.ID, one, false)
	if p.LatestRevision != 3 || p.SameAsLatest {
		t.Errorf("HTML of an older revision: got %+v, want revision 3", p)
	}
	if got := revisionNumbers(t, s, f.ID); !slices.Equal(got, []int{3, 2, 1}) {
		t.Errorf("revisions: got %v, want [3 2 1]", got)
	}
}

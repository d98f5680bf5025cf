package web

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
	"github.com/fileframe/fileframe/internal/sqlite"
)

// opaqueStore hides every method of a Store but fileframe.Store's, so the
// server cannot watch it for changes and caches nothing.
type opaqueStore struct{ fileframe.Store }

// cacheView is what a visitor gets from the three public paths of one file.
type cacheView struct {
	page, download, live int    // status codes: /f/{slug}, its download, the live revision on the content origin
	frame                string // the outer page's frame address; "" for the default page
}

func (e *testEnv) view(f fileframe.File, rev int) cacheView {
	e.t.Helper()
	var v cacheView
	resp, body := e.appGet("/f/" + f.Slug)
	v.page = resp.StatusCode
	if i := bytes.Index(body, []byte(`src="`+e.srv.ContentOrigin())); i >= 0 {
		rest := body[i+len(`src="`):]
		v.frame = string(rest[:bytes.IndexByte(rest, '"')])
	}
	resp, _ = e.appGet("/f/" + f.Slug + "/download")
	v.download = resp.StatusCode
	resp, body = e.contentGet(fmt.Sprintf("/p/%s/%d", f.Slug, rev), "Sec-Fetch-Dest", "iframe")
	v.live = resp.StatusCode
	if v.live == http.StatusOK {
		// The bytes served, from memory or not, are the revision's.
		stored, err := e.store.Revision(context.Background(), f.ID, rev)
		if err != nil {
			e.t.Fatalf("Revision %d: %v", rev, err)
		}
		prelude := preludeFor(e.srv.factsOf(f))
		if !bytes.Equal(body, withPrelude(stored.HTML, prelude)) || resp.Header.Get("ETag") != `"`+contentETagKey(stored.SHA256, prelude)+`"` {
			e.t.Errorf("/p/%s/%d: ETag %s and %d bytes, want revision %d's ETag %q and HTML (%d bytes, with the prelude)",
				f.Slug, rev, resp.Header.Get("ETag"), len(body), rev, contentETagKey(stored.SHA256, prelude), len(stored.HTML))
		}
	}
	return v
}

// TestPublicCacheHitEqualsMiss: the first request of a slug fills the
// cache, the second is answered from it (the live page's HTML too), and a
// server that cannot cache answers the same: same status, bytes and headers but for the request ID
// and the date.
func TestPublicCacheHitEqualsMiss(t *testing.T) {
	cached := newTestEnv(t)
	if cached.srv.changes == nil {
		t.Fatal("a server on SQLite has no change watcher")
	}
	// The same base URL (as behind one proxy): the custom page's prelude
	// tells the page its public link (content_prelude.go).
	uncached := startTestEnv(t, t.TempDir(), func(c *Config) {
		c.Store = opaqueStore{c.Store}
		base := *cached.srv.cfg.BaseURL
		c.BaseURL = &base
	})
	if uncached.srv.changes != nil {
		t.Fatal("a server on an opaque store has a change watcher")
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, e := range []*testEnv{cached, uncached} {
		a := e.account(fileframe.PlanAgency)
		f := e.file(a, "report.pdf", []byte("%PDF"))
		if _, err := e.store.CreateFile(context.Background(), fileframe.File{
			ID: "f_same_default", Slug: "default-page", AccountID: a.ID, Name: "notes.txt", Size: 10, BlobKey: f.BlobKey, CreatedAt: created,
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.CreateFile(context.Background(), fileframe.File{
			ID: "f_same_outer", Slug: "outer-page", AccountID: a.ID, Name: "report.pdf", Size: 4, BlobKey: f.BlobKey, CreatedAt: created,
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.SavePage(context.Background(), fileframe.PageWrite{
			FileID: "f_same_outer", HTML: []byte(customHTML("same")), Publish: true, At: time.Now(),
		}); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct {
		status int
		header http.Header
		body   []byte
	}
	get := func(e *testEnv, method, path string) answer {
		base := e.app.URL
		if strings.HasPrefix(path, "/p/") {
			base = e.content.URL
		}
		req, err := http.NewRequest(method, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Sec-Fetch-Dest", "iframe") // as the outer page's frame
		resp, body := e.do(req)
		h := resp.Header.Clone()
		h.Del("X-Request-Id")
		h.Del("Date")
		return answer{resp.StatusCode, h, body}
	}
	for _, path := range []string{"/f/default-page", "/f/outer-page", "/f/outer-page/download", "/p/outer-page/1"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			miss := get(cached, method, path)
			hit := get(cached, method, path)
			plain := get(uncached, method, path)
			// The two servers' origins differ in their ports.
			plain.body = bytes.ReplaceAll(plain.body, []byte(uncached.srv.ContentOrigin()), []byte(cached.srv.ContentOrigin()))
			for k, v := range plain.header {
				for i := range v {
					v[i] = strings.ReplaceAll(v[i], uncached.srv.ContentOrigin(), cached.srv.ContentOrigin())
					v[i] = strings.ReplaceAll(v[i], uncached.srv.AppOrigin(), cached.srv.AppOrigin())
				}
				plain.header[k] = v
			}
			for name, other := range map[string]answer{"hit": hit, "uncached": plain} {
				if other.status != miss.status || !bytes.Equal(other.body, miss.body) {
					t.Errorf("%s %s: %s got %d with %q, miss %d with %q", method, path, name, other.status, other.body, miss.status, miss.body)
				}
				if fmt.Sprint(other.header) != fmt.Sprint(miss.header) {
					t.Errorf("%s %s: %s headers\n%v\nmiss headers\n%v", method, path, name, other.header, miss.header)
				}
			}
			if miss.status != http.StatusOK {
				t.Errorf("%s %s: status %d, want 200", method, path, miss.status)
			}
		}
	}
}

// TestPublicCacheNeverStale changes what visitors should see in every way
// the store allows, through this server's store, through its API, through
// a second Store on the same file (as the admin CLI does) and through a
// plain SQL connection, and checks each change on the very next request,
// with no wait, after the old state was served from the cache.
func TestPublicCacheNeverStale(t *testing.T) {
	fx := newAPIFixture(t)
	e := fx.e
	ctx := context.Background()
	cli, err := sqlite.Open(ctx, filepath.Join(e.dir, "fileframe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(e.dir, "fileframe.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	f := fx.file
	frame := func(rev int) string { return fmt.Sprintf("%s/p/%s/%d", e.srv.ContentOrigin(), f.Slug, rev) }
	defaultView := func(rev int) cacheView { return cacheView{page: 200, download: 200, live: 404} }
	outerView := func(rev int) cacheView { return cacheView{page: 200, download: 200, live: 200, frame: frame(rev)} }
	goneView := cacheView{page: 404, download: 404, live: 404}

	rev := 0
	save := func(s fileframe.Store, publish bool) {
		t.Helper()
		p, err := s.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: []byte(customHTML(fmt.Sprint(rev + 1))), Publish: publish})
		if err != nil {
			t.Fatalf("SavePage: %v", err)
		}
		rev = p.LatestRevision
	}
	setPlan := func(s fileframe.Store, p fileframe.Plan) {
		t.Helper()
		if err := s.SetAccountPlan(ctx, fx.agency.ID, p); err != nil {
			t.Fatalf("SetAccountPlan: %v", err)
		}
	}
	setDisabled := func(disabled bool) {
		t.Helper()
		if _, err := raw.ExecContext(ctx, `UPDATE accounts SET disabled = ? WHERE id = ?`, disabled, fx.agency.ID); err != nil {
			t.Fatalf("UPDATE accounts: %v", err)
		}
	}
	// revisionSQL changes the live revision in place, as only an
	// operator's SQL does.
	revisionSQL := func(query string) {
		t.Helper()
		if _, err := raw.ExecContext(ctx, query, f.ID, rev); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	post := func(publish bool) {
		t.Helper()
		res := fx.post(t, fx.general, map[string]any{"fileId": string(f.ID), "html": customHTML(fmt.Sprint(rev + 1)), "publish": publish})
		if res.resp.StatusCode != http.StatusOK {
			t.Fatalf("POST: %d %s", res.resp.StatusCode, res.raw)
		}
		rev = int(res.body["revision"].(float64))
	}

	steps := []struct {
		name   string
		change func()
		want   func(rev int) cacheView
	}{
		{"nothing yet", func() {}, defaultView},
		{"publish through the store", func() { save(e.store, true) }, outerView},
		{"new revision through the store", func() { save(e.store, true) }, outerView},
		{"unpublish through the store", func() { save(e.store, false) }, defaultView},
		{"publish through the API", func() { post(true) }, outerView},
		{"draft through the API", func() { post(false) }, defaultView},
		{"publish through a second Store", func() { save(cli, true) }, outerView},
		{"new revision through a second Store", func() { save(cli, true) }, outerView},
		{"plan pro through the store", func() { setPlan(e.store, fileframe.PlanPro) }, defaultView},
		{"plan agency through a second Store", func() { setPlan(cli, fileframe.PlanAgency) }, outerView},
		{"plan free through a second Store", func() { setPlan(cli, fileframe.PlanFree) }, defaultView},
		{"plan agency through the store", func() { setPlan(e.store, fileframe.PlanAgency) }, outerView},
		{"account disabled by SQL", func() { setDisabled(true) }, func(int) cacheView { return goneView }},
		{"account enabled by SQL", func() { setDisabled(false) }, outerView},
		{"live revision given revision 1's HTML by SQL", func() {
			revisionSQL(`UPDATE page_revisions SET sha256 = (SELECT sha256 FROM page_revisions WHERE file_id = ?1 AND number = 1) WHERE file_id = ?1 AND number = ?2`)
		}, outerView},
		{"live revision deleted by SQL", func() {
			revisionSQL(`DELETE FROM page_revisions WHERE file_id = ?1 AND number = ?2`)
		}, func(rev int) cacheView { return cacheView{page: 200, download: 200, live: 404, frame: frame(rev)} }},
		{"unpublish through a second Store", func() { save(cli, false) }, defaultView},
	}
	last := 0
	for _, step := range steps {
		step.change()
		want := step.want(rev)
		live := rev
		if want.live == 404 && rev > 0 {
			live = last // the revision that was live before
		}
		// Twice: the first answer fills the cache, the second comes from it.
		for i := range 2 {
			if got := e.view(f, max(live, 1)); got != want {
				t.Errorf("after %s (request %d): got %+v, want %+v", step.name, i+1, got, want)
			}
		}
		if want.live == 200 {
			last = rev
		}
	}
}

func TestPublicCacheBounded(t *testing.T) {
	c := newPublicCache(3)
	entry := func(slug string, gen uint64) *publicEntry {
		return &publicEntry{gen: gen, file: fileframe.File{Slug: slug}}
	}
	for i := range 10 {
		c.put(entry(fmt.Sprint(i), 1))
		if len(c.bySlug) > 3 || len(c.ring) > 3 {
			t.Fatalf("after %d puts: %d entries, want at most 3", i+1, len(c.bySlug))
		}
	}
	if c.get("9", 1) == nil {
		t.Errorf("the newest entry is not held")
	}
	// A used entry survives the next eviction; an unused one does not.
	c.get("8", 1)
	c.put(entry("10", 1))
	c.put(entry("11", 1))
	if c.get("8", 1) == nil {
		t.Errorf("an entry used since the hand passed was evicted")
	}
	if c.get("10", 2) != nil {
		t.Errorf("an entry of generation 1 was returned for generation 2")
	}
	c.put(entry("new", 2))
	if len(c.bySlug) != 1 || c.get("11", 1) != nil {
		t.Errorf("a newer generation left %d entries, want 1", len(c.bySlug))
	}
	c.put(entry("old", 1))
	if c.get("old", 1) != nil {
		t.Errorf("an entry of an older generation was kept")
	}
}

// TestOwnWritesCounted: each use case (internal/service) that can
// change what visitors see bumps its own-write counter, so that it shows at
// once even on a store whose watcher learns of it later (PostgreSQL).
func TestOwnWritesCounted(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	a := e.account(fileframe.PlanAgency)
	f := e.file(a, "a.txt", []byte("a"))
	_, k := e.key(a, "")
	// Every write that visitors can see goes through the use cases of
	// internal/service, which tell this process's cache.
	svc := e.srv.svc
	writes := []struct {
		name string
		do   func() error
	}{
		{"SavePage", func() error {
			_, _, err := svc.SavePage(ctx, a, f, []byte(customHTML("x")), service.PageMode{Publish: true})
			return err
		}},
		{"PublishRevision", func() error { _, err := svc.PublishRevision(ctx, a, f, 0); return err }},
		{"RevokeKey", func() error { return svc.RevokeKey(ctx, a, k.ID) }},
		{"SetPlan", func() error { var err error; a, err = svc.SetPlan(ctx, a.ID, fileframe.PlanPro); return err }},
		{"SetAccountAppearance", func() error {
			return svc.SetAccountAppearance(ctx, a, fileframe.Appearance{Template: "clean", Headline: "Hi"})
		}},
		{"SetFileAppearance", func() error {
			return svc.SetFileAppearance(ctx, a, f, fileframe.Appearance{Template: "clean", Headline: "Hi"})
		}},
		{"RenameFile", func() error { return svc.RenameFile(ctx, a, f.ID, "b.txt") }},
		{"AddFile", func() error {
			_, err := svc.AddFile(ctx, service.NewFile{Account: a, Name: "c.txt", Size: 1, Body: strings.NewReader("c")})
			return err
		}},
		{"DeleteFile", func() error { _, _, err := svc.DeleteFile(ctx, a, f.ID); return err }},
		{"SetDisabled", func() error { return svc.SetDisabled(ctx, a.ID, true) }},
	}
	for _, w := range writes {
		before := e.srv.ownWrites.Load()
		if err := w.do(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if got := e.srv.ownWrites.Load(); got != before+1 {
			t.Errorf("%s: own writes got %d, want %d", w.name, got, before+1)
		}
	}
}

// slowSlugStore is a store whose FileBySlug counts its calls and takes a
// while, as a busy database does; it still watches for changes.
type slowSlugStore struct {
	fileframe.Store
	reads atomic.Int64
}

func (s *slowSlugStore) FileBySlug(ctx context.Context, slug string) (fileframe.File, error) {
	s.reads.Add(1)
	time.Sleep(50 * time.Millisecond)
	return s.Store.FileBySlug(ctx, slug)
}

func (s *slowSlugStore) WatchChanges(ctx context.Context) (fileframe.ChangeWatcher, error) {
	return s.Store.(fileframe.ChangeWatchingStore).WatchChanges(ctx)
}

// TestPublicCacheMissesShareOneRead: after a change drops the cache, the
// requests that miss one slug at the same time read the store once, not
// once each (the thundering herd: under 1,000 connections on PostgreSQL,
// every request after a change queued its own reads on the pool, and wrk
// counted hundreds of answers slower than 2 s); and a client that leaves
// during the shared read fails no other.
func TestPublicCacheMissesShareOneRead(t *testing.T) {
	var slow *slowSlugStore
	e := newTestEnv(t, func(c *Config) {
		slow = &slowSlugStore{Store: c.Store}
		c.Store = slow
	})
	if e.srv.changes == nil {
		t.Fatal("the server caches nothing")
	}
	a := e.account(fileframe.PlanAgency)
	f := e.file(a, "report.pdf", []byte("%PDF"))
	for round := range 3 {
		e.srv.ownWrites.Add(1) // a change: the cache is dropped
		before := slow.reads.Load()
		// One client gives up during the shared read.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.app.URL+"/f/"+f.Slug, nil)
		go func() {
			if resp, err := e.app.Client().Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		var wg sync.WaitGroup
		var bad atomic.Int64
		for range 40 {
			wg.Go(func() {
				if resp, _ := e.get(e.app.URL + "/f/" + f.Slug); resp.StatusCode != http.StatusOK {
					bad.Add(1)
				}
			})
		}
		wg.Wait()
		cancel()
		if n := bad.Load(); n != 0 {
			t.Errorf("round %d: %d of 40 visitors did not get the page", round, n)
		}
		if n := slow.reads.Load() - before; n > 3 {
			t.Errorf("round %d: 41 visitors missing one slug at once read it %d times, want once (a few if a write lands meanwhile)", round, n)
		}
	}
}

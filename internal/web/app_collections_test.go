package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestCollectionApp: an owner ticks files on /files and makes a
// collection; its page lists them, removes one and adds another, under the
// same link; another account's file cannot be added.
func TestCollectionApp(t *testing.T) {
	e := newTestEnv(t)
	b, a := signedInAs(e, "owner@example.com", fileframe.PlanFree)
	f1, f2, f3 := e.file(a, "one.pdf", []byte("1")), e.file(a, "two.pdf", []byte("22")), e.file(a, "three.pdf", []byte("333"))
	stranger := e.account(fileframe.PlanFree)
	theirs := e.file(stranger, "theirs.pdf", []byte("x"))

	_, list := b.get("/files")
	if !strings.Contains(list, `action="/collections"`) || !strings.Contains(list, `value="`+string(f1.ID)+`" form="make-collection"`) {
		t.Fatalf("/files lacks the collection form or a file's box")
	}
	tok := b.token("/files")
	resp, body := b.post("/collections", url.Values{"csrf": {tok}, "name": {"Both"}, "file": {string(f1.ID), string(f2.ID)}})
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/files/f_") {
		t.Fatalf("POST /collections: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	page := strings.SplitN(resp.Header.Get("Location"), "?", 2)[0]
	id := fileframe.FileID(strings.TrimPrefix(page, "/files/"))
	c, err := e.store.FileByID(context.Background(), id)
	if err != nil || !c.IsCollection() || c.Name != "Both" || c.Size != 3 {
		t.Fatalf("the collection made: %+v, %v", c, err)
	}
	_, html := b.get(page)
	for _, want := range []string{"Files in this collection", "one.pdf", "two.pdf", `action="` + page + `/collection/remove"`, `value="` + string(f3.ID) + `"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the collection's page lacks %q", want)
		}
	}
	if strings.Contains(html, "theirs.pdf") {
		t.Error("the collection's picker offers another account's file")
	}
	tok = b.token(page)
	if resp, body := b.post(page+"/collection/remove", url.Values{"csrf": {tok}, "file": {string(f1.ID)}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove: %d\n%s", resp.StatusCode, body)
	}
	if resp, body := b.post(page+"/collection/add", url.Values{"csrf": {tok}, "file": {string(f3.ID)}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := b.post(page+"/collection/add", url.Values{"csrf": {tok}, "file": {string(theirs.ID)}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("adding another account's file: %d, want 404", resp.StatusCode)
	}
	_, items, err := e.srv.svc.CollectionFiles(context.Background(), a, id)
	if err != nil || len(items) != 2 || items[0].File.ID != f2.ID || items[1].File.ID != f3.ID {
		t.Errorf("items after remove and add: %v, %v; want two.pdf, three.pdf", items, err)
	}
	if got, _ := e.store.FileByID(context.Background(), id); got.Slug != c.Slug {
		t.Errorf("the link changed: %q → %q", c.Slug, got.Slug)
	}
	// A stranger cannot change it.
	sb, _ := signedInAs(e, "stranger@example.com", fileframe.PlanFree)
	if resp, _ := sb.post(page+"/collection/remove", url.Values{"csrf": {sb.token("/files")}, "file": {string(f2.ID)}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a stranger's remove: %d, want 404", resp.StatusCode)
	}
}

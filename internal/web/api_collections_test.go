package web

import (
	"fmt"
	"sync"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func TestCollectionAPI(t *testing.T) {
	fx := newAPIFixture(t)
	base := fx.e.srv.cfg.BaseURL.String()

	res := fx.call(t, "POST", "/api/collections", fx.general, map[string]any{
		"name": "Launch kit", "fileIds": []string{string(fx.file.ID), string(fx.file2.ID), string(fx.file.ID)}})
	wantStatus(t, "POST /api/collections", res, 201)
	id, _ := res.body["collectionId"].(string)
	slug, _ := res.body["slug"].(string)
	if !fileframe.LooksLikeFileID(id) || res.body["url"] != "/f/"+slug || res.body["publicUrl"] != base+"/f/"+slug ||
		res.body["downloadUrl"] != base+"/f/"+slug+"/download" || res.body["name"] != "Launch kit" {
		t.Errorf("POST /api/collections: %s", res.raw)
	}
	if files := res.body["files"].([]any); len(files) != 2 || files[0].(map[string]any)["fileId"] != string(fx.file.ID) {
		t.Errorf("files: got %v, want the two files once each, in order", files)
	}
	if got := res.resp.Header.Get("Location"); got != "/files/"+id {
		t.Errorf("Location: got %q", got)
	}

	// A collection is a file of the list, of kind collection.
	res = fx.call(t, "GET", "/api/files/"+id, fx.general, nil)
	wantStatus(t, "GET /api/files/{collection}", res, 200)
	if res.body["kind"] != "collection" || res.body["type"] != "application/zip" {
		t.Errorf("GET /api/files/{collection}: kind %v, type %v", res.body["kind"], res.body["type"])
	}
	res = fx.call(t, "GET", "/api/files/"+string(fx.file.ID), fx.general, nil)
	if res.body["kind"] != "file" {
		t.Errorf("GET /api/files/{file}: kind %v, want file", res.body["kind"])
	}

	extra := fx.e.file(fx.agency, "extra.txt", []byte("extra"))
	res = fx.call(t, "POST", "/api/collections/"+id+"/files", fx.general, map[string]any{"fileIds": []string{string(extra.ID)}})
	wantStatus(t, "POST /api/collections/{id}/files", res, 200)
	if files := res.body["files"].([]any); len(files) != 3 || res.body["slug"] != slug {
		t.Errorf("after adding: %d files, slug %v; want 3, %s", len(files), res.body["slug"], slug)
	}
	res = fx.call(t, "DELETE", "/api/collections/"+id+"/files/"+string(fx.file2.ID), fx.general, nil)
	wantStatus(t, "DELETE /api/collections/{id}/files/{fileId}", res, 200)
	if files := res.body["files"].([]any); len(files) != 2 || res.body["slug"] != slug {
		t.Errorf("after removing: %d files, slug %v; want 2, %s", len(files), res.body["slug"], slug)
	}
	res = fx.call(t, "GET", "/api/collections/"+id, fx.page, nil)
	checkProblem(t, res, 404, fileframe.CodeCollectionNotFound)
	res = fx.call(t, "GET", "/api/collections/"+id, fx.general, nil)
	wantStatus(t, "GET /api/collections/{id}", res, 200)

	// Refusals.
	checkProblem(t, fx.call(t, "POST", "/api/collections", fx.general, map[string]any{"name": "X", "fileIds": []string{string(fx.otherFile.ID)}}), 404, fileframe.CodeFileNotFound)
	checkProblem(t, fx.call(t, "POST", "/api/collections", fx.general, map[string]any{"name": "X", "fileIds": []string{"../etc"}}), 404, fileframe.CodeFileNotFound)
	checkProblem(t, fx.call(t, "POST", "/api/collections", fx.general, map[string]any{"name": "X", "fileIds": []string{id}}), 422, fileframe.CodeNotCollectable)
	checkProblem(t, fx.call(t, "POST", "/api/collections", fx.general, map[string]any{"fileIds": []string{}}), 400, fileframe.CodeInvalidField)
	checkProblem(t, fx.call(t, "POST", "/api/collections", fx.general, map[string]any{"name": "a\u202eb"}), 400, fileframe.CodeInvalidField)
	checkProblem(t, fx.call(t, "POST", "/api/collections", fx.general, map[string]any{"name": "X", "fileIds": "f_x"}), 400, fileframe.CodeInvalidField)
	checkProblem(t, fx.call(t, "POST", "/api/collections", fx.page, map[string]any{"name": "X"}), 403, fileframe.CodeKeyScope)
	checkProblem(t, fx.call(t, "POST", "/api/collections", "", map[string]any{"name": "X"}), 401, fileframe.CodeUnauthorized)
	checkProblem(t, fx.call(t, "GET", "/api/collections/"+string(fx.file.ID), fx.general, nil), 404, fileframe.CodeCollectionNotFound)
	checkProblem(t, fx.call(t, "GET", "/api/collections/f_nothere", fx.general, nil), 404, fileframe.CodeCollectionNotFound)
	checkProblem(t, fx.call(t, "DELETE", "/api/collections/"+id+"/files/"+string(fx.file2.ID), fx.general, nil), 404, fileframe.CodeFileNotFound)
	checkProblem(t, fx.call(t, "POST", "/api/collections/"+id+"/files", fx.general, map[string]any{"fileIds": []string{}}), 400, fileframe.CodeInvalidField)
	other := fx.call(t, "POST", "/api/collections", fx.general, map[string]any{"name": "Other"})
	wantStatus(t, "POST /api/collections (empty)", other, 201)
	checkProblem(t, fx.call(t, "POST", "/api/collections/"+id+"/files", fx.general,
		map[string]any{"fileIds": []string{other.body["collectionId"].(string)}}), 422, fileframe.CodeNotCollectable)
}

// TestCollectionAPIParallelCap: parallel additions through the API never
// take a collection past its 1000 files.
func TestCollectionAPIParallelCap(t *testing.T) {
	fx := newAPIFixture(t)
	ctx := t.Context()
	var ids []fileframe.FileID
	for i := range fileframe.MaxCollectionFiles - 4 {
		f, err := fx.e.store.CreateFile(ctx, fileframe.File{AccountID: fx.agency.ID, Name: fmt.Sprintf("f%d", i), Size: 1, BlobKey: fmt.Sprintf("%064d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
	}
	c, err := fx.e.srv.svc.CreateCollection(ctx, fx.agency, "Big", ids)
	if err != nil {
		t.Fatalf("CreateCollection(996): %v", err)
	}
	var wg sync.WaitGroup
	statuses := make([]int, 6)
	for i := range statuses {
		a := fx.e.file(fx.agency, fmt.Sprintf("n%d-a", i), []byte{byte(i), 1})
		b := fx.e.file(fx.agency, fmt.Sprintf("n%d-b", i), []byte{byte(i), 2})
		wg.Go(func() {
			res := fx.call(t, "POST", "/api/collections/"+string(c.ID)+"/files", fx.general, map[string]any{"fileIds": []string{string(a.ID), string(b.ID)}})
			statuses[i] = res.resp.StatusCode
		})
	}
	wg.Wait()
	ok := 0
	for _, st := range statuses {
		switch st {
		case 200:
			ok++
		case 409:
		default:
			t.Errorf("a parallel addition: status %d", st)
		}
	}
	_, items, err := fx.e.srv.svc.CollectionFiles(ctx, fx.agency, c.ID)
	if err != nil || ok != 2 || len(items) != fileframe.MaxCollectionFiles {
		t.Errorf("parallel additions of 2 to 996 files: %d succeeded, %d files, %v; want 2, 1000", ok, len(items), err)
	}
}

// TestCollectionMCP: the collection tools do what the REST endpoints do.
func TestCollectionMCP(t *testing.T) {
	fx := newAPIFixture(t)
	cs := mustConnect(t, fx.e, fx.general)
	c := toolOK(t, "create_collection", callTool(t, cs, "create_collection", map[string]any{"name": "Kit", "fileIds": []string{string(fx.file.ID)}}))
	id, _ := c["collectionId"].(string)
	if !fileframe.LooksLikeFileID(id) || len(c["files"].([]any)) != 1 {
		t.Fatalf("create_collection: %v", c)
	}
	got := toolOK(t, "add_to_collection", callTool(t, cs, "add_to_collection", map[string]any{"collectionId": id, "fileIds": []string{string(fx.file2.ID)}}))
	if len(got["files"].([]any)) != 2 || got["slug"] != c["slug"] {
		t.Errorf("add_to_collection: %v", got)
	}
	got = toolOK(t, "remove_from_collection", callTool(t, cs, "remove_from_collection", map[string]any{"collectionId": id, "fileId": string(fx.file.ID)}))
	if len(got["files"].([]any)) != 1 {
		t.Errorf("remove_from_collection: %v", got)
	}
	got = toolOK(t, "get_collection", callTool(t, cs, "get_collection", map[string]any{"collectionId": id}))
	if got["collectionId"] != id {
		t.Errorf("get_collection: %v", got)
	}
	toolProblem(t, "create_collection", callTool(t, cs, "create_collection", map[string]any{"name": "X", "fileIds": []string{string(fx.otherFile.ID)}}), 404, fileframe.CodeFileNotFound)
	toolProblem(t, "get_collection", callTool(t, cs, "get_collection", map[string]any{"collectionId": string(fx.file.ID)}), 404, fileframe.CodeCollectionNotFound)
	page := mustConnect(t, fx.e, fx.page)
	toolProblem(t, "create_collection", callTool(t, page, "create_collection", map[string]any{"name": "X"}), 403, fileframe.CodeKeyScope)
}

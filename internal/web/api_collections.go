package web

import (
	"context"
	"net/http"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Collections in the API (service/collection.go): several files under one
// link. A collection is also a file of GET /api/files (kind
// "collection"): PATCH /api/files/{id} renames it and sets its link's
// controls, DELETE /api/files/{id} deletes it (not its files), and the
// custom-page endpoints take its ID as fileId.

// collectionItem is one file of a collection in the API's answers.
type collectionItem struct {
	FileID fileframe.FileID `json:"fileId"`
	Name   string           `json:"name"`
	Size   int64            `json:"size"`
}

// collectionAnswer is a collection as the API answers it.
type collectionAnswer struct {
	OK           bool             `json:"ok"`
	CollectionID fileframe.FileID `json:"collectionId"`
	Name         string           `json:"name"`
	Size         int64            `json:"size"`
	Slug         string           `json:"slug"`
	// URL is the public link, /f/<slug>; PublicURL the same with the base
	// URL; DownloadURL the ZIP of every file; Page the collection's page
	// in the application.
	URL         string           `json:"url"`
	PublicURL   string           `json:"publicUrl"`
	DownloadURL string           `json:"downloadUrl"`
	Page        string           `json:"page"`
	Link        apiLink          `json:"link"`
	Files       []collectionItem `json:"files"`
}

// collectionOf describes collection c with its items.
func (s *Server) collectionOf(c fileframe.File, items []fileframe.CollectionItem) collectionAnswer {
	out := collectionAnswer{OK: true, CollectionID: c.ID, Name: c.Name, Size: c.Size, Slug: c.Slug,
		URL: c.URL(), PublicURL: s.publicURL(c.URL()), DownloadURL: s.publicURL(c.URL() + "/download"),
		Page: filePagePath(c.ID), Link: newAPILink(c, s.now()), Files: make([]collectionItem, 0, len(items))}
	for _, it := range items {
		out.Files = append(out.Files, collectionItem{FileID: it.File.ID, Name: it.File.Name, Size: it.File.Size})
	}
	return out
}

// fileIDs returns ids as file IDs.
func fileIDs(ids []string) []fileframe.FileID {
	out := make([]fileframe.FileID, len(ids))
	for i, id := range ids {
		out[i] = fileframe.FileID(id)
	}
	return out
}

// apiCreateCollection is POST /api/collections with {"name", "fileIds"}.
func (s *Server) apiCreateCollection(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	o, err := parseJSONObject(c.body, false)
	if err != nil {
		return 0, nil, err
	}
	name, err := o.string("name")
	if err != nil {
		return 0, nil, err
	}
	ids := o.strings("fileIds", fileframe.MaxCollectionFiles)
	o.only("name", "fileIds")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	out, err := s.createCollectionOp(r.Context(), c.caller, name, fileIDs(ids))
	if err != nil {
		return 0, nil, err
	}
	w.Header().Set("Location", out.Page)
	return http.StatusCreated, out, nil
}

// createCollectionOp makes a collection of the caller's files.
func (s *Server) createCollectionOp(ctx context.Context, c apiCaller, name string, ids []fileframe.FileID) (collectionAnswer, error) {
	if name == "" {
		return collectionAnswer{}, fileframe.Errorf(fileframe.CodeInvalidField,
			"name is required: the collection's name, which its ZIP download is named after (\"<name>.zip\").")
	}
	coll, err := s.svc.CreateCollection(ctx, c.account, name, ids)
	if err != nil {
		return collectionAnswer{}, err
	}
	_, items, err := s.svc.CollectionFiles(ctx, c.account, coll.ID)
	if err != nil {
		return collectionAnswer{}, err
	}
	s.logCtx(ctx).Info("api: collection created", "key_id", c.key.ID, "file_id", coll.ID, "files", len(items))
	return s.collectionOf(coll, items), nil
}

// pathCollection is reachCollection of the {id} of the path.
func (s *Server) pathCollection(ctx context.Context, r *http.Request, c apiCaller) (fileframe.File, error) {
	return s.reachCollection(ctx, c, fileframe.FileID(r.PathValue("id")))
}

// reachCollection is the caller's collection id: a page-bound key reaches
// only its own file.
func (s *Server) reachCollection(ctx context.Context, c apiCaller, id fileframe.FileID) (fileframe.File, error) {
	if c.key.Kind == fileframe.KeyPage && id != c.key.FileID {
		return fileframe.File{}, fileframe.Errorf(fileframe.CodeCollectionNotFound,
			"This page-bound key reaches only its own file, %s; there is no collection %q it can act on.", c.key.FileID, truncate(string(id), 100))
	}
	return s.svc.OwnCollection(ctx, c.account, id)
}

// collectionOp describes the caller's collection id with its items.
func (s *Server) collectionOp(ctx context.Context, c apiCaller, id fileframe.FileID) (collectionAnswer, error) {
	coll, items, err := s.svc.CollectionFiles(ctx, c.account, id)
	if err != nil {
		return collectionAnswer{}, err
	}
	return s.collectionOf(coll, items), nil
}

// apiGetCollection is GET /api/collections/{id}.
func (s *Server) apiGetCollection(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	coll, err := s.pathCollection(r.Context(), r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	out, err := s.collectionOp(r.Context(), c.caller, coll.ID)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// apiAddToCollection is POST /api/collections/{id}/files with
// {"fileIds"}.
func (s *Server) apiAddToCollection(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	coll, err := s.pathCollection(r.Context(), r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	o, err := parseJSONObject(c.body, false)
	if err != nil {
		return 0, nil, err
	}
	ids := o.strings("fileIds", fileframe.MaxCollectionFiles)
	o.only("fileIds")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	out, err := s.addToCollectionOp(r.Context(), c.caller, coll.ID, fileIDs(ids))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// addToCollectionOp adds the caller's files to its collection id.
func (s *Server) addToCollectionOp(ctx context.Context, c apiCaller, id fileframe.FileID, ids []fileframe.FileID) (collectionAnswer, error) {
	if len(ids) == 0 {
		return collectionAnswer{}, fileframe.Errorf(fileframe.CodeInvalidField,
			"fileIds is required: the IDs of the files to add, such as [\"f_…\"].")
	}
	if _, err := s.svc.AddToCollection(ctx, c.account, id, ids); err != nil {
		return collectionAnswer{}, err
	}
	s.logCtx(ctx).Info("api: files added to a collection", "key_id", c.key.ID, "file_id", id, "files", len(ids))
	return s.collectionOp(ctx, c, id)
}

// apiRemoveFromCollection is DELETE /api/collections/{id}/files/{fileId}.
func (s *Server) apiRemoveFromCollection(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	coll, err := s.pathCollection(r.Context(), r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	out, err := s.removeFromCollectionOp(r.Context(), c.caller, coll.ID, fileframe.FileID(r.PathValue("fileId")))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// removeFromCollectionOp takes file item out of the caller's collection.
func (s *Server) removeFromCollectionOp(ctx context.Context, c apiCaller, id, item fileframe.FileID) (collectionAnswer, error) {
	if _, err := s.svc.RemoveFromCollection(ctx, c.account, id, item); err != nil {
		return collectionAnswer{}, err
	}
	s.logCtx(ctx).Info("api: file removed from a collection", "key_id", c.key.ID, "file_id", id, "item", item)
	return s.collectionOp(ctx, c, id)
}

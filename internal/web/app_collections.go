package web

import (
	"net/http"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Collections in the web application (service/collection.go): the files
// list makes one of the ticked files (POST /collections); a collection's
// page lists its files with a remove button each and a picker of the
// account's other files (POST /files/{id}/collection/add and /remove).

// collectionPanel is the collection part of app_file.html.
type collectionPanel struct {
	Items []fileRow
	// Candidates are the account's files it does not hold, to add.
	Candidates []fileRow
	Max        int
}

// collectionPanelFor loads the panel of collection c.
func (s *Server) collectionPanelFor(r *http.Request, user *signedIn, c fileframe.File) (*collectionPanel, error) {
	_, items, err := s.svc.CollectionFiles(r.Context(), user.account, c.ID)
	if err != nil {
		return nil, err
	}
	p := &collectionPanel{Max: fileframe.MaxCollectionFiles}
	held := make(map[fileframe.FileID]bool, len(items))
	for _, it := range items {
		held[it.File.ID] = true
		p.Items = append(p.Items, s.newFileRow(it.File))
	}
	list, err := s.store.FilesByAccount(r.Context(), user.account.ID)
	if err != nil {
		return nil, err
	}
	for _, l := range list {
		if !l.File.IsCollection() && l.File.Shared && !held[l.File.ID] {
			p.Candidates = append(p.Candidates, s.newFileRow(l.File))
		}
	}
	return p, nil
}

// formFileIDs returns the form's "file" values as file IDs.
func formFileIDs(r *http.Request) []fileframe.FileID {
	return fileIDs(r.PostForm["file"])
}

// createCollection serves POST /collections: a collection of the ticked
// files ("file") under "name", then its page.
func (s *Server) createCollection(w http.ResponseWriter, r *http.Request, user *signedIn) {
	name := r.PostFormValue("name")
	if name == "" {
		name = "Files"
	}
	ids := formFileIDs(r)
	if len(ids) == 0 {
		s.appError(w, r, user, failure(fileframe.CodeInvalidField, "No files ticked",
			"Tick the files to put in the collection in the list, then make the collection again."))
		return
	}
	c, err := s.svc.CreateCollection(r.Context(), user.account, name, ids)
	if s.collectionFailed(w, r, user, err) {
		return
	}
	appRedirect(w, r, fileURL(c, "?done=collection"))
}

// collectionFailed answers a refused collection change on the error page;
// it reports whether it answered.
func (s *Server) collectionFailed(w http.ResponseWriter, r *http.Request, user *signedIn, err error) bool {
	switch fileframe.ErrorCode(err) {
	case "":
		return false
	case fileframe.CodeInvalidField, fileframe.CodeCollectionFull, fileframe.CodeNotCollectable:
		s.appError(w, r, user, failure(fileframe.ErrorCode(err), "The collection was not changed", fileframe.ErrorMessage(err)))
	case fileframe.CodeFileNotFound, fileframe.CodeCollectionNotFound:
		s.appError(w, r, user, fileGone)
	default:
		s.appError(w, r, user, err)
	}
	return true
}

// addToCollection serves POST /files/{id}/collection/add.
func (s *Server) addToCollection(w http.ResponseWriter, r *http.Request, user *signedIn) {
	id := fileframe.FileID(r.PathValue("id"))
	ids := formFileIDs(r)
	if len(ids) == 0 {
		appRedirect(w, r, "/files/"+string(id)+"#collection")
		return
	}
	c, err := s.svc.AddToCollection(r.Context(), user.account, id, ids)
	if s.collectionFailed(w, r, user, err) {
		return
	}
	appRedirect(w, r, fileURL(c, "?done=collection-added#collection"))
}

// removeFromCollection serves POST /files/{id}/collection/remove with the
// file in "file".
func (s *Server) removeFromCollection(w http.ResponseWriter, r *http.Request, user *signedIn) {
	c, err := s.svc.RemoveFromCollection(r.Context(), user.account, fileframe.FileID(r.PathValue("id")), fileframe.FileID(r.PostFormValue("file")))
	if s.collectionFailed(w, r, user, err) {
		return
	}
	appRedirect(w, r, fileURL(c, "?done=collection-removed#collection"))
}

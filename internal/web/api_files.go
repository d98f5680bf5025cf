package web

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// apiFile is a file in the API's answers: the fields of an upload's
// answer, and what the file is and what its page is.
type apiFile struct {
	uploadedFile
	// Kind is "file", or "collection" for a collection of files
	// (api_collections.go).
	Kind fileframe.FileKind `json:"kind"`
	// Type is the Content-Type the file is served with.
	Type      string `json:"type"`
	Downloads int64  `json:"downloads"`
	// Shared is false for a file received through a file request until
	// its owner shares it (its link answers 404 until then).
	Shared     bool        `json:"shared"`
	CreatedAt  time.Time   `json:"createdAt"`
	CustomPage pageSummary `json:"customPage"`
}

// pageSummary is the state of a file's custom page.
type pageSummary struct {
	// State is none (no page), draft (stored, not live) or published.
	State          string `json:"state"`
	LiveRevision   *int   `json:"liveRevision"`
	LatestRevision *int   `json:"latestRevision"`
}

func summary(latest, live int) pageSummary {
	p := pageSummary{State: "none"}
	if latest > 0 {
		p.State, p.LatestRevision = "draft", &latest
	}
	if live > 0 {
		p.State, p.LiveRevision = "published", &live
	}
	return p
}

func (s *Server) apiFileOf(f fileframe.File, latest, live int) apiFile {
	return apiFile{uploadedFile: s.uploaded(f), Kind: f.Kind, Type: f.ContentType, Downloads: f.Downloads,
		CreatedAt: f.CreatedAt.UTC(), CustomPage: summary(latest, live), Shared: f.Shared}
}

// fileList is the answer of GET /api/files.
type fileList struct {
	OK    bool      `json:"ok"`
	Files []apiFile `json:"files"`
	// NextCursor continues the list (?cursor=); null on its last page.
	NextCursor *string `json:"nextCursor"`
}

const (
	defaultListLimit = 50
	maxListLimit     = 100
)

// listLimit reads ?limit=: 1 to maxListLimit, defaultListLimit when absent.
func listLimit(r *http.Request) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return defaultListLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxListLimit {
		return 0, fileframe.Errorf(fileframe.CodeInvalidField,
			"limit must be a whole number from 1 to %d, got %q.", maxListLimit, truncate(v, 20))
	}
	return n, nil
}

// apiListFiles is GET /api/files: the account's files, newest first, a
// page at a time. A page-bound key lists only its own file.
func (s *Server) apiListFiles(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	limit, err := listLimit(r)
	if err != nil {
		return 0, nil, err
	}
	list, err := s.listFilesOp(r.Context(), c.caller, r.URL.Query().Get("cursor"), limit)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, list, nil
}

// listFilesOp lists a page of the caller's files after cursor ("" for
// the first page).
func (s *Server) listFilesOp(ctx context.Context, c apiCaller, cursor string, limit int) (fileList, error) {
	after, err := parseFileCursor(cursor)
	if err != nil {
		return fileList{}, err
	}
	out := fileList{OK: true, Files: []apiFile{}}
	if c.key.Kind == fileframe.KeyPage {
		if after != nil {
			return out, nil // its one file was on the first page
		}
		f, err := s.reachFile(ctx, c, c.key.FileID)
		if err != nil {
			return fileList{}, err
		}
		file, err := s.fileOp(ctx, c, f)
		if err != nil {
			return fileList{}, err
		}
		out.Files = append(out.Files, file)
		return out, nil
	}
	page, err := s.svc.ListFiles(ctx, c.account, after, limit+1)
	if err != nil {
		return fileList{}, err
	}
	for i, l := range page {
		if i == limit {
			next := fileCursor(page[i-1].File)
			out.NextCursor = &next
			break
		}
		out.Files = append(out.Files, s.apiFileOf(l.File, l.LatestRevision, l.LiveRevision))
	}
	return out, nil
}

// fileCursor is the cursor of the page after f: its creation time and ID,
// base64url, opaque to clients.
func fileCursor(f fileframe.File) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(f.CreatedAt.UnixMicro(), 10) + "." + string(f.ID)))
}

// parseFileCursor reads a cursor of fileCursor; "" is the first page.
func parseFileCursor(cursor string) (*fileframe.FileCursor, error) {
	if cursor == "" {
		return nil, nil
	}
	bad := fileframe.Errorf(fileframe.CodeInvalidField,
		"cursor is not one this API gave out. Pass nextCursor of the previous page exactly as it was, or leave cursor out for the first page.")
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(cursor) > 200 {
		return nil, bad
	}
	at, id, ok := strings.Cut(string(raw), ".")
	micros, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || micros < 0 || !fileframe.LooksLikeFileID(id) {
		return nil, bad
	}
	return &fileframe.FileCursor{CreatedAt: time.UnixMicro(micros).UTC(), ID: fileframe.FileID(id)}, nil
}

// fileAnswer is a file as the answer of GET, PATCH /api/files/{id}.
type fileAnswer struct {
	OK bool `json:"ok"`
	apiFile
}

// apiGetFile is GET /api/files/{id}.
func (s *Server) apiGetFile(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	file, err := s.fileOp(r.Context(), c.caller, f)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, fileAnswer{OK: true, apiFile: file}, nil
}

// fileOp describes f, one of the caller's files, with its page's state.
func (s *Server) fileOp(ctx context.Context, c apiCaller, f fileframe.File) (apiFile, error) {
	page, err := s.svc.Page(ctx, c.account, f)
	if err != nil && !fileframe.IsNotFound(err) {
		return apiFile{}, fmt.Errorf("reading the page of file %s: %w", f.ID, err)
	}
	return s.apiFileOf(f, page.LatestRevision, page.LiveRevision), nil
}

// apiRenameFile is PATCH /api/files/{id} with {"name": "…"} and/or
// {"link": {…}} (a merge patch of the link's controls, parseLinkJSON).
// The name is changed first, then the link; each is its service's use
// case.
func (s *Server) apiRenameFile(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	o, err := parseJSONObject(c.body, false)
	if err != nil {
		return 0, nil, err
	}
	name, err := o.string("name")
	if err != nil {
		return 0, nil, err
	}
	rawLink, hasLink := o.fields["link"]
	var link service.LinkChange
	if hasLink {
		link = parseLinkJSON(o, rawLink)
	}
	o.only("name", "link")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	ctx := r.Context()
	_, hasName := o.fields["name"]
	if hasName || !hasLink {
		// The name's rules first, so that a refused name leaves the link
		// as it was, and a refused link (SetLink checks before it writes)
		// the name.
		if err := checkNewName(name); err != nil {
			return 0, nil, err
		}
	}
	var file apiFile
	if hasLink {
		if file, err = s.setLinkOp(ctx, c.caller, f, link); err != nil {
			return 0, nil, err
		}
	}
	if hasName || !hasLink {
		if file, err = s.renameFileOp(ctx, c.caller, f, name); err != nil {
			return 0, nil, err
		}
	}
	return http.StatusOK, fileAnswer{OK: true, apiFile: file}, nil
}

// checkNewName returns invalid_field unless name can be a file's new name.
func checkNewName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fileframe.Errorf(fileframe.CodeInvalidField,
			"name is required: the new name visitors download the file as, e.g. {\"name\": \"Quarterly report.pdf\"}; or change the link with {\"link\": {\"expiresIn\": \"7d\"}}.")
	}
	if err := fileframe.CheckFileName(strings.TrimSpace(name)); err != nil {
		return fileframe.Errorf(fileframe.CodeInvalidField, "%s", fileframe.ErrorMessage(err))
	}
	return nil
}

// renameFileOp renames f, one of the caller's files: the name visitors
// download it as. Its link stays.
func (s *Server) renameFileOp(ctx context.Context, c apiCaller, f fileframe.File, name string) (apiFile, error) {
	if err := checkNewName(name); err != nil {
		return apiFile{}, err
	}
	if err := s.svc.RenameFile(ctx, c.account, f.ID, name); fileframe.IsNotFound(err) {
		return apiFile{}, fileNotFound(f.ID)
	} else if err != nil {
		return apiFile{}, err
	}
	s.logCtx(ctx).Info("api: file renamed", "key_id", c.key.ID, "file_id", f.ID)
	f, err := s.reachFile(ctx, c, f.ID)
	if err != nil {
		return apiFile{}, err
	}
	return s.fileOp(ctx, c, f)
}

// deletedFile is the answer of DELETE /api/files/{id}.
type deletedFile struct {
	OK      bool             `json:"ok"`
	ID      fileframe.FileID `json:"id"`
	Deleted bool             `json:"deleted"`
}

// apiDeleteFile is DELETE /api/files/{id}.
func (s *Server) apiDeleteFile(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	out, err := s.deleteFileOp(r.Context(), c.caller, f)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// deleteFileOp deletes f, one of the caller's files, with its page and
// page-bound keys: its link answers 404 at once.
func (s *Server) deleteFileOp(ctx context.Context, c apiCaller, f fileframe.File) (deletedFile, error) {
	_, blobErr, err := s.svc.DeleteFile(ctx, c.account, f.ID)
	if fileframe.IsNotFound(err) {
		return deletedFile{}, fileNotFound(f.ID)
	} else if err != nil {
		return deletedFile{}, err
	}
	if blobErr != nil {
		s.logCtx(ctx).Warn("api: file deleted; its blob is left to the collector", "file_id", f.ID, "err", blobErr)
	}
	s.logCtx(ctx).Info("api: file deleted", "key_id", c.key.ID, "file_id", f.ID)
	return deletedFile{OK: true, ID: f.ID, Deleted: true}, nil
}

package web

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
	"github.com/fileframe/fileframe/internal/service"
)

// pageState is the answer of the REST API's page endpoints: the state of
// a file's custom page.
type pageState struct {
	OK        bool             `json:"ok"`
	FileID    fileframe.FileID `json:"fileId"`
	Slug      string           `json:"slug"`
	URL       string           `json:"url"`
	PublicURL string           `json:"publicUrl"`
	pageSummary
	UpdatedAt *time.Time `json:"updatedAt"`
	// PreviewURL shows the latest revision as visitors would see it, when
	// it is not the live one.
	PreviewURL string `json:"previewUrl,omitempty"`
}

func (s *Server) pageStateOf(f fileframe.File, p fileframe.Page) pageState {
	st := pageState{OK: true, FileID: f.ID, Slug: f.Slug, URL: f.URL(), PublicURL: s.publicURL(f.URL()),
		pageSummary: summary(p.LatestRevision, p.LiveRevision), UpdatedAt: timeOrNil(p.UpdatedAt)}
	if p.LatestRevision > 0 && p.LatestRevision != p.LiveRevision {
		st.PreviewURL = s.publicPreviewURL(f, p.LatestRevision)
	}
	return st
}

// apiGetPage is GET /api/files/{id}/page.
func (s *Server) apiGetPage(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	st, err := s.pageOp(r.Context(), c.caller, f)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, st, nil
}

// pageOp reads the state of f's page; a file without one is state none.
func (s *Server) pageOp(ctx context.Context, c apiCaller, f fileframe.File) (pageState, error) {
	p, err := s.svc.Page(ctx, c.account, f)
	if err != nil && !fileframe.IsNotFound(err) {
		return pageState{}, fmt.Errorf("reading the page of file %s: %w", f.ID, err)
	}
	return s.pageStateOf(f, p), nil
}

// apiRevision is a revision in the API's answers.
type apiRevision struct {
	Revision    int        `json:"revision"`
	SHA256      string     `json:"sha256"`
	Size        int        `json:"size"`
	CreatedAt   time.Time  `json:"createdAt"`
	PublishedAt *time.Time `json:"publishedAt"`
	Live        bool       `json:"live"`
}

// revisionList is the answer of GET /api/files/{id}/page/revisions.
type revisionList struct {
	OK         bool             `json:"ok"`
	FileID     fileframe.FileID `json:"fileId"`
	Revisions  []apiRevision    `json:"revisions"`
	NextCursor *string          `json:"nextCursor"`
}

// apiListRevisions is GET /api/files/{id}/page/revisions: the kept
// revisions, newest first, a page at a time (?limit=, ?cursor=).
func (s *Server) apiListRevisions(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	limit, err := listLimit(r)
	if err != nil {
		return 0, nil, err
	}
	before, err := parseRevisionCursor(r.URL.Query().Get("cursor"))
	if err != nil {
		return 0, nil, err
	}
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	list, err := s.revisionsOp(r.Context(), c.caller, f, before, limit)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, list, nil
}

// parseRevisionCursor reads a nextCursor of revisionsOp: the revision the
// next page starts below; "" (the first page) is 0.
func parseRevisionCursor(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	before, err := strconv.Atoi(v)
	if err != nil || before < 2 {
		return 0, fileframe.Errorf(fileframe.CodeInvalidField,
			"cursor is not one this API gave out. Pass nextCursor of the previous page exactly as it was, or leave cursor out for the first page.")
	}
	return before, nil
}

// revisionsOp lists up to limit kept revisions of f's page numbered below
// before (0: from the latest). A file without a page has none.
func (s *Server) revisionsOp(ctx context.Context, c apiCaller, f fileframe.File, before, limit int) (revisionList, error) {
	out := revisionList{OK: true, FileID: f.ID, Revisions: []apiRevision{}}
	page, err := s.svc.Page(ctx, c.account, f)
	if fileframe.IsNotFound(err) {
		return out, nil
	} else if err != nil {
		return revisionList{}, fmt.Errorf("reading the page of file %s: %w", f.ID, err)
	}
	revs, err := s.svc.Revisions(ctx, c.account, f)
	if fileframe.IsNotFound(err) {
		return out, nil
	} else if err != nil {
		return revisionList{}, fmt.Errorf("listing the revisions of file %s: %w", f.ID, err)
	}
	for _, rev := range revs {
		if before > 0 && rev.Number >= before {
			continue
		}
		if len(out.Revisions) == limit {
			next := strconv.Itoa(out.Revisions[limit-1].Revision)
			out.NextCursor = &next
			break
		}
		out.Revisions = append(out.Revisions, apiRevisionOf(rev, page))
	}
	return out, nil
}

func apiRevisionOf(rev fileframe.Revision, p fileframe.Page) apiRevision {
	return apiRevision{Revision: rev.Number, SHA256: rev.SHA256, Size: rev.Size, CreatedAt: rev.CreatedAt.UTC(),
		PublishedAt: timeOrNil(rev.PublishedAt), Live: rev.Number == p.LiveRevision}
}

// revisionHTML is the answer of GET /api/files/{id}/page/revisions/{rev}.
type revisionHTML struct {
	OK     bool             `json:"ok"`
	FileID fileframe.FileID `json:"fileId"`
	apiRevision
	HTML string `json:"html"`
	// Assets are the remote images, fonts and media the HTML names and
	// what Fileframe keeps of them; the page is served with the kept
	// copies' addresses in their place.
	Assets []apiAsset `json:"assets"`
}

// pathRevision reads the {rev} of the path: a whole number ≥ 1.
func pathRevision(r *http.Request) (int, error) {
	v := r.PathValue("rev")
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || strconv.Itoa(n) != v {
		return 0, fileframe.Errorf(fileframe.CodeRevisionNotFound,
			"There is no revision %q: revisions are numbered 1, 2, 3, … (GET the page's revisions to see which are kept).", truncate(v, 20))
	}
	return n, nil
}

// apiGetRevision is GET /api/files/{id}/page/revisions/{rev}: one
// revision with its HTML.
func (s *Server) apiGetRevision(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	n, err := pathRevision(r)
	if err != nil {
		return 0, nil, err
	}
	rev, err := s.revisionOp(r.Context(), c.caller, f, n)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, rev, nil
}

// revisionOp reads revision n of f's page with its HTML.
func (s *Server) revisionOp(ctx context.Context, c apiCaller, f fileframe.File, n int) (revisionHTML, error) {
	rev, err := s.svc.Revision(ctx, c.account, f, n)
	if fileframe.IsNotFound(err) {
		return revisionHTML{}, revisionNotFound(f, n)
	} else if err != nil {
		return revisionHTML{}, fmt.Errorf("reading revision %d of file %s: %w", n, f.ID, err)
	}
	page, err := s.svc.Page(ctx, c.account, f)
	if err != nil && !fileframe.IsNotFound(err) {
		return revisionHTML{}, fmt.Errorf("reading the page of file %s: %w", f.ID, err)
	}
	assets, err := s.svc.PageAssets(ctx, c.account, f, n)
	if err != nil && !fileframe.IsNotFound(err) {
		return revisionHTML{}, fmt.Errorf("reading the resources of revision %d of file %s: %w", n, f.ID, err)
	}
	return revisionHTML{OK: true, FileID: f.ID, apiRevision: apiRevisionOf(rev, page), HTML: string(rev.HTML), Assets: s.apiAssetsOf(assets)}, nil
}

func revisionNotFound(f fileframe.File, n int) error {
	return fileframe.Errorf(fileframe.CodeRevisionNotFound,
		"File %s's page has no revision %d: it was never saved, or it was pruned (the last 50 revisions and every one ever published are kept). GET /api/files/%s/page/revisions lists the kept ones.",
		f.ID, n, f.ID)
}

// apiSaveRevision is POST /api/files/{id}/page/revisions with {"html",
// "publish"}: a new revision, live at once with publish, else a draft that
// leaves the live revision as it is. HTML equal to the latest revision's
// adds none (200, created false; 201 when one was added).
func (s *Server) apiSaveRevision(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	o, err := parseJSONObject(c.body, false)
	if err != nil {
		return 0, nil, err
	}
	html, err := o.string("html")
	if err != nil {
		return 0, nil, err
	}
	publish := o.bool("publish")
	o.only("html", "publish")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	if html == "" {
		return 0, nil, fileframe.Errorf(fileframe.CodeHTMLRequired,
			"The body has no html, or html is empty. Put the whole page, one complete HTML document as a JSON string, in the html field.")
	}
	return s.savedAnswer(w, f, func() (savedPage, error) {
		return s.savePageOp(r.Context(), c.caller, f, []byte(html), publish, true)
	})
}

// savedAnswer runs a save and answers it: 201 with Location when it added
// a revision, 200 when the HTML was the latest revision's.
func (s *Server) savedAnswer(w http.ResponseWriter, f fileframe.File, save func() (savedPage, error)) (int, any, error) {
	saved, err := save()
	if err != nil {
		if fileframe.ErrorCode(err) == fileframe.CodeBusy {
			w.Header().Set("Retry-After", "5")
		}
		return 0, nil, err
	}
	if !saved.Created {
		return http.StatusOK, saved, nil
	}
	w.Header().Set("Location", fmt.Sprintf("/api/files/%s/page/revisions/%d", f.ID, saved.Revision))
	return http.StatusCreated, saved, nil
}

// apiRestoreRevision is POST /api/files/{id}/page/revisions/{rev}/restore
// with {"publish"}: revision rev's HTML becomes the newest revision (as if
// it were posted again), live with publish, else a draft beside the live
// revision.
func (s *Server) apiRestoreRevision(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	o, err := parseJSONObject(c.body, true)
	if err != nil {
		return 0, nil, err
	}
	publish := o.bool("publish")
	o.only("publish")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	n, err := pathRevision(r)
	if err != nil {
		return 0, nil, err
	}
	return s.savedAnswer(w, f, func() (savedPage, error) { return s.restoreOp(r.Context(), c.caller, f, n, publish) })
}

// restoreOp stores revision n of f's page again as its newest revision.
func (s *Server) restoreOp(ctx context.Context, c apiCaller, f fileframe.File, n int, publish bool) (savedPage, error) {
	rev, err := s.svc.Revision(ctx, c.account, f, n)
	if fileframe.IsNotFound(err) {
		return savedPage{}, revisionNotFound(f, n)
	} else if err != nil {
		return savedPage{}, fmt.Errorf("reading revision %d of file %s: %w", n, f.ID, err)
	}
	return s.savePageOp(ctx, c, f, rev.HTML, publish, true)
}

// apiPublish is POST /api/files/{id}/page/publish with an optional
// {"revision": N}: revision N, or the latest, becomes live, without a
// new revision.
func (s *Server) apiPublish(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	o, err := parseJSONObject(c.body, true)
	if err != nil {
		return 0, nil, err
	}
	rev := o.positive("revision")
	o.only("revision")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	st, err := s.publishOp(r.Context(), c.caller, f, rev)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, st, nil
}

// publishOp makes revision rev of f's page live (0: the latest); -1
// unpublishes it.
func (s *Server) publishOp(ctx context.Context, c apiCaller, f fileframe.File, rev int) (pageState, error) {
	if rev == 0 {
		p, err := s.svc.Page(ctx, c.account, f)
		if fileframe.IsNotFound(err) {
			return pageState{}, fileframe.Errorf(fileframe.CodeRevisionNotFound,
				"File %s has no custom page yet, so there is nothing to publish. Store one first: POST /api/files/%s/page/revisions with {\"html\": …, \"publish\": true}.", f.ID, f.ID)
		} else if err != nil {
			return pageState{}, fmt.Errorf("reading the page of file %s: %w", f.ID, err)
		}
		rev = p.LatestRevision
	}
	live := max(rev, 0)
	p, err := s.svc.PublishRevision(ctx, c.account, f, live)
	if rej, ok := service.IsPageRejected(err); ok {
		return pageState{}, pageRejection(rej)
	} else if fileframe.IsNotFound(err) {
		if live == 0 { // no page: nothing to take offline
			return s.pageStateOf(f, fileframe.Page{}), nil
		}
		return pageState{}, revisionNotFound(f, live)
	} else if err != nil {
		return pageState{}, err
	}
	s.logCtx(ctx).Info("api: live revision set", "key_id", c.key.ID, "file_id", f.ID, "revision", live)
	return s.pageStateOf(f, p), nil
}

// apiUnpublish is POST /api/files/{id}/page/unpublish: the page goes
// offline (visitors see the template or default page); its revisions
// stay.
func (s *Server) apiUnpublish(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	o, err := parseJSONObject(c.body, true)
	if err != nil {
		return 0, nil, err
	}
	o.only()
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	f, err := s.pathFile(r, c.caller)
	if err != nil {
		return 0, nil, err
	}
	st, err := s.publishOp(r.Context(), c.caller, f, -1)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, st, nil
}

// checkAnswer is the answer of POST /api/html/check.
type checkAnswer struct {
	OK bool `json:"ok"`
	// Valid: a POST of this HTML would be stored.
	Valid bool `json:"valid"`
	// Code is the error code a POST would get (html_invalid,
	// html_too_large), null when valid.
	Code     *string             `json:"code"`
	Size     int                 `json:"size"`
	Errors   []htmlcheck.Finding `json:"errors"`
	Warnings []htmlcheck.Finding `json:"warnings"`
}

// apiCheckHTML is POST /api/html/check with {"html"}: the findings a POST
// of the page would get, without storing anything.
func (s *Server) apiCheckHTML(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	o, err := parseJSONObject(c.body, false)
	if err != nil {
		return 0, nil, err
	}
	html, err := o.string("html")
	if err != nil {
		return 0, nil, err
	}
	o.only("html")
	if err := o.err(); err != nil {
		return 0, nil, err
	}
	if html == "" {
		return 0, nil, fileframe.Errorf(fileframe.CodeHTMLRequired,
			"The body has no html, or html is empty. Put the whole page, one complete HTML document as a JSON string, in the html field.")
	}
	out, err := s.checkOp(r.Context(), c.caller, []byte(html))
	if err != nil {
		if fileframe.ErrorCode(err) == fileframe.CodeBusy {
			w.Header().Set("Retry-After", "5")
		}
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// checkOp runs the page rules on doc and fetches its remote resources, as
// a POST of it would, storing nothing.
func (s *Server) checkOp(ctx context.Context, c apiCaller, doc []byte) (checkAnswer, error) {
	res, err := s.svc.CheckPageResources(ctx, c.account, doc)
	out := checkAnswer{OK: true, Valid: err == nil, Size: len(doc), Errors: nonNil(res.Errors), Warnings: nonNil(res.Warnings)}
	if rej, ok := service.IsPageRejected(err); ok {
		code := rej.Err.Code
		out.Code = &code
	} else if err != nil {
		return checkAnswer{}, err
	}
	return out, nil
}

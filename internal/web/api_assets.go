package web

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/htmlcheck"
	"github.com/fileframe/fileframe/internal/service"
)

// apiAsset is a remote resource of a revision in the API's answers: the
// URL the page names, and the copy Fileframe keeps and serves instead
// (zero egress, service/page_assets.go).
type apiAsset struct {
	URL  string `json:"url"`
	Kind string `json:"kind"`
	Kept bool   `json:"kept"`
	// ServedAt is the kept copy's address on the content origin, which
	// the served page uses instead of URL; null when not kept.
	ServedAt *string `json:"servedAt"`
	Type     *string `json:"type"`
	Size     int64   `json:"size"`
	// Problem says why it is not kept; null when kept.
	Problem   *string   `json:"problem"`
	FetchedAt time.Time `json:"fetchedAt"`
}

// apiAssetsOf returns assets as the API shows them.
func (s *Server) apiAssetsOf(assets []fileframe.PageAsset) []apiAsset {
	out := make([]apiAsset, 0, len(assets))
	for _, a := range assets {
		v := apiAsset{URL: a.URL, Kind: a.Kind, Kept: a.Kept(), Size: a.Size, FetchedAt: a.FetchedAt.UTC()}
		if a.Kept() {
			at, typ := s.ContentOrigin()+service.AssetPath(a), a.Type
			v.ServedAt, v.Type = &at, &typ
		} else {
			p := a.Problem
			v.Problem = &p
		}
		out = append(out, v)
	}
	return out
}

// refetchAnswer is the answer of POST
// /api/files/{id}/page/revisions/{rev}/refetch.
type refetchAnswer struct {
	OK       bool                `json:"ok"`
	FileID   fileframe.FileID    `json:"fileId"`
	Revision int                 `json:"revision"`
	Assets   []apiAsset          `json:"assets"`
	Errors   []htmlcheck.Finding `json:"errors"`
	Warnings []htmlcheck.Finding `json:"warnings"`
}

// apiRefetch is POST /api/files/{id}/page/revisions/{rev}/refetch: the
// revision's remote resources that could not be kept are fetched again.
func (s *Server) apiRefetch(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
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
	n, err := pathRevision(r)
	if err != nil {
		return 0, nil, err
	}
	out, err := s.refetchOp(r.Context(), c.caller, f, n)
	if err != nil {
		if fileframe.ErrorCode(err) == fileframe.CodeBusy {
			w.Header().Set("Retry-After", "5")
		}
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// refetchOp fetches again what revision n of f's page could not keep.
func (s *Server) refetchOp(ctx context.Context, c apiCaller, f fileframe.File, n int) (refetchAnswer, error) {
	assets, res, err := s.svc.RefetchAssets(ctx, c.account, f, n)
	if fileframe.IsNotFound(err) {
		return refetchAnswer{}, revisionNotFound(f, n)
	} else if err != nil {
		return refetchAnswer{}, fmt.Errorf("fetching the resources of revision %d of file %s again: %w", n, f.ID, err)
	}
	return refetchAnswer{OK: true, FileID: f.ID, Revision: n, Assets: s.apiAssetsOf(assets),
		Errors: nonNil(res.Errors), Warnings: nonNil(res.Warnings)}, nil
}

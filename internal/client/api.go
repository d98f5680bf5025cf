package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// File is a file of the account (GET /api/files/{id}).
type File struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Size int64  `json:"size"`
	// Type is the content type the file is served with.
	Type string `json:"type"`
	Slug string `json:"slug"`
	// URL is the public link's path (/f/<slug>); PublicURL the whole
	// link; Page the file's page in the web application.
	URL        string      `json:"url"`
	PublicURL  string      `json:"publicUrl"`
	Page       string      `json:"page"`
	CreatedAt  time.Time   `json:"createdAt"`
	CustomPage PageSummary `json:"customPage"`
	// Link is the link's controls and state.
	Link Link `json:"link"`
}

// PageSummary is the state of a file's custom page, in a File.
type PageSummary struct {
	// State is "none", "draft" or "published".
	State          string `json:"state"`
	LiveRevision   *int   `json:"liveRevision"`
	LatestRevision *int   `json:"latestRevision"`
}

// FileList is one page of the account's files, newest first; NextCursor
// is "" after the last.
type FileList struct {
	Files      []File `json:"files"`
	NextCursor string `json:"nextCursor"`
}

// ListOptions pages through a list: at most Limit items (0: the server's
// default) after Cursor (the previous page's NextCursor; "" for the
// first).
type ListOptions struct {
	Limit  int
	Cursor string
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	return q
}

// Files lists the account's files (GET /api/files); a page-bound key sees
// its one file.
func (c *Client) Files(ctx context.Context, o ListOptions) (FileList, error) {
	var out FileList
	err := c.call(ctx, http.MethodGet, "/api/files", o.query(), nil, &out)
	return out, err
}

// File reads one file (GET /api/files/{id}).
func (c *Client) File(ctx context.Context, id string) (File, error) {
	var out File
	err := c.call(ctx, http.MethodGet, "/api/files/"+pathID(id), nil, nil, &out)
	return out, err
}

// RenameFile renames a file (PATCH /api/files/{id}) and returns it.
func (c *Client) RenameFile(ctx context.Context, id, name string) (File, error) {
	var out File
	err := c.call(ctx, http.MethodPatch, "/api/files/"+pathID(id), nil, map[string]string{"name": name}, &out)
	return out, err
}

// Deleted is the answer to DeleteFile.
type Deleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// DeleteFile deletes a file, its page and its page's keys (DELETE
// /api/files/{id}).
func (c *Client) DeleteFile(ctx context.Context, id string) (Deleted, error) {
	var out Deleted
	err := c.call(ctx, http.MethodDelete, "/api/files/"+pathID(id), nil, nil, &out)
	return out, err
}

// Check is the answer of CheckHTML: whether the page would be accepted,
// and the findings it would get.
type Check struct {
	Valid bool `json:"valid"`
	// Code is "" for a valid page, else "html_invalid" or
	// "html_too_large", the code a POST of it would get.
	Code     string    `json:"code"`
	Size     int       `json:"size"`
	Errors   []Finding `json:"errors"`
	Warnings []Finding `json:"warnings"`
}

// CheckHTML checks a page against the HTML rules without storing it (POST
// /api/html/check).
func (c *Client) CheckHTML(ctx context.Context, html string) (Check, error) {
	var out struct {
		Check
		Code *string `json:"code"`
	}
	err := c.call(ctx, http.MethodPost, "/api/html/check", nil, map[string]string{"html": html}, &out)
	if out.Code != nil {
		out.Check.Code = *out.Code
	}
	return out.Check, err
}

// Saved is the answer of SaveRevision and Restore: the page's link and the
// revision stored (or, with Created false, the latest one, which had the
// same HTML).
type Saved struct {
	Slug       string    `json:"slug"`
	URL        string    `json:"url"`
	PublicURL  string    `json:"publicUrl"`
	Published  bool      `json:"published"`
	Revision   int       `json:"revision"`
	Created    bool      `json:"created"`
	PreviewURL string    `json:"previewUrl,omitempty"`
	Warnings   []Finding `json:"warnings"`
}

// SaveRevision stores html as the newest revision of the file's page (POST
// /api/files/{id}/page/revisions); publish makes it live, otherwise what is
// live stays as it is.
func (c *Client) SaveRevision(ctx context.Context, fileID, html string, publish bool) (Saved, error) {
	var out Saved
	err := c.call(ctx, http.MethodPost, "/api/files/"+pathID(fileID)+"/page/revisions", nil,
		map[string]any{"html": html, "publish": publish}, &out)
	return out, err
}

// Page is the state of a file's custom page (GET /api/files/{id}/page).
type Page struct {
	FileID    string `json:"fileId"`
	Slug      string `json:"slug"`
	URL       string `json:"url"`
	PublicURL string `json:"publicUrl"`
	// State is "none", "draft" or "published".
	State          string     `json:"state"`
	LiveRevision   *int       `json:"liveRevision"`
	LatestRevision *int       `json:"latestRevision"`
	UpdatedAt      *time.Time `json:"updatedAt"`
	// PreviewURL shows the latest revision when it is not the live one.
	PreviewURL string `json:"previewUrl,omitempty"`
}

// Page reads the state of a file's page.
func (c *Client) Page(ctx context.Context, fileID string) (Page, error) {
	var out Page
	err := c.call(ctx, http.MethodGet, "/api/files/"+pathID(fileID)+"/page", nil, nil, &out)
	return out, err
}

// Revision is one stored revision of a page; HTML only from Revision.
type Revision struct {
	Revision    int        `json:"revision"`
	SHA256      string     `json:"sha256"`
	Size        int64      `json:"size"`
	CreatedAt   time.Time  `json:"createdAt"`
	PublishedAt *time.Time `json:"publishedAt"`
	Live        bool       `json:"live"`
	HTML        string     `json:"html,omitempty"`
	// Assets are the remote images, fonts and media the HTML names, and
	// what the server keeps of them; only from Revision.
	Assets []Asset `json:"assets,omitempty"`
}

// Asset is a remote image, font or media of a revision: the URL the page
// names and the copy the server fetched and serves in its place.
type Asset struct {
	URL       string    `json:"url"`
	Kind      string    `json:"kind"`
	Kept      bool      `json:"kept"`
	ServedAt  *string   `json:"servedAt"`
	Type      *string   `json:"type"`
	Size      int64     `json:"size"`
	Problem   *string   `json:"problem"`
	FetchedAt time.Time `json:"fetchedAt"`
}

// Refetched is the answer of Refetch: every asset of the revision after
// the new fetches, and the findings of those still missing.
type Refetched struct {
	Revision int       `json:"revision"`
	Assets   []Asset   `json:"assets"`
	Errors   []Finding `json:"errors"`
	Warnings []Finding `json:"warnings"`
}

// Refetch fetches again the remote images, fonts and media of revision rev
// that could not be fetched when it was stored (POST
// /api/files/{id}/page/revisions/{rev}/refetch).
func (c *Client) Refetch(ctx context.Context, fileID string, rev int) (Refetched, error) {
	var out Refetched
	err := c.call(ctx, http.MethodPost, "/api/files/"+pathID(fileID)+"/page/revisions/"+strconv.Itoa(rev)+"/refetch", nil,
		map[string]any{}, &out)
	return out, err
}

// RevisionList is one page of a page's revisions, newest first.
type RevisionList struct {
	Revisions  []Revision `json:"revisions"`
	NextCursor string     `json:"nextCursor"`
}

// Revisions lists the kept revisions of a file's page.
func (c *Client) Revisions(ctx context.Context, fileID string, o ListOptions) (RevisionList, error) {
	var out RevisionList
	err := c.call(ctx, http.MethodGet, "/api/files/"+pathID(fileID)+"/page/revisions", o.query(), nil, &out)
	return out, err
}

// Revision reads one revision, with its HTML.
func (c *Client) Revision(ctx context.Context, fileID string, rev int) (Revision, error) {
	var out Revision
	err := c.call(ctx, http.MethodGet, "/api/files/"+pathID(fileID)+"/page/revisions/"+strconv.Itoa(rev), nil, nil, &out)
	return out, err
}

// Publish makes a revision live (rev 0: the latest) and returns the
// page's state.
func (c *Client) Publish(ctx context.Context, fileID string, rev int) (Page, error) {
	body := map[string]any{}
	if rev > 0 {
		body["revision"] = rev
	}
	var out Page
	err := c.call(ctx, http.MethodPost, "/api/files/"+pathID(fileID)+"/page/publish", nil, body, &out)
	return out, err
}

// Unpublish takes the page offline (its revisions are kept) and returns
// its state.
func (c *Client) Unpublish(ctx context.Context, fileID string) (Page, error) {
	var out Page
	err := c.call(ctx, http.MethodPost, "/api/files/"+pathID(fileID)+"/page/unpublish", nil, map[string]any{}, &out)
	return out, err
}

// Restore makes revision rev's HTML the newest revision again; publish
// makes it live.
func (c *Client) Restore(ctx context.Context, fileID string, rev int, publish bool) (Saved, error) {
	var out Saved
	err := c.call(ctx, http.MethodPost, "/api/files/"+pathID(fileID)+"/page/revisions/"+strconv.Itoa(rev)+"/restore", nil,
		map[string]any{"publish": publish}, &out)
	return out, err
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/textproto"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// client is one person's browser as far as seeding goes: a cookie jar
// against the app origin, through which it fills in the app's forms as a
// browser would (the page first, for its CSRF token, then the post).
type client struct {
	app  string
	http *http.Client
	// paths are paths below the origin whose own cookies (a file
	// request's visit, Path=/r/<slug>) the browser gets too.
	paths []string
}

// newClient returns a client of the app origin app that reaches the
// host:port names of hosts at their addresses.
func newClient(app string, hosts map[string]string) *client {
	jar, _ := cookiejar.New(nil) // never fails without options
	transport := http.DefaultTransport.(*http.Transport).Clone()
	var dialer net.Dialer
	transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if a, ok := hosts[addr]; ok {
			addr = a
		}
		return dialer.DialContext(ctx, network, addr)
	}
	return &client{app: app, http: &http.Client{
		Jar:       jar,
		Transport: transport,
		// A form answers 303; the seeding wants that answer, not the page
		// it leads to.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// cookies returns the cookies the app origin has set in this browser.
func (c *client) cookies() []*http.Cookie {
	u, _ := url.Parse(c.app)
	cookies := c.http.Jar.Cookies(u)
	for _, p := range c.paths {
		if pu, err := url.Parse(c.app + p); err == nil {
			cookies = append(cookies, c.http.Jar.Cookies(pu)...)
		}
	}
	return cookies
}

// do sends req and returns the body of a 2xx or 3xx answer; any other status
// is an error that quotes the start of the body.
func (c *client) do(req *http.Request) (*http.Response, []byte, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: reading the answer: %w", req.Method, req.URL.Path, err)
	}
	if resp.StatusCode >= 400 {
		return nil, nil, fmt.Errorf("%s %s: status %d: %.300s", req.Method, req.URL.Path, resp.StatusCode, body)
	}
	return resp, body, nil
}

// get fetches a page of the app origin.
func (c *client) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.app+path, nil)
	if err != nil {
		return nil, err
	}
	_, body, err := c.do(req)
	return body, err
}

// submit opens page, takes the CSRF token of its form that posts to action
// and posts fields with it. It returns the answer's body (the page a form
// renders on success, e.g. a new key shown once).
func (c *client) submit(ctx context.Context, page, action string, fields url.Values) ([]byte, error) {
	token, err := c.csrf(ctx, page, action)
	if err != nil {
		return nil, err
	}
	fields.Set("csrf", token)
	return c.post(ctx, action, "application/x-www-form-urlencoded", strings.NewReader(fields.Encode()))
}

// upload is a file picked in a form's file field.
type upload struct {
	field, name, contentType string
	content                  []byte
}

// submitFiles is submit for a multipart form with files.
func (c *client) submitFiles(ctx context.Context, page, action string, fields url.Values, files ...upload) ([]byte, error) {
	token, err := c.csrf(ctx, page, action)
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	// The token first, as a browser sends the form's fields in order.
	if err := mw.WriteField("csrf", token); err != nil {
		return nil, err
	}
	for name, values := range fields {
		for _, v := range values {
			if err := mw.WriteField(name, v); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": f.field, "filename": f.name}))
		h.Set("Content-Type", f.contentType)
		w, err := mw.CreatePart(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.content); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	return c.post(ctx, action, mw.FormDataContentType(), &body)
}

// csrf opens page and returns the CSRF token of its form that posts to
// action.
func (c *client) csrf(ctx context.Context, page, action string) (string, error) {
	doc, err := c.get(ctx, page)
	if err != nil {
		return "", err
	}
	token, err := formCSRF(doc, action)
	if err != nil {
		return "", fmt.Errorf("%s: %w", page, err)
	}
	return token, nil
}

// post sends a form's body to a path of the app origin and returns the
// answer's body.
func (c *client) post(ctx context.Context, path, contentType string, body io.Reader) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.app+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	_, answer, err := c.do(req)
	return answer, err
}

// formCSRF returns the csrf field of the first form of doc that posts to
// the path action.
func formCSRF(doc []byte, action string) (string, error) {
	z := html.NewTokenizer(bytes.NewReader(doc))
	inForm := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			if errors.Is(z.Err(), io.EOF) {
				return "", fmt.Errorf("no form posting to %s with a csrf field", action)
			}
			return "", z.Err()
		case html.StartTagToken, html.SelfClosingTagToken:
			t := z.Token()
			switch {
			case t.Data == "form":
				// The form may name a fragment to scroll its answer to.
				path, _, _ := strings.Cut(attr(t, "action"), "#")
				inForm = path == action
			case t.Data == "input" && inForm && attr(t, "name") == "csrf":
				return attr(t, "value"), nil
			}
		}
	}
}

// inputValue returns the value of the input with the given id in doc, or "".
func inputValue(doc []byte, id string) string {
	z := html.NewTokenizer(bytes.NewReader(doc))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			if t := z.Token(); t.Data == "input" && attr(t, "id") == id {
				return attr(t, "value")
			}
		}
	}
}

func attr(t html.Token, name string) string {
	for _, a := range t.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

// pageAnswer is what POST /api/campaign/custom-html answers (docs/api.md).
type pageAnswer struct {
	Slug       string `json:"slug"`
	Published  bool   `json:"published"`
	PublicURL  string `json:"publicUrl"`
	PreviewURL string `json:"previewUrl"`
}

// postPage attaches html to a file's custom page through the API, with an
// API key as an agent would; publish false leaves it a draft.
func (c *client) postPage(ctx context.Context, key, fileID, page string, publish bool) (pageAnswer, error) {
	body, err := json.Marshal(map[string]any{"fileId": fileID, "html": page, "publish": publish})
	if err != nil {
		return pageAnswer{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.app+"/api/campaign/custom-html", bytes.NewReader(body))
	if err != nil {
		return pageAnswer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	_, raw, err := c.do(req)
	if err != nil {
		return pageAnswer{}, err
	}
	var a pageAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return pageAnswer{}, fmt.Errorf("the API's answer is not JSON: %w", err)
	}
	return a, nil
}

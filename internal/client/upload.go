package client

// The client side of tus 1.0 (https://tus.io/protocols/resumable-upload),
// core and creation, on net/http. No maintained Go tus client is served by
// the module proxy this project builds from (github.com/bdragon300/tusgo and
// github.com/eventials/go-tus are not), and the part a client needs is
// three requests: POST to create, HEAD to learn the offset, PATCH to send
// from it.

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync/atomic"
)

// tusPath is where the server's tus endpoint is.
const tusPath = "/uploads/tus/"

// Response headers of the server's answer to an upload's last PATCH, and
// to a HEAD of a finished upload.
const (
	headerFileID   = "Fileframe-File-Id"
	headerFileURL  = "Fileframe-File-Url"
	headerFilePage = "Fileframe-File-Page"
)

// Upload is a file to upload.
type Upload struct {
	// Body holds the file's Size bytes (an *os.File).
	Body io.ReaderAt
	Size int64
	Name string
	// URL is an upload this one continues (the URL Created was given by an
	// earlier call); "" starts a new one. An upload the server no longer
	// knows, or of another size, is started anew.
	URL string
	// Created, if set, is called with a new upload's URL before any byte is
	// sent, so that the caller can keep it to resume with; an error stops
	// the upload.
	Created func(url string) error
	// Progress, if set, is called with the number of the file's bytes sent
	// so far (from the server's offset on).
	Progress func(sent int64)
	// Link sets the new file's link controls (sent when the upload is
	// created; a resumed upload keeps those it was created with).
	Link LinkChange
}

// Uploaded is a finished upload.
type Uploaded struct {
	// FileID, PublicURL and Page name the stored file (Page is its page in
	// the web application).
	FileID    string
	PublicURL string
	Page      string
	// UploadURL is the tus upload's URL.
	UploadURL string
	// ResumedFrom is the offset the server already had when this call
	// began sending (0 for a new upload); Sent the bytes this call sent.
	ResumedFrom int64
	Sent        int64
}

// tusState is what HEAD says of an upload.
type tusState struct {
	offset, length int64
	// file is set when the upload is already a file (the server
	// remembers, for a client that lost the last answer).
	file Uploaded
}

// Upload uploads u over tus, resuming u.URL when the server still has it.
// After a connection error it asks the server where it stands and sends
// the rest, at most MaxRetries times; when it gives up, the error says so
// and u.URL (as Created was told) resumes later.
func (c *Client) Upload(ctx context.Context, u Upload) (Uploaded, error) {
	if u.Size < 0 {
		return Uploaded{}, errors.New("upload: negative size")
	}
	loc := u.URL
	var offset int64
	if loc != "" {
		st, err := c.tusHead(ctx, loc)
		var e *Error
		switch {
		case errors.As(err, &e) && (e.Status == http.StatusNotFound || e.Status == http.StatusGone || e.Status == http.StatusForbidden):
			loc = "" // expired, cancelled, or another account's
		case err != nil:
			return Uploaded{}, err
		case st.length != u.Size:
			loc = ""
		case st.file.FileID != "":
			st.file.UploadURL, st.file.ResumedFrom = loc, st.offset
			return st.file, nil
		default:
			offset = st.offset
		}
	}
	if loc == "" {
		var err error
		if loc, err = c.tusCreate(ctx, u.Size, u.Name, u.Link); err != nil {
			return Uploaded{}, err
		}
		if u.Created != nil {
			if err := u.Created(loc); err != nil {
				return Uploaded{}, err
			}
		}
	}
	resumedFrom := offset
	var sent atomic.Int64
	for attempt := 0; ; attempt++ {
		done, err := c.tusPatch(ctx, loc, u, offset, resumedFrom, &sent)
		if err == nil {
			done.UploadURL, done.ResumedFrom, done.Sent = loc, resumedFrom, sent.Load()
			return done, nil
		}
		var e *Error
		// A 409 (the offsets disagree) and tusd's upload_interrupted (a
		// request of ours still held the upload's lock on the server, as
		// after a cut connection) pass once the server has let go, and a
		// 503 (the server busy, or its database or file storage out of
		// reach) once it is back: ask it where it stands and go on. Any
		// other refusal is final.
		refused := errors.As(err, &e) && e.Status != http.StatusConflict && e.Code != "upload_interrupted" &&
			e.Status != http.StatusServiceUnavailable
		if ctx.Err() != nil || refused || attempt >= c.MaxRetries || errors.Is(err, ErrFileChanged) {
			return Uploaded{}, err
		}
		// Cut off (or the offsets disagree): ask where the server is and
		// send the rest from there.
		if err := c.sleep(ctx, backoff(attempt)); err != nil {
			return Uploaded{}, err
		}
		st, herr := c.tusHead(ctx, loc)
		if herr != nil {
			return Uploaded{}, errors.Join(err, herr)
		}
		if st.file.FileID != "" {
			st.file.UploadURL, st.file.ResumedFrom, st.file.Sent = loc, resumedFrom, sent.Load()
			return st.file, nil
		}
		offset = st.offset
	}
}

// tusCreate creates an upload of size bytes named name and returns its
// absolute URL. A connection error is not retried: the server may have
// made the upload (and reserved its room) without the client learning
// where.
func (c *Client) tusCreate(ctx context.Context, size int64, name string, link LinkChange) (string, error) {
	req := request{method: http.MethodPost, url: c.url(tusPath, nil), header: http.Header{}}
	req.header.Set("Tus-Resumable", "1.0.0")
	req.header.Set("Upload-Length", strconv.FormatInt(size, 10))
	meta := "filename " + base64.StdEncoding.EncodeToString([]byte(name))
	lm := link.metadata()
	for _, k := range slices.Sorted(maps.Keys(lm)) {
		meta += "," + k + " " + base64.StdEncoding.EncodeToString([]byte(lm[k]))
	}
	req.header.Set("Upload-Metadata", meta)
	req.header.Set("Idempotency-Key", newIdempotencyKey())
	resp, err := c.send(ctx, req)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusCreated {
		return "", readError(resp)
	}
	resp.Body.Close()
	loc, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
	if err != nil || resp.Header.Get("Location") == "" {
		return "", fmt.Errorf("upload: the server created an upload without a usable Location (%q)", resp.Header.Get("Location"))
	}
	if !c.UploadURLOf(loc.String()) {
		return "", fmt.Errorf("upload: the server named an upload on %s, another origin than %s; the key and the file are not sent there", originOf(loc), originOf(c.base))
	}
	return loc.String(), nil
}

// tusHead asks the server where an upload stands.
func (c *Client) tusHead(ctx context.Context, loc string) (tusState, error) {
	req := request{method: http.MethodHead, url: loc, header: http.Header{}, retryConn: true}
	req.header.Set("Tus-Resumable", "1.0.0")
	resp, err := c.send(ctx, req)
	if err != nil {
		return tusState{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return tusState{}, readError(resp)
	}
	resp.Body.Close()
	offset, err1 := strconv.ParseInt(resp.Header.Get("Upload-Offset"), 10, 64)
	length, err2 := strconv.ParseInt(resp.Header.Get("Upload-Length"), 10, 64)
	if err1 != nil || err2 != nil || offset < 0 || offset > length {
		return tusState{}, fmt.Errorf("upload: HEAD %s answered Upload-Offset %q, Upload-Length %q", loc,
			resp.Header.Get("Upload-Offset"), resp.Header.Get("Upload-Length"))
	}
	return tusState{offset: offset, length: length, file: finished(resp)}, nil
}

// finished returns the file a response names, if any.
func finished(resp *http.Response) Uploaded {
	return Uploaded{
		FileID:    resp.Header.Get(headerFileID),
		PublicURL: resp.Header.Get(headerFileURL),
		Page:      resp.Header.Get(headerFilePage),
	}
}

// tusPatch sends the file from offset to its end in one PATCH. sent counts
// the bytes sent since resumedFrom (across PATCHes of one Upload call).
func (c *Client) tusPatch(ctx context.Context, loc string, u Upload, offset, resumedFrom int64, sent *atomic.Int64) (Uploaded, error) {
	body := &progressReader{r: &wholeReader{r: io.NewSectionReader(u.Body, offset, u.Size-offset), left: u.Size - offset, size: u.Size}, n: offset, progress: func(n int64) {
		sent.Store(n - resumedFrom)
		if u.Progress != nil {
			u.Progress(n)
		}
	}}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPatch, loc, body)
	if err != nil {
		return Uploaded{}, err
	}
	hr.ContentLength = u.Size - offset
	if hr.ContentLength == 0 {
		hr.Body = http.NoBody
	}
	hr.Header.Set("Tus-Resumable", "1.0.0")
	hr.Header.Set("Content-Type", "application/offset+octet-stream")
	hr.Header.Set("Upload-Offset", strconv.FormatInt(offset, 10))
	c.authorize(hr)
	resp, err := c.http.Do(hr)
	if err != nil {
		return Uploaded{}, err
	}
	if resp.StatusCode != http.StatusNoContent {
		return Uploaded{}, readError(resp)
	}
	resp.Body.Close()
	f := finished(resp)
	if f.FileID == "" {
		return Uploaded{}, fmt.Errorf("upload: the server took every byte of %s but named no file", loc)
	}
	return f, nil
}

// ErrFileChanged is the error of an upload whose file ended before its
// size: it changed while it was read (or it is a /sys file, whose size
// says nothing of its content). Trying again cannot help.
var ErrFileChanged = errors.New("the file changed while it was read")

// wholeReader reads the left bytes of a file of size bytes, and fails
// with ErrFileChanged where it ends before them.
type wholeReader struct {
	r          io.Reader
	left, size int64
}

func (w *wholeReader) Read(b []byte) (int, error) {
	n, err := w.r.Read(b)
	w.left -= int64(n)
	if err == io.EOF && w.left > 0 {
		return n, fmt.Errorf("%w: it ended %d bytes before its size of %d", ErrFileChanged, w.left, w.size)
	}
	return n, err
}

// progressReader reports how far a reader got, counting from n.
type progressReader struct {
	r        io.Reader
	n        int64
	progress func(int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.n += int64(n)
		p.progress(p.n)
	}
	return n, err
}

// UploadURLOf reports whether loc is an upload URL of this client's server
// (a state file's URL is only sent the key when it is).
func (c *Client) UploadURLOf(loc string) bool {
	u, err := url.Parse(loc)
	return err == nil && u.User == nil && sameOrigin(u, c.base)
}

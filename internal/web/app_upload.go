package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// uploadRoutes registers the resumable (tus) and plain upload endpoints.
func (s *Server) uploadRoutes(mux *http.ServeMux) {
	// Resumable uploads of the browser (app_upload_tus.go): session, CSRF
	// header and the cross-origin protection on every state change.
	s.tusRoutes(mux)
	// Plain uploads (api_upload.go): the API for curl and scripts, and the
	// form of the browser without JavaScript.
	mux.HandleFunc("POST /api/files", s.apiUploadFiles)
	mux.HandleFunc("/api/files", s.apiUploadMethodNotAllowed)
	mux.Handle("POST /files/upload", s.crossOrigin(http.HandlerFunc(s.uploadForm)))
}

// Quota is what one plan may store: Storage bytes in all and files of at
// most File bytes each. Zero is unlimited.
type Quota struct {
	Storage int64
	File    int64
}

// uploadPanel is the data of the "upload_panel" template
// (templates/app_upload.html), which the file list shows. Styles and
// Scripts are what the page must load for it (appPage.Styles, .Scripts).
type uploadPanel struct {
	Styles  []string
	Scripts []string
	// Form is where the panel's plain form posts (it works without
	// JavaScript); Tus is the endpoint of resumable uploads, empty when the
	// server keeps none (then the script uploads through Form too).
	Form string
	Tus  string
	// CSRFHeader is the request header that carries the session's token
	// on tus requests.
	CSRFHeader string
}

// uploadPanel returns the upload panel of the file list.
func (s *Server) uploadPanel() uploadPanel {
	p := uploadPanel{
		Styles:     []string{appAssetURL("upload.css")},
		Scripts:    []string{appAssetURL("tus.min.js"), appAssetURL("upload.js")},
		Form:       uploadFormPath,
		CSRFHeader: csrfHeader,
	}
	if s.tus != nil {
		p.Tus = tusBasePath
	}
	return p
}

// uploadFormPath is where the upload panel's plain form posts.
const uploadFormPath = "/files/upload"

// Error codes of uploads, beyond fileframe's: the problem+json codes of
// POST /api/files, and the tus error codes.
const (
	codeFileTooLarge  = "file_too_large"
	codeQuotaExceeded = "quota_exceeded"
)

// uploadStatus returns the HTTP status of an upload failure's code.
func uploadStatus(code string) int {
	switch code {
	case codeFileTooLarge, codeQuotaExceeded:
		return http.StatusRequestEntityTooLarge
	case fileframe.CodeInvalidField:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// room is how much an account may still upload: file is the largest file
// its plan takes and storage what is left of its storage, each -1 when
// unlimited.
type room struct {
	plan          fileframe.Plan
	quota         Quota
	file, storage int64
}

// uploadRoom returns what the account may still upload. The storage in use
// is the sum of its files' sizes (a file stored twice counts twice, as the
// owner sees it in the list).
func (s *Server) uploadRoom(ctx context.Context, a fileframe.Account) (room, error) {
	q := s.cfg.Quotas[a.Plan]
	rm := room{plan: a.Plan, quota: q, file: -1, storage: -1}
	if q.File > 0 {
		rm.file = q.File
	}
	if q.Storage > 0 {
		files, err := s.store.FilesByAccount(ctx, a.ID)
		if err != nil {
			return rm, fmt.Errorf("reading the account's files for its quota: %w", err)
		}
		var used int64
		for _, f := range files {
			used += f.Size
		}
		rm.storage = max(q.Storage-used, 0)
	}
	return rm, nil
}

// check returns the error of a file of size bytes that does not fit.
func (rm room) check(size int64) error {
	if rm.file >= 0 && size > rm.file {
		return fileframe.Errorf(codeFileTooLarge,
			"This file is %s; the %s plan takes files of up to %s.",
			humanize.IBytes(uint64(size)), planName(rm.plan), humanize.IBytes(uint64(rm.file)))
	}
	if rm.storage >= 0 && size > rm.storage {
		return fileframe.Errorf(codeQuotaExceeded,
			"This file needs %s, but only %s of the %s plan's %s of storage is left. Delete files you no longer share, or ask for a bigger plan.",
			humanize.IBytes(uint64(size)), humanize.IBytes(uint64(rm.storage)), planName(rm.plan), humanize.IBytes(uint64(rm.quota.Storage)))
	}
	return nil
}

// overLimit returns the error of a file of unknown size that grew past
// limit.
func (rm room) overLimit() error {
	if rm.file >= 0 && rm.file == rm.limit() {
		return fileframe.Errorf(codeFileTooLarge,
			"This file is larger than %s, the largest the %s plan takes.",
			humanize.IBytes(uint64(rm.file)), planName(rm.plan))
	}
	return fileframe.Errorf(codeQuotaExceeded,
		"This file is larger than the %s left of the %s plan's %s of storage. Delete files you no longer share, or ask for a bigger plan.",
		humanize.IBytes(uint64(rm.storage)), planName(rm.plan), humanize.IBytes(uint64(rm.quota.Storage)))
}

// limit returns the most bytes a file of unknown size may have, -1 when
// unlimited.
func (rm room) limit() int64 {
	switch {
	case rm.file < 0:
		return rm.storage
	case rm.storage < 0:
		return rm.file
	}
	return min(rm.file, rm.storage)
}

func planName(p fileframe.Plan) string {
	if n := planNames[p]; n != "" {
		return n
	}
	return string(p)
}

// receiveFile stores one uploaded file of the account: it checks the name
// and the quota (against size when it is known, ≥ 0), streams body into the
// blob store, checks the quota again with the real size (another upload may
// have finished meanwhile) and records the file. body is never held in
// memory whole.
func (s *Server) receiveFile(ctx context.Context, a fileframe.Account, name string, size int64, body io.Reader) (fileframe.File, error) {
	return s.receive(ctx, a, name, size, func(rm room) (fileframe.BlobInfo, []byte, error) {
		// Sniff the type from the first bytes, then stream those bytes and
		// the rest into the blob store.
		head := make([]byte, 512)
		n, err := io.ReadFull(body, head)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return fileframe.BlobInfo{}, nil, fmt.Errorf("reading the upload: %w", err)
		}
		head = head[:n]
		capped := &cappedReader{r: io.MultiReader(bytes.NewReader(head), body), left: rm.limit()}
		info, err := s.blobs.Put(ctx, capped)
		if capped.over {
			return fileframe.BlobInfo{}, nil, rm.overLimit()
		}
		if err != nil {
			return fileframe.BlobInfo{}, nil, fmt.Errorf("storing the upload: %w", err)
		}
		return info, head, nil
	})
}

// adopter is Blobs that can take a file on its own disk as a blob by
// moving it (internal/blob/disk's Adopt), instead of copying its bytes.
type adopter interface {
	Adopt(ctx context.Context, path string) (fileframe.BlobInfo, error)
}

// receiveFileAt is receiveFile for a finished upload whose size bytes are
// the file at path, which the blob store adopts: a large upload is then not
// written a second time. On success the file is no longer at path.
func (s *Server) receiveFileAt(ctx context.Context, a fileframe.Account, name string, size int64, path string, ad adopter) (fileframe.File, error) {
	return s.receive(ctx, a, name, size, func(room) (fileframe.BlobInfo, []byte, error) {
		f, err := os.Open(path)
		if err != nil {
			return fileframe.BlobInfo{}, nil, fmt.Errorf("reading the upload: %w", err)
		}
		head := make([]byte, 512)
		n, err := io.ReadFull(f, head)
		f.Close()
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return fileframe.BlobInfo{}, nil, fmt.Errorf("reading the upload: %w", err)
		}
		info, err := ad.Adopt(ctx, path)
		if err != nil {
			return fileframe.BlobInfo{}, nil, fmt.Errorf("storing the upload: %w", err)
		}
		return info, head[:n], nil
	})
}

// receive is receiveFile and receiveFileAt around store, which puts the
// bytes in the blob store within the quota and returns the blob and the
// file's first bytes (to sniff its type).
func (s *Server) receive(ctx context.Context, a fileframe.Account, name string, size int64, store func(room) (fileframe.BlobInfo, []byte, error)) (fileframe.File, error) {
	if err := checkUploadName(name); err != nil {
		return fileframe.File{}, err
	}
	rm, err := s.uploadRoom(ctx, a)
	if err != nil {
		return fileframe.File{}, err
	}
	if size >= 0 {
		if err := rm.check(size); err != nil {
			return fileframe.File{}, err
		}
	}
	info, head, err := store(rm)
	if err != nil {
		return fileframe.File{}, err
	}
	if size >= 0 && info.Size != size {
		return fileframe.File{}, fmt.Errorf("the upload has %d bytes, %d were announced", info.Size, size)
	}
	if rm, err = s.uploadRoom(ctx, a); err != nil {
		return fileframe.File{}, err
	}
	if err := rm.check(info.Size); err != nil {
		// The blob is left to the hourly collection of orphans: removing it
		// now could race with an upload of the same bytes about to commit
		// its row (fileframe.BlobGrace).
		return fileframe.File{}, err
	}
	return s.store.CreateFile(ctx, fileframe.File{
		AccountID:   a.ID,
		Name:        name,
		Size:        info.Size,
		ContentType: uploadContentType(name, head),
		BlobKey:     info.Key,
		CreatedAt:   s.now(),
	})
}

// checkUploadName checks a file name sent with an upload.
func checkUploadName(name string) error {
	if err := fileframe.CheckFileName(name); err != nil {
		return fileframe.Errorf(fileframe.CodeInvalidField, "%s", fileframe.ErrorMessage(err))
	}
	return nil
}

// uploadContentType picks a file's type from its name's extension, else
// from its first bytes.
func uploadContentType(name string, head []byte) string {
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(head)
}

// cappedReader reads r until left bytes were read (left < 0: no limit),
// then fails, setting over, on the first byte beyond.
type cappedReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return c.r.Read(p)
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if int64(n) > c.left {
		c.over = true
		return int(c.left), errUploadTooLarge
	}
	c.left -= int64(n)
	return n, err
}

// errUploadTooLarge stops Blobs.Put at the limit; receiveFile answers with
// room.overLimit.
var errUploadTooLarge = errors.New("upload: larger than its quota allows")

// readDeadlineReader extends the connection's read and write deadlines
// before each read of an upload, so that a large upload is not cut by the
// server's ReadTimeout and WriteTimeout while bytes keep coming, and a
// stalled client still is.
type readDeadlineReader struct {
	r  io.Reader
	rc *http.ResponseController
}

// uploadIdleTimeout is how long an upload's body may send nothing.
const uploadIdleTimeout = time.Minute

func (d readDeadlineReader) Read(p []byte) (int, error) {
	// A writer that cannot set deadlines (httptest's recorder) has none to
	// extend.
	_ = d.rc.SetReadDeadline(time.Now().Add(uploadIdleTimeout))
	_ = d.rc.SetWriteDeadline(time.Now().Add(2 * uploadIdleTimeout))
	return d.r.Read(p)
}

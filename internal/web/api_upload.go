package web

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// uploadedFile is a stored file in the answer of POST /api/files.
type uploadedFile struct {
	ID   fileframe.FileID `json:"id"`
	Name string           `json:"name"`
	Size int64            `json:"size"`
	Slug string           `json:"slug"`
	// URL is the public link, /f/<slug>; PublicURL the same with the base
	// URL; Page the file's page in the application.
	URL       string `json:"url"`
	PublicURL string `json:"publicUrl"`
	Page      string `json:"page"`
	// Link is the link's controls and state.
	Link apiLink `json:"link"`
}

// uploadResponse is the body of a 201 answer of POST /api/files: the first
// (often only) file's fields at the top, so `jq -r .url` works, and every
// file stored, in the order sent, in files.
type uploadResponse struct {
	OK bool `json:"ok"`
	uploadedFile
	Files []uploadedFile `json:"files"`
}

func (s *Server) uploaded(f fileframe.File) uploadedFile {
	return uploadedFile{
		ID: f.ID, Name: f.Name, Size: f.Size, Slug: f.Slug,
		URL: f.URL(), PublicURL: s.publicURL(f.URL()), Page: filePagePath(f.ID),
		Link: newAPILink(f, s.now()),
	}
}

// apiUploadFiles is POST /api/files: a general API key of an Agency
// account uploads files, as multipart/form-data (every part named "file"
// with a file name) or as the raw body with the name in ?name=.
func (s *Server) apiUploadFiles() http.Handler {
	return s.api(apiEndpoint{body: bodyStream, general: true, scope: "Uploading files",
		run: s.apiUpload, fingerprint: s.uploadFingerprint})
}

func (s *Server) apiUpload(w http.ResponseWriter, r *http.Request, c *apiCall) (int, any, error) {
	var files []uploadedFile
	fp := newUploadFingerprint(r)
	link, err := parseLinkQuery(r)
	if err != nil {
		return 0, nil, err
	}
	// Checked, and a password hashed, once for all the request's files
	// and before any byte is stored.
	if link, err = s.svc.PrepareLink(r.Context(), c.caller.account, link); err != nil {
		return 0, nil, err
	}
	err = s.eachUpload(r, s.uploadBody(w, r.Body), func(name string, size int64, content io.Reader) error {
		f, err := s.svc.AddFile(r.Context(), service.NewFile{Account: c.caller.account, Name: name, Size: size, AtMost: r.ContentLength, Body: content, Link: link})
		if err != nil {
			return err
		}
		fp.add(name, f.BlobKey)
		files = append(files, s.uploaded(f))
		return nil
	})
	if err != nil {
		if len(files) > 0 {
			err = &storedFilesError{err: err, files: files}
		}
		return 0, nil, err
	}
	c.fingerprint = fp.sum()
	resp := uploadResponse{OK: true, uploadedFile: files[0], Files: files}
	w.Header().Set("Location", resp.Page)
	return http.StatusCreated, resp, nil
}

// uploadFingerprint reads an upload request's files to their ends and
// returns the fingerprint that apiUpload gives the same request: its
// files' names and contents, hashed (not its bytes: a multipart boundary
// differs from one try of curl to the next). Nothing is stored.
func (s *Server) uploadFingerprint(w http.ResponseWriter, r *http.Request, _ *apiCall) (string, error) {
	fp := newUploadFingerprint(r)
	err := s.eachUpload(r, s.uploadBody(w, r.Body), func(name string, _ int64, content io.Reader) error {
		h := sha256.New()
		if _, err := io.Copy(h, content); stalled(err) {
			return fileframe.Errorf(fileframe.CodeRequestTimeout,
				"No bytes of the upload arrived for too long, so the server stopped waiting. Send the file again.")
		} else if err != nil {
			return fileframe.Errorf(fileframe.CodeUploadIncomplete,
				"The upload ended before all of its bytes arrived: the connection was cut. Send the file again.")
		}
		fp.add(name, hex.EncodeToString(h.Sum(nil)))
		return nil
	})
	return fp.sum(), err
}

// uploadHash hashes the path of an upload request and each of its
// files' name and content hash, in order.
type uploadHash struct{ h hash.Hash }

func newUploadFingerprint(r *http.Request) uploadHash {
	u := uploadHash{sha256.New()}
	io.WriteString(u.h, r.Method+" "+r.URL.EscapedPath()+"\n")
	// The link's settings too: a retry with other settings is another
	// request (the password hashed, never kept).
	q := r.URL.Query()
	for _, name := range []string{"expiresIn", "expiresAt", "maxDownloads", "removeWhenEnded", "reveal"} {
		if vs, ok := q[name]; ok {
			io.WriteString(u.h, name+"="+strconv.Quote(strings.Join(vs, "\x00"))+"\n")
		}
	}
	if pw := r.Header.Values(linkPasswordHeader); len(pw) > 0 {
		sum := sha256.Sum256([]byte(strings.Join(pw, "\x00")))
		io.WriteString(u.h, "password "+hex.EncodeToString(sum[:])+"\n")
	}
	return u
}

func (u uploadHash) add(name, contentSHA256 string) {
	io.WriteString(u.h, strconv.Quote(name)+" "+contentSHA256+"\n")
}

func (u uploadHash) sum() string { return hex.EncodeToString(u.h.Sum(nil)) }

// storedFilesError is the error of an upload request that stored files
// before it failed: the answer lists them (problem.Files).
type storedFilesError struct {
	err   error
	files []uploadedFile
}

func (e *storedFilesError) Error() string { return e.err.Error() }
func (e *storedFilesError) Unwrap() error { return e.err }

// maxFilesPerRequest is the most files one upload request (POST /api/files
// or the app's upload form) may send: each is a store write, and one
// request should not hold the server for thousands of them. The files
// before the refused one stay stored.
const maxFilesPerRequest = 100

// tooManyFiles is the error of the file after maxFilesPerRequest.
var tooManyFiles = fileframe.Errorf(fileframe.CodeTooManyFiles,
	"One request can send at most %d files; the first %d are stored. Send the others in another request.",
	maxFilesPerRequest, maxFilesPerRequest)

// eachUpload calls store for every file of an upload request: every part
// named "file" of a multipart/form-data body, or else the raw body named by
// ?name=. size is -1 when it is not known before the bytes are read.
func (s *Server) eachUpload(r *http.Request, body io.Reader, store func(name string, size int64, content io.Reader) error) error {
	if mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mediaType != "multipart/form-data" {
		name := r.URL.Query().Get("name")
		if name == "" {
			return fileframe.Errorf(fileframe.CodeInvalidField,
				"Name the file: send the raw bytes with ?name=<file name> in the URL, or send multipart/form-data with a part named file (curl -F file=@report.pdf).")
		}
		return store(name, r.ContentLength, body)
	}
	n := 0
	err := s.eachFormPart(r, body, func(part *multipart.Part) error {
		if part.FormName() != "file" || part.FileName() == "" {
			return nil
		}
		if n++; n > maxFilesPerRequest {
			return tooManyFiles
		}
		return store(part.FileName(), -1, part)
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return fileframe.Errorf(fileframe.CodeInvalidField,
			"The multipart body has no file: send each file in a part named file with a file name (curl -F file=@report.pdf).")
	}
	return nil
}

// eachFormPart calls fn for every part of a multipart/form-data body.
func (s *Server) eachFormPart(r *http.Request, body io.Reader, fn func(*multipart.Part) error) error {
	mr, err := multipartReader(r, body)
	if err != nil {
		return err
	}
	return eachPart(mr, fn)
}

// multipartReader returns a reader of the parts of r's multipart/form-data
// body, read from body.
func multipartReader(r *http.Request, body io.Reader) (*multipart.Reader, error) {
	mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType != "multipart/form-data" || params["boundary"] == "" {
		return nil, fileframe.Errorf(fileframe.CodeInvalidField, "The body is not multipart/form-data with a boundary.")
	}
	return multipart.NewReader(body, params["boundary"]), nil
}

// eachPart calls fn for every part that mr has left.
func eachPart(mr *multipart.Reader, fn func(*multipart.Part) error) error {
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fileframe.Errorf(fileframe.CodeInvalidField, "The multipart/form-data body could not be read: %v.", err)
		}
		err = fn(part)
		part.Close()
		if err != nil {
			return err
		}
	}
}

package web

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

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
	// DefaultExpiry is how long a new link lives on the account's plan
	// when its owner does not say ("7 days"); "" for never.
	DefaultExpiry string
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

// uploadPanelFor is uploadPanel for an owner on plan.
func (s *Server) uploadPanelFor(plan fileframe.Plan) uploadPanel {
	p := s.uploadPanel()
	if d := s.cfg.Quotas[plan].DefaultExpiry; d > 0 {
		p.DefaultExpiry = untilText(d)
	}
	return p
}

// uploadFormPath is where the upload panel's plain form posts.
const uploadFormPath = "/files/upload"

// readDeadlineReader extends the connection's read and write deadlines
// before each read of an upload, so that a large upload is not cut by the
// server's ReadTimeout and WriteTimeout while bytes keep coming, and a
// stalled client still is.
type readDeadlineReader struct {
	r  io.Reader
	rc *http.ResponseController
	// idle is how long the body may send nothing (Config.UploadIdleTimeout).
	idle time.Duration
}

// defaultUploadIdleTimeout is how long an upload's body may send nothing,
// unless Config.UploadIdleTimeout says otherwise.
const defaultUploadIdleTimeout = time.Minute

// uploadBody returns the body of an upload request, read under
// readDeadlineReader's deadlines.
func (s *Server) uploadBody(w http.ResponseWriter, body io.Reader) readDeadlineReader {
	return readDeadlineReader{r: body, rc: http.NewResponseController(w), idle: s.cfg.UploadIdleTimeout}
}

// idleBody is uploadBody for any request's body (a form, the API's JSON):
// a client that stops sending is answered 408 after the idle timeout
// instead of losing its connection, unanswered, at the server's
// ReadTimeout.
func (s *Server) idleBody(w http.ResponseWriter, body io.ReadCloser) io.ReadCloser {
	return struct {
		io.Reader
		io.Closer
	}{s.uploadBody(w, body), body}
}

// stalled reports whether err is a body's read that timed out.
func stalled(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

func (d readDeadlineReader) Read(p []byte) (int, error) {
	// A writer that cannot set deadlines (httptest's recorder) has none to
	// extend.
	_ = d.rc.SetReadDeadline(time.Now().Add(d.idle))
	_ = d.rc.SetWriteDeadline(time.Now().Add(2 * d.idle))
	n, err := d.r.Read(p)
	if err == io.EOF {
		// The whole body is in. net/http now reads the connection in the
		// background (to see the client leave), under the deadline just
		// set: storing what arrived may take longer (S3 through its
		// tries), and that read's timeout would end the request's
		// context as if the client had gone. The answer gets its own
		// write deadline (statusWriter); the next request, net/http's.
		_ = d.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// uploadForm handles POST /files/upload, the upload panel's form for a
// browser without JavaScript: multipart/form-data whose first part is the
// session's CSRF token ("csrf"; the route's guard has read and checked it,
// streamedForm) and whose "file" parts are the files. One file leads to its
// page, several to the file list.
func (s *Server) uploadForm(w http.ResponseWriter, r *http.Request, user *signedIn) {
	mr := streamedForm(r)
	var last fileframe.File
	n := 0
	// The link's fields come before the files (the form's order), read as
	// they stream past; the link is checked once, at the first file.
	fields := map[string]string{}
	var link *service.LinkChange
	err := eachPart(mr, func(part *multipart.Part) error {
		if part.FileName() == "" {
			switch name := part.FormName(); name {
			case "expiry", "one_time", "password":
				v, err := io.ReadAll(io.LimitReader(part, 1024))
				if err != nil {
					return fileframe.Errorf(fileframe.CodeInvalidField, "The form could not be read. Send it again.")
				}
				fields[name] = string(v)
			}
			return nil
		}
		if part.FormName() != "file" {
			return nil
		}
		if n >= maxFilesPerRequest {
			return tooManyFiles
		}
		if link == nil {
			c, _, msg := parseLinkForm(func(k string) string { return fields[k] }, true)
			if msg != "" {
				return fileframe.Errorf(fileframe.CodeInvalidField, "%s", msg)
			}
			prepared, err := s.svc.PrepareLink(r.Context(), user.account, c)
			if err != nil {
				return err
			}
			link = &prepared
		}
		f, err := s.svc.AddFile(r.Context(), service.NewFile{Account: user.account, Name: part.FileName(), Size: -1, AtMost: r.ContentLength, Body: part, Link: *link})
		if err != nil {
			return err
		}
		last, n = f, n+1
		return nil
	})
	switch {
	case err != nil:
		// A refusal (quota, name, a cut body) under the heading of the
		// upload form; a server fault as such.
		if code, _ := kindOf(err); code != fileframe.EINTERNAL {
			msg := fileframe.ErrorMessage(err)
			switch {
			case code == fileframe.CodeTooManyFiles:
			case n == 1:
				msg += " The file before it was stored: it is in your file list."
			case n > 1:
				msg += fmt.Sprintf(" The %d files before it were stored: they are in your file list.", n)
			}
			err = fileframe.Errorf(code, "%s", msg).WithTitle("The upload did not work")
		}
		s.appError(w, r, user, err)
	case n == 0:
		s.appError(w, r, user, failure(fileframe.CodeInvalidField, "No file chosen", "Choose one or more files to upload, then press Upload."))
	case n == 1:
		appRedirect(w, r, filePagePath(last.ID))
	default:
		appRedirect(w, r, "/files")
	}
}

package web

import (
	"io"
	"net/http"
	"time"
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

func (d readDeadlineReader) Read(p []byte) (int, error) {
	// A writer that cannot set deadlines (httptest's recorder) has none to
	// extend.
	_ = d.rc.SetReadDeadline(time.Now().Add(d.idle))
	_ = d.rc.SetWriteDeadline(time.Now().Add(2 * d.idle))
	return d.r.Read(p)
}

package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Downloads of a link with a download limit (fileframe.File.Limited),
// issue 12. What counts is a complete transfer of the whole file by GET
// /f/{slug}/download: HEAD never counts, nor the pages, previews or
// images. So that a client cannot fetch a limited file piece by piece
// without counting, Range and If-Range are ignored, as RFC 9110 §14.2
// allows (https://www.rfc-editor.org/rfc/rfc9110#section-14.2), and so are
// the other conditional headers: every GET is a whole 200. Such a link is
// never answered with the presigned redirect of --download-redirect,
// whose transfer the server could not see end.
//
// A GET first claims a slot in the store (ClaimDownload: atomic across
// instances, so concurrent downloads never overshoot the limit), renews
// the claim while it runs, and finishes it when the handler returns:
// completed when every byte was written, otherwise the slot is given back.
// The last byte is written only once the download is counted, so no client
// holds the whole file of a download that was not counted, and once the
// client has it, the link is used up on every instance.
//
// Links without a limit never come here: their downloads write nothing
// to the store as they happen (download_counter.go batches the counts).

const (
	// downloadClaimTTL is how long a claim holds its slot unless renewed:
	// a process that dies mid-transfer gives its slot back after at most
	// this long.
	downloadClaimTTL = 2 * time.Minute
	// downloadClaimRenew is how often a running transfer renews its claim.
	downloadClaimRenew = 30 * time.Second
	// linkBusyRetry is the Retry-After, in seconds, of a link whose last
	// allowed download is running.
	linkBusyRetry = "30"
	// limitedChunk is the size of the writes of a limited download.
	limitedChunk = 32 << 10
)

// limitedDownload serves GET and HEAD of /f/{slug}/download for f, whose
// link has a download limit and was live when looked up: the bytes of
// served, which is f, or an item of collection f (public_collection.go),
// counted against f's limit.
func (s *Server) limitedDownload(w http.ResponseWriter, r *http.Request, f, served fileframe.File, v *statVisit) {
	if r.Method == http.MethodHead {
		// A HEAD neither claims nor counts; it says what a GET would get.
		s.setLimitedHeaders(w.Header(), served, served.Size)
		w.WriteHeader(http.StatusOK)
		return
	}
	t, ok := s.claim(w, r, f)
	if !ok {
		return
	}
	defer t.finish(false)

	body, size, err := s.openDownload(r.Context(), served)
	if err != nil {
		s.publicError(w, r, err)
		return
	}
	defer body.Close()

	_ = http.NewResponseController(w).SetWriteDeadline(downloadDeadline(size))

	stop := make(chan struct{})
	defer close(stop)
	go t.renew(r.Context(), stop)

	s.setLimitedHeaders(w.Header(), served, size)
	w.WriteHeader(http.StatusOK)
	// The owner's count of downloads started, as for any link
	// (countingWriter).
	s.counts.Add(f.ID)
	s.metrics.downloads.Inc()
	s.stats.click(v)
	if t.copy(w, body, size) {
		s.stats.download(v)
	}
}

// refusedClaim answers a download whose claim the store refused: 410 for
// a link that ended meanwhile, 503 with Retry-After while its last
// allowed download runs.
func (s *Server) refusedClaim(w http.ResponseWriter, r *http.Request, f fileframe.File, err error) {
	switch fileframe.ErrorCode(err) {
	case fileframe.CodeLinkExpired:
		s.publicGone(w, r, linkGone(f, fileframe.LinkExpired))
	case fileframe.CodeLinkUsedUp:
		s.publicGone(w, r, linkGone(f, fileframe.LinkUsedUp))
	case fileframe.CodeLinkBusy:
		w.Header().Set("Retry-After", linkBusyRetry)
		s.publicError(w, r, failure(fileframe.CodeLinkBusy, "This link is busy",
			"The last download this link allows is running right now. If it does not finish, the link works again: try again in a minute."))
	default:
		if fileframe.IsNotFound(err) {
			s.publicLookupError(w, r, err) // the file was deleted meanwhile
			return
		}
		s.publicError(w, r, err)
	}
}

// setLimitedHeaders sets the headers of a limited download: a whole
// response of size bytes, no ranges, kept by no cache.
func (s *Server) setLimitedHeaders(h http.Header, f fileframe.File, size int64) {
	h["Content-Type"] = []string{downloadType(f.ContentType)}
	s.setDownloadHeaders(h)
	h["Content-Disposition"] = []string{contentDisposition(f.Name)}
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	h.Set("Accept-Ranges", "none")
	h.Set("Cache-Control", "no-store")
}

// openDownload returns f's bytes and their size: from the blob cache when
// it holds them, else from the blob store.
func (s *Server) openDownload(ctx context.Context, f fileframe.File) (io.ReadCloser, int64, error) {
	if cached, ok := s.blobCache.get(f.BlobKey); ok {
		return io.NopCloser(bytes.NewReader(cached.body)), int64(len(cached.body)), nil
	}
	blob, err := s.blobs.Open(ctx, f.BlobKey)
	if err != nil {
		// As in publicDownload: a row without its bytes is a fault.
		return nil, 0, fault(err)
	}
	size := blob.Size
	if size <= 0 {
		size = f.Size
	}
	return blob.Body, size, nil
}

// limitedTransfer is one claimed download.
type limitedTransfer struct {
	s     *Server
	file  fileframe.FileID
	claim string
	log   *slog.Logger
	// finished is set once the claim has ended (finish).
	finished bool
	// lost is set when a renewal finds the claim gone: the slot may be
	// another download's now, so this one stops.
	lost atomic.Bool
}

// copy writes size bytes of body to w, all but the last byte, then counts
// the download (finish), then the last byte. It stops at the first error
// of reading or writing, or when the claim was lost. It reports whether
// every byte was written.
func (t *limitedTransfer) copy(w http.ResponseWriter, body io.Reader, size int64) (complete bool) {
	if size == 0 {
		return t.finish(true)
	}
	buf := make([]byte, min(limitedChunk, size))
	for sent := int64(0); sent < size; {
		n := int(min(int64(len(buf)), size-sent))
		if _, err := io.ReadFull(body, buf[:n]); err != nil {
			if errors.Is(err, context.Canceled) {
				// The request's context ended: its client went away (or
				// the server is shutting down) while the blob was read
				// from S3, whose reads stop with it. Not a fault.
				t.log.Info("download: stopped while the blob was read (the request ended)", "err", err)
				return
			}
			t.log.Log(context.Background(), faultLevel(err), "download: reading the blob failed", "err", err)
			return
		}
		last := sent+int64(n) == size
		if last {
			n-- // held back until counted
		}
		if t.lost.Load() {
			return
		}
		if _, err := w.Write(buf[:n]); err != nil {
			return // the client went away: not complete
		}
		sent += int64(n)
		if last {
			if !t.finish(true) {
				return false
			}
			_, err := w.Write(buf[n : n+1])
			return err == nil
		}
	}
	return false
}

// finish ends the claim once: a completed download counts and tells this
// process's public cache (the link may be used up now); an incomplete one
// gives its slot back. It reports whether the claim ended as asked. It
// runs after the request's context may have ended (the client left), so
// it does not use it.
func (t *limitedTransfer) finish(completed bool) bool {
	if t.finished {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := t.s.store.FinishDownload(ctx, t.file, t.claim, completed); err != nil {
		// A complete download that cannot be counted does not get its
		// last byte, and is then finished as incomplete (the handler's
		// deferred call). An incomplete one whose claim cannot be ended
		// (the database out of reach) would hold its slot until the claim
		// runs out (downloadClaimTTL), the link busy for everyone if it
		// was the last: its slot is given back in the background once the
		// database is back. Ending a claim twice is harmless.
		t.log.Log(ctx, faultLevel(err), "download: finishing the claim failed", "completed", completed, "err", err)
		if !completed {
			file, claim := t.file, t.claim
			t.s.tryAgainLater(t.log, "download: giving back a limited link's slot", err, func(ctx context.Context) error {
				return t.s.store.FinishDownload(ctx, file, claim, false)
			})
		}
		return false
	}
	t.finished = true
	if completed {
		t.s.ownWrites.Add(1)
	}
	return true
}

// renew renews the claim every downloadClaimRenew until stop is closed.
func (t *limitedTransfer) renew(ctx context.Context, stop <-chan struct{}) {
	tick := time.NewTicker(downloadClaimRenew)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := t.s.store.RenewDownloadClaim(ctx, t.claim, t.s.now(), downloadClaimTTL)
		switch {
		case fileframe.IsNotFound(err):
			t.log.Warn("download: the claim ran out; stopping the transfer")
			t.lost.Store(true)
			return
		case err != nil && ctx.Err() == nil:
			// Tried again at the next tick; the claim lasts four of them.
			t.log.Warn("download: renewing the claim failed", "err", err)
		}
	}
}

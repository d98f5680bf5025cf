package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// NewFile is a file on its way into an account.
type NewFile struct {
	Account fileframe.Account
	// Name is the name visitors download the file as
	// (fileframe.CheckFileName).
	Name string
	// Size is the number of bytes announced before they arrive (a
	// Content-Length, a tus Upload-Length, a file's size on disk), or -1
	// when it is not known (a part of a multipart body).
	Size int64
	// AtMost, when Size is -1 and AtMost is above 0, bounds the size from
	// above (a multipart body's Content-Length): room is never reserved
	// beyond it, so that uploads of unknown size running at once do not
	// each reserve far more than they send and crowd the others out of a
	// nearly full quota or file request.
	AtMost int64
	// Body is the file's bytes; it is streamed, never held whole.
	Body io.Reader
	// TypeHint is a second name whose extension may tell the type when
	// Name's does not (the CLI's PATH beside its --name); optional.
	TypeHint string
	// Reservation names the reservation a resumable upload made when it
	// began (ReserveUpload); AddFile turns it into the file. Empty for a
	// plain upload, which AddFile reserves room for as its bytes arrive.
	Reservation string
	// Link sets the new file's link controls (SetLink's); a link given no
	// expiry gets its plan's default.
	Link LinkChange
	// From, when set, is the sender of a file sent through a file
	// request into Account (its owner): the request's limits are checked
	// with the quota, in the same atomic steps, and the file is stored
	// unshared (fileframe.RequestStore.CreateRequestFile).
	From *Sender
	// Upload, when set, is the resumable upload whose bytes these are: the
	// file is stored with the upload's record in one step
	// (Store.UploadFile then names it), so that an upload cut by a crash
	// is finished again exactly once. An upload recorded already is not
	// stored again: AddFile returns the file it became.
	Upload string
}

// Adopter is Blobs that can take a file on its own disk as a blob by
// linking it (internal/blob/disk's Adopt), instead of copying its bytes;
// the file stays where it is.
type Adopter interface {
	Adopt(ctx context.Context, path string) (fileframe.BlobInfo, error)
}

// Reservations last this long past their last use: a plain upload renews
// its own while its bytes arrive, a resumable one on every request that
// sends bytes, and unused resumable uploads are removed after a day
// (serve's clean-up), so theirs lasts a little longer.
const (
	plainReservationTTL  = 15 * time.Minute
	UploadReservationTTL = 25 * time.Hour
)

// outageReleaseWait is how long a plain upload that failed because
// something was out of reach waits to give back its room before it
// answers; what does not finish in that time goes on in the background.
const outageReleaseWait = 2 * time.Second

// AddFile adds a file to an account: the one way a file comes in, from the
// web application's uploads (tus and the plain form), the API and the
// admin CLI alike. It checks the name, the plan's largest file and the
// account's storage, streams Body into the blob store and records the file.
//
// The storage quota holds however many uploads run at once, on one
// instance or many: room is reserved in the store before bytes are stored
// (the announced size at once, or, when it is unknown, in growing steps as
// the bytes arrive), and the file's row replaces its reservation in one
// atomic step that checks the quota again. A failed upload releases its
// room; one whose process died frees it when its reservation expires.
func (s *Service) AddFile(ctx context.Context, nf NewFile) (fileframe.File, error) {
	body := &clientReader{r: nf.Body}
	return s.addFile(ctx, nf, func(r *reservedReader) (fileframe.BlobInfo, []byte, error) {
		// Sniff the type from the first bytes, then stream those bytes
		// and the rest into the blob store.
		head := make([]byte, 512)
		n, err := io.ReadFull(body, head)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return fileframe.BlobInfo{}, nil, body.fault(fmt.Errorf("reading the upload: %w", err))
		}
		head = head[:n]
		r.r = io.MultiReader(bytes.NewReader(head), body)
		info, err := s.blobs.Put(ctx, r)
		if r.err != nil {
			return fileframe.BlobInfo{}, nil, r.err
		}
		if err != nil {
			return fileframe.BlobInfo{}, nil, body.fault(fmt.Errorf("storing the upload: %w", err))
		}
		return info, head, nil
	})
}

// clientReader reads an upload's bytes from its client and remembers how
// reading them failed, so that a client's fault (a cut connection, a body
// shorter than announced, a client that stopped sending) is told from the
// store's and answered as the client's: 400 or 408, not 500.
type clientReader struct {
	r   io.Reader
	err error
}

func (c *clientReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// fault returns the client's error when reading from it failed, else err.
func (c *clientReader) fault(err error) error {
	var ne net.Error
	switch {
	case c.err == nil:
		return err
	case errors.Is(c.err, os.ErrDeadlineExceeded) || (errors.As(c.err, &ne) && ne.Timeout()):
		return fileframe.Errorf(fileframe.CodeRequestTimeout,
			"No bytes of the upload arrived for too long, so the server stopped waiting. Send the file again.")
	}
	return fileframe.Errorf(fileframe.CodeUploadIncomplete,
		"The upload ended before all of its bytes arrived: the connection was cut, or the body was shorter than its Content-Length. Send the file again.")
}

// AdoptFile is AddFile for a file whose nf.Size bytes are already in the
// file at path on the blob store's own disk (a finished resumable upload),
// which the blob store adopts (links) instead of copying. The file stays
// at path, for its owner to remove once the file is stored: until then a
// crash leaves the upload whole, to be finished again.
func (s *Service) AdoptFile(ctx context.Context, nf NewFile, path string) (fileframe.File, error) {
	ad, ok := s.blobs.(Adopter)
	if !ok {
		return fileframe.File{}, errors.New("service: the blob store cannot adopt files")
	}
	return s.addFile(ctx, nf, func(*reservedReader) (fileframe.BlobInfo, []byte, error) {
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

// CanAdopt reports whether the blob store can adopt files (AdoptFile).
func (s *Service) CanAdopt() bool {
	_, ok := s.blobs.(Adopter)
	return ok
}

// addFile is AddFile and AdoptFile around put, which puts the bytes in the
// blob store, reading them through the reservedReader it is given when it
// reads them at all, and returns the blob and the file's first bytes.
func (s *Service) addFile(ctx context.Context, nf NewFile, put func(*reservedReader) (fileframe.BlobInfo, []byte, error)) (_ fileframe.File, err error) {
	if s.blobs == nil {
		return fileframe.File{}, errors.New("service: adding a file needs Config.Blobs")
	}
	added := false
	if err := checkName(nf.Name); err != nil {
		return fileframe.File{}, err
	}
	q := s.quotas[nf.Account.Plan]
	var request fileframe.RequestID
	if nf.From != nil {
		request, q = nf.From.Request.ID, requestQuota(q, nf.From.Request)
		if err := checkRequestFileSize(nf.Account.Plan, q, nf.From.Request, nf.Size); err != nil {
			return fileframe.File{}, err
		}
	} else if err := checkFileSize(nf.Account.Plan, q, nf.Size); err != nil {
		return fileframe.File{}, err
	}
	if err := s.CheckSpace(ctx); err != nil {
		return fileframe.File{}, err
	}
	// The link's settings before any byte is stored: a refused setting
	// costs the client nothing, and a password is hashed once.
	link, err := s.applyLink(ctx, nf.Account, fileframe.Link{}, nf.Link, true)
	if err != nil {
		return fileframe.File{}, err
	}
	r := &reservedReader{s: s, ctx: ctx, account: nf.Account, quota: q, id: nf.Reservation, request: request}
	if nf.Size < 0 && nf.AtMost > 0 {
		r.atMost = nf.AtMost
	}
	if r.id == "" && (q.Storage > 0 || q.Files > 0 || request != "") {
		r.id = "p." + fileframe.RandomBase62(24)
		// A resumable upload's reservation is its owner's to release
		// (ReleaseUpload). A plain upload's becomes its file, or is
		// released here when the upload fails; if even that fails (the
		// database out of reach), it is tried again later (Config.Later),
		// and expires by itself after plainReservationTTL. When the upload
		// failed because something was out of reach, the release here gets
		// outageReleaseWait, not a whole statement deadline: if the
		// database is what is gone, the client need not wait for it twice.
		defer func() {
			if !added {
				id := r.id
				release := func(ctx context.Context) error { return s.store.ReleaseReservation(ctx, id) }
				rctx := context.WithoutCancel(ctx)
				if fileframe.ErrorCode(err) == fileframe.CodeUnavailable {
					var cancel context.CancelFunc
					rctx, cancel = context.WithTimeout(rctx, outageReleaseWait)
					defer cancel()
				}
				if err := release(rctx); err != nil {
					s.later("upload: releasing the room reserved for a failed upload", err, release)
				}
			}
		}()
		err := r.reserve(max(nf.Size, 0))
		if request != "" {
			err = requestUploadError(err)
		}
		switch fileframe.ErrorCode(err) {
		case fileframe.CodeQuotaExceeded:
			return fileframe.File{}, quotaError(nf.Account.Plan, q, nf.Size, r.used)
		case fileframe.CodeFileCountExceeded:
			return fileframe.File{}, fileCountError(nf.Account.Plan, q)
		}
		if err != nil {
			return fileframe.File{}, err
		}
	} else {
		r.reserved = max(nf.Size, 0) // ReserveUpload's
	}
	info, head, err := put(r)
	if err != nil {
		// The blob, if any, is left to the collection of orphans:
		// removing it now could race with an upload of the same bytes
		// about to commit its row (fileframe.BlobGrace).
		return fileframe.File{}, err
	}
	if nf.Size >= 0 && info.Size != nf.Size {
		return fileframe.File{}, fileframe.Errorf(fileframe.CodeUploadIncomplete,
			"The upload has %d bytes, but %d were announced. Send the file again.", info.Size, nf.Size)
	}
	nfile := fileframe.File{
		AccountID:   nf.Account.ID,
		Name:        nf.Name,
		Size:        info.Size,
		ContentType: contentType(head, nf.Name, nf.TypeHint),
		BlobKey:     info.Key,
		CreatedAt:   s.now(),
		Link:        link,
	}
	if nf.From != nil {
		f, err := s.store.CreateRequestFile(ctx, nfile, fileframe.RequestFile{
			RequestID: request, VisitID: nf.From.Visit, SenderName: nf.From.Name, SenderEmail: nf.From.Email,
		}, r.id, nf.Upload, q, s.now())
		// An unshared file shows nowhere a visitor looks: nothing changed
		// for the public cache.
		added = err == nil
		if f, ok := s.recordedUpload(ctx, nf.Upload, err); ok {
			return f, nil
		}
		return f, requestUploadError(err)
	}
	f, err := s.store.CreateFileReserved(ctx, nfile, r.id, nf.Upload, q, s.now())
	if f, ok := s.recordedUpload(ctx, nf.Upload, err); ok {
		return f, nil
	}
	added = err == nil
	if added {
		s.changed() // the file's link works from now
	}
	switch fileframe.ErrorCode(err) {
	case fileframe.CodeFileCountExceeded:
		return fileframe.File{}, fileCountError(nf.Account.Plan, q)
	case fileframe.CodeQuotaExceeded:
		return fileframe.File{}, fileframe.Errorf(fileframe.CodeQuotaExceeded,
			"This file needs %s, but less than that of the %s plan's %s of storage is left now that other files were added. Delete files you no longer share, or ask for a bigger plan.",
			humanize.IBytes(uint64(info.Size)), nf.Account.Plan.Name(), humanize.IBytes(uint64(q.Storage)))
	}
	return f, err
}

// recordedUpload returns the file that upload became when err says that
// it is recorded already (another instance, or one before a crash,
// finished it first).
func (s *Service) recordedUpload(ctx context.Context, upload string, err error) (fileframe.File, bool) {
	if upload == "" || fileframe.ErrorCode(err) != fileframe.ECONFLICT {
		return fileframe.File{}, false
	}
	id, ferr := s.store.UploadFile(ctx, upload)
	if ferr != nil {
		return fileframe.File{}, false
	}
	f, ferr := s.store.FileByID(ctx, id)
	return f, ferr == nil
}

// ReserveUpload reserves room for a resumable upload of size bytes, named
// id, before its bytes arrive: it checks the name, the plan's largest file
// and the account's storage. AddFile or AdoptFile with Reservation id turns
// the reservation into the file; ReleaseUpload gives it back.
func (s *Service) ReserveUpload(ctx context.Context, a fileframe.Account, id, name string, size int64) error {
	if err := checkName(name); err != nil {
		return err
	}
	q := s.quotas[a.Plan]
	if err := checkFileSize(a.Plan, q, size); err != nil {
		return err
	}
	if q.Storage <= 0 && q.Files <= 0 {
		return nil // unlimited: nothing to reserve
	}
	used, err := s.store.Reserve(ctx, fileframe.Reservation{
		ID: id, AccountID: a.ID, Bytes: size, ExpiresAt: s.now().Add(UploadReservationTTL),
	}, q, s.now())
	switch fileframe.ErrorCode(err) {
	case fileframe.CodeQuotaExceeded:
		return quotaError(a.Plan, q, size, used)
	case fileframe.CodeFileCountExceeded:
		return fileCountError(a.Plan, q)
	}
	return err
}

// RenewUpload keeps the reservation of a resumable upload of size bytes
// from expiring while the upload is in use.
func (s *Service) RenewUpload(ctx context.Context, a fileframe.Account, id string, size int64) error {
	q := s.quotas[a.Plan]
	if q.Storage <= 0 && q.Files <= 0 {
		return nil
	}
	_, err := s.store.Reserve(ctx, fileframe.Reservation{
		ID: id, AccountID: a.ID, Bytes: size, ExpiresAt: s.now().Add(UploadReservationTTL),
	}, q, s.now())
	return err
}

// ReleaseUpload gives back the room of a resumable upload that ended
// without becoming a file. When the store cannot (the database out of
// reach), it is tried again later (Config.Later) rather than failing the
// request: the upload is gone either way, and its room would otherwise be
// held until the reservation expires (UploadReservationTTL).
func (s *Service) ReleaseUpload(ctx context.Context, id string) error {
	release := func(ctx context.Context) error { return s.store.ReleaseReservation(ctx, id) }
	if err := release(ctx); err != nil {
		s.later("upload: releasing the room reserved for a resumable upload", err, release)
	}
	return nil
}

// reservedReader reads a plain upload's bytes, growing its reservation
// before any byte beyond it is passed on, and stopping at the plan's
// largest file; err says why it stopped.
type reservedReader struct {
	s       *Service
	ctx     context.Context
	account fileframe.Account
	quota   fileframe.Quota
	id      string
	request fileframe.RequestID // the file request it is sent through, if any
	r       io.Reader
	atMost  int64 // NewFile.AtMost: no reservation grows past it

	// read bytes were passed on, reserved are reserved; used is what the
	// account's files and other reservations took at the last reserve.
	read, reserved, used int64
	renewed              time.Time
	err                  error
}

// minReservationStep is the least a growing reservation grows by: each
// step is a write to the store, so a file of unknown size takes about
// log2(size/step) of them.
const minReservationStep = 1 << 20

func (r *reservedReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	// Read at most one byte beyond the reservation, so that a file that
	// ends exactly at it needs no more.
	room := r.reserved - r.read
	if int64(len(p)) > room+1 {
		p = p[:room+1]
	}
	n, err := r.r.Read(p)
	if total := r.read + int64(n); total > r.reserved {
		if r.request != "" && total > r.quota.File {
			r.err = fileframe.Errorf(fileframe.CodeRequestTooLarge,
				"This file is larger than %s, the most this request takes.", humanize.IBytes(uint64(r.quota.File)))
			return 0, r.err
		}
		if r.quota.File > 0 && total > r.quota.File {
			r.err = fileframe.Errorf(fileframe.CodeFileTooLarge,
				"This file is larger than %s, the largest the %s plan takes.",
				humanize.IBytes(uint64(r.quota.File)), r.account.Plan.Name())
			return 0, r.err
		}
		if r.quota.Storage <= 0 && r.request == "" {
			r.reserved = total // unlimited: nothing to reserve
		} else if r.err = r.grow(total); r.err != nil {
			return 0, r.err
		}
	} else if now := r.s.now(); r.id != "" && now.Sub(r.renewed) > plainReservationTTL/3 {
		// A slow upload keeps its room while bytes keep coming.
		if err := r.reserve(r.reserved); err != nil && fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded &&
			fileframe.ErrorCode(err) != fileframe.CodeFileCountExceeded {
			r.err = err
			return 0, err
		}
	}
	r.read += int64(n)
	return n, err
}

// grow reserves room for at least need bytes: twice what it holds, or a
// step more, when that fits; else exactly what is left, if need fits in it.
func (r *reservedReader) grow(need int64) error {
	target := max(need, 2*r.reserved, r.reserved+minReservationStep)
	if r.atMost > 0 {
		target = max(need, min(target, r.atMost))
	}
	if r.quota.File > 0 {
		target = min(target, max(need, r.quota.File))
	}
	err := r.reserve(target)
	if code := fileframe.ErrorCode(err); r.request != "" && target > need &&
		(code == fileframe.CodeRequestTooLarge || code == fileframe.CodeQuotaExceeded) {
		// What the request has left may lie between need and target:
		// all of it, when the store says how much (the file must fit in
		// it anyway), else just what is read so far. Reserving only
		// need would make every later byte reserve again.
		for {
			alt := need
			var room *fileframe.RequestRoomError
			switch {
			case errors.As(err, &room) && room.Left >= need && room.Left < target:
				alt = room.Left
			case fileframe.ErrorCode(err) == fileframe.CodeQuotaExceeded && r.quota.Storage-r.used >= need && r.quota.Storage-r.used < target:
				alt = r.quota.Storage - r.used
			}
			target = alt
			if err = r.reserve(alt); err == nil || alt == need {
				break
			}
		}
	}
	if r.request != "" {
		return requestUploadError(err)
	}
	if fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
		return err
	}
	left := r.quota.Storage - r.used
	if left >= need && left < target {
		if err = r.reserve(left); fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
			return err
		}
	}
	return fileframe.Errorf(fileframe.CodeQuotaExceeded,
		"This file is larger than the %s left of the %s plan's %s of storage. Delete files you no longer share, or ask for a bigger plan.",
		humanize.IBytes(uint64(max(r.quota.Storage-r.used, 0))), r.account.Plan.Name(), humanize.IBytes(uint64(r.quota.Storage)))
}

// reserve sets the reservation to n bytes, for plainReservationTTL more.
func (r *reservedReader) reserve(n int64) error {
	now := r.s.now()
	used, err := r.s.store.Reserve(r.ctx, fileframe.Reservation{
		ID: r.id, AccountID: r.account.ID, Bytes: n, ExpiresAt: now.Add(plainReservationTTL), RequestID: r.request,
	}, r.quota, now)
	r.used = used
	if err != nil {
		return err
	}
	r.reserved, r.renewed = n, now
	return nil
}

// checkName returns an invalid_field error unless name can be a file's
// name.
func checkName(name string) error {
	if err := fileframe.CheckFileName(name); err != nil {
		return fileframe.Errorf(fileframe.CodeInvalidField, "%s", fileframe.ErrorMessage(err))
	}
	return nil
}

// checkFileSize returns a file_too_large error when a file of size bytes
// (-1: not known yet) is larger than the plan takes.
func checkFileSize(p fileframe.Plan, q fileframe.Quota, size int64) error {
	if q.File > 0 && size > q.File {
		return fileframe.Errorf(fileframe.CodeFileTooLarge,
			"This file is %s; the %s plan takes files of up to %s.",
			humanize.IBytes(uint64(size)), p.Name(), humanize.IBytes(uint64(q.File)))
	}
	return nil
}

// quotaError is the error of a file of size bytes that does not fit beside
// the used bytes of the account's files, images and other uploads.
func quotaError(p fileframe.Plan, q fileframe.Quota, size, used int64) error {
	need, left := twoSizes(size, max(q.Storage-used, 0))
	return fileframe.Errorf(fileframe.CodeQuotaExceeded,
		"This file needs %s, but only %s of the %s plan's %s of storage is left. Delete files you no longer share, or ask for a bigger plan.",
		need, left, p.Name(), humanize.IBytes(uint64(q.Storage)))
}

// twoSizes writes a and b as people read sizes (98 KiB), or in bytes when
// the rounded figures would look equal though they are not.
func twoSizes(a, b int64) (string, string) {
	x, y := humanize.IBytes(uint64(a)), humanize.IBytes(uint64(b))
	if x == y && a != b {
		return humanize.Comma(a) + " bytes", humanize.Comma(b) + " bytes"
	}
	return x, y
}

// fileCountError is the error of a file beyond the number of files the
// plan keeps.
func fileCountError(p fileframe.Plan, q fileframe.Quota) error {
	files := humanize.Comma(q.Files) + " files"
	if q.Files == 1 {
		files = "1 file"
	}
	return fileframe.Errorf(fileframe.CodeFileCountExceeded,
		"The %s plan keeps up to %s, and this account has that many (uploads in progress count). Delete files you no longer share, or ask for a bigger plan.",
		p.Name(), files)
}

// contentType picks a file's type from its name's extension, else from
// the hint's, else from its first bytes.
func contentType(head []byte, names ...string) string {
	for _, n := range names {
		if t := mime.TypeByExtension(filepath.Ext(n)); t != "" {
			return t
		}
	}
	return http.DetectContentType(head)
}

package service

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// File requests (issue 13): an owner asks for files with a link /r/<slug>;
// whoever opens it sends files into the owner's account, within the
// request's limits and the owner's quota; received files stay unshared
// until the owner shares them.

// NewRequest is what an owner asks for when creating a request.
type NewRequest struct {
	Title   string
	Message string
	// MaxFiles is how many files the request takes (1 to
	// fileframe.MaxRequestFiles); MaxBytes how many bytes all together
	// (at least 1, at most the plan's storage when it has a limit).
	MaxFiles int64
	MaxBytes int64
	// ExpiresIn, when positive, ends the request that long from now.
	ExpiresIn time.Duration
	// Password, when not empty, is asked of senders (4 to 256 characters,
	// a link password's rules).
	Password string
}

// The longest sender name and email a request keeps, in bytes.
const (
	maxSenderName  = 120
	maxSenderEmail = 254
)

// CreateRequest creates a file request of account a.
func (s *Service) CreateRequest(ctx context.Context, a fileframe.Account, nr NewRequest) (fileframe.Request, error) {
	title := strings.TrimSpace(nr.Title)
	if err := checkText("title", title, fileframe.MaxRequestTitleLen, false); err != nil {
		return fileframe.Request{}, err
	}
	if title == "" {
		return fileframe.Request{}, invalidRequest("A request needs a title, e.g. \"Photos of the wedding\".")
	}
	message := strings.TrimSpace(nr.Message)
	if err := checkText("message", message, fileframe.MaxRequestMessageLen, true); err != nil {
		return fileframe.Request{}, err
	}
	if nr.MaxFiles < 1 || nr.MaxFiles > fileframe.MaxRequestFiles {
		return fileframe.Request{}, invalidRequest("A request takes 1 to %d files, not %d.", fileframe.MaxRequestFiles, nr.MaxFiles)
	}
	q := s.quotas[a.Plan]
	if nr.MaxBytes < 1 {
		return fileframe.Request{}, invalidRequest("A request's size limit is at least 1 byte.")
	}
	if q.Storage > 0 && nr.MaxBytes > q.Storage {
		return fileframe.Request{}, invalidRequest("A request's size limit can be at most the %s plan's storage, %s.",
			a.Plan.Name(), humanize.IBytes(uint64(q.Storage)))
	}
	if nr.ExpiresIn < 0 {
		return fileframe.Request{}, invalidRequest("A request's expiry must be in the future.")
	}
	if nr.ExpiresIn > 0 && nr.ExpiresIn < time.Minute {
		// As a link's: a shorter life would end before anyone could use it.
		return fileframe.Request{}, invalidRequest("A request lasts at least a minute; give a longer expiry, such as 7d.")
	}
	r := fileframe.Request{AccountID: a.ID, Title: title, Message: message, MaxFiles: nr.MaxFiles, MaxBytes: nr.MaxBytes,
		CreatedAt: s.now()}
	if nr.ExpiresIn > 0 {
		r.ExpiresAt = r.CreatedAt.Add(nr.ExpiresIn)
	}
	if nr.Password != "" {
		if err := checkLinkPassword(nr.Password); err != nil {
			return fileframe.Request{}, err
		}
		hash, err := s.hasher().Hash(ctx, nr.Password)
		if err != nil {
			return fileframe.Request{}, err
		}
		r.PasswordHash = hash
	}
	return s.store.CreateRequest(ctx, r)
}

// checkText returns invalid_field unless v is valid UTF-8 of at most max
// bytes without control characters (line breaks allowed when lines).
func checkText(what, v string, max int, lines bool) error {
	switch {
	case !utf8.ValidString(v):
		return invalidRequest("The %s is not valid UTF-8.", what)
	case len(v) > max:
		return invalidRequest("The %s can be at most %d bytes long; this one has %d.", what, max, len(v))
	case strings.ContainsFunc(v, func(r rune) bool {
		return (unicode.IsControl(r) && !(lines && (r == '\n' || r == '\r' || r == '\t'))) || unicode.In(r, unicode.Zl, unicode.Zp)
	}):
		return invalidRequest("The %s cannot contain control characters.", what)
	}
	return nil
}

func invalidRequest(format string, args ...any) error {
	return fileframe.Errorf(fileframe.CodeInvalidField, format, args...)
}

// requestNotFound is the answer for a request that is not the account's
// (missing, another account's, or an ID of the wrong shape).
func requestNotFound(id fileframe.RequestID) error {
	return fileframe.Errorf(fileframe.CodeRequestNotFound, "There is no request %q in this account.", truncate(string(id), 40))
}

// Requests lists the account's requests, newest first.
func (s *Service) Requests(ctx context.Context, a fileframe.Account) ([]fileframe.Request, error) {
	return s.store.RequestsByAccount(ctx, a.ID)
}

// OwnRequest returns the account's request id with every file it received,
// oldest first.
func (s *Service) OwnRequest(ctx context.Context, a fileframe.Account, id fileframe.RequestID) (fileframe.Request, []fileframe.RequestFile, error) {
	if !id.Valid() {
		return fileframe.Request{}, nil, requestNotFound(id)
	}
	r, err := s.store.RequestByID(ctx, id)
	if fileframe.IsNotFound(err) || (err == nil && r.AccountID != a.ID) {
		return fileframe.Request{}, nil, requestNotFound(id)
	} else if err != nil {
		return fileframe.Request{}, nil, err
	}
	files, err := s.store.ReceivedFiles(ctx, id, "")
	if err != nil {
		return fileframe.Request{}, nil, err
	}
	return r, files, nil
}

// CloseRequest stops the account's request id from taking files; uploads
// still running are refused when they finish.
func (s *Service) CloseRequest(ctx context.Context, a fileframe.Account, id fileframe.RequestID) error {
	if _, _, err := s.OwnRequest(ctx, a, id); err != nil {
		return err
	}
	return s.store.CloseRequest(ctx, id, s.now())
}

// DeleteRequest removes the account's request id; the files it received
// stay in the account.
func (s *Service) DeleteRequest(ctx context.Context, a fileframe.Account, id fileframe.RequestID) error {
	if _, _, err := s.OwnRequest(ctx, a, id); err != nil {
		return err
	}
	return s.store.DeleteRequest(ctx, id)
}

// ShareFile makes one of the account's files public at its link (a file
// received through a request is private until then); sharing a shared
// file changes nothing.
func (s *Service) ShareFile(ctx context.Context, a fileframe.Account, id fileframe.FileID) (fileframe.File, error) {
	f, err := s.OwnFile(ctx, a, id)
	if err != nil || f.Shared {
		return f, err
	}
	if err := s.store.ShareFile(ctx, f.ID); err != nil {
		return fileframe.File{}, err
	}
	s.changed() // the link works from now
	f.Shared = true
	return f, nil
}

// OpenRequest returns the request whose page is /r/<slug> and its owner,
// for a sender: a request of a disabled account, or of one that does not
// exist, is not found.
func (s *Service) OpenRequest(ctx context.Context, slug string) (fileframe.Request, fileframe.Account, error) {
	if !fileframe.IsBase62(slug, len(fileframe.NewSlug())) {
		return fileframe.Request{}, fileframe.Account{}, fileframe.Errorf(fileframe.ENOTFOUND, "There is no such request.")
	}
	r, err := s.store.RequestBySlug(ctx, slug)
	if err != nil {
		return fileframe.Request{}, fileframe.Account{}, err
	}
	a, err := s.store.AccountByID(ctx, r.AccountID)
	if err != nil {
		return fileframe.Request{}, fileframe.Account{}, err
	}
	if a.Disabled {
		return fileframe.Request{}, fileframe.Account{}, fileframe.Errorf(fileframe.ENOTFOUND, "There is no such request.")
	}
	a.PasswordHash = ""
	return r, a, nil
}

// CheckRequestPassword reports whether pw is r's password, hashing under
// the memory budget (the caller limits guesses first). A request without
// a password takes any.
func (s *Service) CheckRequestPassword(ctx context.Context, r fileframe.Request, pw string) (bool, error) {
	if r.PasswordHash == "" {
		return true, nil
	}
	if len(pw) > 4*maxLinkPassword {
		return false, nil
	}
	return s.hasher().Verify(ctx, pw, r.PasswordHash)
}

// VisitFiles lists the files sent through r in one visit, oldest first.
func (s *Service) VisitFiles(ctx context.Context, r fileframe.Request, visit string) ([]fileframe.RequestFile, error) {
	if visit == "" {
		return []fileframe.RequestFile{}, nil
	}
	return s.store.ReceivedFiles(ctx, r.ID, visit)
}

// Sender is who sends a file through a request, and in which visit.
type Sender struct {
	Request fileframe.Request
	Visit   string
	Name    string
	Email   string
}

// CheckSender trims and checks the optional name and email a sender gave.
func CheckSender(name, email string) (string, string, error) {
	name, email = strings.TrimSpace(name), strings.TrimSpace(email)
	if err := checkText("name", name, maxSenderName, false); err != nil {
		return "", "", err
	}
	if err := checkText("email address", email, maxSenderEmail, false); err != nil {
		return "", "", err
	}
	if email != "" && (!strings.Contains(email, "@") || strings.ContainsFunc(email, unicode.IsSpace)) {
		return "", "", invalidRequest("%q is not an email address.", truncate(email, 60))
	}
	return name, email, nil
}

// ReserveRequestUpload reserves room for a resumable upload of size bytes
// named id, sent through the sender's request into its owner's account
// (owner): ReserveUpload's checks, and the request's own (open, a place
// left, the bytes left), in the same atomic step of the store.
func (s *Service) ReserveRequestUpload(ctx context.Context, owner fileframe.Account, from Sender, id, name string, size int64) error {
	if err := checkName(name); err != nil {
		return err
	}
	q := requestQuota(s.quotas[owner.Plan], from.Request)
	if err := checkRequestFileSize(owner.Plan, q, from.Request, size); err != nil {
		return err
	}
	_, err := s.store.Reserve(ctx, fileframe.Reservation{
		ID: id, AccountID: owner.ID, Bytes: size, ExpiresAt: s.now().Add(UploadReservationTTL), RequestID: from.Request.ID,
	}, q, s.now())
	return requestUploadError(err)
}

// requestQuota is the quota an upload through r is held to: its owner's
// plan's, with no file larger than r takes.
func requestQuota(q fileframe.Quota, r fileframe.Request) fileframe.Quota {
	if q.File <= 0 || q.File > r.MaxBytes {
		q.File = r.MaxBytes
	}
	return q
}

// checkRequestFileSize is checkFileSize for a file sent through r: larger
// than r takes at all is request_too_large, larger than the plan takes
// file_too_large.
func checkRequestFileSize(p fileframe.Plan, q fileframe.Quota, r fileframe.Request, size int64) error {
	if size > r.MaxBytes {
		return fileframe.Errorf(fileframe.CodeRequestTooLarge,
			"This file is %s; this request takes at most %s in all.", humanize.IBytes(uint64(size)), humanize.IBytes(uint64(r.MaxBytes)))
	}
	return checkFileSize(p, q, size)
}

// requestUploadError words a store's refusal of an upload through a
// request for its sender: the owner's quota is the owner's business, so
// the sender learns only that the request cannot take the file.
func requestUploadError(err error) error {
	switch fileframe.ErrorCode(err) {
	case fileframe.CodeQuotaExceeded, fileframe.CodeFileCountExceeded:
		return fileframe.Errorf(fileframe.CodeRequestTooLarge,
			"The account this request sends files to has no room for this file. Tell the person who asked for it.")
	case fileframe.CodeRequestClosed:
		return fileframe.Errorf(fileframe.CodeRequestClosed, "This request no longer takes files: it was closed or it expired.")
	case fileframe.CodeRequestFull:
		return fileframe.Errorf(fileframe.CodeRequestFull, "This request has received all the files it takes.")
	case fileframe.CodeRequestTooLarge:
		return fileframe.Errorf(fileframe.CodeRequestTooLarge,
			"This file does not fit in what is left of this request's size limit.")
	}
	return err
}

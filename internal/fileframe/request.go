package fileframe

import (
	"context"
	"time"
)

// RequestID identifies a file request; it is the last segment of the
// request's page in the application (/requests/<request_id>) and the
// requestId of the API.
type RequestID string

// NewRequestID returns a fresh random request ID.
func NewRequestID() RequestID { return RequestID("r_" + RandomBase62(16)) }

// Valid reports whether id has the exact shape NewRequestID gives: "r_" and
// 16 base62 characters.
func (id RequestID) Valid() bool { return validID(string(id), "r_", 16) }

// Request is a file request: a public page /r/<Slug> on the app origin
// through which anyone who has the link (a "sender") uploads files into the
// owner's account, within the request's limits. Received files are files of
// the owner's account that are not shared (File.Shared false) until the
// owner shares them.
type Request struct {
	ID        RequestID
	AccountID AccountID
	Slug      string // unique, unguessable; the public page is /r/<Slug>
	Title     string // at most MaxRequestTitleLen bytes
	Message   string // plain text, at most MaxRequestMessageLen bytes
	// MaxBytes is the most that all files received through the request
	// may take together (each file is therefore at most MaxBytes too);
	// MaxFiles the most files it receives. Both at least 1.
	MaxBytes int64
	MaxFiles int64
	// ExpiresAt is when the request stops taking files; zero: never.
	ExpiresAt time.Time
	// PasswordHash is the PHC string of the request's password (package
	// password); "" when the page asks for none.
	PasswordHash string
	// ClosedAt is when the owner closed the request; zero while open.
	ClosedAt  time.Time
	CreatedAt time.Time
	// Received and ReceivedBytes are what the request has received so far
	// (files since deleted by the owner no longer count). Stores fill them
	// in; CreateRequest ignores them.
	Received      int64
	ReceivedBytes int64
}

// The longest title and message of a request, in bytes.
const (
	MaxRequestTitleLen   = 120
	MaxRequestMessageLen = 2000
	// MaxRequestFiles is the most files one request may ask for.
	MaxRequestFiles = 1000
)

// RequestState says whether a request takes files.
type RequestState string

const (
	RequestOpen    RequestState = "open"
	RequestClosed  RequestState = "closed"
	RequestExpired RequestState = "expired"
)

// State is r's state at now: closed once the owner closed it, expired from
// ExpiresAt on.
func (r Request) State(now time.Time) RequestState {
	switch {
	case !r.ClosedAt.IsZero():
		return RequestClosed
	case !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt):
		return RequestExpired
	}
	return RequestOpen
}

// URL returns the request's public path, /r/<slug>.
func (r Request) URL() string { return "/r/" + r.Slug }

// RequestFile is a file received through a request: who sent it and in
// which visit (the random ID of the sender's visit cookie).
type RequestFile struct {
	RequestID   RequestID
	File        File
	VisitID     string
	SenderName  string
	SenderEmail string
	CreatedAt   time.Time
}

// RequestStore keeps file requests and what they received. Errors follow
// Store's conventions.
type RequestStore interface {
	// CreateRequest stores a new request; ID, Slug and CreatedAt are set
	// when empty. A missing account is ENOTFOUND, a taken slug ECONFLICT,
	// MaxBytes or MaxFiles below 1 EINVALID.
	CreateRequest(ctx context.Context, r Request) (Request, error)
	// RequestByID returns the request with that ID, with what it received.
	RequestByID(ctx context.Context, id RequestID) (Request, error)
	// RequestBySlug returns the request whose page is /r/<slug>.
	RequestBySlug(ctx context.Context, slug string) (Request, error)
	// RequestsByAccount lists the account's requests, newest first; a
	// missing account is ENOTFOUND.
	RequestsByAccount(ctx context.Context, id AccountID) ([]Request, error)
	// CloseRequest sets the request's ClosedAt to at unless it is closed
	// already (then nothing changes).
	CloseRequest(ctx context.Context, id RequestID, at time.Time) error
	// DeleteRequest removes the request and its records of received
	// files; the files themselves stay in the owner's account.
	DeleteRequest(ctx context.Context, id RequestID) error
	// ReceivedFiles lists the files the request received, oldest first:
	// all of them when visit is "", else only those sent in that visit.
	ReceivedFiles(ctx context.Context, id RequestID, visit string) ([]RequestFile, error)
	// CreateRequestFile is CreateFileReserved for a file sent through
	// request rf.RequestID: in one atomic step across every process
	// sharing the store it removes the reservation, checks the account's
	// quota q (as CreateFileReserved), checks that the request is open at
	// now and that the file fits beside what the request received and the
	// request's other unexpired reservations (CodeRequestClosed,
	// CodeRequestFull for the count, CodeRequestTooLarge for the bytes),
	// and stores f (its Shared is stored false) with rf. If anything does
	// not fit nothing changes. f must belong to the request's account.
	// upload is recorded with f as CreateFileReserved records it.
	CreateRequestFile(ctx context.Context, f File, rf RequestFile, reservation, upload string, q Quota, now time.Time) (File, error)
	// ShareFile makes a received file's link public (File.Shared); a
	// shared file stays shared.
	ShareFile(ctx context.Context, id FileID) error
}

// CheckRequestRoom returns nil when one more file of size bytes fits in r at
// now beside files files of bytes bytes that it received or that uploads
// hold room for; otherwise an error with code CodeRequestClosed,
// CodeRequestFull or CodeRequestTooLarge. Stores call it inside the atomic
// step that takes the room.
func CheckRequestRoom(r Request, files, bytes, size int64, now time.Time) error {
	switch {
	case r.State(now) != RequestOpen:
		return Errorf(CodeRequestClosed, "This request no longer takes files.")
	case files+1 > r.MaxFiles:
		return Errorf(CodeRequestFull, "This request has received all the files it takes.")
	case size > r.MaxBytes-bytes:
		return &RequestRoomError{Left: max(r.MaxBytes-bytes, 0),
			err: Errorf(CodeRequestTooLarge, "This file does not fit in what is left of the request's size limit.")}
	}
	return nil
}

// RequestRoomError is CheckRequestRoom's error of a size that does not fit
// in what is left of a request's bytes (code CodeRequestTooLarge): Left
// says how much is, so that an upload of unknown size can reserve all of
// it at once instead of growing its reservation byte by byte.
type RequestRoomError struct {
	Left int64
	err  *Error
}

func (e *RequestRoomError) Error() string { return e.err.Error() }

// Unwrap gives the *Error, whose code callers branch on.
func (e *RequestRoomError) Unwrap() error { return e.err }

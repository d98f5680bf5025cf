package fileframe

import (
	"context"
	"time"
)

// UploadStore keeps what uploads need while and after they run: the storage
// they reserve against their account's quota, and which file each finished
// resumable upload became. Errors follow Store's conventions.
type UploadStore interface {
	// Reserve stores r, replacing any reservation with r.ID, if r.Bytes, the
	// account's files, its appearances' images and its other reservations
	// unexpired at now fit in q.Storage, and if one more file beside its
	// files and other reservations (each one a file to be) fits in q.Files
	// (a limit ≤ 0 is unlimited; q.File is not checked here). If they do
	// not, nothing changes and the error has code CodeQuotaExceeded or
	// CodeFileCountExceeded. used is the bytes that the account's files,
	// images and other unexpired reservations take, either way. Check and
	// write are one atomic step across every process sharing the store. A
	// missing account is ENOTFOUND; a negative Bytes or an empty ID is
	// EINVALID.
	Reserve(ctx context.Context, r Reservation, q Quota, now time.Time) (used int64, err error)
	// ReleaseReservation removes a reservation; a missing one is not an
	// error.
	ReleaseReservation(ctx context.Context, id string) error
	// DeleteExpiredReservations removes the reservations that expired
	// before t and returns how many (they no longer count in any case).
	DeleteExpiredReservations(ctx context.Context, t time.Time) (int, error)
	// RecordUpload remembers that the resumable upload uploadID became the
	// file id, so that a client that missed the answer to the upload's last
	// request can be told which file it made (UploadFile). The file must
	// exist (else ENOTFOUND); recording an upload again is ECONFLICT.
	// Deleting the file forgets the record. (A finished upload's file is
	// stored with its record in one step: CreateFileReserved's upload.)
	RecordUpload(ctx context.Context, uploadID string, id FileID, at time.Time) error
	// UploadFile returns the file that the resumable upload uploadID became.
	UploadFile(ctx context.Context, uploadID string) (FileID, error)
	// DeleteUploadRecords forgets the uploads recorded before t and returns
	// how many.
	DeleteUploadRecords(ctx context.Context, t time.Time) (int, error)
}

// Reservation is storage that an upload holds against its account's quota
// while its bytes arrive, so that uploads running at once, on one instance
// or many, can never together store more than the quota (Store.Reserve).
// It counts until it is released, becomes a file (Store.CreateFileReserved)
// or expires: an upload whose process died frees its room by itself.
type Reservation struct {
	// ID names the reservation: a resumable upload's ID, or a random one
	// for a plain upload.
	ID        string
	AccountID AccountID
	Bytes     int64
	ExpiresAt time.Time
	// RequestID, when set, is the file request the upload is sent
	// through: Reserve then also checks the request's limits (it must be
	// open at now, its received files and other unexpired reservations
	// plus this one within MaxFiles and MaxBytes: CodeRequestClosed,
	// CodeRequestFull, CodeRequestTooLarge), and the request must be of
	// AccountID (else ENOTFOUND). A renewal (a reservation with an ID
	// already stored) without it keeps the stored reservation's request.
	RequestID RequestID
}

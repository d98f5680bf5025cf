package fileframe

import "time"

// Quota is what one plan may store: Storage bytes in all (the sum of the
// account's file sizes, a file stored twice counting twice, as the owner
// sees it) and files of at most File bytes each. Zero is unlimited.
type Quota struct {
	Storage int64
	File    int64
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
}

// CodeQuotaExceeded is the code of an upload that does not fit in what is
// left of its account's storage; CodeFileTooLarge of a file larger than its
// plan takes. Both are also problem+json codes of the upload API.
const (
	CodeQuotaExceeded = "quota_exceeded"
	CodeFileTooLarge  = "file_too_large"
)

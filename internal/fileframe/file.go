package fileframe

import (
	"context"
	"time"
	"unicode"
	"unicode/utf8"
)

// FileID identifies a file; it is the last segment of the file's page in the
// application (/files/<file_id>) and the fileId of the API.
type FileID string

// FileKind says what a row of files is: an uploaded file, or a collection
// of other files (collection.go) under one link.
type FileKind string

const (
	FileKindFile       FileKind = "file"
	FileKindCollection FileKind = "collection"
)

// File is an uploaded file with its public link /f/<Slug>, or a collection
// of files (Kind FileKindCollection), whose link serves its items.
type File struct {
	ID        FileID
	AccountID AccountID
	// Kind is FileKindFile, or FileKindCollection for a collection; the
	// stores read "" as FileKindFile.
	Kind        FileKind
	Name        string // the name offered to the visitor when downloading
	Size        int64  // a collection's is the sum of its items'
	ContentType string
	BlobKey     string // key of the bytes in Blobs (hex SHA-256 of the content); "" for a collection
	Slug        string // unique, unguessable; the public link is /f/<Slug>
	Downloads   int64
	CreatedAt   time.Time
	// Link is what the owner controls about the link (link.go).
	Link Link
	// LinkDownloads is the complete downloads counted against
	// Link.MaxDownloads since it was set.
	LinkDownloads int64
	// Shared is whether the file's link works: true for every file but
	// one received through a file request, which stays private (its link
	// answers 404) until its owner shares it (RequestStore.ShareFile).
	// CreateFile and CreateFileReserved store every file shared, whatever
	// the field says; only RequestStore.CreateRequestFile stores one that
	// is not.
	Shared bool
}

// FileQuery asks ListFiles for one page of an account's files.
type FileQuery struct {
	Account AccountID
	// After, when set, is the last file of the previous page.
	After *FileCursor
	Limit int
}

// FileCursor is where a page of ListFiles ends: its last file's creation
// time and ID.
type FileCursor struct {
	CreatedAt time.Time
	ID        FileID
}

// IsCollection reports whether f is a collection of files rather than a
// file with bytes of its own.
func (f File) IsCollection() bool { return f.Kind == FileKindCollection }

// URL returns the file's public path, /f/<slug>.
func (f File) URL() string { return "/f/" + f.Slug }

// FileStore keeps files. Errors follow Store's conventions.
type FileStore interface {
	// CreateFile stores a new file record. Its blob must already be durable.
	// ID, Slug and CreatedAt are set when empty; a taken slug is ECONFLICT.
	CreateFile(ctx context.Context, f File) (File, error)
	// CreateFileReserved is CreateFile for an upload that holds the
	// reservation named reservation (Reserve): in one atomic step it removes
	// that reservation and stores f if f fits in q beside what the account
	// holds, as Reserve counts it; if not, nothing changes (the reservation
	// stays until released) and the error has code CodeQuotaExceeded or
	// CodeFileCountExceeded. A reservation that
	// is missing (released, or removed
	// after it expired) is not an error: the check alone decides. A
	// non-empty upload is the resumable upload that f finishes: it is
	// recorded (as RecordUpload records it, at now) in the same atomic
	// step, so that a file of an upload never exists without its record;
	// an upload recorded already is ECONFLICT, checked first, and nothing
	// changes.
	CreateFileReserved(ctx context.Context, f File, reservation, upload string, q Quota, now time.Time) (File, error)
	// FileByID returns the file with that ID.
	FileByID(ctx context.Context, id FileID) (File, error)
	// FileBySlug returns the file whose public link is /f/<slug>.
	FileBySlug(ctx context.Context, slug string) (File, error)
	// AddDownloads adds each count to its file's download counter in one
	// transaction; files that no longer exist are skipped.
	AddDownloads(ctx context.Context, counts map[FileID]int64) error
	// FilesByAccount lists the account's files, newest first, with the
	// state of each one's custom page.
	FilesByAccount(ctx context.Context, id AccountID) ([]FileListing, error)
	// ListFiles lists up to q.Limit (1 to 1000) of the account's files,
	// newest first by CreatedAt and then by ID, starting after q.After
	// when it is set (keyset pagination: files added meanwhile do not
	// shift the pages). A missing account is ENOTFOUND.
	ListFiles(ctx context.Context, q FileQuery) ([]FileListing, error)
	// RenameFile changes the name visitors download the file under.
	RenameFile(ctx context.Context, id FileID, name string) error
	// DeleteFile removes the file's row with its page, revisions, appearance
	// and page-bound keys, and returns the deleted file so the caller can
	// remove its blob when BlobInUse says no other file uses it.
	DeleteFile(ctx context.Context, id FileID) (File, error)
	// BlobInUse reports whether any file (or appearance image) refers to
	// the blob key.
	BlobInUse(ctx context.Context, key string) (bool, error)
}

// MaxFileNameLen is the longest file name, in bytes, that RenameFile takes.
const MaxFileNameLen = 255

// CheckFileName returns an EINVALID error unless name can be a file's name:
// 1 to MaxFileNameLen bytes of UTF-8 without control characters (they could
// not be carried in a Content-Disposition header, and would show as nothing
// in a listing), line and paragraph separators, and invisible formatting
// characters (Unicode's Cf) but the zero-width joiner and non-joiner, which
// scripts such as Persian and emoji sequences need: a right-to-left
// override in "invoice<U+202E>fdp.exe" would make the service's own
// download control read "invoiceexe.pdf".
func CheckFileName(name string) error {
	switch {
	case name == "":
		return Errorf(EINVALID, "A file name cannot be empty.")
	case len(name) > MaxFileNameLen:
		return Errorf(EINVALID, "A file name can be at most %d bytes long.", MaxFileNameLen)
	case !utf8.ValidString(name):
		return Errorf(EINVALID, "A file name must be valid UTF-8.")
	}
	visible := false
	for _, r := range name {
		switch {
		case IsBreakOrControl(r):
			return Errorf(EINVALID, "A file name cannot contain control characters such as line breaks or tabs.")
		case IsInvisibleFormat(r):
			return Errorf(EINVALID, "A file name cannot contain invisible characters such as U+%04X (text direction overrides, zero-width characters, fillers), which could make it read as another name.", r)
		case !blank(r):
			visible = true
		}
	}
	switch {
	case !visible:
		return Errorf(EINVALID, "A file name needs a character that can be seen.")
	case name == "." || name == "..":
		return Errorf(EINVALID, "A file name cannot be . or .., which name folders.")
	}
	return nil
}

// IsBreakOrControl reports whether r is a control character (U+0085,
// the next line, included) or a line or paragraph separator: what a text
// of one line cannot hold.
func IsBreakOrControl(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp)
}

// IsInvisibleFormat reports whether r is an invisible formatting
// character (Unicode's Cf, and the other default-ignorable code points)
// other than the zero-width joiner and non-joiner, which scripts such as
// Persian and emoji sequences need: text direction overrides and
// zero-width characters make a text read as another.
func IsInvisibleFormat(r rune) bool {
	return unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d' ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// blank reports whether r draws nothing a reader can see on its own:
// spaces, the joiners, variation selectors and combining marks (which
// draw on another character), the Braille blank.
func blank(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) || unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == '\u200c' || r == '\u200d' || r == '\u2800'
}

package fileframe

import "time"

// FileID identifies a file; it is the last segment of the file's page in the
// application (/files/<file_id>) and the fileId of the API.
type FileID string

// File is an uploaded file with its public link /f/<Slug>.
type File struct {
	ID          FileID
	AccountID   AccountID
	Name        string // the name offered to the visitor when downloading
	Size        int64
	ContentType string
	BlobKey     string // key of the bytes in Blobs (hex SHA-256 of the content)
	Slug        string // unique, unguessable; the public link is /f/<Slug>
	Downloads   int64
	CreatedAt   time.Time
}

// URL returns the file's public path, /f/<slug>.
func (f File) URL() string { return "/f/" + f.Slug }
